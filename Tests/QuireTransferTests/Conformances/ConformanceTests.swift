import Foundation
import QuireTestSupport
import QuireTransfer
import QuireTypes
import Testing

@Suite("Conformances: String, URL, Data, Markdown text, PNG images")
struct ConformanceTests {
  @Test func stringsTravelAsPlainText() async throws {
    let provider = ItemProvider(object: "héllo ✓")
    #expect(provider.registeredContentTypes == [.plainText])
    #expect(try await provider.loadObject(ofClass: String.self) == "héllo ✓")
  }

  @Test func invalidUTF8IsReportedNotCrashedOn() async throws {
    let provider = ItemProvider()
    provider.registerDataRepresentation(for: .plainText) { Data([0x66, 0xFF, 0xFE, 0x80]) }
    await expectQuireError(.invalidContent, reasonContains: "UTF-8") {
      try await provider.loadObject(ofClass: String.self)
    }
  }

  @Test func webURLsTravelAsURLAndText() async throws {
    let url = try #require(URL(string: "https://example.org/a?b=c"))
    let provider = ItemProvider(object: url)
    #expect(provider.registeredContentTypes == [.url, .plainText])
    #expect(try await provider.loadObject(ofClass: URL.self) == url)
    #expect(try await provider.loadObject(ofClass: String.self) == "https://example.org/a?b=c")
  }

  @Test func fileURLsTravelAsFileURLsAndTheirPathAsText() async throws {
    let url = URL(fileURLWithPath: "/tmp/some folder/notes.md")
    let provider = ItemProvider(object: url)
    #expect(provider.registeredContentTypes == [.fileURL, .url, .plainText])
    #expect(try await provider.loadObject(ofClass: URL.self) == url)
    #expect(try await provider.loadObject(ofClass: String.self) == "/tmp/some folder/notes.md")
  }

  @Test(arguments: ["", "not a url", "relative/path", "https://a\nhttps://b"])
  func textThatIsNoURLIsRefused(_ text: String) async {
    let provider = ItemProvider(object: text)
    await expectQuireError(.invalidContent) { try await provider.loadObject(ofClass: URL.self) }
  }

  @Test func aWebURLIsNotAFileURL() {
    #expect(throws: QuireError.self) {
      try URL.object(withItemProviderData: Data("https://example.org".utf8), typeIdentifier: UTType.fileURL.identifier)
    }
  }

  @Test func dataTravelsAsIs() async throws {
    let bytes = Data((0..<256).map { UInt8($0) })
    let provider = ItemProvider(object: bytes)
    #expect(try await provider.loadObject(ofClass: Data.self) == bytes)
  }

  @Test func markdownTextOffersMarkdownHTMLAndPlainText() async throws {
    let markdown = """
      # Shopping

      Buy *fresh* bread and [milk](https://example.org).

      - eggs
      - flour

      1. first
      2. second

      ```
      code <b>
      ```

      <script>alert(1)</script>
      """
    let provider = ItemProvider(object: MarkdownText(markdown))
    #expect(provider.registeredContentTypes == [.markdown, .html, .plainText])
    let html = String(decoding: try await provider.loadDataRepresentation(for: .html), as: UTF8.self)
    #expect(html.contains("<h1>Shopping</h1>"))
    #expect(html.contains("<em>fresh</em>"))
    #expect(!html.contains("<script>"), "libcmark's safe mode drops raw HTML")
    let plain = try await provider.loadObject(ofClass: String.self)
    #expect(plain == "Shopping\n\nBuy fresh bread and milk.\n\n- eggs\n- flour\n\n1. first\n2. second\n\ncode <b>")
    #expect(try await provider.loadDataRepresentation(for: .markdown) == Data(markdown.utf8))
  }

  @Test func deeplyNestedMarkdownDoesNotExhaustTheStack() throws {
    let markdown = String(repeating: "> ", count: 5_000) + "deep"
    #expect(try MarkdownText(markdown).plainText() == "deep")
  }

  @Test func pngImagesAreCheckedWhenRead() throws {
    let image = try PNGImage(data: pngHeader(width: 640, height: 480))
    #expect(image.width == 640)
    #expect(image.height == 480)
  }

  @Test(arguments: [
    ("empty", Data()),
    ("JPEG bytes", Data([0xFF, 0xD8, 0xFF, 0xE0] + Array(repeating: 0, count: 40))),
    ("text", Data("<html>not a png</html> with enough bytes to pass length checks".utf8)),
    ("signature only", Data(PNGImage.signature)),
    ("truncated header", pngHeader().prefix(20)),
    ("zero size", pngHeader(width: 0, height: 5)),
  ])
  func bytesThatAreNotPNGAreReportedByTheReader(_ name: String, _ bytes: Data) async {
    let provider = ItemProvider(suggestedName: name)
    provider.registerDataRepresentation(for: .png) { bytes }  // declared PNG, but is not
    await expectQuireError(.invalidContent) { try await provider.loadObject(ofClass: PNGImage.self) }
  }

  @Test func pngImagesTravelAsPNG() async throws {
    let provider = ItemProvider(object: try PNGImage(data: pngHeader()))
    #expect(provider.registeredContentTypes == [.png])
    #expect(provider.hasRepresentationConforming(toTypeIdentifier: .image))
    #expect(try await provider.loadObject(ofClass: PNGImage.self).data == pngHeader())
  }
}
