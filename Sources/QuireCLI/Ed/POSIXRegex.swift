import Glibc

/// A compiled POSIX basic regular expression (`regcomp(3)` without `REG_EXTENDED`), ed's
/// dialect: `\(…\)`, `\{m,n\}`, back references, bracket expressions with classes.
///
/// Swift's `Regex` does not speak this dialect; the C library does, exactly. The `regex_t`
/// lives in memory this value allocates and is the only owner of: `regfree` runs in `deinit`.
/// Not `Sendable`: `regexec` on one `regex_t` from two threads at once is not promised safe.
struct POSIXRegex: ~Copyable {
  private let compiled: UnsafeMutablePointer<regex_t>
  /// How many `\(…\)` groups the expression has.
  let groupCount: Int

  /// Compiles `pattern`; throws with the C library's message when it is not valid.
  ///
  /// - Parameters:
  ///   - extended: A POSIX extended expression (`REG_EXTENDED`, ed's `-E`).
  ///   - ignoringCase: Match without regard to case (`REG_ICASE`, ed's `I` suffix).
  init(_ pattern: [UInt8], extended: Bool = false, ignoringCase: Bool = false) throws(EdError) {
    let storage = UnsafeMutablePointer<regex_t>.allocate(capacity: 1)
    var cPattern = pattern.map { CChar(bitPattern: $0) }
    cPattern.append(0)
    let status = regcomp(storage, cPattern, (extended ? REG_EXTENDED : 0) | (ignoringCase ? REG_ICASE : 0))
    guard status == 0 else {
      var message = [CChar](repeating: 0, count: 256)
      regerror(status, storage, &message, message.count)
      // regcomp frees what it allocated when it fails; only our storage is left.
      storage.deallocate()
      let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
      throw EdError("invalid regular expression '\(String(decoding: pattern, as: UTF8.self))': \(text.lowercased())")
    }
    compiled = storage
    groupCount = Int(storage.pointee.re_nsub)
  }

  deinit {
    regfree(compiled)
    compiled.deallocate()
  }

  /// Finds the first match in `text` at or after byte `offset`.
  ///
  /// - Parameters:
  ///   - text: The line's bytes followed by a NUL (see ``cString(_:)``).
  ///   - offset: Where to start; when it is not 0, `^` does not match there (`REG_NOTBOL`).
  ///   - notAtLineStart: `REG_NOTBOL` even at offset 0 (a search that goes on after a match).
  /// - Returns: The whole match and each group as byte ranges of `text` (a group that did not
  ///   take part is `nil`), or `nil` when nothing matches.
  func firstMatch(in text: [CChar], from offset: Int = 0, notAtLineStart: Bool = false) -> [Range<Int>?]? {
    var matches = [regmatch_t](repeating: regmatch_t(), count: groupCount + 1)
    let status = text.withUnsafeBufferPointer { buffer -> Int32 in
      guard let base = buffer.baseAddress else { return 1 }
      return regexec(compiled, base + offset, matches.count, &matches, offset > 0 || notAtLineStart ? REG_NOTBOL : 0)
    }
    guard status == 0 else { return nil }
    return matches.map { match in
      match.rm_so < 0 ? nil : (offset + Int(match.rm_so))..<(offset + Int(match.rm_eo))
    }
  }

  /// Whether `line` has a match anywhere.
  func matches(_ line: [UInt8]) -> Bool {
    firstMatch(in: Self.cString(line)) != nil
  }

  /// Whether `line` has a match anywhere.
  func matches(_ line: String) -> Bool { matches(Array(line.utf8)) }

  /// `line` as NUL-terminated bytes for ``firstMatch(in:from:notAtLineStart:)``.
  static func cString(_ line: String) -> [CChar] { cString(Array(line.utf8)) }

  /// `line` as NUL-terminated bytes for ``firstMatch(in:from:notAtLineStart:)``.
  ///
  /// A NUL byte inside the line is given to `regexec` as a newline, which no line holds, so
  /// the match goes on past it (GNU ed does the same with binary files); match offsets are
  /// the line's own.
  static func cString(_ line: [UInt8]) -> [CChar] {
    var bytes = line.map { CChar(bitPattern: $0 == 0 ? 10 : $0) }
    bytes.append(0)
    return bytes
  }
}
