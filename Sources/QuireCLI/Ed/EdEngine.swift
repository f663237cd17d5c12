import Foundation
import Glibc
import Quire
import QuireSystem
import QuireTypes

/// The line editor: GNU ed's addresses and commands over a ``LineBuffer``.
///
/// Behaviour follows GNU ed 1.19 (the reference, and the peer the tests compare against; its
/// own test suite runs in quire's), every command included. `u` is ed's: it undoes the last
/// change, and `u` again redoes it; the multi-level history is the word commands `undo N` and
/// `redo N`. Differences a script can see only without ed's options (``EdOptions``):
/// - errors print `? ` and one line naming what failed, not a bare `?`;
/// - a `w` to the document's own file fails, naming the conflict, when someone else saved the
///   file since it was read (ed would overwrite it).
///
/// Not `Sendable`: one REPL drives it from one thread.
@MainActor
final class EdEngine {
  /// What the REPL does after a command.
  enum Outcome: Equatable {
    case proceed
    case quit
  }

  /// The document the commands apply to.
  var document: EdDocument
  /// Writes one line of output (the engine adds no newline).
  var output: (String) -> Void
  /// Writes one line of output given as bytes (a printed line, exactly as the buffer holds
  /// it); `nil` decodes them as UTF-8 for ``output``.
  var outputBytes: (([UInt8]) -> Void)?
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
  /// Takes the cross-process locks around each `w` of a file; `nil` writes uncoordinated.
  var coordinator: FileCoordinator?
  /// Says what the command did beyond ed's own output (a version that could not be kept).
  var note: (String) -> Void = { _ in }

  /// ed's options when quire runs as a drop-in ed: `h` prints ed's messages, `-r` restricts,
  /// `-E` and `-G` change how commands read.
  var edOptions: EdOptions?
  /// `H` (or ed's `-v`): print each error's message after its `?`.
  var isVerbose = false
  /// Writes ed's diagnostics for files (`name: No such file or directory`) to standard error;
  /// set in ed mode unless `-q`.
  var diagnostic: ((String) -> Void)?
  /// `P`: toggles the prompt.
  var togglePrompt: () -> Void = {}
  /// Flushes the output now (ed flushes after printing an expanded shell command).
  var flushOutput: () -> Void = {}
  /// Runs before a shell command starts: flushes output, and gives standard input back to the
  /// position of the script's next line.
  var prepareForShell: () -> Void = {}

  /// The last error, for `h`.
  private(set) var lastFailure: EdError?
  /// The last error's message, for `h`.
  var lastError: String? { lastFailure.map { edOptions == nil ? $0.message : $0.edMessage } }
  /// The lines `y` (and `d`, `c`, `j`) copied, which `x` puts back: ed's cut buffer, a
  /// clipboard of the editor (as in GNU ed, one for the session), not the document's text.
  private var cutBuffer: [[UInt8]] = []
  /// The last shell command, for `!!`.
  var lastShellCommand: String?
  /// The change token after a command that changed nothing: a `u` at that state has nothing
  /// to undo (ed clears its undo record when such a command starts). This and the `u` state
  /// below only say how ed's `u` maps onto the document's undo manager, which keeps the history.
  private var undoBarrier: Int?
  private var editDepth = 0
  /// Set by `u` inside `g` or `v`: the global command's changes are undone when it ends.
  private var undoesGlobal = false
  /// Whether the running `g` or `v` has changed a line yet.
  private var globalHasEdited = false
  /// The change token after `u` undid a change, and the current line when it did: a `u` at
  /// that state redoes the change and goes back to that line (ed's `u` swaps both).
  private var undoneByU: (token: Int, line: Int)?
  /// How many lines `z` prints, and how wide `l` lines are: as ed, the terminal on standard
  /// input less 2 rows and 8 columns, or 22 and 72.
  private var windowLines = EdEngine.terminalSize.lines
  private let windowColumns = EdEngine.terminalSize.columns

  private static let terminalSize: (lines: Int, columns: Int) = {
    var size = winsize()
    guard ioctl(STDIN_FILENO, UInt(TIOCGWINSZ), &size) == 0 else { return (22, 72) }
    let lines = size.ws_row > 2 && size.ws_row < 600 ? Int(size.ws_row) - 2 : 22
    let columns = size.ws_col > 8 && size.ws_col < 1800 ? Int(size.ws_col) - 8 : 72
    return (lines, columns)
  }()
  private var lastRegex: CompiledRegex?
  private var lastReplacement: [UInt8]?
  private var lastSubstitution: (replacement: [UInt8], global: Bool, occurrence: Int, flags: PrintFlags, printMask: PrintFlags, regex: CompiledRegex)?
  /// The command that asked for confirmation (`q`, `e`); a repeat of it goes ahead.
  private var pendingConfirmation: String?
  private var confirmationThisCommand: String?
  /// Inside `g`/`v`: the lines still to visit, kept in step with edits.
  private var globalLines: [Int]?
  private var globalCursor = 0
  /// Added to every line of `globalLines` from `globalCursor` on: an edit above all the lines
  /// still to visit shifts them in O(1) instead of rewriting the list.
  private var globalOffset = 0

