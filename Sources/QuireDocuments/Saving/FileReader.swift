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
    let target = FileSaver.resolvedTarget(of: url)
    let folderPath = target.deletingLastPathComponent().path
    let folder: FileDescriptor
    switch SystemCalls.open(FilePath(folderPath), O_RDONLY | O_DIRECTORY) {
    case .success(let fd): folder = fd
    case .failure(let code): throw readError(code, url, "open its folder")
    }
    defer { SystemCalls.release(folder) }
    let file: FileDescriptor
    switch SystemCalls.open(target.lastPathComponent, in: folder, O_RDONLY | O_NOFOLLOW) {
    case .success(let fd): file = fd
    case .failure(let code): throw readError(code, url, "open it")
    }
    defer { SystemCalls.release(file) }
    let info: stat
    switch SystemCalls.fstat(file) {
    case .success(let value): info = value
    case .failure(let code): throw readError(code, url, "inspect it")
    }
    guard (info.st_mode & S_IFMT) == S_IFREG else {
      let what = (info.st_mode & S_IFMT) == S_IFDIR ? "a folder" : "not a regular file"
      throw QuireError(.unsupportedType, "Cannot open \(QuireError.name(url)): it is \(what). Open a file instead.", url: url)
    }
    guard Int(info.st_size) <= maximumSize else {
      throw QuireError(
        .limitExceeded,
        "Cannot open \(QuireError.name(url)): it is \(info.st_size) bytes, more than the \(maximumSize >> 30) GiB a document can hold in memory.",
        url: url)
    }
    let data: Data
    switch SystemCalls.readAll(file, sizeHint: Int(info.st_size)) {
    case .success(let value): data = value
    case .failure(let code): throw readError(code, url, "read it")
    }
    var fingerprint = FileSaver.fingerprint(info, ContentHash(data))
    fingerprint.size = data.count
    return (fingerprint, data)
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
