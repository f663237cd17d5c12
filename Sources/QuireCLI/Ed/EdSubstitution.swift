/// ed's `s`: parsing the command, and the substitution itself as pure functions over a line's
/// bytes (the interpreter, ``EdEngine``, applies them to the document's lines).
extension EdCommand {
  /// Parses what follows `s`: a new substitution (`/re/replacement/flags`) or a bare `s`
  /// repeating the last one.
  static func parseSubstitution(_ s: inout CommandScanner) throws(EdError) -> Substitution {
    guard let delimiter = s.peek, !"gpr123456789".utf8.contains(delimiter) else {
      return .repeatLast(try parseRepeatedSubstitution(&s))
    }
    guard delimiter != UInt8(ascii: " "), delimiter != UInt8(ascii: "\n") else {
      throw EdError("s needs a delimiter that is not a blank: s/re/replacement/", ed: "Invalid pattern delimiter")
    }
    s.advance()
    let (pattern, closed) = try s.readPattern(delimiter: delimiter)
    guard closed else { throw EdError("missing delimiter: write s/regular expression/replacement/") }
    var substitution = NewSubstitution(pattern: pattern)
    (substitution.replacement, substitution.printsImplicitly) = try readReplacement(&s, delimiter: delimiter)
    try readSubstitutionFlags(&s, into: &substitution)
    return .new(substitution)
  }

  private static let badSubstitutionSuffix = EdError(
    "unexpected suffix after s: g or a count N, then p, l or n", ed: "Invalid command suffix")

  /// `g` or `N`, `I`, `p`, `l`, `n`: each at most once, in any order, to the end of the line.
  private static func readSubstitutionFlags(_ s: inout CommandScanner, into substitution: inout NewSubstitution) throws(EdError) {
    var countGiven = false
    while let byte = s.peek {
      if byte == UInt8(ascii: "g") || (byte >= UInt8(ascii: "1") && byte <= UInt8(ascii: "9")) {
        if substitution.isGlobal || countGiven { throw badSubstitutionSuffix }
        if byte == UInt8(ascii: "g") {
          substitution.isGlobal = true
          s.advance()
        } else {
          substitution.occurrence = s.readNumber() ?? 1
          countGiven = true
        }
      } else if byte == UInt8(ascii: "i") || byte == UInt8(ascii: "I") {
        if substitution.ignoresCase { throw badSubstitutionSuffix }
        substitution.ignoresCase = true
        s.advance()
      } else if let flag = PrintFlags(suffix: byte) {
        if substitution.suffixes.contains(flag) { throw badSubstitutionSuffix }
        substitution.suffixes.insert(flag)
        s.advance()
      } else {
        break
      }
    }
    guard s.isAtEnd else { throw badSubstitutionSuffix }
  }

  /// A bare `s`'s suffixes: N sets the occurrence, g toggles global, p toggles printing, r uses
  /// the last search's expression; each at most once.
  private static func parseRepeatedSubstitution(_ s: inout CommandScanner) throws(EdError) -> RepeatedSubstitution {
    var repeated = RepeatedSubstitution()
    var seen: Set<UInt8> = []
    while let byte = s.peek {
      let kind = isDigit(byte) ? UInt8(ascii: "g") : byte
      guard "gpr".utf8.contains(kind), !seen.contains(kind) else { break }
      seen.insert(kind)
      if isDigit(byte) {
        guard byte != UInt8(ascii: "0") else { throw badSubstitutionSuffix }
        repeated.occurrence = s.readNumber() ?? 1
      } else {
        s.advance()
        if byte == UInt8(ascii: "g") { repeated.togglesGlobal = true }
        if byte == UInt8(ascii: "p") { repeated.togglesPrinting = true }
        if byte == UInt8(ascii: "r") { repeated.usesLastSearch = true }
      }
    }
    guard s.isAtEnd else { throw badSubstitutionSuffix }
    return repeated
  }

