import Foundation
import Synchronization

/// The conflicts that open documents of this process hold, by file: what `NSFileVersion`'s
/// conflict API (``NSFileVersion/unresolvedConflictVersionsOfItem(at:)``) lists.
///
/// A document offers its ``Document/conflictVersion`` here when it goes
/// ``Document/State/inConflict`` and takes it back when the conflict is settled or the
/// document closes. Reads are safe from any thread; settling a conflict runs on the main actor.
final class ConflictBoard: Sendable {
  static let shared = ConflictBoard()

  /// One document's unresolved conflict.
  struct Entry: Sendable {
    /// Holds the document weakly: the board never keeps a document alive.
    struct Owner: Sendable {
      weak var document: Document?
    }
    var owner: Owner
    var path: String
    var version: Document.ConflictVersion
    var serial: UInt64
  }

  private struct State {
    var entries: [ObjectIdentifier: Entry] = [:]
    var nextSerial: UInt64 = 1
  }
  private let state = Mutex(State())

  @MainActor func offer(_ version: Document.ConflictVersion, of document: Document) {
    let path = document.fileURL.standardizedFileURL.resolvingSymlinksInPath().path
    state.withLock { state in
      state.entries[ObjectIdentifier(document)] = Entry(owner: Entry.Owner(document: document), path: path, version: version, serial: state.nextSerial)
      state.nextSerial += 1
    }
  }

  @MainActor func remove(for document: Document) {
    _ = state.withLock { $0.entries.removeValue(forKey: ObjectIdentifier(document)) }
  }

  /// The unresolved conflicts of the item at `url`, oldest first.
  func entries(forItemAt url: URL) -> [Entry] {
    let path = url.standardizedFileURL.resolvingSymlinksInPath().path
    return state.withLock { state in
      state.entries.values.filter { $0.path == path && $0.owner.document != nil }.sorted { $0.serial < $1.serial }
    }
  }

  /// Whether the conflict `serial` is still unresolved.
  func isUnresolved(_ serial: UInt64) -> Bool {
    state.withLock { state in state.entries.values.contains { $0.serial == serial } }
  }
}
