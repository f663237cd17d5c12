public import ArgumentParser
import Foundation
import Quire
import Synchronization

/// Exit codes of every `quire` command (documented in README):
/// - 0: everything asked for was done.
/// - 1: some work failed (the rest was still done); the message names the file.
/// - 2: usage error: unknown option, missing argument, bad value.
public enum ExitStatus {
  public static let success: Int32 = 0
  public static let failure: Int32 = 1
  public static let usage: Int32 = 2
}

/// The `quire` command: the REPL by default, and one subcommand per tool.
public struct QuireCommand: AsyncParsableCommand {
  public static let configuration = CommandConfiguration(
    commandName: "quire",
    abstract: "Open, edit, preview and thumbnail documents.",
    discussion: """
      With no subcommand, opens the REPL on the given files, or on Documents/ when none are \
      given. Exit codes: 0 done, 1 some work failed, 2 usage error.
      """,
    version: quireVersion,
    subcommands: [
      REPLCommand.self, DemoCommand.self, ThumbnailCommand.self, PreviewCommand.self,
      TypeCommand.self, TypesCommand.self, WatchCommand.self, CopyCommand.self, PasteCommand.self, ServeCommand.self,
      MakeSamplePDFCommand.self, BrowseCommand.self, RecentCommand.self, TagCommand.self, TrashCommand.self, SearchCommand.self,
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
    if ownsProcess { processOwnership.store(true, ordering: .relaxed) }
    do {
      if ownsProcess { try checkArgumentsAreUTF8() }
      // The REPL's own arguments are ed's (`-sp:` is -s with -p ':'): EdArguments reads them.
      if let first = arguments.first, subcommandNames.contains(first) { try checkNoFileNameTakenForOptions(arguments) }
      var command = try parseAsRoot(try EdArguments.normalized(arguments, subcommands: subcommandNames))
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

  /// Refuses an argument whose bytes (read from `CommandLine.unsafeArgv`: `CommandLine.arguments`
  /// decodes them lossily, so `non\xFFutf.md` would become a *different* name, `non\u{FFFD}utf.md`)
  /// are not UTF-8, naming it escaped. Linux names are bytes, but Foundation's `URL`, which the
  /// library's file APIs take, cannot carry such a name: refusing is the honest answer until
  /// they take `FilePath`.
  static func checkArgumentsAreUTF8() throws {
    for index in 1..<Int(CommandLine.argc) {
      guard let argument = CommandLine.unsafeArgv[index] else { continue }
      let bytes = UnsafeRawBufferPointer(start: argument, count: strlen(argument))
      guard String(validating: bytes, as: UTF8.self) == nil else { continue }
      throw QuireError(
        .invalidArgument,
        "Cannot use '\(DisplayName.escaping(bytes: bytes))': the name is not UTF-8, and Quire cannot open or write such names yet. Rename it to UTF-8 (e.g. 'convmv -f latin1 -t utf8 --notest NAME'); nothing was opened or written."
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

  /// The names that select a subcommand rather than the REPL.
  static var subcommandNames: Set<String> {
    Set(configuration.subcommands.map { $0._commandName } + ["help"])
  }

  /// Prints `error` the way argument-parser would and returns the documented exit code.
  static func report(_ error: any Error) -> Int32 {
    if let quireError = error as? QuireError {
      FileHandle.standardError.write(Data("quire: \(quireError.description)\n".utf8))
      return ExitStatus.failure
    }
    let code = exitCode(for: error)
    let message = fullMessage(for: error)
    if code == .success {
      if !message.isEmpty { print(message) }
      return ExitStatus.success
    }
    if !message.isEmpty { FileHandle.standardError.write(Data((message + "\n").utf8)) }
    if error is ExitCode { return code.rawValue }
    return code == .validationFailure ? ExitStatus.usage : code.rawValue
  }
}
