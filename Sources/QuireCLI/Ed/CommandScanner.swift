import QuireSystem

/// A cursor over the bytes of one ed command, able to pull continuation lines (a replacement
/// ending in `\`, for instance) from the input. A line's text is a ``PathText`` string: the
/// bytes are the ones typed, those that are not UTF-8 included.
struct CommandScanner {
  private(set) var bytes: [UInt8]
  private(set) var position = 0
  /// Supplies the next input line when a command continues past the end of its line.
  let continuation: () -> String?
  /// The text ended in a backslash that was taken off (a `g` command list's continuation).
  var endsWithEscapedNewline = false
  /// Whether the line ``pullContinuation()`` appended also ended in a backslash.
  var continuedAfterPull: () -> Bool = { false }

  init(_ text: String, continuation: @escaping () -> String? = { nil }) {
    bytes = PathText.bytes(text)
    self.continuation = continuation
  }

  var isAtEnd: Bool { position >= bytes.count }
  var peek: UInt8? { isAtEnd ? nil : bytes[position] }

  func peek(offset: Int) -> UInt8? {
    position + offset < bytes.count ? bytes[position + offset] : nil
  }

  mutating func advance(_ count: Int = 1) { position = min(bytes.count, position + count) }

  mutating func next() -> UInt8? {
    guard let byte = peek else { return nil }
    position += 1
    return byte
  }

  mutating func skipBlanks() {
    while let byte = peek, byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") { position += 1 }
  }

  /// Appends the next input line (after a newline) when one is available.
  mutating func pullContinuation() -> Bool {
    guard let line = continuation() else { return false }
    bytes.append(UInt8(ascii: "\n"))
    bytes.append(contentsOf: PathText.bytes(line))
    endsWithEscapedNewline = continuedAfterPull()
    return true
  }

  /// The rest of the command, consumed.
  mutating func rest() -> [UInt8] {
    defer { position = bytes.count }
    return Array(bytes[position...])
  }

  /// Reads a decimal number; `nil` when there is no digit here. Saturates instead of overflowing.
  mutating func readNumber() -> Int? {
    guard let first = peek, isDigit(first) else { return nil }
    var value = 0
    while let byte = peek, isDigit(byte) {
      let (product, overflow1) = value.multipliedReportingOverflow(by: 10)
      let (sum, overflow2) = product.addingReportingOverflow(Int(byte - UInt8(ascii: "0")))
      value = overflow1 || overflow2 ? Int.max / 2 : sum
      position += 1
    }
    return value
  }

  /// Reads a regular expression up to an unescaped `delimiter` outside bracket expressions.
  ///
  /// The opening delimiter has been consumed. The closing one is consumed when present
  /// (`closed` says whether it was). Escapes are kept as written: `regcomp` reads `\/` as `/`.
  mutating func readPattern(delimiter: UInt8) throws(EdError) -> (pattern: [UInt8], closed: Bool) {
    var pattern: [UInt8] = []
    while let byte = peek, byte != delimiter, byte != UInt8(ascii: "\n") {
      if byte == UInt8(ascii: "[") {
        let end = try bracketEnd(from: position)
        pattern.append(contentsOf: bytes[position...end])
        position = end + 1
        continue
      }
      if byte == UInt8(ascii: "\\") {
        guard let escaped = peek(offset: 1), escaped != UInt8(ascii: "\n") else {
          throw EdError("a regular expression cannot end with a backslash")
        }
        pattern.append(byte)
        pattern.append(escaped)
        position += 2
        continue
      }
      pattern.append(byte)
      position += 1
    }
    if peek == delimiter {
      position += 1
      return (pattern, true)
    }
    return (pattern, false)
  }

  /// The index of the `]` closing the bracket expression that opens at `start`.
  private func bracketEnd(from start: Int) throws(EdError) -> Int {
    var index = start + 1
    if index < bytes.count, bytes[index] == UInt8(ascii: "^") { index += 1 }
    if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1 }
    while index < bytes.count, bytes[index] != UInt8(ascii: "\n") {
      let byte = bytes[index]
      if byte == UInt8(ascii: "]") { return index }
      if byte == UInt8(ascii: "["), index + 1 < bytes.count,
        [UInt8(ascii: ":"), UInt8(ascii: "."), UInt8(ascii: "=")].contains(bytes[index + 1])
      {
        let kind = bytes[index + 1]
        var inner = index + 2
        while inner + 1 < bytes.count, !(bytes[inner] == kind && bytes[inner + 1] == UInt8(ascii: "]")) {
          inner += 1
        }
        guard inner + 1 < bytes.count else { break }
        index = inner + 2
        continue
      }
      index += 1
    }
    throw EdError("unbalanced brackets in regular expression: '[' has no matching ']'")
  }
}

@inline(__always) func isDigit(_ byte: UInt8) -> Bool {
  byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
}
