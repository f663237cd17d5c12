import Foundation
import Quire

/// The lines the line editor works on, over a ``PlainTextDocument``: the lines are the document's `TextStorage`,
/// held byte for byte as ed holds them (NUL bytes, bytes that are not UTF-8, ed's "newline
/// appended" rule), and each command's edits are one undo group of the document's
/// ``UndoManager``: `u`, `undo` and `redo` are the document's, and so is its change count.
///
/// The current line to restore is registered in the same group, so undo and redo put it back
/// with the text. Nothing is copied per command: a line read is a read of the storage, an edit
/// registers the replaced bytes only.
@MainActor
final class DocumentLineBuffer {
  /// The document whose text the lines are.
  let document: PlainTextDocument
  private var token = 0
  private var groupDepth = 0
  private var groupName = ""
  private var cursorBefore = 0
  private var groupHasEdits = false
  /// Set by the cursor records while undoing or redoing.
  private var restoredCursor: Int?

  /// Whether a NUL byte came into the buffer since it was last read whole: GNU ed's "binary"
  /// buffer, as sticky as ed's (deleting the NUL bytes does not clear it). The file's own NUL
  /// bytes are the document's to find (``PlainTextDocument/readHeldNULBytes``, while it reads
  /// the lines). A binary buffer's last line without a newline is kept without one when it is
  /// read, appended to and written, until that line is changed (which ends it, as ed does; undo
  /// takes the newline back out).
  private(set) var isBinary = false

  /// A buffer over `document`, which must be open.
  init(document: PlainTextDocument) {
    self.document = document
    isBinary = document.readHeldNULBytes
  }

  /// Whether the last line has no newline (only ever in a binary buffer).
  var endsWithUnendedLine: Bool { !document.storage.endsWithNewline }

  /// A buffer over an untitled document (``DocumentController/makeUntitledTextDocument(options:)``,
  /// which has no file: nothing is read or written for it until `w FILE` or `f FILE` names
  /// one), holding `contents` as ed reads a file's bytes: byte for byte, with ed's missing
  /// final newline appended (not to a binary file's), without autosave.
  convenience init(untitled contents: Data = Data(), with controller: DocumentController, options: DocumentOptions = .exactBytes) throws(EdError) {
    self.init(document: controller.makeUntitledTextDocument(options: options.withoutAutosave))
    if !contents.isEmpty { try reset(contents: contents, fingerprint: nil) }
  }

  /// Runs `body`, which changes the document through its own API (a restored version, an
  /// added asset, a revert), as the edit group `name`: one undo step, with the current line
  /// (1-based) `cursor` restored by undo.
  func editDocument(named name: String, cursor: Int, _ body: (PlainTextDocument) async throws -> Void) async throws(EdError) {
    beginEditGroup(named: name, cursor: cursor)
    defer { endEditGroup(cursor: lineCount) }
    if !groupHasEdits {
      groupHasEdits = true
      registerCursor(restoring: cursorBefore, thenRestoring: nil)
    }
    do {
      try await body(document)
    } catch let error as EdError {
      throw error
    } catch {
      throw EdError("cannot change '\(document.fileURL.lastPathComponent)': \(REPLSession.message(for: error))")
    }
    // A revert or restore reads text whole (the document says whether it held a NUL byte); as
    // in ed, a buffer stays binary once it was.
    isBinary = isBinary || document.readHeldNULBytes
    token += 1
  }

  /// How many lines the buffer holds.
  var lineCount: Int { document.lineCount }

  /// The text of the line at `index` (0-based), without its newline.
  func line(at index: Int) -> String { String(decoding: document.lineBytes(at: index), as: UTF8.self) }

  /// The bytes of the line at `index` (0-based), without its newline, exactly as they are: NUL
  /// bytes and bytes that are not UTF-8 included. The ed commands carry lines as bytes, so a
  /// buffer that holds bytes (ed edits binary files) gets them back unchanged.
  func lineBytes(at index: Int) -> [UInt8] { document.lineBytes(at: index) }

