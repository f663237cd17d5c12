import Foundation
import Glibc
import Quire

/// The line editor: GNU ed's addresses and commands over a ``LineBuffer``.
///
/// Behaviour follows GNU ed (the reference, and the peer the tests compare against) except:
/// - `u` is multi-level undo, and redo is the word command `redo` (ed's `u` toggles one level);
/// - errors print `? ` and one line naming what failed, not a bare `?`;
/// - `!command` shell escapes are refused; `G`, `V`, `z`, `P` are not provided;
/// - a `w` to the document's own file fails, naming the conflict, when someone else saved the
///   file since it was read (ed would overwrite it).
///
/// Not `Sendable`: one REPL drives it from one thread.
final class EdEngine {
  /// What the REPL does after a command.
  enum Outcome: Equatable {
    case proceed
    case quit
  }

  /// The document the commands apply to.
  var document: EdDocument
  /// Reads and writes files.
  let files: TextFileSystem
  /// Writes one line of output (the engine adds no newline).
  var output: (String) -> Void
  /// Whether `e`, `r` and `w` print byte counts (ed without `-s`; the interactive REPL).
  var printsByteCounts: Bool
  /// Names of other open documents with unsaved changes, for `q`.
  var otherUnsavedDocuments: () -> [String] = { [] }
  /// Polled in long loops; `true` cancels the command (Ctrl-C).
  var isInterrupted: () -> Bool = { false }
  /// Whether a whole-buffer `w` that finds the file changed on disk merges (three-way, against
  /// the version last read or written) when the edits do not overlap, instead of failing.
  /// Script mode sets it; a terminal session asks the person (`merge`, `revert`, `keep`).
  var mergesOnWriteConflict = false
  /// Where a `w` over the document's own file first keeps the file's previous content (as a
  /// `Document` does on save); `nil` keeps no versions.
  var versionStore: VersionStore?
  /// Takes the cross-process locks around each `w` of a file; `nil` writes uncoordinated.
  var coordinator: FileCoordinator?
  /// Says what the command did beyond ed's own output (a version that could not be kept).
  var note: (String) -> Void = { _ in }

  /// The last error's message, for `h`.
  private(set) var lastError: String?
  private var lastRegex: CompiledRegex?
  private var lastReplacement: [UInt8]?
  private var lastSubstitution: (replacement: [UInt8], global: Bool, occurrence: Int)?
  /// The command that asked for confirmation (`q`, `e`); a repeat of it goes ahead.
  private var pendingConfirmation: String?
  private var confirmationThisCommand: String?
  /// Inside `g`/`v`: the lines still to visit, kept in step with edits.
  private var globalLines: [Int]?
  private var globalCursor = 0
  /// Added to every line of `globalLines` from `globalCursor` on: an edit above all the lines
  /// still to visit shifts them in O(1) instead of rewriting the list.
  private var globalOffset = 0

  private static let localeReady: Bool = {
    // regcomp/regexec read LC_CTYPE: UTF-8 so that `.` matches a character, not a byte, as in
    // GNU ed (which calls setlocale). Files are UTF-8, whatever the environment says.
    setlocale(LC_CTYPE, "C.UTF-8") != nil
  }()

  init(document: EdDocument, files: TextFileSystem = TextFileSystem(), printsByteCounts: Bool, output: @escaping (String) -> Void) {
    _ = Self.localeReady
    self.document = document
    self.files = files
    self.printsByteCounts = printsByteCounts
    self.output = output
  }

  private var buffer: any LineBuffer { document.buffer }
  private var lastLine: Int { buffer.lineCount }

  // MARK: Running commands

  /// Runs one command line.
  ///
  /// - Parameters:
  ///   - line: The command, without its newline.
  ///   - input: Supplies further lines: text for `a`, `i`, `c`, and continuation lines.
  /// - Returns: Whether to go on or quit.
  /// - Throws: ``EdError`` with one line naming what failed; the buffer keeps any edits made
  ///   before the failure (one undo step removes them).
  func execute(_ line: String, input: @escaping () -> String?) throws(EdError) -> Outcome {
    do {
      var scanner = CommandScanner(line, continuation: input)
      return try run(&scanner, input: input)
    } catch {
      lastError = error.message
      throw error
    }
  }

  /// Undoes the last command's edits (the `u` command and the word command `undo`); in a PDF,
  /// the last page operation.
  func undo() throws(EdError) {
    if let pdf = document.pdf {
      guard pdf.canUndo else { throw EdError("nothing to undo in '\(document.displayName)'") }
      pdf.undo()
      return
    }
    guard let cursor = buffer.undo() else { throw EdError("nothing to undo") }
    document.currentLine = min(max(cursor, 0), lastLine)
    if document.currentLine == 0 && lastLine > 0 { document.currentLine = 1 }
  }

  /// Redoes the last undone command's edits (the word command `redo`).
  func redo() throws(EdError) {
    if let pdf = document.pdf {
      guard pdf.canRedo else { throw EdError("nothing to redo in '\(document.displayName)'") }
      pdf.redo()
      return
    }
    guard let cursor = buffer.redo() else { throw EdError("nothing to redo") }
    document.currentLine = min(max(cursor, 0), lastLine)
  }

  /// Starts a top-level command: a confirmation asked for by the previous command stays
  /// pending only until this one ends.
  func beginCommand() { confirmationThisCommand = nil }

  /// Ends a top-level command (see ``beginCommand()``).
  func endCommand() { pendingConfirmation = confirmationThisCommand }

