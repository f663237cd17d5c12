internal import CQuireSystem
import Foundation
import Synchronization
import SystemPackage

/// The raw system calls of the coordination module: each retries `EINTR` and returns
/// `Result<_, Errno>`. Tests force failures through ``SyscallFaults``.
enum Syscalls {
  /// The byte-range lock kinds of `fcntl(2)`.
  enum LockKind {
    case read, write

    var rawValue: Int16 { self == .read ? Int16(F_RDLCK) : Int16(F_WRLCK) }
  }

  /// `open(2)` with `O_CLOEXEC | O_NOFOLLOW` always added.
  static func open(_ path: String, _ flags: Int32, mode: mode_t = 0o600) -> Result<Int32, Errno> {
    if let forced = SyscallFaults.error(for: path) { return .failure(forced) }
    while true {
      let fd = Glibc.open(path, flags | O_CLOEXEC | O_NOFOLLOW, mode)
      if fd >= 0 { return .success(fd) }
      if errno != EINTR { return .failure(Errno(rawValue: errno)) }
    }
  }

  /// `open(2)` with `O_PATH`: a descriptor that names an item (file or folder) without
  /// reading it; `/proc/self/fd/N` then says where the item is now.
  static func openPath(_ path: String) -> Result<Int32, Errno> {
    while true {
      let fd = Glibc.open(path, cquire_O_PATH | O_CLOEXEC | O_NOFOLLOW)
      if fd >= 0 { return .success(fd) }
      if errno != EINTR { return .failure(Errno(rawValue: errno)) }
    }
  }

  /// `lstat(2)`.
  static func lstat(_ path: String) -> Result<stat, Errno> {
    var info = stat()
    if Glibc.lstat(path, &info) == 0 { return .success(info) }
    return .failure(Errno(rawValue: errno))
  }

  /// `fstat(2)`.
  static func fstat(_ fd: Int32) -> Result<stat, Errno> {
    var info = stat()
    if Glibc.fstat(fd, &info) == 0 { return .success(info) }
    return .failure(Errno(rawValue: errno))
  }

  /// Places an open-file-description lock (`F_OFD_SETLK`) on `length` bytes at `start`.
  /// Returns false when another open file description holds a conflicting lock.
  static func lock(_ fd: Int32, _ kind: LockKind, start: Int, length: Int = 1) -> Result<Bool, Errno> {
    var region = flock()
    region.l_type = kind.rawValue
    region.l_whence = Int16(SEEK_SET)
    region.l_start = off_t(start)
    region.l_len = off_t(length)
    region.l_pid = 0
    while true {
      if fcntl(fd, cquire_F_OFD_SETLK, &region) == 0 { return .success(true) }
      switch errno {
      case EINTR: continue
      case EAGAIN, EACCES: return .success(false)
      default: return .failure(Errno(rawValue: errno))
      }
    }
  }

  /// Removes this open file description's lock on `length` bytes at `start`.
  static func unlock(_ fd: Int32, start: Int, length: Int = 1) {
    var region = flock()
    region.l_type = Int16(F_UNLCK)
    region.l_whence = Int16(SEEK_SET)
    region.l_start = off_t(start)
    region.l_len = off_t(length)
    _ = fcntl(fd, cquire_F_OFD_SETLK, &region)
  }

  /// Whether another open file description holds a lock that conflicts with `kind` on the
  /// byte at `start` (`F_OFD_GETLK`). OFD locks report no pid, so holders are recorded in the
  /// lock file itself.
  static func isLockedByOthers(_ fd: Int32, against kind: LockKind, start: Int) -> Result<Bool, Errno> {
    var region = flock()
    region.l_type = kind.rawValue
    region.l_whence = Int16(SEEK_SET)
    region.l_start = off_t(start)
    region.l_len = 1
    region.l_pid = 0
    while true {
      if fcntl(fd, cquire_F_OFD_GETLK, &region) == 0 { return .success(region.l_type != Int16(F_UNLCK)) }
      if errno != EINTR { return .failure(Errno(rawValue: errno)) }
    }
  }

  /// `pwrite(2)` of all of `bytes` at `offset`.
  static func write(_ fd: Int32, _ bytes: [UInt8], at offset: Int) -> Result<Void, Errno> {
    var done = 0
    while done < bytes.count {
      let n = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress! + done, bytes.count - done, off_t(offset + done)) }
      if n < 0 {
        if errno == EINTR { continue }
        return .failure(Errno(rawValue: errno))
      }
      done += n
    }
    return .success(())
  }

  /// `pread(2)` of up to `count` bytes at `offset`.
  static func read(_ fd: Int32, count: Int, at offset: Int) -> [UInt8] {
    var buffer = [UInt8](repeating: 0, count: count)
    while true {
      let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress!, count, off_t(offset)) }
      if n >= 0 { return Array(buffer.prefix(n)) }
      if errno != EINTR { return [] }
    }
  }

  /// Where the item that `fd` names is now (`readlink` of `/proc/self/fd/N`), and whether it
  /// has been unlinked.
  static func currentPath(of fd: Int32) -> (path: String, isDeleted: Bool)? {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 16)
    let n = readlink("/proc/self/fd/\(fd)", &buffer, buffer.count - 1)
    guard n > 0 else { return nil }
    let text = String(decoding: buffer.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    if text.hasSuffix(" (deleted)") { return (String(text.dropLast(10)), true) }
    if case .success(let info) = fstat(fd), info.st_nlink == 0 { return (text, true) }
    return (text, false)
  }

  /// The program name of process `pid` (`/proc/PID/comm`), or nil when it is gone.
  static func programName(of pid: Int32) -> String? {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8) else { return nil }
    return text.trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// Whether process `pid` exists (`kill(pid, 0)`; EPERM means it exists under another user).
  static func processExists(_ pid: Int32) -> Bool {
    pid > 0 && (kill(pid, 0) == 0 || errno == EPERM)
  }

  /// This process's program name.
  static let ownProgramName: String = programName(of: getpid()) ?? "unknown"
}

/// Failures that tests force on system calls under a path prefix, so that EACCES, ENOSPC and
/// friends can be driven without root-proof permissions. Only paths under a registered
/// prefix are affected, so tests running in parallel do not disturb one another.
@_spi(Testing) public enum SyscallFaults {
  private static let faults = Mutex<[(prefix: String, errno: Errno)]>([])

  /// Makes `open` (except `O_PATH` opens), the `openat`/`mkdirat` that make the lock and
  /// presenter folders, and inotify watches of every path under `prefix` fail with `code`.
  public static func inject(errno code: Int32, under prefix: String) {
    faults.withLock { $0.append((prefix, Errno(rawValue: code))) }
  }

  /// Removes the faults under `prefix`.
  public static func clear(under prefix: String) {
    faults.withLock { $0.removeAll { $0.prefix == prefix } }
  }

  static func error(for path: String) -> Errno? {
    #if DEBUG
      return faults.withLock { list in list.first { path == $0.prefix || path.hasPrefix($0.prefix + "/") }?.errno }
    #else
      return nil  // the hook is for tests, which build in debug
    #endif
  }
}

/// Where the module runs work that blocks (socket round trips to presenters, waits for their
/// answers). A queue made with a label gets its own threads when its work blocks, unlike
/// `DispatchQueue.global()`, whose threads are as many as the cores and would starve.
enum Blocking {
  static let queue = DispatchQueue(label: "quire.coordination.blocking", attributes: .concurrent)
}
