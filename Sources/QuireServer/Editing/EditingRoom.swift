import Foundation
import QuireDocuments
import QuireSession
import QuireTypes

/// What the page's editor pane knows of an open document.
struct EditorState: Codable, Sendable {
  /// The editor's key: the session's handle of the document, the same whatever reference or
  /// link opened it and when its file moves.
  var id: String
  /// The document's reference now.
  var doc: String
  /// Its file name.
  var name: String
  /// Its text.
  var text: String
  /// Bumped on every change of the text, whoever made it (an edit, undo, a reload, a merge):
  /// the page sends it back with each edit, and an edit based on an older text is refused.
  var revision: Int
  /// Whether there are unsaved changes.
  var edited: Bool
  /// Whether the file changed on disk while the document had unsaved changes.
  var inConflict: Bool
  /// The other version's text while in conflict.
  var theirs: String?
  var canUndo: Bool
  var canRedo: Bool
  var undoTitle: String
  var redoTitle: String
  /// What just happened, for the page to say (`saved`, `reloaded`, `conflict`, `merged`, …).
  var event: String?
  /// When autosaved edits an earlier session left (closed unsaved, or stopped) were saved, if
  /// there are some to restore or discard (`/api/editor/recover`).
  var recovered: String?
  /// How many overlaps a merge marked.
  var mergeConflicts: Int?
  /// The last save's or autosave's error, when there is one.
  var error: String?
}

/// The documents the page edits, on the session layer every front end shares
/// (``QuireSession/DocumentSession``): each a ``PlainTextDocument`` (Markdown through its
/// subclass) from one ``DocumentController``, so edits go through the document's
/// ``UndoManager``, saves are safe saves coordinated with other Quire processes, and autosave
/// and crash recovery are the document's. The document presents its file: when the file
/// changes elsewhere (a `quire` REPL's `w`, `quire rpc`, another program) a clean document
/// reloads and an edited one goes in conflict, and the page hears of it at once through
/// ``EventHub``.
///
/// The page names an open document by the session's handle (its `id`), which stays the same
/// whatever reference or link it was opened through and when its file moves; a second
/// reference to the same file opens the same document. Closing keeps unsaved changes in the
/// recovery file, which the next open (here, the REPL or `quire rpc`) offers.
///
/// Conflicts are settled with the document's own conflict API, the one the REPL's words use:
/// `revert` is ``Document/ConflictResolution/takeTheirs``, `keep` is
/// ``Document/ConflictResolution/keepMine``, `merge` is ``Document/ConflictResolution/merge``.
@MainActor
final class EditingRoom {
  private let session: DocumentSession
  private let events: EventHub
  private let reference: @Sendable (URL) -> String?
  private var subscriptions: [String: SessionSubscription] = [:]

  init(controller: DocumentController, events: EventHub, reference: @escaping @Sendable (URL) -> String?) {
    self.session = DocumentSession(controller: controller)
    self.events = events
    self.reference = reference
  }

  /// Opens the document at `url` (or returns the open one for the same file) and says what
  /// the editor shows.
  func open(_ url: URL) async throws -> EditorState {
    let document = try await session.open(url)
    if subscriptions[document.id] == nil {
      subscriptions[document.id] = document.subscribe { [weak self, weak document] event in
        guard let self, let document else { return }
        self.heard(event, document)
      }
    }
    return state(document)
  }

  /// The editor state of an open document.
  func state(of id: String) throws -> EditorState {
    try state(entry(id))
  }

  /// Replaces the text with `text`, as one undoable change of only the part that differs.
  ///
  /// - Throws: ``QuireError`` (`fileChangedOnDisk`) when `revision` is not the document's
  ///   version: the page edited a text that has since changed (an edit elsewhere, a reload,
  ///   a merge); nothing changes.
  func edit(id: String, text newText: String, revision: Int) throws -> EditorState {
    let document = try entry(id)
    guard revision == document.version else {
      throw QuireError(.fileChangedOnDisk, "\(QuireError.name(document.fileURL)) changed while you typed; the editor now shows its new text.")
    }
    let old = Array(document.text.utf8)
    let new = Array(newText.utf8)
    var prefix = 0
    while prefix < old.count, prefix < new.count, old[prefix] == new[prefix] { prefix += 1 }
    var suffix = 0
    while suffix < old.count - prefix, suffix < new.count - prefix, old[old.count - 1 - suffix] == new[new.count - 1 - suffix] { suffix += 1 }
    // Keep the cut on character boundaries: back off over UTF-8 continuation bytes.
    while prefix > 0, (prefix < old.count && Self.isContinuation(old[prefix])) || (prefix < new.count && Self.isContinuation(new[prefix])) { prefix -= 1 }
    while suffix > 0, Self.isContinuation(old[old.count - suffix]) || Self.isContinuation(new[new.count - suffix]) { suffix -= 1 }
    let inserted = String(decoding: new[prefix..<(new.count - suffix)], as: UTF8.self)
    try document.edit([TextReplacement(range: prefix..<(old.count - suffix), text: inserted)], atVersion: revision)
    return state(document)
  }

