public import Foundation
import QuireSystem
public import QuireTypes
public import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// How ``FileSaver`` writes a file.
public struct SaveOptions: Sendable, Hashable {
  /// Calls `fsync(2)` on the containing folder after `renameat2(2)`, so the new name is on
  /// disk before the save reports success.
  public var syncsParentDirectory: Bool
  /// Permission bits of a file that did not exist before (`fchmod(2)`); `nil` means
  /// `0666` less the process's umask, as `open(2)` would give. An existing file keeps its own.
  public var newFilePermissions: FilePermissions?
  /// Refuses to replace an existing file (`renameat2(2)` with `RENAME_NOREPLACE`).
  public var requiresNewFile: Bool

  public init(
    syncsParentDirectory: Bool = true, newFilePermissions: FilePermissions? = nil,
    requiresNewFile: Bool = false
  ) {
    self.syncsParentDirectory = syncsParentDirectory
    self.newFilePermissions = newFilePermissions
    self.requiresNewFile = requiresNewFile
  }

  /// The default: flush the folder, keep an existing file's mode, new files get the umask's.
  public static let standard = SaveOptions()
  /// Per-user state (recovery files, recent documents): owner-only `0600`.
  public static let privateState = SaveOptions(newFilePermissions: [.ownerRead, .ownerWrite])
}

/// How a save put the new contents in place.
public enum SaveMethod: Sendable, Hashable {
  /// A new file was written beside and swapped in atomically (`renameat2(RENAME_EXCHANGE)`).
  case replaced
  /// There was no file: a new one was written beside and renamed into place.
  case created
  /// The file has several hard links (or its owner could not be kept on a new file), so it
  /// was rewritten in place behind a backup copy that is removed afterwards.
  case inPlace
}

/// What a successful save wrote.
public struct SaveResult: Sendable, Hashable {
  /// The file actually written: the target of a symlink, or the URL asked for.
  public var writtenURL: URL
  /// The fingerprint of the written file.
  public var fingerprint: FileFingerprint
  /// How the contents were put in place.
  public var method: SaveMethod
}

/// Writes whole files without ever leaving a torn or half-written one.
///
/// The new contents go to a temporary file created beside the target (`O_CREAT|O_EXCL|
/// O_CLOEXEC`, mode `0600`), are flushed with `fsync(2)`, get the old file's mode and owner,
/// and then swap places with the target in one `renameat2(2)` (`RENAME_EXCHANGE`); the folder
/// is flushed, and only then is the old version (now under the temporary name) removed. Any
/// failure up to and including the folder flush puts the old file back, so it stays
/// byte-for-byte what it was.
///
/// A symlink is saved through to its target (the link stays a link). A file with several
/// hard links is rewritten in place behind a backup copy, so every link sees the new
/// contents; if that write fails the old bytes are written back from the backup.
///
/// All system calls go through one internal seam that tests use to fail each step.
public enum FileSaver {
  /// Writes a command's output `data` to `url` by the output-path rule (`OutputPath`): a
  /// regular file (or nothing) gets the safe save of ``write(_:to:options:)``; an existing
  /// device or FIFO, or a symbolic link to one, is written through and stays what it is.
  ///
  /// - Throws: ``QuireError`` naming `url` and what is there when it cannot be written (a
  ///   folder, a socket, a link loop, a missing folder, a FIFO no one reads).
  public static func writeOutput(_ data: Data, to url: URL, options: SaveOptions = .standard) throws(QuireError) {
    do {
      try OutputPath.write(data, to: url) { target in try write(data, to: target, options: options) }
    } catch let error as QuireError {
      throw error
    } catch {
      throw QuireError(.systemCallFailed, "Cannot write to '\(DisplayName.escaping(path: url))'.", url: url, cause: error)
    }
  }

  /// Writes a command's output `data` to `path`, a path of any bytes (a name that is not UTF-8
  /// is written as that very name), by the output-path rule, as
  /// ``writeOutput(_:to:options:)-(Data,URL,_)`` writes to a URL.
  ///
  /// - Throws: ``QuireError`` naming `path` escaped and what is there when it cannot be written.
  public static func writeOutput(_ data: Data, to path: FilePath, options: SaveOptions = .standard) throws(QuireError) {
    try writeOutput(data, to: OutputPath.url(carrying: path), options: options)
  }

