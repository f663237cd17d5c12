import Foundation
import QuireCoordination
import QuireDocuments
import QuireTestSupport
import Synchronization
import Testing

/// A document in the test process that counts what reaches it as a file presenter.
final class CountingDocument: PlainTextDocument {
  var changeNotices = 0
  override func presentedItemDidChange() {
    changeNotices += 1
    super.presentedItemDidChange()
  }
}

/// An open `Document` presents its file as UIDocument does: no wiring by the caller.
@Suite("Documents present their files")
@MainActor
final class PresentingDocumentTests: MainActorFolderSuite {
  @Test func openingRegistersThePresenterAndClosingRemovesIt() async throws {
    let url = try folder.write("text\n", to: "a.txt")
    let document = quiet(PlainTextDocument(fileURL: url))
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

  @Test func fileObserversHearEachChangeOnceWhateverFoundIt() async throws {
    let url = try folder.write("one\n", to: "observed.txt")
    let (fingerprint, contents) = try FileFingerprint.read(at: url)
    let document = quiet(PlainTextDocument(fileURL: url))
    // Opened from contents the caller read (a command loop): it presents its file too.
    try document.open(contents: contents, fingerprint: fingerprint)
    #expect(FileCoordinator.filePresenters.contains { $0 === document.filePresenter })
    var events: [Document.FileEvent] = []
    let token = document.addFileObserver { events.append($0) }
    // A change seen by inotify reloads the clean document, reported once.
    try Data("two\n".utf8).write(to: url, options: .atomic)
    #expect(await eventually { events == [.changedOnDisk(.reloaded)] })
    #expect(try await document.checkForChangesOnDisk() == .unchanged)
    // With unsaved edits: one conflict, however often it is checked.
    try document.replaceText(with: "mine\n")
    try Data("three\n".utf8).write(to: url, options: .atomic)
    #expect(await eventually { events.count == 2 })
    #expect(try await document.checkForChangesOnDisk() == .conflict)
    #expect(events == [.changedOnDisk(.reloaded), .changedOnDisk(.conflict)])
    // Gone: reported once.
    try FileManager.default.removeItem(at: url)
    #expect(try await document.checkForChangesOnDisk() == .deleted)
    #expect(try await document.checkForChangesOnDisk() == .deleted)
    #expect(events.filter { $0 == .changedOnDisk(.deleted) }.count == 1)
    // A move reported by the presenter: the document follows it, and says so.
    let moved = folder.file("moved.txt")
    document.presentedItemDidMove(to: moved)
    #expect(document.fileURL == moved.standardizedFileURL)
    #expect(events.last == .moved(from: url.standardizedFileURL, to: moved.standardizedFileURL))
    token.cancel()
    try await document.close(discardingChanges: true)
  }

  @Test func aDocumentSavesWhenAnotherProcessAsksOnlyIfItSaysSo() async throws {
    let url = try folder.write("saved\n", to: "asked.txt")
    let document = try await openQuietly(PlainTextDocument(fileURL: url))
    try document.replaceText(with: "shown\n")
    // As UIDocument: not autosaving in place, the other process reads the saved version.
    try await document.savePresentedItemChanges()
    #expect(try String(contentsOf: url, encoding: .utf8) == "saved\n")
    document.savesWhenOtherProcessesAsk = true
    try await document.savePresentedItemChanges()
    #expect(try String(contentsOf: url, encoding: .utf8) == "shown\n")
    #expect(!document.hasUnsavedChanges)
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
