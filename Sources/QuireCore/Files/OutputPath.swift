package import Foundation
import QuireSystem
package import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// The one rule for where a command's output goes (`--output FILE`, the thumbnailer's OUTPUT,
/// the REPL's `w FILE`): what is at the path decides how it is written.
///
/// - Nothing there, or a regular file (also through symbolic links): the safe save, which
///   writes beside and renames over, so a failure never leaves a torn file.
/// - A character or block device, or a FIFO (named pipe), or a symbolic link the user named
///   to one: written *through*, as `cp` and `curl -o` do, and the special file stays what it
///   is. A FIFO nobody is reading is refused instead of waiting (`O_NONBLOCK` gives `ENXIO`).
/// - A folder, a socket, a symbolic-link loop, a missing folder: refused with a message that
///   names the path, says what it is and what to do.
///
/// A name that is not UTF-8 is written by its bytes: the URL carries it as a ``PathText``
/// string (`URL(fileURLWithPath: PathText.string(path))`, see ``url(carrying:)``), and every
/// call here and in the savers takes the path from the URL through `PathText`.
package enum OutputPath {
  /// A URL for `path` that the output rule and the savers write by its very bytes (a name
  /// that is not UTF-8 too); Foundation's own file APIs must not be given it.
  package static func url(carrying path: FilePath) -> URL { URL(fileURLWithPath: PathText.string(path)) }

  /// `url` with every symbolic link resolved, by its bytes; `url` itself when it does not exist.
  static func resolved(_ url: URL) -> URL {
    SystemCalls.resolvedPath(url.path).map { URL(fileURLWithPath: $0) } ?? url
  }

  /// What is at an output path.
  package enum Kind: Sendable, Equatable {
    /// Nothing, or a regular file: write with the safe save at `target` (links resolved).
    case regularFile(target: URL)
    /// A device or FIFO (named by `description`, e.g. "a character device"): write through.
    case special(description: String)
  }

  /// What is at `url`, or an error naming it when nothing can be written there.
  package static func kind(of url: URL) throws(QuireError) -> Kind {
    let path = PathText.path(url.path)
    switch SystemCalls.stat(path).mapError(\.errno) {
    case .success(let info):
      switch info.st_mode & S_IFMT {
      case S_IFREG: return .regularFile(target: resolved(url))
      case S_IFCHR: return .special(description: "a character device")
      case S_IFBLK: return .special(description: "a block device")
      case S_IFIFO: return .special(description: "a FIFO (named pipe)")
      case S_IFDIR:
        throw QuireError(
          .unsupportedType, "Cannot write to \(quoted(url)): it is a folder. Give a file name inside it, e.g. '\(url.path)/out'.", url: url)
      case S_IFSOCK:
        throw QuireError(.unsupportedType, "Cannot write to \(quoted(url)): it is a socket. Give a file, a device or a FIFO.", url: url)
      default:
        throw QuireError(.unsupportedType, "Cannot write to \(quoted(url)): it is not a file, a device or a FIFO.", url: url)
      }
    case .failure(.tooManySymbolicLinkLevels):
      throw QuireError(
        .invalidArgument, "Cannot write to \(quoted(url)): its symbolic links form a loop. Remove the link or give another path.", url: url,
        cause: Errno.tooManySymbolicLinkLevels)
    case .failure(.noSuchFileOrDirectory):
      // A dangling link is written through to its target, as the safe save does.
      let target = url.resolvingSymlinksInPath()
      let folder = target.deletingLastPathComponent()
      switch SystemCalls.stat(PathText.path(folder.path)) {
      case .success(let info) where info.st_mode & S_IFMT == S_IFDIR: return .regularFile(target: target)
      case .success:
        throw QuireError(.fileMissing, "Cannot write to \(quoted(url)): '\(DisplayName.escaping(path: folder))' is not a folder.", url: url)
      default:
        throw QuireError(
          .fileMissing, "Cannot write to \(quoted(url)): the folder '\(DisplayName.escaping(path: folder))' does not exist. Create it first.",
          url: url)
      }
    case .failure(.notDirectory):
      throw QuireError(.fileMissing, "Cannot write to \(quoted(url)): a part of its path is not a folder.", url: url, cause: Errno.notDirectory)
    case .failure(let code):
      throw QuireError(
        QuireError.Code(code),
        "Cannot write to \(quoted(url)): it cannot be inspected (\(QuireError.describe(code))). Check the folder's permissions.", url: url, cause: code)
    }
  }

  /// Writes `data` to `url` by the rule above; `safeSave` writes a regular file (the atomic
  /// writer of the calling module) at the resolved target.
  package static func write(_ data: Data, to url: URL, safeSave: (URL) throws -> Void) throws {
    switch try kind(of: url) {
    case .regularFile(let target): try safeSave(target)
    case .special(let description): try writeThrough(data, to: url, description: description)
    }
  }

  /// Opens the device or FIFO at `url` for writing (never creating, never replacing) and
  /// writes all of `data` to it.
  package static func writeThrough(_ data: Data, to url: URL, description: String) throws(QuireError) {
    let fd: FileDescriptor
    // O_NONBLOCK: a FIFO without a reader fails at once (ENXIO) instead of waiting forever.
    switch SystemCalls.open(PathText.path(url.path), O_WRONLY | O_NONBLOCK | O_NOCTTY).mapError(\.errno) {
    case .success(let opened): fd = opened
    case .failure(.noSuchAddressOrDevice) where description.contains("FIFO"):
      throw QuireError(
        .invalidArgument, "Cannot write to \(quoted(url)): it is \(description) and no process is reading it. Start the reader first.", url: url,
        cause: Errno.noSuchAddressOrDevice)
    case .failure(let code):
      throw QuireError(
        QuireError.Code(code),
        "Cannot write to \(quoted(url)) (\(description)): it cannot be opened (\(QuireError.describe(code))). Check its permissions.", url: url, cause: code)
    }
    defer { SystemCalls.release(fd) }
    // Writes may wait for the reader; only the open had to not.
    SystemCalls.setNonBlocking(fd, false)
    if case .failure(let code) = SystemCalls.writeAll(fd, data).mapError(\.errno) {
      throw QuireError(
        QuireError.Code(code),
        "Cannot write to \(quoted(url)) (\(description)): the write failed (\(QuireError.describe(code))). Nothing else was changed.", url: url, cause: code)
    }
  }

  static func quoted(_ url: URL) -> String { "'\(DisplayName.escaping(path: url))'" }
}
