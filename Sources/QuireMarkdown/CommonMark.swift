internal import CCmarkGFM
internal import CQuireMarkdown
import Foundation
import QuireTypes
import Synchronization

/// Markdown through cmark-gfm: GitHub's maintained fork of libcmark, the CommonMark reference
/// implementation, with the GitHub Flavored Markdown extensions.
///
/// cmark-gfm is used rather than a Swift parser because it is the CommonMark reference
/// (libcmark's code and API) plus the extensions people write in READMEs: tables, task lists,
/// strikethrough, autolinks and footnotes. It is fast (about 75 MB/s here) and has a safe HTML
/// mode that drops raw HTML and `javascript:` links. With ``Extensions`` empty it is plain
/// CommonMark; the test suite compares that HTML with libcmark's on the spec's examples. Every
/// cmark-gfm pointer stays inside this file: parsed trees are copied into ``MarkdownNode``
/// values before the C tree is freed.
public enum CommonMark {
  /// cmark-gfm's rendering and parsing options.
  public struct Options: OptionSet, Sendable {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }
    /// `CMARK_OPT_UNSAFE`: keep raw HTML and dangerous links. Off by default.
    public static let unsafe = Options(rawValue: CMARK_OPT_UNSAFE)
    /// `CMARK_OPT_SMART`: curly quotes and dashes.
    public static let smart = Options(rawValue: CMARK_OPT_SMART)
    /// `CMARK_OPT_HARDBREAKS`: soft line breaks become `<br />`.
    public static let hardBreaks = Options(rawValue: CMARK_OPT_HARDBREAKS)
    /// `CMARK_OPT_SOURCEPOS`: `data-sourcepos` attributes on block elements.
    public static let sourcePositions = Options(rawValue: CMARK_OPT_SOURCEPOS)
  }

  /// The GitHub Flavored Markdown extensions to parse with (cmark-gfm's syntax extensions).
  public struct Extensions: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// Pipe tables (`table`): `| a | b |` rows under a `| --- | :-: |` delimiter row.
    public static let tables = Extensions(rawValue: 1 << 0)
    /// Task list items (`tasklist`): `- [ ]` and `- [x]`, rendered as disabled checkboxes.
    public static let taskLists = Extensions(rawValue: 1 << 1)
    /// `~~strikethrough~~` (`strikethrough`), rendered as `<del>`.
    public static let strikethrough = Extensions(rawValue: 1 << 2)
    /// Bare `www.` and `https://` URLs and e-mail addresses become links (`autolink`).
    public static let autolinks = Extensions(rawValue: 1 << 3)
    /// Footnotes (`CMARK_OPT_FOOTNOTES`): `[^1]` references and `[^1]: text` definitions.
    public static let footnotes = Extensions(rawValue: 1 << 4)
    /// Escapes `<script>`, `<iframe>`, `<style>` and the other tags GitHub filters, when raw
    /// HTML is kept (``Options/unsafe``) (`tagfilter`).
    public static let tagFilter = Extensions(rawValue: 1 << 5)
    /// Everything GitHub renders: the default.
    public static let gitHub: Extensions = [.tables, .taskLists, .strikethrough, .autolinks, .footnotes, .tagFilter]

    /// The cmark-gfm syntax extensions these name.
    var syntaxExtensionNames: [String] {
      [(Extensions.tables, "table"), (.taskLists, "tasklist"), (.strikethrough, "strikethrough"), (.autolinks, "autolink"), (.tagFilter, "tagfilter")]
        .filter { contains($0.0) }.map(\.1)
    }
  }

  /// The version of the linked cmark-gfm, e.g. "0.29.0.gfm.6".
  public static var libraryVersion: String { String(cString: cmark_version_string()) }

  /// Registers cmark-gfm's core extensions once per process; its registration flag is a plain
  /// static, so it must not be raced (a Swift `static let` runs its initializer once).
  private static let registration: Void = cmark_gfm_core_extensions_ensure_registered()

  /// Loads cmark-gfm and registers its extensions now (a thumbnailer call does it on another
  /// core while its file is identified), so the first parse does not wait for them.
  package static func prepare() { _ = registration }

  /// Held while a parser with syntax extensions finishes. cmark-gfm 0.29 (Debian 12's) marks
  /// an extension's inline characters (`~` for strikethrough, `:` and `w` for autolinks) in one
  /// process-wide table when a parse's inline pass starts and clears them when it ends, so two
  /// such parses at once lose each other's strikethrough and autolinks. The block pass
  /// (`cmark_parser_feed`) and rendering stay parallel.
  private static let inlinePass = Mutex(())

  /// Renders Markdown to an HTML fragment.
  ///
  /// Without ``Options/unsafe`` raw HTML is replaced by a comment and links or images whose
  /// URL is `javascript:`, `vbscript:`, `file:` or a non-image `data:` become empty (autolinks
  /// too).
  /// - Parameter extensions: The GitHub extensions to use; `[]` for plain CommonMark.
  /// - Throws: ``QuireError`` when cmark-gfm cannot allocate its output.
  public static func html(from markdown: String, options: Options = [], extensions: Extensions = .gitHub) throws -> String {
    try withHTML(from: markdown[...], options: options, extensions: extensions) { String(decoding: $0, as: UTF8.self) }
  }

  /// Renders Markdown to an HTML fragment and lends `body` cmark-gfm's own buffer of it (UTF-8,
  /// valid for the call only): the HTML is made in one pass, sanitised as it is rendered
  /// (``html(from:options:extensions:)`` describes what safe mode drops), and never copied, so a
  /// caller can write it straight out.
  /// - Throws: ``QuireError`` when cmark-gfm cannot allocate its output; what `body` throws.
  public static func withHTML<R>(
    from markdown: Substring, options: Options = [], extensions: Extensions = .gitHub, _ body: (UnsafeRawBufferPointer) throws -> R
  ) throws -> R {
    try withDocument(markdown, options: options, extensions: extensions) { root, parser, flags, memory in
      try withWholeHTML(root, parser, flags, memory, body)
    }
  }

  /// Renders the whole of `root` in one pass and lends `body` the buffer.
  private static func withWholeHTML<R>(
    _ root: OpaquePointer, _ parser: OpaquePointer, _ flags: Int32, _ memory: UnsafeMutablePointer<cmark_mem>,
    _ body: (UnsafeRawBufferPointer) throws -> R
  ) throws -> R {
    guard let html = cmark_render_html(root, flags, cmark_parser_get_syntax_extensions(parser)) else { throw renderingFailed }
    // Given back to the allocator that made it (the parse's region, or the default one).
    defer { memory.pointee.free(html) }
    return try body(UnsafeRawBufferPointer(start: html, count: strlen(html)))
  }

  private static let renderingFailed = QuireError(.libraryFailure, "cmark-gfm could not render the Markdown to HTML (out of memory).")

  /// Renders Markdown to an HTML fragment and hands it to `write` in pieces, in order, each
  /// cmark-gfm's own buffer (valid for the call only, never copied). The HTML is the same as
  /// ``withHTML(from:options:extensions:_:)``'s, sanitised as it is rendered.
  ///
  /// A text of a mebibyte or more is rendered on two cores: its top-level blocks are parted in
  /// two halves of about as many lines, each rendered on its own, and the second half's HTML
  /// follows the first's. (cmark-gfm gathers footnote definitions at the end of the document, so
  /// they are all in the second half, which closes their section; each block's HTML ends with
  /// a line break, so the halves join as one rendering would have made them.)
  /// - Throws: ``QuireError`` when cmark-gfm cannot allocate its output; what `write` throws.
  public static func writeHTML(
    from markdown: Substring, options: Options = [], extensions: Extensions = .gitHub, to write: (UnsafeRawBufferPointer) throws -> Void
  ) throws {
    try withDocument(markdown, options: options, extensions: extensions) { root, parser, flags, memory in
      guard markdown.utf8.count >= twoCoreRendering, memory != cmark_get_default_mem_allocator(), let second = splitForRendering(root, memory) else {
        return try withWholeHTML(root, parser, flags, memory, write)
      }
      let syntax = cmark_parser_get_syntax_extensions(parser)
      // Each half's buffer comes from the default allocator: the region is the parsing
      // thread's, and the second half is rendered on another thread. Rendering only reads the
      // tree.
      var halves: [UnsafeMutablePointer<CChar>?] = [nil, nil]
      halves.withUnsafeMutableBufferPointer { halves in
        let job = HalfRendering(roots: [root, second], flags: flags, syntax: syntax, results: halves)
        DispatchQueue.concurrentPerform(iterations: 2) { job.render($0) }
      }
      defer { for half in halves { free(half) } }
      for half in halves {
        guard let half else { throw renderingFailed }
        try write(UnsafeRawBufferPointer(start: half, count: strlen(half)))
      }
    }
  }

  /// What each of the two threads of ``writeHTML(from:options:extensions:to:)`` needs: the
  /// halves' documents, and a slot of its own for its HTML. Sendable because the threads only
  /// read the tree (cmark-gfm's rendering changes no node) and each writes its own slot.
  private struct HalfRendering: @unchecked Sendable {
    let roots: [OpaquePointer]
    let flags: Int32
    let syntax: UnsafeMutablePointer<cmark_llist>?
    let results: UnsafeMutableBufferPointer<UnsafeMutablePointer<CChar>?>

    func render(_ half: Int) {
      results[half] = cmark_render_html_with_mem(roots[half], flags, syntax, cmark_get_default_mem_allocator())
    }
  }

  /// The text length from which ``writeHTML(from:options:extensions:to:)`` renders on two cores.
  static let twoCoreRendering = 1 << 20

  /// Moves the second half of `root`'s top-level blocks (by their first lines; every footnote
  /// definition among them) under a new document made with `memory`, and returns it; nil,
  /// leaving the tree as it is, when there are too few blocks to part. The blocks are walked
  /// from the end, only over the half that moves: each one read is a cache miss, as the
  /// blocks' own nodes lie between them.
  static func splitForRendering(_ root: OpaquePointer, _ memory: UnsafeMutablePointer<cmark_mem>) -> OpaquePointer? {
    var last = cmark_node_last_child(root)
    while let node = last, cmark_node_get_type(node) == CMARK_NODE_FOOTNOTE_DEFINITION { last = cmark_node_previous(node) }
    guard let lastBlock = last else { return nil }
    let middle = cmark_node_get_start_line(lastBlock) / 2
    var split = lastBlock
    while let previous = cmark_node_previous(split), cmark_node_previous(previous) != nil, cmark_node_get_start_line(previous) >= middle {
      split = previous
    }
    guard cmark_node_previous(split) != nil, let second = cmark_node_new_with_mem(CMARK_NODE_DOCUMENT, memory) else { return nil }
    var next: OpaquePointer? = split
    while let node = next {
      next = cmark_node_next(node)
      cmark_node_append_child(second, node)
    }
    return second
  }

  /// Parses Markdown into a tree of Swift values.
  ///
  /// The walk follows child, sibling and parent links with no recursion, so deeply nested
  /// input (thousands of block quotes) does not exhaust the stack.
  /// - Parameter extensions: The GitHub extensions to use; `[]` for plain CommonMark.
  /// - Throws: ``QuireError`` when cmark-gfm cannot allocate its tree.
  public static func parse(_ markdown: String, options: Options = [], extensions: Extensions = .gitHub) throws -> MarkdownNode {
    try withDocument(markdown[...], options: options, extensions: extensions) { root, _, _, _ in
      var footnotes = 0
      var stack: [MarkdownNode] = [copy(root, footnotes: &footnotes)]
      var next = cmark_node_first_child(root)
      while let node = next {
        stack.append(copy(node, footnotes: &footnotes))
        if let child = cmark_node_first_child(node) {
          next = child
          continue
        }
        // A node without children is finished; so is each parent whose last child it was.
        var finished = node
        next = nil
        while true {
          let done = stack.removeLast()
          stack[stack.count - 1].children.append(done)
          if let sibling = cmark_node_next(finished) {
            next = sibling
            break
          }
          guard let parent = cmark_node_parent(finished), parent != root else { break }
          finished = parent
        }
      }
      return stack[0]
    }
  }

  /// Whether `bytes` hold `[^`, with which every footnote reference and definition begins.
  static func mayHoldFootnotes(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard let base = bytes.baseAddress, bytes.count > 1 else { return false }
    var offset = 0
    while offset < bytes.count - 1 {
      guard let found = memchr(base + offset, 0x5B, bytes.count - 1 - offset) else { return false }
      let at = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
      if bytes[at + 1] == 0x5E { return true }
      offset = at + 1
    }
    return false
  }

  /// Parses `markdown` with a parser carrying `extensions`, and runs `body` on the document.
  /// The parser and the tree are freed when `body` returns. Their memory comes from an
  /// allocation region of this thread (`quire_markdown_region_begin`), released at once at
  /// the end: no `malloc` and `free` per node, which cost a large document's preview a fifth
  /// of its time. (A parse within a parse on one thread, which nothing here does, would use
  /// the default allocator.)
  /// A Swift string is valid UTF-8 already, so cmark-gfm is not asked to check it again
  /// (`CMARK_OPT_VALIDATE_UTF8` would be a second pass over the text).
  private static func withDocument<R>(
    _ markdown: Substring, options: Options, extensions: Extensions,
    _ body: (_ root: OpaquePointer, _ parser: OpaquePointer, _ flags: Int32, _ memory: UnsafeMutablePointer<cmark_mem>) throws -> R
  ) throws -> R {
    Self.registration
    var flags = options.rawValue
    var text = markdown
    // Footnotes cost cmark-gfm two more walks over the whole tree; a text without `[^` has
    // none (every reference and definition begins so), and parses the same without them.
    if extensions.contains(.footnotes), text.withUTF8({ Self.mayHoldFootnotes($0) }) { flags |= CMARK_OPT_FOOTNOTES }
    let region = quire_markdown_region_begin(text.utf8.count)
    defer { if region != nil { quire_markdown_region_end() } }
    guard let parser = region.map({ cmark_parser_new_with_mem(flags, $0) }) ?? cmark_parser_new(flags) else {
      throw QuireError(.libraryFailure, "cmark-gfm could not make a parser (out of memory).")
    }
    // In a region, its end frees everything at once; a walk freeing node by node would be wasted.
    defer { if region == nil { cmark_parser_free(parser) } }
    for name in extensions.syntaxExtensionNames {
      guard let syntax = cmark_find_syntax_extension(name) else {
        throw QuireError(.libraryFailure, "cmark-gfm has no '\(name)' extension; install libcmark-gfm-extensions.")
      }
      cmark_parser_attach_syntax_extension(parser, syntax)
    }
    // A native string's bytes are lent without a copy.
    text.withUTF8 { bytes in
      bytes.withMemoryRebound(to: CChar.self) { raw in cmark_parser_feed(parser, raw.baseAddress, raw.count) }
    }
    var finished: OpaquePointer?
    if extensions.syntaxExtensionNames.isEmpty {
      finished = cmark_parser_finish(parser)
    } else {
      inlinePass.withLock { _ in finished = cmark_parser_finish(parser) }
    }
    guard let root = finished else {
      throw QuireError(.libraryFailure, "cmark-gfm could not parse the Markdown (out of memory).")
    }
    defer { if region == nil { cmark_node_free(root) } }
    return try body(root, parser, flags, region ?? cmark_get_default_mem_allocator())
  }

  private static func string(_ pointer: UnsafePointer<CChar>?) -> String? {
    pointer.map { String(cString: $0) }
  }

  /// A Swift value of `node` without its children; `footnotes` counts the footnote
  /// definitions copied so far (cmark-gfm numbers them in document order).
  private static func copy(_ node: OpaquePointer, footnotes: inout Int) -> MarkdownNode {
    let kind: MarkdownNode.Kind
    switch cmark_node_get_type(node) {
    case CMARK_NODE_DOCUMENT: kind = .document
    case CMARK_NODE_BLOCK_QUOTE: kind = .blockQuote
    case CMARK_NODE_LIST:
      kind = .list(
        ordered: cmark_node_get_list_type(node) == CMARK_ORDERED_LIST,
        start: Int(cmark_node_get_list_start(node)), tight: cmark_node_get_list_tight(node) != 0)
    case CMARK_NODE_ITEM:
      // The tasklist extension marks its items; their state is its own.
      if string(cmark_node_get_type_string(node)) == "tasklist" {
        kind = .taskItem(isChecked: cmark_gfm_extensions_get_tasklist_item_checked(node))
      } else {
        kind = .item
      }
    case CMARK_NODE_CODE_BLOCK: kind = .codeBlock(info: string(cmark_node_get_fence_info(node)) ?? "")
    case CMARK_NODE_HTML_BLOCK: kind = .htmlBlock
    case CMARK_NODE_PARAGRAPH: kind = .paragraph
    case CMARK_NODE_HEADING: kind = .heading(level: Int(cmark_node_get_heading_level(node)))
    case CMARK_NODE_THEMATIC_BREAK: kind = .thematicBreak
    case CMARK_NODE_FOOTNOTE_DEFINITION:
      footnotes += 1
      kind = .footnoteDefinition(number: footnotes)
    case CMARK_NODE_TEXT: kind = .text
    case CMARK_NODE_SOFTBREAK: kind = .softBreak
    case CMARK_NODE_LINEBREAK: kind = .lineBreak
    case CMARK_NODE_CODE: kind = .code
    case CMARK_NODE_HTML_INLINE: kind = .htmlInline
    case CMARK_NODE_EMPH: kind = .emphasis
    case CMARK_NODE_STRONG: kind = .strong
    case CMARK_NODE_LINK:
      kind = .link(destination: string(cmark_node_get_url(node)) ?? "", title: string(cmark_node_get_title(node)) ?? "")
    case CMARK_NODE_IMAGE:
      kind = .image(source: string(cmark_node_get_url(node)) ?? "", title: string(cmark_node_get_title(node)) ?? "")
    case CMARK_NODE_FOOTNOTE_REFERENCE:
      // cmark-gfm keeps the footnote's number (as text) as the reference's literal.
      kind = .footnoteReference(number: Int(string(cmark_node_get_literal(node)) ?? "") ?? 0)
    default:
      // Extension node types are numbered when the extension registers: known by name.
      switch string(cmark_node_get_type_string(node)) {
      case "table":
        let columns = Int(cmark_gfm_extensions_get_table_columns(node))
        let raw = cmark_gfm_extensions_get_table_alignments(node)
        kind = .table(
          alignments: (0..<columns).map { index in
            switch raw?[index] {
            case UInt8(ascii: "l"): return .left
            case UInt8(ascii: "c"): return .center
            case UInt8(ascii: "r"): return .right
            default: return .none
            }
          })
      case "table_header", "table_row": kind = .tableRow(isHeader: cmark_gfm_extensions_get_table_row_is_header(node) != 0)
      case "table_cell": kind = .tableCell
      case "strikethrough": kind = .strikethrough
      default: kind = .custom
      }
    }
    let literal: String?
    switch kind {
    case .footnoteDefinition, .footnoteReference, .table, .tableRow, .tableCell: literal = nil
    default: literal = string(cmark_node_get_literal(node))
    }
    return MarkdownNode(
      kind: kind, literal: literal, startLine: Int(cmark_node_get_start_line(node)), endLine: Int(cmark_node_get_end_line(node)))
  }
}

