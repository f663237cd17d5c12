import Foundation
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
    #expect(UTType.markdown.isSubtype(of: .plainText))
    #expect(!UTType.markdown.isSubtype(of: .markdown))
  }

  @Test func tagsLookUpTypes() {
    #expect(UTType(filenameExtension: "md") == .markdown)
    #expect(UTType(filenameExtension: "PDF") == .pdf)
    #expect(UTType(mimeType: "image/png") == .png)
    #expect(UTType.pdf.preferredMIMEType == "application/pdf")
    #expect(UTType.jpeg.preferredFilenameExtension == "jpeg")
  }

  @Test func unknownExtensionGivesADynamicTypeAsOnApplePlatforms() throws {
    // Apple: "If the filename extension isn't known, the initializer returns a dynamic type."
    let type = try #require(UTType(filenameExtension: "no-such-extension-here"))
    #expect(type.isDynamic)
    #expect(!type.isDeclared)
    #expect(type.conforms(to: .data))
    #expect(type.tags[.filenameExtension] == ["no-such-extension-here"])
    #expect(UTType(filenameExtension: "") == nil)
  }

  @Test func constraintFiltersTagLookups() {
    #expect(UTType(filenameExtension: "md", conformingTo: .image)?.isDynamic == true)
    #expect(UTType(filenameExtension: "md", conformingTo: .text) == .markdown)
    #expect(UTType(tag: "textbundle", tagClass: .filenameExtension, conformingTo: .package) == .textBundle)
  }

  /// Apple's class form takes the tag class as a string, and the tag class prints as one.
  @Test func theReferenceFormTakesATagClassString() {
    #expect(UTTypeReference(tag: "md", tagClass: "public.filename-extension", conformingTo: nil) == .markdown)
    #expect(UTTypeReference.types(tag: "application/pdf", tagClass: "public.mime-type", conformingTo: nil).contains(.pdf))
    #expect(UTType.ReferenceType.self == UTTypeReference.self)
    #expect(UTTagClass.filenameExtension.description == "public.filename-extension")
    #expect("\(UTTagClass.mimeType)" == "public.mime-type")
    #expect(UTTagClass.mimeType.debugDescription == "public.mime-type")
    #expect(UTType.textBundle.referenceURL?.host == "textbundle.org")
  }

  @Test func unknownIdentifierIsNilButDynamicOnesDecode() {
    #expect(UTType("com.example.not-declared-anywhere") == nil)
    #expect(UTType("dyn.ah62d4rv4ge80e2py")?.tags[.filenameExtension] == ["bat"])
    #expect(UTType("dyn.!!!") == nil)
    #expect(UTType("NET.DARINGFIREBALL.MARKDOWN") == .markdown)
  }

  @Test func publicAndDeclaredFlags() {
    #expect(UTType.png.isPublic)
    #expect(!UTType.pdf.isPublic)
    #expect(UTType.pdf.isDeclared)
    #expect(!UTType.pdf.isDynamic)
  }

  @Test func conformanceChainIsBreadthFirst() {
    let chain = UTType.markdown.conformanceChain.map(\.identifier)
    #expect(chain.first == "public.plain-text")
    #expect(chain.firstIndex(of: "public.text")! < chain.firstIndex(of: "public.item")!)
  }
}
