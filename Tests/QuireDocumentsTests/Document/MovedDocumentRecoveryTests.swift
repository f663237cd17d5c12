import Foundation
import QuireCoordination
import QuireDocuments
import QuireTestSupport
import Testing

/// Recovery files are named by the document's path: when another process moves or renames
/// the file, the document's autosaved work must move with it, or a crash loses it.
@Suite("Recovery files follow a moved document")
@MainActor
final class MovedDocumentRecoveryTests: MainActorCoordinationSuite {
  var store: RecoveryStore { RecoveryStore(folder: folder.file("state/quire/recovery")) }

  /// A text document on "saved\n" in `notes.txt`, presenting its file at the test's
  /// coordination location, autosaving into ``store`` only when the test asks.
  func openPresented(recoveryStore: RecoveryStore? = nil) async throws -> PlainTextDocument {
    let document = PlainTextDocument(fileURL: try folder.write("saved\n", to: "notes.txt"))
    document.fileAccess = FileCoordinator(location: location)
    document.autosavePolicy = nil
    document.recoveryStore = recoveryStore ?? store
    try await document.open()
    return document
  }

  /// Moves `from` to `to` as another program does it through coordination (the Files app, a
  /// file manager, `quire` in another process), so the presenters hear of it.
  func coordinatedMove(_ from: URL, to: URL) async throws {
    try await Self.move(from, to: to, at: location)
  }

  nonisolated static func move(_ from: URL, to: URL, at location: CoordinationLocation) async throws {
    let coordinator = FileCoordinator(location: location)
    try await coordinator.coordinate(writingItemAt: from, options: .forMoving, writingItemAt: to, options: .forReplacing) { from, to in
      try FileManager.default.moveItem(at: from, to: to)
      coordinator.item(at: from, didMoveTo: to)
    }
  }

  @Test func autosavedWorkIsFoundUnderTheNewNameAfterACrash() async throws {
    let document = try await openPresented()
    try document.replaceText(with: "autosaved, not saved\n")
    try await document.autosave()
    #expect(!document.hasUnautosavedChanges)
    let old = document.fileURL
    let moved = folder.file("renamed.txt")
    try await coordinatedMove(old, to: moved)
    #expect(await eventually { document.fileURL == moved })
    // Nothing more is typed, so no autosave would write it again: the move must carry it.
    let recovered = try #require(store.recoveredVersion(for: moved), "the autosaved work was left under the old name")
    #expect(try recovered.contents() == Data("autosaved, not saved\n".utf8))
    #expect(store.recoveredVersion(for: old) == nil)
    #expect(mode(recovered.url).mode == 0o600)
    // A crash now: the file opened at its new name offers the work.
    let reopened = try await openQuietly(PlainTextDocument(fileURL: moved)) { $0.recoveryStore = store }
    #expect(try reopened.recoveredVersion?.contents() == Data("autosaved, not saved\n".utf8))
    #expect(reopened.text == "saved\n")
  }

  @Test func aCrashsVersionNotYetDecidedOnMovesWithTheFile() async throws {
    let crashed = try await openPresented()
    try crashed.replaceText(with: "left by a crash\n")
    try await crashed.autosave()
    try await crashed.closeKeepingUnsavedChanges()
    let document = try await openPresented()
    let offer = try #require(document.recoveredVersion)
    let moved = folder.file("moved.txt")
    try await coordinatedMove(document.fileURL, to: moved)
    #expect(await eventually { document.fileURL == moved })
    let followed = try #require(document.recoveredVersion)
    #expect(followed.documentURL == moved)
    #expect(followed.date == offer.date)
    try document.restoreRecoveredVersion()
    #expect(document.text == "left by a crash\n")
    try await document.save()
    #expect(bytes(moved) == Array("left by a crash\n".utf8))
    #expect(names(in: store.folder).isEmpty, "saving removes the recovery files under the new name, and none stay under the old")
  }

  @Test func aRecoveryFileThatCannotBeMovedStaysUnderTheOldName() async throws {
    let document = try await openPresented()
    try document.replaceText(with: "keep me\n")
    try await document.autosave()
    let old = document.fileURL
    let moved = folder.file("moved.txt")
    // Folders stand where the new name's recovery files would go (learned from a write for
    // that name), so the move can neither link, copy nor record them, even as root.
    let before = Set(names(in: store.folder))
    try store.write(Data("x".utf8), for: moved)
    for name in Set(names(in: store.folder)).subtracting(before) {
      let url = store.folder.appendingPathComponent(name)
      try FileManager.default.removeItem(at: url)
      try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
    }
    try await coordinatedMove(old, to: moved)
    #expect(await eventually { document.fileURL == moved })
    #expect(try store.recoveredVersion(for: old)?.contents() == Data("keep me\n".utf8), "nothing is removed when the move fails")
    #expect(document.hasUnautosavedChanges, "the next autosave writes the edits under the new name")
    for name in Set(names(in: store.folder)).subtracting(before) {
      try FileManager.default.removeItem(at: store.folder.appendingPathComponent(name))
    }
    try await document.autosave()
    #expect(try store.recoveredVersion(for: moved)?.contents() == Data("keep me\n".utf8))
  }
}
