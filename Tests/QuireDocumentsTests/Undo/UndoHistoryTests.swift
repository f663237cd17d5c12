import Foundation
import QuireDocuments
import QuireTestSupport
import Testing

/// Issue 31: undo history that outlives the document, and another program's change as one
/// undo step on top of it.
@Suite("Stored undo history")
@MainActor
final class UndoHistoryTests: MainActorFolderSuite {
  var storeRoot: URL { folder.file("state/quire/undo") }
  var store: UndoHistoryStore { UndoHistoryStore(root: storeRoot) }

  /// A closed text document for `name` that keeps its history in the test's store.
  func document(_ name: String = "notes.txt", store: UndoHistoryStore? = nil) -> PlainTextDocument {
    let document = PlainTextDocument(fileURL: folder.file(name))
    document.autosavePolicy = nil
    document.recoveryStore = nil
    document.registersAsFilePresenter = false
    document.persistsUndoHistory = true
    document.undoHistoryStore = store ?? self.store
    return document
  }

  /// Opens `name`, lets `edit` change it, saves and closes it.
  func editAndSave(_ name: String = "notes.txt", _ edit: (PlainTextDocument) throws -> Void) async throws {
    let document = document(name)
    try await document.open()
    try edit(document)
    try await document.save()
    try await document.close()
  }

  var historyFiles: [String] { names(in: storeRoot).filter { $0.hasSuffix(".undo") } }

  @Test func aSavedEditIsUndoneInTheNextSession() async throws {
    let url = try folder.write("one\ntwo\n", to: "notes.txt")
    try await editAndSave { try $0.insertLines(["three"], at: 2) }
    #expect(try String(contentsOf: url, encoding: .utf8) == "one\ntwo\nthree\n")

    let reopened = document()
    try await reopened.open()
    #expect(reopened.undoHistoryRestoration == .restored(undoSteps: 1, redoSteps: 0, changedOnDisk: false))
    #expect(!reopened.hasUnsavedChanges)
    reopened.undoManager.undo()
    #expect(reopened.text == "one\ntwo\n")
    #expect(reopened.hasUnsavedChanges)
    try await reopened.save()
    #expect(try String(contentsOf: url, encoding: .utf8) == "one\ntwo\n")
    // The undone step is kept as a redo step across the next restart.
    try await reopened.close()
    let third = document()
    try await third.open()
    #expect(third.undoHistoryRestoration == .restored(undoSteps: 0, redoSteps: 1, changedOnDisk: false))
    third.undoManager.redo()
    #expect(third.text == "one\ntwo\nthree\n")
  }

  @Test func anOutsideChangeIsOneStepOnTopOfTheHistory() async throws {
    let url = try folder.write("one\ntwo\n", to: "notes.txt")
    try await editAndSave { try $0.replaceLines(in: 0..<1, with: ["ONE"]) }
    try await editAndSave { try $0.insertLines(["three"], at: 2) }
    // Another program appends to the file.
    try Data("ONE\ntwo\nthree\nfrom elsewhere\n".utf8).write(to: url)

    let document = document()
    try await document.open()
    #expect(document.undoHistoryRestoration == .restored(undoSteps: 3, redoSteps: 0, changedOnDisk: true))
    #expect(document.undoManager.undoActionName == Document.changedOnDiskActionName)
    document.undoManager.undo()
    #expect(document.text == "ONE\ntwo\nthree\n", "the first undo returns to what Quire last saved")
    document.undoManager.undo()
    #expect(document.text == "ONE\ntwo\n", "the next undo continues into the old history")
    document.undoManager.undo()
    #expect(document.text == "one\ntwo\n")
    #expect(!document.undoManager.canUndo)
    document.undoManager.redo()
    document.undoManager.redo()
    document.undoManager.redo()
    #expect(document.text == "ONE\ntwo\nthree\nfrom elsewhere\n", "redo comes back to what is on disk")
    #expect(!document.hasUnsavedChanges)
  }

  @Test func anUneditedDocumentThatReloadsKeepsItsHistoryUnderAChangedOnDiskStep() async throws {
    let url = try folder.write("one\n", to: "notes.txt")
    let document = document()
    try await document.open()
    try document.insertLines(["two"], at: 1)
    try await document.save()
    try Data("one\ntwo\nthree\n".utf8).write(to: url)
    #expect(try await document.checkForChangesOnDisk() == .reloaded)
    #expect(document.text == "one\ntwo\nthree\n")
    #expect(document.undoManager.undoActionName == Document.changedOnDiskActionName)
    document.undoManager.undo()
    #expect(document.text == "one\ntwo\n")
    document.undoManager.undo()
    #expect(document.text == "one\n")
  }

