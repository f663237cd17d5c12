/// A failed ed command: one line for a person naming what failed.
///
/// Where GNU ed prints `?` (and its `H` mode a terse reason), quire prints `? ` followed by
/// this message, e.g. `? invalid address: line 40 is past the end (12 lines)`.
struct EdError: Error, Sendable, CustomStringConvertible, Equatable {
  /// The message, without the leading `? `.
  var message: String

  init(_ message: String) { self.message = message }

  var description: String { message }

  static func pastEnd(_ line: Int, lineCount: Int) -> EdError {
    EdError("invalid address: line \(line) is past the end (\(lineCount) line\(lineCount == 1 ? "" : "s"))")
  }

  static let emptyBuffer = EdError("invalid address: the buffer is empty")
  static let noPreviousPattern = EdError("no previous regular expression to repeat")
  static let noMatch = EdError("no match")
  static let unexpectedAddress = EdError("this command takes no address")
  static let interrupted = EdError("interrupted")
}
