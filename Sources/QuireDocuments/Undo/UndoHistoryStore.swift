public import Foundation
import Glibc
import QuireCore
import QuireSystem
import QuireTypes
import SystemPackage

/// Where documents keep their undo history between sessions: `$XDG_STATE_HOME/quire/undo`.
///
/// One file per document, named by the SHA-256 of the document's path (`KEY.undo`, in
/// ``StoredUndoHistory``'s format), and a small pointer `ino-DEVICE-INODE` naming it, so
/// that a file renamed since (`mv`, or a rename the desktop's recent documents followed) finds
/// its history again by its identity. The folder is 0700 and made without following symbolic
/// links (`PrivateFolder`); files are 0600, written atomically (`AtomicFile`), and read with
/// `O_NOFOLLOW | O_NONBLOCK` and checked with `fstat(2)`: a symbolic link, a FIFO, another
/// user's file, a damaged, truncated or random file, or one from a newer format is set aside
/// (renamed `KEY.set-aside`) with a one-line warning, never read as history.
///
/// Each history is capped in bytes (its oldest undo steps are dropped first), and so is the
/// store (the least recently written histories go first).
///
/// A value holding only its root and limits, so it is `Sendable`.
public struct UndoHistoryStore: Sendable, Hashable {
  /// How much the store keeps.
  public struct Limits: Sendable, Hashable {
    /// The most bytes one document's history takes; its oldest steps are dropped beyond it,
    /// and a text larger than half of it is kept as its digest only.
    public var maximumBytesPerDocument: Int
    /// The most bytes of all histories together; the least recently written go first.
    public var maximumTotalBytes: Int64

    public init(maximumBytesPerDocument: Int = 8 << 20, maximumTotalBytes: Int64 = 128 << 20) {
      self.maximumBytesPerDocument = max(1024, maximumBytesPerDocument)
      self.maximumTotalBytes = max(0, maximumTotalBytes)
    }
  }

  /// The folder holding the histories.
  public let root: URL
  /// What the store keeps.
  public let limits: Limits
  /// The folder the store's private folders are made below (see `PrivateFolder`).
  private let trustedFolder: URL

  /// A store at `root`, by default ``defaultRoot(environment:)``.
  public init(root: URL? = nil, limits: Limits = Limits()) {
    self.root = (root ?? Self.defaultRoot()).standardizedFileURL
    self.limits = limits
    trustedFolder = VersionStore.trustedFolder(for: self.root)
  }

  /// `$XDG_STATE_HOME/quire/undo`, or `~/.local/state/quire/undo` when it is unset or not
  /// absolute.
  public static func defaultRoot(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
    XDGBaseDirectory.stateHome.url(in: environment).appendingPathComponent("quire/undo", isDirectory: true)
  }

  /// What ``history(for:)`` found.
  public enum Lookup: Sendable, Hashable {
    /// No history is stored for the file.
    case none
    /// The file's history (found by its path, or by its identity after a rename).
    case found(StoredUndoHistory)
    /// A history was there and could not be used: it was set aside; `warning` is one line
    /// saying why and where it went.
    case setAside(warning: String)
  }

  // MARK: Reading

  /// The stored history of the file at `url`: by its path, else by its device and inode (the
  /// file was renamed since the history was stored; the history then moves to the new path).
  public func history(for url: URL) -> Lookup {
    let folder: FileDescriptor
    do {
      folder = try PrivateFolder.open(root, below: trustedFolder)
    } catch {
      return .setAside(warning: "the undo history folder cannot be used: \(error.error(role: "the undo history folder").reason)")
    }
    defer { SystemCalls.release(folder) }
    let path = url.standardizedFileURL.path
    let name = Self.name(forPath: path)
    switch read(name, in: folder) {
    case .missing: break
    case .bytes(let bytes): return decode(bytes, name: name, in: folder, url: url)
    case .unusable(let why): return setAside(name, in: folder, url: url, why: why)
    }
    // Renamed since? The history stored for the inode now at `url`, whose old path no longer
    // holds that inode.
    guard case .success(let info) = SystemCalls.stat(FilePath(path)),
      case .bytes(let pointer) = read(Self.pointerName(device: UInt64(info.st_dev), inode: UInt64(info.st_ino)), in: folder),
      let oldName = String(validating: pointer, as: UTF8.self), oldName.hasSuffix(".undo"), !oldName.contains("/"), oldName != name,
      case .bytes(let bytes) = read(oldName, in: folder),
      let identity = StoredUndoHistory.identity(in: bytes),
      identity.device == UInt64(info.st_dev), identity.inode == UInt64(info.st_ino)
    else { return .none }
    if case .success(let old) = SystemCalls.stat(FilePath(identity.path)), old.st_dev == info.st_dev, old.st_ino == info.st_ino {
      return .none  // the old path is the same file (a hard link): its history is its own
    }
    _ = AtomicFile.move(finished: oldName, in: folder, to: name, in: folder)
    return decode(bytes, name: name, in: folder, url: url)
  }

