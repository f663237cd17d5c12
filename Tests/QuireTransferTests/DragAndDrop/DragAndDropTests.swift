import Foundation
import QuireTestSupport
import QuireTransfer
import QuireTypes
import Testing

@Suite("Drag and drop, paste configurations, text transfer")
struct DragAndDropTests {
  func markdownItem(_ text: String = "# Title\n\n*Body*") -> ItemProvider {
    ItemProvider(object: MarkdownText(text), suggestedName: "selection")
  }
  func pngItem() -> ItemProvider {
    let provider = ItemProvider(suggestedName: "picture")
    provider.registerDataRepresentation(for: .png) { pngHeader() }
    return provider
  }

  @Test func aConfigurationPrefersExactTypesThenFidelity() {
    let item = markdownItem()
    #expect(PasteConfiguration(acceptableTypes: [.plainText]).acceptedTypeIdentifier(in: item) == "public.plain-text")
    #expect(PasteConfiguration(acceptableTypes: [.markdown, .plainText]).acceptedTypeIdentifier(in: item) == UTType.markdown.identifier)
    #expect(PasteConfiguration(acceptableTypes: [.html]).acceptedTypeIdentifier(in: item) == "public.html")
    // No exact match: the highest-fidelity conforming representation.
    #expect(PasteConfiguration(acceptableTypes: [.text]).acceptedTypeIdentifier(in: item) == UTType.markdown.identifier)
    #expect(PasteConfiguration(acceptableTypes: [.image]).acceptedTypeIdentifier(in: pngItem()) == "public.png")
    #expect(PasteConfiguration(acceptableTypes: [.image]).acceptedTypeIdentifier(in: item) == nil)
  }

  @Test func aConfigurationCanBeBuiltFromReadableClasses() {
    var configuration = PasteConfiguration(forAccepting: PNGImage.self)
    #expect(configuration.acceptableTypeIdentifiers == ["public.png"])
    configuration.append(forAccepting: String.self)
    #expect(configuration.acceptableTypeIdentifiers == ["public.png", "public.plain-text", "public.utf8-plain-text"])
    #expect(configuration.canAccept(markdownItem()))
    #expect(configuration.canAccept(pngItem()))
  }

  @Test func dropProposals() {
    let text = PasteConfiguration(acceptableTypes: [.plainText])
    let local = DropSession(localDragSession: DragSession(items: [DragItem(itemProvider: markdownItem())], localContext: "doc 1, lines 2-3"))
    #expect(local.proposal(for: text).operation == .copy)
    #expect(local.proposal(for: text, requesting: .move).operation == .move)
    #expect(local.proposal(for: text, requesting: .cancel).operation == .cancel)

    let copyOnly = DropSession(localDragSession: DragSession(items: [DragItem(itemProvider: markdownItem())], allowsMoveOperation: false))
    let downgraded = copyOnly.proposal(for: text, requesting: .move)
    #expect(downgraded.operation == .copy)
    #expect(downgraded.reason?.contains("copying only") == true)

    let foreign = DropSession(itemProviders: [markdownItem()])
    #expect(foreign.localDragSession == nil)
    #expect(foreign.proposal(for: text, requesting: .move).operation == .copy)

    let forbidden = DropSession(itemProviders: [pngItem()]).proposal(for: text)
    #expect(forbidden.operation == .forbidden)
    #expect(forbidden.reason?.contains("public.png") == true)

    #expect(DropSession(itemProviders: []).proposal(for: text).operation == .cancel)
  }

  @Test func theDragSessionKeepsItsContextAndLocalObjects() {
    let session = DragSession(
      items: [DragItem(itemProvider: markdownItem(), localObject: 2...3)], localContext: "notes.md", allowsMoveOperation: true)
    #expect(session.localContext as? String == "notes.md")
    #expect(session.items.first?.localObject as? ClosedRange<Int> == 2...3)
    #expect(session.hasItemsConforming(toTypeIdentifiers: ["public.html"]))
    #expect(!session.hasItemsConforming(toTypeIdentifiers: ["public.image"]))
    #expect(session.canLoadObjects(ofClass: String.self))
    #expect(!session.canLoadObjects(ofClass: PNGImage.self))
  }

