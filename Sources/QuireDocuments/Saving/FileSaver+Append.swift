public import Foundation
import QuireSystem
public import QuireTypes
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

extension FileSaver {
  /// Appends a command's output `data` to `url` (ed's `W`), by the output-path rule of
  /// ``writeOutput(_:to:options:)``: a regular file is opened with `O_APPEND` (created when
  /// missing, with the permissions the umask allows, as `>>` does) and the bytes are added at
  /// its end; an existing device or FIFO, or a symbolic link to one, is written through and
  /// stays what it is (a FIFO no one reads is refused, never waited on).
  ///
  /// Not a safe save: appending keeps what the file holds and adds to it, as a shell's `>>`.
  ///
  /// - Throws: ``QuireError`` naming `url` and what is there when it cannot be written (a
  ///   folder, a socket, a missing folder, no permission); a failed write may leave part of
  ///   the bytes appended.
  public static func appendOutput(_ data: Data, to url: URL) throws(QuireError) {
    if case .special(let description) = try OutputPath.kind(of: url) {
      return try OutputPath.writeThrough(data, to: url, description: description)
    }
    let fd: FileDescriptor
    switch SystemCalls.open(PathText.path(url.path), O_WRONLY | O_APPEND | O_CREAT | O_NOCTTY, mode: 0o666).mapError(\.errno) {
    case .success(let opened): fd = opened
    case .failure(let code):
      throw QuireError(
        QuireError.Code(code), "Cannot append to \(QuireError.name(url)): it cannot be opened (\(QuireError.describe(code))). Check its permissions.",
        url: url, cause: code)
    }
    defer { SystemCalls.release(fd) }
    if case .failure(let code) = SystemCalls.writeAll(fd, data).mapError(\.errno) {
      throw QuireError(
        QuireError.Code(code), "Cannot append to \(QuireError.name(url)): the write failed (\(QuireError.describe(code))).", url: url, cause: code)
    }
  }
}
