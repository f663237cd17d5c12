import ArgumentParser
import Foundation
import Quire
import SystemPackage

/// The quire REPL: open documents, ed commands on the current one, word commands for the rest.
///
/// Input and output are injected (a ``LineSource`` and two line writers), so tests drive a
/// session in-process; the `quire` executable wires it to libedit or standard input.
///
/// Main-actor isolated, as the documents it edits are: each command runs to its end on the main
/// actor, and between commands the session awaits its next line (read on a queue of its own,
/// ``LineReader``), so that the main actor is free meanwhile for the documents' autosave timers
/// and for other processes' requests to their presenters.
@MainActor
final class REPLSession {
  /// How the session talks to the world.
  struct Configuration {
    /// A terminal session (prompt, banner, byte counts, disk-change notices) or a script.
    var isInteractive: Bool
    /// Where `quire` with no files looks (Documents/).
    var documentsFolder: URL?
    /// Where `new --template` finds templates (Templates/, described by templates.json).
    var templatesFolder: URL?
    /// `$XDG_CACHE_HOME`, where previews are written.
    var cacheHome: URL
    /// Ctrl-C; the executable passes ``Interrupt/shared``.
    var interrupt = InterruptFlag()
    /// Where and when documents autosave unsaved edits (the document layer's recovery files);
    /// `nil` turns autosave and recovery off.
    var autosave: AutosaveSettings?
    /// Where each save keeps the file's previous content (`versions`, `restore`); `nil` keeps
    /// none. `quire` uses `$XDG_STATE_HOME/quire/versions`.
    var versionStore: VersionStore?
    /// Where text documents keep their undo history between sessions
    /// (``Document/persistsUndoHistory``); `nil` keeps none. `quire` uses
    /// `$XDG_STATE_HOME/quire/undo` in its own mode, and nothing as a drop-in ed.
    var undoHistory: UndoHistoryStore?
    /// Takes the cross-process locks (`FileCoordinator`) around each `w`, so that the
    /// conflict check and the write are one step for other Quire processes; `nil` writes
    /// uncoordinated. `quire` uses `$XDG_RUNTIME_DIR/quire`.
    var coordinator: FileCoordinator?
    /// ed's options when quire runs as a drop-in ed (``EdOptions``); `nil` for quire's own modes.
    var ed: EdOptions?
    /// Whether a failing command ends a script. quire's script mode always stops; as ed, only a
    /// script read from a regular file does (a piped one goes on and exits 1 at its end).
    var stopsAtFirstError = true
    /// The desktop's recent documents, where each opened file is noted; `nil` notes none
    /// (tests: the user's own `recently-used.xbel` is not theirs to change). `quire` uses
    /// `RecentDocuments()`.
    var recents: RecentDocuments?
  }

  let configuration: Configuration
  /// Whether documents refuse bytes that are not UTF-8 text: quire's own mode edits text; as
  /// a drop-in ed (GNU ed edits any bytes) it reads them byte for byte.
  var requiresText: Bool { configuration.ed == nil }
  private let source: any LineSource
  /// Reads ``source`` off the main actor.
  let reader: LineReader
  private let output: (String) -> Void
  private let errorOutput: (String) -> Void
  /// The open documents, in the order they were opened.
  private(set) var documents: [EdDocument] = []
  private(set) var currentIndex: Int?
  private let engine: EdEngine
  /// The one way the session opens and makes documents: the classes by type, the file access,
  /// the stores and autosave every document gets.
  let documentController: SessionDocumentController
  /// How documents read their files: UTF-8 text in quire's own mode; as a drop-in ed (GNU ed
  /// edits any bytes), byte for byte.
  var documentOptions: DocumentOptions { requiresText ? .utf8Text : .exactBytes }
  /// The input line number of the command running now (script mode names it on failure).
  private(set) var lineNumber = 0
  /// Set when Ctrl-D with unsaved changes has warned once.
  private var warnedAtEndOfInput = false
  /// Set when the session ends at the end of its input rather than by `q` or `Q`.
  private var endedAtEndOfInput = false
  /// The first failing line in script mode.
  private(set) var firstFailure: (line: Int, message: String)?
  /// The hits of the last `search`, for `search --open N`.
  var lastSearchHits: [SearchHit] = []
  /// The search indexes this session keeps current once it has searched (until it ends).
  let keptSearchIndexes = KeptSearchIndexes()
  /// What the documents reported of their files (changed on disk, moved), to print before
  /// the next prompt (``announceDiskChanges()``).
  private var fileNotices: [String] = []
  /// As ed: the exit status so far (1 after a failed command, 2 after input ended with
  /// unsaved changes; stays 0 with `-l`).
  private var edExitStatus: Int32 = 0
  /// As ed: whether the last command warned of unsaved changes (a `q` or the end of input
  /// right after it goes ahead).
  private var edWarnedOfUnsavedChanges = false
  /// ed's prompt is shown (`-p`, toggled by `P`).
  var showsEdPrompt: Bool
  /// Writes text without a newline (ed's prompt in script mode).
  var writeRaw: (String) -> Void = { _ in }
  /// Flushes both output streams (before a shell command writes to them).
  var flushOutput: () -> Void = {}
  /// Writes a line given as bytes (printed lines, exactly as the buffer holds them).
  var outputBytes: (([UInt8]) -> Void)?

