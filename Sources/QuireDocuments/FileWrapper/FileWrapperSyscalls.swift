internal import CQuireSystem
import Foundation
import Glibc
import QuireTypes
import Synchronization
public import SystemPackage

/// The system calls that writing a ``FileWrapper`` (and a ``VersionStore``) makes.
///
/// Every call retries `EINTR`, reads `errno` at once and returns `Result<_, Errno>`. Before
/// each call, the task's ``FileWrapperFaults`` (a task-local, so parallel tests do not see
/// each other's) may make it fail with a chosen `Errno`, so every failure path can be tested,
/// also as root where permissions do not stop anything.
enum FileWrapperSyscalls {
  @TaskLocal static var faults: FileWrapperFaults?

  private static func check(_ operation: FileWrapperFaults.Operation) -> Errno? {
    faults?.shouldFail(operation)
  }

  private static func retrying(_ operation: FileWrapperFaults.Operation, _ body: () -> Int32) -> Result<Int32, Errno> {
    if let injected = check(operation) { return .failure(injected) }
    while true {
      let result = body()
      if result >= 0 { return .success(result) }
      let code = errno
      if code == EINTR { continue }
      return .failure(Errno(rawValue: code))
    }
  }

  static func openat(_ dir: Int32, _ name: String, _ flags: Int32, _ mode: mode_t = 0) -> Result<Int32, Errno> {
    retrying(.open) { Glibc.openat(dir, name, flags | O_CLOEXEC, mode) }
  }

  static func close(_ fd: Int32) { _ = Glibc.close(fd) }

  static func mkdirat(_ dir: Int32, _ name: String, _ mode: mode_t) -> Result<Void, Errno> {
    retrying(.mkdir) { Glibc.mkdirat(dir, name, mode) }.map { _ in () }
  }

  static func symlinkat(_ destination: String, _ dir: Int32, _ name: String) -> Result<Void, Errno> {
    retrying(.symlink) { Glibc.symlinkat(destination, dir, name) }.map { _ in () }
  }

  static func linkat(_ fromPath: String, _ dir: Int32, _ name: String) -> Result<Void, Errno> {
    retrying(.link) { Glibc.linkat(AT_FDCWD, fromPath, dir, name, 0) }.map { _ in () }
  }

  static func renameat(_ fromDir: Int32, _ from: String, _ toDir: Int32, _ to: String) -> Result<Void, Errno> {
    retrying(.rename) { Glibc.renameat(fromDir, from, toDir, to) }.map { _ in () }
  }

  /// `renameat2(2)` with `RENAME_EXCHANGE`: swaps two names at once, whatever they are.
  static func exchange(_ dir: Int32, _ first: String, _ second: String) -> Result<Void, Errno> {
    retrying(.rename) { cquire_renameat2(dir, first, dir, second, cquire_RENAME_EXCHANGE) }.map { _ in () }
  }

  /// `renameat2(2)` with `RENAME_NOREPLACE`: fails with `EEXIST` rather than replacing.
  static func renameNoReplace(_ dir: Int32, _ from: String, _ to: String) -> Result<Void, Errno> {
    retrying(.rename) { cquire_renameat2(dir, from, dir, to, cquire_RENAME_NOREPLACE) }.map { _ in () }
  }

  static func unlinkat(_ dir: Int32, _ name: String, directory: Bool) -> Result<Void, Errno> {
    retrying(.unlink) { Glibc.unlinkat(dir, name, directory ? AT_REMOVEDIR : 0) }.map { _ in () }
  }

  static func fsync(_ fd: Int32) -> Result<Void, Errno> {
    retrying(.fsync) { Glibc.fsync(fd) }.map { _ in () }
  }

  static func fchmod(_ fd: Int32, _ mode: mode_t) -> Result<Void, Errno> {
    retrying(.chmod) { Glibc.fchmod(fd, mode) }.map { _ in () }
  }

  static func setModificationDate(_ fd: Int32, _ date: Date) -> Result<Void, Errno> {
    let seconds = date.timeIntervalSince1970.rounded(.down)
    let nanoseconds = Int((date.timeIntervalSince1970 - seconds) * 1e9)
    var times = [
      timespec(tv_sec: 0, tv_nsec: (1 << 30) - 2),  // UTIME_OMIT: leave the access time
      timespec(tv_sec: Int(seconds), tv_nsec: nanoseconds),
    ]
    return retrying(.chmod) { Glibc.futimens(fd, &times) }.map { _ in () }
  }

