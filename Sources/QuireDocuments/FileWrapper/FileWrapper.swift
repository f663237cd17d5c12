public import Foundation
import Glibc
package import QuireSystem
import QuireTypes
import SystemPackage

/// A file, a folder or a symbolic link, and what it holds: the contents of a document that
/// may be a package (a folder the user sees as one file, like a TextBundle), as Apple's
/// `FileWrapper` gives it.
///
/// A wrapper read from disk reads regular files' contents lazily (unless
/// ``ReadingOptions/immediate``) and remembers where each came from. Writing a folder with
/// ``write(to:options:originalContentsURL:)`` and ``WritingOptions/atomic`` builds the new
/// tree beside the target, `fsync`s every file and folder, swaps it with the old tree in one
/// `renameat2(RENAME_EXCHANGE)` and then removes the old tree: the package on disk is always
/// the old or the new one, whole. Children that were read from the original and did not
/// change are not rewritten: they are hard-linked from it (or reflinked or copied inside the
/// kernel with `sendfile(2)` when a link is not possible).
///
/// Not `Sendable`: a wrapper tree is mutable and belongs to one document.
open class FileWrapper: CustomDebugStringConvertible {
  /// Options for ``init(url:options:)``.
  public struct ReadingOptions: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// Reads every regular file's contents now, rather than on first use.
    public static let immediate = ReadingOptions(rawValue: 1 << 0)
    /// Reads contents into memory rather than mapping them with `mmap(2)`.
    public static let withoutMapping = ReadingOptions(rawValue: 1 << 1)
  }

  /// Options for ``write(to:options:originalContentsURL:)``.
  public struct WritingOptions: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// Writes beside the target and replaces it in one `renameat2(2)`; `fsync(2)`s files and folders.
    public static let atomic = WritingOptions(rawValue: 1 << 0)
    /// Sets each wrapper's ``filename`` to the name it was written under.
    public static let withNameUpdating = WritingOptions(rawValue: 1 << 1)
  }

  /// How an unchanged regular file was carried into a newly written package.
  public enum ReuseMethod: String, Sendable {
    package init(_ method: SystemCalls.CopyMethod) {
      switch method {
      case .reflink: self = .reflink
      case .kernelCopy: self = .kernelCopy
      case .copied: self = .copied
      }
    }

    /// `linkat(2)`: the new package shares the file with the old one; no bytes are written.
    case hardLink
    /// `ioctl(FICLONE)`: a copy-on-write clone of the blocks (btrfs, XFS).
    case reflink
    /// `sendfile(2)`: copied inside the kernel, without passing through this process.
    case kernelCopy
    /// `read(2)`/`write(2)`.
    case copied
  }

  /// The file attributes a wrapper keeps: permission bits and modification date.
  public struct FileAttributes: Sendable, Equatable {
    /// The permission bits (`st_mode & 0o7777`), or `nil` for the default (0644 files, 0755 folders).
    public var posixPermissions: UInt16?
    /// The modification date, or `nil` for the time of writing.
    public var modificationDate: Date?
    public init(posixPermissions: UInt16? = nil, modificationDate: Date? = nil) {
      self.posixPermissions = posixPermissions
      self.modificationDate = modificationDate
    }
  }

  /// What kind of item a wrapper stands for.
  public enum Kind: Sendable, Equatable {
    case regularFile, directory, symbolicLink
  }

  /// Where a regular file's contents were read from, and the file's identity then.
  struct Source {
    var path: String
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modified: timespec
    var mode: UInt16

    init(path: String, _ info: stat) {
      self.path = path
      device = UInt64(info.st_dev)
      inode = UInt64(info.st_ino)
      size = Int64(info.st_size)
      modified = info.st_mtim
      mode = UInt16(info.st_mode & 0o7777)
    }

    /// Whether the file at `path` is still the one that was read.
    var isUnchanged: Bool {
      guard case .success(let info) = SystemCalls.lstat(FilePath(path)) else { return false }
      return UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode && Int64(info.st_size) == size
        && info.st_mtim.tv_sec == modified.tv_sec && info.st_mtim.tv_nsec == modified.tv_nsec
    }
  }

  private enum Storage {
    case file(contents: Data?, source: Source?)
    case directory([String: FileWrapper])
    case link(String)
  }

  private var storage: Storage
  private var mapsContents = true
  /// The wrapper this one was copied from by ``copyForWriting()``; only the copier reads it.
  private var copiedFrom: FileWrapper?
  private var sourcePathWhenCopied: String?

  /// The name the wrapper would like to have in its parent folder.
  open var preferredFilename: String?
  /// The name the wrapper was last read from or written to.
  open var filename: String?
  /// Permission bits and modification date; read from disk for wrappers read from disk.
  open var fileAttributes: FileAttributes

  /// How each regular file was carried over in the last write (for measurement and tests).
  open private(set) var lastWriteReuse: [ReuseMethod: Int] = [:]

  // MARK: Making wrappers

  /// A regular file holding `contents`.
  public init(regularFileWithContents contents: Data) {
    storage = .file(contents: contents, source: nil)
    fileAttributes = FileAttributes()
  }

  /// A folder holding `childrenByPreferredName`; each key becomes the child's preferred name.
  public init(directoryWithFileWrappers childrenByPreferredName: [String: FileWrapper]) {
    storage = .directory([:])
    fileAttributes = FileAttributes()
    for (name, child) in childrenByPreferredName.sorted(by: { $0.key < $1.key }) {
      child.preferredFilename = name
      addFileWrapper(child)
    }
  }

  /// A symbolic link to `url` (written as the URL's path; relative URLs stay relative).
  public init(symbolicLinkWithDestinationURL url: URL) {
    // A URL made relative to a base (`URL(fileURLWithPath: "assets/a.png", relativeTo: nil)`
    // takes the current folder as base) keeps its relative path, as Apple's does.
    storage = .link(url.baseURL != nil ? url.relativePath : url.path)
    fileAttributes = FileAttributes()
  }

  /// Reads the file, folder or symbolic link at `url` (a final symbolic link is not followed).
  ///
  /// - Parameters:
  ///   - url: What to read.
  ///   - options: ``ReadingOptions/immediate`` reads every file's contents now.
  /// - Throws: ``QuireError`` naming the item: `.fileMissing`, `.permissionDenied`,
  ///   `.unsupportedType` for devices, sockets and pipes.
  public init(url: URL, options: ReadingOptions = []) throws {
    storage = .directory([:])
    fileAttributes = FileAttributes()
    try read(from: url, options: options)
  }

  /// Replaces this wrapper's contents with the item at `url`; see ``init(url:options:)``.
  open func read(from url: URL, options: ReadingOptions = []) throws {
    let (storage, attributes) = try Self.load(path: url.standardizedFileURL.path, url: url, options: options, depth: 0)
    self.storage = storage
    self.fileAttributes = attributes
    self.mapsContents = !options.contains(.withoutMapping)
    filename = url.lastPathComponent
    if preferredFilename == nil { preferredFilename = url.lastPathComponent }
  }

  private static func load(path: String, url: URL, options: ReadingOptions, depth: Int) throws -> (Storage, FileAttributes) {
    guard depth < 256 else {
      throw QuireError(.limitExceeded, "Cannot read \(QuireError.name(url)): folders nest more than 256 deep at '\(path)'.", url: url)
    }
    let info: stat
    switch SystemCalls.lstat(FilePath(path)) {
    case .success(let value): info = value
    case .failure(let error): throw readError(error, path: path, url: url)
    }
    var attributes = FileAttributes(
      posixPermissions: UInt16(info.st_mode & 0o7777),
      modificationDate: Date(timeIntervalSince1970: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9))
    switch info.st_mode & S_IFMT {
    case S_IFREG:
      let source = Source(path: path, info)
      var contents: Data?
      if options.contains(.immediate) {
        contents = try readContents(of: source, mapped: !options.contains(.withoutMapping), url: url)
      }
      return (.file(contents: contents, source: source), attributes)
    case S_IFDIR:
      let names: [String]
      do {
        names = try FileManager.default.contentsOfDirectory(atPath: path)
      } catch {
        throw QuireError(
          .permissionDenied, "Cannot read \(QuireError.name(url)): the folder '\(path)' cannot be listed. Check its permissions.", url: url, cause: error)
      }
      var children: [String: FileWrapper] = [:]
      for name in names {
        let child = FileWrapper(regularFileWithContents: Data())
        let (storage, childAttributes) = try load(path: path + "/" + name, url: url, options: options, depth: depth + 1)
        child.storage = storage
        child.fileAttributes = childAttributes
        child.mapsContents = !options.contains(.withoutMapping)
        child.filename = name
        child.preferredFilename = name
        children[name] = child
      }
      return (.directory(children), attributes)
    case S_IFLNK:
      guard let target = SystemCalls.readLink(FilePath(path)) else {
        throw readError(SyscallFailure(call: "readlink", errno: Errno(rawValue: errno), path: path), path: path, url: url)
      }
      attributes.posixPermissions = nil
      return (.link(String(decoding: target.string.utf8, as: UTF8.self)), attributes)
    default:
      throw QuireError(.unsupportedType, "Cannot read \(QuireError.name(url)): '\(path)' is a device, socket or pipe, which a document cannot hold.", url: url)
    }
  }

  private static func readError(_ error: SyscallFailure, path: String, url: URL) -> QuireError {
    switch error.errno {
    case .noSuchFileOrDirectory, .notDirectory:
      QuireError(.fileMissing, "Cannot read \(QuireError.name(url)): nothing at '\(path)'. Check the path.", url: url, cause: error)
    case .permissionDenied, .notPermitted:
      QuireError(.permissionDenied, "Cannot read \(QuireError.name(url)): '\(path)' is not readable. Check its permissions.", url: url, cause: error)
    default:
      QuireError(
        QuireError.Code(error.errno), "Cannot read \(QuireError.name(url)): reading '\(path)' failed (\(QuireError.describe(error.errno))).", url: url,
        cause: error)
    }
  }

  private static func readContents(of source: Source, mapped: Bool, url: URL?) throws -> Data {
    let fileURL = URL(fileURLWithPath: source.path)
    guard source.isUnchanged else {
      throw QuireError(
        .invalidContent, "Cannot read '\(fileURL.lastPathComponent)': '\(source.path)' changed on disk after it was read. Read the document again.",
        url: url ?? fileURL)
    }
    do {
      return try Data(contentsOf: fileURL, options: mapped ? .mappedIfSafe : [])
    } catch {
      throw QuireError(
        .permissionDenied, "Cannot read '\(fileURL.lastPathComponent)': '\(source.path)' is not readable. Check its permissions.", url: url ?? fileURL,
        cause: error)
    }
  }

  // MARK: What a wrapper holds

  /// Whether this is a regular file, a folder or a symbolic link.
  open var kind: Kind {
    switch storage {
    case .file: .regularFile
    case .directory: .directory
    case .link: .symbolicLink
    }
  }
  open var isRegularFile: Bool { kind == .regularFile }
  open var isDirectory: Bool { kind == .directory }
  open var isSymbolicLink: Bool { kind == .symbolicLink }

  /// A regular file's contents, read now if they were not read yet; `nil` for folders and
  /// links, and when the file can no longer be read (see ``contents()``, which says why).
  open var regularFileContents: Data? { try? contents() }

  /// A regular file's contents, read now if they were not read yet.
  /// - Throws: ``QuireError`` when this is not a regular file, or when its file is gone,
  ///   unreadable or changed on disk since the wrapper was read.
  open func contents() throws -> Data {
    guard case .file(let contents, let source) = storage else {
      throw QuireError(.invalidArgument, "'\(preferredFilename ?? "item")' is a \(kind == .directory ? "folder" : "symbolic link"), not a regular file.")
    }
    if let contents { return contents }
    guard let source else { return Data() }
    let data = try Self.readContents(of: source, mapped: mapsContents, url: nil)
    storage = .file(contents: data, source: source)
    return data
  }

  /// A folder's children by their unique names; `nil` for files and links.
  open var fileWrappers: [String: FileWrapper]? {
    if case .directory(let children) = storage { return children }
    return nil
  }

  /// A symbolic link's destination as written in the link; `nil` for files and folders.
  open var symbolicLinkDestinationURL: URL? {
    if case .link(let destination) = storage { return URL(fileURLWithPath: destination) }
    return nil
  }

  /// A symbolic link's destination exactly as stored.
  open var symbolicLinkDestination: String? {
    if case .link(let destination) = storage { return destination }
    return nil
  }

  // MARK: Children

  /// Adds `child` to this folder under its preferred name, or a unique variant of it
  /// ("image 2.png") when that name is taken.
  ///
  /// Names that cannot be file names are made safe: `/` and NUL become `_`, and `.`, `..`
  /// and the empty name become "Untitled". Does nothing and returns the name unchanged when
  /// this wrapper is not a folder.
  /// - Returns: The key the child is stored under.
  @discardableResult
  open func addFileWrapper(_ child: FileWrapper) -> String {
    let wanted = Self.safeName(child.preferredFilename)
    guard case .directory(var children) = storage else { return wanted }
    let key = Self.uniqueName(for: wanted, avoiding: children)
    children[key] = child
    if child.preferredFilename == nil { child.preferredFilename = key }
    storage = .directory(children)
    return key
  }

  /// Adds a regular file holding `contents` under `fileName` (made unique as in ``addFileWrapper(_:)``).
  /// - Returns: The key the new child is stored under.
  @discardableResult
  open func addRegularFile(withContents contents: Data, preferredFilename fileName: String) -> String {
    let child = FileWrapper(regularFileWithContents: contents)
    child.preferredFilename = fileName
    return addFileWrapper(child)
  }

  /// Removes `child` from this folder; does nothing when it is not a child.
  open func removeFileWrapper(_ child: FileWrapper) {
    guard case .directory(var children) = storage, let key = keyForFileWrapper(child) else { return }
    children.removeValue(forKey: key)
    storage = .directory(children)
  }

  /// The key `child` is stored under in this folder, or `nil`.
  open func keyForFileWrapper(_ child: FileWrapper) -> String? {
    fileWrappers?.first(where: { $0.value === child })?.key
  }

  static func safeName(_ name: String?) -> String {
    var name = (name ?? "").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "\0", with: "_")
    if name.isEmpty || name == "." || name == ".." { name = "Untitled" }
    while name.utf8.count > 255 { name.removeFirst() }
    return name
  }

  static func uniqueName(for name: String, avoiding children: [String: FileWrapper]) -> String {
    guard children[name] != nil else { return name }
    let dot = name.lastIndex(of: ".").flatMap { $0 == name.startIndex ? nil : $0 }
    let stem = dot.map { String(name[..<$0]) } ?? name
    let suffix = dot.map { String(name[$0...]) } ?? ""
    var number = 2
    while children["\(stem) \(number)\(suffix)"] != nil { number += 1 }
    return "\(stem) \(number)\(suffix)"
  }

  // MARK: Copies for saving

  /// A copy of the tree that shares no mutable object with it: folders and links are new
  /// objects, regular files carry the same contents (`Data` is copied on write) or the same
  /// lazy source, so no byte is copied. A document hands the copy to a save running off its
  /// actor and keeps editing the original meanwhile.
  func copyForWriting() -> FileWrapper {
    let copy = FileWrapper(regularFileWithContents: Data())
    switch storage {
    case .file(let contents, let source): copy.storage = .file(contents: contents, source: source)
    case .link(let destination): copy.storage = .link(destination)
    case .directory(let children): copy.storage = .directory(children.mapValues { $0.copyForWriting() })
    }
    copy.mapsContents = mapsContents
    copy.preferredFilename = preferredFilename
    copy.filename = filename
    copy.fileAttributes = fileAttributes
    copy.copiedFrom = self
    if case .file(_, let source) = storage { copy.sourcePathWhenCopied = source?.path }
    return copy
  }

  /// After `self` (a ``copyForWriting()`` copy) was written, points each original regular
  /// file whose contents did not change since the copy at the file just written, so its lazy
  /// contents are read from there and the next save reuses it (the old tree is gone).
  func handWrittenSourcesBack() {
    if let original = copiedFrom {
      switch (storage, original.storage) {
      case (.file(let mine, let written), .file(let theirs, let old)):
        let unchanged = old?.path == sourcePathWhenCopied && (mine == nil || theirs == nil || mine == theirs)
        if unchanged, let written { original.storage = .file(contents: theirs, source: written) }
      case (.directory(let children), .directory):
        for child in children.values { child.handWrittenSourcesBack() }
      default:
        break
      }
    }
    copiedFrom = nil
  }

  // MARK: Comparing

  /// Whether the item at `url` holds the same tree as this wrapper: the same kinds, names,
  /// file contents and link destinations (attributes are not compared).
  open func matchesContents(of url: URL) -> Bool {
    guard let other = try? FileWrapper(url: url) else { return false }
    return matches(other)
  }

  private func matches(_ other: FileWrapper) -> Bool {
    switch (storage, other.storage) {
    case (.file(_, let mine), .file(_, let theirs)):
      if let mine, let theirs, mine.device == theirs.device, mine.inode == theirs.inode,
        mine.isUnchanged, theirs.isUnchanged
      {
        return true
      }
      guard let a = try? contents(), let b = try? other.contents() else { return false }
      return a == b
    case (.directory(let mine), .directory(let theirs)):
      guard Set(mine.keys) == Set(theirs.keys) else { return false }
      return mine.allSatisfy { key, child in theirs[key].map(child.matches) ?? false }
    case (.link(let mine), .link(let theirs)):
      return mine == theirs
    default:
      return false
    }
  }

  // MARK: Writing

  /// Writes the wrapper to `url`.
  ///
  /// With ``WritingOptions/atomic`` the item is written beside `url` under a hidden
  /// temporary name (`.NAME.quire-XXXXXX`), every file and folder in it is `fsync`ed, and it
  /// replaces `url` in one step: `renameat2(RENAME_EXCHANGE)` when something is there (then
  /// the old item, now under the temporary name, is removed), `RENAME_NOREPLACE` when not;
  /// finally the parent folder is `fsync`ed. Without it, the item is written in place
  /// (an existing item at `url` is replaced).
  ///
  /// - Parameters:
  ///   - url: Where to write.
  ///   - options: ``WritingOptions/atomic``, ``WritingOptions/withNameUpdating``.
  ///   - originalContentsURL: Where the document was last saved. Regular files read from
  ///     inside it that are unchanged are hard-linked into the new tree, not rewritten.
  /// - Throws: ``QuireError`` naming `url`; with `.atomic`, the item at `url` is then untouched
  ///   and no temporary item is left behind.
  open func write(to url: URL, options: WritingOptions = [], originalContentsURL: URL? = nil) throws {
    let target = url.standardizedFileURL
    let parentPath = target.deletingLastPathComponent().path
    let name = target.lastPathComponent
    let parent: Int32
    switch SystemCalls.open(FilePath(parentPath), O_RDONLY | O_DIRECTORY, mode: 0).map(\.rawValue) {
    case .success(let fd): parent = fd
    case .failure(let error): throw saveError(error, step: "opening the folder '\(parentPath)'", url: url)
    }
    defer { SystemCalls.release(FileDescriptor(rawValue: parent)) }
    let originalPrefix = originalContentsURL.map { $0.standardizedFileURL.path + "/" }
    var context = WriteContext(originalPrefix: originalPrefix, updateNames: options.contains(.withNameUpdating))
    // What a save killed mid-way left beside the item an hour or more ago goes now.
    if options.contains(.atomic) { Self.removeLeftovers(besides: target, notModifiedFor: Self.abandonedSaveAge) }

    guard options.contains(.atomic) else {
      if case .success = SystemCalls.lstat(FilePath(target.path)) {
        try? FileManager.default.removeItem(atPath: target.path)
      }
      try writeItem(into: parent, name: name, context: &context, url: url, inheritedMode: nil)
      if case .failure(let error) = SystemCalls.flush(FileDescriptor(rawValue: parent), folder: true) {
        throw saveError(error, step: "flushing the folder", url: url)
      }
      finish(context, at: target.path)
      return
    }

    // Keep the existing item's permissions when the wrapper does not set its own.
    var existing: stat?
    switch SystemCalls.lstat(FilePath(target.path)) {
    case .success(let info): existing = info
    case .failure(.noSuchFileOrDirectory): existing = nil
    case .failure(let error): throw saveError(error, step: "looking at the existing item", url: url)
    }
    let inheritedMode = existing.map { mode_t($0.st_mode & 0o7777) }
    // The temporary item is in the same folder, so the final rename cannot cross file systems.
    let temporaryName = AtomicFile.temporaryName(beside: String(name))
    do {
      try writeItem(into: parent, name: temporaryName, context: &context, url: url, inheritedMode: inheritedMode)
    } catch {
      Self.removeTree(in: parent, name: temporaryName)
      throw error
    }
    if existing != nil {
      // One step: the new tree takes the name, the old one takes the temporary name.
      if case .failure(let error) = AtomicFile.replace(name, withFinished: temporaryName, in: FileDescriptor(rawValue: parent)) {
        Self.removeTree(in: parent, name: temporaryName)
        throw saveError(error, step: "swapping the new item into place", url: url)
      }
      // Make the swap durable; if that fails, swap back, so a failed save leaves the old item.
      if case .failure(let error) = SystemCalls.flush(FileDescriptor(rawValue: parent), folder: true) {
        let swappedBack = (try? AtomicFile.swapBack(name, replaced: temporaryName, in: FileDescriptor(rawValue: parent)).get()) != nil
        // The temporary name holds the new tree when swapped back, else the old one.
        Self.removeTree(in: parent, name: temporaryName)
        throw saveError(
          error,
          step: swappedBack
            ? "flushing the folder after the swap" : "flushing the folder after the swap (the new contents are in place but may not be on disk yet)",
          url: url)
      }
      // The old tree is no longer visible under `name`; removing it may fail without harm.
      Self.removeTree(in: parent, name: temporaryName)
    } else {
      if case .failure(let error) = AtomicFile.place(temporaryName, as: name, in: FileDescriptor(rawValue: parent)) {
        Self.removeTree(in: parent, name: temporaryName)
        throw saveError(error, step: "moving the new item into place", url: url)
      }
      if case .failure(let error) = SystemCalls.flush(FileDescriptor(rawValue: parent), folder: true) {
        Self.removeTree(in: parent, name: name)
        throw saveError(error, step: "flushing the folder after creating the item", url: url)
      }
    }
    if options.contains(.withNameUpdating) { filename = name }
    finish(context, at: target.path)
  }

  /// Removes what interrupted saves of `url` left beside it: the hidden temporary items of a
  /// process killed mid-save — `.NAME.quire-XXXXXXXX` (package and PDF saves) and
  /// `.NAME.quire-XXXX.tmp` (file saves). A `.backup` file is never removed: an interrupted
  /// in-place save may have left the only whole copy of the old content there.
  ///
  /// - Parameters:
  ///   - url: The document whose leftovers to remove.
  ///   - age: Remove only items not modified for this long (saves pass an hour, so that
  ///     another process's save in progress is never touched); `nil` removes every one, which
  ///     is safe only while no other process writes `url` (inside a coordinated write).
  /// - Returns: The names removed.
  @discardableResult
  public static func removeLeftovers(besides url: URL, notModifiedFor age: TimeInterval? = nil) -> [String] {
    let target = url.standardizedFileURL
    let parentPath = target.deletingLastPathComponent().path
    let name = target.lastPathComponent
    let names = ((try? FileManager.default.contentsOfDirectory(atPath: parentPath)) ?? []).filter { isLeftover($0, of: name) }
    guard !names.isEmpty else { return [] }
    guard case .success(let folder) = SystemCalls.open(FilePath(parentPath), O_RDONLY | O_DIRECTORY) else { return [] }
    let parent = folder.rawValue
    defer { SystemCalls.release(folder) }
    let now = Date().timeIntervalSince1970
    var removed: [String] = []
    for entry in names {
      guard case .success(let info) = SystemCalls.lstat(entry, in: folder), info.st_uid == geteuid() else { continue }
      let kind = info.st_mode & S_IFMT
      guard kind == S_IFREG || kind == S_IFDIR else { continue }
      if let age, now - Double(info.st_mtim.tv_sec) < age { continue }
      removeTree(in: parent, name: entry)
      removed.append(entry)
    }
    return removed
  }

  /// How long a save's temporary item must have gone unmodified before a later save of the same
  /// document removes it as abandoned: far longer than any save in progress writes nothing.
  package static let abandonedSaveAge: TimeInterval = 60 * 60

  /// Whether `entry` is one of the temporary names saves of `name` use (see
  /// ``removeLeftovers(besides:notModifiedFor:)``).
  static func isLeftover(_ entry: String, of name: String) -> Bool {
    // Saves now name every temporary item `AtomicFile.temporaryName` (200 characters of the
    // name, `.tmp`); earlier versions kept 180 characters for files, and named package trees
    // with 8 letters and digits and no suffix. What a killed save of theirs left goes too.
    for length in [200, 180] {
      let prefix = ".\(name.prefix(length)).quire-"
      guard entry.hasPrefix(prefix) else { continue }
      let tail = entry.dropFirst(prefix.count)
      if tail.count == 8, tail.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) { return true }
      if tail.hasSuffix(".tmp"), case let random = tail.dropLast(4), !random.isEmpty,
        random.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber) })
      {
        return true
      }
    }
    return false
  }

  private struct WriteContext {
    var originalPrefix: String?
    var updateNames: Bool
    var reuse: [ReuseMethod: Int] = [:]
  }

  private func finish(_ context: WriteContext, at path: String) {
    lastWriteReuse = context.reuse
    rebase(at: path)
  }

  /// After a write, each regular file's source becomes its new file, so that lazy contents
  /// are read from there and the next save can reuse it.
  private func rebase(at path: String) {
    switch storage {
    case .file(let contents, _):
      if case .success(let info) = SystemCalls.lstat(FilePath(path)), info.st_mode & S_IFMT == S_IFREG {
        storage = .file(contents: contents, source: Source(path: path, info))
      }
    case .directory(let children):
      for (key, child) in children { child.rebase(at: path + "/" + key) }
    case .link:
      break
    }
  }

  private func writeItem(into dir: Int32, name: String, context: inout WriteContext, url: URL, inheritedMode: mode_t?) throws {
    switch storage {
    case .link(let destination):
      if case .failure(let error) = SystemCalls.makeSymbolicLink(name, in: FileDescriptor(rawValue: dir), to: destination) {
        throw saveError(error, step: "creating the symbolic link '\(name)'", url: url)
      }
    case .directory(let children):
      let mode = fileAttributes.posixPermissions.map { mode_t($0) } ?? inheritedMode ?? 0o755
      // Owner-only while it is being filled; the final mode is set before it becomes visible.
      if case .failure(let error) = SystemCalls.makeFolder(name, in: FileDescriptor(rawValue: dir), mode: 0o700) {
        throw saveError(error, step: "creating the folder '\(name)'", url: url)
      }
      let fd: Int32
      switch SystemCalls.open(name, in: FileDescriptor(rawValue: dir), O_RDONLY | O_DIRECTORY | O_NOFOLLOW, mode: 0).map(\.rawValue) {
      case .success(let value): fd = value
      case .failure(let error): throw saveError(error, step: "opening the new folder '\(name)'", url: url)
      }
      defer { SystemCalls.release(FileDescriptor(rawValue: fd)) }
      for (key, child) in children.sorted(by: { $0.key < $1.key }) {
        try child.writeItem(into: fd, name: key, context: &context, url: url, inheritedMode: nil)
        if context.updateNames { child.filename = key }
      }
      // The folder's entries must be on disk before the folder is swapped in.
      try settle(FileDescriptor(rawValue: fd), mode: mode, shown: "the folder '\(name)'", url: url)
    case .file(let contents, let source):
      let mode = fileAttributes.posixPermissions.map { mode_t($0) } ?? inheritedMode ?? 0o644
      if let source, let prefix = context.originalPrefix, source.path.hasPrefix(prefix),
        fileAttributes.posixPermissions == nil || fileAttributes.posixPermissions == source.mode,
        fileAttributes.modificationDate == nil
          || fileAttributes.modificationDate == Date(timeIntervalSince1970: Double(source.modified.tv_sec) + Double(source.modified.tv_nsec) / 1e9),
        source.isUnchanged,
        case .success = SystemCalls.makeHardLink(name, in: FileDescriptor(rawValue: dir), to: source.path)
      {
        // Unchanged and inside the package being replaced: share it, write nothing.
        context.reuse[.hardLink, default: 0] += 1
        return
      }
      let fd: Int32
      switch SystemCalls.open(name, in: FileDescriptor(rawValue: dir), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: 0o600).map(\.rawValue) {
      case .success(let value): fd = value
      case .failure(let error): throw saveError(error, step: "creating '\(name)'", url: url)
      }
      defer { SystemCalls.release(FileDescriptor(rawValue: fd)) }
      var wroteBytes = false
      if contents == nil, let source, source.isUnchanged,
        case .success(let input) = SystemCalls.open(FilePath(source.path), O_RDONLY | O_NOFOLLOW, mode: 0).map(\.rawValue)
      {
        defer { SystemCalls.release(FileDescriptor(rawValue: input)) }
        switch SystemCalls.copyContents(from: FileDescriptor(rawValue: input), to: FileDescriptor(rawValue: fd)).map(FileWrapper.ReuseMethod.init) {
        case .success(let method):
          context.reuse[method, default: 0] += 1
          wroteBytes = true
        case .failure(let error):
          throw saveError(error, step: "copying '\(name)'", url: url)
        }
      }
      if !wroteBytes {
        let data = try contents ?? self.contents()
        if case .failure(let error) = SystemCalls.writeAll(FileDescriptor(rawValue: fd), data) {
          throw saveError(error, step: "writing '\(name)'", url: url)
        }
      }
      // The bytes must be on disk before the rename makes them the document.
      try settle(FileDescriptor(rawValue: fd), mode: mode, shown: "'\(name)'", url: url)
    }
  }

  /// Gives a newly written item (`shown` names it in errors) its mode and, when the wrapper
  /// has one, its modification date, then flushes it to disk.
  private func settle(_ fd: FileDescriptor, mode: mode_t, shown: String, url: URL) throws {
    if case .failure(let error) = SystemCalls.setMode(fd, mode) {
      throw saveError(error, step: "setting the permissions of \(shown)", url: url)
    }
    if let date = fileAttributes.modificationDate, case .failure(let error) = SystemCalls.setModificationDate(fd, date) {
      throw saveError(error, step: "setting the date of \(shown)", url: url)
    }
    if case .failure(let error) = SystemCalls.flush(fd) {
      throw saveError(error, step: "flushing \(shown)", url: url)
    }
  }

  private func saveError(_ error: SyscallFailure, step: String, url: URL) -> QuireError {
    let folder = url.deletingLastPathComponent().path
    let advice =
      switch error.errno {
      case .noSpace, .diskQuotaExceeded: "Free some space and save again; the previous version is untouched."
      case .permissionDenied, .notPermitted, .readOnlyFileSystem: "'\(folder)' is not writable; use \"save as\" to keep a copy elsewhere."
      case .noSuchFileOrDirectory: "The folder '\(folder)' is gone; use \"save as\" to choose another place."
      default: "The previous version is untouched."
      }
    return QuireError(
      QuireError.Code(error.errno), "Cannot save \(QuireError.name(url)): \(QuireError.describe(error.errno)) (\(step)). \(advice)", url: url,
      cause: error)
  }

  /// Removes `name` in `dir` and everything under it, never following symbolic links (best
  /// effort; see `SystemCalls.removeTree`).
  static func removeTree(in dir: Int32, name: String) {
    SystemCalls.removeTree(name, in: FileDescriptor(rawValue: dir))
  }

  package static func randomSuffix() -> String {
    let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
    return String((0..<8).map { _ in letters.randomElement() ?? "x" })
  }

  // MARK: Describing

  /// The tree, one line per item, in name order:
  ///
  /// ```
  /// Notes.textbundle/ (folder)
  /// ├─ assets/ (folder)
  /// │  └─ image.png (file, 68 bytes)
  /// ├─ info.json (file, 96 bytes)
  /// └─ text.md (file, 12 bytes)
  /// ```
  open var debugDescription: String {
    var lines: [String] = []
    describe(name: filename ?? preferredFilename ?? "(unnamed)", prefix: "", childPrefix: "", into: &lines)
    return lines.joined(separator: "\n")
  }

  private func describe(name: String, prefix: String, childPrefix: String, into lines: inout [String]) {
    switch storage {
    case .file(let contents, let source):
      let size = contents.map { Int64($0.count) } ?? source?.size ?? 0
      lines.append("\(prefix)\(name) (file, \(size) byte\(size == 1 ? "" : "s"))")
    case .link(let destination):
      lines.append("\(prefix)\(name) -> \(destination) (symbolic link)")
    case .directory(let children):
      lines.append("\(prefix)\(name)/ (folder)")
      let sorted = children.sorted(by: { $0.key < $1.key })
      for (index, (key, child)) in sorted.enumerated() {
        let last = index == sorted.count - 1
        child.describe(
          name: key, prefix: childPrefix + (last ? "└─ " : "├─ "), childPrefix: childPrefix + (last ? "   " : "│  "),
          into: &lines)
      }
    }
  }
}

@available(*, unavailable, message: "A FileWrapper tree is mutable and belongs to one document.")
extension FileWrapper: Sendable {}
