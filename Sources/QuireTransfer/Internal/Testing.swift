/// Hooks for tests; not API.
@_spi(Testing)
public enum TransferTesting {
  /// Makes `call` ("open", "lstat", "mkdir", "connect") fail with `errno` for paths under
  /// `pathPrefix`, until ``removeFailures(under:)``.
  public static func failSystemCall(_ call: String, with errno: Int32, under pathPrefix: String) {
    Syscalls.failures.withLock { $0[pathPrefix] = (call, errno) }
  }

  /// Removes the failures set for `pathPrefix`.
  public static func removeFailures(under pathPrefix: String) {
    _ = Syscalls.failures.withLock { $0.removeValue(forKey: pathPrefix) }
  }
}
