import Foundation
import QuireFormats
import QuirePreviews
import QuireTestSupport
import QuireTypes
import Testing

/// A provider that draws a plain colour, to see which provider the registry picks.
struct SolidProvider: ThumbnailProvider {
  let color: Color
  func makeThumbnail(for request: ThumbnailRequest) throws -> Bitmap {
    try Bitmap(width: request.pixelSize, height: request.pixelSize, background: color)
  }
}

@Suite("Provider registry")
struct ProviderRegistryTests {
  let red = SolidProvider(color: Color(red: 1, green: 0, blue: 0))
  let green = SolidProvider(color: Color(red: 0, green: 1, blue: 0))
  let blue = SolidProvider(color: Color(red: 0, green: 0, blue: 1))

  func color(of provider: (any ThumbnailProvider)?) throws -> Color? {
    (provider as? SolidProvider)?.color
  }

  @Test func mostSpecificConformingProviderWins() throws {
    let registry = ThumbnailProviderRegistry()
    registry.register(red, for: [.text])
    registry.register(green, for: [.markdown])
    registry.register(blue, for: [.plainText])
    #expect(try color(of: registry.provider(for: .markdown)) == green.color)
    #expect(try color(of: registry.provider(for: .sourceCode)) == blue.color)
    #expect(try color(of: registry.provider(for: .html)) == red.color)
    #expect(registry.provider(for: .pdf) == nil)
  }

  @Test func laterRegistrationForTheSameTypeReplacesTheBuiltIn() throws {
    let registry = ThumbnailProviderRegistry.makeDefault()
    #expect(registry.provider(for: .markdown) is MarkdownThumbnailProvider)
    registry.register(red, for: [.markdown])
    #expect(try color(of: registry.provider(for: .markdown)) == red.color)
    #expect(registry.provider(for: .plainText) is TextThumbnailProvider)
  }

  @Test func embeddersRegisterTheirOwnTypes() throws {
    // An app's own registry: the public chain down to Markdown, and its exported type.
    let types = TypeRegistry(declarations: [
      TypeDeclaration(identifier: "public.item", conformsTo: []),
      TypeDeclaration(identifier: "public.data", conformsTo: ["public.item"]),
      TypeDeclaration(identifier: "public.text", conformsTo: ["public.data"]),
      TypeDeclaration(identifier: "public.plain-text", conformsTo: ["public.text"]),
      TypeDeclaration(identifier: "net.daringfireball.markdown", conformsTo: ["public.plain-text"]),
      TypeDeclaration(identifier: "com.example.notebook", conformsTo: ["net.daringfireball.markdown"], tags: [.filenameExtension: ["nb"]]),
    ])
    let registry = ThumbnailProviderRegistry.makeDefault()
    let notebook = try #require(types.type(withIdentifier: "com.example.notebook"))
    #expect(registry.provider(for: notebook) is MarkdownThumbnailProvider)
    registry.register(blue, for: [notebook])
    #expect(try color(of: registry.provider(for: notebook)) == blue.color)
    #expect(registry.provider(for: .markdown) is MarkdownThumbnailProvider)
  }
}

@Suite("Markdown, text and PDF thumbnails")
final class ThumbnailDrawingTests: FolderSuite {
  let generator = ThumbnailGenerator()
  init() throws { try super.init() }

  func thumbnail(_ url: URL, size: Int = 256, scale: Double = 1) throws -> Bitmap {
    try generator.generateBestRepresentation(
      for: ThumbnailRequest(fileURL: url, contentType: generator.contentType(of: url), maximumSize: size, scale: scale))
  }

  /// Rows (y) that hold any non-white pixel.
  func inkRows(_ bitmap: Bitmap, x: Range<Int>? = nil) -> [Int] {
    let columns = x ?? 0..<bitmap.width
    return (0..<bitmap.height).filter { y in columns.contains { bitmap.pixel(x: $0, y: y).red < 200 } }
  }

  func darkPixels(_ bitmap: Bitmap) -> Int {
    var count = 0
    for y in 0..<bitmap.height { for x in 0..<bitmap.width where bitmap.pixel(x: x, y: y).red < 200 { count += 1 } }
    return count
  }

