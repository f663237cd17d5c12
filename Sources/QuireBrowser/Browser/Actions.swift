import Foundation
import QuireCoordination
import QuireDocuments
import QuireSystem
import QuireTypes
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// The browser's actions, each inside a coordinated access.
struct Actions {
  let browser: DocumentBrowser
  var configuration: DocumentBrowser.Configuration { browser.configuration }
  var timeout: Duration { configuration.coordinationTimeout }

  // MARK: Names

  static func checkName(_ name: String, for url: URL?) throws {
    if let problem = DocumentBrowser.problem(withName: name) { throw QuireError(.invalidArgument, problem, url: url) }
  }

  static func exists(_ url: URL) -> Bool {
    if case .success = SystemCalls.lstat(PathCarrier.filePath(url)) { return true }
    return false
  }

  /// `name.ext`, then `name 2.ext`, `name 3.ext`… (or with `copy` first: `name copy.ext`, `name copy 2.ext`).
  static func freeName(for name: String, in folder: URL, copy: Bool) -> URL {
    let base = (name as NSString).deletingPathExtension
    let ext = (name as NSString).pathExtension
    func candidate(_ n: Int) -> URL {
      var stem = base
      if copy { stem += " copy" }
      if n > 1 { stem += " \(n)" }
      return folder.appendingPathComponent(ext.isEmpty ? stem : stem + "." + ext)
    }
    if !copy && !exists(folder.appendingPathComponent(name)) { return folder.appendingPathComponent(name) }
    var n = 1
    while true {
      let url = candidate(n)
      if !exists(url) { return url }
      n += 1
    }
  }

  func requireExisting(_ url: URL) throws {
    guard Self.exists(url) else {
      throw QuireError(.fileMissing, "There is no document \(QuireError.name(url)) in '\(url.deletingLastPathComponent().path)'.", url: url)
    }
  }

  func renameError(_ failure: SyscallFailure, from: URL, to: URL) -> QuireError {
    switch failure.errno {
    case .fileExists, .directoryNotEmpty:
      return QuireError(
        .fileExists,
        "Cannot name \(QuireError.name(from)) \(QuireError.name(to)): that name is taken in '\(to.deletingLastPathComponent().path)'. Choose another name.",
        url: to, cause: failure)
    case .noSuchFileOrDirectory:
      return QuireError(
        .fileMissing, "Cannot move \(QuireError.name(from)): it or the folder '\(to.deletingLastPathComponent().path)' is gone.", url: from, cause: failure)
    case .permissionDenied, .notPermitted, .readOnlyFileSystem:
      return QuireError(
        .permissionDenied, "Cannot move \(QuireError.name(from)) to '\(to.deletingLastPathComponent().path)': permission denied.", url: from, cause: failure)
    default:
      return QuireError(
        QuireError.Code(failure.errno, for: .save), "Cannot move \(QuireError.name(from)) to \(QuireError.name(to)).", url: from, cause: failure)
    }
  }

  // MARK: Create

  func create(named name: String, in folder: URL?, template: String?) throws -> BrowserItem {
    guard let folder = (folder ?? configuration.locations.first)?.standardizedFileURL else {
      throw QuireError(.invalidArgument, "Cannot create '\(name)': the browser has no location. Give a folder.")
    }
    try Self.checkName(name, for: folder)
    var fileName = name
    var contents = Data()
    if let template {
      guard let found = try browser.templates().first(where: { $0.name == template || ($0.name as NSString).deletingPathExtension == template }) else {
        let names = ((try? browser.templates()) ?? []).map(\.name).joined(separator: ", ")
        throw QuireError(.invalidArgument, "There is no template named '\(template)'. Templates: \(names).")
      }
      if (fileName as NSString).pathExtension.isEmpty { fileName += "." + (found.name as NSString).pathExtension }
      contents = try browser.coordinator().coordinate(readingItemAt: found.url, timeout: timeout) { _ in try found.contents() }
    } else if (fileName as NSString).pathExtension.isEmpty {
      fileName += ".md"
    }
    let url = folder.appendingPathComponent(fileName)
    try browser.coordinator().coordinate(writingItemAt: url, options: .forReplacing, timeout: timeout) { url in
      try Self.writeNew(contents, to: url)
    }
    return try browser.item(at: url)
  }