  init(configuration: Configuration, source: any LineSource, output: @escaping (String) -> Void, errorOutput: @escaping (String) -> Void) {
    self.configuration = configuration
    self.source = source
    reader = LineReader(source)
    self.output = output
    self.errorOutput = errorOutput
    let controller = SessionDocumentController(configuration: configuration)
    documentController = controller
    // The engine's document until the session makes or opens one: untitled, with no file.
    engine = EdEngine(
      document: EdDocument.untitled(with: controller, options: configuration.ed == nil ? .utf8Text : .exactBytes),
      printsByteCounts: configuration.ed.map { !$0.isScripted } ?? configuration.isInteractive)
    showsEdPrompt = configuration.ed?.prompt != nil
    if let ed = configuration.ed {
      engine.edOptions = ed
      engine.isVerbose = ed.isVerbose
    }
    engine.mergesOnWriteConflict = !configuration.isInteractive
    engine.coordinator = configuration.coordinator
    engine.output = self
  }

  /// Whether quire runs as a drop-in GNU ed (ed's options were given).
  var isEdMode: Bool { configuration.ed != nil }

  /// The document ed commands apply to.
  var currentDocument: EdDocument? { currentIndex.map { documents[$0] } }

  /// The prompt: the current document's name, `*` when it has unsaved changes.
  var prompt: String {
    if let ed = configuration.ed { return showsEdPrompt ? ed.prompt ?? "*" : "" }
    guard let document = currentDocument else { return "quire> " }
    return "\(document.displayName)\(document.isEdited ? "*" : "")> "
  }

  // MARK: Running

  /// Runs the session until `q`, `Q` or the end of input; returns the exit status.
  ///
  /// - Parameter files: Files to open first (`quire FILE…`).
  /// - Returns: 0, or 1 when a command failed in script mode (or the script ended with unsaved
  ///   changes).
  func run(opening files: [String]) async -> Int32 {
    let status = await runSession(opening: files)
    keptSearchIndexes.stopAll()
    await finishAutosave()
    return status
  }

  private func runSession(opening files: [String]) async -> Int32 {
    if isEdMode {
      if let status = openAsEd(files.first) { return status }
      return await runCommands()
    }
    if configuration.isInteractive {
      output("quire \(quireVersion): ed-style editing plus word commands; 'help' lists them, 'q' quits.")
      if files.isEmpty { listDocumentsFolder() }
    }
    for file in files {
      do {
        try await open(file)
      } catch {
        if report(error) { return ExitStatus.failure }
      }
    }
    return await runCommands()
  }

  /// Reads and runs commands until `q`, `Q` or the end of input; returns the exit status.
  private func runCommands() async -> Int32 {
    while true {
      if configuration.isInteractive { await announceDiskChanges() }
      configuration.interrupt.clear()
      guard let line = await nextCommandLine(prompt: configuration.isInteractive || isEdMode ? prompt : "") else {
        if configuration.isInteractive && configuration.interrupt.isPending {
          // Ctrl-C at the prompt drops the line being typed; the session goes on.
          configuration.interrupt.clear()
          output("")
          (source as? FlushingSource)?.reset()
          continue
        }
        if isEdMode {
          // As ed: the end of input is q; with unsaved changes it warns once, and the exit
          // status says so (2), unless the last command already warned.
          if documents.contains(where: \.isEdited) && !edWarnedOfUnsavedChanges {
            edWarnedOfUnsavedChanges = true
            if configuration.ed?.isLoose != true { edExitStatus = 2 }
            reportAsEd(EdError("unsaved changes", ed: EdError.bufferModified), line: lineNumber)
            if !configuration.isInteractive { return edExitStatus }
            continue
          }
          endedAtEndOfInput = true
          return edExitStatus
        }
        if configuration.isInteractive, !warnedAtEndOfInput, case let unsaved = documents.filter(\.isEdited).map(\.displayName), !unsaved.isEmpty {
          // Ctrl-D with unsaved changes asks first, as q does.
          warnedAtEndOfInput = true
          output("")
          output("? unsaved changes in \(unsaved.map { "'\($0)'" }.joined(separator: ", ")): Ctrl-D again quits without saving, 'w' saves")
          continue
        }
        return endOfInput()
      }
      warnedAtEndOfInput = false
      let commandLine = lineNumber
      source.remember(line)
      if configuration.isInteractive { await announceDiskChanges() }
      do {
        let outcome = try await handle(line)
        edWarnedOfUnsavedChanges = false
        if outcome == .quit { return isEdMode ? edExitStatus : ExitStatus.success }
      } catch {
        if configuration.interrupt.isPending { configuration.interrupt.clear() }
        if isEdMode {
          if configuration.ed?.isLoose != true && edExitStatus == 0 { edExitStatus = 1 }
          edWarnedOfUnsavedChanges = (error as? EdError)?.edMessage == EdError.bufferModified
          reportAsEd(error, line: commandLine)
          if configuration.stopsAtFirstError { return edExitStatus }
          continue
        }
        if report(error, line: commandLine) { return ExitStatus.failure }
      }
    }
  }

  /// Reads the next command line and counts it, awaiting it off the main actor; moves of open
  /// documents that other programs made meanwhile are applied before it runs.
  private func nextCommandLine(prompt: String) async -> String? {
    // ed flushes its output before reading each command.
    if isEdMode { flushOutput() }
    if isEdMode && !configuration.isInteractive && !prompt.isEmpty { writeRaw(prompt) }
    reader.completion = completion
    let line = await reader.nextLine(prompt: prompt)
    guard let line else { return nil }
    lineNumber += 1
    return line
  }

  /// Reads a line that continues the running command (text for `a`, a `G` command) and counts
  /// it. The command is under way, so it waits for the line on the main actor; ed does not
  /// flush its output before such a line.
  private func nextContinuationLine() -> String? {
    guard let line = reader.nextLineNow(prompt: "") else { return nil }
    lineNumber += 1
    return line
  }

