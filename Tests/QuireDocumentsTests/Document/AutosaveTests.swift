import Foundation
import QuireDocuments
import QuireTestSupport
import QuireTypes
import Testing

@Suite("Autosave and recovery")
@MainActor
final class AutosaveTests: MainActorFolderSuite {

  var store: RecoveryStore { RecoveryStore(folder: folder.file("state/quire/recovery")) }

  /// A crash after an autosave: `first` holds "saved\n", has `typed` autosaved to the recovery
  /// store and is never closed; `second` is a new document opened on the same file afterwards.
  func crashAndReopen(typed: String) async throws -> (first: PlainTextDocument, second: PlainTextDocument) {
    let first = try await openAutosaving("saved\n")
    try first.replaceText(with: typed)
    try await first.autosave()
    let second = try await openQuietly(PlainTextDocument(fileURL: first.fileURL)) { $0.recoveryStore = store }
    return (first, second)
  }

  /// A text document on `text`, open, autosaving into ``store`` by `policy` (`nil`: only when
  /// the test calls `autosave()`).
  func openAutosaving(_ text: String, policy: Document.AutosavePolicy? = nil) async throws -> PlainTextDocument {
    let document = try await openTextDocument(text, in: folder)
    document.recoveryStore = store
    document.autosavePolicy = policy
    return document
  }

  @Test func idleAutosaveWritesARecoveryFileNotTheUsersFile() async throws {
    let document = try await openAutosaving("saved\n", policy: .init(idleDelay: .milliseconds(30), maximumInterval: .seconds(60)))
    try document.replaceText(with: "unsaved\n")
    #expect(await eventually { !document.hasUnautosavedChanges })
    #expect(bytes(document.fileURL) == Array("saved\n".utf8))
    let recovered = try #require(store.recoveredVersion(for: document.fileURL))
    #expect(bytes(recovered.url) == Array("unsaved\n".utf8))
    #expect(mode(recovered.url).mode == 0o600)
    #expect(mode(store.folder).mode == 0o700)
    #expect(document.hasUnsavedChanges)
  }

  @Test func undoingBackToTheSavedStateRemovesTheRecoveryFile() async throws {
    let document = try await openAutosaving("saved\n", policy: .init(idleDelay: .milliseconds(30), maximumInterval: .seconds(60)))
    try document.replaceText(with: "unsaved\n")
    try await document.autosave()
    #expect(store.recoveredVersion(for: document.fileURL) != nil)
    document.undoManager.undo()
    #expect(!document.hasUnsavedChanges)
    // The timer's autosave finds the document back at its saved state. (The explicit autosave
    // above and the timer's, started by the edit, once overlapped: the earlier write landed
    // after the later removal and the recovery file stayed. Autosaves now run one at a time.)
    #expect(await eventually { store.recoveredVersion(for: document.fileURL) == nil })
    #expect(!document.hasUnautosavedChanges)
    #expect(bytes(document.fileURL) == Array("saved\n".utf8))
  }

  @Test func anAutosaveStartedDuringAnotherWaitsForItsWrite() async throws {
    let document = try await openAutosaving("saved\n")
    try document.replaceText(with: "unsaved\n")
    // The first autosave takes its snapshot and waits for its write; meanwhile the edit is
    // undone and a second autosave finds the document back at its saved state.
    let first = Task { try await document.autosave() }
    await Task.yield()
    document.undoManager.undo()
    try await document.autosave()
    try await first.value
    #expect(store.recoveredVersion(for: document.fileURL) == nil, "the first autosave's write landed after the second removed the file")
    #expect(!document.hasUnautosavedChanges)
  }

  @Test func theTimerKeepsWorkingAfterAnExplicitAutosave() async throws {
    let document = try await openAutosaving("saved\n", policy: .init(idleDelay: .milliseconds(30), maximumInterval: .seconds(60)))
    try document.replaceText(with: "first\n")
    try await document.autosave()
    #expect(!document.hasUnautosavedChanges)
    try await Task.sleep(for: .milliseconds(60))  // the timer fires and finds nothing to do
    try document.replaceText(with: "second\n")
    #expect(await eventually { !document.hasUnautosavedChanges })
    let recovered = try #require(store.recoveredVersion(for: document.fileURL))
    #expect(bytes(recovered.url) == Array("second\n".utf8))
  }

