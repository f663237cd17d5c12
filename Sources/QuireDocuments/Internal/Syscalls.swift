import CQuireSystem
import Foundation
import Synchronization
public import SystemPackage

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One step of saving or reading a file, as the fault-injection hook names it.
///
/// Every file-system call that a save makes goes through ``Syscalls`` tagged with its step, so
/// a test can make exactly that step fail.
@_spi(Testing) public enum SaveStep: String, Sendable, CaseIterable, CustomStringConvertible {
  /// Opening the folder that holds the file (`open(2)` with `O_DIRECTORY`).
  case openFolder
  /// Reading the target's metadata (`fstatat(2)`, `fstat(2)`).
  case inspect
  /// Creating the temporary or backup file beside the target (`openat(2)`, `O_CREAT|O_EXCL`).
  case create
  /// Opening an existing file (`openat(2)` without `O_CREAT`).
  case open
  /// Reading bytes (`read(2)`).
  case read
  /// Writing bytes (`write(2)`, `pwrite(2)`).
  case write
  /// Cutting a file written in place to its new length (`ftruncate(2)`).
  case truncate
  /// Flushing a file's data to the disk (`fsync(2)`).
  case flush
  /// Restoring the old permission bits (`fchmod(2)`).
  case keepMode
  /// Restoring the old owner and group (`fchown(2)`).
  case keepOwner
  /// Closing a written file (`close(2)`, which can report a deferred write error).
  case close
  /// Putting the new file in place (`renameat2(2)` / `renameat(2)`).
  case rename
  /// Flushing the folder so the rename is on disk (`fsync(2)` on the folder).
  case folderFlush
  /// Removing a temporary or backup file (`unlinkat(2)`).
  case remove
  /// Making a folder (`mkdirat(2)`).
  case makeFolder

  public var description: String { rawValue }
}

/// A plan of failures for the calls made inside one task: `step` fails with `errno` on its
/// `occurrence`-th call (1 = the first).
@_spi(Testing) public struct SyscallFaults: Sendable {
  /// One planned failure.
  public struct Fault: Sendable {
    public var step: SaveStep
    public var errno: Errno
    public var occurrence: Int
    public init(step: SaveStep, errno: Errno, occurrence: Int = 1) {
      self.step = step
      self.errno = errno
      self.occurrence = occurrence
    }
  }

  let faults: [Fault]
  private let counts = Counter()

  /// Makes a plan.
  public init(_ faults: [Fault]) { self.faults = faults }
  /// Makes a plan with one failure.
  public init(failing step: SaveStep, with errno: Errno, occurrence: Int = 1) {
    self.init([Fault(step: step, errno: errno, occurrence: occurrence)])
  }

  /// The steps that were called, in order (for tests that check which steps a save makes).
  public var calledSteps: [SaveStep] { counts.steps }

  func check(_ step: SaveStep) -> Errno? {
    let n = counts.record(step)
    return faults.first { $0.step == step && $0.occurrence == n }?.errno
  }

  /// Runs `body` with this plan active for every save or read made inside it (same task).
  public func run<T>(
    isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T
  ) async rethrows -> T {
    try await Syscalls.$faults.withValue(self, operation: body, isolation: isolation)
  }
}

/// Counts calls per step; shared by the copies of one ``SyscallFaults``.
private final class Counter: Sendable {
  // Mutex-protected: the plan is a task-local value that calls may read from any thread.
  private let state = Mutex<[SaveStep]>([])
  func record(_ step: SaveStep) -> Int {
    state.withLock { steps in
      steps.append(step)
      return steps.count { $0 == step }
    }
  }
  var steps: [SaveStep] { state.withLock { $0 } }
}

/// The raw system calls of saving and reading, in one place.
///
/// Each returns `Result<_, Errno>`, retries `EINTR`, and first asks the task-local fault plan
/// (``SyscallFaults``, tests only) whether this step should fail.
enum Syscalls {
  @TaskLocal static var faults: SyscallFaults?

  private static func call<T>(_ step: SaveStep, _ body: () -> (T?, Int32)) -> Result<T, Errno> {
    if let injected = faults?.check(step) { return .failure(injected) }
    while true {
      let (value, code) = body()
      if let value { return .success(value) }
      if code == EINTR { continue }
      return .failure(Errno(rawValue: code))
    }
  }

