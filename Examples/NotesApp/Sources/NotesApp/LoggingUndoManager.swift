import Foundation
import QuireDocuments

/// An undo manager that remembers what was undone, as an app's subclass of Apple's
/// `UndoManager` would (Apple: "UndoManager", Subclassing Notes).
final class LoggingUndoManager: UndoManager {
  private(set) var undoneActionNames: [String] = []

  override func undo() {
    undoneActionNames.append(undoActionName)
    super.undo()
  }

  override func undoMenuTitle(forUndoActionName actionName: String) -> String {
    actionName.isEmpty ? "Undo" : "Undo \u{201C}\(actionName)\u{201D}"
  }
}