  private func endOfInput() -> Int32 {
    endedAtEndOfInput = true
    if configuration.isInteractive {
      output("")
      let unsaved = documents.filter(\.isEdited).map(\.displayName)
      if !unsaved.isEmpty {
        errorOutput("quire: quit with unsaved changes in \(unsaved.map { "'\($0)'" }.joined(separator: ", ")) (end of input)")
      }
      return ExitStatus.success
    }
    let unsaved = documents.filter(\.isEdited).map(\.displayName)
    guard unsaved.isEmpty else {
      errorOutput(
        "quire: end of script with unsaved changes in \(unsaved.map { "'\($0)'" }.joined(separator: ", ")); end the script with w (save) or Q (discard)")
      return ExitStatus.failure
    }
    return ExitStatus.success
  }

  /// Prints `error`; returns whether the session must stop (script mode).
  private func report(_ error: any Error, line: Int? = nil) -> Bool {
    let message = Self.message(for: error)
    if configuration.isInteractive {
      output("? \(message)")
      return false
    }
    let location = line.map { "line \($0): " } ?? ""
    errorOutput("quire: \(location)\(message)")
    firstFailure = (line ?? 0, message)
    return true
  }

  /// Prints `error` as GNU ed does: `?`, then under `H` (or `-v`) ed's message, naming the
  /// script's line when the script is a regular file.
  private func reportAsEd(_ error: any Error, line: Int? = nil) {
    output("?")
    guard engine.isVerbose else { return }
    let message = (error as? EdError)?.edMessage ?? Self.message(for: error)
    if configuration.stopsAtFirstError && !configuration.isInteractive, let line {
      output("script, line \(line): \(message)")
    } else {
      output(message)
    }
  }

  /// Opens ed's file argument as ed does: its byte count (unless `-s`); a file that cannot be
  /// read is named on standard error (unless `-q`) and leaves an empty buffer with that file
  /// name, ending a script read from a regular file with status 2. `!cmd` reads the command's
  /// output. Returns the exit status when the session must end now.
  private func openAsEd(_ file: String?) -> Int32? {
    let document = ensureDocument()
    engine.document = document
    guard let file else { return nil }
    engine.beginCommand()
    defer { engine.endCommand() }
    do {
      try engine.readInitialFile(file)
    } catch {
      if configuration.ed?.isQuiet != true { errorOutput("\(file): \(error.edMessage)") }
      if configuration.stopsAtFirstError { return 2 }
      // As ed: a file that cannot be opened (missing, no permission) leaves an empty buffer
      // quietly; one that is there but cannot be read (a folder; a device or FIFO, which the
      // document layer does not read) is an error.
      let opened = error.systemError.map { $0 == .isDirectory } ?? true
      if opened {
        if configuration.ed?.isLoose != true { edExitStatus = 1 }
        output("?")
      }
    }
    if let line = configuration.ed?.initialLine {
      do { try engine.setCurrentLine(line) } catch { reportAsEd(error) }
    }
    return nil
  }

  nonisolated static func message(for error: any Error) -> String {
    if let error = error as? EdError { return error.message }
    if let error = error as? QuireError { return error.reason }
    let text = REPLWordCommand.message(for: error)
    return text.split(separator: "\n").first.map(String.init) ?? text
  }

  /// Runs one command line: a word command, or an ed command on the current document.
  func handle(_ line: String) async throws -> EdEngine.Outcome {
    engine.beginCommand()
    defer { engine.endCommand() }
    let words = Self.splitWords(line)
    // A word command, unless ed would read the line as a command of its own: in ed mode
    // "status" is s/a/us/ with t as the delimiter, and ed's meaning wins.
    if let first = words.first, REPLWordCommand.names.contains(first), !(isEdMode && EdEngine.isSubstitute(line)) {
      try await runWordCommand(words)
      return .proceed
    }
    let document = ensureDocument()
    engine.document = document
    return try await engine.execute(line) { [unowned self] in
      let text = nextContinuationLine()
      // Ctrl-C in text input: end the half-typed line before the message.
      if text == nil && configuration.isInteractive && configuration.interrupt.isPending { output("") }
      return text
    }
  }

  /// The current document, making an untitled one when none is open (ed starts that way).
  private func ensureDocument() -> EdDocument {
    if let currentDocument { return currentDocument }
    let document = EdDocument.untitled(with: documentController, options: documentOptions)
    adopt(document)
    documents.append(document)
    currentIndex = documents.count - 1
    return document
  }

  private func runWordCommand(_ words: [String]) async throws {
    if words.first == "help" {
      try help(Array(words.dropFirst()))
      return
    }
    let parsed: any ParsableCommand
    do {
      parsed = try REPLWordCommand.parseAsRoot(words)
    } catch {
      let text = REPLWordCommand.fullMessage(for: error)
      if REPLWordCommand.exitCode(for: error) == .success {
        output(text)
        return
      }
      throw EdError(text.split(separator: "\n").first.map(String.init) ?? text)
    }
    guard let command = parsed as? any SessionCommand else {
      throw EdError("'\(words.joined(separator: " "))' is not a command; type 'help' for the list")
    }
    try await command.run(in: self)
  }

  // MARK: Documents

