// Apple's `QuickLookThumbnailing` framework by its own name: `QLThumbnailGenerator` with its
// `Request` and `QLThumbnailRepresentation`, drawn by QuirePreviews' providers (Markdown, plain
// text, PDF), so a ported file's `import QuickLookThumbnailing` compiles unchanged.
@_exported public import Foundation
@_exported public import QuireFormats
@_exported public import QuirePreviews
@_exported public import QuireTypes

/// Quick Look's thumbnail generator (`QLThumbnailGenerator`), drawing with Quire's providers
/// (``ThumbnailGenerator``).
open class QLThumbnailGenerator: @unchecked Sendable {
  // @unchecked: its one stored property is an immutable Sendable value; subclasses keep to that.
  private let generator: ThumbnailGenerator

  /// The shared generator.
  public static let shared = QLThumbnailGenerator()

  /// A generator with Quire's default providers.
  public init() { generator = ThumbnailGenerator() }

  /// What a thumbnail is asked for (Apple's `QLThumbnailGenerator.Request`).
  open class Request: @unchecked Sendable {
    // @unchecked: its stored properties are immutable values.
    /// The file.
    public let fileURL: URL
    /// The largest size, in points.
    public let size: CGSize
    /// Pixels per point.
    public let scale: CGFloat
    /// The kinds of representation wanted; Quire draws thumbnails, so every kind gets one.
    public let representationTypes: RepresentationTypes

    /// Asks for a thumbnail of the file at `url` no larger than `size` points at `scale`.
    public init(fileAt url: URL, size: CGSize, scale: CGFloat, representationTypes: RepresentationTypes) {
      fileURL = url
      self.size = size
      self.scale = scale
      self.representationTypes = representationTypes
    }

    /// Apple's representation kinds.
    public struct RepresentationTypes: OptionSet, Sendable {
      public let rawValue: UInt
      public init(rawValue: UInt) { self.rawValue = rawValue }
      /// The file type's icon.
      public static let icon = RepresentationTypes(rawValue: 1 << 0)
      /// A quick, low-quality thumbnail.
      public static let lowQualityThumbnail = RepresentationTypes(rawValue: 1 << 1)
      /// The full thumbnail.
      public static let thumbnail = RepresentationTypes(rawValue: 1 << 2)
      /// All of them.
      public static let all: RepresentationTypes = [.icon, .lowQualityThumbnail, .thumbnail]
    }
  }

  /// Draws the best thumbnail for `request` and passes it (or the error) to `handler`, off
  /// the caller's thread.
  open func generateBestRepresentation(
    for request: Request, completion handler: @escaping @Sendable (QLThumbnailRepresentation?, (any Error)?) -> Void
  ) {
    Task.detached { [self] in
      do {
        handler(try self.draw(request), nil)
      } catch {
        handler(nil, error)
      }
    }
  }

  /// Draws the best thumbnail for `request`.
  open func generateBestRepresentation(for request: Request) async throws -> QLThumbnailRepresentation {
    try await Task.detached { [self] in try self.draw(request) }.value
  }

  /// Apple's generator can cancel a request; Quire's drawing is not interruptible, so this
  /// does nothing (a request still running completes).
  open func cancel(_ request: Request) {}

  private func draw(_ request: Request) throws -> QLThumbnailRepresentation {
    let side = max(1, Int(max(request.size.width, request.size.height).rounded()))
    let type = try generator.contentType(of: request.fileURL)
    let thumbnailRequest = ThumbnailRequest(fileURL: request.fileURL, contentType: type, maximumSize: side, scale: Double(request.scale))
    let bitmap = try generator.generateBestRepresentation(for: thumbnailRequest)
    return QLThumbnailRepresentation(cgImage: try CGImage(bitmap), scale: request.scale)
  }
}

/// A drawn thumbnail (Apple's `QLThumbnailRepresentation`).
open class QLThumbnailRepresentation: @unchecked Sendable {
  // @unchecked: immutable after init.
  /// The kind of representation: always a thumbnail here.
  public let type: QLThumbnailGenerator.Request.RepresentationTypes = .thumbnail
  /// The image.
  public let cgImage: CGImage
  /// The image as UIKit's `UIImage` (AppKit's `NSImage`).
  public var uiImage: UIImage { UIImage(cgImage: cgImage, scale: scale) }
  /// AppKit's spelling of ``uiImage``.
  public var nsImage: UIImage { uiImage }
  /// The part of the image that holds the content: all of it.
  public var contentRect: CGRect { CGRect(x: 0, y: 0, width: CGFloat(cgImage.width), height: CGFloat(cgImage.height)) }
  private let scale: CGFloat

  init(cgImage: CGImage, scale: CGFloat) {
    self.cgImage = cgImage
    self.scale = scale
  }
}