  @Test func wholeTextEditsAndCharactersCutByTheDifferenceRoundTrip() async throws {
    let url = try folder.write("caf\u{E9} au lait\nna\u{EF}ve\n", to: "notes.txt")
    try await editAndSave { document in
      // One whole-text edit (as ed's g or ,s make), changing é to è: the bytes differ in
      // their second byte only.
      try document.editLines { editor in try editor.replaceLine(0, withBytes: Array("caf\u{E8} au lait".utf8)) }
      try document.replaceText(with: "caf\u{E8} au lait\nna\u{EF}ve\n\u{1F600}\n")
    }
    let document = document()
    try await document.open()
    #expect(document.undoManager.undoCount == 2)
    document.undoManager.undo()
    #expect(document.text == "caf\u{E8} au lait\nna\u{EF}ve\n")
    document.undoManager.undo()
    #expect(document.text == "caf\u{E9} au lait\nna\u{EF}ve\n")
    try await document.save()
    #expect(try String(contentsOf: url, encoding: .utf8) == "caf\u{E9} au lait\nna\u{EF}ve\n")
  }

  @Test func removeAllActionsForgetsTheStoredHistory() async throws {
    _ = try folder.write("one\n", to: "notes.txt")
    try await editAndSave { try $0.insertLines(["two"], at: 1) }
    #expect(historyFiles.count == 1)
    let document = document()
    try await document.open()
    #expect(document.undoManager.canUndo)
    document.undoManager.removeAllActions()
    #expect(historyFiles.isEmpty)
    try await document.close()
    let again = self.document()
    try await again.open()
    #expect(again.undoHistoryRestoration == .none)
    #expect(!again.undoManager.canUndo)
  }

  @Test func aDocumentKeepsNoHistoryUnlessAsked() async throws {
    let url = try folder.write("one\n", to: "notes.txt")
    let document = PlainTextDocument(fileURL: url)
    document.autosavePolicy = nil
    document.recoveryStore = nil
    document.undoHistoryStore = store
    try await document.open()
    try document.insertLines(["two"], at: 1)
    try await document.save()
    #expect(!FileManager.default.fileExists(atPath: storeRoot.path))
  }

  @Test func aRenamedFileKeepsItsHistory() async throws {
    _ = try folder.write("one\n", to: "notes.txt")
    try await editAndSave { try $0.insertLines(["two"], at: 1) }
    // A rename keeps the inode (mv, or a rename the recent documents followed).
    try FileManager.default.moveItem(at: folder.file("notes.txt"), to: folder.file("renamed.txt"))
    let document = document("renamed.txt")
    try await document.open()
    #expect(document.undoHistoryRestoration == .restored(undoSteps: 1, redoSteps: 0, changedOnDisk: false))
    document.undoManager.undo()
    #expect(document.text == "one\n")
  }

  @Test func theStoreIsPrivate() async throws {
    _ = try folder.write("one\n", to: "notes.txt")
    try await editAndSave { try $0.insertLines(["two"], at: 1) }
    #expect(mode(storeRoot).mode == 0o700)
    #expect(mode(storeRoot.deletingLastPathComponent()).mode == 0o700)
    let file = try #require(historyFiles.first)
    #expect(mode(storeRoot.appendingPathComponent(file)).mode == 0o600)
  }

  @Test func aHistoryOverItsLimitKeepsItsNewestSteps() async throws {
    _ = try folder.write("", to: "notes.txt")
    let small = UndoHistoryStore(root: storeRoot, limits: .init(maximumBytesPerDocument: 2048))
    let document = document(store: small)
    try await document.open()
    for index in 0..<200 { try document.insertLines(["line \(index) of some length"], at: index) }
    try await document.save()
    try await document.close()
    let stored = try #require(historyFiles.first)
    #expect(try Data(contentsOf: storeRoot.appendingPathComponent(stored)).count <= 2048)

    let reopened = self.document(store: small)
    try await reopened.open()
    guard case .restored(let steps, _, _) = reopened.undoHistoryRestoration else {
      Issue.record("no history came back: \(reopened.undoHistoryRestoration)")
      return
    }
    #expect(steps > 5 && steps < 200)
    for _ in 0..<steps { reopened.undoManager.undo() }
    #expect(reopened.lineCount == 200 - steps, "the oldest steps were dropped; the newest undo to the text they started from")
    #expect(reopened.line(at: 0) == "line 0 of some length")
  }

  @Test func theStoreDropsTheLeastRecentlyWrittenHistoriesBeyondItsTotal() async throws {
    let limited = UndoHistoryStore(root: storeRoot, limits: .init(maximumBytesPerDocument: 8192, maximumTotalBytes: 6000))
    for name in ["a.txt", "b.txt", "c.txt"] {
      _ = try folder.write("one\n", to: name)
      let document = document(name, store: limited)
      try await document.open()
      try document.insertLines([String(repeating: "x", count: 2500)], at: 1)
      try await document.save()
      try await document.close()
    }
    #expect(historyFiles.count == 2)
    let first = document("a.txt", store: limited)
    try await first.open()
    #expect(first.undoHistoryRestoration == .none, "the oldest history went first")
    let last = document("c.txt", store: limited)
    try await last.open()
    #expect(last.undoManager.canUndo)
  }

