/// One undo action as data: what a closure cannot be, so that the action can be stored with
/// the history and run again after a restart (``Document/persistsUndoHistory``).
///
/// A document makes records of its own edits and runs them back in
/// ``Document/applyUndoRecord(_:)``; the undo manager stores them without reading them. A
/// ``PlainTextDocument``'s record is a byte replacement (`kind` `"text.replace"`).
public struct UndoRecord: Sendable, Hashable {
  /// What the record is, in the document's own words (`"text.replace"`); at most 255 bytes.
  public var kind: String
  /// The action's data, in a form the document reads back.
  public var payload: [UInt8]

  /// A record of kind `kind` holding `payload`.
  public init(kind: String, payload: [UInt8]) {
    self.kind = kind
    self.payload = payload
  }
}

/// One undo step as stored: its name and its records, in the order they were registered
/// (undoing runs them last first, as the undo manager runs a group).
public struct StoredUndoStep: Sendable, Hashable {
  /// The step's action name ("" when unnamed).
  public var actionName: String
  /// The step's actions.
  public var records: [UndoRecord]

  /// A step named `actionName` made of `records`.
  public init(actionName: String, records: [UndoRecord]) {
    self.actionName = actionName
    self.records = records
  }
}

/// How an action is kept when the history is stored.
enum ActionStorage {
  /// It cannot be stored (a closure only): a stored history ends before the step holding it.
  case unstorable
  /// It restores presentation only (a cursor, a selection): a stored history leaves it out.
  case transient
  /// It is stored as the record `make` gives (made when the history is stored, not before).
  case record(@MainActor () -> UndoRecord)
}

extension UndoManager {
  /// Records `handler` as the way to undo a change made to `target`, with `record`, the same
  /// action as data, for a stored history (``Document/persistsUndoHistory``).
  ///
  /// `record` is called only when the history is stored, so an edit pays nothing for it until
  /// then; it must describe what `handler` does, as ``Document/applyUndoRecord(_:)`` runs it.
  ///
  /// - Parameters:
  ///   - target: The object the handler changes back.
  ///   - record: The action as data.
  ///   - handler: Undoes the change; it receives `target`.
  public func registerUndo<Target: AnyObject>(
    withTarget target: Target, record: @escaping @MainActor () -> UndoRecord, handler: @escaping @MainActor (Target) -> Void
  ) {
    guard isUndoRegistrationEnabled else { return }
    register(
      Action(
        target: target, handler: { object in if let typed = object as? Target { handler(typed) } },
        storage: .record(record)))
  }

  /// Records `handler` as an action that puts back presentation state only (the current line,
  /// a selection), which a stored history leaves out; its step is stored without it.
  public func registerTransientUndo<Target: AnyObject>(withTarget target: Target, handler: @escaping @MainActor (Target) -> Void) {
    guard isUndoRegistrationEnabled else { return }
    register(
      Action(target: target, handler: { object in if let typed = object as? Target { handler(typed) } }, storage: .transient))
  }

  /// Whether the step ``undo()`` would undo came from a stored history (or is the "changed on
  /// disk" step put on top of one) rather than from an edit made since the document opened.
  public var undoStepIsFromEarlierSession: Bool { undoStack.last?.isFromEarlierSession ?? false }

  /// The steps that can be stored: the undo steps newest first down to (not including) the
  /// first one holding an action that cannot be stored, then the same for the redo steps (the
  /// next redo first). Steps holding only transient actions are left out.
  func storableSteps() -> (undo: [StoredUndoStep], redo: [StoredUndoStep]) {
    func stored(_ groups: [Group]) -> [StoredUndoStep] {
      var steps: [StoredUndoStep] = []
      for group in groups.reversed() {
        if let stored = group.stored {
          steps.append(StoredUndoStep(actionName: group.actionName, records: stored.step.records))
          continue
        }
        var records: [UndoRecord] = []
        guard Self.collect(group.entries, into: &records) else { break }
        if !records.isEmpty { steps.append(StoredUndoStep(actionName: group.actionName, records: records)) }
      }
      return steps
    }
    return (stored(undoStack), stored(redoStack))
  }

  /// Appends the records of `entries` in registration order; `false` when one cannot be stored.
  private static func collect(_ entries: [Entry], into records: inout [UndoRecord]) -> Bool {
    for entry in entries {
      switch entry {
      case .action(let action):
        switch action.storage {
        case .unstorable: return false
        case .transient: continue
        case .record(let make): records.append(make())
        }
      case .group(let inner):
        guard collect(inner.entries, into: &records) else { return false }
      }
    }
    return true
  }

  /// Replaces the steps with stored ones (newest first, as ``storableSteps()`` gives them),
  /// each action run by `apply` on `target`; no observer hears of it (the document's change
  /// count stays where it is). Steps from `onTop` (the "changed on disk" step) go above the
  /// undo steps.
  ///
  /// The steps stay data until one is first undone or redone: a history of thousands of
  /// steps costs one small value each here, not a closure per action.
  func restoreSteps<Target: AnyObject>(
    undo: StoredUndoSteps, redo: StoredUndoSteps, onTop: StoredUndoStep? = nil, target: Target,
    apply: @escaping @MainActor (Target, UndoRecord) -> Void
  ) {
    func groups(_ steps: StoredUndoSteps) -> [Group] {
      let runner = StoredStepRunner(target: target, steps: steps, apply: apply)
      return steps.indices.reversed().map { index in
        Group(actionName: steps.actionName(at: index), isFromEarlierSession: true, stored: StoredStep(runner: runner, index: index))
      }
    }
    removeAllSteps()
    undoStack = groups(undo)
    if let onTop { undoStack += groups([onTop]) }
    redoStack = onTop == nil ? groups(redo) : []
  }

  /// Puts `step` on top of the undo steps as a step from outside this session (the "changed
  /// on disk" step of a reload), dropping the redo steps; no observer hears of it.
  func pushStoredStep<Target: AnyObject>(_ step: StoredUndoStep, target: Target, apply: @escaping @MainActor (Target, UndoRecord) -> Void) {
    let stored = StoredStep(runner: StoredStepRunner(target: target, steps: [step], apply: apply), index: 0)
    undoStack.append(Group(actionName: step.actionName, isFromEarlierSession: true, stored: stored))
    redoStack.removeAll()
  }
}

/// What runs the steps of a restored history: the steps (still encoded), the document they
/// change (held weakly, as every action's target is) and how it replays a record. One for a
/// whole list of steps; used only by its undo manager, on the main actor.
final class StoredStepRunner {
  weak var target: AnyObject?
  let steps: StoredUndoSteps
  let apply: @MainActor (AnyObject, UndoRecord) -> Void

  init<Target: AnyObject>(target: Target, steps: StoredUndoSteps, apply: @escaping @MainActor (Target, UndoRecord) -> Void) {
    self.target = target
    self.steps = steps
    self.apply = { object, record in if let typed = object as? Target { apply(typed, record) } }
  }
}

/// A step of a restored history, read from its runner's steps when it runs.
struct StoredStep {
  let runner: StoredStepRunner
  let index: Int

  /// The step, read from the stored bytes.
  var step: StoredUndoStep { runner.steps[index] }

  /// The step's actions: one per record, each stored as that record again.
  func entries() -> [UndoManager.Entry] {
    let apply = runner.apply
    return step.records.map { record in
      UndoManager.Entry.action(
        UndoManager.Action(target: runner.target, handler: { object in apply(object, record) }, storage: .record({ record })))
    }
  }
}
