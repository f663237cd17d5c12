import Foundation
import QuireSystem
import QuireTypes
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// Reads whole files through the syscall seam, with their fingerprint.
enum FileReader {
  /// Files larger than this are refused (a document is held in memory).
  static let maximumSize = 4 << 30

  static func read(_ url: URL) throws(QuireError) -> (fingerprint: FileFingerprint, contents: Data) {
    try withOpenFile(url) { file, info throws(QuireError) in try read(file, info, url) }
  }

  /// Reads the rest of `descriptor`, a file the caller opened for reading, with its
  /// fingerprint, as ``read(_:)`` reads a file it opens (`url` names it in errors).
  static func read(descriptor: Int32, url: URL) throws(QuireError) -> (fingerprint: FileFingerprint, contents: Data) {
    let file = FileDescriptor(rawValue: descriptor)
    return try read(file, inspectOpened(file, url), url)
  }

  /// The bytes of `file` from where it stands (a large file into a mapped scratch copy, see
  /// ``ScratchCopy``) and their fingerprint.
  private static func read(_ file: FileDescriptor, _ info: stat, _ url: URL) throws(QuireError) -> (fingerprint: FileFingerprint, contents: Data) {
    let data: Data
    let hash: ContentHash
    if let copy = ScratchCopy.read(file, size: Int(info.st_size)) {
      (data, hash) = copy
    } else {
      switch SystemCalls.readAll(file, sizeHint: Int(info.st_size)) {
      case .success(let value): data = value
      case .failure(let code): throw readError(code, url, "read it")
      }
      hash = ContentHash(data)
    }
    var fingerprint = FileSaver.fingerprint(info, hash)
    fingerprint.size = data.count
    return (fingerprint, data)
  }

  /// The fingerprint of the file at `url`, read a megabyte at a time: what ``read(_:)`` gives
  /// without holding the file (a save's check for changes on disk).
  static func fingerprint(_ url: URL) throws(QuireError) -> FileFingerprint {
    try withOpenFile(url) { file, info throws(QuireError) in
      var hasher = ContentHasher()
      var size = 0
      let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
      defer { buffer.deallocate() }
      while true {
        switch SystemCalls.read(file, into: buffer) {
        case .success(0):
          var fingerprint = FileSaver.fingerprint(info, hasher.finalize())
          fingerprint.size = size
          return fingerprint
        case .success(let count):
          hasher.update(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
          size += count
        case .failure(let code): throw readError(code, url, "read it")
        }
      }
    }
  }

  /// Opens the regular file at `url` (symbolic links followed) for reading and runs `body`
  /// with it and its status.
  private static func withOpenFile<R>(_ url: URL, _ body: (FileDescriptor, stat) throws(QuireError) -> R) throws(QuireError) -> R {
    let target = FileSaver.resolvedTarget(of: url)
    let folderPath = target.deletingLastPathComponent().path
    let folder: FileDescriptor
    switch SystemCalls.open(PathText.path(folderPath), O_RDONLY | O_DIRECTORY) {
    case .success(let fd): folder = fd
    case .failure(let code): throw readError(code, url, "open its folder")
    }
    defer { SystemCalls.release(folder) }
    // Look before opening: opening a FIFO for reading waits for a writer, maybe for ever, and
    // opening a device can have effects. What open would refuse, it reports itself, below.
    if case .success(let info) = SystemCalls.lstat(target.lastPathComponent, in: folder), (info.st_mode & S_IFMT) != S_IFLNK {
      try requireRegularFile(info, url)
    }
    let file: FileDescriptor
    switch SystemCalls.open(target.lastPathComponent, in: folder, O_RDONLY | O_NOFOLLOW) {
    case .success(let fd): file = fd
    case .failure(let code): throw readError(code, url, "open it")
    }
    defer { SystemCalls.release(file) }
    return try body(file, inspectOpened(file, url))
  }

  /// The metadata of `file`, opened for reading: a regular file of a size that can be read
  /// (`url` names it in errors).
  private static func inspectOpened(_ file: FileDescriptor, _ url: URL) throws(QuireError) -> stat {
    let info: stat
    switch SystemCalls.fstat(file) {
    case .success(let value): info = value
    case .failure(let code): throw readError(code, url, "inspect it")
    }
    try requireRegularFile(info, url)
    try requireSize(info, url)
    return info
  }

  /// Throws unless the file `info` describes fits in a document.
  private static func requireSize(_ info: stat, _ url: URL) throws(QuireError) {
    guard Int(info.st_size) > maximumSize else { return }
    throw QuireError(
      .limitExceeded,
      "Cannot open \(QuireError.name(url)): it is \(info.st_size) bytes, more than the \(maximumSize >> 30) GiB a document can hold in memory.",
      url: url)
  }

  /// Throws unless `info` describes a regular file. A folder's error has the cause reading
  /// it would have (`EISDIR`), as tools that print the system's reason need.
  private static func requireRegularFile(_ info: stat, _ url: URL) throws(QuireError) {
    guard (info.st_mode & S_IFMT) != S_IFREG else { return }
    let isFolder = (info.st_mode & S_IFMT) == S_IFDIR
    throw QuireError(
      .unsupportedType, "Cannot open \(QuireError.name(url)): it is \(isFolder ? "a folder" : "not a regular file"). Open a file instead.", url: url,
      cause: isFolder ? SyscallFailure(call: "read", errno: .isDirectory, path: url.path) : nil)
  }

  static func readError(_ failure: SyscallFailure, _ url: URL, _ step: String) -> QuireError {
    let code = failure.errno
    let (kind, text): (QuireError.Code, String) =
      switch code {
      case .noSuchFileOrDirectory: (.fileMissing, "it does not exist. Check the path")
      case .permissionDenied, .notPermitted: (.permissionDenied, "permission was denied. Check the file's permissions")
      case .tooManySymbolicLinkLevels: (.invalidArgument, "it is a symlink loop. Fix the link")
      case .isDirectory: (.unsupportedType, "it is a folder. Open a file instead")
      default: (QuireError.Code(code), "\(QuireError.describe(code)) while trying to \(step). Try again")
      }
    return QuireError(kind, "Cannot open \(QuireError.name(url)): \(text).", url: url, cause: failure)
  }
}
