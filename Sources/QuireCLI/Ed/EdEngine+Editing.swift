/// Edits as ed makes them: each command one undoable step of the document, with marks and the
/// lines `g` has still to visit kept in step.
extension EdEngine {
  /// Runs `body` as one undoable step.
  ///
  /// A command that changes nothing (`g/zzz/d`, `a` with no text, an `s` that finds no match)
  /// still counts as the last change for `u`, which then has nothing to undo, as in ed.
  func edit(_ name: String, _ body: () throws(EdError) -> Void) throws(EdError) {
    let before = beginEdit(name)
    defer { endEdit(since: before) }
    try body()
  }

  /// ``edit(_:_:)`` for a body that awaits (a `g` command list, which may `w`).
  func editAsync(_ name: String, _ body: () async throws(EdError) -> Void) async throws(EdError) {
    let before = beginEdit(name)
    defer { endEdit(since: before) }
    try await body()
  }

  /// Opens the undoable step of ``edit(_:_:)``; returns the buffer's change token before it.
  func beginEdit(_ name: String) -> Int {
    let before = buffer.changeToken
    editDepth += 1
    buffer.beginEditGroup(named: name, cursor: document.currentLine)
    return before
  }

  /// Closes the step ``beginEdit(_:)`` opened; one that changed nothing is still the last change.
  func endEdit(since before: Int) {
    buffer.endEditGroup(cursor: document.currentLine)
    editDepth -= 1
    if editDepth == 0 && buffer.changeToken == before { markUnchanged() }
  }

  /// Records that the last command changed nothing: `u` now has nothing to undo.
  func markUnchanged() {
    if editDepth == 0 { undoBarrier = buffer.changeToken }
  }

  /// Replaces lines `range` (0-based) and keeps marks and the lines `g` will visit in step.
  func replace(_ range: Range<Int>, with lines: [[UInt8]]) throws(EdError) {
    try buffer.replaceLines(in: range, withBytes: lines)
    if globalLines != nil { globalHasEdited = true }
    let delta = lines.count - range.count
    // As ed, which replaces a line by deleting it and adding a new one: a mark on a replaced
    // line is gone, and g does not visit the new line.
    let map: (Int) -> Int? = { line in
      let index = line - 1
      if index < range.lowerBound { return line }
      if index >= range.upperBound { return line + delta }
      return nil
    }
    if let next = nextGlobalLine, next - 1 >= range.upperBound {
      // The edit is above every line g has still to visit (the usual case: g edits the line
      // it is on): they all shift by the same amount.
      globalOffset += delta
      remapMarks(map)
    } else {
      remapLines(map)
    }
  }

  /// The next line `g` will visit, if any.
  var nextGlobalLine: Int? {
    guard let lines = globalLines, globalCursor < lines.count else { return nil }
    return lines[globalCursor] + globalOffset
  }

  func remapMarks(_ map: (Int) -> Int?) {
    if !document.marks.isEmpty {
      document.marks = document.marks.compactMapValues(map)
    }
  }

  /// Applies `map` (1-based line → new line, or nil when it is gone) to marks and `g`'s lines.
  func remapLines(_ map: (Int) -> Int?) {
    remapMarks(map)
    remapGlobalLines(map)
  }

  /// Applies `map` to the lines `g` has still to visit.
  func remapGlobalLines(_ map: (Int) -> Int?) {
    if let lines = globalLines {
      var kept: [Int] = []
      kept.reserveCapacity(lines.count - globalCursor)
      for line in lines[globalCursor...] {
        if let moved = map(line + globalOffset) { kept.append(moved) }
      }
      globalLines = kept
      globalCursor = 0
      globalOffset = 0
    }
  }

  func moveLines(_ addresses: Addresses, after destination: Int) throws(EdError) {
    let first = addresses.first
    let second = addresses.second
    if destination >= first && destination < second {
      throw EdError("invalid destination: line \(destination) is inside the lines being moved (\(first)-\(second))")
    }
    if destination == first - 1 || destination == second {
      // The lines stay where they are, but ed counts the move as a change that u cannot undo:
      // the buffer is modified, and g does not visit the lines again.
      buffer.markModified()
      document.currentLine = second
      markUnchanged()
      if nextGlobalLine != nil { remapGlobalLines { $0 >= first && $0 <= second ? nil : $0 } }
      return
    }
    let lines = buffer.lineBytes(in: (first - 1)..<second)
    let count = lines.count
    try edit("move") { () throws(EdError) in
      // Lines keep their marks: compute where every line ends up, then edit.
      let target = destination > second ? destination - count : destination
      let map: (Int) -> Int? = { line in
        if line >= first && line <= second { return target + (line - first) + 1 }
        let afterRemoval = line > second ? line - count : line
        return afterRemoval > target ? afterRemoval + count : afterRemoval
      }
      try buffer.replaceLines(in: (first - 1)..<second, withBytes: [])
      try buffer.replaceLines(in: target..<target, withBytes: lines)
      if globalLines != nil { globalHasEdited = true }
      // A move renumbers only the lines between its source and its destination. Marks follow
      // the moved lines; g does not visit them again (ed takes them off its list).
      let spanEnd = max(second, target + count)
      remapMarks(map)
      if let next = nextGlobalLine, next <= spanEnd {
        remapGlobalLines { line in line >= first && line <= second ? nil : map(line) }
      }
      document.currentLine = target + count
    }
  }
}
