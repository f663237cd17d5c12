// Apple's remaining UndoManager spellings. Compatibility surface: see the "Porting from
// Apple's frameworks" article. Selector- and invocation-based registration
// (`registerUndo(withTarget:selector:object:)`, `prepare(withInvocationTarget:)`) has no
// Swift counterpart without the Objective-C runtime: use `registerUndo(withTarget:handler:)`.
public import Foundation

extension UndoManager {
  /// The undo menu title for an action name, as Apple's: "Undo" alone for an empty name.
  public func undoMenuTitle(forUndoActionName actionName: String) -> String {
    actionName.isEmpty ? "Undo" : "Undo \(actionName)"
  }

  /// The redo menu title for an action name, as Apple's.
  public func redoMenuTitle(forUndoActionName actionName: String) -> String {
    actionName.isEmpty ? "Redo" : "Redo \(actionName)"
  }

  /// The run-loop modes Apple's manager closes event groups in. Quire has no run loop (it
  /// closes them at the end of the main-actor turn, see ``groupsByEvent``), so they are
  /// kept only to be read back.
  public var runLoopModes: [RunLoop.Mode] {
    get { runLoopModeNames.map { RunLoop.Mode($0) } }
    set { runLoopModeNames = newValue.map(\.rawValue) }
  }
}
