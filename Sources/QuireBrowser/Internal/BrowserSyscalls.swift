import CQuireSystem
import Foundation
import QuireTypes
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// The browser's raw system calls: extended attributes, never following symbolic links.
/// Each retries `EINTR` and returns `Result<_, Errno>`.
///
/// A path given as a `String` here is a `PathText` string: the path itself when it is UTF-8,
/// and for a name that is not UTF-8 (which no `URL` holds) the text that stands for its bytes.
/// The browser's `FilePath` entry points carry such a path inside the module in the `URL` of
/// its `PathText` string (``carrierURL(_:)``), so every call below reaches the very bytes.
enum BrowserSyscalls {
  /// The path a `PathText` string (or a URL's `path`) stands for.
  static func path(_ text: String) -> FilePath { PathText.path(text) }

  /// The URL that carries `path` (any bytes) through the module's URL-based internals: its
  /// `path` is `path`'s `PathText` string. It only names the item and reaches it through the
  /// calls here; Foundation would open a different file with it.
  static func carrierURL(_ path: FilePath) -> URL { URL(fileURLWithPath: PathText.string(path)).standardizedFileURL }

  /// The real path of a carrier URL (see ``carrierURL(_:)``); a UTF-8 URL's own path.
  static func filePath(_ url: URL) -> FilePath { PathText.path(url.path) }

  /// Encodes `url` under `key`: as `URL` encodes itself, or, for a URL that carries a name that
  /// is not UTF-8 (see ``carrierURL(_:)``), as the `file://` URI of the real bytes (`%FF`, as
  /// GLib writes it), so encoded items name the very file.
  static func encode<Key: CodingKey>(_ url: URL?, forKey key: Key, in container: inout KeyedEncodingContainer<Key>) throws {
    guard let url else { return }
    if url.isFileURL, PathText.holdsNonUTF8Bytes(url.path) {
      try container.encode("file://" + Trash.percentEncoded(bytes: PathText.bytes(url.path)), forKey: key)
    } else {
      try container.encode(url, forKey: key)
    }
  }

  /// The names in `folder` as bytes, without `.` and `..`; nil when it cannot be read.
  static func entries(in folder: FilePath) -> [[UInt8]]? {
    guard let directory = folder.withPlatformString({ opendir($0) }) else { return nil }
    defer { closedir(directory) }
    var names: [[UInt8]] = []
    while let entry = readdir(directory) {
      let name = withUnsafeBytes(of: &entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
      if name == [0x2E] || name == [0x2E, 0x2E] { continue }
      names.append(name)
    }
    return names
  }

  /// The whole of a small regular file (at most `limit` bytes), not following a link.
  static func readSmallFile(_ path: FilePath, limit: Int) -> Data? {
    let fd = path.withPlatformString { open($0, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) }
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size <= limit else { return nil }
    var data = Data()
    var buffer = [UInt8](repeating: 0, count: 4096)
    while data.count <= limit {
      let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if count < 0 && errno == EINTR { continue }
      if count < 0 { return nil }
      if count == 0 { break }
      data.append(contentsOf: buffer[0..<count])
    }
    return data.count <= limit ? data : nil
  }

  /// The attribute's value, `nil` when the file has none (`ENODATA`).
  static func getAttribute(_ name: String, path: FilePath) -> Result<Data?, Errno> {
    var capacity = 256
    while true {
      var buffer = [UInt8](repeating: 0, count: capacity)
      let count = buffer.withUnsafeMutableBytes { bytes in path.withPlatformString { lgetxattr($0, name, bytes.baseAddress, capacity) } }
      if count >= 0 { return .success(Data(buffer[0..<count])) }
      let code = Errno(rawValue: errno)
      switch code {
      case .interrupted: continue
      case Errno(rawValue: ERANGE) where capacity < 1 << 16: capacity *= 4
      case Errno(rawValue: ENODATA): return .success(nil)
      default: return .failure(code)
      }
    }
  }

  static func setAttribute(_ name: String, value: Data, path: FilePath) -> Result<Void, Errno> {
    while true {
      let result = value.withUnsafeBytes { bytes in path.withPlatformString { lsetxattr($0, name, bytes.baseAddress, value.count, 0) } }
      if result == 0 { return .success(()) }
      let code = Errno(rawValue: errno)
      if code != .interrupted { return .failure(code) }
    }
  }

  static func removeAttribute(_ name: String, path: FilePath) -> Result<Void, Errno> {
    while true {
      if path.withPlatformString({ lremovexattr($0, name) }) == 0 { return .success(()) }
      let code = Errno(rawValue: errno)
      if code == Errno(rawValue: ENODATA) { return .success(()) }
      if code != .interrupted { return .failure(code) }
    }
  }

  /// `unlink(2)` of a `PathText` path.
  @discardableResult
  static func unlink(_ path: String) -> Int32 { Self.path(path).withPlatformString { Glibc.unlink($0) } }

  /// `lstat(2)`, retrying `EINTR`.
  static func lstatInfo(_ path: String) -> Result<stat, Errno> {
    var info = stat()
    while true {
      if Self.path(path).withPlatformString({ lstat($0, &info) }) == 0 { return .success(info) }
      let code = Errno(rawValue: errno)
      if code != .interrupted { return .failure(code) }
    }
  }
}

extension BrowserSyscalls {
  /// `renameat2(2)` with `RENAME_NOREPLACE`: never replaces what is at `to` (`EEXIST`).
  static func renameNoReplace(_ from: String, _ to: String) -> Result<Void, Errno> {
    while true {
      let result = path(from).withPlatformString { from in
        path(to).withPlatformString { to in cquire_renameat2(AT_FDCWD, from, AT_FDCWD, to, cquire_RENAME_NOREPLACE) }
      }
      if result == 0 { return .success(()) }
      let code = Errno(rawValue: errno)
      if code != .interrupted { return .failure(code) }
    }
  }
}