  /// Opens `path` (or switches to it when it is open already): a text file, a TextBundle
  /// (`.textbundle`, `.textpack`) or a PDF. A missing file becomes a new document that is
  /// created on the first save.
  func open(_ path: String) async throws {
    let url = URL(fileURLWithPath: path)
    if let index = documents.firstIndex(where: { $0.fileURL?.standardizedFileURL == url.standardizedFileURL }) {
      currentIndex = index
      say("switched to '\(documents[index].displayName)' (already open)")
      return
    }
    let document: EdDocument
    if let opened = try await EdDocument.open(url, with: documentController, options: documentOptions) {
      document = opened
      switch document.form {
      case .pdf(let pdf):
        say(
          "opened PDF '\(document.displayName)': \(pdf.pageCount) page\(pdf.pageCount == 1 ? "" : "s"); 'pages' lists them, delete-page, move-page, rotate and insert-pages change them, w saves, u undoes"
        )
      case .textBundle:
        if let bundle = document.textBundle {
          say(
            "opened TextBundle '\(document.displayName)': \(document.buffer.lineCount) lines of \(bundle.bundle.textFilename), \(bundle.assetNames.count) asset\(bundle.assetNames.count == 1 ? "" : "s") ('assets' lists them)"
          )
        }
      case .textFile:
        if let text = document.textDocument {
          say("opened '\(document.displayName)': \(document.buffer.lineCount) lines, \(text.storage.utf8Count - (text.appendedFinalNewline ? 1 : 0)) bytes")
        }
      }
      if document.textDocument?.appendedFinalNewline == true {
        say("note: the last line has no newline; saving adds one (as ed does)")
      }
      if let note = PollingNotice.text(for: FilePath(url.path)) { say("note: \(note)") }
    } else {
      let folder = url.deletingLastPathComponent()
      guard DocumentsFolder.isFolder(folder) else {
        throw EdError("cannot open '\(DisplayName.escaping(path))': the folder '\(DisplayName.escaping(path: folder))' does not exist")
      }
      if EdDocument.isPDF(url) {
        throw EdError("cannot open '\(DisplayName.escaping(path))': it does not exist (quire changes the pages of PDFs that exist)")
      }
      document = try EdDocument.new(at: url, with: documentController, options: documentOptions)
      // The controller notes the files it opens in the recent documents; a new one too.
      documentController.noteNewRecentDocumentURL(url)
      say("'\(document.displayName)' is a new \(document.textBundle == nil ? "file" : "TextBundle"); it is created when you save (w)")
    }
    offerRecoveredVersion(of: document)
    announceUndoHistory(of: document)
    adopt(document)
    documents.append(document)
    currentIndex = documents.count - 1
  }

  /// Makes `document` (made by ``documentController``) one of the session's:
  /// the session hears what the document reports of its file (``noteFileEvent(_:of:)``).
  func adopt(_ document: EdDocument) {
    guard let text = document.libraryDocument else { return }
    if document.fileObservation == nil {
      document.fileObservation = text.addFileObserver { [weak self, weak document] event in
        guard let self, let document else { return }
        self.noteFileEvent(event, of: document)
      }
    }
  }

  /// Prints a message in interactive mode (script mode stays quiet, as `ed -s` does).
  func say(_ text: String) {
    if configuration.isInteractive && !isEdMode { output(text) }
  }

  /// Says what the document brought back of its stored undo history: a note when it has
  /// steps from an earlier session (interactive), a warning (in both modes, on standard error
  /// in a script) when a stored history was set aside.
  func announceUndoHistory(of document: EdDocument) {
    switch document.libraryDocument?.undoHistoryRestoration ?? .none {
    case .none: break
    case .restored(let undoSteps, let redoSteps, let changedOnDisk):
      let redo = redoSteps > 0 ? ", \(redoSteps) to redo" : ""
      say(
        changedOnDisk
          ? "note: undo history from an earlier session (\(undoSteps) step(s)\(redo)); the file changed on disk since quire saved it: u goes back to what quire saved, u again goes further, redo comes back"
          : "note: undo history from an earlier session: \(undoSteps) step(s) to undo\(redo); 'forget-history' forgets it")
    case .setAside(let warning):
      note("warning: \(warning)")
    }
  }

  /// Prints output that a command was asked for (listings, outlines), in both modes.
  func print(_ text: String) { output(text) }

  func requireDocument() throws -> EdDocument {
    guard let currentDocument else { throw EdError("no document is open; open one with 'open FILE' or 'new'") }
    return currentDocument
  }

  /// The current document when it has lines (a text file or a TextBundle, not a PDF).
  ///
  /// - Parameter action: What needs the lines, for the message ("copy").
  func requireTextDocument(for action: String) throws -> EdDocument {
    let document = try requireDocument()
    if document.pdf != nil {
      throw EdError("'\(document.displayName)' is a PDF: '\(action)' works on lines of text; switch to a text document ('docs' lists them)")
    }
    return document
  }

  /// Makes a new document, from a template when `template` is given.
  func newDocument(path: String?, template: String?) async throws {
    var lines: [String] = []
    if let template {
      let url = try templateURL(named: template)
      lines = try EdDocument.readBytes(of: url, requiresText: true).lines
    }
    var url: URL?
    if let path {
      let target = URL(fileURLWithPath: path)
      if FileManager.default.fileExists(atPath: target.path) {
        throw EdError("'\(path)' already exists; open it with 'open \(path)', or choose another name")
      }
      url = target
    }
    let document: EdDocument
    if let url {
      document = try EdDocument.new(at: url, with: documentController, options: documentOptions)
    } else {
      document = EdDocument.untitled(with: documentController, options: documentOptions)
    }
    adopt(document)
    let buffer = document.buffer
    if !lines.isEmpty {
      buffer.beginEditGroup(named: "new from template", cursor: 0)
      try buffer.replaceLines(in: 0..<0, with: lines)
      buffer.endEditGroup(cursor: lines.count)
    }
    document.currentLine = lines.count
    documents.append(document)
    currentIndex = documents.count - 1
    say(
      "new document '\(document.displayName)'\(template.map { " from template '\($0)'" } ?? ""): \(lines.count) lines; save with w\(url == nil ? " FILE" : "")")
  }

  /// The template file called `name` (with or without its extension).
  func templateURL(named name: String) throws -> URL {
    let names = templateNames()
    guard let folder = configuration.templatesFolder else {
      throw EdError("no Templates/ folder here; start quire from the project's folder")
    }
    if let match = names.first(where: { $0 == name }) ?? names.first(where: { ($0 as NSString).deletingPathExtension == name }) {
      return folder.appendingPathComponent(match)
    }
    throw EdError("no template '\(name)'; templates: \(names.joined(separator: ", "))")
  }