  private enum Read {
    case missing
    case bytes([UInt8])
    case unusable(String)
  }

  /// Reads `name` in `folder` without following a link or waiting on a FIFO, if it is this
  /// user's regular file within the size limit.
  private func read(_ name: String, in folder: FileDescriptor) -> Read {
    let fd: FileDescriptor
    switch SystemCalls.open(name, in: folder, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, path: root.path + "/" + name) {
    case .success(let opened): fd = opened
    case .failure(let failure) where failure.errno == .noSuchFileOrDirectory: return .missing
    case .failure(let failure) where failure.errno == .tooManySymbolicLinkLevels: return .unusable("it is a symbolic link")
    case .failure(let failure): return .unusable("it cannot be read (\(failure))")
    }
    defer { SystemCalls.release(fd) }
    guard case .success(let info) = SystemCalls.fstat(fd) else { return .unusable("it cannot be read") }
    guard info.st_mode & S_IFMT == S_IFREG else { return .unusable("it is not a regular file") }
    guard info.st_uid == geteuid() else { return .unusable("it belongs to user \(info.st_uid), not to you") }
    guard Int64(info.st_size) <= Int64(limits.maximumBytesPerDocument) * 2 + 4096 else { return .unusable("it is larger than any history Quire writes") }
    switch SystemCalls.readAll(fd, sizeHint: Int(info.st_size)) {
    case .success(let data): return .bytes([UInt8](data))
    case .failure(let failure): return .unusable("it cannot be read (\(failure))")
    }
  }

  private func decode(_ bytes: [UInt8], name: String, in folder: FileDescriptor, url: URL) -> Lookup {
    do {
      return .found(try StoredUndoHistory.decode(bytes))
    } catch {
      return setAside(name, in: folder, url: url, why: error.description)
    }
  }

  /// Renames the unusable history `name` to `KEY.set-aside` (replacing an older one) and says so.
  private func setAside(_ name: String, in folder: FileDescriptor, url: URL, why: String) -> Lookup {
    let aside = String(name.dropLast(".undo".count)) + ".set-aside"
    let outcome: String
    if case .failure = AtomicFile.move(finished: name, in: folder, to: aside, in: folder) {
      _ = SystemCalls.remove(name, in: folder)
      outcome = "removed"
    } else {
      outcome = "set aside as '\(root.path)/\(aside)'"
    }
    return .setAside(warning: "the stored undo history of '\(url.lastPathComponent)' was not used: \(why); \(outcome), editing goes on without it")
  }

  // MARK: Writing

