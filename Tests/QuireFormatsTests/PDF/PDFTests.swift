import Foundation
import QuireFormats
import QuireTestSupport
import QuireTypes
import Testing

@Suite("poppler-glib and cairo: PDF open, measure, render")
final class PDFTests: FolderSuite {

  /// A three-page PDF made by cairo's PDF surface: page 1 is black text on white.
  func makePDF() throws -> URL {
    try writePDF(
      to: folder.file("made.pdf"), pages: (1...3).map { "<span size='xx-large'>Page \($0)</span>\nHello from cairo." },
      width: 400, height: 600, title: "Made by the test", outline: (1...3).map { "Chapter \($0)" })
  }

  @Test func opensAPDFMadeByCairoAndReadsPagesAndSize() throws {
    let pdf = try PDFFile(contentsOf: makePDF())
    #expect(pdf.pageCount == 3)
    let size = try pdf.pageSize(at: 0)
    #expect(size.width == 400)
    #expect(size.height == 600)
    #expect(pdf.title == "Made by the test")
    #expect(try pdf.text(ofPage: 1).contains("Page 2"))
  }

  @Test func rendersPageOneToAPNG() throws {
    let pdf = try PDFFile(contentsOf: makePDF())
    let bitmap = try pdf.render(page: 0, scale: 0.5)
    #expect(bitmap.width == 200)
    #expect(bitmap.height == 300)
    // The corner is the white page; somewhere in the text block there is dark ink.
    #expect(bitmap.pixel(x: 0, y: 0) == (255, 255, 255, 255))
    var darkest = 255
    for y in 20..<60 { for x in 20..<120 { darkest = min(darkest, Int(bitmap.pixel(x: x, y: y).red)) } }
    #expect(darkest < 100)
    let png = try bitmap.pngData()
    #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
    try png.write(to: folder.file("page1.png"))
  }

  @Test func missingFileFailsClearly() {
    let url = folder.file("absent.pdf")
    expectQuireError(.fileMissing, reasonContains: "absent.pdf") { try PDFFile(contentsOf: url) }
  }

  @Test func textFileIsNotAPDF() throws {
    let url = try folder.write("hello, not a pdf\n", to: "fake.pdf")
    expectQuireError(.invalidContent) { try PDFFile(contentsOf: url) }
  }

  @Test func truncatedPDFFailsOrOpensWithoutCrashing() throws {
    let data = try Data(contentsOf: makePDF())
    let url = folder.file("truncated.pdf")
    try data.prefix(data.count / 3).write(to: url)
    do {
      let pdf = try PDFFile(contentsOf: url)
      #expect(pdf.pageCount >= 0)
    } catch let error as QuireError {
      #expect(error.code == .invalidContent)
    }
  }

  @Test func pageOutOfRangeIsAnError() throws {
    let pdf = try PDFFile(contentsOf: makePDF())
    expectQuireError(.invalidArgument) { try pdf.pageSize(at: 3) }
  }
}
