/// Running ed's `s` over the document's lines (the substitution of one line is
/// ``Substitute``'s, a pure function).
extension EdEngine {
  /// What one `s` does, once its parts are settled against the last substitution.
  private struct SubstitutionRun {
    var regex: CompiledRegex
    var replacement: [UInt8]
    var global: Bool
    var occurrence: Int
    var flags: PrintFlags
    var isBare: Bool
  }

  /// `s/re/replacement/flags` and a bare `s`.
  func substitute(_ substitution: EdCommand.Substitution, addresses: Addresses) throws(EdError) {
    try requireRange(addresses)
    let run = try settle(substitution)
    var changedAny = false
    try edit("substitute") { () throws(EdError) in
      if globalLines == nil {
        // Outside g: every line's change in one pass and one undo record.
        changedAny = try substituteInOnePass(addresses, run.regex.regex, run.replacement, global: run.global, occurrence: run.occurrence)
      } else {
        changedAny = try substituteLineByLine(addresses, run)
      }
    }
    if !changedAny {
      if globalLines != nil {
        try printCurrent(run.flags)
        if run.isBare { try printNullCommandInGlobal() }
        return
      }
      let shown = String(decoding: run.regex.pattern, as: UTF8.self)
      let place = addresses.first == addresses.second ? "line \(addresses.first)" : "lines \(addresses.first)-\(addresses.second)"
      throw EdError("no match: /\(shown)/ is not found on \(place)")
    }
    try printCurrent(run.flags)
    if run.isBare && globalLines != nil { try printNullCommandInGlobal() }
  }

  /// The expression, replacement and flags `substitution` stands for (a bare `s` takes the
  /// last substitution's, with its changes); remembered as the last substitution.
  private func settle(_ substitution: EdCommand.Substitution) throws(EdError) -> SubstitutionRun {
    let run: SubstitutionRun
    let printMask: PrintFlags
    switch substitution {
    case .new(let new):
      if new.pattern.isEmpty && lastRegex == nil { throw EdError.noPreviousPattern }
      let replacement: [UInt8]
      if let typed = new.replacement {
        replacement = typed
      } else {
        guard let lastReplacement else { throw EdError("no previous replacement for %") }
        replacement = lastReplacement
      }
      lastReplacement = replacement
      var flags = new.suffixes
      if new.printsImplicitly { flags.insert(.print) }
      printMask = new.suffixes.isEmpty ? .print : new.suffixes
      let regex = try self.regex(for: new.pattern, ignoringCase: new.ignoresCase)
      run = SubstitutionRun(
        regex: regex, replacement: replacement, global: new.isGlobal, occurrence: new.occurrence, flags: flags, isBare: false)
    case .repeatLast(let repeated):
      guard let last = lastSubstitution else { throw EdError("no previous substitution to repeat") }
      var global = last.global
      var occurrence = last.occurrence
      var flags = last.flags
      if let count = repeated.occurrence {
        occurrence = count
        global = false
      }
      if repeated.togglesGlobal {
        // As ed's count that is 0 for global: leaving global substitutes the first match.
        global.toggle()
        occurrence = 1
      }
      if repeated.togglesPrinting { flags.formSymmetricDifference(last.printMask) }
      printMask = last.printMask
      let regex = repeated.usesLastSearch ? lastRegex ?? last.regex : last.regex
      run = SubstitutionRun(regex: regex, replacement: last.replacement, global: global, occurrence: occurrence, flags: flags, isBare: true)
    }
    lastSubstitution = (run.replacement, run.global, run.occurrence, run.flags, printMask, run.regex)
    return run
  }

  /// `s` inside `g`: line by line, each change an edit of its own that keeps the lines `g` has
  /// still to visit in step. Returns whether any line changed.
  private func substituteLineByLine(_ addresses: Addresses, _ run: SubstitutionRun) throws(EdError) -> Bool {
    var changedAny = false
    var line = addresses.first
    var end = addresses.second
    while line <= end {
      if isInterrupted { throw EdError.interrupted }
      let original = buffer.lineBytes(at: line - 1)
      if let newLines = try Substitute.apply(to: original, run.regex.regex, run.replacement, global: run.global, occurrence: run.occurrence) {
        // As ed, which replaces a line by deleting it: the line replaced last is in the cut buffer.
        cutBuffer = [original]
        try replace((line - 1)..<line, with: newLines)
        line += newLines.count
        end += newLines.count - 1
        document.currentLine = line - 1
        changedAny = true
      } else {
        line += 1
      }
    }
    return changedAny
  }

  /// `s` over `addresses` outside a `g` command: the lines are read in place, and the changed
  /// ones are replaced together in one edit of the buffer. Returns whether any line changed.
  func substituteInOnePass(
    _ addresses: Addresses, _ regex: borrowing POSIXRegex, _ replacement: [UInt8], global: Bool, occurrence: Int
  ) throws(EdError) -> Bool {
    let changed = try replaceMatchingLinesInOnePass(addresses, regex) { (line) throws(EdError) in
      try Substitute.apply(to: line, regex, replacement, global: global, occurrence: occurrence)
    }
    guard let last = changed.last else { return false }
    let shift = changed.reduce(0) { $0 + $1.count - 1 }
    document.currentLine = last.index + shift + 1
    return true
  }

  /// Replaces each line of `addresses` that `regex` matches (or, with `matching` false, does
  /// not match) by the lines `replace` gives for it (none: it is deleted; `nil`: it stays), in
  /// one edit of the buffer that reads the lines in place, and leaves the cut buffer and the
  /// marks as ed's `s` or `d` on each line would: what `s` in one pass and `g/re/d` share.
  /// - Returns: The changes: each replaced line's index and how many lines replaced it.
  func replaceMatchingLinesInOnePass(
    _ addresses: Addresses, _ regex: borrowing POSIXRegex, matching: Bool = true, _ replace: ([UInt8]) throws(EdError) -> [[UInt8]]?
  ) throws(EdError) -> [(index: Int, count: Int)] {
    var lastReplaced: [UInt8]?
    let changed = try buffer.editLines(in: (addresses.first - 1)..<addresses.second) { (_, bytes) throws(EdError) -> [[UInt8]]? in
      if isInterrupted { throw EdError.interrupted }
      guard try regex.matches(bytes) == matching else { return nil }
      let original = Array(bytes)
      guard let lines = try replace(original) else { return nil }
      lastReplaced = original
      return lines
    }
    guard let lastReplaced else { return changed }
    // As ed, which replaces a line by deleting it: the line replaced last is in the cut buffer.
    cutBuffer = [lastReplaced]
    // A mark on a replaced line is gone; the others move by the lines added or removed above them.
    if !document.marks.isEmpty {
      document.marks = document.marks.compactMapValues { line in
        var shift = 0
        for change in changed {
          if change.index > line - 1 { break }
          if change.index == line - 1 { return nil }
          shift += change.count - 1
        }
        return line + shift
      }
    }
    return changed
  }

  /// ed leaves a bare `s`'s newline unread, and in a `g` command list that newline is a
  /// command of its own: it prints the current line. Scripts see it, so quire does the same.
  func printNullCommandInGlobal() throws(EdError) {
    try requireLine(document.currentLine)
    printLine(document.currentLine, flags: [])
  }
}
