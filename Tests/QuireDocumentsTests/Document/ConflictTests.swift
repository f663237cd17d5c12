import Foundation
import QuireDocuments
import QuireTestSupport
import QuireTypes
import Testing

/// Acceptance 3: changes on disk reload a clean document and put a dirty one in conflict;
/// each resolution does what it says.
@Suite("Changes on disk")
@MainActor
final class ConflictTests: MainActorFolderSuite {

  /// Another program replaces the file (write beside, rename over), as editors do.
  func writeExternally(_ text: String, to url: URL) throws {
    let temp = folder.file(".external-\(UUID().uuidString)")
    try Data(text.utf8).write(to: temp)
    rename(temp.path, url.path)
  }

  @Test func aCleanDocumentReloads() async throws {
    let document = try await openTextDocument("mine\n", in: folder)
    try writeExternally("theirs\n", to: document.fileURL)
    #expect(try await document.checkForChangesOnDisk() == .reloaded)
    #expect(document.text == "theirs\n")
    #expect(!document.hasUnsavedChanges)
    #expect(document.documentState == .normal)
  }

  @Test func aPresenterNotificationReloadsToo() async throws {
    let document = try await openTextDocument("mine\n", in: folder)
    try writeExternally("theirs\n", to: document.fileURL)
    document.presentedItemDidChange()
    #expect(await eventually { document.text == "theirs\n" })
  }

  @Test func aTouchOrAnIdenticalRewriteIsNoChange() async throws {
    let document = try await openTextDocument("same\n", in: folder)
    try document.insertLines(["dirty"], at: 0)
    var times = [timespec(tv_sec: 2_000_000_000, tv_nsec: 0), timespec(tv_sec: 2_000_000_000, tv_nsec: 0)]
    utimensat(AT_FDCWD, document.fileURL.path, &times, 0)
    #expect(try await document.checkForChangesOnDisk() == .unchanged)
    try writeExternally("same\n", to: document.fileURL)  // new inode, same bytes
    #expect(try await document.checkForChangesOnDisk() == .unchanged)
    #expect(document.documentState == .normal)
    try await document.save()
    #expect(bytes(document.fileURL) == Array("dirty\nsame\n".utf8))
  }

  @Test func aDirtyDocumentGoesInConflictAndRefusesToSave() async throws {
    let document = try await openTextDocument("base\n", in: folder)
    var states: [Document.State] = []
    let token = document.addStateObserver { states.append($0) }
    try document.replaceText(with: "mine\n")
    try writeExternally("theirs\n", to: document.fileURL)
    await expectQuireError(.fileChangedOnDisk) { try await document.save() }
    #expect(document.documentState.contains(.inConflict))
    #expect(states == [.inConflict])
    #expect(bytes(document.fileURL) == Array("theirs\n".utf8))
    #expect(document.text == "mine\n")
    #expect(document.conflictVersion?.contents == Data("theirs\n".utf8))
    token.cancel()
  }

  func conflicted(base: String = "base\n", mine: String = "mine\n", theirs: String = "theirs\n") async throws -> PlainTextDocument {
    let document = try await openTextDocument(base, in: folder)
    try document.replaceText(with: mine)
    try writeExternally(theirs, to: document.fileURL)
    #expect(try await document.checkForChangesOnDisk() == .conflict)
    return document
  }

  @Test func keepMineOverwritesOnTheNextSave() async throws {
    let document = try await conflicted()
    try await document.resolveConflict(.keepMine)
    #expect(document.documentState == .normal)
    #expect(document.hasUnsavedChanges)
    try await document.save()
    #expect(bytes(document.fileURL) == Array("mine\n".utf8))
  }

  @Test func takeTheirsDropsTheEdits() async throws {
    let document = try await conflicted()
    try await document.resolveConflict(.takeTheirs)
    #expect(document.text == "theirs\n")
    #expect(!document.hasUnsavedChanges)
    #expect(!document.undoManager.canUndo)
    #expect(document.documentState == .normal)
  }

