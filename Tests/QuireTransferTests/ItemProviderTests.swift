import Foundation
import QuireTransfer
import QuireTypes
import Testing

@Suite("Item provider basics")
struct ItemProviderTests {
  @Test func loadsTheFirstConformingRepresentation() async throws {
    let provider = ItemProvider(suggestedName: "note")
    provider.registerDataRepresentation(for: .markdown) { Data("# md".utf8) }
    provider.registerDataRepresentation(for: .plainText) { Data("plain".utf8) }
    #expect(provider.registeredContentTypes == [.markdown, .plainText])
    #expect(try await provider.loadDataRepresentation(for: .text) == Data("# md".utf8))
    #expect(try await provider.loadDataRepresentation(for: .plainText) == Data("# md".utf8))
    #expect(provider.hasRepresentationConforming(toTypeIdentifier: .text))
    #expect(!provider.hasRepresentationConforming(toTypeIdentifier: .image))
  }

  @Test func missingTypeIsAClearError() async {
    let provider = ItemProvider(suggestedName: "note")
    provider.registerDataRepresentation(for: .plainText) { Data("x".utf8) }
    await #expect { try await provider.loadDataRepresentation(for: .png) } throws: { error in
      (error as? QuireError)?.code == .unsupportedType
    }
  }
}