  @Test func theMaximumIntervalAutosavesDuringContinuousTyping() async throws {
    // Typing every few milliseconds never leaves the document idle for the minute the idle
    // delay asks, so only the maximum interval can autosave it.
    let document = try await openAutosaving("", policy: .init(idleDelay: .seconds(60), maximumInterval: .milliseconds(100)))
    var typed = 0
    let autosaved = try await eventually(every: .milliseconds(10)) {
      try document.replaceText(with: String(repeating: "x", count: typed))
      typed += 1
      return store.recoveredVersion(for: document.fileURL) != nil
    }
    #expect(autosaved, "typing for \(typed) keystrokes never autosaved")
  }

  @Test func reopeningAfterACrashOffersTheRecoveredVersion() async throws {
    let (first, second) = try await crashAndReopen(typed: "recover me\n")
    #expect(second.text == "saved\n")
    let offer = try #require(second.recoveredVersion)
    #expect(offer.documentURL == first.fileURL)
    try second.restoreRecoveredVersion()
    #expect(second.text == "recover me\n")
    #expect(second.hasUnsavedChanges)
    try await second.save()
    #expect(store.recoveredVersion(for: first.fileURL) == nil)
    #expect(bytes(first.fileURL) == Array("recover me\n".utf8))
  }

  @Test func aRecoveredVersionRestoredAsAChangeIsUndoable() async throws {
    let (_, second) = try await crashAndReopen(typed: "recover me\n")
    let offer = try #require(second.recoveredVersion)
    #expect(try offer.contents() == Data("recover me\n".utf8))
    try second.restoreRecoveredVersion(asChangeNamed: "recover")
    #expect(second.text == "recover me\n")
    #expect(second.recoveredVersion == nil)
    #expect(second.hasUnsavedChanges)
    #expect(second.undoManager.undoActionName == "recover")
    second.undoManager.undo()
    #expect(second.text == "saved\n")
    #expect(!second.hasUnsavedChanges)
    second.undoManager.redo()
    #expect(second.text == "recover me\n")
    // A recovery file that went away: a clear error naming it.
    try FileManager.default.removeItem(at: offer.url)
    #expect(throws: QuireError.self) { try offer.contents() }
  }

  @Test func anAutosaveLeavesACrashsVersionWaitingForADecision() async throws {
    let (_, second) = try await crashAndReopen(typed: "recover me\n")
    let offer = try #require(second.recoveredVersion)
    try second.replaceText(with: "typed before deciding\n")
    try await second.autosave()
    #expect(try Data(contentsOf: offer.url) == Data("recover me\n".utf8), "the crash's version is still there to choose")
    second.discardRecoveredVersion()
    try await second.autosave()
    let autosaved = try #require(store.recoveredVersion(for: second.fileURL))
    #expect(try Data(contentsOf: autosaved.url) == Data("typed before deciding\n".utf8), "once decided, the edits are autosaved")
  }

  @Test func discardingTheRecoveredVersionRemovesIt() async throws {
    let (first, second) = try await crashAndReopen(typed: "never mind\n")
    second.discardRecoveredVersion()
    #expect(store.recoveredVersion(for: first.fileURL) == nil)
    #expect(names(in: store.folder).isEmpty)
  }

  @Test func autosaveInPlaceWritesTheFile() async throws {
    let document = try await openAutosaving("old\n")
    document.autosavesInPlace = true
    document.autosavePolicy = .init(idleDelay: .milliseconds(20), maximumInterval: .seconds(60))
    try document.replaceText(with: "new\n")
    #expect(await eventually { !document.hasUnsavedChanges })
    #expect(bytes(document.fileURL) == Array("new\n".utf8))
    #expect(store.recoveredVersion(for: document.fileURL) == nil)
  }

  @Test func aStateFolderThatIsASymlinkIsRefused() async throws {
    let elsewhere = folder.file("elsewhere")
    try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
    try FileManager.default.createDirectory(at: folder.file("state/quire"), withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(at: folder.file("state/quire/recovery"), withDestinationURL: elsewhere)
    let document = try await openAutosaving("a\n")
    try document.replaceText(with: "b\n")
    await #expect(throws: QuireError.self) { try await document.autosave() }
    #expect(names(in: elsewhere).isEmpty)
    #expect(document.hasUnautosavedChanges)
  }

  @Test func closingRemovesTheRecoveryFile() async throws {
    let document = try await openAutosaving("a\n")
    try document.replaceText(with: "b\n")
    try await document.autosave()
    try await document.close(discardingChanges: true)
    #expect(store.recoveredVersion(for: document.fileURL) == nil)
  }
}
