package import Foundation
import QuireSystem
package import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// The one way commands open a file they read as a document (preview, thumbnail, copy, the
/// REPL's `e`/`r`): opened with `O_NONBLOCK` so that `open` never waits (a FIFO without a
/// writer), checked with `fstat(2)` on the descriptor (no race with a rename), refused with
/// a clear error unless it is a regular file, then read to end of file without trusting its
/// size (`/proc` files say 0), up to a limit.
package enum InputFile {
  /// Opens `url` for reading and checks it is a regular file. The caller closes the result.
  ///
  /// - Parameter role: What the file is for, in messages ("preview", "copy").
  package static func open(_ url: URL, for role: String) throws(QuireError) -> Int32 {
    try open(Named(url), for: role)
  }

  /// Opens `path` (any bytes: a name that is not UTF-8 too) for reading and checks it is a
  /// regular file. The caller closes the result.
  package static func open(_ path: FilePath, for role: String) throws(QuireError) -> Int32 {
    try open(Named(path), for: role)
  }

  /// A path and how errors name it: a `URL` when the caller has one (errors carry it), else
  /// the path's bytes, shown escaped.
  struct Named {
    var path: FilePath
    var url: URL?
    init(_ url: URL) { (self.path, self.url) = (PathText.path(url.path), url) }
    init(_ path: FilePath) { (self.path, self.url) = (path, nil) }
    var quoted: String { "'\(DisplayName.escaping(path))'" }
  }

  /// Opens `relative` (names inside `folder`, any bytes) *beneath* `folder` and checks it is a
  /// regular file (or, with `naming`, a regular file or a folder), as ``open(_:for:)`` does: the one
  /// opener for files a less trusted party names (the server's pages, the REPL's `-r`). No
  /// symbolic link is followed anywhere on the way, the last name included, and nothing
  /// outside `folder` is reached (see `SystemCalls.openBeneath`), so a name swapped for a link
  /// or a FIFO between a check and the open is refused, never followed or waited on. Read and
  /// write only through the descriptor returned; the caller closes it.
  ///
  /// - Parameters:
  ///   - url: The file's full URL, for messages.
  ///   - writing: Open for reading and writing (`O_RDWR`) rather than reading only.
  ///   - naming: Open only to name it (`O_PATH`: no read permission needed), a folder too;
  ///     for checking what a name is before acting on it by name (a rename, a move).
  package static func open(
    _ relative: String, beneath folder: FileDescriptor, url: URL, for role: String, writing: Bool = false, naming: Bool = false
  ) throws(QuireError) -> Int32 {
    let file = Named(url)
    // openat2 refuses O_PATH with any flag but O_DIRECTORY, O_NOFOLLOW and O_CLOEXEC.
    let flags = naming ? SystemCalls.pathOnly : (writing ? O_RDWR : O_RDONLY) | O_NONBLOCK | O_NOCTTY
    let opened = SystemCalls.openBeneath(relative, in: folder, flags, path: url.path).mapError(\.errno)
    switch opened {
    case .success(let fd): return try checked(fd.rawValue, file, for: role, allowingFolder: naming)
    case .failure(.tooManySymbolicLinkLevels):
      throw QuireError(
        .invalidArgument,
        "Cannot \(role) \(file.quoted): it is, or passes through, a symbolic link, and links are not followed here. Open the file it leads to by its own name.",
        url: url, cause: Errno.tooManySymbolicLinkLevels)
    case .failure(.improperLink):
      throw QuireError(.invalidArgument, "Cannot \(role) \(file.quoted): it leads out of its folder; refused.", url: url, cause: Errno.improperLink)
    case .failure(.noSuchFileOrDirectory):
      throw QuireError(.fileMissing, "Cannot \(role) \(file.quoted): there is no such file. Check the path.", url: url, cause: Errno.noSuchFileOrDirectory)
    case .failure(let code): throw openError(file, role: role, code)
    }
  }

  static func open(_ file: Named, for role: String) throws(QuireError) -> Int32 {
    let fd: Int32
    switch SystemCalls.open(file.path, O_RDONLY | O_NONBLOCK | O_NOCTTY).mapError(\.errno) {
    case .success(let opened): fd = opened.rawValue
    case .failure(let code): throw openError(file, role: role, code)
    }
    return try checked(fd, file, for: role)
  }

  /// `fd` when `fstat` says it is a regular file (or an allowed folder), made blocking again;
  /// otherwise closed, and the error that says what it is.
  static func checked(_ fd: Int32, _ file: Named, for role: String, allowingFolder: Bool = false) throws(QuireError) -> Int32 {
    let (url, quoted) = (file.url, file.quoted)
    let info: stat
    switch SystemCalls.fstat(FileDescriptor(rawValue: fd)).mapError(\.errno) {
    case .success(let got): info = got
    case .failure(let code):
      SystemCalls.release(FileDescriptor(rawValue: fd))
      throw QuireError(QuireError.Code(code), "Cannot \(role) \(quoted): it cannot be inspected (\(QuireError.describe(code))).", url: url, cause: code)
    }
    let kind = info.st_mode & S_IFMT
    guard kind == S_IFREG || (allowingFolder && kind == S_IFDIR) else {
      SystemCalls.release(FileDescriptor(rawValue: fd))
      let what: String
      switch kind {
      case S_IFDIR: what = "a folder"
      case S_IFIFO: what = "a FIFO (named pipe)"
      case S_IFCHR: what = "a character device"
      case S_IFBLK: what = "a block device"
      case S_IFSOCK: what = "a socket"
      default: what = "not a regular file"
      }
      let advice = kind == S_IFDIR ? "Give a file inside it." : "Save what it gives to a file first, and use that."
      throw QuireError(.unsupportedType, "Cannot \(role) \(quoted): it is \(what), not a regular file. \(advice)", url: url)
    }
    // Reads of a regular file never return EAGAIN, but clear the flag for clarity of intent.
    if !allowingFolder { SystemCalls.setNonBlocking(FileDescriptor(rawValue: fd), false) }
    return fd
  }

  /// Checks that `url` can be read as a document (see ``open(_:for:)``) without reading it.
  package static func check(_ url: URL, for role: String) throws(QuireError) {
    SystemCalls.release(FileDescriptor(rawValue: try open(url, for: role)))
  }

  /// Checks that `path` can be read as a document (see ``open(_:for:)-(FilePath,_)``).
  package static func check(_ path: FilePath, for role: String) throws(QuireError) {
    SystemCalls.release(FileDescriptor(rawValue: try open(path, for: role)))
  }

  /// Checks that something (a file, a folder, anything a link leads to) is at `path` (any
  /// bytes), for commands that watch or name an item rather than read it as a document.
  ///
  /// - Throws: ``missingError(_:for:)-(FilePath,_)``'s error when nothing is there (a dangling
  ///   link, a link loop or a missing path, each said as it is).
  package static func checkExists(_ path: FilePath, for role: String) throws(QuireError) {
    if case .failure = SystemCalls.stat(path) { throw missingError(path, for: role) }
  }

  /// Reads `url` to end of file, up to `limit` bytes.
  ///
  /// - Parameter truncating: When true, a longer file gives its first `limit` bytes; when
  ///   false, it is an error that names the limit.
  package static func read(_ url: URL, for role: String, limit: Int, truncating: Bool = false) throws(QuireError) -> [UInt8] {
    try read(Named(url), for: role, limit: limit, truncating: truncating)
  }

  /// Reads `path` (any bytes) to end of file, up to `limit` bytes; see ``read(_:for:limit:truncating:)-(URL,_,_,_)``.
  package static func read(_ path: FilePath, for role: String, limit: Int, truncating: Bool = false) throws(QuireError) -> [UInt8] {
    try read(Named(path), for: role, limit: limit, truncating: truncating)
  }

  static func read(_ file: Named, for role: String, limit: Int, truncating: Bool) throws(QuireError) -> [UInt8] {
    let (url, quoted) = (file.url, file.quoted)
    let fd = try open(file, for: role)
    defer { SystemCalls.release(FileDescriptor(rawValue: fd)) }
    // A regular file's size says how much to take: it is read straight into the result (one
    // byte more, to see its end), not in chunks appended to an array that grows and copies.
    // A file that grew meanwhile, or one that tells no size, goes on in chunks.
    // One known to be larger than the limit is refused before a byte is read.
    var expected = 0
    if case .success(let info) = SystemCalls.fstat(FileDescriptor(rawValue: fd)), info.st_mode & S_IFMT == S_IFREG {
      if info.st_size > limit, !truncating { throw tooLarge(file, role: role, limit: limit) }
      expected = min(Int(info.st_size), limit) + 1
    }
    var failure: Errno?
    var bytes = [UInt8](unsafeUninitializedCapacity: expected) { buffer, count in
      while count < buffer.count {
        switch SystemCalls.read(FileDescriptor(rawValue: fd), into: UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: buffer[count...]))) {
        case .success(0): return
        case .success(let read): count += read
        case .failure(let error):
          failure = error.errno
          return
        }
      }
    }
    if let code = failure {
      throw QuireError(QuireError.Code(code), "Cannot \(role) \(quoted): reading it failed (\(QuireError.describe(code))).", url: url, cause: code)
    }
    if bytes.count < expected { return bytes }
    var chunk = [UInt8](repeating: 0, count: 64 << 10)
    while true {
      let wanted = min(chunk.count, limit + 1 - bytes.count)
      if wanted <= 0 { break }
      let result = chunk.withUnsafeMutableBytes {
        SystemCalls.read(FileDescriptor(rawValue: fd), into: UnsafeMutableRawBufferPointer(rebasing: $0[0..<wanted])).mapError(\.errno)
      }
      switch result {
      case .success(0): return bytes
      case .success(let count): bytes += chunk[0..<count]
      case .failure(let code):
        throw QuireError(QuireError.Code(code), "Cannot \(role) \(quoted): reading it failed (\(QuireError.describe(code))).", url: url, cause: code)
      }
    }
    if truncating { return Array(bytes.prefix(limit)) }
    throw tooLarge(file, role: role, limit: limit)
  }

  private static func tooLarge(_ file: Named, role: String, limit: Int) -> QuireError {
    QuireError(
      .limitExceeded, "Cannot \(role) \(file.quoted): it is larger than \(limit >> 20) MiB, or endless. Give a smaller file.", url: file.url)
  }

  /// Reads `url` as UTF-8 text; refuses binary (NUL bytes) and invalid UTF-8, naming the file.
  /// With `truncating`, a sequence cut at the limit is dropped rather than refused.
  package static func readText(_ url: URL, for role: String, limit: Int, truncating: Bool = false) throws(QuireError) -> String {
    try readText(Named(url), for: role, limit: limit, truncating: truncating)
  }

  /// Reads `path` (any bytes) as UTF-8 text; see ``readText(_:for:limit:truncating:)-(URL,_,_,_)``.
  package static func readText(_ path: FilePath, for role: String, limit: Int, truncating: Bool = false) throws(QuireError) -> String {
    try readText(Named(path), for: role, limit: limit, truncating: truncating)
  }

  static func readText(_ file: Named, for role: String, limit: Int, truncating: Bool) throws(QuireError) -> String {
    let (url, quoted) = (file.url, file.quoted)
    var bytes = try read(file, for: role, limit: limit, truncating: truncating)
    if truncating, bytes.count == limit {
      // Drop a UTF-8 sequence the limit cut in two.
      var cut = bytes.count
      while cut > 0, cut > bytes.count - 4, bytes[cut - 1] & 0xC0 == 0x80 { cut -= 1 }
      if cut > 0, bytes[cut - 1] >= 0xC0 { bytes.removeSubrange((cut - 1)...) }
    }
    if bytes.withUnsafeBytes({ buffer in buffer.baseAddress.map { memchr($0, 0, buffer.count) != nil } ?? false }) {
      throw QuireError(.invalidContent, "Cannot \(role) \(quoted): it is binary (it has NUL bytes), not text.", url: url)
    }
    guard let text = String(validating: bytes, as: UTF8.self) else {
      throw QuireError(
        .invalidContent, "Cannot \(role) \(quoted): it is not UTF-8 text. Convert it (e.g. with iconv) first.", url: url)
    }
    return text
  }

  /// The error for `url` not being there, saying why when it is a link: a loop, or a link
  /// to nothing (what `stat` failing with `ELOOP` or `ENOENT` means), else "no such file".
  ///
  /// - Parameter role: What the file was for ("open", "read", "watch").
  package static func missingError(_ url: URL, for role: String) -> QuireError {
    missingError(Named(url), for: role)
  }

  /// The error for `path` (any bytes) not being there; see ``missingError(_:for:)-(URL,_)``.
  package static func missingError(_ path: FilePath, for role: String) -> QuireError {
    missingError(Named(path), for: role)
  }

  static func missingError(_ file: Named, for role: String) -> QuireError {
    let (url, quoted) = (file.url, file.quoted)
    switch SystemCalls.stat(file.path).mapError(\.errno) {
    case .failure(let code) where code == .tooManySymbolicLinkLevels: return openError(file, role: role, code)
    default: break
    }
    if case .success(let info) = SystemCalls.lstat(file.path), info.st_mode & S_IFMT == S_IFLNK {
      let target = SystemCalls.readLink(file.path).map { DisplayName.escaping($0) } ?? "?"
      return QuireError(
        .fileMissing,
        "Cannot \(role) \(quoted): it is a symbolic link to '\(target)', which does not exist. Fix or remove the link.",
        url: url)
    }
    return openError(file, role: role, .noSuchFileOrDirectory)
  }

  static func openError(_ file: Named, role: String, _ code: Errno) -> QuireError {
    let (url, quoted) = (file.url, file.quoted)
    switch code {
    case .noSuchFileOrDirectory:
      if case .success(let info) = SystemCalls.lstat(file.path), info.st_mode & S_IFMT == S_IFLNK {
        return missingError(file, for: role)
      }
      return QuireError(.fileMissing, "Cannot \(role) \(quoted): there is no such file. Check the path.", url: url, cause: code)
    case .permissionDenied:
      return QuireError(.permissionDenied, "Cannot \(role) \(quoted): it is not readable. Check its permissions.", url: url, cause: code)
    case .tooManySymbolicLinkLevels:
      return QuireError(
        .invalidArgument, "Cannot \(role) \(quoted): its symbolic links form a loop. Remove the link or give another path.",
        url: url, cause: code)
    case .notDirectory:
      return QuireError(.fileMissing, "Cannot \(role) \(quoted): a part of its path is not a folder.", url: url, cause: code)
    default:
      return QuireError(QuireError.Code(code), "Cannot \(role) \(quoted): it cannot be opened (\(QuireError.describe(code))).", url: url, cause: code)
    }
  }
}