  /// The templates' file names, from templates.json (or the folder's files).
  func templateNames() -> [String] {
    guard let folder = configuration.templatesFolder else { return [] }
    return templateDescriptions(in: folder).map(\.name)
  }

  func templateDescriptions(in folder: URL) -> [(name: String, description: String)] {
    if let data = FileManager.default.contents(atPath: folder.appendingPathComponent("templates.json").path),
      let object = try? JSONSerialization.jsonObject(with: data) as? [String: String]
    {
      return object.keys.sorted().map { ($0, object[$0] ?? "") }
    }
    let names = (try? DocumentsFolder.entries(in: folder)) ?? []
    return names.filter { $0 != "templates.json" }.map { ($0, "") }
  }

  func switchTo(_ name: String) throws {
    if let number = Int(name), number >= 1, number <= documents.count {
      currentIndex = number - 1
    } else if let index = documents.firstIndex(where: { $0.displayName == name || $0.fileURL?.path == name || $0.fileURL?.relativePath == name }) {
      currentIndex = index
    } else {
      throw EdError("no open document '\(name)'; 'docs' lists them")
    }
    say("now editing '\(documents[currentIndex ?? 0].displayName)'")
  }

  func closeCurrent() async throws {
    let document = try requireDocument()
    try engine.confirm(
      "close", unsaved: document.isEdited ? [document.displayName] : [],
      warning: "'\(document.displayName)' has unsaved changes: 'close' again discards them, 'save' keeps them")
    guard let index = currentIndex else { return }
    documents.remove(at: index)
    // Its edits were let go: the document's autosave, recovery file and presenter go with it.
    document.fileObservation = nil
    if let library = document.libraryDocument {
      try? await documentController.close(library, discardingChanges: true)
    }
    currentIndex = documents.isEmpty ? nil : min(index, documents.count - 1)
    say("closed '\(document.displayName)'" + (currentDocument.map { "; now editing '\($0.displayName)'" } ?? ""))
  }

  /// Runs an ed command on the current document (the word commands `save`, `undo`, …).
  func runEd(_ command: String) async throws {
    engine.document = try requireDocument()
    _ = try await engine.execute(command) { nil }
  }

  /// Saves `document` with `w`, whether or not it is the current one.
  func save(_ document: EdDocument) async throws {
    engine.document = document
    defer { if let currentDocument { engine.document = currentDocument } }
    _ = try await engine.execute("w") { nil }
  }

  /// `undo [N]` and `redo [N]`: undoes the last `count` changes, or redoes the last `count`
  /// undone ones (the multi-level history; ed's `u` toggles only the last change). Stops early,
  /// saying so, when fewer are left.
  func take(_ step: HistoryStep, count: Int = 1) throws {
    let document = try requireDocument()
    engine.document = document
    let name = document.pdfDocument.map { step.actionName(in: $0.undoManager) }
    var done = 0
    while done < count {
      do {
        try engine.take(step)
      } catch {
        if done == 0 { throw error }
        break
      }
      done += 1
    }
    if let pdf = document.pdf {
      say("\(step.pastTense) \(done == 1 ? name ?? "the page operation" : "\(done) page operations"); \(pdf.pageCount) pages")
    } else {
      let left = step == .undo ? "\(document.buffer.undoCount) more level(s) of undo" : "\(document.buffer.redoCount) more to redo"
      say("\(step.pastTense) \(done) change\(done == 1 ? "" : "s"); \(left)")
    }
  }

  /// `forget-history`: the current document's undo history goes, here and stored
  /// (``UndoManager/removeAllActions()``).
  func forgetHistory() throws {
    let document = try requireDocument()
    guard let library = document.libraryDocument else { throw EdError("'\(document.displayName)' has no undo history to forget") }
    let steps = library.undoManager.undoCount + library.undoManager.redoCount
    library.undoManager.removeAllActions()
    document.buffer.noteChangedOutside()
    say("forgot \(steps) step(s) of undo history of '\(document.displayName)'\(library.persistsUndoHistory ? "; none is stored for it now" : "")")
  }

  /// Saves the current document to `path` and makes `path` its file: a text document's save
  /// as (``Document/save(to:ofType:for:)``); a TextBundle or PDF is written there by `w`.
  func saveAs(_ path: String) async throws {
    let document = try requireDocument()
    let url = URL(fileURLWithPath: path)
    if document.textBundle != nil, !EdDocument.isTextBundle(url) {
      throw EdError("'\(document.displayName)' is a TextBundle: save it as NAME.textbundle (a folder) or NAME.textpack (an archive)")
    }
    if let text = document.plainTextDocument {
      do {
        try await text.save(to: url, ofType: EdDocument.textBundleType(of: url), for: .saveAsOperation)
      } catch {
        throw EdError("cannot save '\(document.displayName)' as '\(path)': \(Self.message(for: error))")
      }
      document.fileURL = url
      say("saved as '\(path)'")
      return
    }
    let previous = document.fileURL
    document.fileURL = url
    do {
      engine.document = document
      _ = try await engine.execute("w") { nil }
    } catch {
      document.fileURL = previous
      throw error
    }
    say("saved as '\(path)'")
  }

