import Foundation
import QuireDocuments
import QuireTestSupport
import Synchronization
import Testing

/// A file access whose reads, once closed, wait until it is opened again: a check for changes
/// on disk held in its read (as a presenter's check is under load) while the document goes on.
private final class ReadGate: DocumentFileAccess {
  private struct State {
    var closed = false
    var waiting = 0
    var waiters: [CheckedContinuation<Void, Never>] = []
  }
  private let state = Mutex(State())

  func close() { state.withLock { $0.closed = true } }

  func open() {
    let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
      state.closed = false
      defer { state.waiters = [] }
      return state.waiters
    }
    for waiter in waiters { waiter.resume() }
  }

  /// How many reads wait at the gate.
  var waiting: Int { state.withLock { $0.waiting } }

  func coordinate<T: Sendable>(readingItemAt url: URL, _ reader: @Sendable (URL) throws -> T) async throws -> T {
    await withCheckedContinuation { continuation in
      let wait = state.withLock { state -> Bool in
        guard state.closed else { return false }
        state.waiting += 1
        state.waiters.append(continuation)
        return true
      }
      if !wait { continuation.resume() }
    }
    return try reader(url)
  }

  func coordinate<T: Sendable>(writingItemAt url: URL, _ writer: @Sendable (URL) throws -> T) async throws -> T { try writer(url) }
}

/// A check for changes on disk reads the file while the document goes on: what it read is
/// compared with the version the document knows when the read ends, not when it began.
@Suite("Checks for changes on disk that overlap the document's own steps")
@MainActor
final class OverlappingCheckTests: MainActorFolderSuite {
  /// The REPL's flaky merge (REPLSessionTests): a presenter's check that began before a merge
  /// and read after it took the merged-in version for someone else's change, put the document
  /// back in conflict with it, and the next merge merged that stale version.
  @Test func aCheckThatOverlapsAMergeComparesWithTheMergedVersion() async throws {
    let url = try folder.write("a\nb\nc\n", to: "merged.txt")
    let gate = ReadGate()
    let document = try await openQuietly(PlainTextDocument(fileURL: url)) {
      $0.registersAsFilePresenter = false
      $0.fileAccess = gate
    }
    try document.replaceText(with: "A\nb\nc\n")
    try Data("a\nb\nC\n".utf8).write(to: url, options: .atomic)
    #expect(try await document.checkForChangesOnDisk() == .conflict)

    // A late check starts and waits in its read; meanwhile the conflict is merged.
    gate.close()
    let late = Task { try await document.checkForChangesOnDisk() }
    #expect(await eventually { gate.waiting == 1 })
    let outcome = try await document.resolveConflict(.merge)
    #expect(outcome.mergeConflicts == 0)
    gate.open()

    #expect(try await late.value == .unchanged)
    #expect(!document.documentState.contains(.inConflict))
    #expect(document.conflictVersion == nil)
    #expect(document.text == "A\nb\nC\n")
    try await document.close(discardingChanges: true)
  }
}
