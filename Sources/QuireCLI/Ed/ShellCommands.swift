import Foundation
import Glibc
import QuireSystem
import QuireTypes
import SystemPackage

/// ed's shell commands: `!cmd`, `r !cmd`, `w !cmd`, `e !cmd`, run through `/bin/sh -c` as
/// ed runs them (`system(3)` and `popen(3)`), and refused under `-r`.
///
/// The command line is ed's: `%` is the current file name (`\%` a plain `%`), and a leading
/// `!` is the previous command (`!!` repeats it); a command that was expanded is printed
/// before it runs. The command's own standard input is the session's (a script's next lines,
/// as with ed), its output and errors go straight to the terminal or the script's output.
extension EdEngine {
  /// ed's shell command as typed (after its `!`), ready to run: `%` and a leading `!`
  /// expanded, remembered for `!!`, and printed when it was expanded.
  func expandShellCommand(_ typed: [UInt8]) throws(EdError) -> String {
    try checkShellAllowed()
    var s = CommandScanner(PathText.string(bytes: typed))
    var command: [UInt8] = []
    var expanded = false
    if s.peek == UInt8(ascii: "!") {
      s.advance()
      guard let previous = lastShellCommand, !(edOptions?.isTraditional == true && previous.isEmpty) else {
        throw EdError("no previous shell command to repeat with !!", ed: "No previous command")
      }
      command.append(contentsOf: PathText.bytes(previous))
      expanded = true
    }
    while let byte = s.next() {
      if byte == UInt8(ascii: "%") {
        guard let url = document.fileURL else {
          throw EdError("no current file name for % in the shell command; set one with f FILE", ed: "No current filename")
        }
        command.append(contentsOf: PathText.bytes(url.relativePath))
        expanded = true
      } else if byte == UInt8(ascii: "\\"), let escaped = s.next() {
        if escaped != UInt8(ascii: "%") { command.append(byte) }
        command.append(escaped)
      } else {
        command.append(byte)
      }
    }
    // The bytes typed (and the file name's), carried to /bin/sh as they are.
    let text = PathText.string(bytes: command)
    lastShellCommand = text
    if expanded {
      output?.print(text)
      output?.flush()
    }
    return text
  }

  /// Whether `line` is an `s` command ed would run: `s`, a delimiter, and a pattern that ends
  /// with it (a word command such as `status` or `save as X` is one).
  static func isSubstitute(_ line: String) -> Bool {
    var scanner = CommandScanner(line)
    guard scanner.next() == UInt8(ascii: "s"), let delimiter = scanner.next(),
      delimiter != UInt8(ascii: " "), delimiter != UInt8(ascii: "\n"), !"gpr123456789".utf8.contains(delimiter)
    else { return false }
    return (try? scanner.readPattern(delimiter: delimiter))?.closed == true
  }

  /// Throws under `-r` (ed's restricted mode, and `red`).
  func checkShellAllowed() throws(EdError) {
    if edOptions?.isRestricted == true { throw EdError("shell commands are not allowed with -r", ed: "Shell access restricted") }
  }

  /// Throws under `-r` when `name` leaves the current folder.
  func checkFileNameAllowed(_ name: String) throws(EdError) {
    guard edOptions?.isRestricted == true else { return }
    if name.hasPrefix("!") { throw EdError("shell commands are not allowed with -r", ed: "Shell access restricted") }
    if name == ".." || name.contains("/") {
      throw EdError("with -r only files in the current folder may be named", ed: "Directory access restricted")
    }
    // Nor a symbolic link (it could lead anywhere) or a special file: checked with the one
    // confined opener; reads then go through it too (`EdDocument.readConfined`).
    do {
      let fd = try EdDocument.openConfined(name, url: URL(fileURLWithPath: name), naming: true)
      SystemCalls.release(FileDescriptor(rawValue: fd))
    } catch  where error.code == .fileMissing {
      return  // a new file
    } catch {
      throw EdError("with -r: \(error.reason)", ed: "Directory access restricted")
    }
  }

  /// `!cmd`: runs the command with the session's standard input, output and errors; prints
  /// `!` when it ends, unless byte counts are off (`-s`).
  func runShellEscape(_ command: String) throws(EdError) {
    _ = try runShell(command, reading: false)
    if printsByteCounts { output?.print("!") }
  }

  /// Runs `command` through `/bin/sh -c`.
  ///
  /// - Parameters:
  ///   - reading: Capture the command's standard output and return it (`r !`, `e !`).
  ///   - input: Bytes for the command's standard input (`w !`) instead of the session's.
  /// - Returns: What the command printed when `reading`, else nothing.
  @discardableResult
  func runShell(_ command: String, reading: Bool, input: [UInt8]? = nil) throws(EdError) -> [UInt8] {
    output?.prepareForShell()
    let outputPipe = reading ? Pipe() : nil
    let inputPipe = input == nil ? nil : Pipe()
    // Started by the system layer: in our process group and with no signal blocked, so the
    // terminal's Ctrl-C stops the command; we ignore SIGINT until it has ended, as ed
    // (system(3)) does, and go on.
    return try SystemCalls.ignoringInterrupts { () throws(EdError) -> [UInt8] in
      let started = SystemCalls.spawn(
        "/bin/sh", arguments: ["-c", command],
        standardInput: inputPipe.map { .descriptor($0.fileHandleForReading.fileDescriptor) } ?? .inherited,
        standardOutput: outputPipe.map { .descriptor($0.fileHandleForWriting.fileDescriptor) } ?? .inherited)
      try? inputPipe?.fileHandleForReading.close()
      try? outputPipe?.fileHandleForWriting.close()
      guard case .success(let shell) = started else {
        if case .failure(let failure) = started {
          throw EdError("cannot run the shell command '\(command)': \(failure)", ed: "Can't create shell process")
        }
        return []
      }
      var captured: [UInt8] = []
      if let inputPipe, let input {
        // A command that exits without reading all of it closes the pipe: EPIPE, not SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        let handle = inputPipe.fileHandleForWriting
        try? handle.write(contentsOf: Data(input))
        try? handle.close()
      }
      if let outputPipe {
        captured = [UInt8](outputPipe.fileHandleForReading.readDataToEndOfFile())
      }
      _ = shell.wait()
      return captured
    }
  }

  /// `bytes` as ed reads them into lines: split at newlines, a last line without one kept.
  static func lines(of bytes: [UInt8]) -> [String] { REPLWords.lines(of: String(decoding: bytes, as: UTF8.self)) }
}