  /// Stores `history` as the history of the file at `url`, within the limits: its oldest undo
  /// steps (then its furthest redo steps) are dropped until it fits, and the least recently
  /// written histories of other files are removed until the store fits.
  ///
  /// - Throws: ``QuireError`` when the folder cannot be made or the file cannot be written.
  public func store(_ history: StoredUndoHistory, for url: URL) throws {
    var history = history
    let path = url.standardizedFileURL.path
    history.path = path
    if case .success(let info) = SystemCalls.stat(FilePath(path)) {
      history.device = UInt64(info.st_dev)
      history.inode = UInt64(info.st_ino)
    }
    let bytes = fitted(history).encoded()
    let folder: FileDescriptor
    do {
      folder = try PrivateFolder.open(root, below: trustedFolder)
    } catch {
      throw error.error(role: "the undo history folder", alternative: "set XDG_STATE_HOME to a folder of your own", url: url)
    }
    defer { SystemCalls.release(folder) }
    let name = Self.name(forPath: path)
    // The pointer of the identity stored before (an atomic save gave the file a new inode).
    if case .bytes(let old) = read(name, in: folder), let identity = StoredUndoHistory.identity(in: old),
      identity.device != history.device || identity.inode != history.inode
    {
      _ = SystemCalls.remove(Self.pointerName(device: identity.device, inode: identity.inode), in: folder)
    }
    if case .failure(let failure) = AtomicFile.write(bytes, named: name, in: folder, mode: 0o600, durable: false) {
      throw QuireError(
        .systemCallFailed, "Cannot store the undo history of \(QuireError.name(url)) in '\(root.path)'. Check that the folder is writable.", url: url,
        cause: failure)
    }
    if history.inode != 0 {
      _ = AtomicFile.write(Array(name.utf8), named: Self.pointerName(device: history.device, inode: history.inode), in: folder, mode: 0o600, durable: false)
    }
    trim(folder, keeping: name)
  }

  /// Forgets the stored history of the file at `url` (and any set aside).
  public func remove(for url: URL) {
    guard let folder = try? PrivateFolder.open(root, below: trustedFolder) else { return }
    defer { SystemCalls.release(folder) }
    let name = Self.name(forPath: url.standardizedFileURL.path)
    if case .bytes(let old) = read(name, in: folder), let identity = StoredUndoHistory.identity(in: old) {
      _ = SystemCalls.remove(Self.pointerName(device: identity.device, inode: identity.inode), in: folder)
    }
    _ = SystemCalls.remove(name, in: folder)
    _ = SystemCalls.remove(String(name.dropLast(".undo".count)) + ".set-aside", in: folder)
  }

  /// `history` cut to the per-document limit: the end state kept only when it takes at most
  /// half of it, then the oldest undo steps and the furthest redo steps dropped.
  func fitted(_ history: StoredUndoHistory) -> StoredUndoHistory {
    var history = history
    let limit = limits.maximumBytesPerDocument
    if let state = history.endState, state.count > limit / 2 { history.endState = nil }
    var size = 256 + history.path.utf8.count + (history.endState?.count ?? 0)
    var undoKept = 0
    for index in history.undo.indices {
      let stepSize = history.undo.encodedSize(at: index)
      guard size + stepSize <= limit else { break }
      size += stepSize
      undoKept += 1
    }
    var redoKept = 0
    for index in history.redo.indices {
      let stepSize = history.redo.encodedSize(at: index)
      guard size + stepSize <= limit else { break }
      size += stepSize
      redoKept += 1
    }
    history.undo = history.undo.keeping(first: undoKept)
    history.redo = history.redo.keeping(first: redoKept)
    return history
  }

  /// Removes the least recently written histories (and set-aside files) until the store fits
  /// its total limit, never `keeping`.
  private func trim(_ folder: FileDescriptor, keeping: String) {
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: root.path) else { return }
    var files: [(name: String, size: Int64, time: Int)] = []
    var total: Int64 = 0
    for name in names where name.hasSuffix(".undo") || name.hasSuffix(".set-aside") {
      guard case .success(let info) = SystemCalls.lstat(name, in: folder) else { continue }
      files.append((name, Int64(info.st_size), info.st_mtim.tv_sec * 1_000_000_000 + info.st_mtim.tv_nsec))
      total += Int64(info.st_size)
    }
    guard total > limits.maximumTotalBytes else { return }
    for file in files.sorted(by: { $0.time < $1.time }) where file.name != keeping {
      if case .bytes(let old) = read(file.name, in: folder), let identity = StoredUndoHistory.identity(in: old) {
        _ = SystemCalls.remove(Self.pointerName(device: identity.device, inode: identity.inode), in: folder)
      }
      _ = SystemCalls.remove(file.name, in: folder)
      total -= file.size
      if total <= limits.maximumTotalBytes { break }
    }
  }

  // MARK: Names

  /// The history file's name for the file at `path`.
  static func name(forPath path: String) -> String { ContentDigest.sha256(Data(path.utf8)) + ".undo" }

  /// The pointer file's name for a device and inode.
  static func pointerName(device: UInt64, inode: UInt64) -> String { "ino-\(device)-\(inode)" }
}