  /// Replaces the lines in `range` with `lines` (either may be empty: an insertion or a deletion).
  ///
  /// Recorded for undo in the open edit group.
  func replaceLines(in range: Range<Int>, with lines: [String]) throws(EdError) {
    try replaceLines(in: range, withBytes: lines.map { Array($0.utf8) })
  }

  /// ``replaceLines(in:with:)`` with lines given as bytes.
  func replaceLines(in range: Range<Int>, withBytes lines: [[UInt8]]) throws(EdError) {
    if range.isEmpty && lines.isEmpty { return }
    let standalone = groupDepth == 0
    if standalone { beginEditGroup(named: "edit", cursor: 0) }
    defer { if standalone { endEditGroup(cursor: range.lowerBound + lines.count) } }
    if !groupHasEdits {
      groupHasEdits = true
      registerCursor(restoring: cursorBefore, thenRestoring: nil)
    }
    do {
      if isBinary && !range.isEmpty && range.upperBound == lineCount && !document.storage.endsWithNewline {
        // As ed: changing a binary file's unended last line ends it.
        let end = document.storage.utf8Count
        try document.replaceBytes(inUTF8Range: end..<end, with: [UInt8(ascii: "\n")])
      }
      try document.replaceLines(in: range, withBytes: lines)
    } catch {
      throw EdError("cannot change '\(document.fileURL.lastPathComponent)': \(REPLSession.message(for: error))")
    }
    if !isBinary, lines.contains(where: { $0.contains(0) }) { isBinary = true }
    token += 1
  }

  /// Calls `body` with each line in `range` (0-based) and its bytes without the newline, in
  /// order, read in place (the pointer is valid only during the call).
  func forEachLine(in range: Range<Int>, _ body: (Int, UnsafeBufferPointer<UInt8>) throws(EdError) -> Void) throws(EdError) {
    var failure: EdError?
    do {
      try document.storage.forEachLine(in: range) { index, bytes in
        do throws(EdError) {
          try body(index, bytes)
        } catch {
          failure = error
          throw error
        }
      }
    } catch {
      throw failure ?? EdError("cannot read '\(document.fileURL.lastPathComponent)': \(REPLSession.message(for: error))")
    }
  }

  /// Passes each line in `range` (0-based) to `transform`, in order, as its bytes without the
  /// newline (valid only during the call), and replaces each line for which it returns lines
  /// with those lines, all in one pass and one undo record (an `s` over many lines).
  ///
  /// - Returns: The lines changed, in ascending order: the index each had before the edit and
  ///   how many lines took its place.
  func editLines(
    in range: Range<Int>, _ transform: (Int, UnsafeBufferPointer<UInt8>) throws(EdError) -> [[UInt8]]?
  ) throws(EdError) -> [(index: Int, count: Int)] {
    var changed: [(index: Int, count: Int)] = []
    var failure: EdError?
    let standalone = groupDepth == 0
    if standalone { beginEditGroup(named: "edit", cursor: 0) }
    defer { if standalone { endEditGroup(cursor: changed.last.map { $0.index + $0.count } ?? 0) } }
    // The document's text before the edit: read while the edit builds the new text.
    let source = document.storage
    do {
      try document.editLines { editor in
        try source.forEachLine(in: range) { index, bytes in
          let lines: [[UInt8]]?
          do throws(EdError) {
            lines = try transform(index, bytes)
          } catch {
            failure = error
            throw error
          }
          guard let lines else { return }
          try editor.replaceLines(in: index..<(index + 1), withBytes: lines)
          changed.append((index, lines.count))
        }
        // No line changed: leave the text (and the undo history) alone.
        if changed.isEmpty { throw CancellationError() }
      }
    } catch {
      if let failure { throw failure }
      if changed.isEmpty { return changed }
      throw EdError("cannot change '\(document.fileURL.lastPathComponent)': \(REPLSession.message(for: error))")
    }
    guard let last = changed.last else { return changed }
    if !groupHasEdits {
      groupHasEdits = true
      // After the text's record here (its change was only known once made): the cursor
      // records only set the line to restore, so their order in the group does not matter.
      registerCursor(restoring: cursorBefore, thenRestoring: nil)
    }
    if isBinary && last.count > 0 && last.index == source.lineCount - 1 && !source.endsWithNewline {
      // As ed: changing a binary file's unended last line ends it.
      do {
        let end = document.storage.utf8Count
        try document.replaceBytes(inUTF8Range: end..<end, with: [UInt8(ascii: "\n")])
      } catch {
        throw EdError("cannot change '\(document.fileURL.lastPathComponent)': \(REPLSession.message(for: error))")
      }
    }
    token += 1
    return changed
  }

