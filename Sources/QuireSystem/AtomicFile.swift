package import Foundation
package import SystemPackage

#if canImport(Glibc)
  package import Glibc
#endif

/// The one atomic writer of the package: a file is written beside its destination and renamed
/// over it, so a reader sees the old file or the new one, never a torn one, whatever
/// happens midway (a full disk, a kill, a power cut).
///
/// The steps: open the folder; create a temporary file in it (`O_CREAT | O_EXCL |
/// O_NOFOLLOW`, so nobody else's file is ever written); write; set the mode; `fsync`;
/// `renameat` over the destination; `fsync` the folder so the rename is on disk. On a failure
/// the temporary file is removed and the destination is untouched. Something at the
/// destination that is not a regular file or a symbolic link (a folder, a device, a FIFO, a
/// socket) is refused, never replaced: writing *through* a device or FIFO is `OutputPath`'s
/// decision, made above this layer. `FileSaver` (documents, which also keep owner, mode and
/// links) builds on the same calls.
package enum AtomicFile {
  /// Writes `bytes` to `path` atomically.
  ///
  /// - Parameters:
  ///   - mode: The new file's permission bits (set exactly, whatever the umask).
  ///   - durable: Whether to `fsync` the file and its folder (a cache that can be rebuilt may
  ///     skip the cost; the rename is atomic either way).
  /// - Returns: The failed call: `EISDIR` for a folder at `path`, `EEXIST` for another special
  ///   file there.
  package static func write(_ bytes: some ContiguousBytes, to path: String, mode: Glibc.mode_t = 0o600, durable: Bool = true)
    -> Result<Void, SyscallFailure>
  {
    let target = PathText.path(path)
    guard let name = target.lastComponent.map({ PathText.string(FilePath(root: nil, [$0])) }), !name.isEmpty else {
      return .failure(SyscallFailure(call: "open", errno: .invalidArgument, path: path))
    }
    let folderPath = target.removingLastComponent()
    let folder: FileDescriptor
    switch SystemCalls.open(folderPath.isEmpty ? "." : folderPath, O_RDONLY | O_DIRECTORY) {
    case .success(let opened): folder = opened
    case .failure(let failure): return .failure(failure)
    }
    defer { SystemCalls.release(folder) }
    return write(bytes, named: name, in: folder, mode: mode, durable: durable)
  }

  /// Writes `bytes` atomically as `name` in the open `folder` (for callers that opened the
  /// folder safely themselves, e.g. through `PrivateFolder`). See ``write(_:to:mode:durable:)``.
  package static func write(_ bytes: some ContiguousBytes, named name: String, in folder: FileDescriptor, mode: Glibc.mode_t = 0o600, durable: Bool = true)
    -> Result<Void, SyscallFailure>
  {
    do {
      try write(named: name, in: folder, mode: mode, durable: durable) { fd in try SystemCalls.writeAll(fd, bytes).get() }
      return .success(())
    } catch let failure as SyscallFailure {
      return .failure(failure)
    } catch {
      return .failure(SyscallFailure(call: "write", errno: .ioError, path: name))
    }
  }

  /// Writes a file atomically at `path` with what `produce` writes into the temporary file's
  /// descriptor (a stream of chunks, a copy from another descriptor, a library that writes by
  /// name through `/proc/self/fd/N`): the steps of ``write(_:to:mode:durable:)``, with the
  /// writing left to the caller.
  ///
  /// - Throws: What `produce` throws, or the failed call as a `SyscallFailure`; the temporary
  ///   file is then removed and `path` is untouched.
  package static func write(to path: String, mode: Glibc.mode_t = 0o600, durable: Bool = true, producing produce: (FileDescriptor) throws -> Void) throws {
    let target = PathText.path(path)
    guard let name = target.lastComponent.map({ PathText.string(FilePath(root: nil, [$0])) }), !name.isEmpty else {
      throw SyscallFailure(call: "open", errno: .invalidArgument, path: path)
    }
    let folderPath = target.removingLastComponent()
    let folder = try SystemCalls.open(folderPath.isEmpty ? "." : folderPath, O_RDONLY | O_DIRECTORY).get()
    defer { SystemCalls.release(folder) }
    try write(named: name, in: folder, mode: mode, durable: durable, producing: produce)
  }

  /// ``write(to:mode:durable:producing:)`` of `name` in the open `folder`.
  package static func write(
    named name: String, in folder: FileDescriptor, mode: Glibc.mode_t = 0o600, durable: Bool = true, producing produce: (FileDescriptor) throws -> Void
  ) throws {
    switch SystemCalls.lstat(name, in: folder) {
    case .success(let info):
      let kind = info.st_mode & S_IFMT
      if kind == S_IFDIR { throw SyscallFailure(call: "rename", errno: .isDirectory, path: name) }
      if kind != S_IFREG && kind != S_IFLNK { throw SyscallFailure(call: "rename", errno: .fileExists, path: name) }
    case .failure(let failure) where failure.errno == .noSuchFileOrDirectory: break
    case .failure(let failure): throw failure
    }
    let (temporary, fd) = try createTemporary(beside: name, in: folder)
    var kept = false
    defer { if !kept { _ = SystemCalls.remove(temporary, in: folder) } }
    do {
      var open = true
      defer { if open { SystemCalls.release(fd) } }
      try produce(fd)
      try SystemCalls.setMode(fd, mode).get()
      if durable { try SystemCalls.flush(fd).get() }
      open = false
      try SystemCalls.close(fd).get()
    }
    try move(finished: temporary, in: folder, to: name, in: folder).get()
    kept = true
    if durable { try SystemCalls.flush(folder, folder: true).get() }
  }

  /// A package (a folder that is one document) written atomically as `name` in `folder`:
  /// `produce` fills a new folder made beside it (0700 until it is complete), which then takes
  /// the name in one `renameat2(RENAME_EXCHANGE)` when a package is there (the old one is then
  /// removed) or one rename when none is. A file at the name is refused, never replaced.
  ///
  /// - Throws: What `produce` throws, or the failed call; the new folder is then removed and
  ///   the name is untouched.
  package static func writePackage(
    named name: String, in folder: FileDescriptor, mode: Glibc.mode_t = 0o755, durable: Bool = true, producing produce: (FileDescriptor) throws -> Void
  ) throws {
    var replacing = false
    switch SystemCalls.lstat(name, in: folder) {
    case .success(let info):
      guard info.st_mode & S_IFMT == S_IFDIR else { throw SyscallFailure(call: "rename", errno: .notDirectory, path: name) }
      replacing = true
    case .failure(let failure) where failure.errno == .noSuchFileOrDirectory: break
    case .failure(let failure): throw failure
    }
    var temporary = ""
    var made: Result<Void, SyscallFailure> = .failure(SyscallFailure(call: "mkdirat", errno: .fileExists))
    for _ in 0..<16 {
      temporary = temporaryName(beside: name)
      made = SystemCalls.makeFolder(temporary, in: folder, mode: 0o700)
      if case .failure(let failure) = made, failure.errno == .fileExists { continue }
      break
    }
    try made.get()
    var leftover = temporary
    defer { if !leftover.isEmpty { SystemCalls.removeTree(leftover, in: folder) } }
    do {
      let made = try SystemCalls.open(temporary, in: folder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, mode: 0).get()
      defer { SystemCalls.release(made) }
      try produce(made)
      try SystemCalls.setMode(made, mode).get()
      if durable { try SystemCalls.flush(made, folder: true).get() }
    }
    if replacing {
      // The old package now has the temporary name: removed by the deferred cleanup.
      _ = try replace(name, withFinished: temporary, in: folder).get()
    } else {
      try place(temporary, as: name, in: folder).get()
      leftover = ""
    }
    if durable { try SystemCalls.flush(folder, folder: true).get() }
  }

  /// The mode a new file gets from `open(…, 0666)`: 0666 less the process's umask, read from
  /// `/proc/self/status`: reading it with `umask(2)` means setting it, and another thread
  /// creating a file at that instant would get the wrong mode.
  package static var newFileMode: Glibc.mode_t {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
      let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Umask:") }),
      let mask = Glibc.mode_t(line.dropFirst("Umask:".count).trimmingCharacters(in: .whitespaces), radix: 8)
    else { return 0o644 }
    return 0o666 & ~mask
  }

  /// The one shape of every temporary name Quire writes beside a document (a file save, a
  /// package save, a backup copy): hidden, at most 200 characters of the name (so that a long
  /// name still fits `NAME_MAX`), then `.quire-RANDOM.SUFFIX` (RANDOM lower-case base 36). A
  /// later save removes abandoned `tmp` ones (`FileWrapper.removeLeftovers`); a `backup` may
  /// hold the only whole old copy, and stays.
  package static func temporaryName(beside name: String, suffix: String = "tmp") -> String {
    ".\(name.prefix(200)).quire-\(String(UInt64.random(in: 0...UInt64.max), radix: 36)).\(suffix)"
  }

  /// A new temporary file beside `name` in `folder` (`O_CREAT | O_EXCL | O_NOFOLLOW`, owner
  /// only): its name and descriptor. A name that clashes is tried again with another.
  private static func createTemporary(beside name: String, in folder: FileDescriptor) throws -> (String, FileDescriptor) {
    for _ in 0..<16 {
      let temporary = temporaryName(beside: name)
      switch SystemCalls.open(temporary, in: folder, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: 0o600) {
      case .success(let fd): return (temporary, fd)
      case .failure(let failure) where failure.errno == .fileExists: continue
      case .failure(let failure): throw failure
      }
    }
    throw SyscallFailure(call: "openat", errno: .fileExists, path: name)
  }
}

