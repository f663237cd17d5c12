public import Foundation
import Glibc
import QuireCore
import QuireSystem
import QuireTypes
import SystemPackage

/// One kept version of a file: the content it had before a save, as `NSFileVersion` gives it.
public struct FileVersion: Sendable, Hashable, Identifiable, Codable {
  /// A stable name for the version, unique within its file.
  public let id: String
  /// The path of the file the version was kept from (the key of its history, so the
  /// versions of a deleted file can still be listed).
  public let originalPath: String
  /// When the content was last modified before it was kept (the file's `st_mtime` then).
  public let modificationDate: Date
  /// When the version was kept.
  public let savedDate: Date
  /// The content's size in bytes.
  public let size: Int
  /// The SHA-256 of the content; versions with the same content share one stored copy. For
  /// a package, the SHA-256 of its manifest (names, kinds, modes and each file's SHA-256).
  public let contentHash: String
  /// Whether the version is a package (a folder) rather than a file; absent in indexes
  /// written before packages were versioned.
  private var package: Bool?

  /// Whether the version is a package (a folder), stored as a manifest and its files.
  public var isPackage: Bool { package ?? false }

  init(id: String, originalPath: String, modificationDate: Date, savedDate: Date, size: Int, contentHash: String, isPackage: Bool) {
    self.id = id
    self.originalPath = originalPath
    self.modificationDate = modificationDate
    self.savedDate = savedDate
    self.size = size
    self.contentHash = contentHash
    self.package = isPackage ? true : nil
  }

  /// The file the version was kept from.
  public var originalURL: URL { URL(fileURLWithPath: originalPath) }
}

/// What ``VersionStore/restore(_:to:)`` did, with what it takes to undo it.
public struct VersionRestoration: Sendable, Hashable {
  /// The file that was restored.
  public let url: URL
  /// The version whose content the file now has.
  public let restored: FileVersion
  /// The version kept of the content the file had just before, or `nil` when there was no
  /// file (it had been deleted); undoing puts this back, or removes the file.
  public let previous: FileVersion?
}

/// The saved versions of documents, kept under `$XDG_STATE_HOME/quire/versions`.
///
/// A package (a folder such as a `.textbundle`) is kept as a tree of content-addressed
/// files: each regular file is stored once by its SHA-256, like any file's content, and the
/// version is a manifest (JSON, names in order: path, kind, mode, SHA-256 or link
/// destination) stored the same way. The same package saved twice is one manifest; an asset
/// shared by every version of a package is stored once.
///
/// Call ``keepVersion(of:)`` before each save: it keeps the content the file has now.
/// Content is stored once per SHA-256 (``ContentDigest``) however many versions or files
/// share it; each file's history is a small JSON index keyed by the file's path. The number
/// of versions per file and the total size are bounded: the oldest versions go first.
/// Folders are 0700 and files 0600 (stored content 0400), symbolic links are never followed,
/// and every file is written atomically. An exclusive `flock(2)` on `ROOT/lock` serialises
/// processes sharing the store.
///
/// A value type holding only its root and limits, so it is `Sendable`.
public struct VersionStore: Sendable {
  /// How much the store keeps.
  public struct Limits: Sendable, Equatable {
    /// Versions kept per file; the oldest beyond this are removed.
    public var maximumVersionsPerFile: Int
    /// Total bytes of stored content; the oldest versions of any file are removed beyond it.
    public var maximumTotalBytes: Int64
    public init(maximumVersionsPerFile: Int = 50, maximumTotalBytes: Int64 = 512 << 20) {
      self.maximumVersionsPerFile = max(1, maximumVersionsPerFile)
      self.maximumTotalBytes = max(0, maximumTotalBytes)
    }
  }

  /// The folder holding the store.
  public let root: URL
  /// What the store keeps.
  public let limits: Limits

  /// A store at `root`, by default ``defaultRoot(environment:)``.
  public init(root: URL? = nil, limits: Limits = Limits()) {
    self.root = (root ?? Self.defaultRoot()).standardizedFileURL
    self.limits = limits
    trustedFolder = Self.trustedFolder(for: self.root)
  }

  /// The folder the store's private folders are made below (see `PrivateFolder`).
  private let trustedFolder: URL

