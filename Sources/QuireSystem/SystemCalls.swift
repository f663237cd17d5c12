internal import CQuireSystem
package import Foundation
package import SystemPackage

#if canImport(Glibc)
  package import Glibc
#endif

/// A file's metadata as `stat(2)` returns it.
package typealias FileStatus = Glibc.stat

// The C functions, named through their types: inside ``SystemCalls`` the bare names are its
// own methods, and `Glibc.stat` is also the struct.
private let cStat: @Sendable (UnsafePointer<CChar>, UnsafeMutablePointer<FileStatus>) -> Int32 = stat
private let cLstat: @Sendable (UnsafePointer<CChar>, UnsafeMutablePointer<FileStatus>) -> Int32 = lstat
private let cFstat: @Sendable (Int32, UnsafeMutablePointer<FileStatus>) -> Int32 = fstat

/// The package's system calls: the only place that calls the C library for files,
/// descriptors, links, locks, sockets and processes (see this folder's README for the few
/// exceptions elsewhere).
///
/// One rule for all of them: a call that fails with `EINTR` is made again (except `close`,
/// whose descriptor is gone after `EINTR` on Linux); `errno` is read at once and returned as a
/// ``SyscallFailure`` that names the call and the path; and before calling, each asks the
/// task's ``FaultPlan`` (tests only) whether it should fail instead. Descriptors are
/// swift-system `FileDescriptor`s and are opened with `O_CLOEXEC`.
package enum SystemCalls {
  // MARK: The one rule

  /// Calls `body` until it returns something other than a failure with `EINTR`.
  @inline(__always)
  static func retrying<T: BinaryInteger>(
    _ call: String, _ operation: SystemStep?, path: String? = nil, in folder: FileDescriptor? = nil, _ body: () -> T
  ) -> Result<T, SyscallFailure> {
    if let operation, let injected = FaultPlan.failure(operation, path: path, in: folder) {
      return .failure(SyscallFailure(call: call, errno: injected, path: path))
    }
    while true {
      let result = body()
      if result >= 0 { return .success(result) }
      let code = Glibc.errno
      if code != EINTR { return .failure(SyscallFailure(call: call, errno: Errno(rawValue: code), path: path)) }
    }
  }

  @inline(__always)
  static func void<T: BinaryInteger>(_ result: Result<T, SyscallFailure>) -> Result<Void, SyscallFailure> {
    result.map { _ in () }
  }

  // MARK: Opening and closing

  /// The operation an open with `flags` is, for fault plans.
  static func operation(forOpen flags: Int32) -> SystemStep {
    if flags & O_CREAT != 0 { return .create }
    if flags & O_DIRECTORY != 0 { return .openFolder }
    return .open
  }

  /// `open(2)`; `O_CLOEXEC` is always added.
  package static func open(_ path: FilePath, _ flags: Int32, mode: Glibc.mode_t = 0o600, as operation: SystemStep? = nil)
    -> Result<FileDescriptor, SyscallFailure>
  {
    path.withPlatformString { cPath in
      retrying("open", operation ?? Self.operation(forOpen: flags), path: path.string) { Glibc.open(cPath, flags | O_CLOEXEC, mode) }
    }.map(FileDescriptor.init(rawValue:))
  }

  /// `openat(2)` of `name` in `folder`; `O_CLOEXEC` is always added. `path` (the full path)
  /// is for messages and fault plans.
  package static func open(
    _ name: String, in folder: FileDescriptor, _ flags: Int32, mode: Glibc.mode_t = 0o600, as operation: SystemStep? = nil, path: String? = nil
  ) -> Result<FileDescriptor, SyscallFailure> {
    retrying("openat", operation ?? Self.operation(forOpen: flags), path: path ?? name, in: path == nil ? folder : nil) {
      PathText.withCString(name) { Glibc.openat(folder.rawValue, $0, flags | O_CLOEXEC, mode) }
    }.map(FileDescriptor.init(rawValue:))
  }

  /// Opens `relative` (a path of names inside `folder`, any bytes) *beneath* `folder`, through
  /// no symbolic link: `openat2(2)` with `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS` (a `..` or an
  /// absolute path that leaves the folder is `EXDEV`; any link on the way, the last name too,
  /// is `ELOOP`). On a kernel without `openat2` (before 5.6) the names are opened one at a
  /// time with `O_NOFOLLOW`, `..` refused, to the same effect. `O_CLOEXEC` is always added.
  /// `path` (the full path) is for messages and fault plans.
  package static func openBeneath(_ relative: String, in folder: FileDescriptor, _ flags: Int32, mode: Glibc.mode_t = 0o600, path: String? = nil)
    -> Result<FileDescriptor, SyscallFailure>
  {
    let opened = retrying("openat2", operation(forOpen: flags), path: path ?? relative) {
      PathText.withCString(relative) { cquire_open_beneath(folder.rawValue, $0, flags, UInt32(mode)) }
    }
    guard case .failure(let failure) = opened, failure.errno == .noFunction else { return opened.map(FileDescriptor.init(rawValue:)) }
    // No openat2: one name at a time, never following a link.
    let names = relative.split(separator: "/").map(String.init)
    guard !names.isEmpty, !relative.hasPrefix("/"), !names.contains("..") else {
      return .failure(SyscallFailure(call: "openat", errno: .improperLink, path: path ?? relative))
    }
    var current = folder
    var owned: FileDescriptor? = nil
    defer { if let owned { release(owned) } }
    for name in names.dropLast() where name != "." {
      switch open(name, in: current, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, as: .openFolder, path: path ?? relative) {
      case .success(let next):
        if let owned { release(owned) }
        (current, owned) = (next, next)
      case .failure(let failure): return .failure(failure)
      }
    }
    return open(names[names.count - 1], in: current, flags | O_NOFOLLOW, mode: mode, path: path ?? relative)
  }

  /// `O_PATH`, for ``openBeneath(_:in:_:mode:path:)`` of an item only to name it.
  package static let pathOnly = cquire_O_PATH

  /// Raises the soft limit on open descriptors (`RLIMIT_NOFILE`) to the hard limit, and
  /// returns the soft limit now in force (`nil` when it cannot be read).
  package static func raiseDescriptorLimit() -> Int? {
    let limit = cquire_raise_descriptor_limit()
    return limit < 0 ? nil : Int(limit)
  }

  /// `open(2)` with `O_PATH`: a descriptor that names an item without reading it;
  /// `/proc/self/fd/N` then says where the item is now.
  /// Not a step a ``FaultPlan`` can fail: it reads nothing and only names the item.
  package static func openPath(_ path: FilePath, followingLinks: Bool = false) -> Result<FileDescriptor, SyscallFailure> {
    let flags = cquire_O_PATH | O_CLOEXEC | (followingLinks ? 0 : O_NOFOLLOW)
    return path.withPlatformString { cPath in retrying("open", nil, path: path.string) { Glibc.open(cPath, flags) } }
      .map(FileDescriptor.init(rawValue:))
  }

  /// `close(2)` of a written file, whose result matters (a deferred write error). Never retried.
  package static func close(_ fd: FileDescriptor) -> Result<Void, SyscallFailure> {
    if let injected = FaultPlan.failure(.close, in: fd) {
      _ = Glibc.close(fd.rawValue)
      return .failure(SyscallFailure(call: "close", errno: injected))
    }
    if Glibc.close(fd.rawValue) == 0 { return .success(()) }
    let code = Glibc.errno
    return code == EINTR ? .success(()) : .failure(SyscallFailure(call: "close", errno: Errno(rawValue: code)))
  }

  /// `close(2)` of a descriptor whose result does not matter (only read from, or a socket).
  package static func release(_ fd: FileDescriptor) { _ = Glibc.close(fd.rawValue) }

  /// Marks `fd` close-on-exec (`fcntl(F_SETFD)`), for descriptors made by calls without a flag for it.
  package static func setCloseOnExec(_ fd: FileDescriptor) { _ = Glibc.fcntl(fd.rawValue, F_SETFD, FD_CLOEXEC) }

  /// Sets or clears `O_NONBLOCK` on `fd` (`fcntl(F_SETFL)`).
  package static func setNonBlocking(_ fd: FileDescriptor, _ on: Bool) {
    let flags = Glibc.fcntl(fd.rawValue, F_GETFL)
    guard flags >= 0 else { return }
    _ = Glibc.fcntl(fd.rawValue, F_SETFL, on ? flags | O_NONBLOCK : flags & ~O_NONBLOCK)
  }

  // MARK: Metadata

  /// `stat(2)`, following symbolic links.
  package static func stat(_ path: FilePath) -> Result<FileStatus, SyscallFailure> {
    var info = FileStatus()
    return path.withPlatformString { cPath in retrying("stat", .inspect, path: path.string) { cStat(cPath, &info) } }.map { _ in info }
  }

  /// `lstat(2)`: a final symbolic link is described, not followed.
  package static func lstat(_ path: FilePath) -> Result<FileStatus, SyscallFailure> {
    var info = FileStatus()
    return path.withPlatformString { cPath in retrying("lstat", .inspect, path: path.string) { cLstat(cPath, &info) } }.map { _ in info }
  }

  /// `fstat(2)`.
  /// Whether `fd` is a regular file (`fstat(2)`); false when it cannot be looked at.
  package static func isRegularFile(_ fd: FileDescriptor) -> Bool {
    guard case .success(let info) = fstat(fd) else { return false }
    return info.st_mode & S_IFMT == S_IFREG
  }

  package static func fstat(_ fd: FileDescriptor) -> Result<FileStatus, SyscallFailure> {
    var info = FileStatus()
    return retrying("fstat", .inspect, in: fd) { cFstat(fd.rawValue, &info) }.map { _ in info }
  }

  /// `statfs(2)`: the magic number (`f_type`) of the file system that holds `path`
  /// (following symbolic links): `NFS_SUPER_MAGIC`, `FUSE_SUPER_MAGIC`, …
  package static func fileSystemType(_ path: FilePath) -> Result<Int64, SyscallFailure> {
    var type: Int64 = 0
    return path.withPlatformString { cPath in retrying("statfs", .inspect, path: path.string) { cquire_statfs_type(cPath, &type) } }.map { _ in type }
  }

  /// `fstatat(2)` of `name` in `folder`, not following a final symbolic link.
  package static func lstat(_ name: String, in folder: FileDescriptor, path: String? = nil) -> Result<FileStatus, SyscallFailure> {
    var info = FileStatus()
    return retrying("fstatat", .inspect, path: path ?? name, in: path == nil ? folder : nil) {
      PathText.withCString(name) { Glibc.fstatat(folder.rawValue, $0, &info, AT_SYMLINK_NOFOLLOW) }
    }.map { _ in
      info
    }
  }

  /// `faccessat(2)` with `W_OK` and `AT_EACCESS`: may this process write `name`?
  package static func checkWritable(_ name: String, in folder: FileDescriptor) -> Result<Void, SyscallFailure> {
    void(retrying("faccessat", .inspect, path: name, in: folder) { PathText.withCString(name) { Glibc.faccessat(folder.rawValue, $0, W_OK, AT_EACCESS) } })
  }

  /// The target of the symbolic link at `path`, or nil when it is not one (both `PathText`
  /// strings: a target that is not UTF-8 keeps its bytes).
  package static func readLink(_ path: String) -> String? {
    readLink(PathText.path(path)).map(PathText.string)
  }

  /// The real path of `path` with every symbolic link resolved, or nil when it does not exist
  /// (both `PathText` strings).
  package static func resolvedPath(_ path: String) -> String? {
    resolvedPath(PathText.path(path)).map(PathText.string)
  }

  /// Where the item that `fd` names is now (`readlink` of `/proc/self/fd/N`, with its bytes:
  /// a name that is not UTF-8 stays exact), and whether it has been unlinked.
  package static func currentPath(of fd: FileDescriptor) -> (path: FilePath, isDeleted: Bool)? {
    guard let link = readLink(FilePath("/proc/self/fd/\(fd.rawValue)")) else { return nil }
    var bytes = link.withPlatformString { Array(UnsafeRawBufferPointer(start: $0, count: strlen($0))) }
    let deletedMark = Array(" (deleted)".utf8)
    let isMarked = bytes.count > deletedMark.count && bytes.suffix(deletedMark.count).elementsEqual(deletedMark)
    if isMarked { bytes.removeLast(deletedMark.count) }
    bytes.append(0)
    let path = bytes.withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { FilePath(platformString: $0.baseAddress!) } }
    if isMarked { return (path, true) }
    if case .success(let info) = fstat(fd), info.st_nlink == 0 { return (path, true) }
    return (path, false)
  }

  // MARK: Reading and writing

  /// `read(2)` into `buffer`; 0 at the end of the file.
  package static func read(_ fd: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer) -> Result<Int, SyscallFailure> {
    retrying("read", .read, in: fd) { Glibc.read(fd.rawValue, buffer.baseAddress, buffer.count) }
  }

  /// `pread(2)` into `buffer` at `offset`; 0 at the end of the file.
  package static func read(_ fd: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer, at offset: Int) -> Result<Int, SyscallFailure> {
    retrying("pread", .read, in: fd) { Glibc.pread(fd.rawValue, buffer.baseAddress, buffer.count, off_t(offset)) }
  }

  /// Up to `count` bytes at `offset` (fewer at the end of the file; none on an error).
  package static func read(_ fd: FileDescriptor, count: Int, at offset: Int) -> [UInt8] {
    var buffer = [UInt8](repeating: 0, count: count)
    let got = buffer.withUnsafeMutableBytes { read(fd, into: $0, at: offset) }
    guard case .success(let n) = got else { return [] }
    return Array(buffer.prefix(n))
  }

  /// Reads from offset 0 until `buffer` is full, the end of the file, `EAGAIN` or an error;
  /// returns how many bytes were read (for sniffing a file's first bytes).
  package static func readPrefix(_ fd: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer) -> Int {
    guard let base = buffer.baseAddress else { return 0 }
    var total = 0
    while total < buffer.count {
      let got = read(fd, into: UnsafeMutableRawBufferPointer(start: base + total, count: buffer.count - total), at: total)
      guard case .success(let n) = got, n > 0 else { break }
      total += n
    }
    return total
  }

  /// Reads the whole file from offset 0 into `Data` (`sizeHint`: the size `fstat` said).
  package static func readAll(_ fd: FileDescriptor, sizeHint: Int = 0) -> Result<Data, SyscallFailure> {
    var data = Data(count: max(sizeHint, 0) + 1)
    var filled = 0
    while true {
      if filled == data.count { data.count += max(data.count, 4096) }
      let result = data.withUnsafeMutableBytes { raw in
        read(fd, into: UnsafeMutableRawBufferPointer(rebasing: raw[filled...]), at: filled)
      }
      switch result {
      case .failure(let failure): return .failure(failure)
      case .success(0):
        data.count = filled
        return .success(data)
      case .success(let n): filled += n
      }
    }
  }

  /// Writes all of `bytes` at `offset` (`pwrite(2)`) or at the current position when nil
  /// (`write(2)`), in as many calls as it takes. Sockets (`socket: true`) use `send(2)` with
  /// `MSG_NOSIGNAL`, so a peer that is gone is an error rather than `SIGPIPE`.
  package static func writeAll(
    _ fd: FileDescriptor, _ bytes: UnsafeRawBufferPointer, at offset: Int? = nil, socket: Bool = false
  ) -> Result<Void, SyscallFailure> {
    guard let base = bytes.baseAddress else {
      if let injected = FaultPlan.failure(.write, in: fd) { return .failure(SyscallFailure(call: "write", errno: injected)) }
      return .success(())
    }
    var done = 0
    while done < bytes.count {
      let chunk = min(bytes.count - done, 1 << 30)
      let call = socket ? "send" : offset == nil ? "write" : "pwrite"
      let result = retrying(call, .write, in: fd) {
        if socket { return Glibc.send(fd.rawValue, base + done, chunk, Int32(MSG_NOSIGNAL)) }
        if let offset { return Glibc.pwrite(fd.rawValue, base + done, chunk, off_t(offset + done)) }
        return Glibc.write(fd.rawValue, base + done, chunk)
      }
      switch result {
      case .failure(let failure): return .failure(failure)
      case .success(0): return .failure(SyscallFailure(call: call, errno: .noSpace))
      case .success(let n): done += n
      }
    }
    return .success(())
  }

  /// Writes all of `data` (see ``writeAll(_:_:at:socket:)``).
  package static func writeAll(_ fd: FileDescriptor, _ data: some ContiguousBytes, at offset: Int? = nil, socket: Bool = false)
    -> Result<Void, SyscallFailure>
  {
    data.withUnsafeBytes { writeAll(fd, $0, at: offset, socket: socket) }
  }

  /// `lseek(2)`.
  package static func seek(_ fd: FileDescriptor, to offset: Int64, from whence: Int32 = SEEK_SET) -> Result<Int64, SyscallFailure> {
    retrying("lseek", .read, in: fd) { Int64(Glibc.lseek(fd.rawValue, off_t(offset), whence)) }
  }

  /// `ftruncate(2)`.
  package static func truncate(_ fd: FileDescriptor, to length: Int) -> Result<Void, SyscallFailure> {
    void(retrying("ftruncate", .truncate, in: fd) { Glibc.ftruncate(fd.rawValue, off_t(length)) })
  }

  /// `fsync(2)` of a file, or of a folder after a rename in it (`folder: true`).
  package static func flush(_ fd: FileDescriptor, folder: Bool = false) -> Result<Void, SyscallFailure> {
    void(retrying("fsync", folder ? .folderFlush : .flush, in: fd) { Glibc.fsync(fd.rawValue) })
  }

  /// `fchmod(2)`.
  package static func setMode(_ fd: FileDescriptor, _ mode: Glibc.mode_t) -> Result<Void, SyscallFailure> {
    void(retrying("fchmod", .keepMode, in: fd) { Glibc.fchmod(fd.rawValue, mode) })
  }

  /// `chmod(2)` of a path (for sockets, which have no descriptor to `fchmod`).
  package static func setMode(_ path: String, _ mode: Glibc.mode_t) -> Result<Void, SyscallFailure> {
    void(retrying("chmod", .keepMode, path: path) { PathText.withCString(path) { Glibc.chmod($0, mode) } })
  }

  /// `fchown(2)`.
  package static func setOwner(_ fd: FileDescriptor, _ uid: Glibc.uid_t, _ gid: Glibc.gid_t) -> Result<Void, SyscallFailure> {
    void(retrying("fchown", .keepOwner, in: fd) { Glibc.fchown(fd.rawValue, uid, gid) })
  }

  /// `futimens(2)`: sets the modification time, leaving the access time.
  package static func setModificationDate(_ fd: FileDescriptor, _ date: Date) -> Result<Void, SyscallFailure> {
    let seconds = date.timeIntervalSince1970.rounded(.down)
    let nanoseconds = Int((date.timeIntervalSince1970 - seconds) * 1e9)
    var times = [
      timespec(tv_sec: 0, tv_nsec: (1 << 30) - 2),  // UTIME_OMIT: leave the access time
      timespec(tv_sec: Int(seconds), tv_nsec: nanoseconds),
    ]
    return void(retrying("futimens", .keepMode, in: fd) { Glibc.futimens(fd.rawValue, &times) })
  }

  // MARK: Names

  /// `rename(2)`.
  package static func rename(_ from: String, to: String) -> Result<Void, SyscallFailure> {
    void(retrying("rename", .rename, path: to) { PathText.withCString(from) { old in PathText.withCString(to) { Glibc.rename(old, $0) } } })
  }

  /// `renameat(2)`.
  package static func rename(_ from: String, in fromFolder: FileDescriptor, to: String, in toFolder: FileDescriptor)
    -> Result<Void, SyscallFailure>
  {
    void(
      retrying("renameat", .rename, path: to, in: toFolder) {
        PathText.withCString(from) { old in PathText.withCString(to) { Glibc.renameat(fromFolder.rawValue, old, toFolder.rawValue, $0) } }
      })
  }

  /// Swaps two names in `folder` atomically, whatever they are (`renameat2(RENAME_EXCHANGE)`).
  package static func exchange(_ first: String, _ second: String, in folder: FileDescriptor) -> Result<Void, SyscallFailure> {
    void(
      retrying("renameat2", .rename, path: second, in: folder) {
        PathText.withCString(first) { one in
          PathText.withCString(second) { cquire_renameat2(folder.rawValue, one, folder.rawValue, $0, cquire_RENAME_EXCHANGE) }
        }
      })
  }

  /// Moves `from` to `to` in `folder`; fails with `EEXIST` rather than replacing
  /// (`renameat2(RENAME_NOREPLACE)`).
  package static func renameNoReplace(_ from: String, to: String, in folder: FileDescriptor) -> Result<Void, SyscallFailure> {
    void(
      retrying("renameat2", .rename, path: to, in: folder) {
        PathText.withCString(from) { old in PathText.withCString(to) { cquire_renameat2(folder.rawValue, old, folder.rawValue, $0, cquire_RENAME_NOREPLACE) } }
      })
  }

  /// `unlink(2)`.
  package static func remove(_ path: String) -> Result<Void, SyscallFailure> {
    void(retrying("unlink", .remove, path: path) { PathText.withCString(path) { Glibc.unlink($0) } })
  }

  /// `unlinkat(2)` of a file or (`folder: true`) an empty folder.
  package static func remove(_ name: String, in folder: FileDescriptor, isFolder: Bool = false) -> Result<Void, SyscallFailure> {
    void(
      retrying("unlinkat", .remove, path: name, in: folder) { PathText.withCString(name) { Glibc.unlinkat(folder.rawValue, $0, isFolder ? AT_REMOVEDIR : 0) } })
  }

  /// `mkdir(2)`.
  package static func makeFolder(_ path: String, mode: Glibc.mode_t = 0o700) -> Result<Void, SyscallFailure> {
    void(retrying("mkdir", .makeFolder, path: path) { PathText.withCString(path) { Glibc.mkdir($0, mode) } })
  }

  /// `mkdirat(2)`; `path` (the full path) is for messages and fault plans.
  package static func makeFolder(_ name: String, in folder: FileDescriptor, mode: Glibc.mode_t = 0o700, path: String? = nil)
    -> Result<Void, SyscallFailure>
  {
    void(
      retrying("mkdirat", .makeFolder, path: path ?? name, in: path == nil ? folder : nil) {
        PathText.withCString(name) { Glibc.mkdirat(folder.rawValue, $0, mode) }
      })
  }

  /// `symlinkat(2)`: makes `name` in `folder` a symbolic link to `destination`.
  package static func makeSymbolicLink(_ name: String, in folder: FileDescriptor, to destination: String) -> Result<Void, SyscallFailure> {
    void(
      retrying("symlinkat", .link, path: name, in: folder) {
        PathText.withCString(destination) { target in PathText.withCString(name) { Glibc.symlinkat(target, folder.rawValue, $0) } }
      })
  }

  /// `linkat(2)`: makes `name` in `folder` a hard link to the file at `path`.
  package static func makeHardLink(_ name: String, in folder: FileDescriptor, to path: String) -> Result<Void, SyscallFailure> {
    void(
      retrying("linkat", .link, path: name, in: folder) {
        PathText.withCString(path) { target in PathText.withCString(name) { Glibc.linkat(AT_FDCWD, target, folder.rawValue, $0, 0) } }
      })
  }

  // MARK: Copying

  /// How ``copyContents(from:to:)`` copied.
  package enum CopyMethod: Sendable {
    /// The file system shares the blocks (`ioctl(FICLONE)` on btrfs, XFS).
    case reflink
    /// The kernel copied (`sendfile(2)`).
    case kernelCopy
    /// This process read and wrote the bytes.
    case copied
  }

  /// Copies `source` into `destination` (open, empty) without passing the bytes through this
  /// process when it can: a reflink, else `sendfile(2)`, else `read`/`write`.
  package static func copyContents(from source: FileDescriptor, to destination: FileDescriptor) -> Result<CopyMethod, SyscallFailure> {
    if let injected = FaultPlan.failure(.write, in: destination) { return .failure(SyscallFailure(call: "write", errno: injected)) }
    let ficlone: UInt = 0x4004_9409  // _IOW(0x94, 9, int), linux/fs.h
    if Glibc.ioctl(destination.rawValue, ficlone, source.rawValue) == 0 { return .success(.reflink) }
    var usedKernelCopy = true
    while true {
      let copied = Glibc.sendfile(destination.rawValue, source.rawValue, nil, 1 << 30)
      if copied == 0 { break }
      if copied > 0 { continue }
      let code = Glibc.errno
      if code == EINTR { continue }
      if code == EXDEV || code == EINVAL || code == ENOSYS || code == EOPNOTSUPP {
        usedKernelCopy = false
        break
      }
      return .failure(SyscallFailure(call: "sendfile", errno: Errno(rawValue: code)))
    }
    if usedKernelCopy { return .success(.kernelCopy) }
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      let got = buffer.withUnsafeMutableBytes { read(source, into: $0) }
      switch got {
      case .failure(let failure): return .failure(failure)
      case .success(0): return .success(.copied)
      case .success(let count):
        if case .failure(let failure) = buffer.withUnsafeBytes({ writeAll(destination, UnsafeRawBufferPointer(rebasing: $0[0..<count])) }) {
          return .failure(failure)
        }
      }
    }
  }

  /// Copies `source` to `destination` (open, empty) keeping holes: only the data ranges that
  /// `lseek(SEEK_DATA/SEEK_HOLE)` reports are read and written, in 1 MiB chunks. Returns the size.
  package static func copySparse(from source: FileDescriptor, to destination: FileDescriptor, cancelled: () -> Bool = { false })
    -> Result<Int64, SyscallFailure>
  {
    let size: Int64
    switch fstat(source) {
    case .success(let info): size = Int64(info.st_size)
    case .failure(let error): return .failure(error)
    }
    let seekData: Int32 = 3  // SEEK_DATA, SEEK_HOLE: glibc declares them only under _GNU_SOURCE
    let seekHole: Int32 = 4
    let chunk = 1 << 20
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
    defer { buffer.deallocate() }
    var position: Int64 = 0
    var sparse = true
    while position < size {
      if cancelled() { return .failure(SyscallFailure(call: "copy", errno: .canceled)) }
      var dataStart = position
      var dataEnd = size
      if sparse {
        let start = Glibc.lseek(source.rawValue, off_t(position), seekData)
        if start < 0 {
          if Glibc.errno == ENXIO { break }  // only a hole remains
          sparse = false  // the file system cannot say where holes are: copy everything
        } else {
          dataStart = Int64(start)
          let end = Glibc.lseek(source.rawValue, off_t(dataStart), seekHole)
          dataEnd = end < 0 ? size : Int64(end)
        }
      }
      var offset = dataStart
      while offset < dataEnd {
        if cancelled() { return .failure(SyscallFailure(call: "copy", errno: .canceled)) }
        let want = Int(min(Int64(chunk), dataEnd - offset))
        let got: Int
        switch read(source, into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<want]), at: Int(offset)) {
        case .success(let count): got = count
        case .failure(let error): return .failure(error)
        }
        if got == 0 { break }
        if case .failure(let error) = writeAll(destination, UnsafeRawBufferPointer(rebasing: buffer[0..<got]), at: Int(offset)) {
          return .failure(error)
        }
        offset += Int64(got)
      }
      position = max(offset, dataEnd)
    }
    return truncate(destination, to: Int(size)).map { size }
  }

  // MARK: Processes

  /// This process's id.
  package static var processID: Int32 { getpid() }

  /// Whether process `pid` exists (`kill(pid, 0)`; `EPERM` means it exists under another user).
  package static func processExists(_ pid: Int32) -> Bool {
    pid > 0 && (Glibc.kill(pid, 0) == 0 || Glibc.errno == EPERM)
  }

  /// The program name of process `pid` (`/proc/PID/comm`), or nil when it is gone.
  package static func programName(of pid: Int32) -> String? {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8) else { return nil }
    return text.trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// This process's program name.
  package static let ownProgramName: String = programName(of: getpid()) ?? "unknown"
}