  @Test(arguments: [(256, 1.0, 181, 256), (128, 2.0, 181, 256), (100, 1.0, 71, 100)])
  func markdownPageHasTheExactSizeWhiteMarginsAndText(_ size: Int, _ scale: Double, _ width: Int, _ height: Int) throws {
    let url = try folder.write("# Title\n\nSome *text* with **bold** and `code`.\n", to: "a.md")
    let bitmap = try thumbnail(url, size: size, scale: scale)
    #expect(bitmap.width == width && bitmap.height == height)
    #expect(bitmap.isOpaque)
    for (x, y) in [(0, 0), (width - 1, 0), (0, height - 1), (width - 1, height - 1), (2, height / 2)] {
      #expect(bitmap.pixel(x: x, y: y) == (255, 255, 255, 255))
    }
    #expect(darkPixels(bitmap) > 50)
  }

  @Test func headingsAreTallerThanBodyText() throws {
    let heading = try thumbnail(folder.write("# Heading\n", to: "h.md"))
    let body = try thumbnail(folder.write("Heading\n", to: "p.md"))
    let headingRows = inkRows(heading)
    let bodyRows = inkRows(body)
    let headingHeight = (headingRows.last ?? 0) - (headingRows.first ?? 0)
    let bodyHeight = (bodyRows.last ?? 0) - (bodyRows.first ?? 0)
    #expect(headingHeight > bodyHeight + 3)
  }

  @Test func blockQuotesListsCodeLinksAndImagesAllDraw() throws {
    let markdown = """
      > quoted

      - one
      - two

      ```
      let x = 1
      ```

      [a link](https://example.com)

      ![a picture](missing.png)

      """
    let bitmap = try thumbnail(folder.write(markdown, to: "all.md"), size: 512)
    // The quote bar sits at the left margin; code and image placeholders have grey boxes.
    let margin = Int((24.0 * 512 / 481).rounded())
    #expect(bitmap.pixel(x: margin + 1, y: inkRows(bitmap).first! + 2).red < 235)
    var greyRows = 0
    var blueLink = false
    for y in 0..<bitmap.height {
      let p = bitmap.pixel(x: bitmap.width - margin - 4, y: y)
      if p.red > 225 && p.red < 250 && abs(Int(p.red) - Int(p.blue)) < 8 { greyRows += 1 }
      for x in stride(from: margin, to: bitmap.width / 2, by: 1) {
        let q = bitmap.pixel(x: x, y: y)
        if q.blue > 150 && q.red < 80 { blueLink = true }
      }
    }
    #expect(greyRows > 10, "the code block should have a grey background")
    #expect(blueLink, "the link should be blue")
  }

  @Test func japaneseTextDrawsRealGlyphs() throws {
    let url = try folder.write("# 日本語の見出し\n\nひらがなとカタカナと漢字の段落です。\n", to: "ja.md")
    let bitmap = try thumbnail(url)
    #expect(darkPixels(bitmap) > 100)
    #expect(try TextLayout.unknownGlyphCount(markup: "日本語の見出し ひらがなとカタカナと漢字の段落です。") == 0)
  }

  @Test func frontMatterIsAMetadataBlockNotARuleAndAHeading() throws {
    let bitmap = try thumbnail(folder.write("---\ntitle: x\n---\n", to: "fm.md"), size: 512)
    let rows = inkRows(bitmap)
    #expect(!rows.isEmpty, "the field is drawn")
    // Small grey text on a light box, not a 17 pt heading under a rule.
    #expect((rows.last ?? 0) - (rows.first ?? 0) < 16)
    let margin = Int((24.0 * 512 / 481).rounded())
    let box = bitmap.pixel(x: bitmap.width - margin - 3, y: rows.first! + 2)
    #expect(box.red > 230 && box.red < 250, "a light grey box: \(box)")
  }

  /// Runs of consecutive indices, as (first, last).
  func clusters(_ indices: [Int]) -> [(Int, Int)] {
    var runs: [(Int, Int)] = []
    for index in indices {
      if let last = runs.last, last.1 == index - 1 { runs[runs.count - 1].1 = index } else { runs.append((index, index)) }
    }
    return runs
  }