  /// Writes `data` to a new file (`O_CREAT | O_EXCL`, 0666 less the umask) and flushes it.
  static func writeNew(_ data: Data, to url: URL, permissions: FilePermissions = [.ownerReadWrite, .groupReadWrite, .otherReadWrite]) throws {
    let fd: FileDescriptor
    switch SystemCalls.open(PathCarrier.filePath(url), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: permissions.rawValue) {
    case .success(let opened): fd = opened
    case .failure(.fileExists):
      throw QuireError(
        .fileExists, "Cannot create \(QuireError.name(url)): a file of that name is already in '\(url.deletingLastPathComponent().path)'. Choose another name.",
        url: url)
    case .failure(let failure):
      throw QuireError(
        QuireError.Code(failure.errno, for: .create), "Cannot create \(QuireError.name(url)) in '\(url.deletingLastPathComponent().path)'.", url: url,
        cause: failure)
    }
    let written = SystemCalls.writeAll(fd, data).flatMap { SystemCalls.flush(fd) }
    SystemCalls.release(fd)
    if case .failure(let failure) = written {
      _ = SystemCalls.remove(PathCarrier.filePath(url))
      throw QuireError(QuireError.Code(failure.errno, for: .write), "Cannot write \(QuireError.name(url)); nothing was kept.", url: url, cause: failure)
    }
  }

  // MARK: Rename and move

  func rename(_ url: URL, to newName: String, keepingExtension: Bool) throws -> URL {
    try Self.checkName(newName, for: url)
    try requireExisting(url)
    var name = newName
    let ext = url.pathExtension
    if keepingExtension, !ext.isEmpty, (name as NSString).pathExtension != ext { name += "." + ext }
    let target = url.deletingLastPathComponent().appendingPathComponent(name)
    if target.path == url.path { return url }
    return try relocate(url, to: target)
  }

  func move(_ url: URL, into folder: URL) throws -> URL {
    try requireExisting(url)
    guard case .success(let info) = SystemCalls.lstat(PathCarrier.filePath(folder)), (info.st_mode & S_IFMT) == S_IFDIR else {
      throw QuireError(.fileMissing, "Cannot move \(QuireError.name(url)) into '\(folder.path)': there is no such folder.", url: folder)
    }
    let target = folder.appendingPathComponent(url.lastPathComponent)
    if target.path == url.path { return url }
    if target.path.hasPrefix(url.path + "/") {
      throw QuireError(.invalidArgument, "Cannot move \(QuireError.name(url)) into itself.", url: url)
    }
    // Presenters with unsaved changes save first: a coordinated read asks them to.
    try browser.coordinator().coordinate(readingItemAt: url, timeout: timeout) { _ in }
    return try relocate(url, to: target)
  }

  /// Moves `url` to `target` inside one coordinated two-item write, without replacing anything.
  func relocate(_ url: URL, to target: URL) throws -> URL {
    let coordinator = browser.coordinator()
    try coordinator.coordinate(writingItemAt: url, options: .forMoving, writingItemAt: target, options: .forReplacing, timeout: timeout) {
      source, destination in
      switch SystemCalls.moveUserItem(PathCarrier.filePath(source), to: PathCarrier.filePath(destination)) {
      case .success: break
      case .failure(.improperLink):
        try Self.copyItem(source, to: destination)
        do { try FileManager.default.removeItem(at: source) } catch {
          throw QuireError(
            .systemCallFailed, "\(QuireError.name(source)) was copied to '\(destination.path)' but could not be removed; both are there now.", url: source)
        }
      case .failure(let failure): throw renameError(failure, from: source, to: destination)
      }
      coordinator.item(at: source, didMoveTo: destination)
    }
    return target
  }

  // MARK: Duplicate and import

