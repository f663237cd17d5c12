/// Resolving a command's addresses (``EdAddress``) against the document, in order, as ed does.
extension EdEngine {
  /// A command's addresses once resolved: how many were given (0, 1 or 2) and the two lines
  /// (both the current line when none was given, both the one when one was).
  struct Addresses {
    var count: Int
    var first: Int
    var second: Int
  }

  /// `address + offset`, or an error when the sum overflows (fuzz-ed crashed the process with
  /// `-4-4-8-4--44333333323333…`: an arithmetic overflow trap on input).
  static func offsetAddress(_ address: Int, by offset: Int) throws(EdError) -> Int {
    let (sum, overflow) = address.addingReportingOverflow(offset)
    guard !overflow else { throw EdError("invalid address: out of range") }
    return sum
  }

  /// The lines `terms` name. A search looks from the current line, and `;` moves the current
  /// line to the address before it, so terms are resolved one by one, left to right.
  func resolve(_ terms: [EdAddress]) throws(EdError) -> Addresses {
    var first: Int?
    var second: Int?
    var expectingAddress = true
    for term in terms {
      switch term {
      case .number(let number):
        second = try expectingAddress ? number : Self.offsetAddress(second ?? 0, by: number)
        expectingAddress = false
      case .offset(let amount):
        if expectingAddress { second = document.currentLine }
        second = try Self.offsetAddress(second ?? 0, by: amount)
        expectingAddress = false
      case .current, .last, .search, .mark:
        second = try line(for: term)
        expectingAddress = false
      case .separator(let byte):
        if expectingAddress {
          if first == nil {
            first = byte == UInt8(ascii: ";") ? document.currentLine : 1
            second = lastLine
          } else {
            first = second
          }
        } else {
          let value = second ?? 0
          try checkBounds(value)
          if byte == UInt8(ascii: ";") { document.currentLine = value }
          first = value
          expectingAddress = true
        }
      }
    }
    if !expectingAddress, let second { try checkBounds(second) }
    let count = second == nil ? 0 : (first == nil ? 1 : 2)
    let secondValue = second ?? document.currentLine
    return Addresses(count: count, first: count <= 1 ? secondValue : (first ?? secondValue), second: secondValue)
  }

  /// The line of `.`, `$`, a search or a mark.
  private func line(for term: EdAddress) throws(EdError) -> Int {
    switch term {
    case .current: return document.currentLine
    case .search(let pattern, let forward, let ignoresCase):
      return try search(regex(for: pattern, ignoringCase: ignoresCase), forward: forward)
    case .mark(let letter):
      guard let line = document.marks[letter], line >= 1, line <= lastLine else {
        throw EdError("invalid address: mark '\(Character(UnicodeScalar(letter)))' is not set")
      }
      return line
    default: return lastLine
    }
  }

  /// The destination of `m` and `t`: one address, the current line when none is given.
  func destination(_ terms: [EdAddress]) throws(EdError) -> Int {
    let savedCurrent = document.currentLine
    let addresses = try resolve(terms)
    document.currentLine = savedCurrent
    if addresses.count == 0 && edOptions?.isTraditional == true {
      throw EdError("m and t need a destination with -G", ed: "Destination expected")
    }
    return addresses.count == 0 ? savedCurrent : addresses.second
  }

  func checkBounds(_ line: Int) throws(EdError) {
    if line < 0 { throw EdError("invalid address: line \(line) is before the first line") }
    if line > lastLine { throw EdError.pastEnd(line, lineCount: lastLine) }
  }

  func requireLine(_ line: Int) throws(EdError) {
    if lastLine == 0 { throw EdError.emptyBuffer }
    if line < 1 { throw EdError("invalid address: line \(line); this command needs a line from 1 to \(lastLine)") }
    if line > lastLine { throw EdError.pastEnd(line, lineCount: lastLine) }
  }

  func requireRange(_ addresses: Addresses) throws(EdError) {
    try requireLine(addresses.first)
    try requireLine(addresses.second)
    if addresses.first > addresses.second {
      throw EdError("invalid range: line \(addresses.first) comes after line \(addresses.second)")
    }
  }

  func requireNoAddress(_ addresses: Addresses) throws(EdError) {
    if addresses.count > 0 { throw EdError.unexpectedAddress }
  }

  // MARK: Regular expressions

  /// A compiled expression kept for reuse (`//`, `s//x/`); the class owns the `regex_t`.
  final class CompiledRegex {
    let pattern: [UInt8]
    let ignoresCase: Bool
    let regex: POSIXRegex
    init(pattern: [UInt8], extended: Bool, ignoresCase: Bool) throws(EdError) {
      self.pattern = pattern
      self.ignoresCase = ignoresCase
      regex = try POSIXRegex(pattern, extended: extended, ignoringCase: ignoresCase)
    }
  }

  /// The expression for `pattern`, or the last one when `pattern` is empty (ed's `I` suffix
  /// then compiles it again without regard to case).
  func regex(for pattern: [UInt8], ignoringCase: Bool = false) throws(EdError) -> CompiledRegex {
    if pattern.isEmpty {
      guard let lastRegex else { throw EdError.noPreviousPattern }
      guard !ignoringCase else {
        throw EdError(
          "the I suffix needs a regular expression: an empty one repeats the last as it was", ed: "Suffix 'I' not allowed on empty regexp")
      }
      return lastRegex
    }
    if let lastRegex, lastRegex.pattern == pattern, lastRegex.ignoresCase == ignoringCase { return lastRegex }
    let compiled = try CompiledRegex(pattern: pattern, extended: edOptions?.usesExtendedRegex == true, ignoresCase: ignoringCase)
    lastRegex = compiled
    return compiled
  }

  /// The next line (or, not `forward`, the one before) that `compiled` matches, from the
  /// current line round the buffer.
  func search(_ compiled: CompiledRegex, forward: Bool) throws(EdError) -> Int {
    let count = lastLine
    var line = document.currentLine
    for _ in 0..<max(count, 0) {
      if isInterrupted { throw EdError.interrupted }
      line = forward ? (line % count) + 1 : (line <= 1 ? count : line - 1)
      if try compiled.regex.matches(buffer.lineBytes(at: line - 1)) { return line }
    }
    let shown = String(decoding: compiled.pattern, as: UTF8.self)
    throw EdError("no match: no line matches /\(shown)/")
  }
}
