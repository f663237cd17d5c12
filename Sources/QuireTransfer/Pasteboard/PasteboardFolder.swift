import Foundation
import QuireSystem
import QuireTypes
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// What a pasteboard folder holds in `state.json`: the items other processes can see.
struct PasteboardState: Codable, Sendable {
  /// Bumped by every change (set, clear).
  var changeCount: Int
  /// Names the current contents; the data folder and socket carry it.
  var generation: String
  /// The process serving promised representations, while it lives.
  var ownerProcess: Int32?
  /// The socket (a name inside the folder) where the owner serves them.
  var socketName: String?
  var items: [StoredItem]

  struct StoredItem: Codable, Sendable {
    var suggestedName: String?
    var expirationDate: Date?
    var representations: [StoredRepresentation]

    func isExpired(at now: Date) -> Bool { PasteboardState.hasExpired(expirationDate, at: now) }
  }

  /// Whether items expiring at `expirationDate` (never, when `nil`) have expired at `now`:
  /// the one rule for items in the folder, items this process holds and a desktop selection.
  static func hasExpired(_ expirationDate: Date?, at now: Date) -> Bool { expirationDate.map { $0 <= now } ?? false }

  struct StoredRepresentation: Codable, Sendable {
    var typeIdentifier: String
    /// The file in the generation's data folder once materialised; `nil` while promised.
    var fileName: String?
  }
}

/// One pasteboard's folder: `<root>/<name>/` with `lock`, `state.json`, a data folder per
/// generation and the owner's socket.
///
/// Every access checks the root and the folder again: real folders (not symbolic links),
/// owned by this user, with no permission for group or others. Access is serialised with
/// `flock(2)` on `lock`: shared to read, exclusive to change.
struct PasteboardFolder: Sendable {
  let root: URL
  let url: URL

  static let lockTimeout: Duration = .seconds(10)
  static let maximumStateSize = 16 << 20

  init(root: URL, name: String) {
    self.root = root
    url = root.appendingPathComponent(name, isDirectory: true)
  }

  func file(_ name: String) -> URL { url.appendingPathComponent(name) }

  /// Makes `path` and the folders between it and `trusted` (by default its parent) when
  /// absent (0700), and checks each is a private folder of this user, never a symbolic link.
  /// Loose permissions are refused, not tightened: another user may already have written
  /// into such a folder.
  static func checkPrivateFolder(_ path: URL, below trusted: URL? = nil) throws {
    do {
      try PrivateFolder.make(
        path, below: trusted ?? path.deletingLastPathComponent(), loosePermissions: .refuse)
    } catch {
      guard case .systemCall(let call, let code) = error.kind else { throw error.error(role: "the pasteboard folder") }
      let url = URL(fileURLWithPath: error.path, isDirectory: true)
      let failure = SyscallFailure(call: call, errno: code, path: error.path)
      throw call == "mkdirat" ? TransferErrors.writing(url, failure) : TransferErrors.opening(url, failure)
    }
  }

  /// Checks (and makes) the root and the folder.
  func prepare() throws {
    try Self.checkPrivateFolder(url, below: root.deletingLastPathComponent())
  }

  /// Runs `body` holding the folder's lock, shared or exclusive.
  func withLock<Result>(exclusive: Bool, _ body: () throws -> Result) throws -> Result {
    let fd = try lock(exclusive: exclusive)
    defer { unlock(fd) }
    return try body()
  }

  /// Runs async `body` holding the folder's lock (an flock belongs to the open file, not
  /// to a thread, so it holds across suspension points).
  func withLock<Result>(exclusive: Bool, _ body: () async throws -> Result) async throws -> Result {
    let fd = try lock(exclusive: exclusive)
    defer { unlock(fd) }
    return try await body()
  }

  private func unlock(_ fd: Int32) {
    SystemCalls.unlockWhole(FileDescriptor(rawValue: fd))
    SystemCalls.release(FileDescriptor(rawValue: fd))
  }

  /// Opens `lock` and takes the lock on it; returns the descriptor to unlock.
  private func lock(exclusive: Bool) throws -> Int32 {
    try prepare()
    let lockFile = file("lock")
    let fd: Int32
    switch SystemCalls.open(FilePath(lockFile.path), O_RDWR | O_CREAT | O_NOFOLLOW, mode: 0o600).map(\.rawValue) {
    case .success(let opened): fd = opened
    case .failure(let error): throw TransferErrors.opening(lockFile, error)
    }
    do {
      try Self.checkOwnFile(fd, lockFile)
      try take(fd, exclusive: exclusive)
    } catch {
      SystemCalls.release(FileDescriptor(rawValue: fd))
      throw error
    }
    return fd
  }

