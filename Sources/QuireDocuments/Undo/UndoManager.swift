public import Foundation

/// Records changes so they can be undone and redone: Apple's `UndoManager`, for Linux.
///
/// Register the inverse of each change with ``registerUndo(withTarget:handler:)``. Undoing
/// runs the handlers of the last group in reverse order; whatever they register while
/// undoing becomes the redo group, as with Apple's (so a handler that calls the same edit
/// method with the old value gets redo for free).
///
/// **Grouping.** Apple's `groupsByEvent` closes a group at the end of each run-loop pass; a
/// REPL or an embedding app has no such pass, so here grouping is explicit: a registration
/// made outside ``beginUndoGrouping()``/``endUndoGrouping()`` is a group of its own, and
/// ``groupUndo(named:_:)`` wraps several changes into one step (one REPL command, say).
/// Groups nest; only closing the outermost one makes an undo step.
///
/// ``levelsOfUndo`` bounds the number of steps kept (0: no limit). Observers
/// (``addObserver(_:)``) learn when a step closes, and before and after an undo or redo —
/// the hooks a ``Document`` uses to keep its change count.
///
/// **Subclassing.** As Apple's, the class is `open` and so are the members Apple declares
/// overridable (``undo()``, ``redo()``, ``beginUndoGrouping()``, ``setActionName(_:)``, the
/// menu titles, …): an app's subclass overrides them and calls `super`. The document layer
/// calls them through the instance, so an override sees every undo and redo a document makes.
/// ``registerUndo(withTarget:handler:)`` is not overridable, as in Apple's Swift overlay.
///
/// **Notifications.** Besides ``addObserver(_:)``, the manager posts Apple's notifications on
/// `NotificationCenter.default` with itself as the object:
/// `.NSUndoManagerCheckpoint`, `.NSUndoManagerDidOpenUndoGroup`,
/// `.NSUndoManagerWillCloseUndoGroup`, `.NSUndoManagerDidCloseUndoGroup`,
/// `.NSUndoManagerWillUndoChange`, `.NSUndoManagerDidUndoChange`,
/// `.NSUndoManagerWillRedoChange` and `.NSUndoManagerDidRedoChange`.
///
/// Main-actor isolated, like the documents that own it, and `@preconcurrency` as Apple's
/// imported class is: Swift 5 code that touches it off the main actor gets warnings.
@preconcurrency @MainActor
open class UndoManager {
  /// Something an observer learns.
  public enum Event: Sendable, Hashable {
    /// An outermost group closed with at least one action (not while undoing or redoing).
    case didCloseUndoGroup
    /// An undo is about to run.
    case willUndoChange
    /// An undo ran.
    case didUndoChange
    /// A redo is about to run.
    case willRedoChange
    /// A redo ran.
    case didRedoChange
  }

  struct Action {
    weak var target: AnyObject?
    let handler: @MainActor (AnyObject) -> Void
    /// How the action is kept in a stored history (see UndoManager+History.swift).
    var storage: ActionStorage = .unstorable
  }

  enum Entry {
    case action(Action)
    case group(Group)
  }

  struct Group {
    var entries: [Entry] = []
    var actionName = ""
    /// Whether the step came from a stored history (or is its "changed on disk" step).
    var isFromEarlierSession = false
    /// A step from a stored history, kept as data until it is first undone or redone
    /// (``actions``): opening a document with a long history makes no action for it.
    var stored: StoredStep?
    var isEmpty: Bool { entries.isEmpty && stored == nil }
    /// How many actions the step holds.
    var actionCount: Int { stored?.step.records.count ?? entries.count }

    /// The step's actions, made from its stored records when it came from a stored history.
    var actions: [Entry] { stored?.entries() ?? entries }

    func removingActions(withTarget target: AnyObject) -> Group {
      if let stored {
        return stored.runner.target == nil || stored.runner.target === target ? Group(actionName: actionName) : self
      }
      var copy = self
      copy.entries = entries.compactMap { entry in
        switch entry {
        case .action(let action):
          return action.target === target || action.target == nil ? nil : entry
        case .group(let group):
          let inner = group.removingActions(withTarget: target)
          return inner.isEmpty ? nil : .group(inner)
        }
      }
      return copy
    }
  }