  /// The bytes of the lines in `range` (0-based) as the file holds them: each followed by its
  /// newline, except a last line that has none (a binary file's, see
  /// ``DocumentLineBuffer/isBinary``).
  func bytes(ofLines range: Range<Int>) -> [UInt8] {
    let storage = document.storage
    guard !range.isEmpty else { return [] }
    let start = storage.utf8Offset(ofLine: range.lowerBound)
    let end = range.upperBound < storage.lineCount ? storage.utf8Offset(ofLine: range.upperBound) : storage.utf8Count
    var bytes = storage.utf8Bytes(in: start..<end)
    // A last line without a newline gets one, unless the buffer is binary (as ed writes it).
    if range.upperBound == storage.lineCount && !storage.endsWithNewline && !isBinary { bytes.append(UInt8(ascii: "\n")) }
    return bytes
  }

  /// Appends `bytes` (lines, each ended by a newline, except perhaps the last) after the last
  /// line, exactly: GNU ed's read of a binary file at the end of the buffer adds no newline.
  func appendBytes(_ bytes: [UInt8]) throws(EdError) {
    guard !bytes.isEmpty else { return }
    let standalone = groupDepth == 0
    if standalone { beginEditGroup(named: "read", cursor: 0) }
    defer { if standalone { endEditGroup(cursor: lineCount) } }
    if !groupHasEdits {
      groupHasEdits = true
      registerCursor(restoring: cursorBefore, thenRestoring: nil)
    }
    do {
      var end = document.storage.utf8Count
      if !document.storage.endsWithNewline {
        try document.replaceBytes(inUTF8Range: end..<end, with: [UInt8(ascii: "\n")])
        end += 1
      }
      try document.replaceBytes(inUTF8Range: end..<end, with: bytes)
    } catch {
      throw EdError("cannot change '\(document.fileURL.lastPathComponent)': \(REPLSession.message(for: error))")
    }
    if bytes.contains(0) { isBinary = true }
    token += 1
  }

  /// Opens an undoable group; nested groups join the outermost one.
  ///
  /// - Parameters:
  ///   - name: What the group does, for `status` and menus ("substitute", "delete").
  ///   - cursor: The current line (1-based) before the edit, restored by undo.
  func beginEditGroup(named name: String, cursor: Int) {
    groupDepth += 1
    guard groupDepth == 1 else { return }
    document.undoManager.beginUndoGrouping()
    groupName = name
    cursorBefore = cursor
    groupHasEdits = false
  }

  /// Closes the group opened last; `cursor` (1-based) is restored by redo.
  func endEditGroup(cursor: Int) {
    guard groupDepth > 0 else { return }
    groupDepth -= 1
    guard groupDepth == 0 else { return }
    if groupHasEdits {
      registerCursor(restoring: nil, thenRestoring: cursor)
      document.undoManager.setActionName(groupName)
    }
    document.undoManager.endUndoGrouping()
  }

