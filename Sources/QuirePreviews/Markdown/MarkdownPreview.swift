import Foundation
import QuireFormats
import QuireMarkdown
import QuireTypes

/// Markdown turned into a complete HTML page, or into plain text, for previewing.
///
/// GitHub Flavored Markdown (cmark-gfm): tables, task lists as disabled checkboxes,
/// strikethrough, autolinks and footnotes. YAML front matter at the top is shown as a
/// metadata block (``FrontMatter``), not as a rule and a heading.
///
/// Safe by default: cmark-gfm's safe mode drops raw HTML and `javascript:`/`vbscript:`/`file:`
/// (and non-image `data:`) links, and the page carries a Content-Security-Policy that forbids
/// scripts, so a preview of a hostile file runs nothing. ``Safety/unsafe`` keeps raw HTML and
/// every link, for documents the user trusts.
public enum MarkdownPreview {
  /// Whether raw HTML and every link are kept.
  public enum Safety: Sendable { case safe, unsafe }

  /// A complete HTML page for `markdown`, titled `title`.
  /// - Throws: ``QuireError`` when cmark-gfm cannot allocate its output.
  public static func htmlPage(markdown: String, title: String, safety: Safety = .safe) throws -> String {
    var page: [UInt8] = []
    page.reserveCapacity(markdown.utf8.count + markdown.utf8.count / 2 + 8192)
    try writeHTMLPage(markdown: markdown, title: title, safety: safety) { page.append(contentsOf: $0) }
    return String(decoding: page, as: UTF8.self)
  }

  /// ``htmlPage(markdown:title:safety:)`` handed to `write` in pieces as it is made: the page's
  /// head, the front matter block, cmark-gfm's HTML straight from its buffers (one pass, sanitised
  /// as it is rendered, not copied; a large document's on two cores), then the page's end. Memory is the Markdown plus its HTML.
  /// - Throws: ``QuireError`` when cmark-gfm cannot allocate its output; what `write` throws.
  public static func writeHTMLPage(
    markdown: String, title: String, safety: Safety = .safe, to write: (UnsafeRawBufferPointer) throws -> Void
  ) throws {
    let (frontMatter, body) = FrontMatter.splitOff(markdown)
    var head = pageHead(title: title, safety: safety) + (frontMatter.map(html(for:)) ?? "")
    try head.withUTF8 { try write(UnsafeRawBufferPointer($0)) }
    try CommonMark.writeHTML(from: body, options: safety == .unsafe ? [.unsafe] : [], to: write)
    var tail = pageTail
    try tail.withUTF8 { try write(UnsafeRawBufferPointer($0)) }
  }

  /// Front matter as a metadata block: a definition list of its fields, or its text when it
  /// holds more than flat `key: value` lines. Everything in it is escaped.
  static func html(for frontMatter: FrontMatter) -> String {
    guard !frontMatter.fields.isEmpty else {
      return "<pre class=\"front-matter\"><code>\(escapeHTML(frontMatter.text))</code></pre>\n"
    }
    let rows = frontMatter.fields.map { "<dt>\(escapeHTML($0.key))</dt><dd>\(escapeHTML($0.value))</dd>" }
    return "<dl class=\"front-matter\">\n" + rows.joined(separator: "\n") + "\n</dl>\n"
  }

  /// `markdown` as plain text: headings, paragraphs and list items on their own lines,
  /// list markers and quote bars kept, emphasis and links reduced to their text, table rows
  /// as cells between `|`, front matter fields as `key: value` lines.
  /// - Throws: ``QuireError`` when cmark-gfm cannot allocate its tree.
  public static func text(markdown: String) throws -> String {
    let (frontMatter, markdown) = FrontMatter.split(markdown)
    let document = try CommonMark.parse(markdown)
    let metadata = frontMatter.map { $0.fields.isEmpty ? $0.text : $0.fields.map { "\($0.key): \($0.value)" }.joined(separator: "\n") }
    return ([metadata].compactMap { $0 } + [blocks(document.children, separator: "\n\n")]).joined(separator: "\n\n")
  }

  /// Blocks as text, each block's lines joined by `separator` (a blank line, or one line
  /// break in tight lists).
  static func blocks(_ nodes: [MarkdownNode], separator: String) -> String {
    nodes.compactMap(block).joined(separator: separator)
  }

  static func block(_ node: MarkdownNode) -> String? {
    func indent(_ text: String, first: String, rest: String) -> String {
      text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
        .map { ($0.offset == 0 ? first : rest) + $0.element }.joined(separator: "\n")
    }
    switch node.kind {
    case .heading, .paragraph:
      return node.plainText
    case .codeBlock:
      var code = node.literal ?? ""
      if code.hasSuffix("\n") { code.removeLast() }
      return indent(code, first: "    ", rest: "    ")
    case .thematicBreak:
      return "----"
    case .blockQuote:
      return indent(blocks(node.children, separator: "\n\n"), first: "> ", rest: "> ")
    case .list(let ordered, let start, let tight):
      return node.children.enumerated().map { index, item in
        var marker = ordered ? "\(start + index). " : "- "
        if case .taskItem(let isChecked) = item.kind { marker += isChecked ? "[x] " : "[ ] " }
        return indent(
          blocks(item.children, separator: tight ? "\n" : "\n\n"), first: marker,
          rest: String(repeating: " ", count: marker.count))
      }.joined(separator: tight ? "\n" : "\n\n")
    case .table:
      return node.children.map { row in "| " + row.children.map(\.plainText).joined(separator: " | ") + " |" }.joined(separator: "\n")
    case .footnoteDefinition(let number):
      return "[\(number)] " + blocks(node.children, separator: " ")
    case .htmlBlock, .custom:
      return nil
    default:
      return blocks(node.children, separator: "\n\n")
    }
  }

