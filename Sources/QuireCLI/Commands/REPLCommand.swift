import ArgumentParser
import Foundation
import Quire
import QuireSystem
import QuireTypes
import SystemPackage

/// `quire [FILE…]`: the REPL. With a terminal on standard input it edits interactively through
/// libedit; otherwise it reads commands as a script (no prompt, stops at the first error).
///
/// GNU ed's options make it a drop-in ed (`quire -s FILE < script`; see ``EdOptions``). A file
/// whose name begins with `-` or `+`, or is a subcommand's name, follows `--`, as with ed.
struct REPLCommand: AsyncParsableCommand, TakesNamesAsBytes {
  static let configuration = CommandConfiguration(
    commandName: "repl", _superCommandName: "quire", abstract: "Open the REPL on files, or on Documents/ when none are given.",
    discussion: """
      GNU ed's options make quire a drop-in ed: quire -s FILE < script behaves as ed -s FILE < script \
      (ed's output, ed's exit statuses: 0 done, 1 a command failed, 2 a file could not be read or the \
      input ended with unsaved changes). Put -- before a file named like an option or a subcommand.
      """)

  @Flag(name: [.customShort("s"), .customLong("script")], help: "ed: suppress byte counts and the '!' after shell commands.")
  var script = false
  @Flag(name: [.customShort("q"), .customLong("quiet"), .customLong("silent")], help: "ed: suppress diagnostics on standard error.")
  var quiet = false
  @Flag(name: [.customShort("l"), .customLong("loose-exit-status")], help: "ed: exit with status 0 even if a command fails.")
  var looseExitStatus = false
  @Option(name: [.customShort("p"), .customLong("prompt")], help: "ed: show PROMPT before each command.")
  var prompt: String?
  @Flag(name: [.customShort("r"), .customLong("restricted")], help: "ed: no shell commands; files only in the current folder.")
  var restricted = false
  @Flag(name: [.customShort("E"), .customLong("extended-regexp")], help: "ed: use extended regular expressions.")
  var extendedRegexp = false
  @Flag(name: [.customShort("G"), .customLong("traditional")], help: "ed: run in compatibility mode (ed before POSIX).")
  var traditional = false
  @Flag(name: [.customShort("v"), .customLong("verbose")], help: "ed: print error messages (as the H command).")
  var verbose = false
  @Flag(name: .customLong("strip-trailing-cr"), help: "ed: strip carriage returns at the end of lines read from files.")
  var stripTrailingCR = false
  @Flag(name: .customLong("unsafe-names"), help: "ed: accept file names holding control characters.")
  var unsafeNames = false
  @Flag(name: .customShort("V"), help: "Print the version and exit.")
  var showsVersion = false

  @Argument(help: "Files to open; with ed's options the file to edit, after an optional +LINE, +/RE or +?RE.")
  var files: [String] = []

  /// ed's options when any was given (quire is then a drop-in ed), else `nil`.
  var edOptions: EdOptions? {
    var options = EdOptions(
      isScripted: script, isQuiet: quiet, isLoose: looseExitStatus, prompt: prompt, isRestricted: restricted,
      usesExtendedRegex: extendedRegexp, isTraditional: traditional, isVerbose: verbose, stripsTrailingCR: stripTrailingCR,
      allowsUnsafeNames: unsafeNames)
    if files.contains("-") { options.isScripted = true }
    if let first = files.first, first.hasPrefix("+"), files.count > 1 { options.initialLine = String(first.dropFirst()) }
    return options == EdOptions() ? nil : options
  }

  /// The files to open: without ed's `+LINE` and `-`.
  var fileArguments: [String] {
    var names = files
    if let first = names.first, first.hasPrefix("+"), names.count > 1 { names.removeFirst() }
    return names.filter { $0 != "-" }
  }

  func run() async throws {
    if showsVersion {
      print("quire \(quireVersion)")
      return
    }
    // On the main actor, as its documents are; it awaits each line read on a queue of its own.
    let status = await REPLCommand.runSession(files: fileArguments, ed: edOptions)
    // Lines copied in the session stay pasteable by other processes after it ends.
    try? await Pasteboard.materializePromises()
    if status != ExitStatus.success { throw ExitCode(status) }
  }