  /// Asks once for confirmation of `action` when `unsaved` is not empty; a second identical
  /// request goes ahead (ed's `q` twice).
  func confirm(_ action: String, unsaved: [String], warning: String) throws(EdError) {
    guard !unsaved.isEmpty, pendingConfirmation != action else { return }
    confirmationThisCommand = action
    throw EdError(warning)
  }

  private func run(_ s: inout CommandScanner, input: @escaping () -> String?) throws(EdError) -> Outcome {
    if document.pdf != nil { try checkAppliesToPDF(s.peek) }
    var addresses = try parseAddresses(&s)
    let command = s.next()
    switch command {
    case nil, UInt8(ascii: "\n"):
      // An address alone prints that line; nothing at all prints the next line.
      if addresses.count == 0 {
        guard document.currentLine + 1 <= lastLine else {
          throw EdError("invalid address: no line after line \(document.currentLine) (\(lastLine) lines)")
        }
        addresses.second = document.currentLine + 1
      }
      try requireLine(addresses.second)
      document.currentLine = addresses.second
      printLine(addresses.second, flags: [])

    case UInt8(ascii: "a"), UInt8(ascii: "i"):
      let flags = try readSuffix(&s)
      var at = addresses.second
      if command == UInt8(ascii: "i") { at = max(at - 1, 0) }
      let text = try readText(input)
      try edit("insert") {
        replace(at..<at, with: text)
        if text.isEmpty {
          document.currentLine = command == UInt8(ascii: "i") ? min(max(addresses.second, at), lastLine) : addresses.second
        } else {
          document.currentLine = at + text.count
        }
      }
      try printCurrent(flags)

    case UInt8(ascii: "c"):
      addresses.first = max(addresses.first, 1)
      addresses.second = max(addresses.second, 1)
      try requireRange(addresses)
      let flags = try readSuffix(&s)
      let text = try readText(input)
      try edit("change") {
        replace((addresses.first - 1)..<addresses.second, with: text)
        document.currentLine = text.isEmpty ? min(addresses.first, lastLine) : addresses.first - 1 + text.count
      }
      try printCurrent(flags)

    case UInt8(ascii: "d"):
      try requireRange(addresses)
      let flags = try readSuffix(&s)
      try edit("delete") {
        replace((addresses.first - 1)..<addresses.second, with: [])
        document.currentLine = min(addresses.first, lastLine)
      }
      try printCurrent(flags)

    case UInt8(ascii: "e"), UInt8(ascii: "E"):
      try requireNoAddress(addresses)
      let name = try readFileName(&s)
      if command == UInt8(ascii: "e") {
        try confirm(
          "e", unsaved: document.isEdited ? [document.displayName] : [],
          warning: "'\(document.displayName)' has unsaved changes: 'e' again discards them, or 'w' saves them first")
      }
      let url = try fileURL(name)
      guard case .textFile = document.form, !EdDocument.isTextBundle(url) else {
        throw EdError("e reads a text file into a text document; open TextBundles and PDFs with 'open \(name ?? url.lastPathComponent)'")
      }
      let contents = try files.read(url)
      document.buffer.reset(lines: contents.lines)
      document.fileURL = url
      document.diskFingerprint = contents.fingerprint
      document.diskLines = contents.lines
      document.diskStamp = contents.stamp
      document.announcedDiskChange = nil
      document.mayOverwriteDiskChange = false
      document.marks = [:]
      document.currentLine = lastLine
      if printsByteCounts { output("\(contents.byteCount)") }

    case UInt8(ascii: "f"):
      try requireNoAddress(addresses)
      if let name = try readFileName(&s) {
        if document.pdf != nil {
          throw EdError("'\(document.displayName)' is a PDF: save it under a new name with 'save as PATH'")
        }
        if document.textBundle != nil, !EdDocument.isTextBundle(URL(fileURLWithPath: name)) {
          throw EdError("'\(document.displayName)' is a TextBundle: its name ends in .textbundle or .textpack")
        }
        document.fileURL = URL(fileURLWithPath: name)
        document.diskFingerprint = document.fingerprintOnDisk(files)
        document.diskLines = nil
      }
      guard let url = document.fileURL else { throw EdError("no current file name; give one: f FILE") }
      output(url.relativePath)

    case UInt8(ascii: "g"), UInt8(ascii: "v"):
      try global(&s, addresses: addresses, matching: command == UInt8(ascii: "g"))

    case UInt8(ascii: "h"), UInt8(ascii: "H"):
      try requireNoAddress(addresses)
      _ = try readSuffix(&s)
      if command == UInt8(ascii: "h"), let lastError { output(lastError) }

    case UInt8(ascii: "j"):
      if addresses.count == 0 {
        addresses.first = document.currentLine
        addresses.second = document.currentLine + 1
      }
      try requireRange(addresses)
      let flags = try readSuffix(&s)
      if addresses.first < addresses.second {
        let joined = buffer.lines(in: (addresses.first - 1)..<addresses.second).joined()
        try edit("join") {
          replace((addresses.first - 1)..<addresses.second, with: [joined])
          document.currentLine = addresses.first
        }
      }
      try printCurrent(flags)

    case UInt8(ascii: "k"):
      try requireLine(addresses.second)
      guard let letter = s.next(), letter >= UInt8(ascii: "a"), letter <= UInt8(ascii: "z") else {
        throw EdError("a mark is one lower-case letter: k followed by a to z")
      }
      _ = try readSuffix(&s)
      document.marks[letter] = addresses.second

    case UInt8(ascii: "l"), UInt8(ascii: "n"), UInt8(ascii: "p"):
      try requireRange(addresses)
      var flags = try readSuffix(&s)
      flags.insert(command == UInt8(ascii: "l") ? .list : command == UInt8(ascii: "n") ? .numbered : .print)
      for line in addresses.first...addresses.second {
        if isInterrupted() { throw EdError.interrupted }
        printLine(line, flags: flags)
      }
      document.currentLine = addresses.second

    case UInt8(ascii: "m"), UInt8(ascii: "t"):
      try requireRange(addresses)
      let destination = try parseThirdAddress(&s)
      let flags = try readSuffix(&s)
      if command == UInt8(ascii: "m") {
        try move(addresses, after: destination)
      } else {
        let lines = buffer.lines(in: (addresses.first - 1)..<addresses.second)
        try edit("copy") {
          replace(destination..<destination, with: lines)
          document.currentLine = destination + lines.count
        }
      }
      try printCurrent(flags)

    case UInt8(ascii: "q"), UInt8(ascii: "Q"):
      try requireNoAddress(addresses)
      _ = try readSuffix(&s)
      if globalLines != nil { throw EdError("q cannot be used inside g or v") }
      if command == UInt8(ascii: "q") {
        let unsaved = (document.isEdited ? [document.displayName] : []) + otherUnsavedDocuments()
        try confirm(
          "q", unsaved: unsaved,
          warning: "unsaved changes in \(unsaved.map { "'\($0)'" }.joined(separator: ", ")): 'q' again quits without saving, 'w' saves")
      }
      return .quit

    case UInt8(ascii: "r"):
      if addresses.count == 0 { addresses.second = lastLine }
      let name = try readFileName(&s)
      let url = try fileURL(name)
      let contents = try files.read(url)
      if document.fileURL == nil { document.fileURL = url }
      try edit("read") {
        replace(addresses.second..<addresses.second, with: contents.lines)
        document.currentLine = addresses.second + contents.lines.count
      }
      if printsByteCounts { output("\(contents.byteCount)") }

    case UInt8(ascii: "s"):
      try substitute(&s, addresses: addresses)

    case UInt8(ascii: "u"):
      try requireNoAddress(addresses)
      let flags = try readSuffix(&s)
      if globalLines != nil { throw EdError("u cannot be used inside g or v") }
      try undo()
      try printCurrent(flags)

    case UInt8(ascii: "w"), UInt8(ascii: "W"):
      if addresses.count == 0 {
        addresses.first = min(1, lastLine)
        addresses.second = lastLine
      }
      if lastLine > 0 || addresses.count > 0 { try requireRange(addresses) }
      var quits = false
      if command == UInt8(ascii: "w"), s.peek == UInt8(ascii: "q") {
        s.advance()
        quits = true
      }
      let name = try readFileName(&s)
      try write(addresses, to: name, appending: command == UInt8(ascii: "W"))
      if quits {
        let unsaved = otherUnsavedDocuments() + (document.isEdited ? [document.displayName] : [])
        try confirm(
          "q", unsaved: unsaved,
          warning: "unsaved changes in \(unsaved.map { "'\($0)'" }.joined(separator: ", ")): 'q' again quits without saving")
        return .quit
      }

    case UInt8(ascii: "="):
      let flags = try readSuffix(&s)
      output("\(addresses.count == 0 ? lastLine : addresses.second)")
      try printCurrent(flags)

    case UInt8(ascii: "#"):
      _ = s.rest()

    case UInt8(ascii: "!"):
      throw EdError("shell commands (!) are not supported in quire")

    case let other?:
      let text = String(decoding: [other], as: UTF8.self)
      throw EdError("unknown command '\(text)'; type 'help' for the list")
    }
    return .proceed
  }

