import Foundation
public import QuireFormats
import QuireTypes

/// Draws plain text and source code as a page in a monospace face.
///
/// Only the top of the file is read (16 KiB, the first 70 lines); bytes that are not UTF-8
/// are shown as U+FFFD. Files that look binary (NUL bytes) are refused.
public struct TextThumbnailProvider: ThumbnailProvider {
  public init() {}

  public func makeThumbnail(for request: ThumbnailRequest) throws -> Bitmap {
    let text = try TextFilePrefix.read(request, limit: 16 * 1024)
    guard !text.contains("\u{0}") else {
      throw QuireError(
        .invalidContent, "Cannot draw \(QuireError.name(request.filePath)) as text: it contains NUL bytes, so it is binary data.",
        url: request.fileURL)
    }
    let lines = text.split(separator: "\n", maxSplits: 70, omittingEmptySubsequences: false).prefix(70)
    let shown = lines.map { line in
      // Tabs as four spaces; very long lines are cut, the page shows only their start.
      String(line.replacingOccurrences(of: "\t", with: "    ").replacingOccurrences(of: "\r", with: "").prefix(200))
    }.joined(separator: "\n")
    let size = ThumbnailPage.pixelSize(longestSide: request.pixelSize)
    let bitmap = try Bitmap(width: size.width, height: size.height, background: .white)
    try bitmap.draw { canvas in
      canvas.scale(by: Double(size.height) / ThumbnailPage.height)
      let margin = ThumbnailPage.margin
      try canvas.text(
        markup: TextLayout.escapeMarkup(shown), x: margin, y: margin, width: ThumbnailPage.width - 2 * margin,
        style: TextStyle(font: "Monospace 7.5", color: MarkdownPainter.ink, lineSpacing: 1),
        maximumHeight: ThumbnailPage.height - 2 * margin)
    }
    return bitmap
  }
}