  /// `$XDG_STATE_HOME/quire/versions`, or `~/.local/state/quire/versions` when it is unset
  /// or not absolute (as the XDG Base Directory specification says).
  public static func defaultRoot(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
    XDGBaseDirectory.stateHome.url(in: environment).appendingPathComponent("quire/versions", isDirectory: true)
  }

  private struct Index: Codable {
    var path: String
    var versions: [FileVersion]
  }

  private var objects: URL { root.appendingPathComponent("objects", isDirectory: true) }
  private var items: URL { root.appendingPathComponent("items", isDirectory: true) }

  // MARK: Keeping

  /// Keeps the content `url` has now as a version, before it is overwritten.
  ///
  /// - Returns: The version, or `nil` when there is no regular file at `url` (a new
  ///   document, or a package folder, which is not versioned). When the content equals the
  ///   latest version's, that version is returned and nothing is added.
  /// - Throws: ``QuireError`` when the file cannot be read or the store cannot be written.
  @discardableResult
  public func keepVersion(of url: URL) throws -> FileVersion? {
    try withLock { try keepVersionLocked(of: url) }
  }

  private func keepVersionLocked(of url: URL) throws -> FileVersion? {
    let path = url.standardizedFileURL.path
    guard case .success(let info) = SystemCalls.lstat(FilePath(path)) else { return nil }
    if info.st_mode & S_IFMT == S_IFDIR { return try keepPackageVersionLocked(of: url, path: path, info: info) }
    guard info.st_mode & S_IFMT == S_IFREG else { return nil }
    let unreadable = { (cause: any Error) in
      QuireError(
        .permissionDenied, "Cannot keep a version of \(QuireError.name(url)): it is not readable. Check its permissions; the save did not start.", url: url,
        cause: cause)
    }
    let source: FileDescriptor
    switch SystemCalls.open(FilePath(path), O_RDONLY | O_NOFOLLOW) {
    case .success(let fd): source = fd
    case .failure(let failure): throw unreadable(failure)
    }
    defer { SystemCalls.release(source) }
    return try storeCopy(of: source, url: url, path: path, info: info)
  }

  /// Copies the file open at `source` into the store a megabyte at a time while hashing it (a
  /// large file is never held in memory), flushes the copy and records it as a version of `path`.
  private func storeCopy(of source: FileDescriptor, url: URL, path: String, info: stat) throws -> FileVersion {
    let pendingURL = objects.appendingPathComponent(".pending-\(getpid())-\(UInt64.random(in: 0...UInt64.max))")
    let pending: FileDescriptor
    switch SystemCalls.open(FilePath(pendingURL.path), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: 0o600) {
    case .success(let fd): pending = fd
    case .failure(let failure):
      throw QuireError(
        QuireError.Code(failure.errno) == .diskFull ? .diskFull : .permissionDenied,
        "Cannot keep a version of \(QuireError.name(url)) in '\(root.path)': a file cannot be created there (\(QuireError.describe(failure.errno))). Check the folder.",
        url: url, cause: failure)
    }
    var pendingExists = true
    defer { if pendingExists { _ = SystemCalls.remove(pendingURL.path) } }
    let (hash, size): (String, Int)
    do {
      defer { SystemCalls.release(pending) }
      (hash, size) = try hashContents(of: source, url: url, copyingTo: pending)
      let finished = SystemCalls.setMode(pending, 0o400).flatMap { SystemCalls.flush(pending) }
      if case .failure(let failure) = finished {
        throw QuireError(
          QuireError.Code(failure.errno),
          "Cannot keep a version of \(QuireError.name(url)) in '\(root.path)': \(QuireError.describe(failure.errno)) while flushing it.", url: url,
          cause: failure)
      }
    }
    return try record(hash, ofItemAt: path, info: info, size: size, isPackage: false) { objectURL in
      if case .failure(let failure) = AtomicFile.move(finished: pendingURL.path, to: objectURL.path) {
        throw QuireError(
          QuireError.Code(failure.errno), "Cannot keep a version of \(QuireError.name(url)) in '\(root.path)': \(QuireError.describe(failure.errno)).",
          url: url,
          cause: failure)
      }
      pendingExists = false
    }
  }

