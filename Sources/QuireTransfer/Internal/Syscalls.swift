import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A failed system call: its name and `errno`, e.g. `'openat' failed: (13) Permission denied`.
struct SystemCallError: Error, Sendable, CustomStringConvertible {
  let call: String
  let code: Int32
  var description: String { "'\(call)' failed: (\(code)) \(String(cString: strerror(code)))" }
}

/// The raw system calls of QuireTransfer, in one place.
///
/// Each returns `Result<_, SystemCallError>` and retries `EINTR`. ``failures`` is a hook that
/// tests use to force an errno (EACCES, ENOSPC) from a named call, which running as root
/// cannot otherwise provoke.
enum Syscalls {
  /// Path prefix → (call name, errno) to fail with instead of calling. Empty outside
  /// tests; keyed by path so that tests running in parallel do not disturb each other.
  static let failures = Mutex<[String: (call: String, code: Int32)]>([:])

  /// The errno a test asked `call` to fail with for `path`, if any, for calls made outside
  /// this file (`PrivateFolder`'s `mkdirat`, which tests name "mkdir").
  static func injectedFailure(_ call: String, _ path: String) -> Int32? {
    injected(call, path)?.code
  }

  private static func injected(_ call: String, _ path: String? = nil) -> SystemCallError? {
    #if DEBUG
      return failures.withLock { failures -> SystemCallError? in
        guard !failures.isEmpty, let path else { return nil }
        for (prefix, failure) in failures where failure.call == call && path.hasPrefix(prefix) {
          return SystemCallError(call: call, code: failure.code)
        }
        return nil
      }
    #else
      return nil  // the hook is for tests, which build for debugging
    #endif
  }

  /// Runs `body` until it stops failing with EINTR.
  private static func retrying(_ call: String, path: String? = nil, _ body: () -> Int32) -> Result<Int32, SystemCallError> {
    if let error = injected(call, path) { return .failure(error) }
    while true {
      let result = body()
      if result >= 0 { return .success(result) }
      let code = errno
      if code != EINTR { return .failure(SystemCallError(call: call, code: code)) }
    }
  }

  static func open(_ path: String, _ flags: Int32, _ mode: mode_t = 0) -> Result<Int32, SystemCallError> {
    retrying("open", path: path) { Glibc.open(path, flags | O_CLOEXEC, mode) }
  }

  static func close(_ fd: Int32) { _ = Glibc.close(fd) }

  static func lstat(_ path: String) -> Result<stat, SystemCallError> {
    if let error = injected("lstat", path) { return .failure(error) }
    var info = stat()
    if Glibc.lstat(path, &info) != 0 { return .failure(SystemCallError(call: "lstat", code: errno)) }
    return .success(info)
  }

  static func fstat(_ fd: Int32) -> Result<stat, SystemCallError> {
    var info = stat()
    if Glibc.fstat(fd, &info) != 0 { return .failure(SystemCallError(call: "fstat", code: errno)) }
    return .success(info)
  }

  /// `flock(2)` polled with `LOCK_NB` until it succeeds or `deadline` passes.
  ///
  /// flock locks belong to the open file description, so two opens in one process exclude
  /// each other as two processes do, and the kernel drops them when the process dies.
  static func lock(_ fd: Int32, exclusive: Bool, deadline: ContinuousClock.Instant) -> Result<Void, SystemCallError> {
    let operation = (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB
    var pause: UInt32 = 1_000
    while true {
      switch retrying("flock", { flockCall(fd, operation) }) {
      case .success: return .success(())
      case .failure(let error) where error.code == EWOULDBLOCK:
        if ContinuousClock.now >= deadline { return .failure(error) }
        usleep(pause)
        pause = min(pause * 2, 20_000)
      case .failure(let error): return .failure(error)
      }
    }
  }

  static func unlock(_ fd: Int32) { _ = flockCall(fd, LOCK_UN) }

  /// `flock(2)`; named through its type because `Glibc.flock` is also the `struct flock`.
  private static let flockCall: @Sendable (Int32, Int32) -> Int32 = flock

  /// Reads up to `count` bytes; 0 at the end of the file.
  static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Result<Int, SystemCallError> {
    while true {
      let count = Glibc.read(fd, buffer.baseAddress, buffer.count)
      if count >= 0 { return .success(count) }
      if errno != EINTR { return .failure(SystemCallError(call: "read", code: errno)) }
    }
  }

  /// Writes all of `buffer` (sockets get `MSG_NOSIGNAL` so a gone peer is an error, not SIGPIPE).
  static func writeAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer, socket: Bool = false) -> Result<Void, SystemCallError> {
    guard let base = buffer.baseAddress else { return .success(()) }
    var offset = 0
    while offset < buffer.count {
      let pointer = base + offset
      let written =
        socket
        ? Glibc.send(fd, pointer, buffer.count - offset, Int32(MSG_NOSIGNAL))
        : Glibc.write(fd, pointer, buffer.count - offset)
      if written < 0 {
        if errno == EINTR { continue }
        return .failure(SystemCallError(call: socket ? "send" : "write", code: errno))
      }
      offset += written
    }
    return .success(())
  }

  static func writeAll(_ fd: Int32, _ data: Data, socket: Bool = false) -> Result<Void, SystemCallError> {
    data.withUnsafeBytes { writeAll(fd, $0, socket: socket) }
  }

  /// `SEEK_DATA` and `SEEK_HOLE` (Linux values; glibc declares them only under `_GNU_SOURCE`).
  static let seekData: Int32 = 3
  static let seekHole: Int32 = 4

