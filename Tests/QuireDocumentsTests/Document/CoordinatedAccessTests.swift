import Foundation
import QuireCoordination
import QuireDocuments
import QuireTestSupport
import QuireTypes
import Synchronization
import Testing

/// A file access that lets "another writer" save the file at the worst moment: after the
/// document's conflict check, just before its write.
private struct SneakingWriterAccess: DocumentFileAccess {
  let theirs: Data
  func coordinate<T: Sendable>(readingItemAt url: URL, _ reader: @Sendable (URL) throws -> T) async throws -> T { try reader(url) }
  func coordinate<T: Sendable>(writingItemAt url: URL, _ writer: @Sendable (URL) throws -> T) async throws -> T {
    try theirs.write(to: url, options: .atomic)
    return try writer(url)
  }
}

/// Documents reach their files through `DocumentFileAccess`; `FileCoordinator` is one, and
/// `DocumentController` gives it to the documents it opens.
@Suite("Coordinated document access")
@MainActor
final class CoordinatedAccessTests: MainActorCoordinationSuite {
  @Test func aWriterThatSavesBetweenTheCheckAndTheWriteIsNotOverwritten() async throws {
    let document = try await openTextDocument("old\n", in: folder)
    document.fileAccess = SneakingWriterAccess(theirs: Data("theirs\n".utf8))
    try document.replaceText(with: "mine\n")
    await expectQuireError(.fileChangedOnDisk) { try await document.save() }
    #expect(bytes(document.fileURL) == Array("theirs\n".utf8))
    #expect(document.documentState.contains(.inConflict))
    #expect(document.text == "mine\n")
  }

  @Test func aSaveWaitsForAnotherProcesssCoordinatedWrite() async throws {
    let document = try await openTextDocument("old\n", in: folder)
    document.fileAccess = FileCoordinator(location: location)
    try document.replaceText(with: "mine\n")
    let url = document.fileURL
    let location = location
    let held = Mutex(false)
    let releasedAt = Mutex<ContinuousClock.Instant?>(nil)
    Thread.detachNewThread {
      try? FileCoordinator(location: location).coordinate(writingItemAt: url) { _ in
        held.withLock { $0 = true }
        usleep(300_000)
        releasedAt.withLock { $0 = .now }
      }
    }
    #expect(await eventually { held.withLock { $0 } }, "the other writer never got the lock")
    try await document.save()
    let saved = ContinuousClock.now
    // The save ran after the other writer let go, not beside it.
    let released = try #require(releasedAt.withLock { $0 })
    #expect(released <= saved)
    #expect(bytes(url) == Array("mine\n".utf8))
  }

  @Test func documentsOfAControllerAreCoordinated() async throws {
    let controller = DocumentController(stateFolder: folder.file("state"))
    #expect(controller.fileAccess is FileCoordinator)
    controller.fileAccess = FileCoordinator(location: location)
    controller.autosavePolicy = nil
    let url = try folder.write("text\n", to: "c.txt")
    let document = try await controller.openDocument(at: url)
    #expect(document.fileAccess is FileCoordinator)
    try (document as? PlainTextDocument)?.replaceText(with: "changed\n")
    try await document.save()
    #expect(bytes(url) == Array("changed\n".utf8))
  }
}
