import Glibc
import QuireSystem

/// The size ed gives its windows: the terminal on standard input less 2 rows (`z`) and 8
/// columns (`l`), or 22 rows and 72 columns when standard input is not a terminal.
enum TerminalWindow {
  static let size: (lines: Int, columns: Int) = {
    guard let size = SystemCalls.windowSize(of: STDIN_FILENO) else { return (22, 72) }
    let lines = size.rows > 2 && size.rows < 600 ? size.rows - 2 : 22
    let columns = size.columns > 8 && size.columns < 1800 ? size.columns - 8 : 72
    return (lines, columns)
  }()
}

/// How ed prints lines (`p`, `n`, `l`, `z`), as pure functions over bytes, and the engine's
/// printing through its ``EdOutput``.
extension EdEngine {
  /// The bytes ed writes for `lines`: each line followed by a newline.
  nonisolated static func bytes(of lines: [[UInt8]]) -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(lines.reduce(0) { $0 + $1.count + 1 })
    for line in lines {
      bytes.append(contentsOf: line)
      bytes.append(UInt8(ascii: "\n"))
    }
    return bytes
  }

  /// Line `text` as `l` shows it (GNU ed's format): escapes for control bytes, `\` and `$`,
  /// octal for other bytes, wrapped with `\` at `columns`, and a `$` at the end unless
  /// `traditional` (`-G`). `prefix` (the number of `n`) counts as 8 columns.
  nonisolated static func listed(_ text: [UInt8], prefix: [UInt8], columns: Int, traditional: Bool) -> [UInt8] {
    var column = prefix.isEmpty ? 0 : 8
    var bytes = prefix
    let escapes: [UInt8: UInt8] = [7: 97, 8: 98, 12: 102, 10: 110, 13: 114, 9: 116, 11: 118, 92: 92]
    for byte in text {
      column += 1
      if column > columns {
        column = 1
        bytes.append(contentsOf: [92, 10])
      }
      if byte >= 32 && byte <= 126 && byte != 92 && byte != 36 {
        bytes.append(byte)
      } else if byte == 92 || byte == 36 {
        // `\` and `$` are escaped with a backslash.
        column += 1
        bytes.append(contentsOf: [92, byte])
      } else {
        column += 1
        bytes.append(92)
        if let escaped = escapes[byte] {
          bytes.append(escaped)
        } else {
          column += 2
          bytes.append(contentsOf: [48 + (byte >> 6) & 7, 48 + (byte >> 3) & 7, 48 + byte & 7])
        }
      }
    }
    if !traditional { bytes.append(UInt8(ascii: "$")) }
    return bytes
  }

  /// Prints line `number` as `p`, `n` and `l` do (GNU ed's format: `l` wraps at 72 columns, or
  /// the terminal's width less 8).
  func printLine(_ number: Int, flags: PrintFlags) {
    let text = buffer.lineBytes(at: number - 1)
    let prefix = flags.contains(.numbered) ? Array("\(number)\t".utf8) : []
    guard flags.contains(.list) else {
      output?.print(bytes: prefix + text)
      return
    }
    let listed = Self.listed(text, prefix: prefix, columns: windowColumns, traditional: edOptions?.isTraditional == true)
    output?.print(String(decoding: listed, as: UTF8.self))
  }

  /// Prints the current line when `flags` (a command's suffix) ask for it.
  func printCurrent(_ flags: PrintFlags) throws(EdError) {
    guard !flags.isEmpty else { return }
    try requireLine(document.currentLine)
    printLine(document.currentLine, flags: flags)
  }

  /// Lines typed after `a`, `i`, `c`, up to a line holding only `.` (or the end of input).
  func readText(_ input: () -> String?) throws(EdError) -> [String] {
    var lines: [String] = []
    while let line = input() {
      if line == "." { break }
      lines.append(line)
    }
    if isInterrupted { throw EdError.interrupted }
    return lines
  }

  /// An address alone prints that line; nothing at all prints the next line.
  func printNext(_ addresses: Addresses) throws(EdError) {
    var line = addresses.second
    if addresses.count == 0 {
      guard document.currentLine + 1 <= lastLine else {
        throw EdError("invalid address: no line after line \(document.currentLine) (\(lastLine) lines)")
      }
      line = document.currentLine + 1
    }
    try requireLine(line)
    document.currentLine = line
    printLine(line, flags: [])
  }

  /// `p`, `l`, `n`.
  func printLines(_ addresses: Addresses, _ flags: PrintFlags) throws(EdError) {
    try requireRange(addresses)
    for line in addresses.first...addresses.second {
      if isInterrupted { throw EdError.interrupted }
      printLine(line, flags: flags)
    }
    document.currentLine = addresses.second
  }

  /// `zN`: a window of lines from the addressed one (the line after the current one without
  /// an address, outside `g`).
  func scroll(_ addresses: Addresses, lines: Int?, _ flags: PrintFlags) throws(EdError) {
    let start = addresses.count == 0 ? document.currentLine + (globalLines == nil ? 1 : 0) : addresses.second
    try requireLine(start)
    if let lines { windowLines = lines }
    let last = min(lastLine, start + windowLines - 1)
    for line in start...last {
      if isInterrupted { throw EdError.interrupted }
      printLine(line, flags: flags.isEmpty ? .print : flags)
    }
    document.currentLine = last
  }
}