  /// Runs a REPL session on the process's standard input and output; returns the exit status.
  ///
  /// - Parameters:
  ///   - files: The files to open.
  ///   - ed: ed's options when quire runs as a drop-in ed.
  @MainActor static func runSession(files: [String], ed: EdOptions? = nil) async -> Int32 {
    // libedit reads LC_CTYPE: files and terminals are UTF-8 here (regular expressions use a
    // UTF-8 locale of their own, see POSIXRegex).
    setlocale(LC_CTYPE, "C.UTF-8")
    let environment = ProcessInfo.processInfo.environment
    let isInteractive = isatty(STDIN_FILENO) == 1
    let stateHome = XDGBaseDirectory.stateHome.url(in: environment)
    let configuration = sessionConfiguration(ed: ed, isInteractive: isInteractive, environment: environment)
    let out = OutputStream(fd: STDOUT_FILENO)
    let err = OutputStream(fd: STDERR_FILENO)
    defer {
      out.flush()
      err.flush()
    }
    // An error line comes after what was printed before it, and at once.
    let errorOutput = { (line: String) in
      out.flush()
      err.writeLine(line)
      err.flush()
    }
    guard isInteractive else {
      let session = REPLSession(
        configuration: configuration, source: DescriptorLineSource(discardsIncompleteLastLine: ed != nil, beforeWaiting: { out.flush() }),
        output: { out.writeLine($0) },
        errorOutput: errorOutput)
      session.outputBytes = { out.writeLine(bytes: $0) }
      session.writeRaw = {
        out.writeText($0)
        out.flush()
      }
      session.flushOutput = {
        out.flush()
        err.flush()
      }
      return await session.run(opening: files)
    }
    let editor: LineEditor
    do {
      editor = try LineEditor(program: "quire")
    } catch {
      return ErrorReport.fail(error)
    }
    editor.cancelLineOnControlC(isInterrupted: { Interrupt.shared.isPending }, interrupt: { Interrupt.shared.raise() })
    let history = History(stateHome: stateHome)
    history.load(into: editor)
    let session = REPLSession(
      configuration: configuration, source: FlushingSource(editor: editor, output: out, history: history),
      output: { out.writeLine($0) },
      errorOutput: errorOutput)
    editor.enableCompletion { [reader = session.reader] line in reader.completion.candidates(forLineBefore: line) }
    session.flushOutput = {
      out.flush()
      err.flush()
    }
    session.outputBytes = { out.writeLine(bytes: $0) }
    let status = await session.run(opening: files)
    history.save(from: editor)
    return status
  }

  /// The session's configuration for `quire`: Documents/ and Templates/ here, the XDG state
  /// folders for versions, undo history and recovery, the desktop's recents, Ctrl-C.
  @MainActor private static func sessionConfiguration(
    ed: EdOptions?, isInteractive: Bool, environment: [String: String]
  ) -> REPLSession.Configuration {
    let stateHome = XDGBaseDirectory.stateHome.url(in: environment)
    let here = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    let templates = here.appendingPathComponent("Templates")
    var configuration = REPLSession.Configuration(
      isInteractive: isInteractive, documentsFolder: DocumentsFolder.locate(),
      templatesFolder: DocumentsFolder.isFolder(templates) ? templates : nil,
      cacheHome: XDGBaseDirectory.cacheHome.url(in: environment))
    configuration.interrupt = Interrupt.shared
    // Ctrl-C stops the running command (a long regular-expression match too), in scripts as well.
    Interrupt.install()
    configuration.ed = ed
    // ed stops at a script's first error only when standard input is a regular file; a piped
    // script goes on (and exits 1 at its end).
    configuration.stopsAtFirstError = ed == nil || SystemCalls.isRegularFile(.standardInput)
    // Each save keeps the version it replaces under $XDG_STATE_HOME/quire/versions.
    configuration.coordinator = FileCoordinator()
    configuration.versionStore = VersionStore(root: stateHome.appendingPathComponent("quire/versions"))
    // quire's own mode keeps each text document's undo history under $XDG_STATE_HOME/quire/undo;
    // as a drop-in ed, nothing is stored and u is ed's.
    if ed == nil { configuration.undoHistory = UndoHistoryStore(root: stateHome.appendingPathComponent("quire/undo")) }
    // Every opened file is noted in the desktop's recent documents.
    configuration.recents = RecentDocuments(environment: environment)
    if isInteractive {
      // Autosave to the document layer's recovery files; QUIRE_AUTOSAVE_DELAY (seconds of idle
      // input before an autosave, default 5) lets tests wait less.
      let delay = environment["QUIRE_AUTOSAVE_DELAY"].flatMap(Double.init).flatMap { $0 >= 0 && $0 <= 3600 ? $0 : nil } ?? 5
      configuration.autosave = AutosaveSettings(
        store: RecoveryStore(folder: stateHome.appendingPathComponent("quire/recovery")),
        policy: Document.AutosavePolicy(idleDelay: .milliseconds(Int(delay * 1000)), maximumInterval: .milliseconds(Int(max(30, delay) * 1000))))
    }
    return configuration
  }
}

