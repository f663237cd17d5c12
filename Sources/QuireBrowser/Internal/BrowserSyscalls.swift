import CQuireSystem
import Foundation
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// The browser's raw system calls: extended attributes, never following symbolic links.
/// Each retries `EINTR` and returns `Result<_, Errno>`.
enum BrowserSyscalls {
  /// The attribute's value, `nil` when the file has none (`ENODATA`).
  static func getAttribute(_ name: String, path: String) -> Result<Data?, Errno> {
    var capacity = 256
    while true {
      var buffer = [UInt8](repeating: 0, count: capacity)
      let count = buffer.withUnsafeMutableBytes { lgetxattr(path, name, $0.baseAddress, capacity) }
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

  static func setAttribute(_ name: String, value: Data, path: String) -> Result<Void, Errno> {
    while true {
      let result = value.withUnsafeBytes { lsetxattr(path, name, $0.baseAddress, value.count, 0) }
      if result == 0 { return .success(()) }
      let code = Errno(rawValue: errno)
      if code != .interrupted { return .failure(code) }
    }
  }

  static func removeAttribute(_ name: String, path: String) -> Result<Void, Errno> {
    while true {
      if lremovexattr(path, name) == 0 { return .success(()) }
      let code = Errno(rawValue: errno)
      if code == Errno(rawValue: ENODATA) { return .success(()) }
      if code != .interrupted { return .failure(code) }
    }
  }

  /// `lstat(2)`, retrying `EINTR`.
  static func lstatInfo(_ path: String) -> Result<stat, Errno> {
    var info = stat()
    while true {
      if lstat(path, &info) == 0 { return .success(info) }
      let code = Errno(rawValue: errno)
      if code != .interrupted { return .failure(code) }
    }
  }
}

extension BrowserSyscalls {
  /// `renameat2(2)` with `RENAME_NOREPLACE`: never replaces what is at `to` (`EEXIST`).
  static func renameNoReplace(_ from: String, _ to: String) -> Result<Void, Errno> {
    while true {
      if cquire_renameat2(AT_FDCWD, from, AT_FDCWD, to, cquire_RENAME_NOREPLACE) == 0 { return .success(()) }
      let code = Errno(rawValue: errno)
      if code != .interrupted { return .failure(code) }
    }
  }
}
