public import Foundation
public import QuireFormats
public import QuireTypes
import Synchronization
public import SystemPackage

/// What a thumbnail is asked for: the file, its type, and how big.
///
/// The QLThumbnailGenerator.Request analogue. The image's longer side is exactly
/// ``pixelSize`` = `maximumSize × scale` pixels; the other side keeps the content's shape.
public struct ThumbnailRequest: Sendable, Hashable {
  /// The file to draw, as a URL (for coordination and messages). A name that is not UTF-8,
  /// which no `URL` holds, is in ``filePath``; providers read the file there.
  public var fileURL: URL
  /// The file to draw, with its name's bytes: what providers open.
  public var filePath: FilePath
  /// The file's type; picks the provider.
  public var contentType: UTType
  /// The longer side in points.
  public var maximumSize: Int
  /// Pixels per point (2 for a HiDPI screen).
  public var scale: Double

  /// Makes a request.
  /// - Parameters:
  ///   - fileURL: The file to draw.
  ///   - contentType: Its type (see ``ThumbnailGenerator/contentType(of:registry:)``).
  ///   - maximumSize: The longer side in points, 1…4096.
  ///   - scale: Pixels per point, 1 by default.
  public init(fileURL: URL, contentType: UTType, maximumSize: Int, scale: Double = 1) {
    self.fileURL = fileURL
    self.filePath = FilePath(fileURL.path)
    self.contentType = contentType
    self.maximumSize = maximumSize
    self.scale = scale
  }

  /// Makes a request for the file at `filePath`, whose name may be any bytes (one that is not
  /// UTF-8 too); ``fileURL`` gets the name decoded, for messages only.
  /// - Parameters:
  ///   - filePath: The file to draw.
  ///   - contentType: Its type (see ``ThumbnailGenerator/contentType(of:registry:)-(FilePath,_)``).
  ///   - maximumSize: The longer side in points, 1…4096.
  ///   - scale: Pixels per point, 1 by default.
  public init(filePath: FilePath, contentType: UTType, maximumSize: Int, scale: Double = 1) {
    self.init(fileURL: URL(fileURLWithPath: filePath.string), contentType: contentType, maximumSize: maximumSize, scale: scale)
    self.filePath = filePath
  }

  /// Whether ``fileURL`` names the file itself (its name is UTF-8), not a lossy decoding of
  /// ``filePath``. A relative path (`quire thumbnail -s 256 doc.pdf out.png`) fits: its URL is
  /// the same name under the current folder.
  var nameFitsURL: Bool { String(validating: filePath) != nil }

  /// The longer side in pixels: `maximumSize × scale`, rounded.
  public var pixelSize: Int { max(1, Int((Double(maximumSize) * scale).rounded())) }
}

/// Draws thumbnails for the types it is registered for (the QLThumbnailProvider analogue).
///
/// Providers are values that can be used from any task: each call makes its own bitmap and
/// opens its own file, so no C state is shared between calls.
public protocol ThumbnailProvider: Sendable {
  /// Draws the thumbnail for `request`.
  ///
  /// The returned bitmap's longer side must be exactly `request.pixelSize`.
  /// - Throws: ``QuireError`` naming the file when it cannot be drawn.
  func makeThumbnail(for request: ThumbnailRequest) throws -> Bitmap
}

/// Which provider draws which types.
///
/// For a file of type T, every registration whose type T conforms to is a candidate, and the
/// most specific one wins: a candidate is dropped when another candidate's type is a subtype of
/// it (Markdown beats plain text beats text). Between registrations for the same type, the
/// latest wins, so an embedding app can replace a built-in provider.
public final class ThumbnailProviderRegistry: Sendable {
  private struct Entry: Sendable {
    var type: UTType
    var provider: any ThumbnailProvider
  }
  private let entries: Mutex<[Entry]>

  /// An empty registry.
  public init() { entries = Mutex([]) }

  /// A registry with Quire's providers: Markdown, plain text and source code, PDF.
  public static func makeDefault() -> ThumbnailProviderRegistry {
    let registry = ThumbnailProviderRegistry()
    registry.register(TextThumbnailProvider(), for: [.plainText])
    registry.register(MarkdownThumbnailProvider(), for: [.markdown])
    registry.register(PDFThumbnailProvider(), for: [.pdf])
    return registry
  }

  /// Registers `provider` for `types` (and so for every type conforming to them).
  public func register(_ provider: any ThumbnailProvider, for types: [UTType]) {
    entries.withLock { list in
      for type in types { list.append(Entry(type: type, provider: provider)) }
    }
  }

  /// The provider for files of `type`, or nil when none is registered for it or a supertype.
  public func provider(for type: UTType) -> (any ThumbnailProvider)? {
    let candidates = entries.withLock { list in list.filter { type.conforms(to: $0.type) } }
    // Latest registration first, so it wins ties.
    let ordered = Array(candidates.reversed())
    let best = ordered.first { candidate in
      !ordered.contains { other in other.type.isSubtype(of: candidate.type) }
    }
    return best?.provider
  }

  /// The types that have a provider registered directly.
  public var registeredTypes: [UTType] { entries.withLock { $0.map(\.type) } }
}
