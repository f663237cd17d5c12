import Foundation
import QuireCoordination
import QuireDocuments
import QuireTestSupport
import Synchronization
import Testing

/// A document in the test process that counts what reaches it as a file presenter.
final class CountingDocument: PlainTextDocument {
  var changeNotices = 0
  override func presentedItemDidChange() async {
    changeNotices += 1
    await super.presentedItemDidChange()
  }
}

/// An open `Document` presents its file as UIDocument does: no wiring by the caller.
@Suite("Documents present their files")
@MainActor
final class PresentingDocumentTests: MainActorFolderSuite {
  init() throws { try super.init(prefix: "quire-presenting-document") }

  @Test func openingRegistersThePresenterAndClosingRemovesIt() async throws {
    let url = try folder.write("text\n", to: "a.txt")
    let document = PlainTextDocument(fileURL: url)
    document.autosavePolicy = nil
    document.recoveryStore = nil
    #expect(!FileCoordinator.filePresenters.contains { $0 === document.filePresenter })
    try await document.open()
    #expect(document.fileAccess is FileCoordinator)
    #expect(FileCoordinator.filePresenters.contains { $0 === document.filePresenter })
    #expect(document.filePresenter.presentedItemURL == document.fileURL)
    try await document.close()
    #expect(!FileCoordinator.filePresenters.contains { $0 === document.filePresenter })
  }

  @Test func anUncoordinatedChangeReloadsACleanDocument() async throws {
    let url = try folder.write("before\n", to: "b.txt")
    let document = try await openQuietly(CountingDocument(fileURL: url))
    // Another editor writes the file without coordination: inotify tells the presenter.
    try Data("after\n".utf8).write(to: url, options: .atomic)
    #expect(await eventually { document.text == "after\n" })
    #expect(document.changeNotices > 0)
    try await document.close()
  }

  @Test func aSaveInAnotherProcessReachesThisDocumentAndItsEditsBecomeAConflict() async throws {
    let url = try folder.write("base\n", to: "shared.txt")
    let mine = try await openQuietly(CountingDocument(fileURL: url))
    // A `quire-documents-test-helper open-document FILE` process: another program with the
    // same file open as a `Document`.
    let theirs = try TestHelper.start(["open-document", url.path])
    defer { theirs.finish() }
    #expect(await theirs.waitForLine(startingWith: "opened") != nil)

    // Unsaved edits here; the other process edits and saves.
    try mine.replaceText(with: "mine\n")
    theirs.send("edit theirs\\n")
    theirs.send("save")
    #expect(await theirs.waitForLine(startingWith: "saved") != nil)

    // Its save reached this document as presentedItemDidChange, and made a conflict.
    #expect(await eventually { mine.documentState.contains(.inConflict) })
    #expect(mine.changeNotices > 0)
    #expect(mine.text == "mine\n")
    #expect(mine.conflictVersion.map { String(decoding: $0.contents, as: UTF8.self) } == "theirs\n")
    let versions = NSFileVersion.unresolvedConflictVersionsOfItem(at: url) ?? []
    #expect(versions.count == 1)
    #expect(versions.first.flatMap { try? Data(contentsOf: $0.url) }.map { String(decoding: $0, as: UTF8.self) } == "theirs\n")

    // Keep this version: mark the conflict resolved, then save; the other process hears of it
    // and, having no unsaved edits, reloads.
    let seen = theirs.lines.count
    for version in versions { version.isResolved = true }
    #expect(!mine.documentState.contains(.inConflict))
    #expect(NSFileVersion.unresolvedConflictVersionsOfItem(at: url)?.isEmpty ?? true)
    try await mine.save()
    #expect(await theirs.waitForLine(startingWith: "checked text mine\\n", after: seen) != nil)
    try await mine.close()
  }
}