  @Test func tablesAreDrawnAsAGrid() throws {
    let markdown = """
      | Name | Role | Since |
      | :--- | :--: | ----: |
      | Ada | lead | 2021 |
      | Lin | ops | 2023 |

      """
    let bitmap = try thumbnail(folder.write(markdown, to: "table.md"), size: 512)
    let margin = Int((24.0 * 512 / 481).rounded())
    func isLine(_ x: Int, _ y: Int) -> Bool { bitmap.pixel(x: x, y: y).red < 225 }
    // Grid rows: lines across (nearly) the whole text width; text never covers that much.
    let span = (margin + 2)..<(bitmap.width - margin - 2)
    let lineRows = (0..<bitmap.height).filter { y in span.filter { isLine($0, y) }.count * 10 >= span.count * 9 }
    let horizontal = clusters(lineRows)
    #expect(horizontal.count == 4, "3 rows need 4 horizontal lines: \(horizontal)")
    let top = try #require(horizontal.first?.1)
    let bottom = try #require(horizontal.last?.0)
    try #require(bottom > top + 4)
    let height = (top + 2)..<(bottom - 1)
    let lineColumns = (0..<bitmap.width).filter { x in height.filter { isLine(x, $0) }.count * 10 >= height.count * 9 }
    let vertical = clusters(lineColumns)
    #expect(vertical.count == 4, "3 columns need 4 vertical lines: \(vertical)")
    #expect(darkPixels(bitmap) > 200, "the cells' text is drawn")
  }

  @Test func tableCellsFollowTheDelimiterRowsAlignment() throws {
    /// The leftmost pixel of the last line of text (the body cell's "x"): text is darker
    /// than the grid lines.
    func firstInkColumn(_ delimiter: String, name: String) throws -> Int {
      let bitmap = try thumbnail(folder.write("| Heading of the column |\n| \(delimiter) |\n| x |\n", to: name), size: 512)
      var ink: [(x: Int, y: Int)] = []
      for y in 0..<bitmap.height { for x in 0..<bitmap.width where bitmap.pixel(x: x, y: y).red < 100 { ink.append((x, y)) } }
      let last = try #require(ink.map(\.y).max())
      return try #require(ink.filter { $0.y > last - 10 }.map(\.x).min())
    }
    let left = try firstInkColumn(":---", name: "left.md")
    let center = try firstInkColumn(":---:", name: "center.md")
    let right = try firstInkColumn("---:", name: "right.md")
    #expect(left < center && center < right, "x at \(left), \(center), \(right)")
  }

  @Test func taskListsStrikethroughAndFootnotesDraw() throws {
    let bitmap = try thumbnail(folder.write("- [x] done\n- [ ] todo\n\n~~gone~~ and a note[^1]\n\n[^1]: The note.\n", to: "gfm.md"), size: 512)
    #expect(clusters(inkRows(bitmap)).count >= 4, "two items, a paragraph and a footnote")
  }

  @Test func plainTextAndSourceGetAMonospacePage() throws {
    let bitmap = try thumbnail(folder.write("func main() {\n\tprint(1)\n}\n", to: "main.txt"))
    #expect(bitmap.height == 256 && bitmap.width == 181)
    #expect(darkPixels(bitmap) > 20)
  }

  @Test func pdfThumbnailIsPageOneAtTheExactSize() throws {
    let url = folder.file("p.pdf")
    try PDFFixtures.onePage(mediaBox: "[0 0 300 600]", content: "0 g 0 300 300 300 re f").write(to: url)
    let bitmap = try thumbnail(url, size: 128)
    #expect(bitmap.width == 64 && bitmap.height == 128)
    #expect(bitmap.pixel(x: 32, y: 10).red < 20)
    #expect(bitmap.pixel(x: 32, y: 120) == (255, 255, 255, 255))
  }

  @Test func pdfWithoutAnExtensionIsSniffed() throws {
    let url = folder.file("no-extension")
    try PDFFixtures.onePage(content: "").write(to: url)
    #expect(try generator.contentType(of: url) == .pdf)
  }

  enum BadInput: String, CaseIterable {
    case missing, empty, truncated, garbage, binaryText, folder, invalidUTF8, hugeSize, noPages
  }

