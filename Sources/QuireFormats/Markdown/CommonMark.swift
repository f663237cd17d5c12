internal import CCmark
import Foundation
import QuireTypes

/// Markdown through libcmark, the CommonMark reference implementation.
///
/// libcmark is used rather than a Swift parser because it is the reference for the spec, is
/// fast (about 75 MB/s here) and has a safe HTML mode that drops raw HTML and `javascript:`
/// links. Every libcmark pointer stays inside this file: parsed trees are copied into
/// ``MarkdownNode`` values before the C tree is freed.
public enum CommonMark {
  /// libcmark's rendering and parsing options.
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

  /// The version of the linked libcmark, e.g. "0.30.2".
  public static var libraryVersion: String { String(cString: cmark_version_string()) }

  /// Renders Markdown to an HTML fragment.
  ///
  /// Without ``Options/unsafe`` raw HTML is replaced by a comment and links or images whose
  /// URL is `javascript:`, `vbscript:`, `file:` or a non-image `data:` become empty.
  /// Invalid UTF-8 in the input is replaced with U+FFFD (`CMARK_OPT_VALIDATE_UTF8`).
  /// - Throws: ``QuireError`` when libcmark cannot allocate its output.
  public static func html(from markdown: String, options: Options = []) throws -> String {
    var text = markdown
    return try text.withUTF8 { bytes in
      let flags = options.rawValue | CMARK_OPT_VALIDATE_UTF8
      guard
        let html = bytes.withMemoryRebound(
          to: CChar.self,
          { raw in
            cmark_markdown_to_html(raw.baseAddress, raw.count, flags)
          })
      else {
        throw QuireError(.libraryFailure, "libcmark could not render the Markdown to HTML (out of memory).")
      }
      defer { free(html) }
      return String(cString: html)
    }
  }

  /// Parses Markdown into a tree of Swift values.
  ///
  /// The walk uses libcmark's iterator, so deeply nested input (thousands of block quotes)
  /// does not recurse on the stack.
  public static func parse(_ markdown: String, options: Options = []) throws -> MarkdownNode {
    var text = markdown
    let root: OpaquePointer? = text.withUTF8 { bytes in
      bytes.withMemoryRebound(to: CChar.self) { raw in
        cmark_parse_document(raw.baseAddress, raw.count, options.rawValue | CMARK_OPT_VALIDATE_UTF8)
      }
    }
    guard let root else {
      throw QuireError(.libraryFailure, "libcmark could not parse the Markdown (out of memory).")
    }
    defer { cmark_node_free(root) }
    guard let iterator = cmark_iter_new(root) else {
      throw QuireError(.libraryFailure, "libcmark could not walk the Markdown tree (out of memory).")
    }
    defer { cmark_iter_free(iterator) }

    var stack: [MarkdownNode] = []
    var finished: MarkdownNode?
    while true {
      let event = cmark_iter_next(iterator)
      if event == CMARK_EVENT_DONE { break }
      guard let node = cmark_iter_get_node(iterator) else { continue }
      let isLeaf = !Self.isContainer(node)
      if event == CMARK_EVENT_ENTER {
        let value = Self.copy(node)
        if isLeaf {
          if stack.isEmpty { finished = value } else { stack[stack.count - 1].children.append(value) }
        } else {
          stack.append(value)
        }
      } else if event == CMARK_EVENT_EXIT {
        guard let done = stack.popLast() else { continue }
        if stack.isEmpty { finished = done } else { stack[stack.count - 1].children.append(done) }
      }
    }
    return finished ?? MarkdownNode(kind: .document)
  }

  /// Container nodes get an exit event even when empty; leaves get only an enter event.
  private static func isContainer(_ node: OpaquePointer) -> Bool {
    switch cmark_node_get_type(node) {
    case CMARK_NODE_DOCUMENT, CMARK_NODE_BLOCK_QUOTE, CMARK_NODE_LIST, CMARK_NODE_ITEM,
      CMARK_NODE_PARAGRAPH, CMARK_NODE_HEADING, CMARK_NODE_EMPH, CMARK_NODE_STRONG,
      CMARK_NODE_LINK, CMARK_NODE_IMAGE, CMARK_NODE_CUSTOM_BLOCK, CMARK_NODE_CUSTOM_INLINE:
      return true
    default:
      return false
    }
  }

  private static func string(_ pointer: UnsafePointer<CChar>?) -> String? {
    pointer.map { String(cString: $0) }
  }

  private static func copy(_ node: OpaquePointer) -> MarkdownNode {
    let kind: MarkdownNode.Kind
    switch cmark_node_get_type(node) {
    case CMARK_NODE_DOCUMENT: kind = .document
    case CMARK_NODE_BLOCK_QUOTE: kind = .blockQuote
    case CMARK_NODE_LIST:
      kind = .list(
        ordered: cmark_node_get_list_type(node) == CMARK_ORDERED_LIST,
        start: Int(cmark_node_get_list_start(node)), tight: cmark_node_get_list_tight(node) != 0)
    case CMARK_NODE_ITEM: kind = .item
    case CMARK_NODE_CODE_BLOCK: kind = .codeBlock(info: string(cmark_node_get_fence_info(node)) ?? "")
    case CMARK_NODE_HTML_BLOCK: kind = .htmlBlock
    case CMARK_NODE_PARAGRAPH: kind = .paragraph
    case CMARK_NODE_HEADING: kind = .heading(level: Int(cmark_node_get_heading_level(node)))
    case CMARK_NODE_THEMATIC_BREAK: kind = .thematicBreak
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
    default: kind = .custom
    }
    return MarkdownNode(
      kind: kind, literal: string(cmark_node_get_literal(node)),
      startLine: Int(cmark_node_get_start_line(node)), endLine: Int(cmark_node_get_end_line(node)))
  }
}

/// One node of a parsed Markdown document, copied out of libcmark.
public struct MarkdownNode: Sendable, Hashable {
  /// What the node is.
  public enum Kind: Sendable, Hashable {
    case document, blockQuote, item, htmlBlock, paragraph, thematicBreak
    case list(ordered: Bool, start: Int, tight: Bool)
    case codeBlock(info: String)
    case heading(level: Int)
    case text, softBreak, lineBreak, code, htmlInline, emphasis, strong
    case link(destination: String, title: String)
    case image(source: String, title: String)
    case custom
  }
  public var kind: Kind
  /// The text of leaves (text, code, code blocks, HTML).
  public var literal: String?
  /// 1-based source lines the node spans (0 for inline nodes libcmark does not track).
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
