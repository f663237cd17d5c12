import Foundation

/// The text the line editor works on: numbered lines, grouped undoable edits, and the file the
/// lines came from.
///
/// This is the seam between the ed engine and what holds the lines. ``InMemoryLineBuffer``
/// implements it with an array of lines and an undo stack of recorded edits, which is what
/// ed's line-addressed commands need (a line edit is an array splice, and undo restores the
/// current line); the document layer's `TextStorage` and `UndoManager` serve the library's
/// character-addressed `Document`s. Saving, versions, autosave and TextBundles go through the
/// document layer (see ``EdDocument``).
///
/// Line numbers here are 0-based indices; the engine converts from ed's 1-based addresses.
protocol LineBuffer: AnyObject {
  /// How many lines the buffer holds.
  var lineCount: Int { get }
  /// The text of the line at `index` (0-based), without its newline.
  func line(at index: Int) -> String
  /// Replaces the lines in `range` with `lines` (either may be empty: an insertion or a deletion).
  ///
  /// Recorded for undo in the open edit group.
  func replaceLines(in range: Range<Int>, with lines: [String])
  /// The bytes of the line at `index` (0-based), without its newline, exactly as they are: NUL
  /// bytes and bytes that are not UTF-8 included. The ed commands carry lines as bytes, so a
  /// buffer that holds bytes (ed edits binary files) gets them back unchanged.
  func lineBytes(at index: Int) -> [UInt8]
  /// ``replaceLines(in:with:)`` with lines given as bytes.
  func replaceLines(in range: Range<Int>, withBytes lines: [[UInt8]])

  /// Opens an undoable group; nested groups join the outermost one.
  ///
  /// - Parameters:
  ///   - name: What the group does, for `status` and menus ("substitute", "delete").
  ///   - cursor: The current line (1-based) before the edit, restored by undo.
  func beginEditGroup(named name: String, cursor: Int)
  /// Closes the group opened last; `cursor` (1-based) is restored by redo.
  func endEditGroup(cursor: Int)
  /// Undoes the last group and returns the current line to restore, or `nil` when there is
  /// nothing to undo.
  func undo() -> Int?
  /// Redoes the last undone group and returns the current line to restore, or `nil`.
  func redo() -> Int?
  /// How many groups can be undone and redone.
  var undoCount: Int { get }
  var redoCount: Int { get }

  /// Whether the lines differ from what was last read or written.
  var isEdited: Bool { get }
  /// A number that names the current state of the lines: it changes with every edit, undo,
  /// redo and reset, and comes back when undo or redo returns to an earlier state.
  var changeToken: Int { get }
  /// Marks the current lines as matching the file (after a whole-buffer write).
  func markSaved()
  /// Replaces every line without recording undo (ed's `e`): the undo history is cleared and
  /// the buffer is unedited.
  func reset(lines: [String])
}

extension LineBuffer {
  /// A buffer of `String` lines holds only UTF-8: its bytes are its lines' UTF-8.
  func lineBytes(at index: Int) -> [UInt8] { Array(line(at: index).utf8) }

  /// Decodes the bytes as UTF-8 (a buffer of `String` lines holds nothing else).
  func replaceLines(in range: Range<Int>, withBytes lines: [[UInt8]]) {
    replaceLines(in: range, with: lines.map { String(decoding: $0, as: UTF8.self) })
  }

  /// The bytes of the lines at `range` (0-based).
  func lineBytes(in range: Range<Int>) -> [[UInt8]] { range.map { lineBytes(at: $0) } }

  /// All lines, in order.
  var allLines: [String] { (0..<lineCount).map { line(at: $0) } }

  /// The lines at `range` (0-based).
  func lines(in range: Range<Int>) -> [String] { range.map { line(at: $0) } }

  /// Inserts `lines` before `index` (`index == lineCount` appends).
  func insertLines(_ lines: [String], at index: Int) { replaceLines(in: index..<index, with: lines) }

  /// Deletes the lines in `range`.
  func deleteLines(in range: Range<Int>) { replaceLines(in: range, with: []) }
}

