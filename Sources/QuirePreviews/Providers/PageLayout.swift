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
  /// The first `limit` bytes of `url` as text, cut after the last line break when the file
  /// is longer, read through the one input opener (`InputFile`): a FIFO or device is refused,
  /// a `/proc` file read to its end, binary or non-UTF-8 text refused with the file's name.
  static func read(_ url: URL, limit: Int, cutAtLineBreak: Bool = true) throws -> String {
    let text = try InputFile.readText(url, for: "read", limit: limit, truncating: cutAtLineBreak)
    guard cutAtLineBreak, text.utf8.count >= limit - 3, let lastBreak = text.lastIndex(of: "\n") else { return text }
    return String(text[...lastBreak])
  }
}