  @Test(arguments: BadInput.allCases)
  func badInputFailsCleanly(_ input: BadInput) throws {
    var url = folder.file("bad-\(input.rawValue).pdf")
    var size = 256
    switch input {
    case .missing: break
    case .empty: try Data().write(to: url)
    case .truncated: try PDFFixtures.onePage(content: "0 g 0 0 10 10 re f").prefix(60).write(to: url)
    case .garbage: try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919) }).write(to: url)
    case .binaryText:
      url = folder.file("bad.txt")
      try Data([0x41, 0, 0x42, 0, 0x43]).write(to: url)
    case .folder:
      url = folder.file("dir.md")
      try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    case .invalidUTF8:
      // Refused, naming the file, as the REPL and copy refuse it (issue 16, finding 9).
      url = folder.file("latin1.md")
      try Data([0x23, 0x20, 0xE9, 0xFF, 0x0A]).write(to: url)
    case .hugeSize:
      url = try folder.write("# x\n", to: "huge.md")
      size = 100_000
    case .noPages:
      try Data(
        "%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj 2 0 obj << /Type /Pages /Kids [] /Count 0 >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"
          .utf8
      ).write(to: url)
    }
    #expect(throws: QuireError.self) {
      try generator.generateBestRepresentation(
        for: ThumbnailRequest(fileURL: url, contentType: (try? generator.contentType(of: url)) ?? .pdf, maximumSize: size))
    }
  }

  @Test func hugeMarkdownIsDrawnFromItsTop() throws {
    // 4 MB of Markdown with an unterminated fence at the end: only the top is read and drawn.
    let text = "# Top\n\n" + String(repeating: "A paragraph of *text* with `code`.\n\n", count: 110_000) + "```\nunterminated"
    let bitmap = try thumbnail(folder.write(text, to: "huge.md"))
    #expect(bitmap.height == 256)
    #expect(darkPixels(bitmap) > 100)
  }

  @Test(.enabled(if: !isRunningAsRoot, "running as root, where chmod 000 does not stop reads")) func unreadableFileFailsWithPermissionDenied() throws {
    let url = try folder.write("# secret\n", to: "locked.md")
    chmod(url.path, 0)
    defer { chmod(url.path, 0o600) }
    expectQuireError(.permissionDenied) { try self.thumbnail(url) }
  }

  @Test func unsupportedTypeFailsClearly() throws {
    let url = try folder.write("x", to: "a.png")
    expectQuireError(.unsupportedType) {
      try generator.generateBestRepresentation(for: ThumbnailRequest(fileURL: url, contentType: .png, maximumSize: 64))
    }
  }
}

@Suite("Encrypted PDFs")
final class EncryptedPDFTests: FolderSuite {

  /// Encrypts a one-page PDF with the qpdf tool (scripts/setup installs it).
  func encrypt(user: String) throws -> URL {
    let qpdf = try #require(Programs.system("qpdf"), "qpdf is not installed: scripts/setup installs it")
    let plain = folder.file("plain.pdf")
    try PDFFixtures.onePage(content: "0 g 0 0 100 100 re f").write(to: plain)
    let output = folder.file("enc-\(user.isEmpty ? "open" : "locked").pdf")
    let result = try ChildProcess.runBlocking(qpdf, ["--encrypt", user, "owner-secret", "256", "--", plain.path, output.path])
    #expect(result.status == 0, "qpdf: \(result.error)")
    return output
  }

  @Test func encryptedWithoutAUserPasswordRenders() throws {
    let url = try encrypt(user: "")
    let bitmap = try PDFThumbnailProvider().makeThumbnail(for: ThumbnailRequest(fileURL: url, contentType: .pdf, maximumSize: 100))
    #expect(bitmap.width == 100 && bitmap.height == 50)
    #expect(bitmap.pixel(x: 10, y: 25).red < 30)
  }

  @Test func needingAPasswordFailsClearly() throws {
    let url = try encrypt(user: "user-secret")
    expectQuireError(.passwordRequired, reasonContains: "password") {
      try PDFThumbnailProvider().makeThumbnail(for: ThumbnailRequest(fileURL: url, contentType: .pdf, maximumSize: 100))
    }
  }
}
