import Foundation
import QuireMarkdown
import QuireTestSupport
import QuireTransfer
import QuireTypes
import Testing

/// The README's example, run as written (with a pasteboard root of its own).
@Suite("README example")
struct DocumentationExampleTests {
  @Test func offeringASelectionAndReceivingItWithAPasteConfiguration() async throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }

    let selection = "# Plans\n\nShip the *pasteboard*."
    let provider = ItemProvider(suggestedName: "notes.md lines 1-3")
    provider.registerDataRepresentation(for: .markdown) { Data(selection.utf8) }
    provider.registerDataRepresentation(for: .html) { Data(try CommonMark.html(from: selection).utf8) }
    provider.registerDataRepresentation(for: .plainText) { Data(try MarkdownText(selection).plainText().utf8) }

    let pasteboard = try Pasteboard.general(rootFolder: folder.file("pasteboards"))
    try pasteboard.setItemProviders([provider], expirationDate: Date().addingTimeInterval(3600))

    let configuration = PasteConfiguration(acceptableTypes: [.plainText])
    let pasted = try await configuration.loadBestRepresentations(from: try pasteboard.itemProviders)
    #expect(pasted[0].typeIdentifier == "public.plain-text")
    #expect(try pasted[0].text() == "Plans\n\nShip the pasteboard.")

    let drop = DropSession(itemProviders: try pasteboard.itemProviders)
    #expect(drop.proposal(for: configuration, requesting: .move).operation == .copy)
    let dropped = try await drop.loadItems(for: configuration)
    #expect(dropped == pasted)

    try await pasteboard.materializePromises()
  }
}
