import QuireDocuments
import Testing

/// A tiny model that registers its own undo, as a document does.
@MainActor
final class Counter {
  var value = 0
  let undoManager: UndoManager
  init(_ undoManager: UndoManager) { self.undoManager = undoManager }

  func set(_ newValue: Int) {
    let old = value
    value = newValue
    undoManager.registerUndo(withTarget: self) { $0.set(old) }
  }
}

@Suite("Undo manager")
@MainActor
struct UndoManagerTests {
  @Test func undoAndRedoFollowRegistrations() {
    let manager = UndoManager()
    let counter = Counter(manager)
    counter.set(1)
    counter.set(2)
    #expect(manager.canUndo && !manager.canRedo)
    manager.undo()
    #expect(counter.value == 1)
    #expect(manager.canRedo)
    manager.undo()
    #expect(counter.value == 0)
    #expect(!manager.canUndo)
    manager.redo()
    manager.redo()
    #expect(counter.value == 2)
    #expect(!manager.canRedo)
    manager.undo()
    #expect(counter.value == 1)
  }

  @Test func aNewChangeClearsRedo() {
    let manager = UndoManager()
    let counter = Counter(manager)
    counter.set(1)
    manager.undo()
    #expect(manager.canRedo)
    counter.set(5)
    #expect(!manager.canRedo)
  }

  @Test func groupsUndoAsOneStepAndNest() {
    let manager = UndoManager()
    let counter = Counter(manager)
    manager.beginUndoGrouping()
    counter.set(1)
    manager.beginUndoGrouping()
    counter.set(2)
    counter.set(3)
    manager.endUndoGrouping()
    #expect(manager.groupingLevel == 1)
    counter.set(4)
    manager.endUndoGrouping()
    #expect(manager.undoCount == 1)
    manager.undo()
    #expect(counter.value == 0)
    manager.redo()
    #expect(counter.value == 4)
  }

  @Test func groupUndoClosesTheGroupWhenTheBodyThrows() {
    struct Oops: Error {}
    let manager = UndoManager()
    let counter = Counter(manager)
    #expect(throws: Oops.self) {
      try manager.groupUndo(named: "Typing") {
        counter.set(1)
        throw Oops()
      }
    }
    #expect(manager.groupingLevel == 0)
    #expect(manager.undoActionName == "Typing")
  }

  @Test func actionNamesFollowUndoAndRedo() {
    let manager = UndoManager()
    let counter = Counter(manager)
    manager.groupUndo(named: "Set One") { counter.set(1) }
    counter.set(2)
    manager.setActionName("Set Two")
    #expect(manager.undoActionName == "Set Two")
    #expect(manager.undoMenuItemTitle == "Undo Set Two")
    manager.undo()
    #expect(manager.redoActionName == "Set Two")
    #expect(manager.undoActionName == "Set One")
    #expect(manager.redoMenuItemTitle == "Redo Set Two")
  }

  @Test func levelsOfUndoDropTheOldestSteps() {
    let manager = UndoManager()
    manager.levelsOfUndo = 3
    let counter = Counter(manager)
    for value in 1...10 { counter.set(value) }
    #expect(manager.undoCount == 3)
    while manager.canUndo { manager.undo() }
    #expect(counter.value == 7)
  }

  @Test func disabledRegistrationRecordsNothingAndNests() {
    let manager = UndoManager()
    let counter = Counter(manager)
    manager.disableUndoRegistration()
    manager.disableUndoRegistration()
    counter.set(1)
    manager.enableUndoRegistration()
    #expect(!manager.isUndoRegistrationEnabled)
    counter.set(2)
    manager.enableUndoRegistration()
    #expect(manager.isUndoRegistrationEnabled)
    #expect(!manager.canUndo)
    counter.set(3)
    manager.undo()
    #expect(counter.value == 2)
  }

  @Test func removeAllActionsWithTargetKeepsOtherTargets() {
    let manager = UndoManager()
    let a = Counter(manager)
    let b = Counter(manager)
    a.set(1)
    b.set(1)
    manager.groupUndo {
      a.set(2)
      b.set(2)
    }
    manager.removeAllActions(withTarget: a)
    #expect(manager.undoCount == 2)
    manager.undo()
    manager.undo()
    #expect(a.value == 2)
    #expect(b.value == 0)
    #expect(!manager.canUndo)
  }

  @Test func observersSeeClosesUndosAndRedosButNotTheRedoGroups() {
    let manager = UndoManager()
    let counter = Counter(manager)
    var events: [UndoManager.Event] = []
    let token = manager.addObserver { events.append($0) }
    counter.set(1)
    manager.undo()
    manager.redo()
    #expect(events == [.didCloseUndoGroup, .willUndoChange, .didUndoChange, .willRedoChange, .didRedoChange])
    #expect(!manager.isUndoing && !manager.isRedoing)
    token.cancel()
    counter.set(2)
    #expect(events.count == 5)
  }

  @Test func handlersSeeIsUndoingAndIsRedoing() {
    let manager = UndoManager()
    final class Probe {
      var seen: [String] = []
    }
    let probe = Probe()
    @MainActor func change(_ probe: Probe) {
      probe.seen.append(manager.isUndoing ? "undoing" : manager.isRedoing ? "redoing" : "doing")
      manager.registerUndo(withTarget: probe) { change($0) }
    }
    change(probe)
    manager.undo()
    manager.redo()
    #expect(probe.seen == ["doing", "undoing", "redoing"])
  }

  @Test func undoWithNestedGroupsOpenDoesNothing() {
    let manager = UndoManager()
    let counter = Counter(manager)
    counter.set(1)
    manager.beginUndoGrouping()
    manager.beginUndoGrouping()
    manager.undo()
    #expect(counter.value == 1)
    manager.endUndoGrouping()
    manager.endUndoGrouping()
    manager.undo()
    #expect(counter.value == 0)
  }

  @Test func aTargetThatIsGoneIsSkipped() {
    let manager = UndoManager()
    var counter: Counter? = Counter(manager)
    counter?.set(1)
    counter = nil
    manager.undo()  // must not crash
    #expect(!manager.canUndo)
  }

  @Test func debugDescriptionIsATree() {
    let manager = UndoManager()
    let counter = Counter(manager)
    manager.groupUndo(named: "Typing") { counter.set(1) }
    #expect(
      manager.debugDescription == """
        UndoManager (undo 1, redo 0)
        ├─ undo
        │  └─ Typing: 1 action(s)
        └─ redo
        """)
  }
}