  /// Registers a record that sets the current line to `cursor` when undone (or redone) and
  /// registers its opposite, which sets `next`. The group's first record restores the line
  /// before the command when undone (it is undone last); its last restores the line after it
  /// when redone (it is redone last).
  private func registerCursor(restoring cursor: Int?, thenRestoring next: Int?) {
    // The current line is the session's, not the text's: a stored history leaves it out.
    document.undoManager.registerTransientUndo(withTarget: self) { buffer in
      if let cursor { buffer.restoredCursor = cursor }
      buffer.registerCursor(restoring: next, thenRestoring: cursor)
    }
  }

  /// Undoes the last group and returns the current line to restore, or `nil` when there is
  /// nothing to undo.
  func undo() -> Int? {
    guard groupDepth == 0, document.undoManager.canUndo else { return nil }
    restoredCursor = nil
    document.undoManager.undo()
    token += 1
    return restoredCursor ?? 0
  }

  /// Redoes the last undone group and returns the current line to restore, or `nil`.
  func redo() -> Int? {
    guard groupDepth == 0, document.undoManager.canRedo else { return nil }
    restoredCursor = nil
    document.undoManager.redo()
    token += 1
    return restoredCursor ?? lineCount
  }

  /// How many groups can be undone and redone.
  var undoCount: Int { document.undoManager.undoCount }
  var redoCount: Int { document.undoManager.redoCount }
  /// Whether the group ``undo()`` would undo is from an earlier session (a stored history).
  var undoStepIsFromEarlierSession: Bool { document.undoManager.undoStepIsFromEarlierSession }

  /// Whether the lines differ from what was last read or written.
  var isEdited: Bool { document.hasUnsavedChanges }

  /// A number that names the current state of the lines: it changes with every edit, undo,
  /// redo and reset, and comes back when undo or redo returns to an earlier state.
  var changeToken: Int { token }

  /// The lines match the file now: the document is clean, and its recovery file (and an
  /// offered crash version) is dropped.
  func markSaved() {
    document.updateChangeCount(.cleared)
    document.discardRecoveredVersion()
  }

  /// Marks the lines as differing from the file without an edit (ed's move of lines onto
  /// themselves modifies the buffer and leaves nothing to undo).
  func markModified() { document.updateChangeCount(.done) }

  /// Replaces every line with the lines of `contents` (each ended by a newline; a last one
  /// without gets one, unless the text holds NUL bytes) without recording undo (ed's `e`): the
  /// undo history is cleared and the buffer is unedited. `fingerprint` is the file's as read
  /// (``Document/revert(toContents:fingerprint:)``), `nil` when the bytes are not a file's.
  func reset(contents: Data, fingerprint: FileFingerprint?) throws(EdError) {
    // As ed: a last line without a newline gets one, unless the text is binary (the document's
    // rule, ``PlainTextDocument/appendsMissingFinalNewline``).
    do {
      try document.revert(toContents: contents, fingerprint: fingerprint)
    } catch {
      throw EdError("cannot read '\(document.fileURL.lastPathComponent)': \(REPLSession.message(for: error))")
    }
    isBinary = document.readHeldNULBytes
    groupDepth = 0
    token += 1
  }

  /// Notes that the document changed its text itself (a merge, a reload): ``changeToken`` moves.
  func noteChangedOutside() { token += 1 }
}

extension DocumentLineBuffer {
  /// The bytes of the lines at `range` (0-based).
  func lineBytes(in range: Range<Int>) -> [[UInt8]] { range.map { lineBytes(at: $0) } }

  /// All lines, in order.
  var allLines: [String] { (0..<lineCount).map { line(at: $0) } }

  /// The lines at `range` (0-based).
  func lines(in range: Range<Int>) -> [String] { range.map { line(at: $0) } }

  /// Inserts `lines` before `index` (`index == lineCount` appends).
  func insertLines(_ lines: [String], at index: Int) throws(EdError) { try replaceLines(in: index..<index, with: lines) }

  /// Deletes the lines in `range`.
  func deleteLines(in range: Range<Int>) throws(EdError) { try replaceLines(in: range, with: []) }
}
