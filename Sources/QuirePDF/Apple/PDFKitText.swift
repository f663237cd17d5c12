// PDFKit's text geometry by character: `characterBounds(at:)`, `characterIndex(at:)`,
// `selection(for:)` by range and by rectangle, `attributedString`, and the document's `selection(from:atCharacterIndex:to:
// atCharacterIndex:)`. Compatibility surface: see the "Porting from Apple's frameworks" article.
public import Foundation
import QuireFormats

extension PDFPage {
  /// The page's text as an attributed string (PDFKit's `attributedString`), nil when it cannot
  /// be read. Quire's carries the text without font or colour attributes: those are
  /// UIKit/AppKit objects (`UIFont`), which Linux does not have.
  public var attributedString: NSAttributedString? { string.map { NSAttributedString(string: $0) } }

  /// The area of the character at `index` (PDFKit's `characterBounds(at:)`), in page space:
  /// points in the page's PDF user space, from the bottom left.
  ///
  /// `index` counts UTF-16 units of ``string``, as `NSString` and PDFKit do; the two units of
  /// a character beyond U+FFFF have the same area. `.zero` when there is no such character
  /// or the page cannot be read.
  public func characterBounds(at index: Int) -> CGRect {
    guard let layout = textLayout(), layout.areas.indices.contains(index) else { return .zero }
    return layout.userSpace(layout.areas[index])
  }

  /// The index of the character at `point` (PDFKit's `characterIndex(at:)`), `point` being in
  /// page space (points in the page's PDF user space, from the bottom left); -1 when no
  /// character's area holds it. The index counts UTF-16 units of ``string``, as
  /// ``characterBounds(at:)`` does.
  public func characterIndex(at point: CGPoint) -> Int {
    guard let layout = textLayout() else { return -1 }
    return layout.areas.indices.first { unit in
      let area = layout.areas[unit]
      return (area.width > 0 || area.height > 0) && layout.userSpace(area).contains(point)
    } ?? -1
  }

  /// The characters in `range` (PDFKit's `selection(for: NSRange)`), in UTF-16 units of
  /// ``string``: their text and their areas, one per run of characters on a line; nil when
  /// the range holds none of the page's characters.
  public func selection(for range: NSRange) -> PDFSelection? {
    guard let layout = textLayout(), range.location != NSNotFound, range.location >= 0, range.length > 0 else { return nil }
    let lower = min(range.location, layout.areas.count)
    let upper = min(range.location + range.length, layout.areas.count)
    guard lower < upper else { return nil }
    return layout.selection(of: Array(lower..<upper), on: self)
  }

  /// The characters whose middles lie inside `rect` (PDFKit's `selection(for: CGRect)`), `rect`
  /// being in page space (points in the page's PDF user space, from the bottom left); nil
  /// when there are none.
  public func selection(for rect: CGRect) -> PDFSelection? {
    guard let layout = textLayout() else { return nil }
    let inside = layout.areas.indices.filter { unit in
      let area = layout.areas[unit]
      guard area.width > 0 || area.height > 0 else { return false }
      let middle = layout.map((area.x + area.width / 2, area.y + area.height / 2))
      return rect.contains(CGPoint(x: middle[0], y: middle[1]))
    }
    return inside.isEmpty ? nil : layout.selection(of: inside, on: self)
  }

  /// The page's text laid out (see ``PDFDocument/textLayout(ofPage:)``).
  private func textLayout() -> PageTextLayout? {
    guard let document, let index else { return nil }
    return document.textLayout(ofPage: index)
  }
}

extension PDFDocument {
  /// Page `index`'s text laid out: one area (points from the top left as the page's file
  /// displays it) per UTF-16 unit of its text, and the map into user space; nil when the page
  /// cannot be read. The last one made is kept (``lastTextLayout``): PDFKit clients ask for
  /// one character's bounds at a time, in loops over a page, and each call would otherwise
  /// have poppler lay the whole page out, and the page's boxes be read, again.
  func textLayout(ofPage index: Int) -> PageTextLayout? {
    guard pages.indices.contains(index) else { return nil }
    if let last = lastTextLayout, last.page == pages[index] { return last.layout }
    guard let (text, scalarAreas) = try? characterLayout(ofPage: index), let map = try? userSpaceMap(onPage: index) else { return nil }
    var areas: [PDFRect] = []
    areas.reserveCapacity(text.utf16.count)
    for (scalar, area) in zip(text.unicodeScalars, scalarAreas) {
      for _ in 0..<scalar.utf16.count { areas.append(area) }
    }
    let layout = PageTextLayout(text: text, areas: areas, map: map)
    lastTextLayout = (pages[index], layout)
    return layout
  }
}

