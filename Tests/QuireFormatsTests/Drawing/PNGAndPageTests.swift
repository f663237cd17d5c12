import Foundation
import QuireFormats
import QuireTestSupport
import QuireTypes
import Testing

@Suite("libpng encoding with text chunks")
struct PNGEncodingTests {
  func sample() throws -> Bitmap {
    let bitmap = try Bitmap(width: 40, height: 30, background: .white)
    bitmap.draw { canvas in canvas.fill(Rect(x: 0, y: 0, width: 20, height: 30), color: Color(red: 1, green: 0, blue: 0)) }
    return bitmap
  }

  @Test(arguments: [PNGOptions.fast, .small, PNGOptions(compressionLevel: 0, filter: .none)])
  func roundTripsPixelsAndText(_ options: PNGOptions) throws {
    let png = try sample().pngData(text: [("Thumb::URI", "file:///tmp/a%20b.md"), ("Software", "Quire test")], options: options)
    let decoded = try Bitmap(pngData: png)
    #expect(decoded.width == 40 && decoded.height == 30)
    #expect(decoded.pixel(x: 5, y: 5) == (255, 0, 0, 255))
    #expect(decoded.pixel(x: 35, y: 5) == (255, 255, 255, 255))
    let chunks = try PNGText.chunks(in: png)
    #expect(chunks.map(\.key) == ["Thumb::URI", "Software"])
    #expect(chunks.first?.value == "file:///tmp/a%20b.md")
  }

  @Test func opaqueImagesAreWrittenAsRGBAndTransparentOnesKeepAlpha() throws {
    let opaque = try sample().pngData(text: [])
    #expect(opaque[25] == 2)  // IHDR colour type 2: RGB
    let clear = try Bitmap(width: 4, height: 4, background: Color(red: 0, green: 0, blue: 1, alpha: 0.5))
    let png = try clear.pngData(text: [])
    #expect(png[25] == 6)  // RGBA
    let back = try Bitmap(pngData: png).pixel(x: 1, y: 1)
    #expect(back.alpha >= 127 && back.alpha <= 128 && back.blue >= 250 && back.red == 0)
  }

  @Test(arguments: ["", String(repeating: "k", count: 80), "bad\u{1}key", " lead"])
  func badKeywordsAreRefused(_ key: String) throws {
    #expect(throws: QuireError.self) { try sample().pngData(text: [(key, "v")]) }
  }

  @Test func nulInAValueIsRefused() throws {
    #expect(throws: QuireError.self) { try sample().pngData(text: [("Key", "a\u{0}b")]) }
  }

  @Test(arguments: [Data(), Data("not a png".utf8), Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0])])
  func badPNGDataFailsCleanly(_ data: Data) {
    #expect(throws: QuireError.self) { try Bitmap(pngData: data) }
  }

  @Test func truncatedPNGStillYieldsTheTextBeforeTheImageData() throws {
    let png = try sample().pngData(text: [("Thumb::MTime", "12")])
    let chunks = try PNGText.chunks(in: png.prefix(70), stopAtImageData: true)
    #expect(chunks.first?.value == "12")
  }
}

@Suite("PDF pages: exact sizes, rotation, crop box, metadata, outline")
final class PDFPageTests: FolderSuite {

  func write(_ data: Data, _ name: String) throws -> URL {
    let url = folder.file(name)
    try data.write(to: url)
    return url
  }

  @Test(arguments: [(400.0, 600.0, 256, 171, 256), (600, 400, 128, 128, 85), (10, 14400, 256, 1, 256), (1, 1, 7, 7, 7)])
  func fitGivesTheExactLongestSide(_ w: Double, _ h: Double, _ side: Int, _ ew: Int, _ eh: Int) {
    let size = PDFFile.fit(width: w, height: h, longestSide: side)
    #expect(size.width == ew && size.height == eh)
  }