  /// The SHA-256 and size of the file open at `source`, read from its start a megabyte at a
  /// time; with `copy`, each piece is also written there.
  private func hashContents(of source: FileDescriptor, url: URL, copyingTo copy: FileDescriptor? = nil) throws -> (hash: String, size: Int) {
    let digest = ContentDigest()
    var size = 0
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
    defer { buffer.deallocate() }
    while true {
      let count: Int
      switch SystemCalls.read(source, into: buffer, at: size) {
      case .success(0): return (digest.finalize(), size)
      case .success(let n): count = n
      case .failure(let failure):
        throw QuireError(
          .permissionDenied,
          "Cannot keep a version of \(QuireError.name(url)): it cannot be read (\(QuireError.describe(failure.errno))). Check its permissions.",
          url: url, cause: failure)
      }
      let piece = UnsafeRawBufferPointer(rebasing: buffer[..<count])
      digest.update(piece)
      if let copy, case .failure(let failure) = SystemCalls.writeAll(copy, piece) {
        throw QuireError(
          QuireError.Code(failure.errno),
          "Cannot keep a version of \(QuireError.name(url)) in '\(root.path)': \(QuireError.describe(failure.errno)) while writing it. Free some space, or check the folder.",
          url: url, cause: failure)
      }
      size += count
    }
  }

  /// Keeps as a version of `path` the file a safe save has just swapped out: `name` in `folder`
  /// (``FileSaver``'s temporary name, which now holds the replaced content), whose `stat` was
  /// `replaced` before the save. Called by ``FileSaver`` through ``ReplacedVersionKeeper``.
  ///
  /// The file is hashed, then *moved* into the store (`renameat(2)`, made 0400 and flushed)
  /// instead of copied, when that keeps what a copy guarantees: it is still the replaced file
  /// (same device and inode), it has no other name, it is the user's own, it is on the store's
  /// file system, and nobody else has it open or mapped (a write lease is granted, and held
  /// until it is in the store), so no one can change the kept bytes afterwards. Otherwise it is
  /// copied, as ``keepVersion(of:)`` does. When the store already holds the content, nothing
  /// moves and the save removes the file.
  func keepReplacedFile(named name: String, in folder: FileDescriptor, url: URL, replaced: stat) throws -> FileVersion? {
    try withLock {
      let path = url.standardizedFileURL.path
      let source: FileDescriptor
      switch SystemCalls.open(name, in: folder, O_RDONLY | O_NOFOLLOW) {
      case .success(let fd): source = fd
      case .failure(let failure):
        throw QuireError(
          .permissionDenied, "Cannot keep a version of \(QuireError.name(url)): the replaced file cannot be opened (\(QuireError.describe(failure.errno))).",
          url: url, cause: failure)
      }
      defer { SystemCalls.release(source) }
      guard case .success(let info) = SystemCalls.fstat(source), info.st_mode & S_IFMT == S_IFREG,
        info.st_dev == replaced.st_dev, info.st_ino == replaced.st_ino
      else { return nil }
      guard info.st_nlink == 1, info.st_uid == geteuid(), sameFileSystem(as: info), case .success = SystemCalls.takeWriteLease(source) else {
        return try storeCopy(of: source, url: url, path: path, info: info)
      }
      defer { SystemCalls.releaseLease(source) }
      let (hash, size) = try hashContents(of: source, url: url)
      return try record(hash, ofItemAt: path, info: info, size: size, isPackage: false) { objectURL in
        let objectsFolder: FileDescriptor
        switch SystemCalls.open(FilePath(objects.path), O_RDONLY | O_DIRECTORY | O_NOFOLLOW) {
        case .success(let fd): objectsFolder = fd
        case .failure(let failure): throw QuireError(failure, while: .open, url: objects, role: "the version store's folder")
        }
        defer { SystemCalls.release(objectsFolder) }
        let moved = SystemCalls.setMode(source, 0o400)
          .flatMap { SystemCalls.flush(source) }
          .flatMap { AtomicFile.move(finished: name, in: folder, to: objectURL.lastPathComponent, in: objectsFolder) }
        if case .failure(let failure) = moved {
          throw QuireError(
            QuireError.Code(failure.errno),
            "Cannot keep a version of \(QuireError.name(url)) in '\(root.path)': \(QuireError.describe(failure.errno)) while moving it there.", url: url,
            cause: failure)
        }
      }
    }
  }

