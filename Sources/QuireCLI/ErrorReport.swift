import ArgumentParser
import Foundation
import Quire

/// The exit statuses of every `quire` command, and the one table from a ``QuireError``'s code
/// to its status. README's CLI reference and `quire help` print ``documentation``.
///
/// The REPL run with ed's options keeps GNU ed's own statuses (0, 1, 2), as scripts written
/// for ed expect.
public enum ExitStatus {
  /// Everything asked for was done.
  public static let success: Int32 = 0
  /// Some work failed (a file could not be read, made or written); the message names the
  /// file, and the rest of the work was still done. Every code the table does not name.
  public static let failure: Int32 = 1
  /// A usage error: an unknown option, a missing or bad argument (argument-parser's own
  /// errors and a command's `ValidationError`). A library's `.invalidArgument` is not one: it
  /// concerns a file (a FIFO with no reader), so it is ``failure``.
  public static let usage: Int32 = 2
  /// The disk or the user's quota is full; free space and run again.
  public static let diskFull: Int32 = 3
  /// The file is in use by another program, or changed on disk while it was being worked on;
  /// run again once the other program is done.
  public static let conflict: Int32 = 4
  /// The work ran out of time.
  public static let timedOut: Int32 = 5
  /// A C library that `quire` loads on first use (poppler, pango, SQLite …) could not be
  /// loaded or lacks a function: the trampolines' resolver (`Sources/CQuireLazy`) names it on
  /// standard error and exits with this status.
  public static let libraryMissing: Int32 = 6
  /// The work was cancelled (Ctrl+C), as a shell reports an interrupted program.
  public static let cancelled: Int32 = 130

  /// The status of a failure with `code`: the one table.
  static func status(for code: QuireError.Code) -> Int32 {
    table[code] ?? failure
  }

  private static let table: [QuireError.Code: Int32] = [
    .diskFull: diskFull,
    .inUse: conflict,
    .fileChangedOnDisk: conflict,
    .timedOut: timedOut,
    .cancelled: cancelled,
  ]

  /// The statuses, for `quire help` (and README's CLI reference, which says the same).
  static let documentation = """
    Exit codes: 0 done; 1 some work failed (the message names the file; the rest was done); \
    2 usage error; 3 disk full; 4 the file is in use by another program or changed on disk; \
    5 timed out; 6 a library could not be loaded (install its package); 130 cancelled.
    """
}

/// The one way a `quire` command says a failure: `quire: ` and the error's reason (which
/// file, what failed, what to do) on standard error, one line.
enum ErrorReport {
  /// The line for `error`, without `quire: `: a ``QuireError``'s reason; another error's
  /// description (its first line).
  static func text(for error: any Error) -> String {
    if let error = error as? QuireError { return error.reason }
    if let error = error as? any LocalizedError, let text = error.errorDescription { return text }
    let text = String(describing: error)
    return text.split(separator: "\n").first.map(String.init) ?? text
  }

  /// Writes `error`'s line to standard error; the command goes on (a batch that reports each
  /// file's failure and exits ``ExitStatus/failure`` at the end).
  static func say(_ error: any Error) {
    FileHandle.standardError.write(Data("quire: \(text(for: error))\n".utf8))
  }

  /// Writes `error`'s line to standard error and returns its exit status from the table.
  static func fail(_ error: any Error) -> Int32 {
    say(error)
    return status(for: error)
  }

  /// The exit status of `error`: a ``QuireError``'s from ``ExitStatus/status(for:)``, any
  /// other error's ``ExitStatus/failure``.
  static func status(for error: any Error) -> Int32 {
    (error as? QuireError).map { ExitStatus.status(for: $0.code) } ?? ExitStatus.failure
  }
}
