public import Foundation
public import QuireCoordination
import QuireSystem
import QuireTypes
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// How an item provider reads a file that a representation hands it, so that no
/// coordinated writer changes the file half-way through the read.
///
/// The default is `QuireCoordination`'s ``FileCoordinator`` (conforming below): the read is a
/// coordinated read, so it waits while any process of the user holds a coordinated write of
/// the file or a folder above it (a `Document` saving, a `FileCoordinator` writer), and asks
/// the file's presenters to save first, as `NSItemProvider` file loads coordinate with
/// `NSFileCoordinator` on Apple's platforms. Pasteboard files read through their provider's
/// coordinator too. Another conformance is for tests, or for an embedder with its own
/// locking.
public protocol FileReadCoordinating: Sendable {
  /// Runs `body` with `url` while coordinated writers of the file are kept out.
  ///
  /// - Parameters:
  ///   - url: The file to read.
  ///   - timeout: How long to wait for writers to finish before giving up.
  ///   - body: Reads the file; runs once, on the calling thread.
  /// - Throws: ``QuireError`` `.timedOut` when the file stays locked, `.fileMissing` or
  ///   `.permissionDenied` when it cannot be opened; whatever `body` throws.
  func coordinateReading<Result>(
    itemAt url: URL, timeout: Duration, _ body: (URL) throws -> Result
  ) throws -> Result
}

/// Item providers read files as coordinated readers: they wait for Quire's coordinated
/// writers (in this process or another) and for nobody else.
extension FileCoordinator: FileReadCoordinating {
  public func coordinateReading<Result>(
    itemAt url: URL, timeout: Duration, _ body: (URL) throws -> Result
  ) throws -> Result {
    // A symbolic link is refused, not followed: the check comes before the lock, and the body
    // opens with O_NOFOLLOW as well.
    if case .success(let info) = SystemCalls.lstat(FilePath(url.path)), info.st_mode & S_IFMT == S_IFLNK {
      throw TransferErrors.opening(url, SyscallFailure(call: "lstat", errno: Errno(rawValue: ELOOP)))
    }
    do {
      return try coordinate(readingItemAt: url, options: [], timeout: timeout, byAccessor: body)
    } catch let error as QuireError where error.code == .timedOut {
      throw QuireError(
        .timedOut, "Cannot read \(QuireError.name(url)): another program kept it locked for writing for \(timeout). Try again when it has finished saving.",
        url: url, cause: error)
    }
  }
}

/// Errors shared by the files of this module.
enum TransferErrors {
  static func opening(_ url: URL, _ error: SyscallFailure) -> QuireError {
    switch error.errno.rawValue {
    case ENOENT:
      return QuireError(.fileMissing, "Cannot read \(QuireError.name(url)): it does not exist. Check the path.", url: url, cause: error)
    case EACCES, EPERM:
      return QuireError(.permissionDenied, "Cannot read \(QuireError.name(url)): permission denied. Check the file's permissions.", url: url, cause: error)
    case ELOOP:
      return QuireError(
        .permissionDenied, "Refusing to read \(QuireError.name(url)): it is a symbolic link. Use the file it points to.", url: url, cause: error)
    default:
      return QuireError(.systemCallFailed, "Cannot open \(QuireError.name(url)).", url: url, cause: error)
    }
  }

  static func writing(_ url: URL, _ error: SyscallFailure) -> QuireError {
    QuireError(error, while: .write, url: url)
  }
}

/// A private folder (0700, from `mkdtemp(3)`) for the temporary files of one load,
/// removed with everything in it by ``remove()``.
struct ScratchFolder: Sendable {
  let url: URL

  init(in parent: URL = FileManager.default.temporaryDirectory) throws {
    switch SystemCalls.makeTemporaryFolder(in: parent.path, prefix: "quire-transfer-") {
    case .success(let path): url = URL(fileURLWithPath: path, isDirectory: true)
    case .failure(let error): throw TransferErrors.writing(parent, error)
    }
  }

  func remove() { try? FileManager.default.removeItem(at: url) }

  /// A file name for an item: its suggested name (made safe) with the type's extension.
  static func fileName(suggestedName: String?, type: UTType?) -> String {
    var base = (suggestedName ?? "item")
      .replacingOccurrences(of: "/", with: "-")
      .replacingOccurrences(of: "\0", with: "")
    if base.isEmpty || base == "." || base == ".." { base = "item" }
    if base.utf8.count > 200 { base = String(base.prefix(100)) }
    if let ext = type?.preferredFilenameExtension, !base.lowercased().hasSuffix("." + ext) {
      base += "." + ext
    }
    return base
  }

  /// Creates `name` in the folder (`O_CREAT|O_EXCL`, 0600) and writes `data`.
  func write(_ data: Data, named name: String) throws -> URL {
    let target = url.appendingPathComponent(name)
    let fd = try Self.create(target)
    defer { SystemCalls.release(FileDescriptor(rawValue: fd)) }
    if case .failure(let error) = SystemCalls.writeAll(FileDescriptor(rawValue: fd), data) { throw TransferErrors.writing(target, error) }
    return target
  }

  /// Copies the file at `source` (keeping holes) to `name` in the folder.
  func copy(_ source: URL, named name: String, cancelled: () -> Bool = { false }) throws -> URL {
    let target = url.appendingPathComponent(name)
    try Self.copyFile(source, to: target, cancelled: cancelled)
    return target
  }

  static func create(_ target: URL, mode: mode_t = 0o600) throws -> Int32 {
    switch SystemCalls.open(PathText.path(target.path), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: mode).map(\.rawValue) {
    case .success(let fd): return fd
    case .failure(let error): throw TransferErrors.writing(target, error)
    }
  }

  /// Copies `source` to a new file `target`, keeping holes; removes `target` on failure.
  static func copyFile(_ source: URL, to target: URL, mode: mode_t = 0o600, cancelled: () -> Bool = { false }) throws {
    let input: Int32
    switch SystemCalls.open(PathText.path(source.path), O_RDONLY, mode: 0).map(\.rawValue) {
    case .success(let fd): input = fd
    case .failure(let error): throw TransferErrors.opening(source, error)
    }
    defer { SystemCalls.release(FileDescriptor(rawValue: input)) }
    let output = try create(target, mode: mode)
    defer { SystemCalls.release(FileDescriptor(rawValue: output)) }
    do { try copy(FileDescriptor(rawValue: input), from: source, into: FileDescriptor(rawValue: output), naming: target, cancelled: cancelled) } catch {
      _ = SystemCalls.remove(target.path)
      throw error
    }
  }

  /// Copies `source` (a file, by name) into the open `output`, keeping holes; `target` names
  /// the output in messages.
  static func copy(_ source: URL, into output: FileDescriptor, naming target: URL, cancelled: () -> Bool = { false }) throws {
    let input: FileDescriptor
    switch SystemCalls.open(PathText.path(source.path), O_RDONLY, mode: 0) {
    case .success(let fd): input = fd
    case .failure(let error): throw TransferErrors.opening(source, error)
    }
    defer { SystemCalls.release(input) }
    try copy(input, from: source, into: output, naming: target, cancelled: cancelled)
  }

  private static func copy(_ input: FileDescriptor, from source: URL, into output: FileDescriptor, naming target: URL, cancelled: () -> Bool) throws {
    if case .failure(let error) = SystemCalls.copySparse(from: input, to: output, cancelled: cancelled) {
      if error.errno.rawValue == ECANCELED {
        throw QuireError(.cancelled, "Copying \(QuireError.name(source)) was cancelled.", url: source)
      }
      throw TransferErrors.writing(target, error)
    }
  }
}