  /// Whether a file with `info` is on the file system of the store's objects (so it can be
  /// renamed into it).
  private func sameFileSystem(as info: stat) -> Bool {
    guard case .success(let objectsInfo) = SystemCalls.lstat(FilePath(objects.path)) else { return false }
    return objectsInfo.st_dev == info.st_dev
  }

  /// Stores `object` (a file's bytes, or a package's manifest) once under its SHA-256 and
  /// appends a version of `path` naming it, unless the latest version already has that content.
  private func record(_ object: Data, ofItemAt path: String, info: stat, size: Int, isPackage: Bool) throws -> FileVersion {
    try record(ContentDigest.sha256(object), ofItemAt: path, info: info, size: size, isPackage: isPackage) { objectURL in
      try writePrivately(object, to: objectURL, permissions: 0o400)
    }
  }

  /// Appends a version of `path` whose content has SHA-256 `hash`, unless the latest version
  /// already has it; `store` puts the content at the object's URL when it is not there yet.
  private func record(
    _ hash: String, ofItemAt path: String, info: stat, size: Int, isPackage: Bool, store: (URL) throws -> Void
  ) throws -> FileVersion {
    var index = try readIndex(forPath: path)
    if let latest = index.versions.last, latest.contentHash == hash { return latest }
    let objectURL = objects.appendingPathComponent(hash)
    var wroteObject = false
    if case .failure = SystemCalls.lstat(FilePath(objectURL.path)) {
      try store(objectURL)
      wroteObject = true
    }
    let now = Date()
    let version = FileVersion(
      id: "\(Int64(now.timeIntervalSince1970 * 1e6))-\(hash.prefix(8))", originalPath: path,
      modificationDate: Date(timeIntervalSince1970: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9),
      savedDate: now, size: size, contentHash: hash, isPackage: isPackage)
    do {
      return try append(version, to: &index)
    } catch {
      // The index was not written (a full disk): the object this call stored is referenced by
      // nothing, so it goes too (another index may name an object that was already there).
      if wroteObject { _ = SystemCalls.remove(objectURL.path) }
      throw error
    }
  }

  private func append(_ version: FileVersion, to index: inout Index) throws -> FileVersion {
    index.versions.append(version)
    if index.versions.count > limits.maximumVersionsPerFile {
      index.versions.removeFirst(index.versions.count - limits.maximumVersionsPerFile)
    }
    try writeIndex(index)
    try prune(keeping: version)
    return version
  }

  // MARK: Packages

  /// One item of a kept package.
  struct ManifestEntry: Codable, Equatable {
    enum Kind: String, Codable { case file, folder, link }
    var path: String
    var kind: Kind
    var mode: UInt16?
    var sha256: String?
    var size: Int?
    var destination: String?
  }

  private func keepPackageVersionLocked(of url: URL, path: String, info: stat) throws -> FileVersion? {
    var entries: [ManifestEntry] = []
    var total = 0
    try collect(path, relative: "", depth: 0, url: url, into: &entries, total: &total)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    let manifest = try encoder.encode(entries)
    return try record(manifest, ofItemAt: path, info: info, size: total + manifest.count, isPackage: true)
  }