  var undoStack: [Group] = []
  var redoStack: [Group] = []
  /// Groups opened and not yet closed, outermost first.
  private var openGroups: [Group] = []
  private var disableCount = 0
  private let observers = ObserverList<Event>()

  /// Whether an undo is running.
  open private(set) var isUndoing = false
  /// Whether a redo is running.
  open private(set) var isRedoing = false

  /// The most undo steps kept; the oldest are dropped beyond it. 0 means no limit.
  open var levelsOfUndo = 0 {
    didSet { trim() }
  }

  /// Makes an empty undo manager.
  public init() {}

  // MARK: Registering

  /// Records `handler` as the way to undo a change made to `target`.
  ///
  /// The target is held weakly: if it is gone when the step is undone, its actions are
  /// skipped. Registered while undoing, the handler becomes part of the redo step.
  ///
  /// - Parameters:
  ///   - target: The object the handler changes back.
  ///   - handler: Undoes the change; it receives `target`.
  public func registerUndo<Target: AnyObject>(withTarget target: Target, handler: @escaping @MainActor (Target) -> Void) {
    guard isUndoRegistrationEnabled else { return }
    register(
      Action(target: target) { object in
        if let typed = object as? Target { handler(typed) }
      })
  }

  /// Adds `action` to the open group, or makes it a step (see ``registerUndo(withTarget:handler:)``).
  func register(_ action: Action) {
    guard isUndoRegistrationEnabled else { return }
    if openGroups.isEmpty && groupsByEvent {
      // Apple groups by run-loop event; Quire by main-actor turn: the group opened here
      // closes in a job queued behind the current one, so every registration made before
      // the current code returns or suspends is one step.
      beginUndoGrouping()
      openGroups[openGroups.count - 1].entries.append(.action(action))
      isEventGroupOpen = true
      Task { @MainActor [weak self] in self?.closeEventGroup() }
    } else if openGroups.isEmpty {
      // Outside an explicit group: this registration is a step of its own.
      beginUndoGrouping()
      openGroups[openGroups.count - 1].entries.append(.action(action))
      endUndoGrouping()
    } else {
      openGroups[openGroups.count - 1].entries.append(.action(action))
    }
  }

  /// Whether a registration outside an explicit group opens a group that closes at the end
  /// of the current main-actor turn (Apple's `groupsByEvent`, where the group closes at the end
  /// of the run-loop event). `false` by default in Quire: each such registration is its own
  /// step, which is what an ed-style command loop or a test wants; set it `true` for Apple's
  /// behaviour.
  open var groupsByEvent = false
  private var isEventGroupOpen = false
  /// The run-loop modes set through `runLoopModes`, by raw name.
  var runLoopModeNames: [String] = ["kCFRunLoopDefaultMode"]
  /// Whether the next step to undo or redo was marked discardable (``setActionIsDiscardable(_:)``).
  open private(set) var undoActionIsDiscardable = false
  open private(set) var redoActionIsDiscardable = false

  /// Marks the step being built as discardable (it changes nothing the user would save),
  /// as Apple's `setActionIsDiscardable(_:)`.
  open func setActionIsDiscardable(_ discardable: Bool) {
    if isUndoing { redoActionIsDiscardable = discardable } else { undoActionIsDiscardable = discardable }
  }

  private func closeEventGroup() {
    guard isEventGroupOpen else { return }
    isEventGroupOpen = false
    if openGroups.count == 1 { endUndoGrouping() }
  }

  /// Whether registrations are recorded (``disableUndoRegistration()`` turns them off).
  open var isUndoRegistrationEnabled: Bool { disableCount == 0 }

  /// Stops recording registrations until a matching ``enableUndoRegistration()``; calls nest.
  open func disableUndoRegistration() { disableCount += 1 }