  func duplicate(_ url: URL) throws -> URL {
    try requireExisting(url)
    // Only a document is duplicated: a plain folder, a link or a special file is refused
    // before anything is copied.
    if case .success(let info) = SystemCalls.lstat(PathCarrier.filePath(url)) {
      let kind = info.st_mode & S_IFMT
      guard kind == S_IFREG || (kind == S_IFDIR && Listing(configuration: configuration).isPackage(url)) else {
        let what = kind == S_IFDIR ? "a folder" : kind == S_IFLNK ? "a symbolic link" : "a special file (FIFO, device or socket)"
        throw QuireError(.unsupportedType, "Cannot duplicate \(QuireError.name(url)): it is \(what), not a document. Nothing was copied.", url: url)
      }
    }
    let coordinator = browser.coordinator()
    return try coordinator.coordinate(readingItemAt: url, timeout: timeout) { source in
      let target = Self.freeName(for: source.lastPathComponent, in: source.deletingLastPathComponent(), copy: true)
      try coordinator.coordinate(writingItemAt: target, options: .forReplacing, timeout: timeout) { target in
        try Self.copyItem(source, to: target)
      }
      return target
    }
  }

  func importItem(_ url: URL, into folder: URL?, moving: Bool) throws -> URL {
    guard let folder = (folder ?? configuration.locations.first)?.standardizedFileURL else {
      throw QuireError(.invalidArgument, "Cannot import \(QuireError.name(url)): the browser has no location. Give a folder.", url: url)
    }
    switch SystemCalls.lstat(PathCarrier.filePath(url)) {
    case .failure:
      throw QuireError(.fileMissing, "Cannot import \(QuireError.name(url)): there is no such file.", url: url)
    case .success(let info):
      let kind = info.st_mode & S_IFMT
      guard kind == S_IFREG || (kind == S_IFDIR && Listing(configuration: configuration).isPackage(url)) else {
        throw QuireError(
          .unsupportedType, "Cannot import \(QuireError.name(url)): it is not a regular file or a package (a symbolic link, folder, FIFO, device or socket).",
          url: url)
      }
    }
    let target = Self.freeName(for: url.lastPathComponent, in: folder, copy: false)
    if moving { return try relocate(url, to: target) }
    let coordinator = browser.coordinator()
    try coordinator.coordinate(readingItemAt: url, options: [], writingItemAt: target, options: .forReplacing, timeout: timeout) { source, target in
      try Self.copyItem(source, to: target)
    }
    return target
  }

  /// Copies a file or package; a partial copy is removed.
  static func copyItem(_ source: URL, to target: URL) throws {
    do {
      try FileManager.default.copyItem(at: source, to: target)
    } catch {
      try? FileManager.default.removeItem(at: target)
      if exists(target) || (error as NSError).code == NSFileWriteFileExistsError {
        throw QuireError(.fileExists, "Cannot copy \(QuireError.name(source)) to \(QuireError.name(target)): that name is taken.", url: target)
      }
      throw QuireError(
        .systemCallFailed, "Cannot copy \(QuireError.name(source)) to '\(target.deletingLastPathComponent().path)'; nothing was kept.", url: source)
    }
  }

  // MARK: Trash

  /// Trashes the item at `path` (any bytes), coordinated by its path.
  func trash(_ path: FilePath) throws -> TrashedItem {
    let url = PathCarrier.carrierURL(path)
    try requireExisting(url)
    return try browser.coordinator().coordinate(writingItemAt: path, options: .forDeleting, timeout: timeout) { path in
      try browser.trash.trashItem(at: PathCarrier.carrierURL(path))
    }
  }

  func trash(_ url: URL) throws -> TrashedItem {
    try requireExisting(url)
    return try browser.coordinator().coordinate(writingItemAt: url, options: .forDeleting, timeout: timeout) { url in
      try browser.trash.trashItem(at: url)
    }
  }

  func restore(_ item: TrashedItem, to destination: URL?) throws -> URL {
    // By its path: an original name that is not UTF-8 is carried in the URL as PathText.
    let target = PathCarrier.filePath((destination ?? item.originalURL).standardizedFileURL)
    return try browser.coordinator().coordinate(writingItemAt: target, options: .forReplacing, timeout: timeout) { target in
      try browser.trash.restore(item, to: PathCarrier.carrierURL(target))
    }
  }
}