  /// Walks the package (never following symbolic links), storing each file's content.
  private func collect(_ path: String, relative: String, depth: Int, url: URL, into entries: inout [ManifestEntry], total: inout Int) throws {
    guard depth < 256 else {
      throw QuireError(.limitExceeded, "Cannot keep a version of \(QuireError.name(url)): its folders nest more than 256 deep.", url: url)
    }
    let names: [String]
    do { names = try FileManager.default.contentsOfDirectory(atPath: path).sorted() } catch {
      throw QuireError(
        .permissionDenied, "Cannot keep a version of \(QuireError.name(url)): '\(path)' cannot be listed. Check its permissions; the save did not start.",
        url: url, cause: error)
    }
    for name in names {
      let childPath = path + "/" + name
      let childRelative = relative.isEmpty ? name : relative + "/" + name
      guard case .success(let info) = SystemCalls.lstat(FilePath(childPath)) else { continue }
      let mode = UInt16(info.st_mode & 0o7777)
      switch info.st_mode & S_IFMT {
      case S_IFDIR:
        entries.append(ManifestEntry(path: childRelative, kind: .folder, mode: mode))
        try collect(childPath, relative: childRelative, depth: depth + 1, url: url, into: &entries, total: &total)
      case S_IFLNK:
        let destination = (try? FileManager.default.destinationOfSymbolicLink(atPath: childPath)) ?? ""
        entries.append(ManifestEntry(path: childRelative, kind: .link, destination: destination))
      case S_IFREG:
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: childPath), options: .mappedIfSafe) } catch {
          throw QuireError(
            .permissionDenied,
            "Cannot keep a version of \(QuireError.name(url)): '\(childPath)' is not readable. Check its permissions; the save did not start.", url: url,
            cause: error)
        }
        let hash = ContentDigest.sha256(data)
        let object = objects.appendingPathComponent(hash)
        if case .failure = SystemCalls.lstat(FilePath(object.path)) {
          try writePrivately(data, to: object, permissions: 0o400)
        }
        total += data.count
        entries.append(ManifestEntry(path: childRelative, kind: .file, mode: mode, sha256: hash, size: data.count))
      default:
        continue  // devices, sockets, pipes: nothing a document holds
      }
    }
  }

  private func manifest(of version: FileVersion) throws -> [ManifestEntry] {
    do {
      return try JSONDecoder().decode([ManifestEntry].self, from: contents(of: version))
    } catch let error as QuireError {
      throw error
    } catch {
      throw QuireError(
        .invalidContent,
        "The kept version of '\(version.originalURL.lastPathComponent)' from \(version.savedDate) is damaged: its manifest cannot be read. Choose another version.",
        url: version.originalURL, cause: error)
    }
  }

  /// The stored files a package version refers to (empty for a file version).
  private func members(of version: FileVersion) -> [String] {
    guard version.isPackage, let entries = try? manifest(of: version) else { return [] }
    return entries.compactMap(\.sha256)
  }

  /// A package version as a file wrapper tree (files read from the store when used).
  public func fileWrapper(of version: FileVersion) throws -> FileWrapper {
    guard version.isPackage else { return FileWrapper(regularFileWithContents: try contents(of: version)) }
    let root = FileWrapper(directoryWithFileWrappers: [:])
    for entry in try manifest(of: version) {
      let parts = entry.path.split(separator: "/").map(String.init)
      guard let name = parts.last, !parts.contains(".."), !parts.contains(".") else { continue }
      var folder = root
      for part in parts.dropLast() {
        guard let next = folder.fileWrappers?[part], next.isDirectory else {
          folder = root
          break
        }
        folder = next
      }
      let child: FileWrapper
      switch entry.kind {
      case .folder:
        child = FileWrapper(directoryWithFileWrappers: [:])
      case .link:
        child = FileWrapper(symbolicLinkWithDestinationURL: URL(fileURLWithPath: entry.destination ?? "", relativeTo: nil))
      case .file:
        guard let hash = entry.sha256, hash.allSatisfy(\.isHexDigit) else { continue }
        let data: Data
        do { data = try Data(contentsOf: objects.appendingPathComponent(hash), options: .mappedIfSafe) } catch {
          throw QuireError(
            .fileMissing,
            "Cannot open the version of '\(version.originalURL.lastPathComponent)' kept \(version.savedDate): its file '\(entry.path)' is gone from the store. Choose another version.",
            url: version.originalURL, cause: error)
        }
        child = FileWrapper(regularFileWithContents: data)
      }
      child.preferredFilename = name
      if entry.kind != .link { child.fileAttributes.posixPermissions = entry.mode.map { $0 & 0o777 } }
      folder.addFileWrapper(child)
    }
    return root
  }

  /// A version's content in the form a document reads.
  func storedContents(of version: FileVersion) throws -> StoredContents {
    version.isPackage ? .package(try fileWrapper(of: version)) : .file(try contents(of: version))
  }

  // MARK: Listing and reading

  /// The versions kept of the file at `url`, oldest first; also when the file was deleted.
  /// - Throws: ``QuireError`` when the store's index for the file is unreadable.
  public func versions(ofItemAt url: URL) throws -> [FileVersion] {
    try readIndex(forPath: url.standardizedFileURL.path).versions
  }

  /// Every file path that has versions, for listing versions of deleted files.
  public func itemsWithVersions() throws -> [String] {
    try allIndexes().map(\.path).sorted()
  }

  /// The content of `version`.
  /// - Throws: ``QuireError`` `.fileMissing` when its stored content is gone.
  public func contents(of version: FileVersion) throws -> Data {
    do {
      return try Data(contentsOf: readOnlyURL(of: version))
    } catch {
      throw QuireError(
        .fileMissing,
        "Cannot open the version of '\(version.originalURL.lastPathComponent)' kept \(version.savedDate): its stored content is gone from '\(objects.path)'. Choose another version.",
        url: version.originalURL, cause: error)
    }
  }

  /// Where the content of `version` is stored: a read-only file (mode 0400) that must not be
  /// changed; copy it to edit it.
  public func readOnlyURL(of version: FileVersion) -> URL {
    objects.appendingPathComponent(version.contentHash)
  }

  // MARK: Restoring

  /// Puts the content of `version` back into `url` (by default the file it was kept from),
  /// after keeping the current content as a version, so the restore can be undone.
  ///
  /// The file is written atomically (beside, `fsync`, rename over, `fsync` the folder) and
  /// keeps its permissions. A deleted file is created again.
  /// - Returns: What ``undoRestoration(_:)`` needs.
  /// - Throws: ``QuireError``; the file is then unchanged.
  @discardableResult
  public func restore(_ version: FileVersion, to url: URL? = nil) throws -> VersionRestoration {
    let target = (url ?? version.originalURL).standardizedFileURL
    return try withLock {
      let wrapper = try fileWrapper(of: version)
      let previous = try keepVersionLocked(of: target)
      try wrapper.write(to: target, options: .atomic)
      return VersionRestoration(url: target, restored: version, previous: previous)
    }
  }

  /// Undoes ``restore(_:to:)``: puts back the content the file had before (itself kept as a
  /// version first, so this can be redone by restoring `restoration.restored` again), or
  /// removes the file when there was none.
  /// - Throws: ``QuireError``; the file is then unchanged.
  public func undoRestoration(_ restoration: VersionRestoration) throws {
    if let previous = restoration.previous {
      try restore(previous, to: restoration.url)
      return
    }
    try withLock {
      _ = try keepVersionLocked(of: restoration.url)
      if case .failure(let failure) = SystemCalls.remove(restoration.url.path), failure.errno != .noSuchFileOrDirectory {
        throw QuireError(failure, while: .remove, url: restoration.url)
      }
    }
  }

  // MARK: Bounds

  /// The bytes of stored content.
  public func totalSize() throws -> Int64 {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: objects.path)) ?? []
    return names.reduce(Int64(0)) { sum, name in
      guard case .success(let info) = SystemCalls.lstat(FilePath(objects.path + "/" + name)) else { return sum }
      return sum + Int64(info.st_size)
    }
  }

  /// Removes the oldest versions of any file while the stored content exceeds
  /// ``Limits/maximumTotalBytes``, then content no version refers to.
  private func prune(keeping newest: FileVersion) throws {
    var indexes = try allIndexes()
    var sizes: [String: Int64] = [:]
    for version in indexes.flatMap(\.versions) { sizes[version.contentHash] = Int64(version.size) }
    var total = sizes.values.reduce(0, +)
    var changed = Set<Int>()
    while total > limits.maximumTotalBytes {
      // The oldest version in the store, never the one just kept.
      var oldest: (Int, Int)?
      for (i, index) in indexes.enumerated() {
        for (j, version) in index.versions.enumerated() where version != newest {
          if oldest.map({ version.savedDate < indexes[$0.0].versions[$0.1].savedDate }) ?? true { oldest = (i, j) }
          break  // versions are oldest first
        }
      }
      guard let (i, j) = oldest else { break }
      indexes[i].versions.remove(at: j)
      changed.insert(i)
      let referenced = Set(indexes.flatMap(\.versions).map(\.contentHash))
      total = sizes.filter { referenced.contains($0.key) }.values.reduce(0, +)
    }
    for i in changed { try writeIndex(indexes[i]) }
    let kept = indexes.flatMap(\.versions)
    let referenced = Set(kept.map(\.contentHash) + kept.flatMap(members(of:)))
    for name in (try? FileManager.default.contentsOfDirectory(atPath: objects.path)) ?? [] where !referenced.contains(name) {
      _ = SystemCalls.remove(objects.path + "/" + name)
    }
  }

  // MARK: Storage

  private func indexURL(forPath path: String) -> URL {
    items.appendingPathComponent(ContentDigest.sha256(Data(path.utf8)) + ".json")
  }

  private func readIndex(forPath path: String) throws -> Index {
    let url = indexURL(forPath: path)
    guard case .success(let info) = SystemCalls.lstat(FilePath(url.path)) else { return Index(path: path, versions: []) }
    guard info.st_mode & S_IFMT == S_IFREG else {
      throw QuireError(
        .invalidContent,
        "The version history of '\(URL(fileURLWithPath: path).lastPathComponent)' at '\(url.path)' is not a regular file. Remove it to start a new history.",
        url: url)
    }
    do {
      return try JSONDecoder().decode(Index.self, from: Data(contentsOf: url))
    } catch {
      throw QuireError(
        .invalidContent,
        "The version history of '\(URL(fileURLWithPath: path).lastPathComponent)' at '\(url.path)' is damaged. Remove it to start a new history.", url: url,
        cause: error)
    }
  }

  private func allIndexes() throws -> [Index] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: items.path)) ?? []
    return names.filter { $0.hasSuffix(".json") }.compactMap { name in
      try? JSONDecoder().decode(Index.self, from: Data(contentsOf: items.appendingPathComponent(name)))
    }
  }

  private func writeIndex(_ index: Index) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    let data = try encoder.encode(index)
    try writePrivately(data, to: indexURL(forPath: index.path), permissions: 0o600)
  }

  private func writePrivately(_ data: Data, to url: URL, permissions: UInt16) throws {
    let file = FileWrapper(regularFileWithContents: data)
    file.fileAttributes.posixPermissions = permissions
    try file.write(to: url, options: .atomic)
  }

  /// Creates the store's folders (0700, refusing symbolic links) and runs `body` holding the
  /// store's lock.
  private func withLock<R>(_ body: () throws -> R) throws -> R {
    for folder in [root, objects, items] { try makePrivateFolder(folder) }
    let lockPath = root.appendingPathComponent("lock").path
    let fd: FileDescriptor
    switch SystemCalls.open(FilePath(lockPath), O_RDWR | O_CREAT | O_NOFOLLOW, mode: 0o600) {
    case .success(let opened): fd = opened
    case .failure(let failure):
      throw QuireError(failure, while: .lock, url: root, role: "the version store's lock file '\(lockPath)'")
    }
    defer { SystemCalls.release(fd) }
    if case .failure(let failure) = SystemCalls.lockWhole(fd, exclusive: true) {
      throw QuireError(failure, while: .lock, url: root, role: "the version store at '\(root.path)'")
    }
    defer { SystemCalls.unlockWhole(fd) }
    return try body()
  }

  /// Makes `url` (0700) below the store root's parent, refusing symbolic links and folders
  /// of other users in the store's own levels.
  private func makePrivateFolder(_ url: URL) throws {
    do {
      try PrivateFolder.make(url, below: trustedFolder)
    } catch {
      switch error.kind {
      case .symbolicLink, .notAFolder:
        throw QuireError(.permissionDenied, "Cannot use the version store: '\(error.path)' is not a folder (a symbolic link or a file). Remove it.", url: url)
      default:
        throw error.error(role: "the version store folder", alternative: "set XDG_STATE_HOME to a folder of your own", url: url)
      }
    }
  }
}

extension VersionStore {
  /// The folder below which a per-user store at `root` makes its private folders: under
  /// `$XDG_STATE_HOME` (the default) every level below it is checked (`quire/`, `versions/`,
  /// `undo/`), so a symbolic link or another user's folder planted at `$XDG_STATE_HOME/quire` is
  /// refused; a root elsewhere is trusted down to its parent. The version store and the undo
  /// history store share it.
  static func trustedFolder(for root: URL) -> URL {
    let stateHome = XDGBaseDirectory.stateHome.location().trustedFolder.standardizedFileURL.path
    return root.path.hasPrefix(stateHome + "/") ? URL(fileURLWithPath: stateHome, isDirectory: true) : root.deletingLastPathComponent()
  }
}