  /// Balances one ``disableUndoRegistration()``.
  open func enableUndoRegistration() { disableCount = max(0, disableCount - 1) }

  // MARK: Grouping

  /// Opens a group: every registration until the matching ``endUndoGrouping()`` is one step.
  open func beginUndoGrouping() {
    if !openGroups.isEmpty { post(.NSUndoManagerCheckpoint) }
    openGroups.append(Group())
    post(.NSUndoManagerDidOpenUndoGroup)
  }

  /// Closes the innermost open group. Closing the outermost one makes an undo step (or a redo
  /// step while undoing) and, when it holds actions, tells observers ``Event/didCloseUndoGroup``.
  /// Without an open group it does nothing.
  open func endUndoGrouping() {
    guard !openGroups.isEmpty else { return }
    post(.NSUndoManagerCheckpoint)
    post(.NSUndoManagerWillCloseUndoGroup)
    let group = openGroups.removeLast()
    if !openGroups.isEmpty {
      if !group.isEmpty {
        openGroups[openGroups.count - 1].entries.append(.group(group))
        if openGroups[openGroups.count - 1].actionName.isEmpty {
          openGroups[openGroups.count - 1].actionName = group.actionName
        }
      }
      return
    }
    guard !group.isEmpty else { return }
    if isUndoing {
      redoStack.append(group)
    } else if isRedoing {
      undoStack.append(group)
    } else {
      undoStack.append(group)
      redoStack.removeAll()  // a new change makes the redo steps meaningless
      trim()
      notify(.didCloseUndoGroup)
    }
  }

  /// How deep the open groups are (0: none open).
  open var groupingLevel: Int { openGroups.count }

  /// Runs `body` inside one group named `actionName`, closing the group even if `body` throws.
  public func groupUndo<T>(named actionName: String? = nil, _ body: () throws -> T) rethrows -> T {
    beginUndoGrouping()
    defer { endUndoGrouping() }
    if let actionName { setActionName(actionName) }
    return try body()
  }

  // MARK: Undoing and redoing

  /// Whether there is a step to undo.
  open var canUndo: Bool { !undoStack.isEmpty || openGroups.first.map { !$0.isEmpty } == true }
  /// Whether there is a step to redo.
  open var canRedo: Bool { !redoStack.isEmpty }

  /// Undoes the last step. An open outermost group is closed first; with nested groups open
  /// it does nothing.
  open func undo() {
    guard openGroups.count <= 1, !isUndoing, !isRedoing else { return }
    isEventGroupOpen = false
    if openGroups.count == 1 { endUndoGrouping() }
    guard let group = undoStack.popLast() else { return }
    notify(.willUndoChange)
    isUndoing = true
    run(group, collectingInto: group.actionName)
    isUndoing = false
    notify(.didUndoChange)
  }

  /// Undoes everything in the innermost open group and discards it (Apple's
  /// `undoNestedGroup`); with no group open, the same as ``undo()``.
  open func undoNestedGroup() {
    guard let group = openGroups.popLast() else { return undo() }
    disableUndoRegistration()
    for entry in group.entries.reversed() { perform(entry) }
    enableUndoRegistration()
  }

  /// Redoes the last undone step.
  open func redo() {
    guard openGroups.isEmpty, !isUndoing, !isRedoing, let group = redoStack.popLast() else { return }
    notify(.willRedoChange)
    isRedoing = true
    run(group, collectingInto: group.actionName)
    isRedoing = false
    notify(.didRedoChange)
  }

  private func run(_ group: Group, collectingInto name: String) {
    beginUndoGrouping()
    setActionName(name)
    for entry in group.actions.reversed() { perform(entry) }
    endUndoGrouping()
  }

  private func perform(_ entry: Entry) {
    switch entry {
    case .action(let action):
      if let target = action.target { action.handler(target) }
    case .group(let group):
      for inner in group.actions.reversed() { perform(inner) }
    }
  }

  // MARK: Names

