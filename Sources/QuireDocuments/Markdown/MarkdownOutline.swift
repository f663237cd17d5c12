import Foundation
import QuireMarkdown

/// The headings of a Markdown document, read through libcmark.
public struct MarkdownOutline: Sendable, Hashable {
  /// One heading.
  public struct Heading: Sendable, Hashable {
    /// 1 for `#`, up to 6.
    public var level: Int
    /// The heading's text without markup.
    public var title: String
    /// The 1-based line the heading starts on.
    public var line: Int
  }

  /// The headings in document order.
  public var headings: [Heading]

  /// Reads the outline of `markdown`.
  public init(markdown: String) throws {
    let root = try CommonMark.parse(markdown)
    headings = root.children.compactMap { node in
      guard case .heading(let level) = node.kind else { return nil }
      return Heading(level: level, title: node.plainText, line: node.startLine)
    }
  }
}