  /// Loads the disk version of the current document as one undoable edit (a text document in
  /// conflict settles it with the document layer first: ``Document/resolveConflict(_:)``); a
  /// PDF is read again (asking first when that drops page changes, which cannot be undone).
  func revert() async throws {
    let document = try requireDocument()
    guard document.fileURL != nil else { throw EdError("'\(document.displayName)' has no file to revert to") }
    if let pdf = document.pdfDocument {
      try engine.confirm(
        "revert", unsaved: pdf.hasUnsavedChanges ? [document.displayName] : [],
        warning: "'\(document.displayName)' has unsaved page changes: 'revert' again drops them (this cannot be undone), 'w' saves them")
      try await reloadPDF(document)
      say("reverted '\(document.displayName)' to the disk version (\(pdf.pageCount) pages)")
      return
    }
    guard let text = document.plainTextDocument else { return }
    let lines = try await revertText(document, text)
    say("reverted '\(document.displayName)' to the disk version (\(lines) lines); u brings your version back")
  }

  /// Puts the disk version of a text document in place of its text as one undoable edit.
  /// In conflict, the disk version is the document's ``Document/conflictVersion``, and keeping
  /// it settles the conflict; otherwise it is the file as last read or saved (a file changed
  /// meanwhile makes a conflict first, or reloads a clean document).
  private func revertText(_ document: EdDocument, _ text: PlainTextDocument) async throws -> Int {
    if !text.documentState.contains(.inConflict), try await text.checkForChangesOnDisk() == .reloaded {
      document.buffer.noteChangedOutside()
      document.currentLine = document.buffer.lineCount
      return document.buffer.lineCount
    }
    // The document's own undoable revert (settling a conflict by taking the disk version).
    try await document.buffer.editDocument(named: "revert", cursor: document.currentLine) { text in try await text.revertUndoably(named: "revert") }
    document.buffer.markSaved()
    document.currentLine = document.buffer.lineCount
    document.marks = [:]
    return document.buffer.lineCount
  }

  /// Reads a PDF document's file again, dropping its page operations (the document's
  /// ``Document/revertToSaved()``; in conflict, its ``Document/ConflictResolution/takeTheirs``).
  func reloadPDF(_ document: EdDocument) async throws {
    guard let pdf = document.pdfDocument else { return }
    do {
      if pdf.documentState.contains(.inConflict) {
        try await pdf.resolveConflict(.takeTheirs)
      } else {
        try await pdf.revertToSaved()
      }
    } catch {
      throw EdError("cannot read '\(document.displayName)' again: \(Self.message(for: error))")
    }
  }

  /// `merge`: combines the disk version with this one, three-way against the version last
  /// read or written here, as one undoable edit: the document layer's conflict resolution
  /// (``Document/resolveConflict(_:)`` with ``Document/ConflictResolution/merge``, libgit2's
  /// merge). Overlapping edits are kept both between conflict markers.
  func mergeWithDiskVersion() async throws {
    let document = try requireDocument()
    guard document.fileURL != nil else { throw EdError("'\(document.displayName)' has no file to merge with") }
    if document.pdf != nil {
      throw EdError("cannot merge '\(document.displayName)': page changes of PDFs are not merged; 'revert' loads the disk version, 'keep' keeps yours")
    }
    guard let text = document.plainTextDocument, document.textBundle == nil else {
      throw EdError("cannot merge '\(document.displayName)': the text of a TextBundle is not merged; 'revert' loads the disk version, 'keep' keeps yours")
    }
    guard text.fileFingerprint != nil else {
      throw EdError("cannot merge '\(document.displayName)': quire does not know the version it last read or wrote; 'revert' or 'keep' instead")
    }
    if !text.documentState.contains(.inConflict) {
      let change: Document.DiskChange
      do { change = try await text.checkForChangesOnDisk() } catch { throw EdError("cannot merge '\(document.displayName)': \(Self.message(for: error))") }
      switch change {
      case .conflict: break
      case .reloaded:
        document.buffer.noteChangedOutside()
        document.currentLine = document.buffer.lineCount
        say("'\(document.displayName)' had no unsaved changes: reloaded the disk version (\(document.buffer.lineCount) lines)")
        return
      case .deleted: throw EdError("cannot merge '\(document.displayName)': it was deleted or moved on disk; w writes it again")
      case .unchanged:
        say("nothing to merge: '\(document.displayName)' on disk is the version quire last read or wrote")
        return
      }
    }
    let outcome: Document.ConflictOutcome
    do {
      outcome = try await text.resolveConflict(.merge)
    } catch {
      throw EdError("cannot merge '\(document.displayName)': \(Self.message(for: error))")
    }
    document.buffer.noteChangedOutside()
    document.currentLine = document.buffer.lineCount
    if outcome.mergeConflicts == 0 {
      say("merged the disk version of '\(document.displayName)' with yours (\(document.buffer.lineCount) lines); w saves the result, u undoes the merge")
    } else {
      say(
        "merged the disk version of '\(document.displayName)' with yours: \(outcome.mergeConflicts) conflict(s) kept both between <<<<<<< mine and >>>>>>> lines; edit them, then w (u undoes the merge)"
      )
    }
  }

  // MARK: Autosave and recovery

  /// Offers the autosaved edits a killed session left for `document`'s file (the document
  /// found them when it opened: ``Document/recoveredVersion``; its autosave leaves them alone
  /// until the person decides).
  private func offerRecoveredVersion(of document: EdDocument) {
    guard let text = document.textDocument, let version = text.recoveredVersion else { return }
    // A recovery file is read as the document reads: in quire's own mode, text only.
    guard let recovered = try? version.contents(), !text.requiresUTF8Text || (try? TextEncoding.checkUTF8Text(recovered)) != nil else {
      say("note: the autosaved edits of '\(document.displayName)' in '\(version.url.path)' cannot be read; they are left there")
      return
    }
    if recovered.elementsEqual(document.buffer.bytes(ofLines: 0..<document.buffer.lineCount)) {
      // The autosave holds what the file holds: nothing to offer.
      text.discardRecoveredVersion()
      return
    }
    say(
      "'\(document.displayName)' has autosaved edits from \(Self.time(version.date)) (\(TextStorage(bytes: recovered).lineCount) lines): 'recover' restores them, 'recover discard' drops them"
    )
  }

