public import Foundation

#if canImport(Glibc)
  import Glibc
#endif

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

extension TransferTesting {
  /// Sends `bytes` to the Unix socket at `path` and returns everything it answers before
  /// closing (at most 1 MiB), or `nil` when it cannot connect. For tests of hostile requests.
  @_spi(Testing)
  public static func exchange(_ bytes: Data, withSocketAt path: String) -> Data? {
    guard case .success(let fd) = Syscalls.connect(to: path) else { return nil }
    defer { Syscalls.close(fd) }
    _ = Syscalls.writeAll(fd, bytes, socket: true)
    var answer = Data()
    var buffer = [UInt8](repeating: 0, count: 65_536)
    // The server closes the connection after its answer, which ends the loop; the long wait only
    // matters on a loaded machine, where a 5 s wait once ran out before the answer came.
    while answer.count < 1 << 20, Syscalls.waitReadable([fd], milliseconds: 60_000)[0] {
      let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      if count <= 0 { break }
      answer.append(contentsOf: buffer[0..<count])
    }
    return answer
  }
}