  @Test func droppingLoadsTheBestAcceptedRepresentationOfEachItem() async throws {
    let drop = DropSession(itemProviders: [markdownItem("# One"), pngItem(), markdownItem("*two*")])
    let loaded = try await drop.loadItems(for: PasteConfiguration(acceptableTypes: [.plainText]))
    #expect(loaded.map(\.typeIdentifier) == ["public.plain-text", "public.plain-text"])
    #expect(try loaded.map { try $0.text() } == ["One", "two"])
    #expect(loaded.first?.suggestedName == "selection")
  }

  @Test func theOverallProgressCoversEveryItemAndCancelsThemAll() async throws {
    let started = Box(0)
    let stopped = Box(0)
    func slowItem() -> ItemProvider {
      let provider = ItemProvider()
      provider.registerDataRepresentation(for: .plainText) {
        started.update { $0 += 1 }
        do { try await Task.sleep(for: .seconds(20)) } catch {
          stopped.update { $0 += 1 }
          throw error
        }
        return Data()
      }
      return provider
    }
    let drop = DropSession(itemProviders: [slowItem(), slowItem(), slowItem()])
    let outcome = Box<(any Error)?>(nil)
    let progress = drop.loadItems(for: PasteConfiguration(acceptableTypes: [.plainText])) { _, error in outcome.set(error) }
    #expect(progress.totalUnitCount == 3)
    #expect(await eventually { started.current == 3 })
    progress.cancel()
    #expect(await eventually { outcome.current != nil })
    expectQuireError(.cancelled, in: outcome.current)
    #expect(await eventually { stopped.current == 3 }, "not every item's handler was stopped")
  }

  @Test func theOverallProgressCompletes() async throws {
    let drop = DropSession(itemProviders: [markdownItem(), markdownItem()])
    let progress = Box<Progress?>(nil)
    let done = Box(false)
    progress.set(drop.loadItems(for: PasteConfiguration(acceptableTypes: [.markdown])) { values, _ in done.set(values?.count == 2) })
    #expect(await eventually { done.current })
    #expect(await eventually { progress.current?.fractionCompleted == 1 })
  }

  @Test func nothingAcceptedIsAnError() async {
    await expectQuireError(.unsupportedType) {
      try await DropSession(itemProviders: [pngItem()]).loadItems(for: PasteConfiguration(acceptableTypes: [.plainText]))
    }
  }

  // MARK: Text transfer for the REPL

  @Test func linesOfAMarkdownDocumentAreOfferedInThreeRepresentations() async throws {
    let provider = TextTransfer.itemProvider(forText: "# Heading\n\n- a\n- b", documentType: .markdown, suggestedName: "notes.md 1-4")
    #expect(provider.registeredContentTypes == [.markdown, .html, .plainText])
    let plain = TextTransfer.itemProvider(forText: "just text", documentType: .plainText)
    #expect(plain.registeredContentTypes == [.plainText])
  }

  @Test func pastingMarkdownIntoAPlainTextDocumentTakesThePlainText() async throws {
    let copied = TextTransfer.itemProvider(forText: "# Heading\n\nSome **bold** text.", documentType: .markdown)
    let intoPlain = try await TextTransfer.text(toPaste: [copied], intoDocumentOfType: .plainText, documentName: "todo.txt")
    #expect(intoPlain == "Heading\n\nSome bold text.")
    let intoMarkdown = try await TextTransfer.text(toPaste: [copied], intoDocumentOfType: .markdown, documentName: "notes.md")
    #expect(intoMarkdown == "# Heading\n\nSome **bold** text.")
  }

  @Test func pastingAFileTheDocumentCannotTakeIsRefusedWithTheReason() async throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let png = folder.file("photo.png")
    try pngHeader().write(to: png)
    await expectQuireError(.unsupportedType, reasonContains: "'notes.md'", "public.png (PNG image)", "'photo'") {
      try await TextTransfer.text(toPaste: [ItemProvider(contentsOf: png)], intoDocumentOfType: .markdown, documentName: "notes.md")
    }
    await expectQuireError(.fileMissing, reasonContains: "empty") {
      try await TextTransfer.text(toPaste: [], intoDocumentOfType: .markdown, documentName: "notes.md")
    }
  }
}
