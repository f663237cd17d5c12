import Foundation
import QuireCore
import QuireDocuments
import QuireSystem
import QuireTypes
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// What identifies a recent document apart from its path, as an Apple bookmark records it:
/// device and inode, a kernel file handle (`name_to_handle_at(2)`, which stays valid across
/// renames and moves within the file system), size, modification time and a SHA-256 of the
/// content (which finds a copy moved across file systems).
struct FileIdentity: Codable, Hashable {
  var device: UInt64
  var inode: UInt64
  var handleType: Int32?
  var handle: String?
  var size: Int64
  var modificationTime: Double
  var sha256: String?
  var lastPath: String
  var isGone = false

  /// Files larger than this are not hashed (the inode and the handle still identify them).
  static let maximumHashedSize: Int64 = 64 << 20

  static func current(of url: URL) -> FileIdentity? {
    guard case .success(let info) = SystemCalls.lstat(PathCarrier.filePath(url)) else { return nil }
    let kind = info.st_mode & S_IFMT
    guard kind == S_IFREG || kind == S_IFDIR else { return nil }
    var identity = FileIdentity(
      device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
      modificationTime: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9, lastPath: url.path)
    if case .success(let handle) = SystemCalls.fileHandle(of: PathCarrier.filePath(url)) {
      identity.handleType = handle.type
      identity.handle = Data(handle.bytes).base64EncodedString()
    }
    if kind == S_IFREG, identity.size <= maximumHashedSize, let data = try? SearchIndex.readRegularFile(url) {
      identity.sha256 = ContentDigest.sha256(data)
    }
    return identity
  }

  /// Whether the file at `url` is this one: the same inode, or (after a save that replaced
  /// the file) the same path still holding a file.
  func matches(_ url: URL) -> Bool {
    guard case .success(let info) = SystemCalls.lstat(PathCarrier.filePath(url)) else { return false }
    let kind = info.st_mode & S_IFMT
    return kind == S_IFREG || kind == S_IFDIR
  }

  /// Whether `url` holds this inode with the recorded size and modification time.
  func isUnchanged(at url: URL) -> Bool {
    guard case .success(let info) = SystemCalls.lstat(PathCarrier.filePath(url)) else { return false }
    return UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode && Int64(info.st_size) == size
      && Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9 == modificationTime
  }

  private func isSameInode(_ path: String) -> Bool {
    guard case .success(let info) = SystemCalls.lstat(PathCarrier.path(path)) else { return false }
    return UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
  }

  /// Finds the file again after it moved from `url`: through its file handle, then by inode,
  /// then by content, in `url`'s old folder and in `folders` (and their subfolders).
  func resolve(near url: URL, searching folders: [URL]) -> URL? {
    if let found = resolveByHandle(near: url) { return found }
    var roots: [URL] = []
    var folder = url.deletingLastPathComponent()
    while case .failure = SystemCalls.lstat(PathCarrier.filePath(folder)), folder.path != "/" { folder = folder.deletingLastPathComponent() }
    roots.append(folder)
    roots += folders
    var sameSize: [String] = []
    var visited = 0
    var seen = Set<String>()
    for root in roots where seen.insert(root.path).inserted {
      var pending = [root.path]
      while let current = pending.popLast(), visited < 50_000 {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: current) else { continue }
        for name in names {
          visited += 1
          let path = current == "/" ? "/" + name : current + "/" + name
          guard case .success(let info) = SystemCalls.lstat(PathCarrier.path(path)) else { continue }
          if UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode { return URL(fileURLWithPath: path) }
          let kind = info.st_mode & S_IFMT
          if kind == S_IFDIR && !name.hasPrefix(".") { pending.append(path) }
          if kind == S_IFREG && Int64(info.st_size) == size { sameSize.append(path) }
        }
      }
    }
    guard let sha256 else { return nil }
    for path in sameSize {
      if let data = try? SearchIndex.readRegularFile(URL(fileURLWithPath: path)), ContentDigest.sha256(data) == sha256 {
        return URL(fileURLWithPath: path)
      }
    }
    return nil
  }

  /// `open_by_handle_at(2)` (needs `CAP_DAC_READ_SEARCH`; without it this finds nothing).
  private func resolveByHandle(near url: URL) -> URL? {
    guard let handleType, let handle, let bytes = Data(base64Encoded: handle), !bytes.isEmpty else { return nil }
    var folder = url.deletingLastPathComponent()
    while case .failure = SystemCalls.lstat(PathCarrier.filePath(folder)), folder.path != "/" { folder = folder.deletingLastPathComponent() }
    guard case .success(let mount) = SystemCalls.open(PathCarrier.filePath(folder), O_RDONLY | O_DIRECTORY) else { return nil }
    defer { SystemCalls.release(mount) }
    guard case .success(let found) = SystemCalls.path(forHandle: [UInt8](bytes), type: handleType, onFileSystemOf: mount),
      found.isAbsolute, isSameInode(found.string)
    else { return nil }
    return PathCarrier.carrierURL(found)
  }
}

/// Quire's record of its recent entries' identities: `$XDG_STATE_HOME/quire/recent-files.json`
/// (0600 in a private folder), by entry `href`.
struct IdentityStore: Codable {
  var version = 1
  var entries: [String: FileIdentity] = [:]

  static func read(_ url: URL) throws -> IdentityStore {
    guard let data = try? SearchIndex.readRegularFile(url) else { return IdentityStore() }
    // A damaged record only loses the following of moved files; it is replaced on next write.
    return (try? JSONDecoder().decode(IdentityStore.self, from: data)) ?? IdentityStore()
  }

  func write(to url: URL, stateHome: XDGBaseDirectory.Location) throws {
    try PrivateFolder.make(
      url.deletingLastPathComponent(), below: stateHome.trustedFolder, role: "Quire's state folder", alternative: "set XDG_STATE_HOME to a folder of your own")
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
    do {
      try FileSaver.write(try encoder.encode(self), to: url, options: .privateState)
    } catch {
      throw QuireError(.systemCallFailed, "Cannot write Quire's record of recent files \(QuireError.name(url)).", url: url, cause: error)
    }
  }
}