  private static func int(_ step: SaveStep, _ body: () -> Int32) -> Result<Int32, Errno> {
    call(step) {
      let r = body()
      return r < 0 ? (nil, errno) : (r, 0)
    }
  }

  static func openFolder(_ path: String) -> Result<FileDescriptor, Errno> {
    int(.openFolder) { open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }.map(FileDescriptor.init(rawValue:))
  }

  /// `openat(2)` of an existing file, never following a symlink in the last component.
  static func openExisting(in folder: FileDescriptor, _ name: String, writing: Bool) -> Result<FileDescriptor, Errno> {
    let flags = (writing ? O_WRONLY : O_RDONLY) | O_CLOEXEC | O_NOFOLLOW
    return int(.open) { openat(folder.rawValue, name, flags) }.map(FileDescriptor.init(rawValue:))
  }

  /// `openat(2)` with `O_CREAT|O_EXCL|O_CLOEXEC`: a new file that nobody else can have opened.
  static func create(in folder: FileDescriptor, _ name: String, mode: mode_t) -> Result<FileDescriptor, Errno> {
    int(.create) { openat(folder.rawValue, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode) }
      .map(FileDescriptor.init(rawValue:))
  }

  static func statAt(_ folder: FileDescriptor, _ name: String) -> Result<Glibc.stat, Errno> {
    var info = Glibc.stat()
    return int(.inspect) { fstatat(folder.rawValue, name, &info, AT_SYMLINK_NOFOLLOW) }.map { _ in info }
  }

  /// `faccessat(2)` with `W_OK` and `AT_EACCESS`: may this process write the file?
  static func checkWritable(_ folder: FileDescriptor, _ name: String) -> Result<Void, Errno> {
    int(.inspect) { faccessat(folder.rawValue, name, W_OK, AT_EACCESS) }.map { _ in () }
  }

  static func fileStatus(_ fd: FileDescriptor) -> Result<Glibc.stat, Errno> {
    var info = Glibc.stat()
    return int(.inspect) { fstat(fd.rawValue, &info) }.map { _ in info }
  }

  /// Writes all of `bytes` at `offset` (or at the current position when nil).
  static func writeAll(_ fd: FileDescriptor, _ bytes: UnsafeRawBufferPointer, at offset: Int? = nil) -> Result<Void, Errno> {
    var done = 0
    while done < bytes.count {
      let chunk = min(bytes.count - done, 1 << 30)
      let result: Result<Int, Errno> = call(.write) {
        let base = bytes.baseAddress! + done
        let n = offset.map { pwrite(fd.rawValue, base, chunk, off_t($0 + done)) } ?? write(fd.rawValue, base, chunk)
        return n < 0 ? (nil, errno) : (n, 0)
      }
      switch result {
      case .failure(let e): return .failure(e)
      case .success(let n):
        if n == 0 { return .failure(.noSpace) }
        done += n
      }
    }
    return .success(())
  }

  /// Reads what comes next from `fd` into `buffer`: the byte count, 0 at the end.
  static func readSome(_ fd: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer) -> Result<Int, Errno> {
    call(.read) {
      let n = read(fd.rawValue, buffer.baseAddress!, buffer.count)
      return n < 0 ? (nil, errno) : (n, 0)
    }
  }

  /// Reads the whole file from the start into `Data` (no intermediate copy).
  static func readAllData(_ fd: FileDescriptor, sizeHint: Int) -> Result<Data, Errno> {
    var data = Data(count: max(sizeHint, 0) + 1)
    var filled = 0
    while true {
      if filled == data.count { data.count += max(data.count, 4096) }
      let result: Result<Int, Errno> = data.withUnsafeMutableBytes { raw in
        call(.read) {
          let n = pread(fd.rawValue, raw.baseAddress! + filled, raw.count - filled, off_t(filled))
          return n < 0 ? (nil, errno) : (n, 0)
        }
      }
      switch result {
      case .failure(let e): return .failure(e)
      case .success(0):
        data.count = filled
        return .success(data)
      case .success(let n): filled += n
      }
    }
  }

