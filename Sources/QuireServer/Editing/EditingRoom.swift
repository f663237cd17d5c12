import Foundation
import QuireCoordination
import QuireDocuments
import QuireTypes
import Synchronization

/// What the page's editor pane knows of an open document.
struct EditorState: Codable, Sendable {
  /// The editor's key: the reference the document was opened with, which stays the same when
  /// the file moves.
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
  /// How many overlaps a merge marked.
  var mergeConflicts: Int?
  /// The last save's or autosave's error, when there is one.
  var error: String?
}

/// The documents the page edits: each a ``PlainTextDocument`` (Markdown through its subclass)
/// from one ``DocumentController``, so edits go through the document's ``UndoManager``, saves
/// are safe saves coordinated with other Quire processes, and autosave and crash recovery are
/// the document's. Each open document is also presented: when its file changes elsewhere (a
/// `quire` REPL's `w`, another program) the document checks the disk — a clean one reloads, an
/// edited one goes in conflict — and the page hears of it at once through ``EventHub``.
///
/// Conflicts are settled with the document's own conflict API, the one the REPL's words use:
/// `revert` is ``Document/ConflictResolution/takeTheirs``, `keep` is
/// ``Document/ConflictResolution/keepMine``, `merge` is ``Document/ConflictResolution/merge``.
@MainActor
final class EditingRoom {
  private let controller: DocumentController
  private let events: EventHub
  private let reference: @Sendable (URL) -> String?
  private var open: [String: Entry] = [:]

  private final class Entry {
    let document: PlainTextDocument
    let presenter: DocumentPresenter
    var revision = 0
    /// The text the page was last given; a different text after a change on disk is a reload.
    var knownText = ""
    var observation: ObservationToken?
    init(document: PlainTextDocument, presenter: DocumentPresenter) {
      self.document = document
      self.presenter = presenter
    }
  }

  init(controller: DocumentController, events: EventHub, reference: @escaping @Sendable (URL) -> String?) {
    self.controller = controller
    self.events = events
    self.reference = reference
  }

  /// Opens the document at `url` (or returns the open one) and says what the editor shows.
  func open(_ url: URL, doc: String) async throws -> EditorState {
    if let entry = open[doc] { return state(doc, entry) }
    let document = try await controller.openDocument(at: url)
    guard let text = document as? PlainTextDocument else {
      try? await controller.close(document, discardingChanges: true)
      throw QuireError(.unsupportedType, "\(QuireError.name(url)) is not a text document; the page edits text and Markdown. Its preview shows it.", url: url)
    }
    let presenter = DocumentPresenter(url: text.fileURL)
    let entry = Entry(document: text, presenter: presenter)
    presenter.onChange = { [weak self] in Task { @MainActor in await self?.fileChanged(doc: doc) } }
    presenter.onMove = { [weak self] newURL in Task { @MainActor in self?.fileMoved(doc: doc, to: newURL) } }
    presenter.onDelete = { [weak self] in Task { @MainActor in self?.fileDeleted(doc: doc) } }
    entry.observation = text.addStateObserver { [weak self] _ in self?.publish(doc: doc, event: nil) }
    try FileCoordinator.addFilePresenter(presenter)
    open[doc] = entry
    return state(doc, entry)
  }

  /// The editor state of an open document.
  func state(of doc: String) throws -> EditorState {
    try state(doc, entry(doc))
  }

