import Foundation
import QuireDocuments
import QuireTestSupport
import QuireTypes
import Testing

/// The README's library example, run against a temporary folder.
@Suite("README example")
@MainActor
final class ReadmeExampleTests: MainActorFolderSuite {

  @Test func theExampleWorks() async throws {
    let controller = DocumentController(
      stateFolder: folder.file("state/quire"), templatesFolder: DocumentControllerTests.templates)
    controller.autosavePolicy = nil
    let document = try await controller.makeDocument(fromTemplate: "meeting-notes.md", at: folder.file("monday.md"))
    let notes = try #require(document as? MarkdownDocument)
    #expect(notes.recoveredVersion == nil)
    try notes.undoManager.groupUndo(named: "Add Attendee") {
      try notes.insertLines(["- Ada"], at: 2)
    }
    #expect(notes.line(at: 2) == "- Ada")
    #expect(try !notes.outline().headings.isEmpty)
    #expect(try notes.wordCount() > 0)
    try await notes.save()
    #expect(!notes.hasUnsavedChanges)
    notes.undoManager.undo()
    #expect(notes.hasUnsavedChanges)
    let report = await controller.closeAllDocuments()
    #expect(report.unsaved.map(\.fileURL.lastPathComponent) == ["monday.md"])
  }
}
