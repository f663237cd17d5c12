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
      MakeSamplePDFCommand.self,
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