  /// `recover`: replaces the current document's lines with its autosaved edits (read from the
  /// document's ``Document/recoveredVersion``), as one undoable change; `recover discard`
  /// drops them.
  func recover(discarding: Bool) async throws {
    let document = try requireTextDocument(for: "recover")
    guard let text = document.textDocument, let version = text.recoveredVersion else {
      throw EdError("'\(document.displayName)' has no autosaved edits to recover")
    }
    if discarding {
      text.discardRecoveredVersion()
      say("dropped the autosaved edits of '\(document.displayName)'")
      return
    }
    try await document.buffer.editDocument(named: "recover", cursor: document.currentLine) { text in try text.restoreRecoveredVersion(asChangeNamed: "recover")
    }
    document.currentLine = document.buffer.lineCount
    // The edits are the document's now; its autosave keeps them from here.
    text.discardRecoveredVersion()
    say(
      "recovered the autosaved edits of '\(document.displayName)' from \(Self.time(version.date)) (\(document.buffer.lineCount) lines); w saves them, u undoes the recovery"
    )
  }

  /// At the end of the session: edits the person chose not to save (`q` twice, `Q`) leave no
  /// recovery file. Input that ends (Ctrl-D twice, or a terminal that went away) cannot be told
  /// apart from a lost connection, so there the unsaved edits are autosaved now and kept.
  private func finishAutosave() async {
    guard configuration.autosave != nil else { return }
    for document in documents {
      guard let text = document.textDocument else { continue }
      if endedAtEndOfInput {
        try? await text.autosave()
      } else if text.recoveredVersion == nil {
        // A crash's version not yet decided on stays (autosaves never replace it).
        try? await text.close(discardingChanges: true)
      }
    }
  }

  func autosaveState(of document: EdDocument) -> String {
    guard let autosave = configuration.autosave else { return "autosave: off" }
    guard let text = document.textDocument else { return "page changes are not autosaved" }
    if let version = text.recoveredVersion {
      return "autosaved edits from \(Self.time(version.date)) to recover ('recover')"
    }
    guard document.fileURL != nil else { return "autosave: none until it has a file name" }
    if let error = text.lastAutosaveError { return "autosave failed: \(error.reason)" }
    if text.hasUnsavedChanges && text.hasUnautosavedChanges { return "autosave pending" }
    if text.hasUnsavedChanges, let version = autosave.store.recoveredVersion(for: text.fileURL) {
      return "autosaved \(Self.time(version.date))"
    }
    return "nothing to autosave"
  }