  /// Whether every byte of `buffer` is zero (`memcmp` against a zeroed page, fast in debug builds).
  static func isAllZero(_ buffer: UnsafeRawBufferPointer) -> Bool {
    guard let base = buffer.baseAddress, buffer.count > 0 else { return true }
    if base.load(as: UInt8.self) != 0 { return false }
    // Compare the buffer with itself shifted by one byte: all equal and the first is zero.
    return memcmp(base, base + 1, buffer.count - 1) == 0
  }

  /// Copies `source` to `destination` (an open, empty file), keeping holes: only the data
  /// ranges that `lseek(SEEK_DATA/SEEK_HOLE)` reports are read and written, in 1 MiB
  /// chunks, so a sparse 1 GB file costs neither 1 GB of memory nor 1 GB of writes.
  static func copyContents(from source: Int32, to destination: Int32, cancelled: () -> Bool = { false })
    -> Result<Int64, SystemCallError>
  {
    let size: Int64
    switch fstat(source) {
    case .success(let info): size = Int64(info.st_size)
    case .failure(let error): return .failure(error)
    }
    let chunk = 1 << 20
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
    defer { buffer.deallocate() }
    var position: Int64 = 0
    var sparse = true
    while position < size {
      if cancelled() { return .failure(SystemCallError(call: "copy", code: ECANCELED)) }
      var dataStart = position
      var dataEnd = size
      if sparse {
        let start = lseek(source, off_t(position), seekData)
        if start < 0 {
          if errno == ENXIO { break }  // only a hole remains
          sparse = false  // the file system cannot say where holes are: copy everything
        } else {
          dataStart = Int64(start)
          let end = lseek(source, off_t(dataStart), seekHole)
          dataEnd = end < 0 ? size : Int64(end)
        }
      }
      if lseek(source, off_t(dataStart), SEEK_SET) < 0 || lseek(destination, off_t(dataStart), SEEK_SET) < 0 {
        return .failure(SystemCallError(call: "lseek", code: errno))
      }
      var offset = dataStart
      while offset < dataEnd {
        if cancelled() { return .failure(SystemCallError(call: "copy", code: ECANCELED)) }
        let want = Int(min(Int64(chunk), dataEnd - offset))
        let got: Int
        switch read(source, into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<want])) {
        case .success(let count): got = count
        case .failure(let error): return .failure(error)
        }
        if got == 0 { break }
        if case .failure(let error) = writeAll(destination, UnsafeRawBufferPointer(rebasing: buffer[0..<got])) {
          return .failure(error)
        }
        offset += Int64(got)
      }
      position = max(offset, dataEnd)
    }
    if ftruncate(destination, off_t(size)) != 0 { return .failure(SystemCallError(call: "ftruncate", code: errno)) }
    return .success(size)
  }

  // MARK: Unix domain sockets

  /// `SO_PEERCRED` (Linux value; `struct ucred` needs `_GNU_SOURCE`).
  private static let peerCredentials: Int32 = 17

  private static func withAddress<R>(
    _ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> R
  ) -> Result<R, SystemCallError> {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
      return .failure(SystemCallError(call: "bind", code: ENAMETOOLONG))
    }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      raw.copyBytes(from: bytes)
      raw[bytes.count] = 0
    }
    let result = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    return .success(result)
  }

  static func listeningSocket(at path: String) -> Result<Int32, SystemCallError> {
    let fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    if fd < 0 { return .failure(SystemCallError(call: "socket", code: errno)) }
    let bound = withAddress(path) { Glibc.bind(fd, $0, $1) }
    switch bound {
    case .failure(let error):
      close(fd)
      return .failure(error)
    case .success(let result) where result != 0:
      let code = errno
      close(fd)
      return .failure(SystemCallError(call: "bind", code: code))
    default: break
    }
    _ = chmod(path, 0o600)
    if Glibc.listen(fd, 16) != 0 {
      let code = errno
      close(fd)
      return .failure(SystemCallError(call: "listen", code: code))
    }
    return .success(fd)
  }

  static func connect(to path: String) -> Result<Int32, SystemCallError> {
    if let error = injected("connect", path) { return .failure(error) }
    let fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    if fd < 0 { return .failure(SystemCallError(call: "socket", code: errno)) }
    switch withAddress(path, { Glibc.connect(fd, $0, $1) }) {
    case .failure(let error):
      close(fd)
      return .failure(error)
    case .success(let result) where result != 0:
      let code = errno
      close(fd)
      return .failure(SystemCallError(call: "connect", code: code))
    default: return .success(fd)
    }
  }

  /// The user id of the process at the other end of a connected Unix socket.
  static func peerUserID(_ fd: Int32) -> uid_t? {
    var credentials: (Int32, UInt32, UInt32) = (0, 0, 0)  // struct ucred { pid, uid, gid }
    var length = socklen_t(MemoryLayout.size(ofValue: credentials))
    guard getsockopt(fd, SOL_SOCKET, peerCredentials, &credentials, &length) == 0 else { return nil }
    return credentials.1
  }

  /// Waits until `fd` is readable or `milliseconds` pass; true when readable.
  static func waitReadable(_ fds: [Int32], milliseconds: Int32) -> [Bool] {
    var polls = fds.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
    let result = Glibc.poll(&polls, nfds_t(polls.count), milliseconds)
    if result <= 0 { return fds.map { _ in false } }
    return polls.map { $0.revents != 0 }
  }
}