  // MARK: Addresses

  private struct Addresses {
    var count: Int
    var first: Int
    var second: Int
  }

  private func parseAddresses(_ s: inout CommandScanner) throws(EdError) -> Addresses {
    var first: Int?
    var second: Int?
    var expectingAddress = true
    loop: while let byte = s.peek {
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"):
        let number = s.readNumber() ?? 0
        if expectingAddress {
          expectingAddress = false
          second = number
        } else {
          second = (second ?? 0) + number
        }
      case UInt8(ascii: " "), UInt8(ascii: "\t"):
        s.advance()
      case UInt8(ascii: "+"), UInt8(ascii: "-"):
        if expectingAddress {
          expectingAddress = false
          second = document.currentLine
        }
        s.advance()
        let sign = byte == UInt8(ascii: "+") ? 1 : -1
        let amount = s.readNumber() ?? 1
        second = (second ?? 0) + sign * amount
      case UInt8(ascii: "."), UInt8(ascii: "$"):
        guard expectingAddress else { throw EdError("invalid address: '\(Character(UnicodeScalar(byte)))' cannot follow another address") }
        expectingAddress = false
        s.advance()
        second = byte == UInt8(ascii: ".") ? document.currentLine : lastLine
      case UInt8(ascii: "/"), UInt8(ascii: "?"):
        guard expectingAddress else { throw EdError("invalid address: a search cannot follow another address") }
        expectingAddress = false
        s.advance()
        let (pattern, _) = try s.readPattern(delimiter: byte)
        let regex = try regex(for: pattern)
        second = try search(regex, forward: byte == UInt8(ascii: "/"), pattern: pattern)
      case UInt8(ascii: "'"):
        guard expectingAddress else { throw EdError("invalid address: a mark cannot follow another address") }
        expectingAddress = false
        s.advance()
        guard let letter = s.next(), letter >= UInt8(ascii: "a"), letter <= UInt8(ascii: "z") else {
          throw EdError("invalid address: a mark is ' followed by a lower-case letter")
        }
        guard let line = document.marks[letter], line >= 1, line <= lastLine else {
          throw EdError("invalid address: mark '\(Character(UnicodeScalar(letter)))' is not set")
        }
        second = line
      case UInt8(ascii: "%"), UInt8(ascii: ","), UInt8(ascii: ";"):
        if expectingAddress {
          if first == nil {
            first = byte == UInt8(ascii: ";") ? document.currentLine : 1
            second = lastLine
          } else {
            first = second
          }
        } else {
          let value = second ?? 0
          try checkBounds(value)
          if byte == UInt8(ascii: ";") { document.currentLine = value }
          first = value
          expectingAddress = true
        }
        s.advance()
      default:
        break loop
      }
    }
    if !expectingAddress, let second { try checkBounds(second) }
    let count = second == nil ? 0 : (first == nil ? 1 : 2)
    let secondValue = second ?? document.currentLine
    return Addresses(count: count, first: count <= 1 ? secondValue : (first ?? secondValue), second: secondValue)
  }

  /// The destination of `m` and `t`: one address, the current line when none is given.
  private func parseThirdAddress(_ s: inout CommandScanner) throws(EdError) -> Int {
    let savedCurrent = document.currentLine
    let addresses = try parseAddresses(&s)
    document.currentLine = savedCurrent
    return addresses.count == 0 ? savedCurrent : addresses.second
  }

  private func checkBounds(_ line: Int) throws(EdError) {
    if line < 0 { throw EdError("invalid address: line \(line) is before the first line") }
    if line > lastLine { throw EdError.pastEnd(line, lineCount: lastLine) }
  }

  private func requireLine(_ line: Int) throws(EdError) {
    if lastLine == 0 { throw EdError.emptyBuffer }
    if line < 1 { throw EdError("invalid address: line \(line); this command needs a line from 1 to \(lastLine)") }
    if line > lastLine { throw EdError.pastEnd(line, lineCount: lastLine) }
  }

  private func requireRange(_ addresses: Addresses) throws(EdError) {
    try requireLine(addresses.first)
    try requireLine(addresses.second)
    if addresses.first > addresses.second {
      throw EdError("invalid range: line \(addresses.first) comes after line \(addresses.second)")
    }
  }

  private func requireNoAddress(_ addresses: Addresses) throws(EdError) {
    if addresses.count > 0 { throw EdError.unexpectedAddress }
  }

  // MARK: Regular expressions

  /// A compiled expression kept for reuse (`//`, `s//x/`); the class owns the `regex_t`.
  final class CompiledRegex {
    let pattern: [UInt8]
    let regex: POSIXRegex
    init(pattern: [UInt8]) throws(EdError) {
      self.pattern = pattern
      regex = try POSIXRegex(pattern)
    }
  }

  /// The expression for `pattern`, or the last one when `pattern` is empty.
  private func regex(for pattern: [UInt8]) throws(EdError) -> CompiledRegex {
    if pattern.isEmpty {
      guard let lastRegex else { throw EdError.noPreviousPattern }
      return lastRegex
    }
    if let lastRegex, lastRegex.pattern == pattern { return lastRegex }
    let compiled = try CompiledRegex(pattern: pattern)
    lastRegex = compiled
    return compiled
  }

  private func search(_ compiled: CompiledRegex, forward: Bool, pattern: [UInt8]) throws(EdError) -> Int {
    let count = lastLine
    var line = document.currentLine
    for _ in 0..<max(count, 0) {
      if isInterrupted() { throw EdError.interrupted }
      line = forward ? (line % count) + 1 : (line <= 1 ? count : line - 1)
      if try compiled.regex.matches(buffer.line(at: line - 1)) { return line }
    }
    let shown = String(decoding: compiled.pattern, as: UTF8.self)
    throw EdError("no match: no line matches /\(shown)/")
  }

  // MARK: Text, suffixes, file names

  struct PrintFlags: OptionSet {
    let rawValue: Int
    static let print = PrintFlags(rawValue: 1)
    static let list = PrintFlags(rawValue: 2)
    static let numbered = PrintFlags(rawValue: 4)
  }

  private func readSuffix(_ s: inout CommandScanner) throws(EdError) -> PrintFlags {
    var flags: PrintFlags = []
    while let byte = s.peek {
      switch byte {
      case UInt8(ascii: "p"): flags.insert(.print)
      case UInt8(ascii: "l"): flags.insert(.list)
      case UInt8(ascii: "n"): flags.insert(.numbered)
      default:
        s.skipBlanks()
        if s.isAtEnd { return flags }
        let rest = String(decoding: s.rest(), as: UTF8.self)
        throw EdError("unexpected '\(rest)' after the command (only p, l or n may follow)")
      }
      s.advance()
    }
    return flags
  }

  private func printCurrent(_ flags: PrintFlags) throws(EdError) {
    guard !flags.isEmpty else { return }
    try requireLine(document.currentLine)
    printLine(document.currentLine, flags: flags)
  }

  /// Prints line `number` as `p`, `n` and `l` do (GNU ed's format, 72 columns for `l`).
  private func printLine(_ number: Int, flags: PrintFlags) {
    let text = buffer.line(at: number - 1)
    var out = flags.contains(.numbered) ? "\(number)\t" : ""
    guard flags.contains(.list) else {
      output(out + text)
      return
    }
    var column = flags.contains(.numbered) ? 8 : 0
    var bytes: [UInt8] = Array(out.utf8)
    let escapes: [UInt8: UInt8] = [7: 97, 8: 98, 12: 102, 10: 110, 13: 114, 9: 116, 11: 118, 92: 92]
    for byte in text.utf8 {
      column += 1
      if column > 72 {
        column = 1
        bytes.append(contentsOf: [92, 10])
      }
      if byte >= 32 && byte <= 126 && byte != 92 {
        bytes.append(byte)
      } else {
        column += 1
        bytes.append(92)
        if let escaped = escapes[byte] {
          bytes.append(escaped)
        } else {
          column += 2
          bytes.append(contentsOf: [48 + (byte >> 6) & 7, 48 + (byte >> 3) & 7, 48 + byte & 7])
        }
      }
    }
    bytes.append(UInt8(ascii: "$"))
    out = String(decoding: bytes, as: UTF8.self)
    output(out)
  }

  /// Lines typed after `a`, `i`, `c`, up to a line holding only `.` (or the end of input).
  private func readText(_ input: () -> String?) throws(EdError) -> [String] {
    var lines: [String] = []
    while let line = input() {
      if line == "." { break }
      lines.append(line)
    }
    if isInterrupted() { throw EdError.interrupted }
    return lines
  }

  private func readFileName(_ s: inout CommandScanner) throws(EdError) -> String? {
    guard let byte = s.peek else { return nil }
    guard byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") else {
      throw EdError("put a space between the command and the file name")
    }
    s.skipBlanks()
    let name = String(decoding: s.rest(), as: UTF8.self)
    if name.isEmpty { return nil }
    if name.hasPrefix("!") { throw EdError("shell commands (!) are not supported in quire") }
    return name
  }

  /// The file a command names, or the current file name.
  private func fileURL(_ name: String?) throws(EdError) -> URL {
    if let name { return URL(fileURLWithPath: name) }
    guard let url = document.fileURL else { throw EdError("no current file name; give one, e.g. w notes.md") }
    return url
  }

  // MARK: Editing

  /// Runs `body` as one undoable step.
  private func edit(_ name: String, _ body: () throws(EdError) -> Void) throws(EdError) {
    buffer.beginEditGroup(named: name, cursor: document.currentLine)
    defer { buffer.endEditGroup(cursor: document.currentLine) }
    try body()
  }

  /// Replaces lines `range` (0-based) and keeps marks and the lines `g` will visit in step.
  private func replace(_ range: Range<Int>, with lines: [String]) {
    buffer.replaceLines(in: range, with: lines)
    let delta = lines.count - range.count
    let inPlace = range.count == 1 && !lines.isEmpty
    let map: (Int) -> Int? = { line in
      let index = line - 1
      if index < range.lowerBound { return line }
      if index >= range.upperBound { return line + delta }
      return inPlace ? line : nil
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
  private var nextGlobalLine: Int? {
    guard let lines = globalLines, globalCursor < lines.count else { return nil }
    return lines[globalCursor] + globalOffset
  }

  private func remapMarks(_ map: (Int) -> Int?) {
    if !document.marks.isEmpty {
      document.marks = document.marks.compactMapValues(map)
    }
  }

  /// Applies `map` (1-based line → new line, or nil when it is gone) to marks and `g`'s lines.
  private func remapLines(_ map: (Int) -> Int?) {
    remapMarks(map)
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

  private func move(_ addresses: Addresses, after destination: Int) throws(EdError) {
    let first = addresses.first
    let second = addresses.second
    if destination >= first && destination < second {
      throw EdError("invalid destination: line \(destination) is inside the lines being moved (\(first)-\(second))")
    }
    if destination == first - 1 || destination == second {
      document.currentLine = second
      return
    }
    let lines = buffer.lines(in: (first - 1)..<second)
    let count = lines.count
    try edit("move") {
      // Lines keep their marks: compute where every line ends up, then edit.
      let target = destination > second ? destination - count : destination
      let map: (Int) -> Int? = { line in
        if line >= first && line <= second { return target + (line - first) + 1 }
        let afterRemoval = line > second ? line - count : line
        return afterRemoval > target ? afterRemoval + count : afterRemoval
      }
      buffer.replaceLines(in: (first - 1)..<second, with: [])
      buffer.replaceLines(in: target..<target, with: lines)
      // A move renumbers only the lines between its source and its destination.
      let spanEnd = max(second, target + count)
      if let next = nextGlobalLine, next > spanEnd {
        remapMarks(map)
      } else {
        remapLines(map)
      }
      document.currentLine = target + count
    }
  }

  // MARK: s

  private func substitute(_ s: inout CommandScanner, addresses: Addresses) throws(EdError) {
    try requireRange(addresses)
    var global = false
    var occurrence = 1
    var flags: PrintFlags = []
    let compiled: CompiledRegex
    let replacement: [UInt8]
    if let delimiter = s.peek, delimiter != UInt8(ascii: " "), delimiter != UInt8(ascii: "\n"),
      !"gpnlr0123456789".utf8.contains(delimiter)
    {
      s.advance()
      let (pattern, closed) = try s.readPattern(delimiter: delimiter)
      guard closed else { throw EdError("missing delimiter: write s/regular expression/replacement/") }
      compiled = try regex(for: pattern)
      var printsImplicitly = false
      (replacement, printsImplicitly) = try readReplacement(&s, delimiter: delimiter)
      if printsImplicitly { flags.insert(.print) }
      var countGiven = false
      while let byte = s.peek {
        if byte == UInt8(ascii: "g") {
          global = true
          s.advance()
        } else if isDigit(byte) {
          occurrence = s.readNumber() ?? 1
          guard occurrence > 0 else { throw EdError("s/…/…/N counts from 1; 0 is not an occurrence") }
          countGiven = true
        } else {
          break
        }
      }
      if global && countGiven { throw EdError("s/…/…/ takes g or a number N, not both") }
      flags.formUnion(try readSuffix(&s))
    } else {
      // A bare `s` repeats the last substitution; `g` and `N` modify it.
      guard let last = lastSubstitution, let lastRegex else {
        throw EdError("no previous substitution to repeat")
      }
      compiled = lastRegex
      replacement = last.replacement
      global = last.global
      occurrence = last.occurrence
      while let byte = s.peek {
        if byte == UInt8(ascii: "g") {
          global.toggle()
          s.advance()
        } else if byte == UInt8(ascii: "r") {
          s.advance()
        } else if isDigit(byte) {
          occurrence = max(s.readNumber() ?? 1, 1)
        } else {
          break
        }
      }
      flags.formUnion(try readSuffix(&s))
    }
    lastSubstitution = (replacement, global, occurrence)

    var changedAny = false
    try edit("substitute") { () throws(EdError) in
      var line = addresses.first
      var end = addresses.second
      while line <= end {
        if isInterrupted() { throw EdError.interrupted }
        if let newLines = try substituted(buffer.line(at: line - 1), compiled.regex, replacement, global: global, occurrence: occurrence) {
          replace((line - 1)..<line, with: newLines)
          line += newLines.count
          end += newLines.count - 1
          document.currentLine = line - 1
          changedAny = true
        } else {
          line += 1
        }
      }
    }
    if !changedAny {
      if globalLines != nil { return }
      let shown = String(decoding: compiled.pattern, as: UTF8.self)
      let place = addresses.first == addresses.second ? "line \(addresses.first)" : "lines \(addresses.first)-\(addresses.second)"
      throw EdError("no match: /\(shown)/ is not found on \(place)")
    }
    try printCurrent(flags)
  }

  /// Reads a replacement up to `delimiter`; a missing closing delimiter means "print".
  private func readReplacement(_ s: inout CommandScanner, delimiter: UInt8) throws(EdError) -> ([UInt8], Bool) {
    if s.peek == UInt8(ascii: "%"), s.peek(offset: 1) == delimiter || s.peek(offset: 1) == nil {
      s.advance()
      guard let lastReplacement else { throw EdError("no previous replacement for %") }
      let closed = s.peek == delimiter
      if closed { s.advance() }
      return (lastReplacement, !closed)
    }
    var replacement: [UInt8] = []
    while true {
      guard let byte = s.peek else {
        // In a g command list, a line ending in a backslash continues the replacement.
        if s.endsWithEscapedNewline, s.pullContinuation() { continue }
        lastReplacement = replacement
        return (replacement, true)
      }
      if byte == delimiter {
        s.advance()
        lastReplacement = replacement
        return (replacement, false)
      }
      s.advance()
      replacement.append(byte)
      if byte == UInt8(ascii: "\\") {
        if s.isAtEnd {
          // A backslash at the end of the line escapes the newline: the replacement goes on.
          guard s.pullContinuation() else { throw EdError("the replacement ends with a backslash and no line follows") }
        }
        if let escaped = s.next() { replacement.append(escaped) }
      }
    }
  }

  /// `line` with the substitution applied, as one or more lines; `nil` when it does not apply.
  private func substituted(
    _ line: String, _ regex: borrowing POSIXRegex, _ replacement: [UInt8], global: Bool, occurrence: Int
  ) throws(EdError) -> [String]? {
    let text = POSIXRegex.cString(line)
    let length = text.count - 1
    let bytes = Array(line.utf8)
    var result: [UInt8] = []
    var offset = 0
    var matchNumber = 0
    var replaced = false
    while offset <= length, let groups = try regex.firstMatch(in: text, from: offset), let whole = groups[0] {
      matchNumber += 1
      if global || matchNumber == occurrence {
        result.append(contentsOf: bytes[offset..<whole.lowerBound])
        expand(replacement, groups: groups, in: bytes, into: &result)
        replaced = true
      } else {
        result.append(contentsOf: bytes[offset..<whole.upperBound])
      }
      offset = whole.upperBound
      if whole.isEmpty {
        if global { throw EdError("infinite substitution loop: /…/ matches an empty string; use a pattern that matches at least one character with g") }
        guard offset < length else { break }
        // Step over one character (all bytes of its UTF-8 sequence).
        var step = 1
        while offset + step < length, bytes[offset + step] & 0xC0 == 0x80 { step += 1 }
        result.append(contentsOf: bytes[offset..<(offset + step)])
        offset += step
      }
      if !global && matchNumber >= occurrence { break }
      if offset >= length { break }
    }
    guard replaced else { return nil }
    if offset < length { result.append(contentsOf: bytes[offset..<length]) }
    return result.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map {
      String(decoding: $0, as: UTF8.self)
    }
  }

  /// Expands `&`, `\1`…`\9`, `\&` and `\<newline>` in `replacement`.
  private func expand(_ replacement: [UInt8], groups: [Range<Int>?], in bytes: [UInt8], into result: inout [UInt8]) {
    var index = 0
    while index < replacement.count {
      let byte = replacement[index]
      if byte == UInt8(ascii: "&"), let whole = groups[0] {
        result.append(contentsOf: bytes[whole])
      } else if byte == UInt8(ascii: "\\"), index + 1 < replacement.count {
        index += 1
        let escaped = replacement[index]
        let group = Int(escaped) - Int(UInt8(ascii: "0"))
        if group >= 1 && group <= 9 && group < groups.count {
          if let range = groups[group] { result.append(contentsOf: bytes[range]) }
        } else {
          result.append(escaped)
        }
      } else {
        result.append(byte)
      }
      index += 1
    }
  }

  // MARK: g and v

  private func global(_ s: inout CommandScanner, addresses: Addresses, matching: Bool) throws(EdError) {
    if globalLines != nil { throw EdError("g and v cannot be nested") }
    var addresses = addresses
    if addresses.count == 0 {
      addresses.first = 1
      addresses.second = lastLine
    }
    try requireRange(addresses)
    guard let delimiter = s.next(), delimiter != UInt8(ascii: " "), delimiter != UInt8(ascii: "\n") else {
      throw EdError("g and v need a regular expression: g/re/command")
    }
    let (pattern, closed) = try s.readPattern(delimiter: delimiter)
    guard closed else { throw EdError("missing delimiter: write g/regular expression/command") }
    let compiled = try regex(for: pattern)
    // The command list: lines ending in a backslash continue it. They are kept as typed; each
    // is handed out without its backslash, and `continued` says whether it had one (an `s`
    // replacement then goes on to the next line, as in GNU ed).
    var commands = [String(decoding: s.rest(), as: UTF8.self)]
    while let last = commands.last, last.hasSuffix("\\") {
      guard let next = s.continuation() else { break }
      commands.append(next)
    }
    if commands == [""] { commands = ["p"] }

    var lines: [Int] = []
    for line in addresses.first...addresses.second {
      if isInterrupted() { throw EdError.interrupted }
      if try compiled.regex.matches(buffer.line(at: line - 1)) == matching { lines.append(line) }
    }
    globalLines = lines
    globalCursor = 0
    globalOffset = 0
    defer { globalLines = nil }
    try edit("global") { () throws(EdError) in
      while let lines = globalLines, globalCursor < lines.count {
        if isInterrupted() { throw EdError.interrupted }
        let line = lines[globalCursor] + globalOffset
        globalCursor += 1
        document.currentLine = line
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
          _ = try run(&scanner, input: listInput)
        }
      }
    }
  }

  // MARK: PDFs

  /// The ed commands that apply to a PDF, without addresses (it has pages, not lines): `w`
  /// (save), `u` (undo a page operation), `q`, `Q`, `h` and `f` (print the file name).
  private func checkAppliesToPDF(_ command: UInt8?) throws(EdError) {
    let applies: Set<UInt8> = Set("wqQuhHf#".utf8)
    guard let command, applies.contains(command) else {
      throw EdError(
        "'\(document.displayName)' is a PDF: ed's line commands do not apply to it; 'pages' lists its pages, "
          + "delete-page, move-page, rotate and insert-pages change them, w saves, u and redo undo and redo")
    }
  }

  /// `w` for a PDF: saves the page operations to its file through libqpdf (keeping the
  /// previous file as a version), or writes a copy to another file.
  private func writePDF(_ pdf: PDFDocument, to name: String?, appending: Bool) throws(EdError) {
    if appending { throw EdError("'\(document.displayName)' is a PDF: W appends lines; use w to save it") }
    let url = try fileURL(name)
    let isOwnFile = document.fileURL?.standardizedFileURL == url.standardizedFileURL
    do {
      if isOwnFile {
        try coordinatedWrite(url) { () throws(EdError) in
          try checkNoConflict(url)
          keepVersion(of: url)
          do { try pdf.save(to: url) } catch { throw EdError("cannot write '\(url.path)': \(Self.reason(error))") }
          document.diskFingerprint = files.fingerprint(of: url)
          document.diskStamp = files.stamp(of: url)
        }
        document.announcedDiskChange = nil
        document.mayOverwriteDiskChange = false
      } else {
        try pdf.write(to: url)
      }
    } catch let error as EdError {
      throw error
    } catch {
      throw EdError("cannot write '\(url.path)': \(Self.reason(error))")
    }
    if printsByteCounts { output("\(files.stamp(of: url)?.size ?? 0)") }
  }

  private static func reason(_ error: any Error) -> String {
    (error as? QuireError)?.reason ?? "\(error)"
  }

  // MARK: w

  /// Runs `body` inside a coordinated write of `url` when the session has a coordinator
  /// (`quire` has one): other Quire processes' coordinated readers and writers of the file
  /// wait, and its presenters hear of the change. Waits at most 10 s for the lock.
  private func coordinatedWrite(_ url: URL, _ body: () throws(EdError) -> Void) throws(EdError) {
    guard let coordinator else { return try body() }
    do {
      try coordinator.coordinate(writingItemAt: url, timeout: .seconds(10)) { _ in try body() }
    } catch let error as EdError {
      throw error
    } catch {
      throw EdError("cannot write '\(url.lastPathComponent)': \(Self.reason(error))")
    }
  }

  /// Keeps what `url` holds now as a version before it is replaced; a failure is said, not
  /// thrown: the save goes on (a `Document` records it as `lastVersioningError`).
  private func keepVersion(of url: URL) {
    guard let versionStore else { return }
    do {
      try versionStore.keepVersion(of: url.resolvingSymlinksInPath())
    } catch {
      note("note: the previous version of '\(url.lastPathComponent)' could not be kept: \(Self.reason(error))")
    }
  }

  /// Throws when someone else saved `url` since it was read here (unless `keep` allowed it).
  private func checkNoConflict(_ url: URL) throws(EdError) {
    guard document.fileURL != nil, !document.mayOverwriteDiskChange else { return }
    let onDisk = document.fingerprintOnDisk(files)
    guard let onDisk, onDisk != document.diskFingerprint else { return }
    throw EdError(
      "conflict: '\(url.lastPathComponent)' was changed on disk since quire read it; nothing written. "
        + (document.pdf == nil
          ? "'revert' loads the disk version (your edits stay undoable), 'merge' combines both, 'keep' then 'w' replaces it, 'w OTHER' saves yours elsewhere"
          : "'revert' loads the disk version (your page changes are dropped), 'keep' then 'w' replaces it, 'w OTHER.pdf' saves yours elsewhere"))
  }

  private func write(_ addresses: Addresses, to name: String?, appending: Bool) throws(EdError) {
    if let pdf = document.pdf { return try writePDF(pdf, to: name, appending: appending) }
    let url = try fileURL(name)
    let isOwnFile = document.fileURL == nil || document.fileURL?.standardizedFileURL == url.standardizedFileURL
    var lines = lastLine == 0 ? [] : buffer.lines(in: (addresses.first - 1)..<addresses.second)
    var bytes = TextFileSystem.bytes(of: lines)
    let wholeBuffer = addresses.first <= 1 && addresses.second == lastLine
    var stamp: FileStamp?
    if appending {
      try files.append(bytes, to: url)
    } else {
      // The conflict check and the write in one coordinated write: no other coordinated
      // writer can save in between.
      try coordinatedWrite(url) { () throws(EdError) in
        if isOwnFile, document.fileURL != nil, !document.mayOverwriteDiskChange {
          let onDisk = document.fingerprintOnDisk(files)
          if let onDisk, onDisk != document.diskFingerprint {
            if mergesOnWriteConflict, wholeBuffer, let merged = try mergeWithDisk(url) {
              lines = merged
              bytes = TextFileSystem.bytes(of: lines)
            } else {
              try checkNoConflict(url)
            }
          }
        }
        if isOwnFile { keepVersion(of: url) }
        if isOwnFile, let bundle = document.textBundle {
          try writeTextBundle(bundle, text: TextFileSystem.text(of: lines), to: url)
        } else {
          try files.writeAtomically(bytes, to: url)
        }
        stamp = files.stamp(of: url)
      }
    }
    if document.fileURL == nil { document.fileURL = url }
    if isOwnFile && !appending {
      document.diskFingerprint = document.textBundle == nil ? FileFingerprint(of: bytes) : document.fingerprintOnDisk(files)
      document.diskLines = lines
      document.diskStamp = stamp
      document.announcedDiskChange = nil
      document.mayOverwriteDiskChange = false
    }
    // As in ed, writing the whole buffer anywhere counts as saving it.
    if wholeBuffer { buffer.markSaved() }
    if printsByteCounts { output("\(bytes.count)") }
  }

  /// Writes a TextBundle with `text` as its text: the package is swapped whole (unchanged
  /// assets are linked, not copied), a textpack is written as a new archive. Assets added in
  /// this session whose reference is no longer in the text are left out.
  private func writeTextBundle(_ bundle: TextBundle, text: String, to url: URL) throws(EdError) {
    if bundle.text != text { bundle.text = text }
    let assets = bundle.fileWrapper.fileWrappers?["assets"]
    var withheld: [FileWrapper] = []
    for (name, path) in document.addedAssets where !text.contains(path) {
      if let child = assets?.fileWrappers?[name] {
        assets?.removeFileWrapper(child)
        withheld.append(child)
      }
    }
    defer { for child in withheld { assets?.addFileWrapper(child) } }
    var isFolder: ObjCBool = false
    let exists = FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder)
    do {
      try bundle.write(to: url, originalContentsURL: exists && isFolder.boolValue ? url.resolvingSymlinksInPath() : nil)
    } catch {
      throw EdError("cannot write '\(url.path)': \(Self.reason(error))")
    }
  }

  /// Merges the disk version of `url` into the buffer, three-way against the version last read
  /// or written, as one undoable edit; returns the merged lines, or `nil` when the base is
  /// unknown or the file cannot be read. Throws naming the conflict when the edits overlap
  /// (the buffer is then unchanged).
  private func mergeWithDisk(_ url: URL) throws(EdError) -> [String]? {
    guard let base = document.diskLines, let theirs = try? document.readDiskVersion(files).0 else { return nil }
    let result: TextMerge.Result
    do {
      result = try TextMerge.merge(
        base: TextFileSystem.text(of: base), mine: TextFileSystem.text(of: buffer.allLines),
        theirs: TextFileSystem.text(of: theirs.lines))
    } catch {
      return nil
    }
    guard result.conflicts == 0 else {
      throw EdError(
        "conflict: '\(url.lastPathComponent)' was changed on disk since quire read it, and \(result.conflicts) of its changes overlap yours; nothing written")
    }
    var merged = result.text.components(separatedBy: "\n")
    if merged.last == "" { merged.removeLast() }
    document.replaceAllLines(with: merged, named: "merge")
    return merged
  }
}
