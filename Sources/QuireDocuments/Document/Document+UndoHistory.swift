import Foundation
import QuireTypes

/// What opening a document found of its stored undo history (``Document/persistsUndoHistory``).
public enum UndoHistoryRestoration: Sendable, Hashable {
  /// No history was stored (or the document does not keep one).
  case none
  /// The stored steps are back: `undoSteps` to undo (the "changed on disk" step included) and
  /// `redoSteps` to redo. `changedOnDisk`: the file was not the text the history ends at, and
  /// the difference is the top undo step, named ``Document/changedOnDiskActionName``.
  case restored(undoSteps: Int, redoSteps: Int, changedOnDisk: Bool)
  /// A stored history could not be used and was set aside; `warning` is one line saying why.
  case setAside(warning: String)
}

/// Undo history that outlives the document: Vim's `undofile`, without its "File contents
/// changed, cannot use undo info".
///
/// With ``Document/persistsUndoHistory``, each save (and autosave in place) stores the undo
/// and redo steps made of the document's own edits (``UndoRecord``s, data rather than
/// closures) with the text they end at, in ``Document/undoHistoryStore``; opening the file
/// again brings them back. When the file on disk is no longer that text (another program
/// changed it), the history is kept and the difference becomes one more undo step on top,
/// named "changed on disk": undo returns to the text last saved here, the next undo goes on
/// into the older history, and redo comes back to the file's text. The same step is added
/// when an open, unedited document reloads its file after an outside change.
///
/// Steps above the newest one holding an action that is not data (a restored version, a
/// change of encoding) are stored; that step and older ones are not. ``UndoManager/removeAllActions()``
/// forgets the stored history too. A stored history that cannot be used (damaged, truncated,
/// from a newer format, a link, another user's) is set aside with a one-line warning
/// (``UndoHistoryRestoration/setAside(warning:)``): never a crash, never a wrong edit.
extension Document {
  /// The name of the undo step that stands for an outside change to the file.
  public static let changedOnDiskActionName = "changed on disk"

  /// The store used: ``undoHistoryStore`` or the default one.
  var effectiveUndoHistoryStore: UndoHistoryStore { undoHistoryStore ?? UndoHistoryStore() }

  /// Brings back the stored history of the file just read (open, revert).
  func restoreStoredUndoHistory() {
    undoHistoryRestoration = .none
    guard persistsUndoHistory, !isUntitled, let state = undoHistoryState() else { return }
    let store = effectiveUndoHistoryStore
    let history: StoredUndoHistory
    switch store.history(for: fileURL) {
    case .none: return
    case .setAside(let warning):
      undoHistoryRestoration = .setAside(warning: warning)
      return
    case .found(let found): history = found
    }
    let apply: @MainActor (Document, UndoRecord) -> Void = { document, record in try? document.applyUndoRecord(record) }
    // The end state, when kept, was checked against its digest as the history was read.
    let endsHere = history.endState.map { $0 == state } ?? (StoredUndoHistory.digest(state) == history.endDigest)
    if endsHere {
      guard !history.undo.isEmpty || !history.redo.isEmpty else { return }
      undoManager.restoreSteps(undo: history.undo, redo: history.redo, target: self, apply: apply)
      undoHistoryRestoration = .restored(undoSteps: history.undo.count, redoSteps: history.redo.count, changedOnDisk: false)
    } else if let end = history.endState, let record = undoRecord(restoringState: end) {
      let step = StoredUndoStep(actionName: Self.changedOnDiskActionName, records: [record])
      undoManager.restoreSteps(undo: history.undo, redo: [], onTop: step, target: self, apply: apply)
      undoHistoryRestoration = .restored(undoSteps: history.undo.count + 1, redoSteps: 0, changedOnDisk: true)
    } else {
      // Only the digest was kept (a large text), and the file is another text: the steps
      // cannot be placed.
      store.remove(for: fileURL)
      undoHistoryRestoration = .setAside(
        warning:
          "the stored undo history of '\(fileURL.lastPathComponent)' was not used: the file changed on disk and the history kept only a digest of the text it ends at; removed, editing goes on without it"
      )
    }
  }

  /// After a reload of an unedited document (another program changed the file): with
  /// ``persistsUndoHistory``, the history stays and the change becomes the "changed on disk"
  /// step on top (undo brings back `stateBefore`); otherwise the history goes.
  func keepUndoHistoryAcrossReload(from stateBefore: [UInt8]?) {
    guard let stateBefore, let record = undoRecord(restoringState: stateBefore) else {
      undoManager.removeAllSteps()
      return
    }
    let step = StoredUndoStep(actionName: Self.changedOnDiskActionName, records: [record])
    undoManager.pushStoredStep(step, target: self) { document, record in try? document.applyUndoRecord(record) }
  }

  /// The history to store at a save, taken when the contents to write are: `nil` when the
  /// document does not keep its history.
  func undoHistorySnapshot() -> StoredUndoHistory? {
    guard persistsUndoHistory, let state = undoHistoryState() else { return nil }
    let steps = undoManager.storableSteps()
    return StoredUndoHistory(path: fileURL.path, endState: state, undo: steps.undo, redo: steps.redo)
  }

  /// Stores `history` after a save; a history with no step removes the stored one. A failure
  /// is kept in ``lastUndoHistoryError``; the save stands.
  func storeUndoHistory(_ history: StoredUndoHistory) {
    let store = effectiveUndoHistoryStore
    if history.undo.isEmpty && history.redo.isEmpty {
      store.remove(for: fileURL)
      lastUndoHistoryError = nil
      return
    }
    do {
      try store.store(history, for: fileURL)
      lastUndoHistoryError = nil
    } catch let error as QuireError {
      lastUndoHistoryError = error
    } catch {
      lastUndoHistoryError = QuireError(.systemCallFailed, "Cannot store the undo history of \(QuireError.name(fileURL)).", url: fileURL, cause: error)
    }
  }

  /// ``UndoManager/removeAllActions()``: the stored history goes too.
  func forgetStoredUndoHistory() {
    guard persistsUndoHistory, !isUntitled else { return }
    effectiveUndoHistoryStore.remove(for: fileURL)
    if case .restored = undoHistoryRestoration { undoHistoryRestoration = .none }
  }
}