  /// Reads a replacement up to `delimiter` (`nil` for `%`, the last replacement); a missing
  /// closing delimiter means "print".
  private static func readReplacement(_ s: inout CommandScanner, delimiter: UInt8) throws(EdError) -> ([UInt8]?, Bool) {
    if s.peek == UInt8(ascii: "%"), s.peek(offset: 1) == delimiter || s.peek(offset: 1) == nil {
      s.advance()
      let closed = s.peek == delimiter
      if closed { s.advance() }
      return (nil, !closed)
    }
    var replacement: [UInt8] = []
    while true {
      guard let byte = s.peek else {
        // In a g command list, a line ending in a backslash continues the replacement.
        if s.endsWithEscapedNewline, s.pullContinuation() { continue }
        return (replacement, true)
      }
      if byte == delimiter {
        s.advance()
        return (replacement, false)
      }
      s.advance()
      replacement.append(byte)
      if byte == UInt8(ascii: "\\") {
        if s.isAtEnd {
          // A backslash at the end of the line escapes the newline: the replacement goes on.
          guard s.pullContinuation() else { throw EdError("the replacement ends with a backslash and no line follows") }
        }
        if let escaped = s.next() { replacement.append(escaped) }
      }
    }
  }
}

/// The substitution of one line, as pure functions over its bytes.
enum Substitute {
  /// `line` with the substitution applied, as one or more lines; `nil` when it does not apply.
  ///
  /// GNU ed's matching loop: after each match the search goes on from its end (never at a
  /// line start again); an empty match right where the last one ended is allowed once with `g`
  /// (`s/^/#/g`), twice is an infinite loop.
  static func apply(
    to line: [UInt8], _ regex: borrowing POSIXRegex, _ replacement: [UInt8], global: Bool, occurrence: Int
  ) throws(EdError) -> [[UInt8]]? {
    let text = POSIXRegex.cString(line)
    let length = text.count - 1
    guard var groups = try regex.firstMatch(in: text, from: 0) else { return nil }
    var result: [UInt8] = []
    var offset = 0
    var matchNumber = 0
    var replaced = false
    var emptyAtStart = false
    var lastEmptyMatch: Int?
    while let whole = groups[0] {
      matchNumber += 1
      // An empty match found again at the same place (s/x*/y/3 on "abc") is replaced there, as
      // GNU ed does ("Yabc"); matching on from it found the same empty match forever.
      let repeatsEmptyMatch = !global && whole.isEmpty && lastEmptyMatch == whole.lowerBound
      if whole.isEmpty { lastEmptyMatch = whole.lowerBound }
      if global || matchNumber == occurrence || repeatsEmptyMatch {
        result.append(contentsOf: line[offset..<whole.lowerBound])
        expand(replacement, groups: groups, in: line, into: &result)
        replaced = true
      } else {
        result.append(contentsOf: line[offset..<whole.upperBound])
      }
      let advanced = whole.upperBound - offset
      offset = whole.upperBound
      if global && advanced == 0 {
        if emptyAtStart {
          throw EdError("infinite substitution loop: /…/ matches an empty string; use a pattern that matches at least one character with g")
        }
        emptyAtStart = true
      }
      guard offset < length, !replaced || global, let next = try regex.firstMatch(in: text, from: offset, notAtLineStart: true) else { break }
      groups = next
    }
    guard replaced else { return nil }
    if offset < length { result.append(contentsOf: line[offset..<length]) }
    return split(result)
  }

  /// `bytes` split at newlines (a replacement's `\<newline>` makes two lines of one).
  static func split(_ bytes: [UInt8]) -> [[UInt8]] {
    bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { Array($0) }
  }

  /// Expands `&`, `\1`…`\9`, `\&` and `\<newline>` in `replacement`, for a match whose groups
  /// (the whole match first) are `groups` in `bytes`.
  static func expand(_ replacement: [UInt8], groups: [Range<Int>?], in bytes: [UInt8], into result: inout [UInt8]) {
    var index = 0
    while index < replacement.count {
      let byte = replacement[index]
      if byte == UInt8(ascii: "&"), let whole = groups[0] {
        result.append(contentsOf: bytes[whole])
      } else if byte == UInt8(ascii: "\\"), index + 1 < replacement.count {
        index += 1
        let escaped = replacement[index]
        let group = Int(escaped) - Int(UInt8(ascii: "0"))
        if group >= 1 && group <= 9 && group < groups.count {
          if let range = groups[group] { result.append(contentsOf: bytes[range]) }
        } else {
          result.append(escaped)
        }
      } else {
        result.append(byte)
      }
      index += 1
    }
  }
}
