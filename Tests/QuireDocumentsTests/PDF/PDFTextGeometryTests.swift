import Foundation
import QuireFormats
import QuirePDF
import QuireTestSupport
import Testing

/// PDFKit's text geometry by character as a client uses it: the bounds of a character, a
/// selection by range, by rectangle and between two character indices, the page's text as an
/// attributed string. Checked against the word's own bounds from a find, and against
/// pdftotext's layout of the same page (`-bbox`), poppler's command-line tool.
@Suite("PDFPage character geometry")
final class PDFTextGeometryTests: FolderSuite {
  func makePDF() throws -> PDFDocument {
    let url = try writePDF(to: folder.file("river.pdf"), pages: ["The otter swims past the heron.", "Second page"])
    return try PDFDocument(contentsOf: url)
  }

  @Test func aRangeSelectsTheWordsAFindFinds() throws {
    let document = try makePDF()
    let page = try #require(document.page(at: 0))
    let text = try #require(page.string)
    let range = (text as NSString).range(of: "otter")
    #expect(range.location != NSNotFound)
    let selection = try #require(page.selection(for: range))
    #expect(selection.string == "otter")
    let found = try #require(document.findString("otter").first)
    let byRange = selection.bounds(for: page)
    let byFind = found.bounds(for: page)
    #expect(abs(byRange.minX - byFind.minX) < 1 && abs(byRange.maxX - byFind.maxX) < 1, "\(byRange) \(byFind)")
    #expect(abs(byRange.minY - byFind.minY) < 1 && abs(byRange.maxY - byFind.maxY) < 1, "\(byRange) \(byFind)")
    // Between two character indices on the page: the same selection.
    let between = try #require(document.selection(from: page, atCharacterIndex: range.location, to: page, atCharacterIndex: range.location + 4))
    #expect(between.string == "otter" && between.bounds(for: page) == byRange)
    // Across pages: the rest of the first page and the start of the second, each page's own
    // areas; built by hand with add(_:), the same selection.
    let second = try #require(document.page(at: 1))
    let across = try #require(document.selection(from: page, atCharacterIndex: range.location, to: second, atCharacterIndex: 5))
    #expect(across.pages == [page, second] && across.string == "otter swims past the heron.\nSecond", "\(across.string ?? "nil")")
    #expect(across.bounds(for: page).minX == byRange.minX && across.bounds(for: second).width > 0)
    #expect(across.selectionsByLine().count == 2)
    let byHand = PDFSelection(document: document)
    byHand.add([
      try #require(page.selection(for: NSRange(location: range.location, length: (text as NSString).length - range.location))),
      try #require(second.selection(for: NSRange(location: 0, length: 6))),
    ])
    #expect(byHand == across)
    // Out of order, out of the page: no selection.
    #expect(document.selection(from: second, atCharacterIndex: 0, to: page, atCharacterIndex: 1) == nil)
    #expect(document.selection(from: page, atCharacterIndex: 5, to: page, atCharacterIndex: 2) == nil)
    #expect(page.selection(for: NSRange(location: 10_000, length: 3)) == nil)
    #expect(page.selection(for: NSRange(location: 0, length: 0)) == nil)
  }

  @Test func characterBoundsRunLeftToRightInsideTheWordAndARectangleSelectsThem() throws {
    let document = try makePDF()
    let page = try #require(document.page(at: 0))
    let text = try #require(page.string as NSString?)
    let range = text.range(of: "otter")
    let word = try #require(page.selection(for: range)).bounds(for: page)
    let characters = (range.location..<range.location + range.length).map { page.characterBounds(at: $0) }
    #expect(characters.allSatisfy { $0.width > 0 && $0.height > 0 })
    #expect(zip(characters, characters.dropFirst()).allSatisfy { $0.minX < $1.minX }, "\(characters)")
    #expect(characters.allSatisfy { word.insetBy(dx: -0.5, dy: -0.5).contains($0) }, "\(characters) in \(word)")
    #expect(page.characterBounds(at: -1) == .zero && page.characterBounds(at: 10_000) == .zero)
    // A rectangle around the word (page space, from the bottom left) selects it.
    let around = try #require(page.selection(for: word.insetBy(dx: -1, dy: -1)))
    #expect(around.string == "otter", "\(around.string ?? "nil")")
    #expect(page.selection(for: CGRect(x: -50, y: -50, width: 10, height: 10)) == nil)
    #expect(page.attributedString?.string == page.string)
  }