  /// Writes `text`'s bytes to `url` by the output-path rule, as ``writeOutput(_:to:options:)``
  /// writes `Data`: a regular file (or nothing) gets the safe save from the text's chunks
  /// (never joined; the bytes are hashed as they are written), a device or FIFO is written
  /// through.
  ///
  /// - Returns: Where and how a regular file was written, with the fingerprint of what was
  ///   written; `nil` when the text went through a device or FIFO.
  /// - Throws: ``QuireError`` naming `url` and what is there when it cannot be written.
  @discardableResult
  public static func writeOutput(_ text: TextStorage, to url: URL, options: SaveOptions = .standard) throws(QuireError) -> SaveResult? {
    switch try OutputPath.kind(of: url) {
    case .regularFile(let target): return try write(text, to: target, options: options)
    case .special(let description):
      var data = Data(capacity: text.utf8Count)
      text.forEachChunk { data.append($0) }
      try OutputPath.writeThrough(data, to: url, description: description)
      return nil
    }
  }

  /// Writes `data` to `url` safely.
  ///
  /// - Parameters:
  ///   - data: The complete new contents.
  ///   - url: The file to write (a `file:` URL). Its folder must exist.
  ///   - options: How to write; see ``SaveOptions``.
  /// - Returns: Where and how the contents were written.
  /// - Throws: ``QuireError`` naming `url`, the step that failed and what to do; the file
  ///   on disk is unchanged.
  @discardableResult
  public static func write(_ data: Data, to url: URL, options: SaveOptions = .standard) throws(QuireError)
    -> SaveResult
  {
    try write(FileBody.data(data), to: url, options: options)
  }

  /// Writes `text`'s bytes (after `prefix`, a byte order mark) to `url` safely, as
  /// ``write(_:to:options:)`` writes `Data`, from its chunks: the text is never joined into
  /// one buffer.
  @discardableResult
  public static func write(_ text: TextStorage, prefix: [UInt8] = [], to url: URL, options: SaveOptions = .standard) throws(QuireError)
    -> SaveResult
  {
    try write(FileBody.text(text, prefix: prefix), to: url, options: options)
  }

