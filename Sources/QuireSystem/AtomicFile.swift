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
    switch SystemCalls.lstat(name, in: folder) {
    case .success(let info):
      let kind = info.st_mode & S_IFMT
      if kind == S_IFDIR { return .failure(SyscallFailure(call: "rename", errno: .isDirectory, path: name)) }
      if kind != S_IFREG && kind != S_IFLNK { return .failure(SyscallFailure(call: "rename", errno: .fileExists, path: name)) }
    case .failure(let failure) where failure.errno == .noSuchFileOrDirectory: break
    case .failure(let failure): return .failure(failure)
    }
    // A unique name beside the target: O_EXCL never opens another's file; a clash tries again.
    var temporary = ""
    var opened: Result<FileDescriptor, SyscallFailure> = .failure(SyscallFailure(call: "openat", errno: .fileExists))
    for _ in 0..<16 {
      temporary = ".\(name).\(UInt64.random(in: 0...UInt64.max)).tmp"
      opened = SystemCalls.open(temporary, in: folder, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: mode)
      if case .failure(let failure) = opened, failure.errno == .fileExists { continue }
      break
    }
    let fd: FileDescriptor
    switch opened {
    case .success(let made): fd = made
    case .failure(let failure): return .failure(failure)
    }
    func abandon(_ failure: SyscallFailure) -> Result<Void, SyscallFailure> {
      _ = SystemCalls.remove(temporary, in: folder)
      return .failure(failure)
    }
    var written = SystemCalls.writeAll(fd, bytes).flatMap { SystemCalls.setMode(fd, mode) }
    if durable { written = written.flatMap { SystemCalls.flush(fd) } }
    let closed = SystemCalls.close(fd)
    if case .failure(let failure) = written.flatMap({ closed }) { return abandon(failure) }
    if case .failure(let failure) = SystemCalls.rename(temporary, in: folder, to: name, in: folder) { return abandon(failure) }
    if durable, case .failure(let failure) = SystemCalls.flush(folder, folder: true) { return .failure(failure) }
    return .success(())
  }
}