  /// Reads the whole file from the start.
  static func readAll(_ fd: FileDescriptor, sizeHint: Int) -> Result<[UInt8], Errno> {
    var buffer = [UInt8](repeating: 0, count: max(sizeHint, 0) + 1)
    var filled = 0
    while true {
      if filled == buffer.count { buffer.append(contentsOf: repeatElement(0, count: max(buffer.count, 4096))) }
      let result: Result<Int, Errno> = buffer.withUnsafeMutableBytes { raw in
        call(.read) {
          let n = pread(fd.rawValue, raw.baseAddress! + filled, raw.count - filled, off_t(filled))
          return n < 0 ? (nil, errno) : (n, 0)
        }
      }
      switch result {
      case .failure(let e): return .failure(e)
      case .success(0):
        buffer.removeSubrange(filled...)
        return .success(buffer)
      case .success(let n): filled += n
      }
    }
  }

  static func truncate(_ fd: FileDescriptor, to length: Int) -> Result<Void, Errno> {
    int(.truncate) { ftruncate(fd.rawValue, off_t(length)) }.map { _ in () }
  }

  static func flush(_ fd: FileDescriptor, folder: Bool = false) -> Result<Void, Errno> {
    int(folder ? .folderFlush : .flush) { fsync(fd.rawValue) }.map { _ in () }
  }

  static func changeMode(_ fd: FileDescriptor, _ mode: mode_t) -> Result<Void, Errno> {
    int(.keepMode) { fchmod(fd.rawValue, mode) }.map { _ in () }
  }

  static func changeOwner(_ fd: FileDescriptor, _ uid: uid_t, _ gid: gid_t) -> Result<Void, Errno> {
    int(.keepOwner) { fchown(fd.rawValue, uid, gid) }.map { _ in () }
  }

  /// `close(2)`; never retried (the descriptor is gone after EINTR on Linux).
  static func close(_ fd: FileDescriptor) -> Result<Void, Errno> {
    if let injected = faults?.check(.close) {
      _ = Glibc.close(fd.rawValue)
      return .failure(injected)
    }
    return Glibc.close(fd.rawValue) == 0 || errno == EINTR ? .success(()) : .failure(Errno(rawValue: errno))
  }

  /// `close(2)` of a descriptor only read from, whose result does not matter (not a save step).
  static func release(_ fd: FileDescriptor) {
    _ = Glibc.close(fd.rawValue)
  }

  /// Swaps two names atomically (`renameat2(RENAME_EXCHANGE)`).
  static func exchange(_ folder: FileDescriptor, _ a: String, _ b: String) -> Result<Void, Errno> {
    int(.rename) { cquire_renameat2(folder.rawValue, a, folder.rawValue, b, cquire_RENAME_EXCHANGE) }.map { _ in () }
  }

  /// Moves `from` to `to`, which must not exist (`renameat2(RENAME_NOREPLACE)`).
  static func renameNoReplace(_ folder: FileDescriptor, _ from: String, _ to: String) -> Result<Void, Errno> {
    int(.rename) { cquire_renameat2(folder.rawValue, from, folder.rawValue, to, cquire_RENAME_NOREPLACE) }.map { _ in () }
  }

  /// Plain `renameat(2)`, for file systems without `renameat2`.
  static func rename(_ folder: FileDescriptor, _ from: String, _ to: String) -> Result<Void, Errno> {
    int(.rename) { renameat(folder.rawValue, from, folder.rawValue, to) }.map { _ in () }
  }

  static func remove(_ folder: FileDescriptor, _ name: String) -> Result<Void, Errno> {
    int(.remove) { unlinkat(folder.rawValue, name, 0) }.map { _ in () }
  }

  static func makeFolder(_ folder: FileDescriptor, _ name: String, mode: mode_t) -> Result<Void, Errno> {
    int(.makeFolder) { mkdirat(folder.rawValue, name, mode) }.map { _ in () }
  }

  /// The real path of `path` with every symlink resolved, or nil when it does not exist.
  static func resolvedPath(_ path: String) -> String? {
    guard let resolved = realpath(path, nil) else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
  }
}