/// Lines written to a file descriptor through a buffer, flushed before input is read.
final class OutputStream {
  private let descriptor: FileDescriptor
  private var pending: [UInt8] = []
  init(fd: Int32) { descriptor = FileDescriptor(rawValue: fd) }

  /// Writes `line` and a newline. A file name in it that is not UTF-8 (carried as a
  /// ``PathText`` string) is written as its very bytes, as GNU ed prints names.
  func writeLine(_ line: String) {
    pending.append(contentsOf: PathText.bytes(line))
    pending.append(UInt8(ascii: "\n"))
    if pending.count > 1 << 16 { flush() }
  }

  /// Writes `line`'s bytes as they are, and a newline.
  func writeLine(bytes line: [UInt8]) {
    pending.append(contentsOf: line)
    pending.append(UInt8(ascii: "\n"))
    if pending.count > 1 << 16 { flush() }
  }

  /// Writes `text` without a newline (a prompt).
  func writeText(_ text: String) { pending.append(contentsOf: PathText.bytes(text)) }

  func flush() {
    // A reader that is gone (EPIPE) loses the output, as it would lose ed's.
    _ = SystemCalls.writeAll(descriptor, pending)
    pending.removeAll(keepingCapacity: true)
  }
}

/// The terminal's line source: flushes output before prompting and saves history as it goes.
final class FlushingSource: LineSource {
  private let editor: LineEditor
  private let output: OutputStream
  private let history: History
  init(editor: LineEditor, output: OutputStream, history: History) {
    self.editor = editor
    self.output = output
    self.history = history
  }

  func readLine(prompt: String) -> String? {
    output.flush()
    return editor.readLine(prompt: prompt)
  }

  func remember(_ line: String) {
    editor.remember(line)
    history.save(from: editor)
  }

  func reset() { editor.reset() }
}

/// The command history file: `$XDG_STATE_HOME/quire/history`, folder 0700, file 0600, never
/// read or written through a symbolic link.
struct History {
  let stateHome: URL
  var folder: URL { stateHome.appendingPathComponent("quire") }
  var file: URL { folder.appendingPathComponent("history") }

  init(stateHome: URL) { self.stateHome = stateHome }

  func load(into editor: LineEditor) {
    guard case .success(let info) = SystemCalls.lstat(PathText.path(file.path)), (info.st_mode & S_IFMT) == S_IFREG else { return }
    editor.loadHistory(from: file.path)
  }

  /// Writes the history, mode 0600, never through a symbolic link; a failure loses only history.
  func save(from editor: LineEditor) {
    guard (try? PrivateFolder.make(folder, below: stateHome)) != nil,
      case .success(let file) = SystemCalls.open(PathText.path(file.path), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, mode: 0o600)
    else { return }
    _ = SystemCalls.setMode(file, 0o600)
    try? editor.saveHistory(toDescriptor: file.rawValue)
  }
}
/// Where `quire` finds its sample documents: `./Documents`, else next to the executable's
/// package checkout.
enum DocumentsFolder {
  static func locate() -> URL? {
    let candidates = [
      URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("Documents")
    ]
    return candidates.first { isFolder($0) }
  }

  static func isFolder(_ url: URL) -> Bool {
    // By the system layer, which takes the path by the bytes it stands for (a name that is
    // not UTF-8 included, see `PathText`).
    guard case .success(let info) = SystemCalls.stat(PathText.path(url.path)) else { return false }
    return (info.st_mode & S_IFMT) == S_IFDIR
  }

  /// The visible entries of `folder`, sorted by name.
  static func entries(in folder: URL) throws -> [String] {
    do {
      return try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasPrefix(".") }.sorted()
    } catch {
      throw QuireError(.fileMissing, "Cannot list '\(folder.path)': \(error.localizedDescription). Check that the folder exists and is readable.", url: folder)
    }
  }
}
