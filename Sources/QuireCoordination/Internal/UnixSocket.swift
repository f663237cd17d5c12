import Foundation
import QuireTypes
import SystemPackage

/// Unix domain sockets for the presenter registry.
enum UnixSocket {
  enum Outcome { case answered, late, gone }

  static func address(_ path: String) -> sockaddr_un? {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    let capacity = MemoryLayout.size(ofValue: address.sun_path)
    guard bytes.count < capacity else { return nil }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      raw.copyBytes(from: bytes)
      raw[bytes.count] = 0
    }
    return address
  }

  static func listen(at path: String, for url: URL) throws -> Int32 {
    guard var address = address(path) else {
      throw QuireError(
        .limitExceeded,
        "Cannot present \(QuireError.name(url)): the socket path '\(path)' is longer than Unix sockets allow (107 bytes). Set XDG_RUNTIME_DIR to a shorter folder.",
        url: url)
    }
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw failure("socket", path, url) }
    unlink(path)  // a socket left by an earlier process with this pid
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    guard bound == 0, Glibc.listen(fd, 64) == 0 else {
      let error = failure("bind", path, url)
      close(fd)
      throw error
    }
    chmod(path, 0o600)
    return fd
  }

  private static func failure(_ call: String, _ path: String, _ url: URL) -> QuireError {
    let code = Errno(rawValue: errno)
    return QuireError(
      code == .permissionDenied ? .permissionDenied : .systemCallFailed,
      "Cannot present \(QuireError.name(url)): the presenter socket '\(path)' cannot be made (\(code)). Check that XDG_RUNTIME_DIR is writable.",
      url: url, cause: code)
  }

  static func setTimeout(_ fd: Int32, seconds: Double) {
    var value = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - seconds.rounded(.down)) * 1_000_000))
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
  }

  static func readLine(_ fd: Int32, limit: Int = 1 << 20) -> String? {
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while bytes.count < limit {
      let n = read(fd, &chunk, chunk.count)
      if n < 0 && errno == EINTR { continue }
      if n <= 0 { return nil }
      bytes += chunk.prefix(n)
      if let end = bytes.firstIndex(of: 10) { return String(decoding: bytes[..<end], as: UTF8.self) }
    }
    return nil
  }

  static func writeAll(_ fd: Int32, _ text: String) -> Bool {
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
      let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
      if n < 0 && errno == EINTR { continue }
      if n <= 0 { return false }
      bytes = bytes.dropFirst(n)
    }
    return true
  }

  /// Sends `message` and waits up to `timeout` for "ok". With `keepOpen`, the connection is
  /// returned open (answered or late) for the caller to finish and close.
  static func send(_ message: WireMessage, to path: String, timeout: Double, keepOpen: Bool) -> (Outcome, Int32?) {
    guard var address = address(path), let data = try? JSONEncoder().encode(message) else { return (.gone, nil) }
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { return (.gone, nil) }
    setTimeout(fd, seconds: timeout)
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    guard connected == 0, writeAll(fd, String(decoding: data, as: UTF8.self) + "\n") else {
      close(fd)
      return (.gone, nil)
    }
    let outcome: Outcome = readLine(fd) == "ok" ? .answered : .late
    if keepOpen { return (outcome, fd) }
    close(fd)
    return (outcome, nil)
  }
}
