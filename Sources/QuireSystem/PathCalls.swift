internal import CQuireSystem
package import Foundation
package import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

// Calls by path that the capability modules used to make themselves: extended attributes
// (the browser's tags), a rename that never replaces, a private temporary folder, and the
// byte-exact forms of readlink and realpath (a name that is not UTF-8 keeps its bytes).
extension SystemCalls {
  // MARK: Extended attributes, never following a symbolic link

  /// The attribute `name` of the item at `path` (`lgetxattr(2)`); nil when it has none
  /// (`ENODATA`).
  package static func attribute(_ name: String, of path: String) -> Result<Data?, SyscallFailure> {
    var capacity = 256
    while true {
      var buffer = [UInt8](repeating: 0, count: capacity)
      let got = retrying("lgetxattr", .read, path: path) {
        buffer.withUnsafeMutableBytes { bytes in PathText.withCString(path) { lgetxattr($0, name, bytes.baseAddress, capacity) } }
      }
      switch got {
      case .success(let count): return .success(Data(buffer[0..<count]))
      case .failure(Errno(rawValue: ERANGE)) where capacity < 1 << 16: capacity *= 4
      case .failure(Errno(rawValue: ENODATA)): return .success(nil)
      case .failure(let failure): return .failure(failure)
      }
    }
  }

  /// Sets the attribute `name` of the item at `path` to `value` (`lsetxattr(2)`).
  package static func setAttribute(_ name: String, to value: Data, of path: String) -> Result<Void, SyscallFailure> {
    void(
      retrying("lsetxattr", .write, path: path) {
        value.withUnsafeBytes { bytes in PathText.withCString(path) { lsetxattr($0, name, bytes.baseAddress, value.count, 0) } }
      })
  }

  /// Removes the attribute `name` of the item at `path` (`lremovexattr(2)`); an item without
  /// it is left as it is.
  package static func removeAttribute(_ name: String, of path: String) -> Result<Void, SyscallFailure> {
    switch retrying("lremovexattr", .write, path: path, { PathText.withCString(path) { lremovexattr($0, name) } }) {
    case .success, .failure(Errno(rawValue: ENODATA)): .success(())
    case .failure(let failure): .failure(failure)
    }
  }

  // MARK: Names

  /// Moves `from` to `to` (paths); fails with `EEXIST` rather than replacing anything
  /// (`renameat2(RENAME_NOREPLACE)`), and with `EXDEV` across file systems.
  package static func renameNoReplace(_ from: String, to: String) -> Result<Void, SyscallFailure> {
    void(
      retrying("renameat2", .rename, path: to) {
        PathText.withCString(from) { old in PathText.withCString(to) { cquire_renameat2(AT_FDCWD, old, AT_FDCWD, $0, cquire_RENAME_NOREPLACE) } }
      })
  }

  /// Removes the empty folder at `path` (`rmdir(2)`).
  package static func removeFolder(_ path: String) -> Result<Void, SyscallFailure> {
    void(retrying("rmdir", .remove, path: path) { PathText.withCString(path) { Glibc.rmdir($0) } })
  }

  /// Makes the folder at `path` and each missing folder above it (`mkdir -p`), by the path's
  /// bytes; a folder already there is fine, anything else there fails with `ENOTDIR`/`EEXIST`.
  package static func makeFolders(_ path: String, mode: Glibc.mode_t = 0o755) -> Result<Void, SyscallFailure> {
    var prefix = path.hasPrefix("/") ? "" : "."
    for component in path.split(separator: "/", omittingEmptySubsequences: true) {
      prefix += "/" + component
      switch makeFolder(prefix, mode: mode) {
      case .success: continue
      case .failure(.fileExists):
        guard case .success(let info) = stat(PathText.path(prefix)), (info.st_mode & S_IFMT) == S_IFDIR else {
          return .failure(SyscallFailure(call: "mkdir", errno: .notDirectory, path: prefix))
        }
      case .failure(let failure): return .failure(failure)
      }
    }
    return .success(())
  }

  /// Makes `link` a second name of the file at `target` (`link(2)`, never following a link).
  package static func makeHardLink(at link: String, to target: String) -> Result<Void, SyscallFailure> {
    void(retrying("link", .link, path: link) { PathText.withCString(target) { old in PathText.withCString(link) { Glibc.link(old, $0) } } })
  }