extension SystemCalls {
  /// Removes `name` in `folder` and everything under it, never following symbolic links.
  ///
  /// Best effort, and not a ``FaultPlan`` step: it cleans up a temporary tree or an old tree
  /// after a swap, where a failure leaves a hidden item behind but never touches a document.
  package static func removeTree(_ name: String, in folder: FileDescriptor) {
    if PathText.withCString(name, { Glibc.unlinkat(folder.rawValue, $0, 0) }) == 0 { return }
    let fd = PathText.withCString(name) { Glibc.openat(folder.rawValue, $0, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
    guard fd >= 0 else { return }
    if let stream = Glibc.fdopendir(Glibc.dup(fd)) {
      var names: [String] = []
      while let entry = Glibc.readdir(stream) {
        let entryName = withUnsafeBytes(of: entry.pointee.d_name) { raw in
          PathText.string(bytes: raw.prefix(while: { $0 != 0 }))
        }
        if entryName != "." && entryName != ".." { names.append(entryName) }
      }
      Glibc.closedir(stream)
      for entryName in names { removeTree(entryName, in: FileDescriptor(rawValue: fd)) }
    }
    _ = Glibc.close(fd)
    _ = PathText.withCString(name) { Glibc.unlinkat(folder.rawValue, $0, AT_REMOVEDIR) }
  }
}
