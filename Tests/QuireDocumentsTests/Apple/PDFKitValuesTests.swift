// Written from PDFKit's and CoreGraphics' documentation (PDFPage.thumbnail(of:for:),
// PDFPage.pageRef, PDFSelection.color, CGPDFDocument and CGPDFPage), not from Quire's own
// API; the pixels are checked by decoding the PNG each thumbnail gives.
import Foundation
import QuireDocuments
import QuireFormats
import QuirePDF
import QuireTestSupport
import Testing

/// A find delegate as PDFKit's sample code writes one: it colours each match it receives.
final class ColouringDelegate: PDFDocumentDelegate {
  var matches: [PDFSelection] = []
  func didMatchString(_ instance: PDFSelection) {
    instance.color = .red
    matches.append(instance)
  }
}

@Suite("PDFKit's thumbnails, page references and selection colours, as Apple documents them")
final class PDFKitValuesTests: FolderSuite {
  /// A PDF of A4 portrait pages (595 × 842 points) holding `texts`.
  private func makePDF(_ name: String, _ texts: [String]) throws -> URL {
    try writePDF(to: folder.file(name), pages: texts)
  }

  /// The thumbnail's pixels, decoded from its PNG.
  private func pixels(_ image: UIImage) throws -> Bitmap {
    try Bitmap(pngData: #require(image.pngData()))
  }

  @Test func thumbnailHasTheSizeAskedForWithThePageFittedInside() throws {
    let document = try #require(PDFDocument(url: makePDF("one.pdf", ["# QUIRE\n\nA thumbnail of this page."])))
    let page = try #require(document.page(at: 0))
    let image = page.thumbnail(of: CGSize(width: 120, height: 120), for: .mediaBox)
    #expect(image.size == CGSize(width: 120, height: 120))
    let bitmap = try pixels(image)
    #expect(bitmap.width == 120 && bitmap.height == 120)
    // A portrait page fills the height; the margins left and right are transparent.
    #expect(bitmap.pixel(x: 2, y: 60).alpha == 0)
    #expect(bitmap.pixel(x: 117, y: 60).alpha == 0)
    #expect(bitmap.pixel(x: 60, y: 118) == (255, 255, 255, 255))
    #expect(bitmap.pixel(x: 60, y: 1) == (255, 255, 255, 255))
    // The heading is drawn: at 400 points high, some pixel of the page's upper part is dark.
    let large = try pixels(page.thumbnail(of: CGSize(width: 300, height: 400), for: .mediaBox))
    let dark = (0..<100).contains { y in (0..<300).contains { x in large.pixel(x: x, y: y).red < 100 } }
    #expect(dark)
  }

  @Test func thumbnailFollowsThePageRotation() throws {
    let document = try #require(PDFDocument(url: makePDF("turn.pdf", ["Turned"])))
    let page = try #require(document.page(at: 0))
    page.rotation = 90
    let bitmap = try pixels(page.thumbnail(of: CGSize(width: 100, height: 100), for: .cropBox))
    // Turned, the page is landscape: it fills the width, the margins are above and below.
    #expect(bitmap.pixel(x: 50, y: 2).alpha == 0)
    #expect(bitmap.pixel(x: 50, y: 97).alpha == 0)
    #expect(bitmap.pixel(x: 1, y: 50) == (255, 255, 255, 255))
    #expect(bitmap.pixel(x: 98, y: 50) == (255, 255, 255, 255))
  }

  @Test func thumbnailThatCannotBeDrawnIsAnEmptyImage() throws {
    let document = try #require(PDFDocument(url: makePDF("two.pdf", ["one", "two"])))
    let page = try #require(document.page(at: 1))
    for size in [
      CGSize.zero, CGSize(width: -5, height: 10), CGSize(width: 40_000, height: 10), CGSize(width: CGFloat.nan, height: 10),
      CGSize(width: 10, height: CGFloat.infinity), CGSize(width: 1e300, height: 1e300), CGSize(width: 20_000, height: 20_000),
    ] {
      let image = page.thumbnail(of: size, for: .mediaBox)
      #expect(image.cgImage == nil && image.size == .zero && image.pngData() == nil)
    }
    // A page removed from its document has nothing to draw.
    try document.removePage(at: 1)
    #expect(page.thumbnail(of: CGSize(width: 50, height: 50), for: .mediaBox).cgImage == nil)
    #expect(page.pageRef == nil)
  }

  @Test func pageRefIsThePageOfTheFileItCameFrom() throws {
    let url = try makePDF("three.pdf", ["first", "second", "third"])
    let document = try #require(PDFDocument(url: url))
    try document.movePage(at: 2, to: 0)  // the document now shows third, first, second
    let moved = try #require(document.page(at: 0)?.pageRef)
    #expect(moved.pageNumber == 3)
    let file = try #require(moved.document)
    #expect(file.numberOfPages == 3)
    #expect(file.page(at: 0) == nil)  // pages are numbered from 1
    #expect(file.page(at: 4) == nil)
    #expect(file.page(at: 1)?.pageNumber == 1)
    #expect(file.allowsCopying && file.allowsPrinting && !file.isEncrypted && file.isUnlocked)
    let box = moved.getBoxRect(.mediaBox)
    #expect(abs(box.width - 595.28) < 0.5 && abs(box.height - 841.89) < 0.5)
    #expect(moved.rotationAngle == 0)
    // A page inserted from another file refers to that file.
    let other = try #require(PDFDocument(url: makePDF("other.pdf", ["a", "b"])))
    document.insert(try #require(other.page(at: 1)), at: 0)
    let inserted = try #require(document.page(at: 0)?.pageRef)
    #expect(inserted.pageNumber == 2 && inserted.document?.numberOfPages == 2)
  }

  @Test func pageRefMeasuresTheFileBeforeItsRotation() throws {
    let plain = try makePDF("plain.pdf", ["turned in the file"])
    let turned = folder.file("turned.pdf")
    guard let made = try runTool("qpdf", [plain.path, turned.path, "--rotate=+90"]) else { return }
    #expect(made.status == 0)
    let document = try #require(PDFDocument(url: turned))
    let page = try #require(document.page(at: 0)?.pageRef)
    #expect(page.rotationAngle == 90)
    let box = page.getBoxRect(.cropBox)
    #expect(abs(box.width - 595.28) < 0.5 && abs(box.height - 841.89) < 0.5)
    // PDFPage's bounds are as displayed: turned.
    let shown = try #require(document.page(at: 0)).bounds(for: .cropBox)
    #expect(abs(shown.width - 841.89) < 0.5)
  }

  @Test func pageRefTellsAFileThatForbidsCopying() throws {
    let plain = try makePDF("open.pdf", ["secret"])
    let locked = folder.file("nocopy.pdf")
    guard let made = try runTool("qpdf", ["--encrypt", "user", "owner", "256", "--extract=n", "--", plain.path, locked.path]) else { return }
    #expect(made.status == 0)
    let document = try PDFDocument(contentsOf: locked, password: "user")
    let file = try #require(document.page(at: 0)?.pageRef?.document)
    #expect(file.isEncrypted)
    #expect(!file.allowsCopying)
    #expect(file.allowsPrinting)
  }

  @Test func selectionColourIsNilUntilSetAndKeptWhereTheDelegateSetsIt() throws {
    let document = try #require(PDFDocument(url: makePDF("find.pdf", ["needle here", "and a needle there"])))
    let delegate = ColouringDelegate()
    document.delegate = delegate
    let found = document.findString("needle", withOptions: .caseInsensitive)
    #expect(found.count == 2)
    #expect(delegate.matches.count == 2)
    #expect(delegate.matches.allSatisfy { $0.color == .red })
    // The selections returned are the ones the delegate coloured.
    #expect(found.allSatisfy { $0.color == .red })
    let fresh = document.findString("there", withOptions: [])
    #expect(fresh.first?.color == .red)  // the delegate is still set
    document.delegate = nil
    let plain = try #require(document.findString("here", withOptions: []).first)
    #expect(plain.color == nil)
    plain.color = .blue.withAlphaComponent(0.5)
    #expect(plain.color == UIColor(red: 0, green: 0, blue: 1, alpha: 0.5))
    // Equal selections cover the same text at the same places, whatever their colour.
    #expect(plain == document.findString("here", withOptions: []).first)
    #expect(plain != found.first)
  }
}
