import Foundation
public import QuireFormats
public import QuireMarkdown
import QuireTypes

/// Draws the top of a Markdown document as a page: parsed by libcmark, laid out by
/// `TextLayout` (HarfBuzz with fonts fontconfig chose once and the user's cache keeps; pango
/// for right-to-left and complex scripts) and drawn by cairo.
///
/// Headings are larger and bold, emphasis and strong text keep their style, lists get bullets
/// or numbers, block quotes a bar and grey text, code a monospace face on grey, links blue and
/// underlined, and images a placeholder box with their description. fontconfig picks a font
/// per script, so Japanese, Chinese and Korean text shows real glyphs (Noto CJK on Debian).
/// Only the first 256 KiB of the file are read: a thumbnail shows the top of the page.
public struct MarkdownThumbnailProvider: ThumbnailProvider {
  public init() {}

  public func makeThumbnail(for request: ThumbnailRequest) throws -> Bitmap {
    let text = try TextFilePrefix.read(request, limit: 256 * 1024)
    let (frontMatter, body) = FrontMatter.split(text)
    return try Self.draw(try CommonMark.parse(body), frontMatter: frontMatter, longestSide: request.pixelSize)
  }

  /// Draws a parsed document on a page whose longer side is `longestSide` pixels, below its
  /// front matter's metadata block when it has one.
  public static func draw(_ document: MarkdownNode, frontMatter: FrontMatter? = nil, longestSide: Int) throws -> Bitmap {
    let size = ThumbnailPage.pixelSize(longestSide: longestSide)
    let bitmap = try Bitmap(width: size.width, height: size.height, background: .white)
    try bitmap.draw { canvas in
      canvas.scale(by: Double(size.height) / ThumbnailPage.height)
      var painter = MarkdownPainter(bottom: ThumbnailPage.height - ThumbnailPage.margin)
      var y = ThumbnailPage.margin
      let width = ThumbnailPage.width - 2 * ThumbnailPage.margin
      if let frontMatter { try painter.metadata(frontMatter, canvas: canvas, x: ThumbnailPage.margin, width: width, y: &y) }
      try painter.blocks(document.children, canvas: canvas, x: ThumbnailPage.margin, width: width, y: &y)
    }
    return bitmap
  }
}

/// Lays Markdown blocks out top to bottom until the page is full.
struct MarkdownPainter {
  let bottom: Double
  static let ink = Color(red: 0.12, green: 0.14, blue: 0.16)
  static let quiet = Color(red: 0.38, green: 0.40, blue: 0.44)
  static let codeBackground = Color(red: 0.95, green: 0.96, blue: 0.97)
  static let rule = Color(red: 0.82, green: 0.85, blue: 0.88)
  static let body = TextStyle(font: "Sans 9.5", color: ink, lineSpacing: 1.5)
  static let grid = Color(red: 0.55, green: 0.58, blue: 0.62)
  static let headerBackground = Color(red: 0.93, green: 0.94, blue: 0.96)

  var isFull = false

  init(bottom: Double) { self.bottom = bottom }

  /// Front matter as a grey box of `key  value` lines (or its text).
  mutating func metadata(_ frontMatter: FrontMatter, canvas: borrowing Canvas, x: Double, width: Double, y: inout Double) throws {
    let lines =
      frontMatter.fields.isEmpty
      ? TextLayout.escapeMarkup(frontMatter.text)
      : frontMatter.fields.map { "<b>\(TextLayout.escapeMarkup($0.key))</b>  \(TextLayout.escapeMarkup($0.value))" }.joined(separator: "\n")
    let style = TextStyle(font: "Sans 7.5", color: Self.quiet, lineSpacing: 1)
    let room = min(bottom - y, 120)
    let height = try canvas.measure(markup: lines, width: width - 12, style: style, maximumHeight: room - 8)
    canvas.fill(Rect(x: x, y: y, width: width, height: height + 8), color: Self.codeBackground)
    try canvas.text(markup: lines, x: x + 6, y: y + 4, width: width - 12, style: style, maximumHeight: room - 8)
    y += height + 16
  }

  mutating func blocks(_ nodes: [MarkdownNode], canvas: borrowing Canvas, x: Double, width: Double, y: inout Double, color: Color = ink) throws {
    for node in nodes {
      if y >= bottom { isFull = true }
      if isFull { return }
      try block(node, canvas: canvas, x: x, width: width, y: &y, color: color)
    }
  }

