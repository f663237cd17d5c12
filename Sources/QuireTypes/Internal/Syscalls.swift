import Foundation
import Synchronization
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// The raw system calls identification makes, in one place. Each returns `Result<_, Errno>`
/// and retries `EINTR`. Debug builds have a hook so tests can make `open` fail for one path
/// (CI runs as root, where `chmod 000` does not stop a read).
enum Syscalls {
  #if DEBUG
    /// Path → errno that `openForReading` reports instead of opening.
    static let injectedOpenFailures = Mutex<[String: Errno]>([:])
  #endif

  static func lstatInfo(_ path: FilePath) -> Result<Glibc.stat, Errno> {
    path.withPlatformString { cPath in
      var info = Glibc.stat()
      while true {
        if lstat(cPath, &info) == 0 { return .success(info) }
        let code = errno
        if code != EINTR { return .failure(Errno(rawValue: code)) }
      }
    }
  }

  static func statInfo(_ path: FilePath) -> Result<Glibc.stat, Errno> {
    path.withPlatformString { cPath in
      var info = Glibc.stat()
      while true {
        if stat(cPath, &info) == 0 { return .success(info) }
        let code = errno
        if code != EINTR { return .failure(Errno(rawValue: code)) }
      }
    }
  }

  /// Opens for reading without ever blocking (`O_NONBLOCK`: a FIFO with no writer, a
  /// device) and without becoming the controlling terminal (`O_NOCTTY`).
  static func openForReading(_ path: FilePath) -> Result<Int32, Errno> {
    #if DEBUG
      if let injected = injectedOpenFailures.withLock({ $0[path.string] }) { return .failure(injected) }
    #endif
    return path.withPlatformString { cPath in
      while true {
        let fd = Glibc.open(cPath, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        if fd >= 0 { return .success(fd) }
        let code = errno
        if code != EINTR { return .failure(Errno(rawValue: code)) }
      }
    }
  }

  static func fstatInfo(_ fd: Int32) -> Result<Glibc.stat, Errno> {
    var info = Glibc.stat()
    while true {
      if fstat(fd, &info) == 0 { return .success(info) }
      let code = errno
      if code != EINTR { return .failure(Errno(rawValue: code)) }
    }
  }

  /// Reads up to `buffer.count` bytes from offset 0, stopping at end of file, `EAGAIN` or
  /// an error. Returns how many bytes were read.
  static func readPrefix(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Int {
    guard let base = buffer.baseAddress else { return 0 }
    var total = 0
    while total < buffer.count {
      let got = pread(fd, base + total, buffer.count - total, off_t(total))
      if got > 0 {
        total += got
        continue
      }
      if got < 0 && errno == EINTR { continue }
      break
    }
    return total
  }

  static func close(_ fd: Int32) { _ = Glibc.close(fd) }

  static func open(_ path: FilePath, _ flags: Int32) -> Result<Int32, Errno> {
    path.withPlatformString { cPath in
      while true {
        let fd = Glibc.open(cPath, flags)
        if fd >= 0 { return .success(fd) }
        let code = errno
        if code != EINTR { return .failure(Errno(rawValue: code)) }
      }
    }
  }

  static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Result<Int, Errno> {
    while true {
      let got = Glibc.read(fd, buffer.baseAddress, buffer.count)
      if got >= 0 { return .success(got) }
      let code = errno
      if code != EINTR { return .failure(Errno(rawValue: code)) }
    }
  }

  static func writeAll(_ fd: Int32, _ data: Data) -> Result<Void, Errno> {
    data.withUnsafeBytes { raw -> Result<Void, Errno> in
      var offset = 0
      while offset < raw.count {
        let wrote = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
        if wrote > 0 {
          offset += wrote
          continue
        }
        let code = errno
        if wrote < 0 && code == EINTR { continue }
        return .failure(Errno(rawValue: wrote == 0 ? EIO : code))
      }
      return .success(())
    }
  }
}