  @Test func rotationIsHonoured() throws {
    // A landscape page, left half black, turned 90° clockwise: portrait, black on top.
    let url = try write(PDFFixtures.onePage(pageEntries: "/Rotate 90", content: "0 g 0 0 100 100 re f"), "rotated.pdf")
    let bitmap = try PDFFile(contentsOf: url).render(page: 0, longestSide: 200)
    #expect(bitmap.width == 100 && bitmap.height == 200)
    #expect(bitmap.pixel(x: 50, y: 40).red < 30)
    #expect(bitmap.pixel(x: 50, y: 160).red > 225)
  }

  @Test func cropBoxIsHonoured() throws {
    // Left half black, right half grey; the crop box keeps only the grey half.
    let url = try write(
      PDFFixtures.onePage(
        mediaBox: "[0 0 200 200]", pageEntries: "/CropBox [100 0 200 200]", content: "0 g 0 0 100 200 re f 0.5 g 100 0 100 200 re f"),
      "cropped.pdf")
    let bitmap = try PDFFile(contentsOf: url).render(page: 0, longestSide: 100)
    #expect(bitmap.width == 50 && bitmap.height == 100)
    for x in [2, 25, 47] {
      let p = bitmap.pixel(x: x, y: 50)
      #expect(p.red > 100 && p.red < 160, "pixel \(x) should be grey, is \(p.red)")
    }
  }

  @Test func backgroundIsWhiteWhereThePageDrawsNothing() throws {
    let url = try write(PDFFixtures.onePage(content: ""), "blank.pdf")
    let bitmap = try PDFFile(contentsOf: url).render(page: 0, longestSide: 64)
    #expect(bitmap.pixel(x: 10, y: 10) == (255, 255, 255, 255))
    #expect(bitmap.isOpaque)
  }

  @Test func metadataAndOutlineAreRead() throws {
    let url = try writePDF(to: folder.file("outline.pdf"), pages: ["Page 1", "Page 2", "Page 3"], width: 300, height: 300, title: "Outline test") {
      for page in 1...3 {
        let parent = $0.addOutlineEntry("Chapter \(page)", page: page)
        if page == 2 { $0.addOutlineEntry("Section 2.1", page: 2, parent: parent) }
      }
    }
    let pdf = try PDFFile(contentsOf: url)
    #expect(pdf.metadata.title == "Outline test")
    #expect(pdf.metadata.pageCount == 3)
    #expect(pdf.metadata.version?.hasPrefix("PDF-") == true)
    let outline = pdf.outline
    #expect(outline.map(\.label) == ["Chapter 1", "Chapter 2", "Chapter 3"])
    #expect(outline.map(\.pageIndex) == [0, 1, 2])
    #expect(outline[1].children.map(\.label) == ["Section 2.1"])
  }

  @Test func emptyFileFailsClearly() throws {
    let url = try write(Data(), "empty.pdf")
    expectQuireError(.invalidContent) { try PDFFile(contentsOf: url) }
  }
}

@Suite("freedesktop names through GLib")
struct FreedesktopNamesTests {
  @Test func matchesTheThumbnailStandardsExample() throws {
    // The example of the Thumbnail Managing Standard, "Thumbnail Saving".
    #expect(FreedesktopNames.md5Hex("file:///home/jens/photos/me.png") == "c6ee772d9e49320e97ec29a7eb5b1697")
  }

  @Test func escapesURIsAsGLibDoes() throws {
    #expect(try FreedesktopNames.fileURI(forPath: "/tmp/a b#c/日本.md") == "file:///tmp/a%20b%23c/%E6%97%A5%E6%9C%AC.md")
    #expect(FreedesktopNames.path(forFileURI: "file:///tmp/a%20b.md") == "/tmp/a b.md")
    #expect(FreedesktopNames.path(forFileURI: "https://example.com/x") == nil)
  }

  @Test func relativePathsAreRefused() {
    #expect(throws: QuireError.self) { try FreedesktopNames.fileURI(forPath: "relative/x.md") }
  }
}

@Suite("Font coverage")
struct FontCoverageTests {
  @Test(arguments: ["日本語の見出しとひらがな、カタカナ", "中文文本", "한국어 텍스트", "Latin text"])
  func everyScriptHasGlyphs(_ text: String) throws {
    #expect(try TextLayout.unknownGlyphCount(markup: TextLayout.escapeMarkup(text)) == 0)
  }
}
