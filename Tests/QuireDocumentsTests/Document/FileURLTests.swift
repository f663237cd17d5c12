import Foundation
import QuireDocuments
import QuireTestSupport
import QuireTypes
import Testing

/// `setFileURL(_:)`, as NSDocument's: the document points at another file without reading or
/// writing either; its next save writes there.
@Suite("Changing a document's file")
@MainActor
final class FileURLTests: MainActorFolderSuite {

  @Test func theNextSaveWritesTheNewFileAndLeavesTheOldOne() async throws {
    let document = try await openTextDocument("old\n", in: folder)
    let old = document.fileURL
    try document.replaceText(with: "edited\n")
    let new = folder.file("renamed.txt")
    document.setFileURL(new)
    #expect(document.fileURL == new.standardizedFileURL)
    #expect(document.presentedItemURL == new.standardizedFileURL)
    #expect(document.fileFingerprint == nil, "nothing is known of the new file yet")
    #expect(document.hasUnsavedChanges)
    #expect(!FileManager.default.fileExists(atPath: new.path), "setting the name writes nothing")
    try await document.save()
    #expect(bytes(new) == Array("edited\n".utf8))
    #expect(bytes(old) == Array("old\n".utf8))
    #expect(!document.hasUnsavedChanges)
  }

  @Test func anExistingFileThereIsNotTakenForSomeoneElsesChange() async throws {
    let document = try await openTextDocument("mine\n", in: folder)
    let other = try folder.write("someone's\n", to: "other.txt")
    document.setFileURL(other)
    #expect(try await document.checkForChangesOnDisk() == .unchanged)
    try await document.save()
    #expect(bytes(other) == Array("mine\n".utf8))
    // From then on the new file is checked as the document's own.
    try document.replaceText(with: "mine, edited\n")
    try Data("theirs\n".utf8).write(to: other)
    #expect(try await document.checkForChangesOnDisk() == .conflict)
  }

  @Test func aConflictWithTheOldFileIsDropped() async throws {
    let document = try await openTextDocument("base\n", in: folder)
    try document.replaceText(with: "mine\n")
    try Data("theirs\n".utf8).write(to: document.fileURL)
    #expect(try await document.checkForChangesOnDisk() == .conflict)
    document.setFileURL(folder.file("elsewhere.txt"))
    #expect(!document.documentState.contains(.inConflict))
    #expect(document.conflictVersion == nil)
    try await document.save()
    #expect(bytes(folder.file("elsewhere.txt")) == Array("mine\n".utf8))
  }

  @Test func theAutosaveOfUnsavedChangesMovesWithTheName() async throws {
    let document = try await openTextDocument("old\n", in: folder)
    let store = try #require(document.recoveryStore)
    let old = document.fileURL
    try document.replaceText(with: "edited\n")
    try await document.autosave()
    #expect(store.recoveredVersion(for: old) != nil)
    let new = folder.file("moved.txt")
    document.setFileURL(new)
    #expect(store.recoveredVersion(for: old) == nil, "no recovery file is left under the old name")
    try await document.autosave()
    let moved = try #require(store.recoveredVersion(for: new))
    #expect(try Data(contentsOf: moved.url) == Data("edited\n".utf8))
  }

  @Test func theSameNameChangesNothing() async throws {
    let document = try await openTextDocument("a\n", in: folder)
    let fingerprint = document.fileFingerprint
    document.setFileURL(document.fileURL)
    #expect(document.fileFingerprint == fingerprint)
  }
}