/// One node of a parsed Markdown document, copied out of cmark-gfm.
public struct MarkdownNode: Sendable, Hashable {
  /// How a table column's cells are aligned (the colons of the delimiter row).
  public enum TableAlignment: Sendable, Hashable { case none, left, center, right }

  /// What the node is.
  public enum Kind: Sendable, Hashable {
    case document, blockQuote, item, htmlBlock, paragraph, thematicBreak
    case list(ordered: Bool, start: Int, tight: Bool)
    /// A task list item (`- [ ]` / `- [x]`).
    case taskItem(isChecked: Bool)
    case codeBlock(info: String)
    case heading(level: Int)
    /// A table; its children are rows, the first the header row.
    case table(alignments: [TableAlignment])
    /// A table row; its children are cells.
    case tableRow(isHeader: Bool)
    case tableCell
    /// A footnote's text and number (cmark-gfm puts the referenced definitions at the end,
    /// numbered from 1 in order of first reference, and drops the others).
    case footnoteDefinition(number: Int)
    case text, softBreak, lineBreak, code, htmlInline, emphasis, strong
    /// `~~struck~~` text.
    case strikethrough
    /// A `[^label]` reference to the footnote with this number.
    case footnoteReference(number: Int)
    case link(destination: String, title: String)
    case image(source: String, title: String)
    case custom
  }
  public var kind: Kind
  /// The text of leaves (text, code, code blocks, HTML).
  public var literal: String?
  /// 1-based source lines the node spans (0 for inline nodes cmark-gfm does not track).
  public var startLine: Int
  public var endLine: Int
  public var children: [MarkdownNode]

  public init(kind: Kind, literal: String? = nil, startLine: Int = 0, endLine: Int = 0, children: [MarkdownNode] = []) {
    self.kind = kind
    self.literal = literal
    self.startLine = startLine
    self.endLine = endLine
    self.children = children
  }

  /// The node's text with markup removed: literals of every descendant, soft breaks as spaces.
  public var plainText: String {
    var out = ""
    var stack: [MarkdownNode] = [self]
    while let node = stack.popLast() {
      switch node.kind {
      case .softBreak: out += " "
      case .lineBreak: out += "\n"
      default: out += node.literal ?? ""
      }
      stack.append(contentsOf: node.children.reversed())
    }
    return out
  }
}