  mutating func block(_ node: MarkdownNode, canvas: borrowing Canvas, x: Double, width: Double, y: inout Double, color: Color) throws {
    let room = bottom - y
    switch node.kind {
    case .heading(let level):
      let sizes = [0, 17.0, 14.0, 12.0, 11.0, 10.0, 10.0]
      let style = TextStyle(font: "Sans Bold \(sizes[min(max(level, 1), 6)])", color: color)
      if y > ThumbnailPage.margin { y += 4 }
      y += try canvas.text(markup: Self.inline(node.children), x: x, y: y, width: width, style: style, maximumHeight: room)
      if level <= 2 {
        y += 2
        canvas.line(fromX: x, y: y, toX: x + width, y: y, color: Self.rule, lineWidth: 0.6)
      }
      y += 5
    case .paragraph:
      let images = node.children.filter { if case .image = $0.kind { return true } else { return false } }
      if !images.isEmpty, images.count == node.children.filter({ $0.kind != .softBreak }).count {
        for image in images where y < bottom {
          y += try placeholder(for: image, canvas: canvas, x: x, y: y, width: width)
        }
        y += 5
      } else {
        var style = Self.body
        style.color = color
        y += try canvas.text(markup: Self.inline(node.children), x: x, y: y, width: width, style: style, maximumHeight: room)
        y += 5
      }
    case .list(let ordered, let start, let tight):
      var number = start
      for item in node.children {
        if y >= bottom {
          isFull = true
          return
        }
        var marker = ordered ? "\(number)." : "•"
        if case .taskItem(let isChecked) = item.kind { marker = isChecked ? "☑" : "☐" }
        number += 1
        var style = Self.body
        style.color = color
        try canvas.text(markup: TextLayout.escapeMarkup(marker), x: x + 2, y: y, width: 16, style: style)
        var itemY = y
        try blocks(item.children, canvas: canvas, x: x + 16, width: width - 16, y: &itemY, color: color)
        if tight, itemY > y { itemY -= 4 }
        y = itemY
      }
      if tight { y += 4 }
    case .blockQuote:
      let top = y
      try blocks(node.children, canvas: canvas, x: x + 10, width: width - 10, y: &y, color: Self.quiet)
      canvas.fill(Rect(x: x, y: top, width: 2.5, height: max(0, min(y, bottom) - top - 5)), color: Self.rule)
    case .codeBlock:
      var code = node.literal ?? ""
      if code.hasSuffix("\n") { code.removeLast() }
      let style = TextStyle(font: "Monospace 8", color: color)
      let markup = TextLayout.escapeMarkup(code)
      let height = try canvas.measure(markup: markup, width: width - 12, style: style, maximumHeight: room)
      canvas.fill(Rect(x: x, y: y, width: width, height: min(height + 10, max(0, room))), color: Self.codeBackground)
      try canvas.text(markup: markup, x: x + 6, y: y + 5, width: width - 12, style: style, maximumHeight: room - 5)
      y += height + 15
    case .thematicBreak:
      y += 4
      canvas.line(fromX: x, y: y, toX: x + width, y: y, color: Self.rule, lineWidth: 1)
      y += 8
    case .table:
      try table(node, canvas: canvas, x: x, width: width, y: &y)
    case .footnoteDefinition(let number):
      if number == 1 {
        y += 2
        canvas.line(fromX: x, y: y, toX: x + width / 3, y: y, color: Self.rule, lineWidth: 0.6)
        y += 4
      }
      let style = TextStyle(font: "Sans 7.5", color: Self.quiet)
      try canvas.text(markup: "\(number).", x: x, y: y, width: 14, style: style)
      let text = node.children.map { Self.inline($0.children) }.joined(separator: " ")
      y += try canvas.text(markup: text, x: x + 14, y: y, width: width - 14, style: style, maximumHeight: room) + 3
    case .htmlBlock, .custom:
      // Raw HTML is not drawn: a thumbnail shows the document's text, not its markup.
      break
    case .item, .taskItem, .document:
      try blocks(node.children, canvas: canvas, x: x, width: width, y: &y, color: color)
    default:
      break
    }
  }