  /// The Content-Security-Policy of safe previews: no script, frame, form or connection;
  /// inline styles and images only. A server that shows previews sends it as a header too.
  public static let contentSecurityPolicy =
    "default-src 'none'; img-src * data:; style-src 'unsafe-inline'; form-action 'none'; base-uri 'none'"

  /// The page around an HTML `body`: UTF-8, a readable stylesheet with CJK fonts, and in safe
  /// mode a Content-Security-Policy that allows no script, frame, form or connection.
  public static func page(title: String, body: String, safety: Safety) -> String {
    pageHead(title: title, safety: safety) + body + pageTail
  }

  /// The page up to and including `<body>` and its line break.
  static func pageHead(title: String, safety: Safety) -> String {
    let csp =
      safety == .safe
      ? "<meta http-equiv=\"Content-Security-Policy\" content=\"\(contentSecurityPolicy)\">\n<meta name=\"referrer\" content=\"no-referrer\">\n"
      : ""
    return """
      <!DOCTYPE html>
      <html>
      <head>
      <meta charset="utf-8">
      \(csp)<meta name="viewport" content="width=device-width, initial-scale=1">
      <title>\(escapeHTML(title))</title>
      <style>
      \(stylesheet)
      </style>
      </head>
      <body>

      """
  }

  /// The page after its body.
  static let pageTail = "</body>\n</html>\n"

  /// The preview stylesheet: a readable measure, system fonts with Noto CJK for Japanese,
  /// Chinese and Korean, light code blocks and tables, and a dark variant.
  public static let stylesheet = """
    :root { color-scheme: light dark; }
    body { max-width: 46em; margin: 2em auto; padding: 0 1em; line-height: 1.6; color: #1f2328; background: #ffffff;
      font-family: system-ui, "Noto Sans", "Noto Sans CJK JP", "Noto Sans CJK SC", "Noto Sans CJK KR", "DejaVu Sans", sans-serif;
      overflow-wrap: break-word; }
    :lang(ja) { line-break: strict; }
    h1, h2 { border-bottom: 1px solid #d1d9e0; padding-bottom: 0.3em; }
    pre, code, kbd { font-family: "DejaVu Sans Mono", "Noto Sans Mono CJK JP", monospace; font-size: 0.9em; background: #f6f8fa; }
    code { padding: 0.1em 0.3em; border-radius: 4px; }
    pre { padding: 0.8em; overflow: auto; border-radius: 6px; line-height: 1.45; }
    pre code { padding: 0; background: none; }
    pre.plain { white-space: pre-wrap; background: none; padding: 0; }
    blockquote { margin: 0 0 1em; padding: 0 1em; color: #59636e; border-left: 0.25em solid #d1d9e0; }
    a { color: #0969da; }
    img { max-width: 100%; height: auto; }
    hr { border: 0; border-top: 1px solid #d1d9e0; }
    table { border-collapse: collapse; margin-bottom: 1em; } td, th { border: 1px solid #d1d9e0; padding: 0.3em 0.6em; }
    td:not([align]), th:not([align]) { text-align: left; } th { background: #f6f8fa; } del { color: #59636e; }
    li:has(> input[type=checkbox]) { list-style: none; } li > input[type=checkbox] { margin: 0 0.4em 0 -1.4em; vertical-align: middle; }
    dl.front-matter { display: grid; grid-template-columns: max-content auto; gap: 0.2em 1em; margin: 0 0 1.5em; padding: 0.6em 0.8em;
      font-size: 0.85em; color: #59636e; background: #f6f8fa; border-radius: 6px; }
    dl.front-matter dt { font-weight: 600; } dl.front-matter dd { margin: 0; }
    pre.front-matter { color: #59636e; }
    section.footnotes { font-size: 0.85em; color: #59636e; border-top: 1px solid #d1d9e0; margin-top: 2em; }
    section.page img { border: 1px solid #d1d9e0; display: block; margin: 0.5em 0; }
    @media (prefers-color-scheme: dark) {
      body { color: #e6edf3; background: #0d1117; }
      pre, code, kbd, th, dl.front-matter { background: #161b22; }
      a { color: #4493f8; }
      blockquote { color: #9198a1; border-color: #3d444d; }
    }
    """

  /// Escapes text for an HTML element or attribute.
  ///
  /// HTML, XML and Pango markup escape the same five characters, so this is
  /// ``TextLayout/escapeMarkup(_:)``.
  public static func escapeHTML(_ text: String) -> String { TextLayout.escapeMarkup(text) }
}
