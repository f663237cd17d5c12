/// Where the ed engine's output goes, and what it asks of the session that runs it: printed
/// lines, notes, ed's file diagnostics, the prompt, Ctrl-C, and the session's other documents.
///
/// ``REPLSession`` is the one front end that conforms; a test or the fuzzer can give its own.
@MainActor
protocol EdOutput: AnyObject {
  /// Writes one line of output (the engine adds no newline).
  func print(_ line: String)
  /// Writes one line of output given as bytes (a printed line, exactly as the buffer holds it).
  func print(bytes: [UInt8])
  /// Says what a command did beyond ed's own output (a version that could not be kept).
  func note(_ text: String)
  /// Writes ed's diagnostic for a file (`name: No such file or directory`) to standard error,
  /// in ed mode unless `-q` (quire's own mode names the file in its error instead).
  func diagnose(_ text: String)
  /// Names of other open documents with unsaved changes, for `q`.
  var otherUnsavedDocuments: [String] { get }
  /// Polled in long loops; `true` cancels the command (Ctrl-C).
  var isInterrupted: Bool { get }
  /// `P`: toggles the prompt.
  func togglePrompt()
  /// Flushes the output now (ed flushes after printing an expanded shell command).
  func flush()
  /// Runs before a shell command starts: flushes output, and gives standard input back to the
  /// position of the script's next line.
  func prepareForShell()
}

extension EdOutput {
  func print(bytes: [UInt8]) { print(String(decoding: bytes, as: UTF8.self)) }
  func note(_ text: String) {}
  func diagnose(_ text: String) {}
  var otherUnsavedDocuments: [String] { [] }
  var isInterrupted: Bool { false }
  func togglePrompt() {}
  func flush() {}
  func prepareForShell() {}
}

/// Output that goes nowhere: an engine's until its session gives it one.
@MainActor
final class DiscardedEdOutput: EdOutput {
  func print(_ line: String) {}
}