  /// A grey box with a picture frame and the image's description.
  func placeholder(for image: MarkdownNode, canvas: borrowing Canvas, x: Double, y: Double, width: Double) throws -> Double {
    let height = min(70, max(0, bottom - y))
    let boxWidth = min(width, 150)
    canvas.fill(Rect(x: x, y: y, width: boxWidth, height: height), color: Color(red: 0.93, green: 0.94, blue: 0.95))
    canvas.stroke(Rect(x: x + 0.5, y: y + 0.5, width: boxWidth - 1, height: height - 1), color: Self.rule)
    // A small mountain-and-sun glyph, the usual picture mark.
    canvas.fill(Rect(x: x + 8, y: y + 8, width: 10, height: 10), color: Self.rule)
    let alt = image.plainText.isEmpty ? "image" : image.plainText
    try canvas.text(
      markup: TextLayout.escapeMarkup(alt), x: x + 24, y: y + 6, width: boxWidth - 30,
      style: TextStyle(font: "Sans Italic 8", color: Self.quiet), maximumHeight: height - 8)
    return height + 4
  }

  /// Draws a table as a grid: a shaded bold header row, column widths after the longest text
  /// of each column, every cell's text wrapped in its column and aligned as the delimiter row
  /// says, and lines around every cell.
  mutating func table(_ node: MarkdownNode, canvas: borrowing Canvas, x: Double, width: Double, y: inout Double) throws {
    guard case .table(let alignments) = node.kind, !alignments.isEmpty else { return }
    let columns = alignments.count
    var weights = [Double](repeating: 3, count: columns)
    for row in node.children {
      for (index, cell) in row.children.prefix(columns).enumerated() {
        weights[index] = max(weights[index], min(30, Double(cell.plainText.count)))
      }
    }
    let total = weights.reduce(0, +)
    let widths = weights.map { width * $0 / total }
    let padding = 3.0
    let style = TextStyle(font: "Sans 8", color: Self.ink)
    let top = y
    var rowEdges = [y]
    for row in node.children {
      guard y < bottom else {
        isFull = true
        break
      }
      let isHeader = { if case .tableRow(true) = row.kind { return true } else { return false } }()
      let markups = (0..<columns).map { index -> String in
        let text = index < row.children.count ? Self.inline(row.children[index].children) : ""
        return isHeader ? "<b>\(text)</b>" : text
      }
      var height = 0.0
      for (index, markup) in markups.enumerated() {
        height = max(height, try canvas.measure(markup: markup, width: widths[index] - 2 * padding, style: style, maximumHeight: 40))
      }
      height = min(height + 2 * padding, bottom - y)
      if isHeader { canvas.fill(Rect(x: x, y: y, width: width, height: height), color: Self.headerBackground) }
      var cellX = x
      for (index, markup) in markups.enumerated() {
        // The delimiter row's colons align the column's cells.
        var cellStyle = style
        switch alignments[index] {
        case .center: cellStyle.alignment = .center
        case .right: cellStyle.alignment = .trailing
        case .left, .none: cellStyle.alignment = .leading
        }
        try canvas.text(
          markup: markup, x: cellX + padding, y: y + padding, width: widths[index] - 2 * padding, style: cellStyle, maximumHeight: height - 2 * padding)
        cellX += widths[index]
      }
      y += height
      rowEdges.append(y)
    }
    for edge in rowEdges { canvas.line(fromX: x, y: edge, toX: x + width, y: edge, color: Self.grid, lineWidth: 0.8) }
    var edgeX = x
    for columnWidth in [0] + widths {
      edgeX += columnWidth
      canvas.line(fromX: edgeX, y: top, toX: edgeX, y: y, color: Self.grid, lineWidth: 0.8)
    }
    y += 8
  }

  /// Pango markup for inline Markdown; footnote references become their numbers, raised.
  static func inline(_ nodes: [MarkdownNode]) -> String {
    var out = ""
    for node in nodes {
      switch node.kind {
      case .text: out += TextLayout.escapeMarkup(node.literal ?? "")
      case .softBreak: out += " "
      case .lineBreak: out += "\n"
      case .code:
        out += "<span font_family=\"monospace\" size=\"90%\" background=\"#eff1f3\">\(TextLayout.escapeMarkup(node.literal ?? ""))</span>"
      case .emphasis: out += "<i>\(inline(node.children))</i>"
      case .strong: out += "<b>\(inline(node.children))</b>"
      case .strikethrough: out += "<s>\(inline(node.children))</s>"
      case .footnoteReference(let number): out += "<span foreground=\"#0969da\"><sup>\(number)</sup></span>"
      case .link: out += "<span foreground=\"#0969da\" underline=\"single\">\(inline(node.children))</span>"
      case .image:
        let alt = node.plainText.isEmpty ? "image" : node.plainText
        out += "<span foreground=\"#6e7781\" background=\"#eef0f2\">▣ \(TextLayout.escapeMarkup(alt))</span>"
      case .htmlInline: break
      default: out += inline(node.children)
      }
    }
    return out
  }
}