  @Test func keepBothSavesTheirVersionBeside() async throws {
    let document = try await conflicted()
    let outcome = try await document.resolveConflict(.keepBoth)
    let copy = try #require(outcome.copyURL)
    #expect(copy.lastPathComponent.hasPrefix("notes (conflicted copy "))
    #expect(copy.lastPathComponent.hasSuffix(").txt"))
    #expect(bytes(copy) == Array("theirs\n".utf8))
    #expect(document.text == "mine\n")
    try await document.save()
    #expect(bytes(document.fileURL) == Array("mine\n".utf8))
    // A second conflict the same day gets a numbered name, never overwriting the first copy.
    try document.replaceText(with: "mine again\n")
    try writeExternally("theirs again\n", to: document.fileURL)
    _ = try await document.checkForChangesOnDisk()
    let second = try #require(try await document.resolveConflict(.keepBoth).copyURL)
    #expect(second != copy)
    #expect(bytes(copy) == Array("theirs\n".utf8))
    #expect(bytes(second) == Array("theirs again\n".utf8))
  }

  @Test func mergeCombinesEditsThatDoNotOverlap() async throws {
    let base = "one\ntwo\nthree\nfour\nfive\n"
    let document = try await conflicted(
      base: base, mine: "ONE\ntwo\nthree\nfour\nfive\n", theirs: "one\ntwo\nthree\nfour\nFIVE\n")
    let outcome = try await document.resolveConflict(.merge)
    #expect(outcome.mergeConflicts == 0)
    #expect(document.text == "ONE\ntwo\nthree\nfour\nFIVE\n")
    #expect(document.documentState == .normal)
    #expect(document.hasUnsavedChanges)
    try await document.save()
    #expect(bytes(document.fileURL) == Array("ONE\ntwo\nthree\nfour\nFIVE\n".utf8))
  }