  /// Writes `data` to `url` safely; with `keeper`, the content it replaces is kept as a version
  /// (see ``ReplacedVersionKeeper``: after the swap, or before an in-place rewrite).
  static func write(_ data: FileBody, to url: URL, options: SaveOptions, keeper: ReplacedVersionKeeper? = nil) throws(QuireError) -> SaveResult {
    let target = resolvedTarget(of: url)
    let folderPath = target.deletingLastPathComponent().path
    let name = target.lastPathComponent
    let failure = Failure(url: url, folder: folderPath)

    // Paths and names are `PathText` strings: a URL carrying a name that is not UTF-8 (see
    // `OutputPath.url(carrying:)`) writes that very name.
    let folder = try SystemCalls.open(PathText.path(folderPath), O_RDONLY | O_DIRECTORY).get(or: failure, "open the folder")
    defer { SystemCalls.release(folder) }

    // What is there now decides how to write: nothing, a regular file, several links.
    let existing = try existingFile(named: name, in: folder, url: url, options: options, failure: failure)

    if let existing, existing.st_nlink > 1 {
      keeper?.keepCopy(of: target)
      return try writeInPlace(data, folder: folder, name: name, existing: existing, url: url, target: target, failure: failure)
    }

    // What a save killed mid-way left beside the file an hour or more ago goes now.
    FileWrapper.removeLeftovers(besides: target, notModifiedFor: FileWrapper.abandonedSaveAge)
    let tempName = AtomicFile.temporaryName(beside: name)
    // O_EXCL: a fresh file nobody else can hold open; 0600 until the contents are complete.
    let temp = try SystemCalls.open(tempName, in: folder, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: 0o600).get(or: failure, "create a temporary file")
    var tempOpen = true
    var tempExists = true
    defer {
      if tempOpen { _ = SystemCalls.close(temp) }
      if tempExists { _ = SystemCalls.remove(tempName, in: folder) }
    }

    // Write everything, then flush it: the rename below must never expose unflushed data.
    let hash = try data.write(to: temp).get(or: failure, "write the new contents")
    try SystemCalls.flush(temp).get(or: failure, "flush the new contents to disk")

    if let existing {
      // Keep the old file's mode and owner, so a save never widens or narrows access.
      try SystemCalls.setMode(temp, existing.st_mode & 0o7777).get(or: failure, "keep the file's permissions")
      if existing.st_uid != geteuid() || existing.st_gid != getegid() {
        switch SystemCalls.setOwner(temp, existing.st_uid, existing.st_gid) {
        case .success: break
        case .failure(let code) where code.errno == .notPermitted:
          // We may write the file but not give a new file its owner: write in place instead.
          keeper?.keepCopy(of: target)
          return try writeInPlace(data, folder: folder, name: name, existing: existing, url: url, target: target, failure: failure)
        case .failure(let code): throw failure.error(code, "keep the file's owner")
        }
      }
    } else {
      let mode = options.newFilePermissions.map { mode_t($0.rawValue) } ?? AtomicFile.newFileMode
      try SystemCalls.setMode(temp, mode).get(or: failure, "set the new file's permissions")
    }
    tempOpen = false
    try SystemCalls.close(temp).get(or: failure, "close the new contents")

    // Swap the new file in with one atomic rename: readers see the old or the new, never a mix.
    var exchanged = false
    if existing != nil {
      // Without RENAME_EXCHANGE a plain rename is still atomic, but a failed folder flush
      // below can no longer be undone, and the old file is gone after it: copied first.
      let replacement = try AtomicFile.replace(name, withFinished: tempName, in: folder) { keeper?.keepCopy(of: target) }
        .get(or: failure, "replace the file")
      exchanged = replacement == .exchanged
      tempExists = exchanged
    } else {
      // Never over a file that came meanwhile, where the file system can say so.
      try AtomicFile.place(tempName, as: name, in: folder, orRenaming: true).get(or: failure, "move the new file into place")
      tempExists = false
    }

    if options.syncsParentDirectory {
      // Flush the folder so the new name survives a power cut; on failure, undo the swap.
      if case .failure(let code) = SystemCalls.flush(folder, folder: true) {
        if exchanged {
          _ = AtomicFile.swapBack(name, replaced: tempName, in: folder)
        } else if existing == nil {
          _ = SystemCalls.remove(name, in: folder)
        }
        throw failure.error(code, "flush the folder to disk")
      }
    }
    // `tempName` now holds the old version (after an exchange): the version store may take it,
    // else the deferred unlink drops it.
    if exchanged, let existing { keeper?.keepReplaced(named: tempName, in: folder, url: target, replaced: existing) }
    let info = try SystemCalls.lstat(name, in: folder).get(or: failure, "inspect the saved file")
    return SaveResult(
      writtenURL: target, fingerprint: fingerprint(info, hash),
      method: existing == nil ? .created : .replaced)
  }

  /// The regular file now at `name` (nothing when there is none), or the error that keeps a
  /// save from replacing it: not a regular file, a new file required, or a read-only file.
  private static func existingFile(named name: String, in folder: FileDescriptor, url: URL, options: SaveOptions, failure: Failure) throws(QuireError)
    -> stat?
  {
    switch SystemCalls.lstat(name, in: folder) {
    case .success(let info):
      guard (info.st_mode & S_IFMT) == S_IFREG else {
        throw QuireError(
          .unsupportedType,
          "Cannot save \(QuireError.name(url)): it is not a regular file. Save under another name.",
          url: url)
      }
      guard !options.requiresNewFile else {
        throw QuireError(.fileExists, "Cannot create \(QuireError.name(url)): a file with that name already exists. Choose another name.", url: url)
      }
      // A read-only file stays read-only: replacing it through the folder would be allowed,
      // but the user (or `chmod a-w`) said it must not change. No write bit refuses root too.
      let noWriteBit = info.st_mode & 0o222 == 0
      if noWriteBit || (try? SystemCalls.checkWritable(name, in: folder).get()) == nil {
        throw QuireError(
          .permissionDenied,
          "Cannot save \(QuireError.name(url)): the file is read-only. Use \"save as\" to keep a copy elsewhere, or make it writable; the file on disk is unchanged and your edits are kept.",
          url: url, cause: SyscallFailure(call: "faccessat", errno: .permissionDenied))
      }
      return info
    case .failure(let code) where code.errno == .noSuchFileOrDirectory: return nil
    case .failure(let code): throw failure.error(code, "inspect the file")
    }
  }

