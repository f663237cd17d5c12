public import Foundation
import QuireSystem
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// Hooks for tests; not API.
@_spi(Testing)
public enum TransferTesting {
}

extension TransferTesting {
  /// Sends `bytes` to the Unix socket at `path` and returns everything it answers before
  /// closing (at most 1 MiB), or `nil` when it cannot connect. For tests of hostile requests.
  @_spi(Testing)
  public static func exchange(_ bytes: Data, withSocketAt path: String) -> Data? {
    guard case .success(let fd) = SystemCalls.connect(to: path).map(\.rawValue) else { return nil }
    defer { SystemCalls.release(FileDescriptor(rawValue: fd)) }
    _ = SystemCalls.writeAll(FileDescriptor(rawValue: fd), bytes, socket: true)
    var answer = Data()
    var buffer = [UInt8](repeating: 0, count: 65_536)
    // The server closes the connection after its answer, which ends the loop; the long wait only
    // matters on a loaded machine, where a 5 s wait once ran out before the answer came.
    while answer.count < 1 << 20, SystemCalls.waitReadable([fd].map(FileDescriptor.init(rawValue:)), milliseconds: 60_000)[0] {
      guard case .success(let count) = buffer.withUnsafeMutableBytes({ SystemCalls.receive(FileDescriptor(rawValue: fd), into: $0) }), count > 0 else { break }
      answer.append(contentsOf: buffer[0..<count])
    }
    return answer
  }
}
