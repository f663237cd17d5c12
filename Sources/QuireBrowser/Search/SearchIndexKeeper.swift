import Foundation
import QuireCore
import QuireSystem
import Synchronization
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// The mark a process leaves while it keeps a browser's search index current from change
/// notifications (``DocumentBrowser/startUpdatingSearchIndex()``: `quire search --watch`, a
/// served page, `quire rpc`): an open-file-description write lock on a file beside the index,
/// named for the browser's locations and options (`index-KEY.sqlite.kept-KEY`, 0600), holding the
/// process's pid. A search over the same locations in any process finds the lock held and
/// answers from the index at once, without walking the folders
/// (``DocumentBrowser/searchIndexKeeper``). The lock goes when the keeper stops watching or
/// ends, however it ends (the kernel drops it with the last descriptor).
enum SearchIndexKeeper {
  /// The mark's file beside `index` for the browser whose ``DocumentBrowser/searchIndexKey``
  /// is `key`.
  static func url(beside index: URL, key: String) -> URL {
    index.deletingLastPathComponent().appendingPathComponent(index.lastPathComponent + ".kept-" + key)
  }

  /// Whether a process holds a mark beside the index named `indexName` in `folder`, for any
  /// browser.
  static func isHeld(beside indexName: String, in folder: URL, names: [String]) -> Bool {
    names.contains { $0.hasPrefix(indexName + ".kept-") && holder(at: folder.appendingPathComponent($0)) != nil }
  }

  /// Takes the mark (the index's folder exists by now): the descriptor that holds it, or nil
  /// when another process holds it already (then both keep the index current; searches need
  /// only one).
  /// - Throws: ``QuireError`` when the file cannot be made (something other than a regular file
  ///   at its name, a folder that cannot be written).
  static func take(at url: URL) throws -> FileDescriptor? {
    let fd: FileDescriptor
    switch SystemCalls.open(FilePath(url.path), O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK, mode: 0o600) {
    case .success(let opened): fd = opened
    case .failure(let failure):
      if let planted = planted(at: url) { throw planted }
      throw QuireError(
        QuireError.Code(failure.errno),
        "Cannot mark the search index as kept current at '\(DisplayName.escaping(path: url))': \(QuireError.describe(failure.errno)). Check that the folder is yours and writable, or set XDG_CACHE_HOME to a folder of your own.",
        url: url, cause: failure.errno)
    }
    guard SystemCalls.isRegularFile(fd) else {
      SystemCalls.release(fd)
      throw planted(at: url) ?? QuireError(.invalidContent, "'\(DisplayName.escaping(path: url))' is not a regular file.", url: url)
    }
    guard case .success(true) = SystemCalls.lock(fd, .write, start: 0) else {
      SystemCalls.release(fd)
      return nil
    }
    _ = SystemCalls.truncate(fd, to: 0)
    _ = SystemCalls.writeAll(fd, Array("\(getpid())\n".utf8), at: 0)
    return fd
  }

  /// The error for something other than a regular file at the mark's name (a link, which is
  /// never followed, a FIFO, a folder, a device): nothing there is read, written or removed.
  private static func planted(at url: URL) -> QuireError? {
    guard case .success(let info) = SystemCalls.lstat(FilePath(url.path)), info.st_mode & S_IFMT != S_IFREG else { return nil }
    let what = SearchIndex.describePlanted(info.st_mode)
    return QuireError(
      .permissionDenied,
      "Cannot mark the search index as kept current: '\(DisplayName.escaping(path: url))' is \(what). Nothing was read or removed; remove it yourself (it only marks a running indexer), or set XDG_CACHE_HOME to a folder of your own.",
      url: url)
  }

  /// The pid of the process that holds the mark at `url`, or nil when none does.
  static func holder(at url: URL) -> Int32? {
    guard case .success(let fd) = SystemCalls.open(FilePath(url.path), O_RDONLY | O_NOFOLLOW | O_NONBLOCK) else { return nil }
    defer { SystemCalls.release(fd) }
    guard SystemCalls.isRegularFile(fd), case .success(true) = SystemCalls.isLockedByOthers(fd, against: .read, start: 0) else { return nil }
    let text = String(decoding: SystemCalls.read(fd, count: 32, at: 0), as: UTF8.self)
    return Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
  }
}