  private func take(_ fd: Int32, exclusive: Bool) throws {
    switch SystemCalls.lockWhole(FileDescriptor(rawValue: fd), exclusive: exclusive, deadline: .now + Self.lockTimeout) {
    case .success: break
    case .failure(let error) where error.errno.rawValue == EWOULDBLOCK:
      throw QuireError(
        .timedOut,
        "The pasteboard '\(url.lastPathComponent)' stayed locked by another process for \(Self.lockTimeout). Try again; if it persists, that process is stuck.",
        url: url, cause: error)
    case .failure(let error):
      throw QuireError(.systemCallFailed, "Cannot lock the pasteboard '\(url.lastPathComponent)'.", url: url, cause: error)
    }
  }

  /// Checks that an opened file is a regular file of this user.
  static func checkOwnFile(_ fd: Int32, _ url: URL) throws {
    guard case .success(let info) = SystemCalls.fstat(FileDescriptor(rawValue: fd)) else { return }
    guard info.st_mode & S_IFMT == S_IFREG, info.st_uid == geteuid() else {
      throw QuireError(
        .permissionDenied,
        "Refusing \(QuireError.name(url)) in the pasteboard folder: it is not a regular file of yours. Remove it.",
        url: url)
    }
  }

  /// The state, or `nil` when the pasteboard was never written. Call holding the lock.
  func readState() throws -> PasteboardState? {
    let stateFile = file("state.json")
    let fd: Int32
    switch SystemCalls.open(FilePath(stateFile.path), O_RDONLY | O_NOFOLLOW, mode: 0).map(\.rawValue) {
    case .success(let opened): fd = opened
    case .failure(let error) where error.errno.rawValue == ENOENT: return nil
    case .failure(let error): throw TransferErrors.opening(stateFile, error)
    }
    defer { SystemCalls.release(FileDescriptor(rawValue: fd)) }
    try Self.checkOwnFile(fd, stateFile)
    var data = Data()
    var buffer = [UInt8](repeating: 0, count: 64 << 10)
    while true {
      let count = try buffer.withUnsafeMutableBytes { raw -> Int in
        switch SystemCalls.read(FileDescriptor(rawValue: fd), into: raw) {
        case .success(let count): return count
        case .failure(let error): throw TransferErrors.opening(stateFile, error)
        }
      }
      if count == 0 { break }
      data.append(contentsOf: buffer[0..<count])
      if data.count > Self.maximumStateSize {
        throw QuireError(
          .limitExceeded, "The pasteboard's state file '\(stateFile.path)' is too large to be real. Copy something new to replace it.", url: stateFile)
      }
    }
    do {
      let state = try JSONDecoder().decode(PasteboardState.self, from: data)
      guard Self.isSafeName(state.generation), state.socketName.map(Self.isSafeName) ?? true,
        state.items.allSatisfy({ $0.representations.allSatisfy { $0.fileName.map(Self.isSafeName) ?? true } })
      else { throw QuireError(.invalidContent, "names outside the folder") }
      return state
    } catch {
      throw QuireError(
        .invalidContent,
        "The pasteboard's state file '\(stateFile.path)' is damaged. Copy something new to replace it.",
        url: stateFile, cause: error)
    }
  }

  /// Writes `state.json` with the atomic writer (beside, then renamed over). Call holding the exclusive lock.
  func writeState(_ state: PasteboardState) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    let data = try encoder.encode(state)
    if case .failure(let error) = AtomicFile.write(data, to: file("state.json").path, mode: 0o600) {
      throw TransferErrors.writing(file("state.json"), error)
    }
  }

  /// Removes a generation's data folder and socket.
  func removeGeneration(_ state: PasteboardState) {
    try? FileManager.default.removeItem(at: file(state.generation))
    if let socket = state.socketName { _ = SystemCalls.remove(file(socket).path) }
  }

  /// Removes staging folders of processes that are gone and reading folders older than an
  /// hour (left by processes that died mid-way). Call holding the exclusive lock.
  func removeLeftovers() {
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: url.path) else { return }
    let hourAgo = Date().addingTimeInterval(-3600)
    for name in names {
      let entry = file(name)
      if name.hasPrefix("staging-"), let pid = name.split(separator: "-").last.flatMap({ Int32($0) }),
        pid != getpid(), !Self.isAlive(pid)
      {
        try? FileManager.default.removeItem(at: entry)
      } else if name.hasPrefix("read-"),
        let modified = (try? FileManager.default.attributesOfItem(atPath: entry.path))?[.modificationDate] as? Date,
        modified < hourAgo
      {
        try? FileManager.default.removeItem(at: entry)
      }
    }
  }

  /// One path component without separators or dots, as the folder's own names are.
  static func isSafeName(_ name: String) -> Bool {
    !name.isEmpty && name.utf8.count <= 128 && !name.hasPrefix(".") && !name.contains("/") && !name.contains("\0")
  }

  /// Whether process `pid` is alive (signal 0 reaches it, or exists but is not ours).
  static func isAlive(_ pid: Int32) -> Bool {
    SystemCalls.processExists(pid)
  }
}
