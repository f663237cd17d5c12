internal import CQuireSystem
import Glibc

/// A compiled POSIX basic regular expression (`regcomp(3)` without `REG_EXTENDED`), ed's
/// dialect: `\(…\)`, `\{m,n\}`, back references, bracket expressions with classes.
///
/// Swift's `Regex` does not speak this dialect; the C library does, exactly, in a UTF-8
/// `LC_CTYPE` of the calling thread's own (`cquire_regcomp_utf8`), never the process's. The `regex_t`
/// lives in memory this value allocates and is the only owner of: `regfree` runs in `deinit`.
/// Not `Sendable`: `regexec` on one `regex_t` from two threads at once is not promised safe.
/// Ctrl-C stops a long match (see ``firstMatch(in:from:notAtLineStart:)``).
struct POSIXRegex: ~Copyable {
  /// The `regex_t`, replaced by a fresh compilation after an interrupted match.
  private final class Storage {
    var compiled: UnsafeMutablePointer<regex_t>?
    init(_ compiled: UnsafeMutablePointer<regex_t>) { self.compiled = compiled }
  }
  private let storage: Storage
  private let pattern: [UInt8]
  private let cflags: Int32
  /// Whether the pattern has a back reference (`\1`…`\9`): only those make glibc's matcher
  /// backtrack for minutes, so only those are matched where Ctrl-C can walk away from them.
  private let hasBackReference: Bool
  /// How many `\(…\)` groups the expression has.
  let groupCount: Int

  /// Compiles `pattern`; throws with the C library's message when it is not valid.
  ///
  /// - Parameters:
  ///   - extended: A POSIX extended expression (`REG_EXTENDED`, ed's `-E`).
  ///   - ignoringCase: Match without regard to case (`REG_ICASE`, ed's `I` suffix).
  init(_ pattern: [UInt8], extended: Bool = false, ignoringCase: Bool = false) throws(EdError) {
    let cflags = (extended ? REG_EXTENDED : 0) | (ignoringCase ? REG_ICASE : 0)
    let compiled = try Self.compile(pattern, cflags: cflags)
    self.pattern = pattern
    self.cflags = cflags
    hasBackReference = zip(pattern, pattern.dropFirst()).contains { $0 == UInt8(ascii: "\\") && (UInt8(ascii: "1")...UInt8(ascii: "9")).contains($1) }
    storage = Storage(compiled)
    groupCount = Int(compiled.pointee.re_nsub)
  }

  private static func compile(_ pattern: [UInt8], cflags: Int32) throws(EdError) -> UnsafeMutablePointer<regex_t> {
    let storage = UnsafeMutablePointer<regex_t>.allocate(capacity: 1)
    var cPattern = pattern.map { CChar(bitPattern: $0) }
    cPattern.append(0)
    let status = cquire_regcomp_utf8(storage, cPattern, cflags)
    guard status == 0 else {
      var message = [CChar](repeating: 0, count: 256)
      regerror(status, storage, &message, message.count)
      // regcomp frees what it allocated when it fails; only our storage is left.
      storage.deallocate()
      let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
      throw EdError("invalid regular expression '\(String(decoding: pattern, as: UTF8.self))': \(text.lowercased())")
    }
    return storage
  }

  deinit {
    if let compiled = storage.compiled {
      regfree(compiled)
      compiled.deallocate()
    }
  }

  /// Finds the first match in `text` at or after byte `offset`.
  ///
  /// Ctrl-C stops a match that runs long (back references can take minutes): such a match
  /// runs on a matcher thread (`cquire_regexec_interruptible`) and an interrupt stops the
  /// wait; the abandoned `regex_t` is leaked, as GNU ed leaks regexec's scratch memory, and
  /// the pattern compiled afresh.
  ///
  /// - Parameters:
  ///   - text: The line's bytes followed by a NUL (see ``cString(_:)``).
  ///   - offset: Where to start; when it is not 0, `^` does not match there (`REG_NOTBOL`).
  ///   - notAtLineStart: `REG_NOTBOL` even at offset 0 (a search that goes on after a match).
  /// - Returns: The whole match and each group as byte ranges of `text` (a group that did not
  ///   take part is `nil`), or `nil` when nothing matches.
  /// - Throws: ``EdError/interrupted`` when SIGINT stopped the match.
  func firstMatch(in text: [CChar], from offset: Int = 0, notAtLineStart: Bool = false) throws(EdError) -> [Range<Int>?]? {
    guard let compiled = storage.compiled else { throw EdError.interrupted }
    var matches = [regmatch_t](repeating: regmatch_t(), count: groupCount + 1)
    var interrupted: Int32 = 0
    let status = text.withUnsafeBufferPointer { buffer -> Int32 in
      guard let base = buffer.baseAddress else { return 1 }
      return cquire_regexec_interruptible(
        compiled, base + offset, matches.count, &matches, offset > 0 || notAtLineStart ? REG_NOTBOL : 0, hasBackReference ? 1 : 0, &interrupted)
    }
    if interrupted != 0 {
      storage.compiled = try? Self.compile(pattern, cflags: cflags)
      throw EdError.interrupted
    }
    guard status == 0 else { return nil }
    return matches.map { match in
      match.rm_so < 0 ? nil : (offset + Int(match.rm_so))..<(offset + Int(match.rm_eo))
    }
  }