/// A ``LineBuffer`` over an array of lines with a multi-level undo stack of recorded edits.
///
/// Each edit records what it removed and inserted, so undo applies the inverse edits in reverse
/// order and redo applies them again: memory grows with the edits, not with the file.
/// Not `Sendable`: one REPL owns it.
final class InMemoryLineBuffer: LineBuffer {
  private struct Edit {
    var start: Int
    var removed: [String]
    var inserted: [String]
  }

  private struct Group {
    var name: String
    var edits: [Edit] = []
    var cursorBefore: Int
    var cursorAfter: Int = 0
    /// A number unique to this group, so "the state after this group" has an identity.
    var generation: Int
  }

  private var storage: [String]
  private var undoStack: [Group] = []
  private var redoStack: [Group] = []
  private var openGroup: Group?
  private var nesting = 0
  private var nextGeneration = 1
  /// The generation of the state last saved (0: the state as loaded).
  private var savedGeneration = 0
  /// The generation of the state with an empty undo stack.
  private var baseGeneration = 0
  /// Most undo levels kept; older groups are dropped.
  let undoLimit: Int

  init(lines: [String] = [], undoLimit: Int = 1000) {
    storage = lines
    self.undoLimit = undoLimit
  }

  var lineCount: Int { storage.count }

  func line(at index: Int) -> String { storage[index] }

  func replaceLines(in range: Range<Int>, with lines: [String]) {
    let removed = Array(storage[range])
    if removed.isEmpty && lines.isEmpty { return }
    storage.replaceSubrange(range, with: lines)
    let edit = Edit(start: range.lowerBound, removed: removed, inserted: lines)
    if openGroup != nil {
      openGroup?.edits.append(edit)
    } else {
      // An edit outside any group is its own group.
      var group = Group(name: "edit", cursorBefore: 0, generation: takeGeneration())
      group.edits = [edit]
      push(group)
    }
  }

  func beginEditGroup(named name: String, cursor: Int) {
    nesting += 1
    if nesting == 1 {
      openGroup = Group(name: name, cursorBefore: cursor, generation: 0)
    }
  }

  func endEditGroup(cursor: Int) {
    guard nesting > 0 else { return }
    nesting -= 1
    guard nesting == 0, var group = openGroup else { return }
    openGroup = nil
    guard !group.edits.isEmpty else { return }
    group.cursorAfter = cursor
    group.generation = takeGeneration()
    push(group)
  }

  func undo() -> Int? {
    guard let group = undoStack.popLast() else { return nil }
    for edit in group.edits.reversed() {
      storage.replaceSubrange(edit.start..<(edit.start + edit.inserted.count), with: edit.removed)
    }
    redoStack.append(group)
    return group.cursorBefore
  }

  func redo() -> Int? {
    guard let group = redoStack.popLast() else { return nil }
    for edit in group.edits {
      storage.replaceSubrange(edit.start..<(edit.start + edit.removed.count), with: edit.inserted)
    }
    undoStack.append(group)
    return group.cursorAfter
  }

  var undoCount: Int { undoStack.count }
  var redoCount: Int { redoStack.count }

  /// The name of the group `undo` would undo.
  var undoActionName: String? { undoStack.last?.name }

  var isEdited: Bool { currentGeneration != savedGeneration }

  var changeToken: Int { currentGeneration }

  func markSaved() { savedGeneration = currentGeneration }

  func reset(lines: [String]) {
    storage = lines
    undoStack = []
    redoStack = []
    baseGeneration = takeGeneration()
    savedGeneration = baseGeneration
  }

  private var currentGeneration: Int { undoStack.last?.generation ?? baseGeneration }

  private func takeGeneration() -> Int {
    defer { nextGeneration += 1 }
    return nextGeneration
  }

  private func push(_ group: Group) {
    undoStack.append(group)
    redoStack.removeAll()
    if undoStack.count > undoLimit {
      // The state before the dropped group can no longer be reached by undo.
      baseGeneration = undoStack.removeFirst().generation
    }
  }
}