  /// Names the step being built (the open group), or else the last undo step; while undoing,
  /// names the redo step being built.
  open func setActionName(_ actionName: String) {
    if !openGroups.isEmpty {
      openGroups[openGroups.count - 1].actionName = actionName
    } else if !undoStack.isEmpty {
      undoStack[undoStack.count - 1].actionName = actionName
    }
  }

  /// The name of the step ``undo()`` would undo ("" when unnamed or none).
  open var undoActionName: String { undoStack.last?.actionName ?? "" }
  /// The name of the step ``redo()`` would redo.
  open var redoActionName: String { redoStack.last?.actionName ?? "" }
  /// "Undo" followed by the action name, for a menu or a prompt.
  open var undoMenuItemTitle: String { undoMenuTitle(forUndoActionName: undoActionName) }
  /// "Redo" followed by the action name.
  open var redoMenuItemTitle: String { redoMenuTitle(forUndoActionName: redoActionName) }

  /// The undo menu title for an action name, as Apple's: "Undo" alone for an empty name.
  open func undoMenuTitle(forUndoActionName actionName: String) -> String {
    actionName.isEmpty ? "Undo" : "Undo \(actionName)"
  }

  /// The redo menu title for an action name, as Apple's.
  open func redoMenuTitle(forUndoActionName actionName: String) -> String {
    actionName.isEmpty ? "Redo" : "Redo \(actionName)"
  }

  /// The run-loop modes Apple's manager closes event groups in. Quire has no run loop (it
  /// closes them at the end of the main-actor turn, see ``groupsByEvent``), so they are
  /// kept only to be read back; overridable, as Apple's, and not otherwise consulted.
  open var runLoopModes: [RunLoop.Mode] {
    get { runLoopModeNames.map { RunLoop.Mode($0) } }
    set { runLoopModeNames = newValue.map(\.rawValue) }
  }

  /// The number of undo and redo steps held.
  open var undoCount: Int { undoStack.count }
  open var redoCount: Int { redoStack.count }

  // MARK: Removing

  /// Forgets every step, and the stored history of the document that owns this undo manager
  /// (``Document/persistsUndoHistory``).
  open func removeAllActions() {
    removeAllSteps()
    forgetStoredHistory?()
  }

  /// Called by ``removeAllActions()``: the owning document forgets its stored history.
  var forgetStoredHistory: (@MainActor () -> Void)?

  /// Forgets every step held here; a stored history stays (a document's own close, open,
  /// revert and reload).
  func removeAllSteps() {
    undoStack.removeAll()
    redoStack.removeAll()
    openGroups = openGroups.map { _ in Group() }
  }

  /// Forgets every action registered for `target`, dropping steps left empty.
  open func removeAllActions(withTarget target: AnyObject) {
    undoStack = undoStack.map { $0.removingActions(withTarget: target) }.filter { !$0.isEmpty }
    redoStack = redoStack.map { $0.removingActions(withTarget: target) }.filter { !$0.isEmpty }
    openGroups = openGroups.map { $0.removingActions(withTarget: target) }
  }

  private func trim() {
    if levelsOfUndo > 0, undoStack.count > levelsOfUndo {
      undoStack.removeFirst(undoStack.count - levelsOfUndo)
    }
  }

  // MARK: Observing

  /// Calls `handler` for every ``Event`` until the returned token is cancelled.
  @discardableResult
  public func addObserver(_ handler: @escaping @MainActor (Event) -> Void) -> ObservationToken {
    observers.add(handler)
  }

  private func notify(_ event: Event) {
    observers.notify(event)
    switch event {
    case .didCloseUndoGroup: post(.NSUndoManagerDidCloseUndoGroup)
    case .willUndoChange: post(.NSUndoManagerWillUndoChange)
    case .didUndoChange: post(.NSUndoManagerDidUndoChange)
    case .willRedoChange: post(.NSUndoManagerWillRedoChange)
    case .didRedoChange: post(.NSUndoManagerDidRedoChange)
    }
  }

  private func post(_ name: Notification.Name) {
    NotificationCenter.default.post(name: name, object: self)
  }

