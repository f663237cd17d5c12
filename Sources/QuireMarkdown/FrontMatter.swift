import Foundation

/// YAML front matter: the metadata block between `---` lines at the very top of a Markdown
/// file, as Jekyll, Hugo, Pandoc and GitHub read it.
///
/// CommonMark knows nothing of it and would show the fences as a rule and the last field as a
/// heading; previews and thumbnails show it as a metadata block instead. Quire does not parse
/// YAML: top-level `key: value` lines become ``fields`` in order; anything else (nested maps,
/// lists, block scalars) leaves ``fields`` empty and the block is shown as its text.
public struct FrontMatter: Sendable, Hashable {
  /// One `key: value` line.
  public struct Field: Sendable, Hashable {
    public var key: String
    public var value: String
    public init(key: String, value: String) {
      self.key = key
      self.value = value
    }
  }

  /// The lines between the fences.
  public var text: String
  /// The top-level `key: value` lines, or empty when the block holds more than those.
  public var fields: [Field]

  /// Splits `markdown` into its front matter (when the first line is `---` and a `---` or
  /// `...` line closes it within the first 200 lines) and the Markdown after it.
  public static func split(_ markdown: String) -> (frontMatter: FrontMatter?, body: String) {
    let (frontMatter, body) = splitOff(markdown)
    return (frontMatter, String(body))
  }

  /// ``split(_:)`` without copying the Markdown: the body is the rest of `markdown`.
  public static func splitOff(_ markdown: String) -> (frontMatter: FrontMatter?, body: Substring) {
    guard markdown.hasPrefix("---\n") || markdown.hasPrefix("---\r\n") else { return (nil, markdown[...]) }
    let lines = markdown.split(separator: "\n", maxSplits: 200, omittingEmptySubsequences: false)
    for index in 1..<min(lines.count, 201) {
      let line = lines[index].trimmingCharacters(in: .whitespacesAndNewlines)
      guard line == "---" || line == "..." else { continue }
      let inner = lines[1..<index].map { $0.hasSuffix("\r") ? String($0.dropLast()) : String($0) }
      let body = index + 1 < lines.count ? markdown[lines[index + 1].startIndex...] : markdown[markdown.endIndex...]
      return (FrontMatter(text: inner.joined(separator: "\n"), fields: fields(inner)), body)
    }
    return (nil, markdown[...])
  }

  /// `key: value` lines, or none when any non-blank, non-comment line is something else.
  static func fields(_ lines: [String]) -> [Field] {
    var fields: [Field] = []
    for line in lines {
      if line.trimmingCharacters(in: .whitespaces).isEmpty || line.hasPrefix("#") { continue }
      guard let first = line.first, !first.isWhitespace, first != "-", let colon = line.firstIndex(of: ":") else { return [] }
      let key = line[..<colon].trimmingCharacters(in: .whitespaces)
      var value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
      // An empty value, `|` or `>` opens a nested block: more than flat fields.
      guard !key.isEmpty, !value.isEmpty, value != "|", value != ">" else { return [] }
      if value.count >= 2, let quote = value.first, quote == "\"" || quote == "'", value.last == quote {
        value = String(value.dropFirst().dropLast())
      }
      fields.append(Field(key: key, value: value))
    }
    return fields
  }
}