  /// Whether `line` has a match anywhere.
  func matches(_ line: [UInt8]) throws(EdError) -> Bool {
    try line.withUnsafeBufferPointer { line throws(EdError) in try matches(line) }
  }

  /// Whether `line` (its bytes, without a newline) has a match anywhere: `regexec` reads the
  /// bytes in place (`REG_STARTEND`) and computes no groups, unless the line holds a NUL or
  /// the pattern a back reference (those go through ``firstMatch(in:from:notAtLineStart:)``).
  func matches(_ line: UnsafeBufferPointer<UInt8>) throws(EdError) -> Bool {
    guard !hasBackReference, let compiled = storage.compiled, !Self.holdsNUL(line) else {
      return try firstMatch(in: Self.cString(Array(line))) != nil
    }
    return Self.withBytes(line) { base, count in
      var bounds = regmatch_t(rm_so: 0, rm_eo: regoff_t(count))
      return cquire_regexec_utf8(compiled, base, 0, &bounds, REG_STARTEND) == 0
    }
  }

  /// The first match in `line` (its bytes, without a newline) at or after byte `offset`, as
  /// ``firstMatch(in:from:notAtLineStart:)`` finds it in ``cString(_:)-([UInt8])``, without
  /// copying the line (`REG_STARTEND`) unless it holds a NUL or the pattern a back reference.
  func firstMatch(inLine line: UnsafeBufferPointer<UInt8>, from offset: Int = 0, notAtLineStart: Bool = false) throws(EdError) -> [Range<Int>?]? {
    guard !hasBackReference, let compiled = storage.compiled, !Self.holdsNUL(line), offset <= line.count else {
      return try firstMatch(in: Self.cString(Array(line)), from: offset, notAtLineStart: notAtLineStart)
    }
    let count = groupCount + 1
    return Self.withBytes(line) { base, length in
      withUnsafeTemporaryAllocation(of: regmatch_t.self, capacity: count) { matches in
        // The search starts at `offset` as if the line began there (REG_NOTBOL after it), as
        // the copying path does: GNU ed's loop gives regexec the rest of the line.
        matches[0] = regmatch_t(rm_so: 0, rm_eo: regoff_t(length - offset))
        let flags = REG_STARTEND | (offset > 0 || notAtLineStart ? REG_NOTBOL : 0)
        guard cquire_regexec_utf8(compiled, base + offset, count, matches.baseAddress!, flags) == 0 else { return nil }
        return matches.map { match in
          match.rm_so < 0 ? nil : (offset + Int(match.rm_so))..<(offset + Int(match.rm_eo))
        }
      }
    }
  }

  private static func holdsNUL(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
    guard let base = line.baseAddress, !line.isEmpty else { return false }
    return memchr(base, 0, line.count) != nil
  }

  /// Runs `body` with `line`'s bytes as C characters (an empty line as a valid pointer).
  private static func withBytes<R>(_ line: UnsafeBufferPointer<UInt8>, _ body: (UnsafePointer<CChar>, Int) -> R) -> R {
    guard let base = line.baseAddress, !line.isEmpty else {
      var empty: CChar = 0
      return body(&empty, 0)
    }
    return base.withMemoryRebound(to: CChar.self, capacity: line.count) { body($0, line.count) }
  }

  /// Whether `line` has a match anywhere.
  func matches(_ line: String) throws(EdError) -> Bool { try matches(Array(line.utf8)) }

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