  /// Rewrites a file in place behind a backup copy (several hard links, or an owner we cannot
  /// give a new file). On failure the old bytes are written back from memory; the backup
  /// beside the file covers a crash in the middle.
  private static func writeInPlace(
    _ data: FileBody, folder: FileDescriptor, name: String, existing: stat, url: URL, target: URL, failure: Failure
  ) throws(QuireError) -> SaveResult {
    // Read the old contents: they are the backup and what a failure writes back.
    let reader = try SystemCalls.open(name, in: folder, O_RDONLY | O_NOFOLLOW).get(or: failure, "open the file")
    let old = SystemCalls.readAll(reader, sizeHint: Int(existing.st_size))
    SystemCalls.release(reader)
    let oldBytes = try old.get(or: failure, "read the file for its backup")

    // The backup: flushed, and its name flushed, before the file is touched.
    let backupName = AtomicFile.temporaryName(beside: name, suffix: "backup")
    let backup = try SystemCalls.open(backupName, in: folder, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: 0o600).get(or: failure, "create a backup copy")
    var backupExists = true
    defer { if backupExists { _ = SystemCalls.remove(backupName, in: folder) } }
    do throws(QuireError) {
      try oldBytes.withUnsafeBytes { SystemCalls.writeAll(backup, $0) }.get(or: failure, "write the backup copy")
      try SystemCalls.flush(backup).get(or: failure, "flush the backup copy")
    } catch {
      _ = SystemCalls.close(backup)
      throw error
    }
    try SystemCalls.close(backup).get(or: failure, "close the backup copy")
    try SystemCalls.flush(folder, folder: true).get(or: failure, "flush the folder to disk")

    let file = try SystemCalls.open(name, in: folder, O_WRONLY | O_NOFOLLOW).get(or: failure, "open the file for writing")
    var fileOpen = true
    defer { if fileOpen { _ = SystemCalls.close(file) } }
    let written: Result<ContentHash, SyscallFailure> = data.write(to: file, at: 0).flatMap { hash in
      SystemCalls.truncate(file, to: data.count).flatMap { SystemCalls.flush(file) }.map { hash }
    }
    if case .failure(let code) = written {
      // Put the old bytes back; keep the backup if even that fails.
      let restored: Result<Void, SyscallFailure> = oldBytes.withUnsafeBytes { bytes in
        SystemCalls.writeAll(file, bytes, at: 0)
          .flatMap { SystemCalls.truncate(file, to: oldBytes.count) }
          .flatMap { SystemCalls.flush(file) }
      }
      if case .failure = restored {
        backupExists = false
        throw QuireError(
          QuireError.Code(code.errno),
          "Cannot save \(QuireError.name(url)) in place: \(QuireError.describe(code.errno)), and the old contents could not be written back. They are kept in '\(backupName)' beside it; copy them back before editing further.",
          url: url, cause: code)
      }
      throw failure.error(code, "write the file in place")
    }
    guard case .success(let hash) = written else { preconditionFailure("a failed in-place write returned above") }
    fileOpen = false
    try SystemCalls.close(file).get(or: failure, "close the file")
    let info = try SystemCalls.lstat(name, in: folder).get(or: failure, "inspect the saved file")
    return SaveResult(writtenURL: target, fingerprint: fingerprint(info, hash), method: .inPlace)
  }

