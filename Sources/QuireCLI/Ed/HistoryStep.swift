import Quire

/// A step through a document's undo history: back (`undo`) or forward (`redo`). The one
/// difference between ed's `u`, the words `undo` and `redo`, and their messages.
enum HistoryStep: String, CustomStringConvertible {
  case undo, redo

  /// The verb, for messages: "undo", "redo".
  var description: String { rawValue }

  /// What was done, for messages: "undid", "redid".
  var pastTense: String {
    switch self {
    case .undo: "undid"
    case .redo: "redid"
    }
  }

  /// Takes the step in `manager`; returns whether there was one to take.
  @MainActor func take(in manager: UndoManager) -> Bool {
    switch self {
    case .undo:
      guard manager.canUndo else { return false }
      manager.undo()
    case .redo:
      guard manager.canRedo else { return false }
      manager.redo()
    }
    return true
  }

  /// The name of the action the step would undo or redo in `manager` (empty when unnamed).
  @MainActor func actionName(in manager: UndoManager) -> String {
    switch self {
    case .undo: manager.undoActionName
    case .redo: manager.redoActionName
    }
  }
}