// MARK: Putting a finished file in place

/// The renames of the package: every temporary file or folder (and every finished file of a
/// private store) takes its name through one of these, so no module above this layer calls
/// `rename`, `renameat2(RENAME_EXCHANGE)` or `renameat2(RENAME_NOREPLACE)` itself
/// (`scripts/check-shape --only renames`). Each is the one call it names, fault-injected as
/// the `rename` step; none of them flushes the folder (the caller decides when, and what a
/// failed flush undoes).
extension AtomicFile {
  /// How a finished file took the name of the one it replaced.
  package enum Replacement: Sendable, Equatable {
    /// The two names were exchanged: the replaced file (or package) now has the finished
    /// one's temporary name, for the caller to keep (a version), remove, or put back with
    /// ``swapBack(_:replaced:in:)``.
    case exchanged
    /// The file system cannot exchange names: the finished file was renamed over the name,
    /// and the replaced one is gone.
    case renamed
  }

  /// Puts the finished file or package `temporary` in place of `name` in `folder` and keeps
  /// the replaced one under the temporary name (`renameat2(RENAME_EXCHANGE)`).
  ///
  /// - Parameter beforeOverwriting: Where the file system has no `RENAME_EXCHANGE` (`EINVAL`,
  ///   `ENOTSUP`), this runs (to copy what is about to be lost) and a plain `renameat`
  ///   replaces the name, still atomically; `nil` makes that a failure instead.
  /// - Returns: How the name was replaced, or the failed call (`name` is then untouched).
  package static func replace(
    _ name: String, withFinished temporary: String, in folder: FileDescriptor, beforeOverwriting: (() -> Void)? = nil
  ) -> Result<Replacement, SyscallFailure> {
    switch SystemCalls.exchange(temporary, name, in: folder) {
    case .success: return .success(.exchanged)
    case .failure(let failure) where failure.errno == .invalidArgument || failure.errno == .notSupported:
      guard let beforeOverwriting else { return .failure(failure) }
      beforeOverwriting()
      return SystemCalls.rename(temporary, in: folder, to: name, in: folder).map { .renamed }
    case .failure(let failure): return .failure(failure)
    }
  }

