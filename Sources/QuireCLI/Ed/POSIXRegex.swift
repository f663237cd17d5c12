internal import CQuireSystem
import Glibc

/// A compiled POSIX basic regular expression (`regcomp(3)` without `REG_EXTENDED`), ed's
/// dialect: `\(…\)`, `\{m,n\}`, back references, bracket expressions with classes.
///
/// Swift's `Regex` does not speak this dialect; the C library does, exactly. The `regex_t`
/// lives in memory this value allocates and is the only owner of: `regfree` runs in `deinit`.
/// Ctrl-C stops a long match (see ``firstMatch(in:from:)``).
/// Not `Sendable`: `regexec` on one `regex_t` from two threads at once is not promised safe.
struct POSIXRegex: ~Copyable {
  /// The `regex_t`, replaced by a fresh compilation after an interrupted match.
  private final class Storage {
    var compiled: UnsafeMutablePointer<regex_t>?
    init(_ compiled: UnsafeMutablePointer<regex_t>) { self.compiled = compiled }
  }
  private let storage: Storage
  private let pattern: [UInt8]
  /// Whether the pattern has a back reference (`\1`…`\9`): only those make glibc's matcher
  /// backtrack for minutes, so only those are matched on a thread Ctrl-C can walk away from.
  private let hasBackReference: Bool
  /// How many `\(…\)` groups the expression has.
  let groupCount: Int

  /// Compiles `pattern`; throws with the C library's message when it is not a valid BRE.
  init(_ pattern: [UInt8]) throws(EdError) {
    let compiled = try Self.compile(pattern)
    self.pattern = pattern
    hasBackReference = zip(pattern, pattern.dropFirst()).contains { $0 == UInt8(ascii: "\\") && (UInt8(ascii: "1")...UInt8(ascii: "9")).contains($1) }
    storage = Storage(compiled)
    groupCount = Int(compiled.pointee.re_nsub)
  }

  private static func compile(_ pattern: [UInt8]) throws(EdError) -> UnsafeMutablePointer<regex_t> {
    let storage = UnsafeMutablePointer<regex_t>.allocate(capacity: 1)
    var cPattern = pattern.map { CChar(bitPattern: $0) }
    cPattern.append(0)
    let status = regcomp(storage, cPattern, 0)
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
  /// runs on a thread of its own (`cquire_regexec_interruptible`) and an interrupt stops the
  /// wait; the abandoned `regex_t` is leaked, as GNU ed leaks regexec's scratch memory, and
  /// the pattern compiled afresh.
  ///
  /// - Parameters:
  ///   - text: The line's bytes followed by a NUL (see ``cString(_:)``).
  ///   - offset: Where to start; when it is not 0, `^` does not match there (`REG_NOTBOL`).
  /// - Returns: The whole match and each group as byte ranges of `text` (a group that did not
  ///   take part is `nil`), or `nil` when nothing matches.
  /// - Throws: ``EdError/interrupted`` when SIGINT stopped the match.
  func firstMatch(in text: [CChar], from offset: Int = 0) throws(EdError) -> [Range<Int>?]? {
    guard let compiled = storage.compiled else { throw EdError.interrupted }
    var matches = [regmatch_t](repeating: regmatch_t(), count: groupCount + 1)
    var interrupted: Int32 = 0
    let status = text.withUnsafeBufferPointer { buffer -> Int32 in
      guard let base = buffer.baseAddress else { return 1 }
      return cquire_regexec_interruptible(
        compiled, base + offset, matches.count, &matches, offset > 0 ? REG_NOTBOL : 0, hasBackReference ? 1 : 0, &interrupted)
    }
    if interrupted != 0 {
      storage.compiled = try? Self.compile(pattern)
      throw EdError.interrupted
    }
    guard status == 0 else { return nil }
    return matches.map { match in
      match.rm_so < 0 ? nil : (offset + Int(match.rm_so))..<(offset + Int(match.rm_eo))
    }
  }

  /// Whether `line` has a match anywhere.
  func matches(_ line: String) throws(EdError) -> Bool {
    try firstMatch(in: Self.cString(line)) != nil
  }

  /// `line` as NUL-terminated bytes for ``firstMatch(in:from:)``.
  static func cString(_ line: String) -> [CChar] {
    var bytes = line.utf8.map { CChar(bitPattern: $0) }
    bytes.append(0)
    return bytes
  }
}
