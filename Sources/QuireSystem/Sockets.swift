package import Foundation
package import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

extension SystemCalls {
  /// The longest path a Unix socket address holds (107 bytes on Linux).
  package static let socketPathLimit = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

  private static func withAddress<R>(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> Result<R, SyscallFailure> {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count <= socketPathLimit else { return .failure(SyscallFailure(call: "bind", errno: .fileNameTooLong, path: path)) }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      raw.copyBytes(from: bytes)
      raw[bytes.count] = 0
    }
    let result = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    return .success(result)
  }

  private static func makeSocket(_ path: String) -> Result<FileDescriptor, SyscallFailure> {
    retrying("socket", .connect, path: path) { Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) }
      .map(FileDescriptor.init(rawValue:))
  }

  /// A Unix stream socket listening at `path` (mode 0600). A socket left at `path` by an
  /// earlier process is removed first when `replacing`.
  package static func listeningSocket(at path: String, backlog: Int32 = 16, replacing: Bool = false) -> Result<FileDescriptor, SyscallFailure> {
    let fd: FileDescriptor
    switch makeSocket(path) {
    case .success(let made): fd = made
    case .failure(let failure): return .failure(failure)
    }
    if replacing { _ = Glibc.unlink(path) }
    let bound = withAddress(path) { Glibc.bind(fd.rawValue, $0, $1) }.flatMap { result in
      result == 0 ? .success(()) : .failure(SyscallFailure(call: "bind", errno: Errno(rawValue: Glibc.errno), path: path))
    }
    if case .failure(let failure) = bound {
      release(fd)
      return .failure(failure)
    }
    _ = Glibc.chmod(path, 0o600)
    if Glibc.listen(fd.rawValue, backlog) != 0 {
      let failure = SyscallFailure(call: "listen", errno: Errno(rawValue: Glibc.errno), path: path)
      release(fd)
      return .failure(failure)
    }
    return .success(fd)
  }

  /// A Unix stream socket connected to `path`; with `timeout`, its reads and writes give up
  /// after that many seconds.
  package static func connect(to path: String, timeout: Double? = nil) -> Result<FileDescriptor, SyscallFailure> {
    let fd: FileDescriptor
    switch makeSocket(path) {
    case .success(let made): fd = made
    case .failure(let failure): return .failure(failure)
    }
    if let timeout { setTimeout(fd, seconds: timeout) }
    let connected = withAddress(path) { address, length in
      retrying("connect", .connect, path: path) { Glibc.connect(fd.rawValue, address, length) }
    }.flatMap { $0 }
    if case .failure(let failure) = connected {
      release(fd)
      return .failure(failure)
    }
    return .success(fd)
  }

  /// `accept(2)` of one connection, then marked close-on-exec. Not retried after `EINTR`: the caller's
  /// loop decides.
  package static func accept(_ listener: FileDescriptor) -> Result<FileDescriptor, SyscallFailure> {
    let fd = Glibc.accept(listener.rawValue, nil, nil)
    guard fd >= 0 else { return .failure(SyscallFailure(call: "accept", errno: Errno(rawValue: Glibc.errno))) }
    let connection = FileDescriptor(rawValue: fd)
    setCloseOnExec(connection)
    return .success(connection)
  }

  /// Stops a listening or connected socket in both directions (wakes a thread in `accept`).
  package static func shutdown(_ fd: FileDescriptor) { _ = Glibc.shutdown(fd.rawValue, Int32(SHUT_RDWR)) }

  /// Gives up reads and writes on socket `fd` after `seconds`.
  package static func setTimeout(_ fd: FileDescriptor, seconds: Double) {
    var value = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - seconds.rounded(.down)) * 1_000_000))
    _ = Glibc.setsockopt(fd.rawValue, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
    _ = Glibc.setsockopt(fd.rawValue, SOL_SOCKET, SO_SNDTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
  }

  /// The user id of the process at the other end of a connected Unix socket (`SO_PEERCRED`).
  package static func peerUserID(_ fd: FileDescriptor) -> Glibc.uid_t? {
    let peerCredentials: Int32 = 17  // SO_PEERCRED; struct ucred needs _GNU_SOURCE
    var credentials: (Int32, UInt32, UInt32) = (0, 0, 0)  // struct ucred { pid, uid, gid }
    var length = socklen_t(MemoryLayout.size(ofValue: credentials))
    guard Glibc.getsockopt(fd.rawValue, SOL_SOCKET, peerCredentials, &credentials, &length) == 0 else { return nil }
    return credentials.1
  }

  /// Waits until any of `fds` is readable or `milliseconds` pass; which ones are readable.
  package static func waitReadable(_ fds: [FileDescriptor], milliseconds: Int32) -> [Bool] {
    var polls = fds.map { pollfd(fd: $0.rawValue, events: Int16(POLLIN), revents: 0) }
    let result = Glibc.poll(&polls, nfds_t(polls.count), milliseconds)
    if result <= 0 { return fds.map { _ in false } }
    return polls.map { $0.revents != 0 }
  }

  /// `recv(2)` into `buffer`; 0 when the peer closed the connection.
  package static func receive(_ fd: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer) -> Result<Int, SyscallFailure> {
    retrying("recv", .read, in: fd) { Glibc.recv(fd.rawValue, buffer.baseAddress, buffer.count, 0) }
  }

  /// A pipe (both ends close-on-exec); `nonBlocking` sets `O_NONBLOCK` on both.
  package static func pipe(nonBlocking: Bool = false) -> Result<(read: FileDescriptor, write: FileDescriptor), SyscallFailure> {
    var ends: [Int32] = [-1, -1]
    if Glibc.pipe(&ends) != 0 { return .failure(SyscallFailure(call: "pipe", errno: Errno(rawValue: Glibc.errno))) }
    let pair = (read: FileDescriptor(rawValue: ends[0]), write: FileDescriptor(rawValue: ends[1]))
    for end in [pair.read, pair.write] {
      setCloseOnExec(end)
      if nonBlocking { setNonBlocking(end, true) }
    }
    return .success(pair)
  }

  /// Reads one line (up to a newline, at most `limit` bytes) from `fd`; nil at the end, on an
  /// error or a timeout.
  package static func readLine(_ fd: FileDescriptor, limit: Int = 1 << 20) -> String? {
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while bytes.count < limit {
      guard case .success(let n) = chunk.withUnsafeMutableBytes({ read(fd, into: $0) }), n > 0 else { return nil }
      bytes += chunk.prefix(n)
      if let end = bytes.firstIndex(of: 10) { return String(decoding: bytes[..<end], as: UTF8.self) }
    }
    return nil
  }
}
