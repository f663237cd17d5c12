import Foundation
import QuireSystem
import QuireTypes
import SystemPackage

/// Unix domain sockets for the presenter registry.
enum UnixSocket {
  enum Outcome { case answered, late, gone }

  static func listen(at path: String, for url: URL) throws -> Int32 {
    guard path.utf8.count <= SystemCalls.socketPathLimit else {
      throw QuireError(
        .limitExceeded,
        "Cannot present \(QuireError.name(url)): the socket path '\(path)' is longer than Unix sockets allow (107 bytes). Set XDG_RUNTIME_DIR to a shorter folder.",
        url: url)
    }
    // A socket left by an earlier process with this pid is replaced.
    switch SystemCalls.listeningSocket(at: path, backlog: 64, replacing: true) {
    case .success(let fd): return fd.rawValue
    case .failure(let failure):
      throw QuireError(
        failure, while: .create, url: url, role: "the presenter socket '\(path)' for \(QuireError.name(url))",
        advice: "Check that XDG_RUNTIME_DIR is writable.")
    }
  }

  static func setTimeout(_ fd: Int32, seconds: Double) {
    SystemCalls.setTimeout(FileDescriptor(rawValue: fd), seconds: seconds)
  }

  static func readLine(_ fd: Int32, limit: Int = 1 << 20) -> String? {
    SystemCalls.readLine(FileDescriptor(rawValue: fd), limit: limit)
  }

  static func writeAll(_ fd: Int32, _ text: String) -> Bool {
    if case .success = SystemCalls.writeAll(FileDescriptor(rawValue: fd), Array(text.utf8), socket: true) { return true }
    return false
  }

  /// Sends `message` and waits up to `timeout` for "ok". With `keepOpen`, the connection is
  /// returned open (answered or late) for the caller to finish and close.
  static func send(_ message: WireMessage, to path: String, timeout: Double, keepOpen: Bool) -> (Outcome, Int32?) {
    guard let data = try? JSONEncoder().encode(message), case .success(let connection) = SystemCalls.connect(to: path, timeout: timeout) else {
      return (.gone, nil)
    }
    let fd = connection.rawValue
    guard writeAll(fd, String(decoding: data, as: UTF8.self) + "\n") else {
      SystemCalls.release(connection)
      return (.gone, nil)
    }
    let outcome: Outcome = readLine(fd) == "ok" ? .answered : .late
    if keepOpen { return (outcome, fd) }
    SystemCalls.release(connection)
    return (outcome, nil)
  }
}