  init(document: EdDocument, printsByteCounts: Bool, output: @escaping (String) -> Void) {
    self.document = document
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
  func execute(_ line: String, input: @escaping () -> String?) async throws(EdError) -> Outcome {
    do {
      var scanner = CommandScanner(line, continuation: input)
      return try await run(&scanner, input: input)
    } catch {
      lastFailure = error
      throw error
    }
  }

  /// Undoes the last command's edits, or redoes the last undone one (the `u` command, the word
  /// commands `undo` and `redo`); in a PDF, the last page operation.
  func take(_ step: HistoryStep) throws(EdError) {
    if let pdf = document.pdfDocument {
      guard step.take(in: pdf.undoManager) else { throw EdError("nothing to \(step) in '\(document.displayName)'") }
      return
    }
    guard let cursor = step == .undo ? buffer.undo() : buffer.redo() else { throw EdError("nothing to \(step)") }
    undoBarrier = nil
    document.currentLine = min(max(cursor, 0), lastLine)
    // Undoing the first edit of a file leaves ed on its first line, not before it.
    if step == .undo && document.currentLine == 0 && lastLine > 0 { document.currentLine = 1 }
  }

  /// Starts a top-level command: a confirmation asked for by the previous command stays
  /// pending only until this one ends.
  func beginCommand() { confirmationThisCommand = nil }

  /// Ends a top-level command (see ``beginCommand()``).
  func endCommand() { pendingConfirmation = confirmationThisCommand }

  /// Asks once for confirmation of `action` when `unsaved` is not empty; a second identical
  /// request goes ahead (ed's `q` twice).
  ///
  /// As a drop-in ed, any command right after such a warning goes ahead (ed's `e` then `q`).
  func confirm(_ action: String, unsaved: [String], warning: String) throws(EdError) {
    guard !unsaved.isEmpty, pendingConfirmation != action, edOptions == nil || pendingConfirmation == nil else { return }
    confirmationThisCommand = action
    throw EdError(warning, ed: EdError.bufferModified)
  }

  /// ``confirm(_:unsaved:warning:)`` for `q`: the warning names the documents in `unsaved`,
  /// then gives `advice`.
  private func confirmQuit(unsaved: [String], advice: String) throws(EdError) {
    try confirm("q", unsaved: unsaved, warning: "unsaved changes in \(unsaved.map { "'\($0)'" }.joined(separator: ", ")): \(advice)")
  }

  /// ed's `u`: undoes the last change; right after a `u`, redoes what it undid. In quire's own
  /// mode, a `u` that undid a step of an earlier session (a stored history, or its "changed on
  /// disk" step) is followed by a `u` that goes further back, as the stored history is a
  /// history to walk, not ed's one-change record.
  private func toggleUndo() throws(EdError) {
    if document.pdf != nil { return try take(.undo) }
    if let undoBarrier, undoBarrier == buffer.changeToken { throw EdError("nothing to undo: the last command changed nothing", ed: "Nothing to undo") }
    if let undone = undoneByU, undone.token == buffer.changeToken, buffer.redoCount > 0 {
      try take(.redo)
      document.currentLine = min(max(undone.line, 0), lastLine)
      undoneByU = nil
    } else {
      let line = document.currentLine
      let walksBack = edOptions == nil && buffer.undoStepIsFromEarlierSession
      do { try take(.undo) } catch { throw EdError(error.message, ed: "Nothing to undo") }
      undoneByU = walksBack ? nil : (buffer.changeToken, line)
    }
  }

  /// Reads ed's file argument into the (empty, untitled) document, as ed does at startup: the
  /// name becomes the file name even when the file cannot be read; `!cmd` reads its output.
  ///
  /// - Throws: ``EdError`` whose ``EdError/edMessage`` is the system's reason ("No such file
  ///   or directory"), as ed prints it after the name.
  func readInitialFile(_ name: String) throws(EdError) {
    if name.hasPrefix("!") {
      let command = String(name.dropFirst())
      try checkShellAllowed()
      let bytes = try runShell(command, reading: true)
      try document.buffer.reset(contents: Data(bytes), fingerprint: nil)
      document.currentLine = lastLine
      reportRead(bytes.count, lacksFinalNewline: bytes.last.map { $0 != UInt8(ascii: "\n") } ?? false, at: 0, appended: true, before: (false, false))
      return
    }
    try checkFileNameAllowed(name)
    let url = URL(fileURLWithPath: name)
    document.fileURL = url
    let contents: FileBytes
    do {
      contents = try readFile(url, diagnosing: false)
    } catch {
      throw EdError(error.message, ed: error.systemReason ?? "Cannot read input file")
    }
    try document.buffer.reset(contents: contents.data, fingerprint: contents.fingerprint)
    document.currentLine = lastLine
    reportRead(contents.byteCount, lacksFinalNewline: contents.lacksFinalNewline, at: 0, appended: true, before: (false, false))
  }

  /// What GNU ed says after reading `byteCount` bytes into the buffer after line `address` (0
  /// for `e` and the file argument, into the emptied buffer): "Newline inserted" when they went
  /// after an unended last line (a binary buffer's), "Newline appended" when their last line had
  /// no newline and got one (not at the end of a binary buffer, where it stays unended), then,
  /// without `-s`, the bytes read, counting an appended newline as ed counts it.
  ///
  /// - Parameters:
  ///   - appended: Whether the bytes went after the last line.
  ///   - before: Whether the last line was unended and the buffer binary before the read.
  private func reportRead(_ byteCount: Int, lacksFinalNewline: Bool, at address: Int, appended: Bool, before: (unended: Bool, binary: Bool)) {
    let newlineAdded = lacksFinalNewline && byteCount > 0
    let binary = buffer.isBinary
    if address != 0 && appended && byteCount > 0 && before.unended {
      output("Newline inserted")
    } else if newlineAdded && (!appended || !binary) {
      output("Newline appended")
    }
    guard printsByteCounts else { return }
    var count = byteCount
    if newlineAdded && !binary { count += 1 }
    if newlineAdded && !appended && binary && !before.binary { count += 1 }
    output("\(count)")
  }

  /// Reads a file for `e`, `r` and the file argument; `--strip-trailing-cr` drops a carriage
  /// return at the end of each line, as ed's option does.
  ///
  /// In ed mode a file that cannot be read is named on standard error with the system's reason,
  /// as ed does (``diagnostic``), unless `diagnosing` is off.
  private func readFile(_ url: URL, diagnosing: Bool = true) throws(EdError) -> FileBytes {
    var contents: FileBytes
    do {
      // A drop-in ed reads any bytes; quire's own mode edits text.
      contents = try EdDocument.readBytes(of: url, requiresText: edOptions == nil, confined: edOptions?.isRestricted == true)
    } catch {
      if diagnosing, let diagnostic { diagnostic("\(url.relativePath): \(error.systemReason ?? "Cannot read input file")") }
      var failure = error
      failure.edMessage = "Cannot open input file"
      throw failure
    }
    if edOptions?.stripsTrailingCR == true {
      contents.stripTrailingCarriageReturns()
    }
    return contents
  }

  /// Sets the current line from ed's `+LINE`, `+/RE` or `+?RE` argument.
  func setCurrentLine(_ spec: String) throws(EdError) {
    var text = spec
    if text.hasPrefix("/") || text.hasPrefix("?"), text.count == 1 || text.last != text.first { text.append(text.first ?? "/") }
    var scanner = CommandScanner(text)
    let addresses = try parseAddresses(&scanner)
    guard scanner.isAtEnd else { throw EdError("invalid address '+\(spec)'", ed: "Invalid address") }
    if addresses.count > 0 {
      try requireLine(addresses.second)
      document.currentLine = addresses.second
    }
  }

  private func run(_ s: inout CommandScanner, input: @escaping () -> String?) async throws(EdError) -> Outcome {
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
      let text = try readText(input).map { PathText.bytes($0) }
      try edit("insert") { () throws(EdError) in
        try replace(at..<at, with: text)
        if text.isEmpty {
          document.currentLine = command == UInt8(ascii: "i") ? min(max(addresses.second, at), lastLine) : addresses.second
        } else {
          document.currentLine = at + text.count
        }
      }
      try printCurrent(flags)

    case UInt8(ascii: "c"):
      try requireRange(addresses)
      let flags = try readSuffix(&s)
      let text = try readText(input).map { PathText.bytes($0) }
      cutBuffer = buffer.lineBytes(in: (addresses.first - 1)..<addresses.second)
      try edit("change") { () throws(EdError) in
        try replace((addresses.first - 1)..<addresses.second, with: text)
        document.currentLine = text.isEmpty ? min(addresses.first, lastLine) : addresses.first - 1 + text.count
      }
      try printCurrent(flags)

    case UInt8(ascii: "d"):
      try requireRange(addresses)
      let flags = try readSuffix(&s)
      cutBuffer = buffer.lineBytes(in: (addresses.first - 1)..<addresses.second)
      try edit("delete") { () throws(EdError) in
        try replace((addresses.first - 1)..<addresses.second, with: [])
        document.currentLine = min(addresses.first, lastLine)
      }
      try printCurrent(flags)

    case UInt8(ascii: "e"), UInt8(ascii: "E"):
      if globalLines != nil {
        // Inside g: e refuses a modified buffer at once (there is no second e to confirm), E
        // goes ahead; either way g has no lines left to visit in the new buffer.
        if command == UInt8(ascii: "e") && (document.isEdited || globalHasEdited) {
          throw EdError("'\(document.displayName)' has unsaved changes: e inside g does not discard them", ed: EdError.bufferModified)
        }
        globalLines = []
        globalCursor = 0
      }
      if command == UInt8(ascii: "e") {
        try confirm(
          "e", unsaved: document.isEdited ? [document.displayName] : [],
          warning: "'\(document.displayName)' has unsaved changes: 'e' again discards them, or 'w' saves them first")
      }
      try requireNoAddress(addresses)
      let target = try readFileTarget(&s)
      if case .shell(let shellCommand) = target {
        guard case .textFile = document.form else { throw EdError("e !command reads into a text document", ed: "Invalid redirection") }
        let bytes = try runShell(shellCommand, reading: true)
        try document.buffer.reset(contents: Data(bytes), fingerprint: nil)
        cutBuffer = []
        document.marks = [:]
        document.currentLine = lastLine
        reportRead(bytes.count, lacksFinalNewline: bytes.last.map { $0 != UInt8(ascii: "\n") } ?? false, at: 0, appended: true, before: (false, false))
        return .proceed
      }
      let name = target?.fileName
      let url = try fileURL(name)
      guard case .textFile = document.form, !EdDocument.isTextBundle(url) else {
        throw EdError("e reads a text file into a text document; open TextBundles and PDFs with 'open \(name ?? url.lastPathComponent)'")
      }
      let contents: FileBytes
      do {
        contents = try readFile(url)
      } catch {
        if edOptions != nil {
          // As ed: the buffer is emptied before the read, and the name is kept.
          document.fileURL = url
          try? document.buffer.reset(contents: Data(), fingerprint: nil)
          cutBuffer = []
          document.marks = [:]
          document.currentLine = 0
        }
        throw error
      }
      document.fileURL = url
      try document.buffer.reset(contents: contents.data, fingerprint: contents.fingerprint)
      cutBuffer = []
      document.marks = [:]
      document.currentLine = lastLine
      reportRead(contents.byteCount, lacksFinalNewline: contents.lacksFinalNewline, at: 0, appended: true, before: (false, false))

    case UInt8(ascii: "f"):
      try requireNoAddress(addresses)
      if let target = try readFileTarget(&s) {
        guard case .file(let name) = target else { throw EdError("f names a file, not a shell command", ed: "Invalid redirection") }
        if document.pdf != nil {
          throw EdError("'\(document.displayName)' is a PDF: save it under a new name with 'save as PATH'")
        }
        if document.textBundle != nil, !EdDocument.isTextBundle(URL(fileURLWithPath: name)) {
          throw EdError("'\(document.displayName)' is a TextBundle: its name ends in .textbundle or .textpack")
        }
        document.fileURL = URL(fileURLWithPath: name)
      }
      guard let url = document.fileURL else { throw EdError("no current file name; give one: f FILE") }
      // GNU ed prints the name's bytes; quire's own mode shows it escaped, as its messages do.
      output(edOptions == nil ? DisplayName.escaping(url.relativePath) : url.relativePath)

    case UInt8(ascii: "g"), UInt8(ascii: "v"), UInt8(ascii: "G"), UInt8(ascii: "V"):
      return try await global(
        &s, addresses: addresses, matching: command == UInt8(ascii: "g") || command == UInt8(ascii: "G"),
        interactive: command == UInt8(ascii: "G") || command == UInt8(ascii: "V"), input: input)

    case UInt8(ascii: "h"), UInt8(ascii: "H"):
      try requireNoAddress(addresses)
      _ = try readSuffix(&s)
      if command == UInt8(ascii: "H") { isVerbose.toggle() }
      if command == UInt8(ascii: "h") || isVerbose, let lastError { output(lastError) }

    case UInt8(ascii: "j"):
      if addresses.count == 0 {
        addresses.first = document.currentLine
        addresses.second = document.currentLine + 1
      }
      try requireRange(addresses)
      let flags = try readSuffix(&s)
      if addresses.first < addresses.second {
        cutBuffer = buffer.lineBytes(in: (addresses.first - 1)..<addresses.second)
        let joined = Array(cutBuffer.joined())
        try edit("join") { () throws(EdError) in
          try replace((addresses.first - 1)..<addresses.second, with: [joined])
          document.currentLine = addresses.first
        }
      } else {
        markUnchanged()
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
        let lines = buffer.lineBytes(in: (addresses.first - 1)..<addresses.second)
        try edit("copy") { () throws(EdError) in
          try replace(destination..<destination, with: lines)
          document.currentLine = destination + lines.count
        }
      }
      try printCurrent(flags)

    case UInt8(ascii: "P"):
      try requireNoAddress(addresses)
      _ = try readSuffix(&s)
      togglePrompt()

    case UInt8(ascii: "q"), UInt8(ascii: "Q"):
      try requireNoAddress(addresses)
      _ = try readSuffix(&s)
      if command == UInt8(ascii: "q") {
        let unsaved = (document.isEdited || globalHasEdited ? [document.displayName] : []) + otherUnsavedDocuments()
        try confirmQuit(unsaved: unsaved, advice: "'q' again quits without saving, 'w' saves")
      }
      return .quit

    case UInt8(ascii: "r"):
      if addresses.count == 0 { addresses.second = lastLine }
      try checkBounds(addresses.second)
      let target = try readFileTarget(&s)
      let appended = addresses.second == lastLine
      let before = (unended: buffer.endsWithUnendedLine, binary: buffer.isBinary)
      if case .shell(let shellCommand) = target {
        let bytes = try runShell(shellCommand, reading: true)
        let lines = Self.lines(of: bytes).map { Array($0.utf8) }
        try edit("read") { () throws(EdError) in
          try replace(addresses.second..<addresses.second, with: lines)
          if !lines.isEmpty { document.currentLine = addresses.second + lines.count }
        }
        let lacksFinalNewline = bytes.last.map { $0 != UInt8(ascii: "\n") } ?? false
        reportRead(bytes.count, lacksFinalNewline: lacksFinalNewline, at: addresses.second, appended: appended, before: before)
        return .proceed
      }
      let name = target?.fileName
      let url = try fileURL(name)
      // As ed: the name becomes the file name, and the undo record is cleared, before the read.
      if document.fileURL == nil { document.fileURL = url }
      markUnchanged()
      let contents = try readFile(url)
      try edit("read") { () throws(EdError) in
        let lines = contents.byteLines
        if contents.lacksFinalNewline && appended && (buffer.isBinary || contents.data.contains(0)) {
          // As ed: a file read at the end of a binary buffer (or a binary file read at the end)
          // keeps its last line unended.
          try buffer.appendBytes(contents.bytes)
          if globalLines != nil { globalHasEdited = true }
        } else {
          try replace(addresses.second..<addresses.second, with: lines)
        }
        if !lines.isEmpty { document.currentLine = addresses.second + lines.count }
      }
      reportRead(contents.byteCount, lacksFinalNewline: contents.lacksFinalNewline, at: addresses.second, appended: appended, before: before)

    case UInt8(ascii: "s"):
      try substitute(&s, addresses: addresses)

    case UInt8(ascii: "u"):
      try requireNoAddress(addresses)
      let flags = try readSuffix(&s)
      if globalLines != nil {
        // As ed: u inside g undoes what the g changed so far, and ends it (after this line's
        // commands).
        guard globalHasEdited else { throw EdError("nothing to undo yet in this g command", ed: "Nothing to undo") }
        undoesGlobal = true
        globalLines = []
        globalCursor = 0
        return .proceed
      }
      try toggleUndo()
      try printCurrent(flags)

    case UInt8(ascii: "w"), UInt8(ascii: "W"):
      if addresses.count == 0 {
        addresses.first = min(1, lastLine)
        addresses.second = lastLine
      }
      if lastLine > 0 || addresses.count > 0 { try requireRange(addresses) }
      var quits = false
      var quitsUnconditionally = false
      if s.peek == UInt8(ascii: "q") || s.peek == UInt8(ascii: "Q") {
        quitsUnconditionally = s.peek == UInt8(ascii: "Q")
        s.advance()
        quits = true
      }
      let target = try readFileTarget(&s)
      if case .shell(let shellCommand) = target {
        let bytes = lastLine == 0 ? [] : Self.bytes(of: buffer.lineBytes(in: (addresses.first - 1)..<addresses.second))
        try runShell(shellCommand, reading: false, input: bytes)
        if printsByteCounts { output("\(bytes.count)") }
      } else {
        do {
          try await write(addresses, to: target?.fileName, appending: command == UInt8(ascii: "W"))
        } catch {
          if let diagnostic, let url = try? fileURL(target?.fileName) {
            diagnostic("\(url.relativePath): \(error.systemReason ?? "Cannot open output file")")
          }
          throw edOptions == nil ? error : EdError(error.message, ed: "Cannot open output file")
        }
      }
      if quitsUnconditionally { return .quit }
      if quits {
        let unsaved = otherUnsavedDocuments() + (document.isEdited ? [document.displayName] : [])
        try confirmQuit(unsaved: unsaved, advice: "'q' again quits without saving")
        return .quit
      }

    case UInt8(ascii: "="):
      let flags = try readSuffix(&s)
      output("\(addresses.count == 0 ? lastLine : addresses.second)")
      try printCurrent(flags)

    case UInt8(ascii: "#"):
      _ = s.rest()

    case UInt8(ascii: "y"):
      try requireRange(addresses)
      _ = try readSuffix(&s)
      cutBuffer = buffer.lineBytes(in: (addresses.first - 1)..<addresses.second)

    case UInt8(ascii: "x"):
      try checkBounds(addresses.second)
      let flags = try readSuffix(&s)
      // As ed: the undo record is cleared before the put, which may then fail.
      markUnchanged()
      guard !cutBuffer.isEmpty else { throw EdError("nothing to put: y (or d, c, j) fills the cut buffer first", ed: "Nothing to put") }
      let lines = cutBuffer
      try edit("put") { () throws(EdError) in
        try replace(addresses.second..<addresses.second, with: lines)
        document.currentLine = addresses.second + lines.count
      }
      try printCurrent(flags)

    case UInt8(ascii: "z"):
      if addresses.count == 0 { addresses.second = document.currentLine + (globalLines == nil ? 1 : 0) }
      try requireLine(addresses.second)
      if let digit = s.peek, digit > UInt8(ascii: "0"), digit <= UInt8(ascii: "9"), let count = s.readNumber() { windowLines = count }
      var flags = try readSuffix(&s)
      if flags.isEmpty { flags = .print }
      let last = min(lastLine, addresses.second + windowLines - 1)
      for line in addresses.second...last {
        if isInterrupted() { throw EdError.interrupted }
        printLine(line, flags: flags)
      }
      document.currentLine = last

    case UInt8(ascii: "!"):
      try requireNoAddress(addresses)
      let shellCommand = try readShellCommand(&s)
      try runShellEscape(shellCommand)

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

  /// `address + offset`, or an error when the sum overflows (fuzz-ed crashed the process with
  /// `-4-4-8-4--44333333323333…`: an arithmetic overflow trap on input).
  static func offsetAddress(_ address: Int, by offset: Int) throws(EdError) -> Int {
    let (sum, overflow) = address.addingReportingOverflow(offset)
    guard !overflow else { throw EdError("invalid address: out of range") }
    return sum
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
          second = try Self.offsetAddress(second ?? 0, by: number)
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
        second = try Self.offsetAddress(second ?? 0, by: sign * amount)
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
        var ignoresCase = false
        if s.peek == UInt8(ascii: "I") {
          s.advance()
          ignoresCase = true
        }
        let regex = try regex(for: pattern, ignoringCase: ignoresCase)
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
    if addresses.count == 0 && edOptions?.isTraditional == true {
      throw EdError("m and t need a destination with -G", ed: "Destination expected")
    }
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
    let ignoresCase: Bool
    let regex: POSIXRegex
    init(pattern: [UInt8], extended: Bool, ignoresCase: Bool) throws(EdError) {
      self.pattern = pattern
      self.ignoresCase = ignoresCase
      regex = try POSIXRegex(pattern, extended: extended, ignoringCase: ignoresCase)
    }
  }

  /// The expression for `pattern`, or the last one when `pattern` is empty (ed's `I` suffix
  /// then compiles it again without regard to case).
  private func regex(for pattern: [UInt8], ignoringCase: Bool = false) throws(EdError) -> CompiledRegex {
    if pattern.isEmpty {
      guard let lastRegex else { throw EdError.noPreviousPattern }
      guard !ignoringCase else {
        throw EdError("the I suffix needs a regular expression: an empty one repeats the last as it was", ed: "Suffix 'I' not allowed on empty regexp")
      }
      return lastRegex
    }
    if let lastRegex, lastRegex.pattern == pattern, lastRegex.ignoresCase == ignoringCase { return lastRegex }
    let compiled = try CompiledRegex(pattern: pattern, extended: edOptions?.usesExtendedRegex == true, ignoresCase: ignoringCase)
    lastRegex = compiled
    return compiled
  }

  private func search(_ compiled: CompiledRegex, forward: Bool, pattern: [UInt8]) throws(EdError) -> Int {
    let count = lastLine
    var line = document.currentLine
    for _ in 0..<max(count, 0) {
      if isInterrupted() { throw EdError.interrupted }
      line = forward ? (line % count) + 1 : (line <= 1 ? count : line - 1)
      if try compiled.regex.matches(buffer.lineBytes(at: line - 1)) { return line }
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

    init(rawValue: Int) { self.rawValue = rawValue }

    /// The flag a suffix letter (`p`, `l`, `n`) asks for.
    init?(suffix: UInt8) {
      switch suffix {
      case UInt8(ascii: "p"): self = .print
      case UInt8(ascii: "l"): self = .list
      case UInt8(ascii: "n"): self = .numbered
      default: return nil
      }
    }
  }

  /// Reads ed's print suffixes (`p`, `l`, `n`, each at most once) up to the end of the command.
  private func readSuffix(_ s: inout CommandScanner) throws(EdError) -> PrintFlags {
    var flags: PrintFlags = []
    while let byte = s.peek, let flag = PrintFlags(suffix: byte), !flags.contains(flag) {
      flags.insert(flag)
      s.advance()
    }
    if s.isAtEnd { return flags }
    let rest = String(decoding: s.rest(), as: UTF8.self)
    throw EdError("unexpected '\(rest)' after the command (only p, l or n may follow, each once)", ed: "Invalid command suffix")
  }

  private func printCurrent(_ flags: PrintFlags) throws(EdError) {
    guard !flags.isEmpty else { return }
    try requireLine(document.currentLine)
    printLine(document.currentLine, flags: flags)
  }

  /// Writes one line of output given as bytes.
  private func emit(_ line: [UInt8]) {
    if let outputBytes { outputBytes(line) } else { output(String(decoding: line, as: UTF8.self)) }
  }

  /// The bytes ed writes for `lines`: each line followed by a newline.
  nonisolated static func bytes(of lines: [[UInt8]]) -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(lines.reduce(0) { $0 + $1.count + 1 })
    for line in lines {
      bytes.append(contentsOf: line)
      bytes.append(UInt8(ascii: "\n"))
    }
    return bytes
  }

  /// Prints line `number` as `p`, `n` and `l` do (GNU ed's format: `l` wraps at 72 columns, or
  /// the terminal's width less 8).
  private func printLine(_ number: Int, flags: PrintFlags) {
    let text = buffer.lineBytes(at: number - 1)
    var out = flags.contains(.numbered) ? "\(number)\t" : ""
    guard flags.contains(.list) else {
      emit(Array(out.utf8) + text)
      return
    }
    var column = flags.contains(.numbered) ? 8 : 0
    var bytes: [UInt8] = Array(out.utf8)
    let escapes: [UInt8: UInt8] = [7: 97, 8: 98, 12: 102, 10: 110, 13: 114, 9: 116, 11: 118, 92: 92]
    for byte in text {
      column += 1
      if column > windowColumns {
        column = 1
        bytes.append(contentsOf: [92, 10])
      }
      if byte >= 32 && byte <= 126 && byte != 92 && byte != 36 {
        bytes.append(byte)
      } else if byte == 92 || byte == 36 {
        // `\` and `$` are escaped with a backslash.
        column += 1
        bytes.append(contentsOf: [92, byte])
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
    if edOptions?.isTraditional != true { bytes.append(UInt8(ascii: "$")) }
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

  /// What `e`, `r`, `w` and `f` name: a file, or (`!cmd`) a shell command.
  enum FileTarget {
    case file(String)
    case shell(String)

    var fileName: String? {
      if case .file(let name) = self { return name }
      return nil
    }
  }

  private func readFileName(_ s: inout CommandScanner) throws(EdError) -> String? {
    try readFileTarget(&s)?.fileName
  }

  /// Reads a command's file name, or `!cmd`; `nil` when none is given.
  private func readFileTarget(_ s: inout CommandScanner) throws(EdError) -> FileTarget? {
    guard let byte = s.peek else { return nil }
    guard byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") else {
      throw EdError(
        "unexpected '\(String(decoding: s.rest(), as: UTF8.self))': put a space between the command and the file name", ed: "Unexpected command suffix")
    }
    s.skipBlanks()
    if s.peek == UInt8(ascii: "!") {
      s.advance()
      return .shell(try readShellCommand(&s))
    }
    // The name's very bytes, carried in a `PathText` string (the document layer and the
    // system layer take it back as bytes).
    let name = PathText.string(bytes: s.rest())
    if name.isEmpty { return nil }
    try checkFileNameAllowed(name)
    return .file(name)
  }

  /// The file a command names, or the current file name.
  private func fileURL(_ name: String?) throws(EdError) -> URL {
    if let name { return URL(fileURLWithPath: name) }
    guard let url = document.fileURL else { throw EdError("no current file name; give one, e.g. w notes.md") }
    return url
  }

  // MARK: Editing

  /// Runs `body` as one undoable step.
  ///
  /// A command that changes nothing (`g/zzz/d`, `a` with no text, an `s` that finds no match)
  /// still counts as the last change for `u`, which then has nothing to undo, as in ed.
  private func edit(_ name: String, _ body: () throws(EdError) -> Void) throws(EdError) {
    let before = beginEdit(name)
    defer { endEdit(since: before) }
    try body()
  }

  /// ``edit(_:_:)`` for a body that awaits (a `g` command list, which may `w`).
  private func editAsync(_ name: String, _ body: () async throws(EdError) -> Void) async throws(EdError) {
    let before = beginEdit(name)
    defer { endEdit(since: before) }
    try await body()
  }

  /// Opens the undoable step of ``edit(_:_:)``; returns the buffer's change token before it.
  private func beginEdit(_ name: String) -> Int {
    let before = buffer.changeToken
    editDepth += 1
    buffer.beginEditGroup(named: name, cursor: document.currentLine)
    return before
  }

  /// Closes the step ``beginEdit(_:)`` opened; one that changed nothing is still the last change.
  private func endEdit(since before: Int) {
    buffer.endEditGroup(cursor: document.currentLine)
    editDepth -= 1
    if editDepth == 0 && buffer.changeToken == before { markUnchanged() }
  }

  /// Records that the last command changed nothing: `u` now has nothing to undo.
  private func markUnchanged() {
    if editDepth == 0 { undoBarrier = buffer.changeToken }
  }

  /// Replaces lines `range` (0-based) and keeps marks and the lines `g` will visit in step.
  private func replace(_ range: Range<Int>, with lines: [[UInt8]]) throws(EdError) {
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
    remapGlobalLines(map)
  }

  /// Applies `map` to the lines `g` has still to visit.
  private func remapGlobalLines(_ map: (Int) -> Int?) {
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

  // MARK: s

  private func substitute(_ s: inout CommandScanner, addresses: Addresses) throws(EdError) {
    try requireRange(addresses)
    var global = false
    var occurrence = 1
    var flags: PrintFlags = []
    var printMask: PrintFlags = .print
    let compiled: CompiledRegex
    let replacement: [UInt8]
    let badSuffix = EdError("unexpected suffix after s: g or a count N, then p, l or n", ed: "Invalid command suffix")
    var isBare = false
    if let delimiter = s.peek, !"gpr123456789".utf8.contains(delimiter) {
      guard delimiter != UInt8(ascii: " "), delimiter != UInt8(ascii: "\n") else {
        throw EdError("s needs a delimiter that is not a blank: s/re/replacement/", ed: "Invalid pattern delimiter")
      }
      s.advance()
      let (pattern, closed) = try s.readPattern(delimiter: delimiter)
      guard closed else { throw EdError("missing delimiter: write s/regular expression/replacement/") }
      if pattern.isEmpty && lastRegex == nil { throw EdError.noPreviousPattern }
      var printsImplicitly = false
      (replacement, printsImplicitly) = try readReplacement(&s, delimiter: delimiter)
      if printsImplicitly { flags.insert(.print) }
      var countGiven = false
      var ignoresCase = false
      var suffixes: PrintFlags = []
      // g or N, I, p, l, n: each at most once, in any order.
      while let byte = s.peek {
        if byte == UInt8(ascii: "g") || (byte >= UInt8(ascii: "1") && byte <= UInt8(ascii: "9")) {
          if global || countGiven { throw badSuffix }
          if byte == UInt8(ascii: "g") {
            global = true
            s.advance()
          } else {
            occurrence = s.readNumber() ?? 1
            countGiven = true
          }
        } else if byte == UInt8(ascii: "i") || byte == UInt8(ascii: "I") {
          if ignoresCase { throw badSuffix }
          ignoresCase = true
          s.advance()
        } else if let flag = PrintFlags(suffix: byte) {
          if suffixes.contains(flag) { throw badSuffix }
          suffixes.insert(flag)
          s.advance()
        } else {
          break
        }
      }
      guard s.isAtEnd else { throw badSuffix }
      flags.formUnion(suffixes)
      printMask = suffixes.isEmpty ? .print : suffixes
      compiled = try regex(for: pattern, ignoringCase: ignoresCase)
    } else {
      // A bare `s` repeats the last substitution: N sets the occurrence, g toggles global, p
      // toggles printing, r uses the last search's expression; each at most once.
      guard let last = lastSubstitution else {
        throw EdError("no previous substitution to repeat")
      }
      isBare = true
      replacement = last.replacement
      global = last.global
      occurrence = last.occurrence
      flags = last.flags
      printMask = last.printMask
      var seen: Set<UInt8> = []
      while let byte = s.peek {
        let kind = isDigit(byte) ? UInt8(ascii: "g") : byte
        guard "gpr".utf8.contains(kind), !seen.contains(kind) else { break }
        seen.insert(kind)
        if isDigit(byte) {
          guard byte != UInt8(ascii: "0") else { throw badSuffix }
          occurrence = s.readNumber() ?? 1
          global = false
        } else {
          s.advance()
          if byte == UInt8(ascii: "g") {
            // As ed's count that is 0 for global: leaving global substitutes the first match.
            global.toggle()
            occurrence = 1
          }
          if byte == UInt8(ascii: "p") { flags.formSymmetricDifference(printMask) }
        }
      }
      guard s.isAtEnd else { throw badSuffix }
      compiled = seen.contains(UInt8(ascii: "r")) ? lastRegex ?? last.regex : last.regex
    }
    lastSubstitution = (replacement, global, occurrence, flags, printMask, compiled)

    var changedAny = false
    try edit("substitute") { () throws(EdError) in
      if globalLines == nil {
        // Outside g: every line's change in one pass and one undo record.
        changedAny = try substituteInOnePass(addresses, compiled.regex, replacement, global: global, occurrence: occurrence)
        return
      }
      var line = addresses.first
      var end = addresses.second
      while line <= end {
        if isInterrupted() { throw EdError.interrupted }
        let original = buffer.lineBytes(at: line - 1)
        if let newLines = try substituted(original, compiled.regex, replacement, global: global, occurrence: occurrence) {
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
    }
    if !changedAny {
      if globalLines != nil {
        try printCurrent(flags)
        if isBare { try printNullCommandInGlobal() }
        return
      }
      let shown = String(decoding: compiled.pattern, as: UTF8.self)
      let place = addresses.first == addresses.second ? "line \(addresses.first)" : "lines \(addresses.first)-\(addresses.second)"
      throw EdError("no match: /\(shown)/ is not found on \(place)")
    }
    try printCurrent(flags)
    if isBare && globalLines != nil { try printNullCommandInGlobal() }
  }

  /// `s` over `addresses` outside a `g` command: the lines are read in place, and the changed
  /// ones are replaced together in one edit of the buffer. Returns whether any line changed.
  private func substituteInOnePass(
    _ addresses: Addresses, _ regex: borrowing POSIXRegex, _ replacement: [UInt8], global: Bool, occurrence: Int
  ) throws(EdError) -> Bool {
    let changed = try replaceMatchingLinesInOnePass(addresses, regex) { (line) throws(EdError) in
      try substituted(line, regex, replacement, global: global, occurrence: occurrence)
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
  private func replaceMatchingLinesInOnePass(
    _ addresses: Addresses, _ regex: borrowing POSIXRegex, matching: Bool = true, _ replace: ([UInt8]) throws(EdError) -> [[UInt8]]?
  ) throws(EdError) -> [(index: Int, count: Int)] {
    var lastReplaced: [UInt8]?
    let changed = try buffer.editLines(in: (addresses.first - 1)..<addresses.second) { (_, bytes) throws(EdError) -> [[UInt8]]? in
      if isInterrupted() { throw EdError.interrupted }
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
  private func printNullCommandInGlobal() throws(EdError) {
    try requireLine(document.currentLine)
    printLine(document.currentLine, flags: [])
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
  ///
  /// GNU ed's matching loop: after each match the search goes on from its end (never at a
  /// line start again); an empty match right where the last one ended is allowed once with `g`
  /// (`s/^/#/g`), twice is an infinite loop.
  private func substituted(
    _ line: [UInt8], _ regex: borrowing POSIXRegex, _ replacement: [UInt8], global: Bool, occurrence: Int
  ) throws(EdError) -> [[UInt8]]? {
    let text = POSIXRegex.cString(line)
    let length = text.count - 1
    let bytes = line
    guard var groups = try regex.firstMatch(in: text, from: 0) else { return nil }
    var result: [UInt8] = []
    var offset = 0
    var matchNumber = 0
    var replaced = false
    var emptyAtStart = false
    var lastEmptyMatch: Int?
    while let whole = groups[0] {
      matchNumber += 1
      // An empty match found again at the same place (s/x*/y/3 on "abc") is replaced there, as
      // GNU ed does ("Yabc"); matching on from it found the same empty match forever.
      let repeatsEmptyMatch = !global && whole.isEmpty && lastEmptyMatch == whole.lowerBound
      if whole.isEmpty { lastEmptyMatch = whole.lowerBound }
      if global || matchNumber == occurrence || repeatsEmptyMatch {
        result.append(contentsOf: bytes[offset..<whole.lowerBound])
        expand(replacement, groups: groups, in: bytes, into: &result)
        replaced = true
      } else {
        result.append(contentsOf: bytes[offset..<whole.upperBound])
      }
      let advanced = whole.upperBound - offset
      offset = whole.upperBound
      if global && advanced == 0 {
        if emptyAtStart {
          throw EdError("infinite substitution loop: /…/ matches an empty string; use a pattern that matches at least one character with g")
        }
        emptyAtStart = true
      }
      guard offset < length, !replaced || global, let next = try regex.firstMatch(in: text, from: offset, notAtLineStart: true) else { break }
      groups = next
    }
    guard replaced else { return nil }
    if offset < length { result.append(contentsOf: bytes[offset..<length]) }
    return result.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { Array($0) }
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

  private func global(
    _ s: inout CommandScanner, addresses: Addresses, matching: Bool, interactive: Bool, input: @escaping () -> String?
  ) async throws(EdError) -> Outcome {
    if globalLines != nil { throw EdError("g and v cannot be nested", ed: "Cannot nest global commands") }
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
    var ignoresCase = false
    if s.peek == UInt8(ascii: "I") {
      s.advance()
      ignoresCase = true
    }
    let compiled = try regex(for: pattern, ignoringCase: ignoresCase)
    // The command list: lines ending in a backslash continue it. They are kept as typed; each
    // is handed out without its backslash, and `continued` says whether it had one (an `s`
    // replacement then goes on to the next line, as in GNU ed).
    var commands: [String] = []
    var interactiveFlags: PrintFlags = []
    if interactive {
      interactiveFlags = try readSuffix(&s)
    } else {
      commands = [PathText.string(bytes: s.rest())]
      while let last = commands.last, last.hasSuffix("\\") {
        guard let next = s.continuation() else { break }
        commands.append(next)
      }
      if commands == [""] { commands = ["p"] }
    }

    if !interactive && commands == ["d"] {
      try deleteInOnePass(addresses, compiled.regex, matching: matching)
      return .proceed
    }
    var lines: [Int] = []
    try buffer.forEachLine(in: (addresses.first - 1)..<addresses.second) { (index, bytes) throws(EdError) in
      if isInterrupted() { throw EdError.interrupted }
      if try compiled.regex.matches(bytes) == matching { lines.append(index + 1) }
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
    try await editAsync("global") { () async throws(EdError) in
      while let lines = globalLines, globalCursor < lines.count {
        if isInterrupted() { throw EdError.interrupted }
        let line = lines[globalCursor] + globalOffset
        globalCursor += 1
        document.currentLine = line
        if interactive {
          // G and V: print the line, then read a command for it (empty: none; &: the last one).
          printLine(line, flags: interactiveFlags)
          guard let typed = input() else { throw EdError("the input ended inside G or V", ed: "Unexpected end-of-file") }
          if typed.isEmpty { continue }
          if typed == "&" {
            guard !commands.isEmpty else { throw EdError("no previous command for & in G or V", ed: "No previous command") }
          } else {
            commands = [typed]
            while let last = commands.last, last.hasSuffix("\\"), let next = input() { commands.append(next) }
          }
        }
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
          if try await run(&scanner, input: listInput) == .quit { outcome = .quit }
          if outcome == .quit { return }
        }
      }
    }
    if undoesGlobal {
      undoesGlobal = false
      undoneByU = nil
      try toggleUndo()
    }
    // As ed: G's and V's print suffix prints the current line once more at the end.
    if interactive && outcome == .proceed { try printCurrent(interactiveFlags) }
    return outcome
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

  /// `w` for a PDF: its document's save (the pages written losslessly through libqpdf, the
  /// check for changes on disk, a kept version), or a copy saved to another file.
  private func writePDF(_ pdf: PDFFileDocument, to name: String?, appending: Bool) async throws(EdError) {
    if appending { throw EdError("'\(document.displayName)' is a PDF: W appends lines; use w to save it") }
    let url = try fileURL(name)
    let isOwnFile = document.fileURL?.standardizedFileURL == url.standardizedFileURL
    do {
      if isOwnFile {
        do {
          try await pdf.save()
        } catch let error as QuireError where error.code == .fileChangedOnDisk {
          throw conflictError(url)
        }
      } else if Self.isSpecialFile(url) {
        // A device or FIFO is written through (the pages as the document would save them).
        try FileSaver.writeOutput(try pdf.contents(forType: .pdf), to: url)
      } else {
        try await pdf.save(to: url, for: .saveToOperation)
      }
    } catch let error as EdError {
      throw error
    } catch {
      throw EdError("cannot write '\(url.path)': \(Self.reason(error))", cause: error)
    }
    if let error = pdf.lastVersioningError, isOwnFile {
      note("note: the previous version of '\(url.lastPathComponent)' could not be kept: \(error.reason)")
    }
    if printsByteCounts { output("\((try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0)") }
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
      throw EdError("cannot write '\(url.lastPathComponent)': \(Self.reason(error))", cause: error)
    }
  }

  private func write(_ addresses: Addresses, to name: String?, appending: Bool) async throws(EdError) {
    if let pdf = document.pdfDocument { return try await writePDF(pdf, to: name, appending: appending) }
    let url = try fileURL(name)
    let isOwnFile = document.fileURL == nil || document.fileURL?.standardizedFileURL == url.standardizedFileURL
    let wholeBuffer = addresses.first <= 1 && addresses.second == lastLine
    if !appending, wholeBuffer, let text = document.plainTextDocument, !Self.isSpecialFile(url) {
      // The document's own save: safe save, coordination, the check for changes on disk and
      // a kept version; to another file, a copy of it (ed: the buffer counts as saved).
      try await save(text, to: url, ownFile: isOwnFile)
      if document.fileURL == nil { document.fileURL = url }
      buffer.markSaved()
      document.currentLine = min(document.currentLine, lastLine)
      if printsByteCounts { output("\(text.storage.utf8Count)") }
      return
    }
    if isOwnFile, document.fileURL != nil, document.textBundle != nil {
      // A TextBundle is saved whole, by its document (its text with its assets).
      throw EdError("'\(document.displayName)' is a TextBundle: w saves all of it; write some lines to another file with 'N,Mw FILE'")
    }
    let bytes = lastLine == 0 ? [] : buffer.bytes(ofLines: (addresses.first - 1)..<addresses.second)
    if appending {
      do {
        try FileSaver.appendOutput(Data(bytes), to: url)
      } catch {
        throw EdError(Self.reason(error), cause: error)
      }
    } else {
      // A part of the text, or a device: written here, inside a coordinated write.
      try coordinatedWrite(url) { () throws(EdError) in
        if isOwnFile, !Self.isSpecialFile(url), let text = document.plainTextDocument {
          // Some lines over the document's own file (ed's `1,2w`): the document takes them
          // as its own write, not as someone else's change.
          do {
            text.fileFingerprint = try FileSaver.write(Data(bytes), to: url).fingerprint
          } catch {
            throw EdError(Self.reason(error), cause: error)
          }
        } else {
          // Any other file through the output-path rule: a regular file by safe save, a device
          // or FIFO (or a link to one) written through.
          do {
            try FileSaver.writeOutput(Data(bytes), to: url)
          } catch {
            throw EdError(Self.reason(error), cause: error)
          }
        }
      }
    }
    if document.fileURL == nil { document.fileURL = url }
    // As in ed, writing the whole buffer anywhere counts as saving it.
    if wholeBuffer { buffer.markSaved() }
    if printsByteCounts { output("\(bytes.count)") }
  }

  /// Whether `url` is a device or FIFO (or a link to one), which `w` writes through.
  private static func isSpecialFile(_ url: URL) -> Bool {
    if case .special = try? OutputPath.kind(of: url) { return true }
    return false
  }

  /// Saves `text` with the document layer: over its own file (``Document/save()``; a change on
  /// disk is a conflict, which a script merges when no edits overlap), as its first file
  /// (save as, for an untitled buffer) or as a copy to another file.
  private func save(_ text: PlainTextDocument, to url: URL, ownFile: Bool) async throws(EdError) {
    do {
      // A TextBundle is written as the kind its new name says (a package, or an archive).
      let type = document.textBundle != nil ? EdDocument.textBundleType(of: url) : nil
      if document.fileURL == nil {
        try await text.save(to: url, ofType: type, for: .saveAsOperation)
      } else if ownFile {
        try await saveOwnFile(text, url)
      } else {
        try await text.save(to: url, ofType: type, for: .saveToOperation)
      }
    } catch let error as EdError {
      throw error
    } catch {
      throw EdError("cannot write '\(url.path)': \(Self.reason(error))", cause: error)
    }
    if let error = text.lastVersioningError {
      note("note: the previous version of '\(url.lastPathComponent)' could not be kept: \(error.reason)")
    }
  }

  private func saveOwnFile(_ text: PlainTextDocument, _ url: URL) async throws {
    let count = text.lineCount
    let hadHistory = text.undoManager.canUndo || text.undoManager.canRedo
    do {
      try await text.save()
      // A clean document whose file changed reloads instead (the disk version is newer), with
      // a new history.
      if text.lineCount != count || (hadHistory && !text.undoManager.canUndo && !text.undoManager.canRedo) { buffer.noteChangedOutside() }
      return
    } catch let error as QuireError where error.code == .fileChangedOnDisk {
      // A script merges text files in conflict; a TextBundle is never merged.
      guard mergesOnWriteConflict, document.textBundle == nil, text.documentState.contains(.inConflict) else { throw conflictError(url) }
    }
    let outcome = try await text.resolveConflict(.mergeUnlessOverlapping)
    guard outcome.mergeConflicts == 0 else {
      throw EdError(
        "conflict: '\(url.lastPathComponent)' was changed on disk since quire read it, and \(outcome.mergeConflicts) of its changes overlap yours; nothing written"
      )
    }
    buffer.noteChangedOutside()
    try await text.save()
  }

  /// Says that `url` changed on disk since it was read here, and what the person can do.
  func conflictError(_ url: URL) -> EdError {
    EdError(
      "conflict: '\(url.lastPathComponent)' was changed on disk since quire read it; nothing written. "
        + (document.pdf == nil
          ? "'revert' loads the disk version (your edits stay undoable), \(document.textBundle == nil ? "'merge' combines both, " : "")'keep' then 'w' replaces it, 'w OTHER' saves yours elsewhere"
          : "'revert' loads the disk version (your page changes are dropped), 'keep' then 'w' replaces it, 'w OTHER.pdf' saves yours elsewhere"))
  }
}
