internal import CPoppler
public import Foundation
import QuireSystem
import QuireTypes
public import SystemPackage

/// A PDF opened with poppler-glib for reading and rendering.
///
/// poppler-glib is the PDF library of GNOME (evince, nautilus) and the one the baselines'
/// floor uses. A `PDFFile` owns its `PopplerDocument`; it is not `Sendable`, because poppler
/// documents must be used by one thread at a time. Pages are looked up on demand and released
/// after each call.
public final class PDFFile {
  /// The only holder of the `PopplerDocument` pointer.
  let document: OpaquePointer
  /// Where the PDF came from, for messages.
  public let url: URL

  /// Opens the PDF at `url`.
  ///
  /// - Parameter password: The user or owner password, for encrypted files that need one.
  /// - Throws: ``QuireError`` naming the file: `.fileMissing`, `.passwordRequired` when it is
  ///   encrypted and the password is missing or wrong, `.invalidContent` when poppler cannot
  ///   parse it or it is not a regular file.
  public convenience init(contentsOf url: URL, password: String? = nil) throws {
    // By the path's bytes (a URL carrying a name that is not UTF-8 names that very file).
    try self.init(path: PathText.path(url.path), url: url, password: password)
  }

  /// Opens the PDF at `path`, whose name may be any bytes (one that is not UTF-8 too, which no
  /// `URL` holds). See ``init(contentsOf:password:)``.
  public convenience init(filePath path: FilePath, password: String? = nil) throws {
    try self.init(path: path, url: URL(fileURLWithPath: PathText.string(path)), password: password)
  }

  /// Opens `path` once and gives poppler the descriptor: the file checked is the file read,
  /// and a name of any bytes is that very file. A FIFO or device is refused before a read
  /// could wait on it.
  private init(path: FilePath, url: URL, password: String?) throws {
    let fd: FileDescriptor
    switch SystemCalls.open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK) {
    case .success(let opened): fd = opened
    case .failure(let failure) where failure.errno == .permissionDenied:
      throw QuireError(.permissionDenied, "Cannot open \(QuireError.name(path)): permission denied. Check the file's permissions.", url: url, cause: failure)
    case .failure(let failure) where failure.errno == .noSuchFileOrDirectory || failure.errno == .notDirectory:
      throw InputFile.missingError(path, for: "open")
    case .failure(let failure):
      throw QuireError(failure, while: .open, url: url)
    }
    let info: FileStatus
    switch SystemCalls.fstat(fd) {
    case .success(let status): info = status
    case .failure(let failure):
      SystemCalls.release(fd)
      throw QuireError(failure, while: .open, url: url)
    }
    guard info.st_mode & S_IFMT == S_IFREG else {
      SystemCalls.release(fd)
      throw QuireError(.invalidContent, "Cannot open \(QuireError.name(path)): it is not a regular file, so it is not a PDF.", url: url)
    }
    if info.st_size == 0 {
      SystemCalls.release(fd)
      throw QuireError(.invalidContent, "Cannot open \(QuireError.name(path)): the file is empty, so it is not a PDF.", url: url)
    }
    var error: UnsafeMutablePointer<GError>?
    // poppler owns the descriptor from here on, and closes it, whether or not it opens.
    guard let handle = poppler_document_new_from_fd(fd.rawValue, password, &error) else {
      throw Self.error(from: error, url: url)
    }
    self.document = handle
    self.url = url
  }

  deinit { cpoppler_object_release(UnsafeMutableRawPointer(document)) }

  private static func error(from error: UnsafeMutablePointer<GError>?, url: URL) -> QuireError {
    let message = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
    let encrypted =
      error.map {
        $0.pointee.domain == poppler_error_quark() && $0.pointee.code == Int32(POPPLER_ERROR_ENCRYPTED.rawValue)
      } ?? false
    if let error { cpoppler_error_release(error) }
    if encrypted {
      return QuireError(
        .passwordRequired,
        "Cannot open \(QuireError.name(url)): the PDF is encrypted and needs a password. Give the password, or use an unencrypted copy.",
        url: url)
    }
    return QuireError(
      .invalidContent,
      "Cannot open \(QuireError.name(url)): poppler could not read it as a PDF (\(message)). The file may be damaged or not a PDF.",
      url: url)
  }

  /// The number of pages.
  public var pageCount: Int { Int(poppler_document_get_n_pages(document)) }

  /// The PDF's title from its metadata, when it has one.
  public var title: String? {
    guard let raw = poppler_document_get_title(document) else { return nil }
    defer { cpoppler_free(raw) }
    return String(cString: raw)
  }

  /// Runs `body` with the document handle; callers in this module only.
  func withDocument<R>(_ body: (OpaquePointer) throws -> R) rethrows -> R { try body(document) }

  /// Runs `body` with page `index` (0-based); the page is released after.
  func withPageHandle<R>(_ index: Int, _ body: (OpaquePointer) throws -> R) throws -> R { try withPage(index, body) }

  /// Runs `body` with page `index` (0-based); the page is released after.
  func withPage<R>(_ index: Int, _ body: (OpaquePointer) throws -> R) throws -> R {
    guard index >= 0, index < pageCount else {
      throw QuireError(
        .invalidArgument,
        "\(QuireError.name(url)) has no page \(index < .max ? index + 1 : index): it has \(pageCount) page\(pageCount == 1 ? "" : "s").",
        url: url)
    }
    guard let page = poppler_document_get_page(document, Int32(index)) else {
      throw QuireError(
        .invalidContent, "Cannot read page \(index + 1) of \(QuireError.name(url)): poppler found the page damaged. The file may be damaged.",
        url: url)
    }
    defer { cpoppler_object_release(UnsafeMutableRawPointer(page)) }
    return try body(page)
  }

  /// The size of page `index` (0-based) in points, with the page's rotation applied and
  /// its crop box used, as it is displayed.
  public func pageSize(at index: Int) throws -> (width: Double, height: Double) {
    try withPage(index) { page in
      var width = 0.0
      var height = 0.0
      poppler_page_get_size(page, &width, &height)
      return (width, height)
    }
  }

  /// The text of page `index` (0-based).
  public func text(ofPage index: Int) throws -> String {
    try withPage(index) { page in
      guard let raw = poppler_page_get_text(page) else { return "" }
      defer { cpoppler_free(raw) }
      return String(cString: raw)
    }
  }

  /// The text of every page, joined by form feeds (U+000C), so that a position in it tells its
  /// page; a page whose text cannot be read counts as empty.
  public var text: String {
    (0..<pageCount).map { (try? text(ofPage: $0)) ?? "" }.joined(separator: "\u{0C}")
  }

  /// Renders page `index` (0-based) straight at `scale` pixels per point onto a white page.
  ///
  /// The page is drawn by poppler into a cairo surface of the final size, so nothing is
  /// rendered large and shrunk.
  public func render(page index: Int, scale: Double) throws -> Bitmap {
    let size = try pageSize(at: index)
    let width = max(1, Int((size.width * scale).rounded()))
    let height = max(1, Int((size.height * scale).rounded()))
    let bitmap = try Bitmap(width: width, height: height, background: .white)
    try withPage(index) { page in
      bitmap.withContext { cr in
        cairo_scale(cr, Double(width) / size.width, Double(height) / size.height)
        poppler_page_render(page, cr)
      }
    }
    return bitmap
  }

  /// The version of the linked poppler, e.g. "22.12.0".
  public static var libraryVersion: String { String(cString: poppler_get_version()) }
}