  /// A client's loop over every character of a page, as PDFKit code writes it: the count is
  /// what `characterBounds(at:)` indexes, and a point inside a character's bounds gives back
  /// its index.
  @Test func aLoopOverEveryCharacterFindsEachAgainByItsMiddle() throws {
    let document = try makePDF()
    let page = try #require(document.page(at: 0))
    let text = try #require(page.string)
    #expect(page.numberOfCharacters == text.utf16.count)
    var visible = 0
    for index in 0..<page.numberOfCharacters {
      let bounds = page.characterBounds(at: index)
      guard bounds.width > 0, bounds.height > 0 else { continue }
      visible += 1
      #expect(page.characterIndex(at: CGPoint(x: bounds.midX, y: bounds.midY)) == index, "\(index) \(bounds)")
    }
    #expect(visible >= "The otter swims past the heron.".filter { $0 != " " }.count)
    #expect(page.characterIndex(at: CGPoint(x: -20, y: -20)) == -1)
  }

  /// A combining mark is a character of its own to poppler (its own area): the words, lines
  /// and finds after it keep their places instead of shifting by one.
  @Test func wordsAfterACombiningMarkKeepTheirAreas() throws {
    let url = try writePDF(to: folder.file("mark.pdf"), pages: ["x\u{0304}y otter heron"])
    let document = try PDFDocument(contentsOf: url)
    let page = try #require(document.page(at: 0))
    let text = try #require(page.string)
    #expect(text.unicodeScalars.contains("\u{0304}"), "\(text.unicodeScalars.map { String($0.value, radix: 16) })")
    let range = (text as NSString).range(of: "heron")
    let byCharacters = try #require(page.selection(for: range)).bounds(for: page)
    let byFind = try #require(document.findString("heron").first).bounds(for: page)
    #expect(abs(byCharacters.minX - byFind.minX) < 1 && abs(byCharacters.maxX - byFind.maxX) < 1, "\(byCharacters) \(byFind)")
    let words = try PDFFile(contentsOf: url).wordRects(ofPage: 0)
    let heron = try #require(words.first { $0.word == "heron" }?.rect)
    let height = page.bounds(for: .cropBox).height
    #expect(abs(heron.x - byFind.minX) < 1 && abs(heron.x + heron.width - byFind.maxX) < 1, "\(heron) \(byFind)")
    #expect(abs((height - heron.y - heron.height) - byFind.minY) < 1, "\(heron) \(byFind)")
    #expect(words.map(\.word).contains("otter"))
    let lines = try document.lineRects(ofPage: 0)
    #expect(lines.count == 1 && lines[0].x <= heron.x && lines[0].x + lines[0].width >= heron.x + heron.width - 0.5, "\(lines) \(heron)")
  }

  /// The areas agree with pdftotext's `-bbox` layout of the same word.
  @Test(.enabled(if: Programs.system("pdftotext") != nil, "pdftotext (poppler-utils) is not installed"))
  func theAreasAgreeWithPdftotext() async throws {
    let document = try makePDF()
    let page = try #require(document.page(at: 0))
    let range = try #require(page.string as NSString?).range(of: "swims")
    let word = try #require(page.selection(for: range)).bounds(for: page)
    let html = folder.file("bbox.html")
    let result = try await ChildProcess.run(
      try #require(Programs.system("pdftotext")), ["-bbox", "-f", "1", "-l", "1", folder.file("river.pdf").path, html.path])
    #expect(result.status == 0, "\(result.error)")
    let layout = try String(contentsOf: html, encoding: .utf8)
    let match = try #require(layout.firstMatch(of: /<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">swims</))
    let (xMin, xMax) = (Double(match.1)!, Double(match.3)!)
    let height = page.bounds(for: .cropBox).height
    let (yTop, yBottom) = (height - Double(match.2)!, height - Double(match.4)!)
    #expect(abs(word.minX - xMin) < 1.5 && abs(word.maxX - xMax) < 1.5, "\(word) vs \(xMin)…\(xMax)")
    #expect(abs(word.maxY - yTop) < 3 && abs(word.minY - yBottom) < 3, "\(word) vs \(yBottom)…\(yTop)")
  }
}