  /// Undoes an ``Replacement/exchanged`` replacement (a folder flush after it failed): the
  /// replaced file takes `name` back and the finished one its temporary name again.
  package static func swapBack(_ name: String, replaced temporary: String, in folder: FileDescriptor) -> Result<Void, SyscallFailure> {
    SystemCalls.exchange(temporary, name, in: folder)
  }

  /// Moves the finished file or package `temporary` to `name` in `folder`, where there was
  /// nothing: never over something that came meanwhile (`renameat2(RENAME_NOREPLACE)`, which
  /// fails with `EEXIST`).
  ///
  /// - Parameter orRenaming: Where the file system cannot refuse to replace (`EINVAL`,
  ///   `ENOTSUP`), rename with `renameat` instead of failing.
  package static func place(_ temporary: String, as name: String, in folder: FileDescriptor, orRenaming: Bool = false) -> Result<Void, SyscallFailure> {
    switch SystemCalls.renameNoReplace(temporary, to: name, in: folder) {
    case .success: return .success(())
    case .failure(let failure) where orRenaming && (failure.errno == .invalidArgument || failure.errno == .notSupported):
      return SystemCalls.rename(temporary, in: folder, to: name, in: folder)
    case .failure(let failure): return .failure(failure)
    }
  }

  /// Moves the finished file `name` in `folder` to `newName` in `destination` on the same file
  /// system, replacing what is there (`renameat`): the version store's objects, the
  /// pasteboard's staged files, a stored undo history that follows its renamed document or is
  /// set aside.
  package static func move(finished name: String, in folder: FileDescriptor, to newName: String, in destination: FileDescriptor)
    -> Result<Void, SyscallFailure>
  {
    SystemCalls.rename(name, in: folder, to: newName, in: destination)
  }

  /// ``move(finished:in:to:in:)`` by path (`rename(2)`).
  package static func move(finished path: String, to destination: String) -> Result<Void, SyscallFailure> {
    SystemCalls.rename(path, to: destination)
  }
}