  /// What a stored history can be that is not one to use.
  enum BadHistory: String, CaseIterable, Sendable {
    case truncated, randomBytes, newerFormat, symbolicLink, fifo, empty, huge
  }

  @Test(arguments: BadHistory.allCases)
  func aBadHistoryIsSetAsideWithOneWarning(_ bad: BadHistory) async throws {
    let url = try folder.write("one\n", to: "notes.txt")
    try await editAndSave { try $0.insertLines(["two"], at: 1) }
    let name = try #require(historyFiles.first)
    let history = storeRoot.appendingPathComponent(name)
    let good = try Data(contentsOf: history)
    try FileManager.default.removeItem(at: history)
    switch bad {
    case .truncated: try good.prefix(good.count / 2).write(to: history)
    case .randomBytes: try Data((0..<good.count).map { _ in UInt8.random(in: 0...255) }).write(to: history)
    case .newerFormat:
      var newer = good
      newer[8] = 99
      try newer.write(to: history)
    case .symbolicLink:
      let target = try folder.write("QUIRUNDO", to: "elsewhere")
      try FileManager.default.createSymbolicLink(at: history, withDestinationURL: target)
    case .fifo: #expect(mkfifo(history.path, 0o600) == 0)
    case .empty: try Data().write(to: history)
    case .huge: try Data(count: 20 << 20).write(to: history)
    }
    try await expectSetAside(bad.rawValue, url: url)
    if bad == .symbolicLink { #expect(try String(contentsOf: folder.file("elsewhere"), encoding: .utf8) == "QUIRUNDO") }
  }

  @Test(.enabled(if: isRunningAsRoot, "only root can give a file to another user"))
  func anotherUsersHistoryIsSetAsideWithOneWarning() async throws {
    let url = try folder.write("one\n", to: "notes.txt")
    try await editAndSave { try $0.insertLines(["two"], at: 1) }
    let name = try #require(historyFiles.first)
    #expect(chown(storeRoot.appendingPathComponent(name).path, 1, 1) == 0)
    try await expectSetAside("another user's", url: url)
  }

  /// Opens the document, expecting its stored history set aside with a one-line warning, then
  /// edits and saves it and expects a fresh history in the next session.
  func expectSetAside(_ what: String, url: URL, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    let document = document()
    try await document.open()
    guard case .setAside(let warning) = document.undoHistoryRestoration else {
      Issue.record("the \(what) history was not set aside: \(document.undoHistoryRestoration)", sourceLocation: sourceLocation)
      return
    }
    #expect(!warning.contains("\n"))
    #expect(warning.contains("notes.txt"))
    #expect(!document.undoManager.canUndo)
    #expect(document.text == "one\ntwo\n")
    // Editing goes on, and the next save stores a fresh history.
    try document.insertLines(["three"], at: 2)
    try await document.save()
    #expect(try String(contentsOf: url, encoding: .utf8) == "one\ntwo\nthree\n")
    try await document.close()
    let again = self.document()
    try await again.open()
    #expect(again.undoHistoryRestoration == .restored(undoSteps: 1, redoSteps: 0, changedOnDisk: false), sourceLocation: sourceLocation)
  }

  @Test func aSymbolicLinkInPlaceOfTheStoreFolderIsRefusedWithAWarning() async throws {
    _ = try folder.write("one\n", to: "notes.txt")
    let elsewhere = try folder.privateFolder("elsewhere")
    try FileManager.default.createDirectory(at: storeRoot.deletingLastPathComponent(), withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(at: storeRoot, withDestinationURL: elsewhere)
    let document = document()
    try await document.open()
    guard case .setAside(let warning) = document.undoHistoryRestoration else {
      Issue.record("no warning: \(document.undoHistoryRestoration)")
      return
    }
    #expect(warning.contains("symbolic link"))
    try document.insertLines(["two"], at: 1)
    try await document.save()
    #expect(document.lastUndoHistoryError != nil)
    #expect(names(in: elsewhere).isEmpty)
  }

  @Test func theStoredFormatRoundTripsAndRefusesDamage() throws {
    let steps = [
      StoredUndoStep(actionName: "edit", records: [UndoRecord(kind: "text.replace", payload: [1, 2, 3])]),
      StoredUndoStep(actionName: "", records: []),
    ]
    let history = StoredUndoHistory(path: "/x/y.txt", device: 7, inode: 9, endState: Array("text\n".utf8), undo: steps, redo: [steps[0]])
    let bytes = history.encoded()
    #expect(try StoredUndoHistory.decode(bytes) == history)
    for cut in [0, 1, 8, 12, bytes.count / 2, bytes.count - 1] {
      #expect(throws: StoredUndoHistory.Problem.self) { try StoredUndoHistory.decode(Array(bytes.prefix(cut))) }
    }
    var flipped = bytes
    flipped[20] ^= 0xFF
    #expect(throws: StoredUndoHistory.Problem.damaged) { try StoredUndoHistory.decode(flipped) }
  }
}
