public import Foundation
public import QuireCoordination
public import QuireFormats
import QuireSystem
public import QuireTypes
public import SystemPackage

/// Makes thumbnails with the registered providers (the QLThumbnailGenerator analogue).
///
/// Rendering runs in the calling task: C libraries cannot be interrupted, so callers that
/// need a time limit run the generator in a worker process (see ``ThumbnailBatch``).
public struct ThumbnailGenerator: Sendable {
  /// The providers consulted.
  public let providers: ThumbnailProviderRegistry
  /// The types known for identifying files.
  public let types: TypeRegistry

  /// Where open documents are coordinated: a file that a presenter presents there (a document
  /// open in any Quire process of the user) is drawn inside a coordinated read, so the
  /// thumbnail waits for a save under way instead of drawing a package half swapped. `nil`
  /// never coordinates. Files nobody presents are read directly: a batch of thousands of
  /// files leaves no lock files behind.
  public var coordinationLocation: CoordinationLocation? = .default
  /// How long a thumbnail of an open document waits for a writer before drawing anyway.
  public var coordinationTimeout: Duration = .seconds(10)

  /// Makes a generator over `providers` (Quire's own by default).
  public init(providers: ThumbnailProviderRegistry = .makeDefault(), types: TypeRegistry = .shared) {
    self.providers = providers
    self.types = types
  }

  /// The thumbnail for `request`, drawn by the most specific provider for its type.
  /// - Throws: ``QuireError``: `.unsupportedType` when no provider handles the type, or
  ///   the provider's error.
  public func generateBestRepresentation(for request: ThumbnailRequest) throws -> Bitmap {
    guard (1...4096).contains(request.pixelSize) else {
      throw QuireError(
        .invalidArgument, "Cannot make a \(request.pixelSize) px thumbnail of \(QuireError.name(request.filePath)): sizes are 1 to 4096 pixels.",
        url: request.fileURL)
    }
    guard let provider = providers.provider(for: request.contentType) else {
      throw QuireError(
        .unsupportedType,
        "No thumbnail provider handles \(QuireError.name(request.filePath)) (type \(request.contentType.identifier)). Quire draws Markdown, plain text and PDF.",
        url: request.fileURL)
    }
    guard let location = coordinationLocation, FileCoordinator.isItemPresented(at: request.fileURL, location: location) else {
      return try provider.makeThumbnail(for: request)
    }
    // Draw what is on disk (`withoutChanges`: the document is not asked to save first), once no
    // coordinated writer holds it. A writer that holds it too long, or a coordination folder
    // that cannot be used, does not cost the thumbnail: it is drawn as the file is.
    let drawn: Result<Bitmap, any Error>
    do {
      drawn = try FileCoordinator(location: location).coordinate(
        readingItemAt: request.fileURL, options: .withoutChanges, timeout: coordinationTimeout
      ) { _ in Result { try provider.makeThumbnail(for: request) } }
    } catch {
      return try provider.makeThumbnail(for: request)
    }
    return try drawn.get()
  }

  /// The type of the file at `url`: from its filename extension, else from its first bytes
  /// (`%PDF-` → PDF; valid UTF-8 text → plain text).
  /// - Throws: ``QuireError`` `.fileMissing` / `.permissionDenied` when it cannot be read.
  public func contentType(of url: URL) throws -> UTType {
    try Self.contentType(of: url, registry: types)
  }

  /// The type of the file at `path`, whose name may be any bytes (one that is not UTF-8
  /// too); see ``contentType(of:)-(URL)``.
  public func contentType(of path: FilePath) throws -> UTType {
    try Self.contentType(of: path, registry: types)
  }

  /// See ``contentType(of:)-(URL)``.
  public static func contentType(of url: URL, registry: TypeRegistry = .shared) throws -> UTType {
    // Through the one input opener first: a missing file, a FIFO, a device, a folder or a
    // link loop is refused here, naming the file, before any type is guessed from its name.
    try InputFile.check(url, for: "read")
    return try contentType(identifying: FilePath(url.path), registry: registry) { try FileHead.read(url, count: 1024) }
  }

  /// The type of the file named `path` whose bytes are at `source` (a pinned
  /// `/proc/self/fd/N`): by name and declared content, else by `source`'s first bytes.
  package static func contentType(of path: FilePath, readingFrom source: URL, registry: TypeRegistry = .shared) throws -> UTType {
    try InputFile.check(source, for: "read")
    return try contentType(identifying: path, registry: registry) { try FileHead.read(source, count: 1024) }
  }

  /// See ``contentType(of:)-(FilePath)``.
  public static func contentType(of path: FilePath, registry: TypeRegistry = .shared) throws -> UTType {
    try InputFile.check(path, for: "read")
    return try contentType(identifying: path, registry: registry) { try InputFile.read(path, for: "read", limit: 1024, truncating: true) }
  }

  /// The type by name and declared content, else by the first bytes `head` gives.
  private static func contentType(identifying path: FilePath, registry: TypeRegistry, head readHead: () throws -> [UInt8]) throws -> UTType {
    let identified = (try? registry.identifyFile(at: path))?.type
    if let type = identified, !type.identifier.hasPrefix("dyn.") { return type }
    let head = try readHead()
    // The PDF header may follow up to 1 KiB of junk (PDF 32000-1 annex H.3).
    if head.windows(ofCount: 5).contains(where: { $0.elementsEqual("%PDF-".utf8) }) {
      return .pdf
    }
    // Text: no NUL byte and valid UTF-8 (allowing a character cut at the end of the sample).
    if !head.isEmpty, !head.contains(0) {
      for cut in 0...min(3, head.count - 1) where String(validating: head.dropLast(cut), as: UTF8.self) != nil {
        return .plainText
      }
    }
    return identified ?? .data
  }
}

extension Array where Element == UInt8 {
  fileprivate func windows(ofCount n: Int) -> [ArraySlice<UInt8>] {
    guard count >= n else { return [] }
    return (0...(count - n)).map { self[$0..<($0 + n)] }
  }
}

/// Reads the first bytes of a file, with errors that name it.
enum FileHead {
  static func read(_ url: URL, count: Int) throws -> [UInt8] {
    let fd: FileDescriptor
    switch SystemCalls.open(FilePath(url.path), O_RDONLY) {
    case .success(let opened): fd = opened
    case .failure(let failure): throw FileErrors.opening(url, errno: failure.errno.rawValue)
    }
    defer { SystemCalls.release(fd) }
    var buffer = [UInt8](repeating: 0, count: count)
    switch buffer.withUnsafeMutableBytes({ SystemCalls.read(fd, into: $0) }) {
    case .success(let got): return Array(buffer.prefix(got))
    case .failure(let failure): throw FileErrors.opening(url, errno: failure.errno.rawValue)
    }
  }
}

/// Maps errno from opening an input file to a ``QuireError``.
enum FileErrors {
  static func opening(_ url: URL, errno code: Int32) -> QuireError {
    switch code {
    case ENOENT, ENOTDIR:
      return InputFile.missingError(url, for: "read")
    case EACCES, EPERM:
      return QuireError(.permissionDenied, "Cannot read \(QuireError.name(url)): permission denied. Check the file's permissions.", url: url)
    case EISDIR:
      return QuireError(.unsupportedType, "Cannot read \(QuireError.name(url)): it is a folder.", url: url)
    default:
      return QuireError(.systemCallFailed, "Cannot read \(QuireError.name(url)): \(QuireError.describe(Errno(rawValue: code))).", url: url)
    }
  }
}
