public import ArgumentParser
import Foundation
import Quire
import Synchronization
import SystemPackage

/// A command whose file arguments keep their bytes (it opens them as `FilePath`, through
/// ``QuireCommand/filePath(_:)``), so names that are not UTF-8 work.
protocol TakesNamesAsBytes {}

/// A command that refuses a command line giving it nothing to work on ("Give files to
/// identify"), checked once the whole line has parsed. argument-parser runs `validate()`
/// before it looks for unknown options, so the same check there would answer
/// `quire search --bogus` with "Give words to search for" rather than name `--bogus`.
protocol ChecksInputAfterParsing: ParsableCommand {
  /// Throws a `ValidationError` saying what to give when nothing was given.
  func checkInputGiven() throws
}

/// A command line read without argument-parser. Its parse reflects over the command's
/// options (`Mirror`, and the Swift runtime's look-ups of each option's generic type), about
/// 5 ms of every command: a tenth of a file manager's `quire thumbnail -s SIZE INPUT OUTPUT`
/// call, a quarter of a warm `quire search WORD`. Those forms (`quire thumbnail -s SIZE IN OUT`,
/// `quire search WORD…` and `quire type FILE…` with their common options), run once per file
/// or typed most, are recognised exactly and run the same code the parsed command runs; any
/// other spelling, and any line these checks would refuse, goes to the parser.
protocol DirectForm {
  func run() async throws
}

/// The `quire` command: the REPL by default, and one subcommand per tool.
public struct QuireCommand: AsyncParsableCommand {
  public static let configuration = CommandConfiguration(
    commandName: "quire",
    abstract: "Open, edit, preview and thumbnail documents.",
    discussion: """
      With no subcommand, opens the REPL on the given files, or on Documents/ when none are \
      given.

      """ + ExitStatus.documentation,
    version: quireVersion,
    subcommands: [
      REPLCommand.self, DemoCommand.self, ThumbnailCommand.self, PreviewCommand.self,
      TypeCommand.self, TypesCommand.self, WatchCommand.self, CopyCommand.self, PasteCommand.self, ServeCommand.self,
      MakeSamplePDFCommand.self, RPCCommand.self, BrowseCommand.self, RecentCommand.self, TagCommand.self, TrashCommand.self, SearchCommand.self,
      ThumbnailWorkerCommand.self,
    ],
    defaultSubcommand: REPLCommand.self
  )

  public init() {}

  /// Runs `quire` with `arguments` (without the program name) and returns the exit code.
  ///
  /// Usage errors map to 2 (argument-parser's own default for them is 64).
  public static func run(arguments: [String]) async -> Int32 {
    await run(arguments: arguments, ownsProcess: false)
  }

  /// Runs `quire` as the process's main program: like ``run(arguments:)``, and commands may
  /// also set process-wide limits (the thumbnailer form's `alarm(2)` and `RLIMIT_AS`), which
  /// an embedding caller's process must never get.
  public static func runAsMainProgram(arguments: [String]) async -> Int32 {
    await run(arguments: arguments, ownsProcess: true)
  }

  /// Whether the running command owns the process (set only by ``runAsMainProgram(arguments:)``).
  static var ownsProcess: Bool { processOwnership.load(ordering: .relaxed) }
  private static let processOwnership = Atomic<Bool>(false)

  private static func run(arguments: [String], ownsProcess: Bool) async -> Int32 {
    if ownsProcess {
      processOwnership.store(true, ordering: .relaxed)
      StartupPrefetch.begin(for: arguments)
    }
    do {
      if let form = directForm(of: arguments) {
        try await form.run()
        return ExitStatus.success
      }
      // The REPL's own arguments are ed's (`-sp:` is -s with -p ':'): EdArguments reads them.
      if let first = arguments.first, subcommandNames.contains(first) { try checkNoFileNameTakenForOptions(arguments) }
      var command = try parse(try EdArguments.normalized(arguments, subcommands: subcommandNames))
      if let checked = command as? any ChecksInputAfterParsing {
        do { try checked.checkInputGiven() } catch { return reportMissingInput(error, of: type(of: checked)) }
      }
      try checkArgumentsAreUTF8(arguments, for: command)
      if var asyncCommand = command as? any AsyncParsableCommand {
        try await asyncCommand.run()
      } else {
        try command.run()
      }
      return ExitStatus.success
    } catch {
      return report(error)
    }
  }

  /// The command line when it is one of the forms read without argument-parser (see
  /// ``DirectForm``), else nil.
  static func directForm(of arguments: [String]) -> (any DirectForm)? {
    ThumbnailCommand.ThumbnailerForm(arguments: arguments) ?? SearchCommand.Request(directForm: arguments)
      ?? TypeCommand.FilesRequest(directForm: arguments)
  }

  /// The process's arguments after the program name, read as bytes from `CommandLine.unsafeArgv`
  /// and carried by `PathText`: `CommandLine.arguments` decodes them lossily, so `non\xFFutf.md`
  /// would become a *different* name, `non\u{FFFD}utf.md`. Commands turn a file argument back
  /// into its bytes with ``filePath(_:)``.
  public static var processArguments: [String] {
    (1..<Int(CommandLine.argc)).map { index in
      guard let argument = CommandLine.unsafeArgv[index] else { return "" }
      return PathText.string(bytes: UnsafeRawBufferPointer(start: argument, count: strlen(argument)))
    }
  }

  /// The path an argument names, with the bytes it had on the command line (see
  /// ``processArguments``).
  static func filePath(_ argument: String) -> FilePath { PathText.path(argument) }

  /// The path an output argument names (`--output FILE`, the thumbnailer's OUTPUT), with the
  /// bytes it had on the command line, for the library's output writers, which take it by
  /// its bytes (a name that is not UTF-8 is written as that very name).
  static func outputPath(_ argument: String) -> FilePath { filePath(argument) }

