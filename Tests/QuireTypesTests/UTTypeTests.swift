import QuireTypes
import Testing

@Suite("UTType basics")
struct UTTypeTests {
  @Test func markdownConformsToPlainTextAndText() {
    #expect(UTType.markdown.conforms(to: .plainText))
    #expect(UTType.markdown.conforms(to: .text))
    #expect(UTType.markdown.conforms(to: .data))
    #expect(!UTType.markdown.conforms(to: .image))
    #expect(UTType.plainText.isSupertype(of: .markdown))
  }

  @Test func tagsLookUpTypes() {
    #expect(UTType(filenameExtension: "md") == .markdown)
    #expect(UTType(filenameExtension: "PDF") == .pdf)
    #expect(UTType(mimeType: "image/png") == .png)
    #expect(UTType.pdf.preferredMIMEType == "application/pdf")
    #expect(UTType(filenameExtension: "no-such-extension-here") == nil)
  }
}
