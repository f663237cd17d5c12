public import Foundation
import QuireMarkdown
public import QuireTypes

/// A Markdown document: a ``PlainTextDocument`` with an outline of its headings and a word
/// count, both read through libcmark.
open class MarkdownDocument: PlainTextDocument {
  public required init(fileURL: URL, contentType: UTType? = nil) {
    super.init(fileURL: fileURL, contentType: contentType)
  }

  /// Markdown, for a file without an extension.
  open override var fallbackType: UTType? { .markdown }

  /// The headings, with levels and 1-based line numbers.
  ///
  /// - Throws: ``QuireError`` when libcmark fails.
  public func outline() throws -> MarkdownOutline {
    try MarkdownOutline(markdown: text)
  }

  /// The number of words in the text without its markup: runs of letters, digits and
  /// joining apostrophes or hyphens; each CJK ideograph or kana counts as a word.
  ///
  /// - Throws: ``QuireError`` when libcmark fails.
  public func wordCount() throws -> Int {
    let root = try CommonMark.parse(text)
    var count = 0
    var stack = [root]
    while let node = stack.popLast() {
      if let literal = node.literal { count += Self.countWords(literal) }
      stack.append(contentsOf: node.children)
    }
    return count
  }

  /// Counts words in plain text (see ``wordCount()``).
  public static func countWords(_ text: String) -> Int {
    var count = 0
    var inWord = false
    for scalar in text.unicodeScalars {
      let value = scalar.value
      let isCJK =
        (0x4E00...0x9FFF).contains(value) || (0x3400...0x4DBF).contains(value)
        || (0x3040...0x30FF).contains(value) || (0xF900...0xFAFF).contains(value)
        || (0x20000...0x2FA1F).contains(value)
      if isCJK {
        count += 1
        inWord = false
      } else if scalar.properties.isAlphabetic || scalar.properties.numericType != nil {
        if !inWord { count += 1 }
        inWord = true
      } else if inWord && (scalar == "'" || scalar == "’" || scalar == "-") {
        continue
      } else {
        inWord = false
      }
    }
    return count
  }
}
