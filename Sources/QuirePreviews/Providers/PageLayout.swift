import Foundation
import QuireFormats
import QuireTypes
import SystemPackage

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
    cut(try InputFile.readText(url, for: "read", limit: limit, truncating: cutAtLineBreak), limit: limit, cutAtLineBreak: cutAtLineBreak)
  }

  /// ``read(_:limit:cutAtLineBreak:)`` of the file of `request`, opened by its path's bytes
  /// (a name that is not UTF-8 too); errors carry its URL when the name has one.
  static func read(_ request: ThumbnailRequest, limit: Int) throws -> String {
    let text =
      request.nameFitsURL
      ? try InputFile.readText(request.fileURL, for: "read", limit: limit, truncating: true)
      : try InputFile.readText(request.filePath, for: "read", limit: limit, truncating: true)
    return cut(text, limit: limit, cutAtLineBreak: true)
  }

  private static func cut(_ text: String, limit: Int, cutAtLineBreak: Bool) -> String {
    guard cutAtLineBreak, text.utf8.count >= limit - 3, let lastBreak = text.lastIndex(of: "\n") else { return text }
    return String(text[...lastBreak])
  }
}
