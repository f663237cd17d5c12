import Foundation
import QuireFormats
import QuireTypes

/// The page that Markdown and text thumbnails are drawn on: A4-shaped (1 : √2), white, with
/// margins, laid out in points on a virtual page and scaled to the requested pixels.
struct ThumbnailPage {
  /// The virtual page width in points; text sizes are chosen against it.
  static let width = 340.0
  static let height = (width * 2.0.squareRoot()).rounded()
  static let margin = 24.0

  /// The pixel size of a page whose longer side (its height) is `longestSide`.
  static func pixelSize(longestSide: Int) -> (width: Int, height: Int) {
    PDFFile.fit(width: width, height: height, longestSide: longestSide)
  }
}

/// Reads at most `limit` bytes of a text file, cut at the last line break, as UTF-8 with
/// invalid bytes replaced.
enum TextFilePrefix {
  static func read(_ url: URL, limit: Int, cutAtLineBreak: Bool = true) throws -> String {
    let fd = open(url.path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw FileErrors.opening(url, errno: errno) }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0 else { throw FileErrors.opening(url, errno: errno) }
    guard (info.st_mode & S_IFMT) == S_IFREG else {
      throw QuireError(.unsupportedType, "Cannot read \(QuireError.name(url)): it is not a regular file.", url: url)
    }
    var bytes = [UInt8](repeating: 0, count: min(limit, max(0, Int(info.st_size)) + 1))
    let limit = bytes.count
    var filled = 0
    while filled < limit {
      let got = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + filled, limit - filled) }
      if got < 0 {
        if errno == EINTR { continue }
        throw FileErrors.opening(url, errno: errno)
      }
      if got == 0 { break }
      filled += got
    }
    var slice = bytes[0..<filled]
    if cutAtLineBreak, filled == limit, let lastBreak = slice.lastIndex(of: 0x0A) { slice = slice[...lastBreak] }
    return String(decoding: slice, as: UTF8.self)
  }
}