  @Test func mergeMarksOnlyTheEditsThatOverlap() async throws {
    let base = "one\ntwo\nthree\nfour\nfive\nsix\nseven\n"
    let document = try await conflicted(
      base: base, mine: "ONE\ntwo\nmy three\nfour\nfive\nsix\nseven\n",
      theirs: "one\ntwo\ntheir three\nfour\nfive\nsix\nSEVEN\n")
    let outcome = try await document.resolveConflict(.merge)
    #expect(outcome.mergeConflicts == 1)
    #expect(
      document.text == """
        ONE
        two
        <<<<<<< mine
        my three
        =======
        their three
        >>>>>>> theirs (on disk)
        four
        five
        six
        SEVEN

        """)
    // The merge is one undoable change back to mine.
    document.undoManager.undo()
    #expect(document.text == "ONE\ntwo\nmy three\nfour\nfive\nsix\nseven\n")
  }

  @Test func mergeUsesTheLastSavedVersionAsBase() async throws {
    let document = try await openTextDocument("a\nb\nc\n", in: folder)
    try document.replaceText(with: "a\nB\nc\n")
    try await document.save()
    try document.replaceText(with: "A\nB\nc\n")
    try writeExternally("a\nB\nC\n", to: document.fileURL)
    _ = try await document.checkForChangesOnDisk()
    #expect(try await document.resolveConflict(.merge).mergeConflicts == 0)
    #expect(document.text == "A\nB\nC\n")
  }

  @Test func mergeUnlessOverlappingMergesEditsApart() async throws {
    let document = try await conflicted(
      base: "one\ntwo\nthree\nfour\nfive\n", mine: "ONE\ntwo\nthree\nfour\nfive\n", theirs: "one\ntwo\nthree\nfour\nFIVE\n")
    #expect(try await document.resolveConflict(.mergeUnlessOverlapping).mergeConflicts == 0)
    #expect(document.text == "ONE\ntwo\nthree\nfour\nFIVE\n")
    #expect(document.documentState == .normal)
    try await document.save()
    #expect(bytes(document.fileURL) == Array("ONE\ntwo\nthree\nfour\nFIVE\n".utf8))
  }

  @Test func mergeUnlessOverlappingLeavesOverlapsAndTheConflictAlone() async throws {
    let document = try await conflicted(base: "a\nb\nc\n", mine: "a\nmine\nc\n", theirs: "a\ntheirs\nc\n")
    #expect(try await document.resolveConflict(.mergeUnlessOverlapping).mergeConflicts == 1)
    #expect(document.text == "a\nmine\nc\n", "nothing merged")
    #expect(document.documentState.contains(.inConflict), "the conflict stays for another resolution")
    await #expect(throws: QuireError.self) { try await document.save() }
    #expect(bytes(document.fileURL) == Array("a\ntheirs\nc\n".utf8))
    try await document.resolveConflict(.keepMine)
    try await document.save()
    #expect(bytes(document.fileURL) == Array("a\nmine\nc\n".utf8))
  }

  @Test func aFingerprintSetByTheCallerIsTheDocumentsOwnWrite() async throws {
    // As NSDocument's callers set fileModificationDate after writing the file themselves.
    let document = try await openTextDocument("a\nb\n", in: folder)
    try document.replaceText(with: "a\nb\nc\n")
    document.fileFingerprint = try FileSaver.write(Data("a\n".utf8), to: document.fileURL).fingerprint
    #expect(try await document.checkForChangesOnDisk() == .unchanged)
    try await document.save()
    #expect(bytes(document.fileURL) == Array("a\nb\nc\n".utf8))
  }

  @Test func revertToContentsReadByTheCallerDropsEditsAndKnowsTheFile() async throws {
    let document = try await openTextDocument("old\n", in: folder)
    try document.replaceText(with: "edited\n")
    try writeExternally("new\n", to: document.fileURL)
    let (fingerprint, data) = try FileFingerprint.read(at: document.fileURL)
    try document.revert(toContents: data, fingerprint: fingerprint)
    #expect(document.text == "new\n")
    #expect(!document.hasUnsavedChanges)
    #expect(!document.undoManager.canUndo)
    #expect(try await document.checkForChangesOnDisk() == .unchanged)
    // The merge base is what was read: an edit and another change on disk merge against it.
    try document.replaceText(with: "new\nmine\n")
    try writeExternally("theirs\nnew\n", to: document.fileURL)
    #expect(try await document.checkForChangesOnDisk() == .conflict)
    #expect(try await document.resolveConflict(.merge).mergeConflicts == 0)
    #expect(document.text == "theirs\nnew\nmine\n")
  }

  @Test func revertingUndoablyTakesTheFileAndUndoBringsTheEditsBack() async throws {
    // The checks below are the test's own: no presenter notice runs one meanwhile.
    let document = try await openQuietly(PlainTextDocument(fileURL: try folder.write("one\n", to: "notes.txt"))) {
      $0.registersAsFilePresenter = false
    }
    try document.replaceText(with: "mine\n")
    // Not in conflict: the file is read now (it did not change).
    try await document.revertUndoably()
    #expect(document.text == "one\n")
    #expect(!document.hasUnsavedChanges)
    #expect(document.undoManager.undoActionName == "Revert")
    document.undoManager.undo()
    #expect(document.text == "mine\n")
    #expect(document.hasUnsavedChanges)
    // In conflict: the other version is taken, the conflict settled, and it is the merge base.
    try writeExternally("theirs\n", to: document.fileURL)
    #expect(try await document.checkForChangesOnDisk() == .conflict)
    try await document.revertUndoably(named: "revert")
    #expect(document.text == "theirs\n")
    #expect(document.documentState == .normal)
    #expect(document.mergeBase.string == "theirs\n")
    document.undoManager.undo()
    #expect(document.text == "mine\n")
    try await document.save()
    #expect(try String(contentsOf: document.fileURL, encoding: .utf8) == "mine\n")
    // A file that is gone: an error, and nothing changes.
    try FileManager.default.removeItem(at: document.fileURL)
    await #expect(throws: QuireError.self) { try await document.revertUndoably() }
    #expect(document.text == "mine\n")
  }

  @Test func resolvingWithoutAConflictIsAnError() async throws {
    let document = try await openTextDocument("a\n", in: folder)
    await #expect(throws: QuireError.self) { try await document.resolveConflict(.keepMine) }
  }

  @Test func aDeletedFileKeepsTheContentsAsUnsaved() async throws {
    let document = try await openTextDocument("a\n", in: folder)
    try FileManager.default.removeItem(at: document.fileURL)
    #expect(try await document.checkForChangesOnDisk() == .deleted)
    #expect(document.hasUnsavedChanges)
    try await document.save()
    #expect(bytes(document.fileURL) == Array("a\n".utf8))
  }
}