  /// Writes all of `data`, in as many `write(2)` calls as it takes.
  static func writeAll(_ fd: Int32, _ data: Data) -> Result<Void, Errno> {
    if let injected = check(.write) { return .failure(injected) }
    return data.withUnsafeBytes { buffer -> Result<Void, Errno> in
      var offset = 0
      while offset < buffer.count {
        let written = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
        if written < 0 {
          let code = errno
          if code == EINTR { continue }
          return .failure(Errno(rawValue: code))
        }
        offset += written
      }
      return .success(())
    }
  }

  /// Copies `source` into `destination` without passing the bytes through this process:
  /// `ioctl(FICLONE)` shares the blocks on btrfs/XFS (a reflink); otherwise
  /// `sendfile(2)` copies inside the kernel; otherwise `read`/`write`.
  /// - Returns: How the copy was made.
  static func cloneOrCopy(from source: Int32, to destination: Int32) -> Result<FileWrapper.ReuseMethod, Errno> {
    if let injected = check(.write) { return .failure(injected) }
    let ficlone: UInt = 0x4004_9409  // _IOW(0x94, 9, int), linux/fs.h
    if Glibc.ioctl(destination, ficlone, source) == 0 { return .success(.reflink) }
    var usedKernelCopy = true
    while true {
      let copied = Glibc.sendfile(destination, source, nil, 1 << 30)
      if copied == 0 { break }
      if copied > 0 { continue }
      let code = errno
      if code == EINTR { continue }
      if code == EXDEV || code == EINVAL || code == ENOSYS || code == EOPNOTSUPP {
        usedKernelCopy = false
        break
      }
      return .failure(Errno(rawValue: code))
    }
    if usedKernelCopy { return .success(.kernelCopy) }
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      let count = buffer.withUnsafeMutableBytes { Glibc.read(source, $0.baseAddress, $0.count) }
      if count == 0 { return .success(.copied) }
      if count < 0 {
        let code = errno
        if code == EINTR { continue }
        return .failure(Errno(rawValue: code))
      }
      let chunk = Data(buffer[0..<count])
      if case .failure(let error) = writeAll(destination, chunk) { return .failure(error) }
    }
  }

  /// `fstatat(2)` without following a final symbolic link.
  static func lstat(_ path: String) -> Result<stat, Errno> {
    var info = stat()
    return retrying(.stat) { Glibc.lstat(path, &info) }.map { _ in info }
  }

  static func fstat(_ fd: Int32) -> Result<stat, Errno> {
    var info = stat()
    return retrying(.stat) { Glibc.fstat(fd, &info) }.map { _ in info }
  }
}

/// Failures to inject into the system calls of ``FileWrapper`` and ``VersionStore`` writes.
///
/// Not public API. Bind one with ``withInjectedFaults(_:_:)`` around the code under test:
/// the binding is task-local, so tests running in parallel do not see each other's faults.
/// It also counts the calls it sees, so a test can first record a clean write and then fail
/// each of its steps in turn.
@_spi(Testing) public final class FileWrapperFaults: Sendable {
  /// The kinds of call that can be failed.
  public enum Operation: String, Sendable, CaseIterable {
    case open, mkdir, symlink, link, rename, unlink, fsync, chmod, write, stat
  }

  private struct State {
    var counts: [Operation: Int] = [:]
    var failing: (Operation, Int, Errno)?
  }
  private let state: Mutex<State>

  /// Counts calls and fails none.
  public init() { state = Mutex(State()) }

  /// Fails the `occurrence`-th call (1-based) of `operation` with `error`.
  public init(failing operation: Operation, onCall occurrence: Int, with error: Errno) {
    state = Mutex(State(failing: (operation, occurrence, error)))
  }

  /// How many calls of each kind were made so far.
  public var callCounts: [Operation: Int] { state.withLock { $0.counts } }

  func shouldFail(_ operation: Operation) -> Errno? {
    state.withLock { state in
      state.counts[operation, default: 0] += 1
      guard let (failing, occurrence, error) = state.failing, failing == operation,
        state.counts[operation] == occurrence
      else { return nil }
      return error
    }
  }
}

/// Runs `body` with `faults` injected into this task's file wrapper and version store writes.
@_spi(Testing) public func withInjectedFaults<R>(_ faults: FileWrapperFaults, _ body: () throws -> R) rethrows -> R {
  try FileWrapperSyscalls.$faults.withValue(faults, operation: body)
}

/// Runs the async `body` with `faults` injected into this task's file wrapper and version
/// store writes (a document's save runs them in the calling task).
@_spi(Testing) public func withInjectedFaults<R>(
  _ faults: FileWrapperFaults, isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> R
) async rethrows -> R {
  try await FileWrapperSyscalls.$faults.withValue(faults, operation: body, isolation: isolation)
}
