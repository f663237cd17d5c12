public import SystemPackage

/// A system call that failed: the one cause type behind every ``QuireError`` that a system call
/// produced, in every module.
///
/// It names the C call (`renameat2`, `openat`), the `errno` it returned and, when known, the
/// path it concerned. Its description reads `'openat' failed: (13) Permission denied`.
public struct SyscallFailure: Error, Sendable, Hashable, CustomStringConvertible {
  /// The call, e.g. `renameat2`.
  public var call: String
  /// What it returned.
  public var errno: Errno
  /// The path the call was given, when there was one (for messages and fault plans).
  public var path: String?

  /// Makes a failure.
  public init(call: String, errno: Errno, path: String? = nil) {
    self.call = call
    self.errno = errno
    self.path = path
  }

  public var description: String { "'\(call)' failed: (\(errno.rawValue)) \(errno)" }
}

extension SyscallFailure {
  /// Lets a failure match an `errno` in a pattern: `case .failure(.noSuchFileOrDirectory)`.
  /// (Without it, swift-system's `~=(Errno, any Error)` would compile and never match.)
  public static func ~= (pattern: Errno, value: SyscallFailure) -> Bool { pattern == value.errno }
}
