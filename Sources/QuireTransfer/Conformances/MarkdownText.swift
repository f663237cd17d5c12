public import Foundation
import QuireMarkdown
import QuireTypes

/// Markdown text, offered as Markdown, as HTML (rendered by libcmark in safe mode) and as
/// plain text (the text without markup), highest fidelity first.
public struct MarkdownText: Sendable, Hashable, ItemProviderWriting, ItemProviderReading {
  /// The Markdown source.
  public var markdown: String

  public init(_ markdown: String) { self.markdown = markdown }

  /// Markdown, HTML, plain text.
  public static var writableTypeIdentifiersForItemProvider: [String] {
    [UTType.markdown.identifier, UTType.html.identifier, UTType.plainText.identifier]
  }
  /// Markdown, then plain text (taken as Markdown source).
  public static var readableTypeIdentifiersForItemProvider: [String] {
    [UTType.markdown.identifier, UTType.plainText.identifier]
  }

  /// The HTML fragment libcmark renders, without raw HTML or `javascript:` links.
  public func html() throws -> String { try CommonMark.html(from: markdown) }

  /// The text without markup: blocks separated by blank lines, tight list items by one
  /// line break, list items marked "- " or "1. ", raw HTML dropped.
  public func plainText() throws -> String {
    let root = try CommonMark.parse(markdown)
    var blocks: [(text: String, isTight: Bool)] = []
    // Iterative, so deeply nested input cannot exhaust the stack.
    var stack: [(node: MarkdownNode, marker: String, isTight: Bool)] = [(root, "", false)]
    while let (node, marker, isTight) = stack.popLast() {
      switch node.kind {
      case .paragraph, .heading:
        blocks.append((marker + node.plainText, isTight))
      case .codeBlock:
        var literal = node.literal ?? ""
        while literal.hasSuffix("\n") { literal.removeLast() }
        blocks.append((marker + literal, isTight))
      case .thematicBreak, .htmlBlock:
        continue
      case .list(let ordered, let start, let tight):
        for (index, item) in node.children.enumerated().reversed() {
          let itemMarker = ordered ? "\(start + index). " : "- "
          stack.append((item, marker + itemMarker, (tight && index > 0) || (index == 0 && isTight)))
        }
      case .item:
        for (index, child) in node.children.enumerated().reversed() {
          stack.append((child, index == 0 ? marker : "", index == 0 ? isTight : false))
        }
      default:
        for (index, child) in node.children.enumerated().reversed() {
          stack.append((child, index == 0 ? marker : "", index == 0 ? isTight : false))
        }
      }
    }
    var text = ""
    for (index, block) in blocks.enumerated() {
      if index > 0 { text += block.isTight ? "\n" : "\n\n" }
      text += block.text
    }
    return text
  }

  public func loadData(withTypeIdentifier typeIdentifier: String) async throws -> Data {
    switch typeIdentifier {
    case UTType.html.identifier: return Data(try html().utf8)
    case UTType.plainText.identifier: return Data(try plainText().utf8)
    default: return Data(markdown.utf8)
    }
  }

  /// Reads Markdown (or plain text, taken as Markdown) as UTF-8.
  /// - Throws: ``QuireError`` `.invalidContent` when the bytes are not valid UTF-8.
  public static func object(withItemProviderData data: Data, typeIdentifier: String) throws -> MarkdownText {
    MarkdownText(try String.object(withItemProviderData: data, typeIdentifier: typeIdentifier))
  }
}

/// A PNG image's bytes, checked to be PNG: the 8-byte signature and an `IHDR` chunk with a
/// size. Pixels are not decoded.
public struct PNGImage: Sendable, Hashable, ItemProviderWriting, ItemProviderReading {
  /// The file's bytes.
  public let data: Data
  /// Width and height in pixels, from `IHDR`.
  public let width: Int
  public let height: Int

  /// The PNG signature: `\x89PNG\r\n\x1a\n`.
  public static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

  /// Checks `data` and keeps it.
  /// - Throws: ``QuireError`` `.invalidContent` when it lacks the signature or `IHDR`.
  public init(data: Data) throws {
    let bytes = [UInt8](data.prefix(33))
    guard bytes.count >= 8, Array(bytes[0..<8]) == Self.signature else {
      throw QuireError(
        .invalidContent,
        "The data declared as PNG is not a PNG image: it does not start with the PNG signature. The program that copied it mislabelled it.")
    }
    guard bytes.count == 33, Array(bytes[12..<16]) == Array("IHDR".utf8) else {
      throw QuireError(.invalidContent, "The PNG image is truncated or damaged: its IHDR header is missing.")
    }
    func big(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
    let width = big(16)
    let height = big(20)
    guard width > 0, height > 0, width <= Int(Int32.max), height <= Int(Int32.max) else {
      throw QuireError(.invalidContent, "The PNG image is damaged: its size (\(width)×\(height)) is not valid.")
    }
    self.data = data
    self.width = width
    self.height = height
  }

  public static var writableTypeIdentifiersForItemProvider: [String] { [UTType.png.identifier] }
  public static var readableTypeIdentifiersForItemProvider: [String] { [UTType.png.identifier] }
  public func loadData(withTypeIdentifier typeIdentifier: String) async throws -> Data { data }
  public static func object(withItemProviderData data: Data, typeIdentifier: String) throws -> PNGImage {
    try PNGImage(data: data)
  }
}
