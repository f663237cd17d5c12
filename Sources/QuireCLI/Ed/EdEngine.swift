import Foundation
import Quire
import QuireSystem
import QuireTypes

/// The line editor: GNU ed's commands (parsed by ``EdCommand``) interpreted over a document's
/// lines (``DocumentLineBuffer``), printing through an ``EdOutput``.
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
  /// Where printed lines, notes and diagnostics go, and what the engine asks of its session
  /// (held weakly: the session owns the engine).
  weak var output: (any EdOutput)?
  /// Whether `e`, `r` and `w` print byte counts (ed without `-s`; the interactive REPL).
  var printsByteCounts: Bool
  /// Whether a whole-buffer `w` that finds the file changed on disk merges (three-way, against
  /// the version last read or written) when the edits do not overlap, instead of failing.
  /// Script mode sets it; a terminal session asks the person (`merge`, `revert`, `keep`).
  var mergesOnWriteConflict = false
  /// Takes the cross-process locks around each `w` of a file; `nil` writes uncoordinated.
  var coordinator: FileCoordinator?

  /// ed's options when quire runs as a drop-in ed: `h` prints ed's messages, `-r` restricts,
  /// `-E` and `-G` change how commands read.
  var edOptions: EdOptions?
  /// `H` (or ed's `-v`): print each error's message after its `?`.
  var isVerbose = false

  /// The last error, for `h`.
  private(set) var lastFailure: EdError?
  /// The last error's message, for `h`.
  var lastError: String? { lastFailure.map { edOptions == nil ? $0.message : $0.edMessage } }
  /// The lines `y` (and `d`, `c`, `j`) copied, which `x` puts back: ed's cut buffer, a
  /// clipboard of the editor (as in GNU ed, one for the session), not the document's text.
  var cutBuffer: [[UInt8]] = []
  /// The last shell command, for `!!`.
  var lastShellCommand: String?
  /// The change token after a command that changed nothing: a `u` at that state has nothing
  /// to undo (ed clears its undo record when such a command starts). This and the `u` state
  /// below only say how ed's `u` maps onto the document's undo manager, which keeps the history.
  var undoBarrier: Int?
  var editDepth = 0
  /// Set by `u` inside `g` or `v`: the global command's changes are undone when it ends.
  var undoesGlobal = false
  /// Whether the running `g` or `v` has changed a line yet.
  var globalHasEdited = false
  /// The change token after `u` undid a change, and the current line when it did: a `u` at
  /// that state redoes the change and goes back to that line (ed's `u` swaps both).
  var undoneByU: (token: Int, line: Int)?
  /// How many lines `z` prints: as ed, the terminal's height less 2, or 22 (``TerminalWindow``).
  var windowLines = TerminalWindow.size.lines
  /// How wide `l` lines are: the terminal's width less 8, or 72.
  let windowColumns = TerminalWindow.size.columns
  /// The last regular expression, which an empty one (`//`, `s//x/`) repeats.
  var lastRegex: CompiledRegex?
  /// The last replacement, which `%` repeats.
  var lastReplacement: [UInt8]?
  /// The last substitution, which a bare `s` repeats.
  var lastSubstitution: (replacement: [UInt8], global: Bool, occurrence: Int, flags: PrintFlags, printMask: PrintFlags, regex: CompiledRegex)?
  /// The command that asked for confirmation (`q`, `e`); a repeat of it goes ahead.
  var pendingConfirmation: String?
  var confirmationThisCommand: String?
  /// Inside `g`/`v`: the lines still to visit, kept in step with edits.
  var globalLines: [Int]?
  var globalCursor = 0
  /// Added to every line of `globalLines` from `globalCursor` on: an edit above all the lines
  /// still to visit shifts them in O(1) instead of rewriting the list.
  var globalOffset = 0

  init(document: EdDocument, printsByteCounts: Bool, output: (any EdOutput)? = nil) {
    self.document = document
    self.printsByteCounts = printsByteCounts
    self.output = output
  }

  var buffer: DocumentLineBuffer { document.buffer }
  var lastLine: Int { buffer.lineCount }

  /// Whether the session asked to stop the running command (Ctrl-C).
  var isInterrupted: Bool { output?.isInterrupted ?? false }

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
  func confirmQuit(unsaved: [String], advice: String) throws(EdError) {
    try confirm("q", unsaved: unsaved, warning: "unsaved changes in \(unsaved.map { "'\($0)'" }.joined(separator: ", ")): \(advice)")
  }

  /// ed's `u`: undoes the last change; right after a `u`, redoes what it undid. In quire's own
  /// mode, a `u` that undid a step of an earlier session (a stored history, or its "changed on
  /// disk" step) is followed by a `u` that goes further back, as the stored history is a
  /// history to walk, not ed's one-change record.
  func toggleUndo() throws(EdError) {
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
  func reportRead(_ byteCount: Int, lacksFinalNewline: Bool, at address: Int, appended: Bool, before: (unended: Bool, binary: Bool)) {
    let newlineAdded = lacksFinalNewline && byteCount > 0
    let binary = buffer.isBinary
    if address != 0 && appended && byteCount > 0 && before.unended {
      output?.print("Newline inserted")
    } else if newlineAdded && (!appended || !binary) {
      output?.print("Newline appended")
    }
    guard printsByteCounts else { return }
    var count = byteCount
    if newlineAdded && !binary { count += 1 }
    if newlineAdded && !appended && binary && !before.binary { count += 1 }
    output?.print("\(count)")
  }

  /// Reads a file for `e`, `r` and the file argument; `--strip-trailing-cr` drops a carriage
  /// return at the end of each line, as ed's option does.
  ///
  /// In ed mode a file that cannot be read is named on standard error with the system's reason,
  /// as ed does (``EdOutput/diagnose(_:)``), unless `diagnosing` is off.
  func readFile(_ url: URL, diagnosing: Bool = true) throws(EdError) -> FileBytes {
    var contents: FileBytes
    do {
      // A drop-in ed reads any bytes; quire's own mode edits text.
      contents = try EdDocument.readBytes(of: url, requiresText: edOptions == nil, confined: edOptions?.isRestricted == true)
    } catch {
      if diagnosing { output?.diagnose("\(url.relativePath): \(error.systemReason ?? "Cannot read input file")") }
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
    let addresses = try resolve(EdCommand.parseAddresses(&scanner))
    guard scanner.isAtEnd else { throw EdError("invalid address '+\(spec)'", ed: "Invalid address") }
    if addresses.count > 0 {
      try requireLine(addresses.second)
      document.currentLine = addresses.second
    }
  }

  /// Parses the command at `s` and runs it.
  func run(_ s: inout CommandScanner, input: @escaping () -> String?) async throws(EdError) -> Outcome {
    if document.pdf != nil { try checkAppliesToPDF(s.peek) }
    return try await run(EdCommand.parse(&s), input: input)
  }

  /// Runs one parsed command: its addresses are resolved first, in order (a search or `;` may
  /// move the current line), then the command runs on them.
  func run(_ command: EdCommand, input: @escaping () -> String?) async throws(EdError) -> Outcome {
    let addresses = try resolve(command.addresses)
    switch command.action {
    case .printNext: try printNext(addresses)
    case .append(let flags): try add(after: addresses, flags, input: input)
    case .insert(let flags): try add(before: addresses, flags, input: input)
    case .change(let flags): try change(addresses, flags, input: input)
    case .delete(let flags): try delete(addresses, flags)
    case .edit(let target, let unconditionally): try editFile(addresses, target, unconditionally: unconditionally)
    case .fileName(let target): try setFileName(addresses, target)
    case .global(let global): return try await self.global(global, addresses: addresses, input: input)
    case .help(let togglesVerbose): try help(addresses, togglesVerbose: togglesVerbose)
    case .join(let flags): try join(addresses, flags)
    case .mark(let letter): try setMark(letter, addresses)
    case .print(let flags): try printLines(addresses, flags)
    case .move(let destination, let flags): try move(addresses, to: destination, flags)
    case .copy(let destination, let flags): try copy(addresses, to: destination, flags)
    case .togglePrompt:
      try requireNoAddress(addresses)
      output?.togglePrompt()
    case .quit(let unconditionally): return try quit(addresses, unconditionally: unconditionally)
    case .read(let target): try read(addresses, target)
    case .substitute(let substitution): try substitute(substitution, addresses: addresses)
    case .undo(let flags): try undo(addresses, flags)
    case .write(let target, let appending, let then): return try await write(addresses, target, appending: appending, then: then)
    case .lineNumber(let flags):
      output?.print("\(addresses.count == 0 ? lastLine : addresses.second)")
      try printCurrent(flags)
    case .comment: break
    case .yank:
      try requireRange(addresses)
      cutBuffer = buffer.lineBytes(in: (addresses.first - 1)..<addresses.second)
    case .put(let flags): try put(addresses, flags)
    case .scroll(let lines, let flags): try scroll(addresses, lines: lines, flags)
    case .shell(let typed):
      try requireNoAddress(addresses)
      try runShellEscape(expandShellCommand(typed))
    }
    return .proceed
  }

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
}