  /// Replaces the text with `text`, as one undoable change of only the part that differs.
  ///
  /// - Throws: ``QuireError`` (`fileChangedOnDisk`) when `revision` is not the document's:
  ///   the page edited a text that has since changed (reloaded, merged).
  func edit(doc: String, text newText: String, revision: Int) throws -> EditorState {
    let entry = try entry(doc)
    guard revision == entry.revision else {
      throw QuireError(.fileChangedOnDisk, "\(QuireError.name(entry.document.fileURL)) changed while you typed; the editor now shows its new text.")
    }
    let old = Array(entry.document.text.utf8)
    let new = Array(newText.utf8)
    var prefix = 0
    while prefix < old.count, prefix < new.count, old[prefix] == new[prefix] { prefix += 1 }
    var suffix = 0
    while suffix < old.count - prefix, suffix < new.count - prefix, old[old.count - 1 - suffix] == new[new.count - 1 - suffix] { suffix += 1 }
    // Keep the cut on character boundaries: back off over UTF-8 continuation bytes.
    while prefix > 0, (prefix < old.count && Self.isContinuation(old[prefix])) || (prefix < new.count && Self.isContinuation(new[prefix])) { prefix -= 1 }
    while suffix > 0, Self.isContinuation(old[old.count - suffix]) || Self.isContinuation(new[new.count - suffix]) { suffix -= 1 }
    let removed = prefix..<(old.count - suffix)
    let inserted = String(decoding: new[prefix..<(new.count - suffix)], as: UTF8.self)
    if !removed.isEmpty || !inserted.isEmpty {
      try entry.document.undoManager.groupUndo(named: "Typing") {
        try entry.document.replaceCharacters(inUTF8Range: removed, with: inserted)
      }
      entry.revision += 1
    }
    return state(doc, entry)
  }

  private static func isContinuation(_ byte: UInt8) -> Bool { byte & 0xC0 == 0x80 }

  /// Undoes the last change through the document's undo manager.
  func undo(doc: String) throws -> EditorState {
    let entry = try entry(doc)
    guard entry.document.undoManager.canUndo else { return state(doc, entry) }
    entry.document.undoManager.undo()
    entry.revision += 1
    return publish(doc: doc, event: "undone")
  }

  /// Redoes the last undone change.
  func redo(doc: String) throws -> EditorState {
    let entry = try entry(doc)
    guard entry.document.undoManager.canRedo else { return state(doc, entry) }
    entry.document.undoManager.redo()
    entry.revision += 1
    return publish(doc: doc, event: "redone")
  }

  /// Saves through the document's safe save. A file changed elsewhere since it was read is
  /// not overwritten: the document goes in conflict and the page offers the choices.
  func save(doc: String) async throws -> EditorState {
    let entry = try entry(doc)
    do {
      try await entry.document.save()
    } catch let error as QuireError where error.code == .fileChangedOnDisk {
      _ = try? await entry.document.checkForChangesOnDisk()
      return publish(doc: doc, event: entry.document.documentState.contains(.inConflict) ? "conflict" : "reloaded")
    }
    return publish(doc: doc, event: "saved")
  }

  /// Settles a conflict the way the REPL's words do: `revert`, `keep` or `merge`.
  func resolve(doc: String, choice: String) async throws -> EditorState {
    let entry = try entry(doc)
    let resolution: Document.ConflictResolution
    switch choice {
    case "revert": resolution = .takeTheirs
    case "keep": resolution = .keepMine
    case "merge": resolution = .merge
    default: throw QuireError(.invalidArgument, "'\(ServedLocations.shown(choice))' is not a way to settle a conflict: use revert, keep or merge.")
    }
    let outcome = try await entry.document.resolveConflict(resolution)
    entry.revision += 1
    var result = publish(doc: doc, event: choice == "merge" ? "merged" : choice == "revert" ? "reverted" : "kept")
    result.mergeConflicts = choice == "merge" ? outcome.mergeConflicts : nil
    return result
  }

  /// Closes the document; unsaved changes stay in its recovery file (autosave).
  func close(doc: String) async throws {
    guard let entry = open.removeValue(forKey: doc) else { return }
    FileCoordinator.removeFilePresenter(entry.presenter)
    if entry.document.hasUnsavedChanges { try? await entry.document.autosave() }
    try await controller.close(entry.document, discardingChanges: true)
  }

  /// Closes every document (the server is stopping).
  func closeAll() async {
    for doc in Array(open.keys) { try? await close(doc: doc) }
  }

  /// The documents open in the page.
  var openReferences: [String] { open.keys.sorted() }

  // MARK: Changes from elsewhere