  /// Makes a new folder, mode 0700, named `prefix` and six random characters, in `folder`
  /// (`mkdtemp(3)`), and returns its path.
  package static func makeTemporaryFolder(in folder: String, prefix: String) -> Result<String, SyscallFailure> {
    var template = Array((folder.hasSuffix("/") ? folder : folder + "/").utf8CString.dropLast()) + Array((prefix + "XXXXXX").utf8CString)
    let made = retrying("mkdtemp", .makeFolder, path: folder) { Glibc.mkdtemp(&template) == nil ? -1 : 0 }
    return made.map { _ in String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) }
  }

  /// The target of the symbolic link at `path`, with its bytes (a target that is not UTF-8
  /// stays exact); nil when `path` is not a link.
  package static func readLink(_ path: FilePath) -> FilePath? {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 16)
    let count = path.withPlatformString { Glibc.readlink($0, &buffer, buffer.count - 1) }
    guard count > 0 else { return nil }
    buffer[count] = 0
    return FilePath(platformString: buffer)
  }

  /// `path` with every symbolic link resolved (`realpath(3)`), with its bytes; nil when it
  /// does not exist.
  package static func resolvedPath(_ path: FilePath) -> FilePath? {
    guard let resolved = path.withPlatformString({ Glibc.realpath($0, nil) }) else { return nil }
    defer { free(resolved) }
    return FilePath(platformString: resolved)
  }
}

// The same calls for a path of any bytes (a name that is not UTF-8, which no `String` path
// holds): the browser's `FilePath` entry points reach the very file through these.
extension SystemCalls {
  /// ``attribute(_:of:)-(_,String)`` of a `FilePath`.
  package static func attribute(_ name: String, of path: FilePath) -> Result<Data?, SyscallFailure> {
    var capacity = 256
    while true {
      var buffer = [UInt8](repeating: 0, count: capacity)
      let got = path.withPlatformString { cPath in
        retrying("lgetxattr", .read, path: path.string) { buffer.withUnsafeMutableBytes { lgetxattr(cPath, name, $0.baseAddress, capacity) } }
      }
      switch got {
      case .success(let count): return .success(Data(buffer[0..<count]))
      case .failure(Errno(rawValue: ERANGE)) where capacity < 1 << 16: capacity *= 4
      case .failure(Errno(rawValue: ENODATA)): return .success(nil)
      case .failure(let failure): return .failure(failure)
      }
    }
  }

  /// ``setAttribute(_:to:of:)-(_,_,String)`` of a `FilePath`.
  package static func setAttribute(_ name: String, to value: Data, of path: FilePath) -> Result<Void, SyscallFailure> {
    path.withPlatformString { cPath in
      void(retrying("lsetxattr", .write, path: path.string) { value.withUnsafeBytes { lsetxattr(cPath, name, $0.baseAddress, value.count, 0) } })
    }
  }

  /// ``removeAttribute(_:of:)-(_,String)`` of a `FilePath`.
  package static func removeAttribute(_ name: String, of path: FilePath) -> Result<Void, SyscallFailure> {
    switch path.withPlatformString({ cPath in retrying("lremovexattr", .write, path: path.string, { lremovexattr(cPath, name) }) }) {
    case .success, .failure(Errno(rawValue: ENODATA)): .success(())
    case .failure(let failure): .failure(failure)
    }
  }

  /// ``renameNoReplace(_:to:)-(String,String)`` of `FilePath`s.
  package static func renameNoReplace(_ from: FilePath, to: FilePath) -> Result<Void, SyscallFailure> {
    from.withPlatformString { cFrom in
      to.withPlatformString { cTo in
        void(retrying("renameat2", .rename, path: to.string) { cquire_renameat2(AT_FDCWD, cFrom, AT_FDCWD, cTo, cquire_RENAME_NOREPLACE) })
      }
    }
  }