  nonisolated static func time(_ date: Date) -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
    return formatter.string(from: date)
  }

  /// `keep`: the next `w` may replace the version someone else saved (a text document settles
  /// its conflict with ``Document/resolveConflict(_:)``, ``Document/ConflictResolution/keepMine``).
  func keepMine() async throws {
    let document = try requireDocument()
    if let text = document.libraryDocument {
      if !text.documentState.contains(.inConflict) { _ = try? await text.checkForChangesOnDisk() }
      if text.documentState.contains(.inConflict) { try await text.resolveConflict(.keepMine) }
    }
    say("keeping your version of '\(document.displayName)'; the next w replaces the disk version")
  }

  /// Has each open document check its file (clean ones reload, dirty ones go in conflict),
  /// then prints what the documents reported meanwhile, once per change: found by these
  /// checks, by their presenters (another program's coordinated write, a change seen by
  /// inotify, a move) or by a command's own check.
  func announceDiskChanges() async {
    for document in documents {
      guard document.fileURL != nil, let text = document.libraryDocument, text.fileFingerprint != nil else { continue }
      _ = try? await text.checkForChangesOnDisk()
    }
    let notices = fileNotices
    fileNotices = []
    if configuration.isInteractive { for notice in notices { output(notice) } }
  }

  /// What a document reported of its file: the lines follow a reload (the current line stays
  /// inside them), the name follows a move, and a notice waits for the next prompt.
  private func noteFileEvent(_ event: Document.FileEvent, of document: EdDocument) {
    let name = document.displayName
    switch event {
    case .moved(_, let url):
      document.fileURL = url
      fileNotices.append("'\(name)' was moved by another program: now '\(url.path)'")
    case .changedOnDisk(.unchanged):
      break
    case .changedOnDisk(.deleted):
      fileNotices.append("! '\(name)' was deleted or moved on disk; w writes it again")
    case .changedOnDisk(.reloaded):
      document.buffer.noteChangedOutside()
      document.currentLine = min(document.currentLine, document.buffer.lineCount)
      if let pdf = document.pdfDocument {
        fileNotices.append("! '\(name)' changed on disk; reloaded it (\(pdf.pageCount) pages; there were no unsaved page changes here)")
      } else {
        fileNotices.append("! '\(name)' changed on disk; reloaded it (there were no unsaved changes here)")
      }
    case .changedOnDisk(.conflict):
      if document.pdfDocument != nil {
        fileNotices.append(
          "! '\(name)' changed on disk and has unsaved page changes here: 'revert' loads the disk version (your page changes are dropped), 'keep' keeps yours (the next w replaces theirs)"
        )
      } else {
        fileNotices.append(
          "! '\(name)' changed on disk and has unsaved changes here: 'revert' loads the disk version (yours stay undoable), 'keep' keeps yours (the next w replaces theirs)"
            + (document.textBundle == nil ? ", 'merge' combines both" : ""))
      }
    }
  }

  // MARK: Listing

  /// What the `open` word opens for `path`: the file it names from the current folder, or,
  /// when nothing is there and `path` is a relative name of a file in the listed Documents/
  /// folder (as `browse`, `search` and the opening list print names), that file, saying which.
  func resolvingListedName(_ path: String) -> String {
    guard !path.hasPrefix("/"), !Self.exists(URL(fileURLWithPath: path)), let folder = configuration.documentsFolder else { return path }
    let listed = folder.appendingPathComponent(path)
    guard Self.exists(listed) else { return path }
    let shown = openableName(of: listed)
    say("'\(DisplayName.escaping(path))' is not in the current folder; opening '\(DisplayName.escaping(shown))' from \(DisplayName.escaping(path: folder))")
    return listed.path
  }

  /// A name for `url` that `open` resolves to it: `name` (as a listing printed it) when it
  /// does, else the path from the current folder (or the whole path when outside it).
  func openableName(of url: URL, listedAs name: String? = nil) -> String {
    let target = url.standardizedFileURL
    if let name, URL(fileURLWithPath: resolvingQuietly(name)).standardizedFileURL == target { return name }
    let here = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).standardizedFileURL.path
    let path = target.path
    return path.hasPrefix(here + "/") ? String(path.dropFirst(here.count + 1)) : path
  }

  /// ``resolvingListedName(_:)`` without saying which.
  private func resolvingQuietly(_ path: String) -> String {
    guard !path.hasPrefix("/"), !Self.exists(URL(fileURLWithPath: path)), let folder = configuration.documentsFolder else { return path }
    let listed = folder.appendingPathComponent(path)
    return Self.exists(listed) ? listed.path : path
  }

  /// Whether something (a file, a folder, a link, even a dangling one) is at `url`.
  private static func exists(_ url: URL) -> Bool {
    (try? FileManager.default.attributesOfItem(atPath: url.path)) != nil
  }

  func listDocumentsFolder() {
    guard let folder = configuration.documentsFolder, let entries = try? DocumentsFolder.entries(in: folder) else {
      output("No Documents/ folder here; open files with 'open FILE' or 'new'.")
      return
    }
    output("Documents in \(folder.path) (open one with 'open Documents/NAME'):")
    // Each name is one `open` takes to that file (a name shadowed by a file here gets its path).
    for entry in entries { output("  \(openableName(of: folder.appendingPathComponent(entry), listedAs: entry))") }
  }

  /// One line per open document, with its state.
  func documentLines() -> [String] {
    documents.enumerated().map { index, document in
      let marker = index == currentIndex ? "*" : " "
      return "\(marker) \(index + 1)  \(document.displayName)  \(document.extent)  \(state(of: document))"
    }
  }

  func state(of document: EdDocument) -> String {
    var parts: [String] = []
    parts.append(document.isEdited ? "unsaved changes" : (document.fileURL == nil ? "untitled" : "saved"))
    if let url = document.fileURL {
      let text = document.libraryDocument
      if text?.fileFingerprint == nil && !FileManager.default.fileExists(atPath: url.path) {
        parts.append("new file")
      } else if text?.documentState.contains(.inConflict) == true {
        parts.append("in conflict (changed on disk)")
      }
    }
    parts.append(autosaveState(of: document))
    return parts.joined(separator: ", ")
  }

  // MARK: Help

  private func help(_ topic: [String]) throws {
    guard let name = topic.first else {
      for line in REPLHelp.summary { output(line) }
      return
    }
    if let line = REPLHelp.line(for: name) {
      output(line)
      if let type = REPLWordCommand.subcommand(named: name) {
        output(REPLWordCommand.helpMessage(for: type).trimmingCharacters(in: .whitespacesAndNewlines))
      }
      return
    }
    throw EdError("no command '\(name)'; 'help' lists them all")
  }

  // MARK: Words

  /// Splits a word command into words: blanks separate, quotes ('…' "…") and backslashes keep
  /// blanks inside a word.
  static func splitWords(_ line: String) -> [String] {
    var words: [String] = []
    var current = ""
    var inWord = false
    var quote: Character?
    var escaping = false
    for character in line {
      if escaping {
        current.append(character)
        escaping = false
        continue
      }
      if character == "\\" && quote != "'" {
        escaping = true
        inWord = true
        continue
      }
      if let open = quote {
        if character == open { quote = nil } else { current.append(character) }
        continue
      }
      if character == "'" || character == "\"" {
        quote = character
        inWord = true
      } else if character == " " || character == "\t" {
        if inWord {
          words.append(current)
          current = ""
          inWord = false
        }
      } else {
        current.append(character)
        inWord = true
      }
    }
    if inWord { words.append(current) }
    return words
  }
}

/// The engine's output and what it asks of the session (``EdOutput``).
extension REPLSession: EdOutput {
  func print(bytes: [UInt8]) {
    if let outputBytes { outputBytes(bytes) } else { output(String(decoding: bytes, as: UTF8.self)) }
  }

  func note(_ text: String) {
    if configuration.isInteractive { output(text) } else { errorOutput("quire: \(text)") }
  }

  func diagnose(_ text: String) {
    if let ed = configuration.ed, !ed.isQuiet { errorOutput(text) }
  }

  var otherUnsavedDocuments: [String] {
    documents.enumerated().filter { $0.offset != currentIndex && $0.element.isEdited }.map(\.element.displayName)
  }

  var isInterrupted: Bool { configuration.interrupt.isPending }

  func togglePrompt() { showsEdPrompt.toggle() }

  func flush() { flushOutput() }

  func prepareForShell() {
    // ed flushes its output before each command, not before a shell command: inside G or V,
    // or after other output of the same command, the shell command's output comes first
    // unless the output is a terminal (line-buffered there).
    if !isEdMode || isatty(STDOUT_FILENO) == 1 { flushOutput() }
    source.prepareForChildProcess()
  }
}
