import Foundation
import QuireTestSupport
import QuireTransfer
import QuireTypes
import Testing

@Suite("Item provider: registration and selection")
struct ItemProviderTests {
  @Test func keepsRepresentationsInFidelityOrder() {
    let provider = ItemProvider(suggestedName: "note")
    provider.registerDataRepresentation(for: .markdown) { Data("# md".utf8) }
    provider.registerDataRepresentation(for: .html) { Data("<h1>md</h1>".utf8) }
    provider.registerDataRepresentation(for: .plainText) { Data("md".utf8) }
    #expect(provider.registeredContentTypes == [.markdown, .html, .plainText])
    #expect(provider.registeredTypeIdentifiers == ["net.daringfireball.markdown", "public.html", "public.plain-text"])
    #expect(provider.registeredContentTypes(conformingTo: .plainText) == [.markdown, .plainText])
  }

  @Test func aGeneralTypeLoadsTheFirstConformingRepresentation() async throws {
    let provider = ItemProvider(suggestedName: "note")
    provider.registerDataRepresentation(for: .markdown) { Data("# md".utf8) }
    provider.registerDataRepresentation(for: .plainText) { Data("plain".utf8) }
    provider.registerDataRepresentation(for: .png) { pngHeader() }
    provider.registerDataRepresentation(for: .jpeg) { Data([0xFF, 0xD8]) }
    #expect(try await provider.loadDataRepresentation(for: .text) == Data("# md".utf8))
    #expect(try await provider.loadDataRepresentation(for: .plainText) == Data("# md".utf8))
    #expect(try await provider.loadDataRepresentation(for: .image) == pngHeader())
    #expect(try await provider.loadDataRepresentation(for: .jpeg) == Data([0xFF, 0xD8]))
    #expect(provider.hasRepresentationConforming(toTypeIdentifier: .image))
    #expect(!provider.hasRepresentationConforming(toTypeIdentifier: .pdf))
  }

  @Test func aMissingTypeIsAClearError() async {
    let provider = ItemProvider(suggestedName: "note")
    provider.registerDataRepresentation(for: .plainText) { Data("x".utf8) }
    await expectQuireError(.unsupportedType, reasonContains: "public.plain-text", "'note'") {
      try await provider.loadDataRepresentation(for: .png)
    }
  }

  @Test func undeclaredIdentifiersConformToDataOnly() async throws {
    let provider = ItemProvider()
    provider.registerDataRepresentation(forTypeIdentifier: "com.example.private-format") { Data([1, 2]) }
    #expect(provider.hasItemConformingToTypeIdentifier("com.example.private-format"))
    #expect(provider.hasItemConformingToTypeIdentifier("public.data"))
    #expect(!provider.hasItemConformingToTypeIdentifier("public.text"))
    #expect(try await provider.loadDataRepresentation(for: .data) == Data([1, 2]))
  }

  @Test func objectsRegisterOneRepresentationPerWritableType() async throws {
    let provider = ItemProvider(object: MarkdownText("# Title\n\nSome *text*."))
    #expect(provider.registeredContentTypes == [.markdown, .html, .plainText])
    #expect(provider.canLoadObject(ofClass: MarkdownText.self))
    #expect(provider.canLoadObject(ofClass: String.self))
    #expect(!provider.canLoadObject(ofClass: PNGImage.self))
    let text = try await provider.loadObject(ofClass: MarkdownText.self)
    #expect(text.markdown == "# Title\n\nSome *text*.")
  }

  @Test func readersTakeTheirPreferredTypeExactlyBeforeAConformingOne() async throws {
    let provider = ItemProvider(object: MarkdownText("# Title\n\nSome *text*."))
    // String reads public.plain-text: the exact plain-text representation wins over the
    // Markdown that conforms to it.
    #expect(try await provider.loadObject(ofClass: String.self) == "Title\n\nSome text.")
  }

  @Test func ownProcessVisibilityIsRecorded() {
    let provider = ItemProvider(suggestedName: "secret")
    provider.registerDataRepresentation(for: .plainText, visibility: .ownProcess) { Data("x".utf8) }
    provider.registerFileRepresentation(for: .png, openInPlace: true) { completion in
      completion(nil, CocoaError(.fileNoSuchFile))
      return nil
    }
    #expect(
      provider.debugDescription == """
        ItemProvider 'secret'
        ├─ public.plain-text (data, own process)
        └─ public.png (file, open in place)
        """)
  }

  @Test func suggestedNameNamesTheTemporaryFile() async throws {
    let provider = ItemProvider(suggestedName: "Meeting notes")
    provider.registerDataRepresentation(for: .markdown) { Data("# notes".utf8) }
    let name = try await provider.loadFileRepresentation(for: .markdown) { $0.lastPathComponent }
    #expect(name == "Meeting notes.md")
    provider.suggestedName = "../../etc/passwd"
    let hostile = try await provider.loadFileRepresentation(for: .markdown) { $0 }
    #expect(!hostile.lastPathComponent.contains("/"))
    #expect(hostile.lastPathComponent == "..-..-etc-passwd.md")
  }

  @Test func aFileProviderOffersItsTypeAndURLButNoPlainText() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let png = folder.file("picture.png")
    try pngHeader().write(to: png)
    let provider = ItemProvider(contentsOf: png)
    #expect(provider.suggestedName == "picture")
    #expect(provider.registeredContentTypes == [.png, .fileURL, .url])
    #expect(!provider.canLoadObject(ofClass: String.self))
    #expect(provider.canLoadObject(ofClass: URL.self))
  }
}