  /// Moves the user's item at `from` to `to` on their request (the browser's move and rename,
  /// the Trash's trash and put back): never over an item already at `to` (`EEXIST`). This is
  /// not a temporary file taking its name, which goes through `AtomicFile`; it is the one
  /// rename `scripts/check-shape` allows above this layer.
  package static func moveUserItem(_ from: FilePath, to: FilePath) -> Result<Void, SyscallFailure> {
    renameNoReplace(from, to: to)
  }

  /// `unlink(2)` of a `FilePath`.
  package static func remove(_ path: FilePath) -> Result<Void, SyscallFailure> {
    path.withPlatformString { cPath in void(retrying("unlink", .remove, path: path.string) { Glibc.unlink(cPath) }) }
  }

  /// Whether `path` is on a file system mounted read-only (`statvfs(3)`'s `ST_RDONLY`).
  package static func isOnReadOnlyMount(_ path: FilePath) -> Bool {
    var info = Glibc.statvfs()
    guard path.withPlatformString({ cStatvfs($0, &info) }) == 0 else { return false }
    return info.f_flag & UInt(ST_RDONLY) != 0
  }

  /// The names in `folder` as bytes, without `.` and `..`; nil when it cannot be read.
  package static func entryNames(in folder: FilePath) -> [[UInt8]]? {
    guard let directory = folder.withPlatformString({ Glibc.opendir($0) }) else { return nil }
    defer { Glibc.closedir(directory) }
    var names: [[UInt8]] = []
    while let entry = Glibc.readdir(directory) {
      let name = withUnsafeBytes(of: &entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
      if name == [0x2E] || name == [0x2E, 0x2E] { continue }
      names.append(name)
    }
    return names
  }

  /// The whole of a small regular file (at most `limit` bytes), not following a link; nil
  /// when it is missing, not a regular file, unreadable or larger.
  package static func readSmallFile(_ path: FilePath, limit: Int) -> Data? {
    let fd = path.withPlatformString { Glibc.open($0, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) }
    guard fd >= 0 else { return nil }
    defer { Glibc.close(fd) }
    var info = Glibc.stat()
    guard Glibc.fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size <= limit else { return nil }
    var data = Data()
    var buffer = [UInt8](repeating: 0, count: 4096)
    while data.count <= limit {
      let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
      if count < 0 && errno == EINTR { continue }
      if count < 0 { return nil }
      if count == 0 { break }
      data.append(contentsOf: buffer[0..<count])
    }
    return data.count <= limit ? data : nil
  }

  // MARK: Kernel file handles

  /// A kernel file handle for the item at `path` (`name_to_handle_at(2)`, a final symbolic
  /// link not followed): its type and bytes, which stay valid across renames and moves
  /// within the file system. Fails where the file system has no handles (`EOPNOTSUPP`).
  package static func fileHandle(of path: FilePath) -> Result<(type: Int32, bytes: [UInt8]), SyscallFailure> {
    var bytes = [UInt8](repeating: 0, count: 128)
    var size: UInt32 = 128
    var type: Int32 = 0
    var mount: Int32 = 0
    return path.withPlatformString { cPath in
      retrying("name_to_handle_at", .inspect, path: path.string) { cquire_name_to_handle(cPath, &type, &bytes, &size, &mount) }
    }.map { _ in (type, Array(bytes[0..<Int(size)])) }
  }

  /// Where the item a ``fileHandle(of:)`` names is now (`open_by_handle_at(2)` with `O_PATH`,
  /// then its `/proc/self/fd` link); `fileSystem` is any descriptor on its file system. Needs
  /// `CAP_DAC_READ_SEARCH`; without it this fails with `EPERM`.
  package static func path(forHandle bytes: [UInt8], type: Int32, onFileSystemOf fileSystem: FileDescriptor) -> Result<FilePath, SyscallFailure> {
    var path = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    return bytes.withUnsafeBufferPointer { raw in
      retrying("open_by_handle_at", .inspect) {
        cquire_path_for_handle(fileSystem.rawValue, type, raw.baseAddress, UInt32(raw.count), &path, UInt32(path.count))
      }
    }.map { _ in FilePath(platformString: path) }
  }
}

// `statvfs(3)`, named through its type (the bare name is also the struct's).
private let cStatvfs: @Sendable (UnsafePointer<CChar>, UnsafeMutablePointer<Glibc.statvfs>) -> Int32 = statvfs