/// A page's text with one area per UTF-16 unit, as `PDFPage`'s character geometry reads it.
struct PageTextLayout {
  let text: String
  let areas: [PDFRect]
  let map: @Sendable ((x: Double, y: Double)) -> [Double]

  /// `area` (from the top left as displayed) as a rectangle in user space.
  func userSpace(_ area: PDFRect) -> CGRect {
    let corners = [(area.x, area.y), (area.x + area.width, area.y + area.height)].flatMap { map($0) }
    let (x0, x1) = (min(corners[0], corners[2]), max(corners[0], corners[2]))
    let (y0, y1) = (min(corners[1], corners[3]), max(corners[1], corners[3]))
    return CGRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
  }

  /// A selection of the UTF-16 units `units` (ascending) on `page`: their text, and their
  /// areas united into one per run on a line (a line break or a jump back starts another).
  func selection(of units: [Int], on page: PDFPage) -> PDFSelection? {
    guard let document = page.document, let pageIndex = page.index else { return nil }
    let utf16 = Array(text.utf16)
    var selected: [UInt16] = []
    var runs: [PDFRect] = []
    var run: PDFRect?
    var previous: Int?
    for unit in units {
      selected.append(utf16[unit])
      let area = areas[unit]
      let isBreak = utf16[unit] == 0x0A || utf16[unit] == 0x0D || (area.width == 0 && area.height == 0)
      let followsOn = previous == unit - 1
      previous = unit
      if isBreak {
        if let current = run { runs.append(current) }
        run = nil
        continue
      }
      if let current = run, followsOn, area.y < current.y + current.height, current.y < area.y + area.height, area.x >= current.x - 0.5 {
        let x = min(current.x, area.x)
        let y = min(current.y, area.y)
        run = PDFRect(
          x: x, y: y, width: max(current.x + current.width, area.x + area.width) - x, height: max(current.y + current.height, area.y + area.height) - y)
      } else {
        if let current = run { runs.append(current) }
        run = area
      }
    }
    if let current = run { runs.append(current) }
    let string = String(decoding: selected, as: UTF16.self)
    return PDFSelection(pageIndex: pageIndex, string: string, bounds: runs, document: document)
  }
}

extension PDFDocument {
  /// The text from the character at `startCharacter` on `startPage` to the one at
  /// `endCharacter` on `endPage`, both included (PDFKit's
  /// `selection(from:atCharacterIndex:to:atCharacterIndex:)`); indices count UTF-16 units of
  /// each page's ``PDFPage/string``. Across pages, the selection runs to the end of the first
  /// page, over every page between, and from the start of the last. Nil when either page is
  /// not in this document, or the end comes before the start.
  public func selection(from startPage: PDFPage, atCharacterIndex startCharacter: Int, to endPage: PDFPage, atCharacterIndex endCharacter: Int)
    -> PDFSelection?
  {
    let (first, last) = (index(for: startPage), index(for: endPage))
    guard first != NSNotFound, last != NSNotFound, startCharacter >= 0, endCharacter >= 0, (first, startCharacter) <= (last, endCharacter) else {
      return nil
    }
    if first == last { return startPage.selection(for: NSRange(location: startCharacter, length: endCharacter - startCharacter + 1)) }
    let whole = PDFSelection(document: self)
    for pageIndex in first...last {
      guard let page = page(at: pageIndex) else { continue }
      let lower = pageIndex == first ? startCharacter : 0
      let upper = pageIndex == last ? endCharacter + 1 : page.numberOfCharacters
      if let part = page.selection(for: NSRange(location: lower, length: upper - lower)) { whole.add(part) }
    }
    return whole.parts.isEmpty ? nil : whole
  }
}