  private static func isContinuation(_ byte: UInt8) -> Bool { byte & 0xC0 == 0x80 }

  /// Undoes the last change through the document's undo manager.
  func undo(id: String) throws -> EditorState {
    let document = try entry(id)
    document.undo()
    return state(document, event: "undone")
  }

  /// Redoes the last undone change.
  func redo(id: String) throws -> EditorState {
    let document = try entry(id)
    document.redo()
    return state(document, event: "redone")
  }

  /// Saves through the document's safe save. A file changed elsewhere since it was read is
  /// not overwritten: the document goes in conflict and the page offers the choices.
  func save(id: String) async throws -> EditorState {
    let document = try entry(id)
    do {
      try await document.save()
    } catch let error as QuireError where error.code == .fileChangedOnDisk {
      return publish(document, event: document.isInConflict ? "conflict" : "reloaded")
    }
    return state(document, event: "saved")
  }

  /// Settles a conflict the way the REPL's words do: `revert`, `keep` or `merge`.
  func resolve(id: String, choice: String) async throws -> EditorState {
    let document = try entry(id)
    let resolution: Document.ConflictResolution
    switch choice {
    case "revert": resolution = .takeTheirs
    case "keep": resolution = .keepMine
    case "merge": resolution = .merge
    default: throw QuireError(.invalidArgument, "'\(ServedLocations.shown(choice))' is not a way to settle a conflict: use revert, keep or merge.")
    }
    let outcome = try await document.resolve(resolution)
    var result = publish(document, event: choice == "merge" ? "merged" : choice == "revert" ? "reverted" : "kept")
    result.mergeConflicts = choice == "merge" ? outcome.mergeConflicts : nil
    return result
  }

  /// Restores (`restore`) or drops (`discard`) the autosaved edits an earlier session left.
  func recover(id: String, choice: String) throws -> EditorState {
    let document = try entry(id)
    switch choice {
    case "restore": try document.recover(discarding: false)
    case "discard": try document.recover(discarding: true)
    default: throw QuireError(.invalidArgument, "'\(ServedLocations.shown(choice))' is not a recovery choice: use restore or discard.")
    }
    return publish(document, event: choice == "restore" ? "recovered" : "recovery-discarded")
  }

  /// Closes the document; unsaved changes stay in its recovery file, for the next open (the
  /// page's, the REPL's, `quire rpc`'s) to offer.
  ///
  /// - Throws: ``QuireError`` (`unsavedChanges`) when they cannot be kept: it stays open.
  func close(id: String) async throws {
    guard let document = session.document(withID: id) else { return }
    try await session.close(document)
    subscriptions.removeValue(forKey: id)
  }

  /// Closes every document (the server is stopping), keeping unsaved changes in recovery.
  func closeAll() async {
    for error in await session.closeAll() {
      QuireNotes.tell(QuireNote(.server, error.reason, url: error.url))
    }
    subscriptions = [:]
  }

  /// The handles of the documents open in the page.
  var openIDs: [String] { session.documents.map(\.id) }

  // MARK: Changes from elsewhere

  private func heard(_ event: SessionEvent, _ document: SessionDocument) {
    switch event {
    case .changed(_, _, let cause, _):
      publish(document, event: cause == .reload ? "reloaded" : nil)
    case .conflict: publish(document, event: "conflict")
    case .moved: publish(document, event: "moved")
    case .deleted: publish(document, event: "deleted")
    case .saved: publish(document, event: "saved")
    case .stateChanged: publish(document, event: nil)
    case .closed: break
    }
  }

  // MARK: State

  @discardableResult
  private func publish(_ document: SessionDocument, event: String?) -> EditorState {
    let current = state(document, event: event)
    events.publish(ServerEvent(name: "document", value: current))
    return current
  }

  private func entry(_ id: String) throws -> SessionDocument {
    guard let document = session.document(withID: id) else {
      throw QuireError(.invalidArgument, "'\(ServedLocations.shown(id))' is not open in the editor; open it first.")
    }
    return document
  }

  private func state(_ entry: SessionDocument, event: String? = nil) -> EditorState {
    let document = entry.document
    let theirs = document.conflictVersion.map { String(decoding: $0.contents, as: UTF8.self) }
    return EditorState(
      id: entry.id, doc: reference(document.fileURL) ?? "", name: document.fileURL.lastPathComponent, text: document.text, revision: entry.version,
      edited: document.hasUnsavedChanges, inConflict: entry.isInConflict, theirs: theirs,
      canUndo: document.undoManager.canUndo, canRedo: document.undoManager.canRedo,
      undoTitle: document.undoManager.undoMenuItemTitle, redoTitle: document.undoManager.redoMenuItemTitle,
      event: event, recovered: entry.recoveredVersion.map { Self.timestamp($0.date) },
      error: (document.lastSaveError ?? document.lastAutosaveError)?.description)
  }

  private static func timestamp(_ date: Date) -> String {
    date.formatted(.iso8601)
  }
}