  /// The URL of an argument for a library API that takes only a `URL`; an argument that is
  /// not UTF-8 (which no `URL` holds) is refused, naming it escaped, so nothing is read or
  /// written under a lossy, *different* name.
  ///
  /// - Parameter role: What the path is for, in the message ("write to").
  static func fileURL(_ argument: String, for role: String, isDirectory: Bool = false) throws -> URL {
    guard !PathText.holdsNonUTF8Bytes(argument) else {
      throw QuireError(
        .invalidArgument,
        "Cannot \(role) '\(DisplayName.escaping(argument))': the name is not UTF-8, and this part of Quire cannot take such names yet. Give a UTF-8 name; nothing was read or written."
      )
    }
    return URL(fileURLWithPath: argument, isDirectory: isDirectory)
  }

  /// Refuses, for a command that does not yet carry names as bytes (one that does adopts
  /// ``TakesNamesAsBytes``), an argument that is not UTF-8, naming it escaped: Foundation's
  /// `URL`, which those commands' library APIs take, cannot hold such a name, and a lossy one
  /// would open or write a *different* file.
  static func checkArgumentsAreUTF8(_ arguments: [String], for command: any ParsableCommand) throws {
    guard !(command is any TakesNamesAsBytes) else { return }
    for argument in arguments where PathText.holdsNonUTF8Bytes(argument) {
      throw QuireError(
        .invalidArgument,
        "Cannot use '\(DisplayName.escaping(argument))': the name is not UTF-8, and this command cannot open or write such names yet. Rename it to UTF-8 (e.g. 'convmv -f latin1 -t utf8 --notest NAME'); nothing was opened or written."
      )
    }
  }

  /// Refuses an argument that starts with one `-` but cannot be a cluster of short options
  /// (it holds a `.`, `/` or another character no option letter is), such as `-dash.md`:
  /// argument-parser would read it as `-d -a -s -h …` and print help with success, doing
  /// nothing. Arguments after `--`, and what follows another option (it may be its value, as
  /// in `-p '-> '`), are left alone.
  static func checkNoFileNameTakenForOptions(_ arguments: [String]) throws {
    var previous: String?
    for argument in arguments {
      if argument == "--" { return }
      defer { previous = argument }
      guard argument.hasPrefix("-"), !argument.hasPrefix("--"), argument.count > 2 else { continue }
      if let previous, previous.hasPrefix("-"), previous != "-", !previous.contains("=") { continue }
      let cluster = argument.dropFirst()
      if cluster.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) { continue }
      if cluster.allSatisfy({ $0.isNumber || $0 == "." }) { continue }  // a negative number
      throw ValidationError(
        "'\(DisplayName.escaping(argument))' is not an option. To name a file that begins with '-', write './\(DisplayName.escaping(argument))' or put '--' before it."
      )
    }
  }

  /// The command `arguments` (normalized) ask for.
  ///
  /// A subcommand named first (`quire search …`, `quire thumbnail …`) parses its own
  /// arguments: argument-parser's parse of the whole tree reflects the properties of the root
  /// and of the REPL (the default subcommand) as well, and each new type it reflects scans all
  /// of the static binary's protocol conformances, which cost every command 5–7 ms before it
  /// read its first argument. Whatever the subcommand alone does not take (a usage error,
  /// `--help`, `--version`, a completion script) is parsed again through the whole tree, so
  /// errors, help and usage lines read as before.
  static func parse(_ arguments: [String]) throws -> any ParsableCommand {
    if let first = arguments.first, let subcommand = configuration.subcommands.first(where: { $0._commandName == first }),
      !arguments.contains(where: { wholeTreeArguments.contains($0) || $0.hasPrefix("--generate-completion") }),
      let command = try? subcommand.parseAsRoot(Array(arguments.dropFirst()))
    {
      return command
    }
    return try parseAsRoot(arguments)
  }

  /// Prints what `command`'s ``ChecksInputAfterParsing/checkInputGiven()`` refused, as
  /// argument-parser prints a usage error of that subcommand (the error, its usage line, where
  /// to find its help), and returns the usage status.
  static func reportMissingInput(_ error: any Error, of command: any ParsableCommand.Type) -> Int32 {
    let text = """
      Error: \(message(for: error))
      Usage: \(usageString(for: command))
        See 'quire \(command._commandName) --help' for more information.

      """
    FileHandle.standardError.write(Data(text.utf8))
    return ExitStatus.usage
  }

  /// The arguments that only the whole tree answers as `quire` does.
  private static let wholeTreeArguments: Set<String> = ["-h", "--help", "-help", "help", "--version", "--experimental-dump-help"]

  /// The names that select a subcommand rather than the REPL.
  static var subcommandNames: Set<String> {
    Set(configuration.subcommands.map { $0._commandName } + ["help"])
  }

  /// Prints `error` and returns its exit status: a ``QuireError`` (or any error of the library)
  /// through ``ErrorReport``, argument-parser's own errors (usage, `--help`, `--version`) as
  /// argument-parser prints them.
  static func report(_ error: any Error) -> Int32 {
    if error is QuireError { return ErrorReport.fail(error) }
    let code = exitCode(for: error)
    let message = fullMessage(for: error)
    if code == .success {
      if !message.isEmpty { print(message) }
      return ExitStatus.success
    }
    if error is ExitCode { return code.rawValue }
    // argument-parser's own: a usage error (its 64 is documented as 2 here).
    if code == .validationFailure {
      if !message.isEmpty { FileHandle.standardError.write(Data((message + "\n").utf8)) }
      return ExitStatus.usage
    }
    // Any other error a command let through: said the same way as a QuireError.
    return ErrorReport.fail(error)
  }
}
