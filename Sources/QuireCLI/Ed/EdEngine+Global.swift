/// `g`, `v`, `G`, `V`: a command list run on each line that matches (or does not).
extension EdEngine {
  /// Runs `command` over `addresses` (every line without addresses).
  func global(_ command: EdCommand.GlobalCommand, addresses: Addresses, input: @escaping () -> String?) async throws(EdError) -> Outcome {
    if globalLines != nil { throw EdError("g and v cannot be nested", ed: "Cannot nest global commands") }
    var addresses = addresses
    if addresses.count == 0 {
      addresses.first = 1
      addresses.second = lastLine
    }
    try requireRange(addresses)
    let compiled = try regex(for: command.pattern, ignoringCase: command.ignoresCase)
    if !command.isInteractive && command.commands == ["d"] {
      try deleteInOnePass(addresses, compiled.regex, matching: command.matching)
      return .proceed
    }
    var lines: [Int] = []
    try buffer.forEachLine(in: (addresses.first - 1)..<addresses.second) { (index, bytes) throws(EdError) in
      if isInterrupted { throw EdError.interrupted }
      if try compiled.regex.matches(bytes) == command.matching { lines.append(index + 1) }
    }
    globalLines = lines
    globalCursor = 0
    globalOffset = 0
    globalHasEdited = false
    undoesGlobal = false
    defer {
      globalLines = nil
      globalHasEdited = false
    }
    var outcome = Outcome.proceed
    var commands = command.commands
    try await editAsync("global") { () async throws(EdError) in
      while let lines = globalLines, globalCursor < lines.count {
        if isInterrupted { throw EdError.interrupted }
        let line = lines[globalCursor] + globalOffset
        globalCursor += 1
        document.currentLine = line
        if command.isInteractive {
          guard try readInteractiveCommands(for: line, command.flags, into: &commands, input: input) else { continue }
        }
        if try await runCommandList(commands) == .quit {
          outcome = .quit
          return
        }
      }
    }
    if undoesGlobal {
      undoesGlobal = false
      undoneByU = nil
      try toggleUndo()
    }
    // As ed: G's and V's print suffix prints the current line once more at the end.
    if command.isInteractive && outcome == .proceed { try printCurrent(command.flags) }
    return outcome
  }

  /// `G` and `V`: prints `line`, then reads the command for it into `commands` (`&`: the last
  /// one again). Returns `false` for an empty line: no command for this line.
  private func readInteractiveCommands(
    for line: Int, _ flags: PrintFlags, into commands: inout [String], input: () -> String?
  ) throws(EdError) -> Bool {
    printLine(line, flags: flags)
    guard let typed = input() else { throw EdError("the input ended inside G or V", ed: "Unexpected end-of-file") }
    if typed.isEmpty { return false }
    if typed == "&" {
      guard !commands.isEmpty else { throw EdError("no previous command for & in G or V", ed: "No previous command") }
    } else {
      commands = [typed]
      while let last = commands.last, last.hasSuffix("\\"), let next = input() { commands.append(next) }
    }
    return true
  }

  /// Runs a `g` command list on the current line. Its lines are kept as typed; each is handed
  /// out without its backslash, and whether it had one says whether an `s` replacement goes on
  /// to the next line, as in GNU ed.
  private func runCommandList(_ commands: [String]) async throws(EdError) -> Outcome {
    var next = 0
    var continued = false
    let listInput: () -> String? = {
      guard next < commands.count else { return nil }
      var line = commands[next]
      next += 1
      continued = line.hasSuffix("\\")
      if continued { line.removeLast() }
      return line
    }
    while let command = listInput() {
      var scanner = CommandScanner(command, continuation: listInput)
      scanner.endsWithEscapedNewline = continued
      scanner.continuedAfterPull = { continued }
      if try await run(&scanner, input: listInput) == .quit { return .quit }
    }
    return .proceed
  }

  /// `g/re/d` (and `v/re/d`): the lines are read in place and the matching ones deleted
  /// together in one edit of the buffer, as ed's `d` on each would leave the text, the marks,
  /// the cut buffer and the current line.
  private func deleteInOnePass(_ addresses: Addresses, _ regex: borrowing POSIXRegex, matching: Bool) throws(EdError) {
    try edit("global") { () throws(EdError) in
      let deleted = try replaceMatchingLinesInOnePass(addresses, regex, matching: matching) { _ in [] }
      guard let last = deleted.last else { return }
      // As d on the last line deleted: the line after it, or the new last line.
      document.currentLine = min(last.index + 1 - (deleted.count - 1), lastLine)
    }
  }
}