  static func fingerprint(_ info: stat, _ hash: ContentHash) -> FileFingerprint {
    FileFingerprint(
      device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int(info.st_size),
      modificationTime: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec),
      contentHash: hash)
  }

  /// The file a save really writes: the end of a symlink chain, or `url` when it does not exist.
  static func resolvedTarget(of url: URL) -> URL {
    let path = url.standardizedFileURL.path
    if let real = SystemCalls.resolvedPath(path) { return URL(fileURLWithPath: real) }
    // A dangling symlink: follow it by hand to where the new file belongs.
    var current = path
    for _ in 0..<40 {
      guard let link = SystemCalls.readLink(current) else { break }
      current = link.hasPrefix("/") ? link : (current as NSString).deletingLastPathComponent + "/" + link
    }
    let parent = (current as NSString).deletingLastPathComponent
    let name = (current as NSString).lastPathComponent
    let realParent = SystemCalls.resolvedPath(parent) ?? parent
    return URL(fileURLWithPath: realParent).appendingPathComponent(name)
  }

}

/// Turns a failed call of one save step into a ``QuireError`` that names the file and step:
/// the code from the one errno table (``QuireError/Code/init(_:for:)``), the failure kept as
/// the cause.
struct Failure {
  let url: URL
  let folder: String

  func error(_ failure: SyscallFailure, _ step: String) -> QuireError {
    let advice: String =
      switch failure.errno {
      case .noSpace, .diskQuotaExceeded: "Free some space and save again"
      case .permissionDenied, .notPermitted, .readOnlyFileSystem:
        "'\(DisplayName.escaping(folder))' or the file is not writable; use \"save as\" to keep a copy elsewhere"
      case .noSuchFileOrDirectory: "Its folder is gone; use \"save as\" to choose another place"
      default: "Try again, or use \"save as\" to keep a copy elsewhere"
      }
    return QuireError(
      QuireError.Code(failure.errno, for: .save),
      "Cannot save \(QuireError.name(url)): \(QuireError.describe(failure.errno, while: .save)) while trying to \(step). \(advice); the file on disk is unchanged and your edits are kept.",
      url: url, cause: failure)
  }
}

extension Result where Failure == SyscallFailure {
  func get(or failure: QuireDocuments.Failure, _ step: String) throws(QuireError) -> Success {
    switch self {
    case .success(let value): return value
    case .failure(let code): throw failure.error(code, step)
    }
  }
}

/// The bytes a save writes: given whole, or as the chunks of a text (never joined).
enum FileBody {
  case data(Data)
  case text(TextStorage, prefix: [UInt8])

  /// The number of bytes.
  var count: Int {
    switch self {
    case .data(let data): data.count
    case .text(let text, let prefix): prefix.count + text.utf8Count
    }
  }

  /// Writes the bytes to `fd` at `offset` (or where it stands) and returns their hash.
  func write(to fd: FileDescriptor, at offset: Int? = nil) -> Result<ContentHash, SyscallFailure> {
    var hasher = ContentHasher()
    switch self {
    case .data(let data):
      return data.withUnsafeBytes { bytes in
        hasher.update(bytes)
        return SystemCalls.writeAll(fd, bytes, at: offset).map { hasher.finalize() }
      }
    case .text(let text, let prefix):
      // Chunks are gathered into one buffer of up to 1 MiB per write: a few hundred writes
      // for 100 MB, and a small text is still one write.
      let capacity = 1 << 20
      var buffer = [UInt8]()
      buffer.reserveCapacity(min(capacity, prefix.count + text.utf8Count))
      buffer.append(contentsOf: prefix)
      var written = 0
      var failure: SyscallFailure?
      func flush() {
        guard failure == nil, !buffer.isEmpty else { return }
        buffer.withUnsafeBytes { bytes in
          hasher.update(bytes)
          if case .failure(let code) = SystemCalls.writeAll(fd, bytes, at: offset.map { $0 + written }) { failure = code }
        }
        written += buffer.count
        buffer.removeAll(keepingCapacity: true)
      }
      text.forEachChunk { bytes in
        guard failure == nil else { return }
        if buffer.count + bytes.count > capacity { flush() }
        buffer.append(contentsOf: bytes)
      }
      flush()
      if let failure { return .failure(failure) }
      return .success(hasher.finalize())
    }
  }
}
