import Foundation
import Quire
import QuireSystem
import SystemPackage

/// A failed ed command: one line for a person naming what failed, and GNU ed's own terse
/// message for the same failure.
///
/// Where GNU ed prints `?` (and its `H` mode a terse reason), quire prints `? ` followed by
/// this message, e.g. `? invalid address: line 40 is past the end (12 lines)`. Run with ed's
/// options (`quire -s FILE`), quire prints `?` and, under `H`, ``edMessage`` as ed does.
struct EdError: Error, Sendable, CustomStringConvertible, Equatable {
  /// The message, without the leading `? `.
  var message: String
  /// GNU ed's message for this failure ("Invalid address"), printed by `h` and `H` in ed mode.
  var edMessage: String
  /// The error of the system call that failed, when a file could not be read or written.
  var systemError: Errno?
  /// ``systemError`` in the C library's words ("No such file or directory"): GNU ed prints it
  /// after the file's name.
  var systemReason: String? { systemError.map { String(cString: strerror($0.rawValue)) } }

  /// - Parameters:
  ///   - message: quire's message.
  ///   - ed: GNU ed's message; when `nil`, the one ed gives for the kind of failure `message`
  ///     names (its first words).
  init(_ message: String, ed: String? = nil) {
    self.message = message
    edMessage = ed ?? Self.edMessage(for: message)
  }

  /// A failure of the document layer to read or write a file: `message`, with the error of
  /// the failed system call (``systemError``) found in `cause`'s chain.
  init(_ message: String, ed: String? = nil, cause: any Error) {
    self.init(message, ed: ed)
    systemError = Self.systemError(of: cause)
  }

  var description: String { message }

  /// The error of the system call that failed somewhere in `error`'s chain of causes
  /// (``QuireError/cause``), if one did.
  static func systemError(of error: any Error) -> Errno? {
    var current: (any Error)? = error
    while let error = current {
      if let error = error as? EdError { return error.systemError }
      if let failure = error as? SyscallFailure { return failure.errno }
      current = (error as? QuireError)?.cause
    }
    return nil
  }

  /// ed's message for a quire message that did not name one.
  private static func edMessage(for message: String) -> String {
    let table: [(String, String)] = [
      ("invalid address", "Invalid address"), ("invalid range", "Invalid address"), ("invalid destination", "Invalid destination"),
      ("no match", "No match"), ("unknown command", "Unknown command"), ("this command takes no address", "Unexpected address"),
      ("unexpected", "Invalid command suffix"), ("cannot open", "Cannot open input file"), ("cannot read", "Cannot read input file"),
      ("cannot write", "Cannot open output file"), ("cannot append", "Cannot open output file"), ("no current file name", "No current filename"),
      ("invalid regular expression", "Invalid regular expression"), ("unbalanced brackets", "Unbalanced brackets ([])"),
      ("interrupted", "Interrupt"), ("nothing to undo", "Nothing to undo"), ("no previous substitution", "No previous substitution"),
      ("no previous regular expression", "No previous pattern"), ("missing delimiter", "Missing pattern delimiter"),
      ("infinite substitution loop", "Infinite substitution loop"), ("a mark", "Invalid mark character"),
    ]
    let lowered = message.lowercased()
    return table.first { lowered.hasPrefix($0.0) }?.1 ?? "Invalid command"
  }

  static func pastEnd(_ line: Int, lineCount: Int) -> EdError {
    EdError("invalid address: line \(line) is past the end (\(lineCount) line\(lineCount == 1 ? "" : "s"))")
  }

  static let emptyBuffer = EdError("invalid address: the buffer is empty")
  static let noPreviousPattern = EdError("no previous regular expression to repeat", ed: "No previous pattern")
  static let noMatch = EdError("no match")
  static let unexpectedAddress = EdError("this command takes no address", ed: "Unexpected address")
  static let interrupted = EdError("interrupted", ed: "Interrupt")
  /// ed's warning for `q`, `e` and the end of input with unsaved changes.
  static let bufferModified = "Warning: buffer modified"
}