  /// The file changed elsewhere. The document itself presents its file too (and may have
  /// reloaded or gone in conflict before this runs), so what the page is told comes from the
  /// document's text and state afterwards, not from which check noticed.
  private func fileChanged(doc: String) async {
    guard let entry = open[doc] else { return }
    let wasInConflict = entry.document.documentState.contains(.inConflict)
    let change = try? await entry.document.checkForChangesOnDisk()
    if change == .deleted {
      publish(doc: doc, event: "deleted")
    } else if entry.document.documentState.contains(.inConflict) {
      if !wasInConflict || change == .conflict { publish(doc: doc, event: "conflict") }
    } else if entry.document.text != entry.knownText {
      entry.revision += 1
      publish(doc: doc, event: "reloaded")
    }
  }

  private func fileMoved(doc: String, to newURL: URL) {
    guard let entry = open[doc] else { return }
    entry.document.presentedItemDidMove(to: newURL)
    publish(doc: doc, event: "moved")
  }

  private func fileDeleted(doc: String) {
    guard let entry = open[doc] else { return }
    entry.document.accommodatePresentedItemDeletion()
    publish(doc: doc, event: "deleted")
  }

  // MARK: State

  @discardableResult
  private func publish(doc: String, event: String?) -> EditorState {
    guard let entry = open[doc] else {
      return EditorState(
        id: doc, doc: doc, name: "", text: "", revision: 0, edited: false, inConflict: false, canUndo: false, canRedo: false, undoTitle: "", redoTitle: "")
    }
    var current = state(doc, entry)
    current.event = event
    events.publish(ServerEvent(name: "document", value: current))
    return current
  }

  private func entry(_ doc: String) throws -> Entry {
    guard let entry = open[doc] else {
      throw QuireError(.invalidArgument, "'\(ServedLocations.shown(doc))' is not open in the editor; open it first.")
    }
    return entry
  }

  private func state(_ doc: String, _ entry: Entry) -> EditorState {
    let document = entry.document
    entry.knownText = document.text
    let theirs = document.conflictVersion.map { String(decoding: $0.contents, as: UTF8.self) }
    return EditorState(
      id: doc, doc: reference(document.fileURL) ?? doc, name: document.fileURL.lastPathComponent, text: document.text, revision: entry.revision,
      edited: document.hasUnsavedChanges, inConflict: document.documentState.contains(.inConflict), theirs: theirs,
      canUndo: document.undoManager.canUndo, canRedo: document.undoManager.canRedo,
      undoTitle: document.undoManager.undoMenuItemTitle, redoTitle: document.undoManager.redoMenuItemTitle,
      error: (document.lastSaveError ?? document.lastAutosaveError)?.description)
  }
}

/// Presents an open document's file and passes what it hears to the editing room, which
/// tells the page. The ``Document`` presents its file too and settles reloads and conflicts
/// itself; this presenter only makes sure the page hears of them at once.
final class DocumentPresenter: FilePresenter {
  private let state: Mutex<(url: URL, onChange: (@Sendable () -> Void)?, onMove: (@Sendable (URL) -> Void)?, onDelete: (@Sendable () -> Void)?)>

  init(url: URL) { state = Mutex((url, nil, nil, nil)) }

  var presentedItemURL: URL? { state.withLock { $0.url } }

  var onChange: (@Sendable () -> Void)? {
    get { state.withLock { $0.onChange } }
    set { state.withLock { $0.onChange = newValue } }
  }
  var onMove: (@Sendable (URL) -> Void)? {
    get { state.withLock { $0.onMove } }
    set { state.withLock { $0.onMove = newValue } }
  }
  var onDelete: (@Sendable () -> Void)? {
    get { state.withLock { $0.onDelete } }
    set { state.withLock { $0.onDelete = newValue } }
  }

  func presentedItemDidChange() { onChange?() }

  func presentedItemDidMove(to newURL: URL) {
    state.withLock { $0.url = newURL }
    onMove?(newURL)
  }

  func accommodatePresentedItemDeletion(completionHandler: @escaping @Sendable ((any Error)?) -> Void) {
    onDelete?()
    completionHandler(nil)
  }
}