  /// The steps as a tree, newest last, for tests and debugging.
  public var debugDescription: String {
    var lines = ["UndoManager (undo \(undoStack.count), redo \(redoStack.count))"]
    func describe(_ groups: [Group], _ title: String, last: Bool) {
      lines.append("\(last ? "└─" : "├─") \(title)")
      for (i, group) in groups.enumerated() {
        let name = group.actionName.isEmpty ? "(unnamed)" : group.actionName
        lines.append("\(last ? "   " : "│  ")\(i == groups.count - 1 ? "└─" : "├─") \(name): \(group.actionCount) action(s)")
      }
    }
    describe(undoStack, "undo", last: false)
    describe(redoStack, "redo", last: true)
    return lines.joined(separator: "\n")
  }
}

/// Keeps an observation alive until ``cancel()``.
@MainActor
public final class ObservationToken {
  private var onCancel: (@MainActor () -> Void)?
  init(_ onCancel: @escaping @MainActor () -> Void) { self.onCancel = onCancel }
  /// Stops the observation.
  public func cancel() {
    onCancel?()
    onCancel = nil
  }
}

/// The handlers observing one kind of event (an undo manager's events, a document's states or
/// file events), called in the order they were added, each until its token is cancelled.
@MainActor
final class ObserverList<Event> {
  private var handlers: [Int: @MainActor (Event) -> Void] = [:]
  private var nextID = 0

  /// Adds `handler`; cancelling the token removes it.
  func add(_ handler: @escaping @MainActor (Event) -> Void) -> ObservationToken {
    let id = nextID
    nextID += 1
    handlers[id] = handler
    return ObservationToken { [weak self] in self?.handlers[id] = nil }
  }

  /// Calls every handler with `event`, oldest first.
  func notify(_ event: Event) {
    for id in handlers.keys.sorted() { handlers[id]?(event) }
  }
}

extension Notification.Name {
  /// Posted when an ``UndoManager`` opens or closes a group (Apple's `NSUndoManagerCheckpoint`).
  // swift-format-ignore: AlwaysUseLowerCamelCase
  public static let NSUndoManagerCheckpoint = Notification.Name("NSUndoManagerCheckpointNotification")
  /// Posted after an ``UndoManager`` opens a group.
  // swift-format-ignore: AlwaysUseLowerCamelCase
  public static let NSUndoManagerDidOpenUndoGroup = Notification.Name("NSUndoManagerDidOpenUndoGroupNotification")
  /// Posted before an ``UndoManager`` closes a group.
  // swift-format-ignore: AlwaysUseLowerCamelCase
  public static let NSUndoManagerWillCloseUndoGroup = Notification.Name("NSUndoManagerWillCloseUndoGroupNotification")
  /// Posted after an ``UndoManager`` closed an outermost group that holds actions.
  // swift-format-ignore: AlwaysUseLowerCamelCase
  public static let NSUndoManagerDidCloseUndoGroup = Notification.Name("NSUndoManagerDidCloseUndoGroupNotification")
  /// Posted before an ``UndoManager`` undoes a step.
  // swift-format-ignore: AlwaysUseLowerCamelCase
  public static let NSUndoManagerWillUndoChange = Notification.Name("NSUndoManagerWillUndoChangeNotification")
  /// Posted after an ``UndoManager`` undid a step.
  // swift-format-ignore: AlwaysUseLowerCamelCase
  public static let NSUndoManagerDidUndoChange = Notification.Name("NSUndoManagerDidUndoChangeNotification")
  /// Posted before an ``UndoManager`` redoes a step.
  // swift-format-ignore: AlwaysUseLowerCamelCase
  public static let NSUndoManagerWillRedoChange = Notification.Name("NSUndoManagerWillRedoChangeNotification")
  /// Posted after an ``UndoManager`` redid a step.
  // swift-format-ignore: AlwaysUseLowerCamelCase
  public static let NSUndoManagerDidRedoChange = Notification.Name("NSUndoManagerDidRedoChangeNotification")
}
