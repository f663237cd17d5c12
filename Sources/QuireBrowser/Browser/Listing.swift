import Foundation
import QuireSystem
import QuireTypes
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// Walks the locations and makes ``BrowserItem``s: regular files and packages, never through
/// a symbolic link, never opening a special file.
struct Listing {
  let configuration: DocumentBrowser.Configuration

  func allItems() throws -> [BrowserItem] {
    var items: [BrowserItem] = []
    var seen = Set<String>()
    for location in configuration.locations {
      try check(location: location)
      for item in walk(location, location: location) where seen.insert(item.url.path).inserted { items.append(item) }
    }
    return items
  }

  func check(location: URL) throws {
    switch SystemCalls.lstat(PathCarrier.filePath(location)) {
    case .success(let info) where (info.st_mode & S_IFMT) == S_IFDIR:
      // A folder the user cannot list would show as empty: say so instead.
      guard SystemCalls.entryNames(in: PathCarrier.filePath(location)) != nil else {
        let code = Errno(rawValue: Glibc.errno)
        throw QuireError(
          code == .permissionDenied ? .permissionDenied : QuireError.Code(code),
          "Cannot browse \(QuireError.name(location)): its list of files cannot be read (\(QuireError.describe(code))). Check its permissions.",
          url: location, cause: code)
      }
      return
    case .success:
      throw QuireError(.invalidArgument, "Cannot browse \(QuireError.name(location)): it is not a folder. Give a folder.", url: location)
    case .failure(.noSuchFileOrDirectory):
      throw QuireError(.fileMissing, "Cannot browse \(QuireError.name(location)): there is no such folder.", url: location)
    case .failure(let errno):
      throw QuireError(.permissionDenied, "Cannot browse \(QuireError.name(location)): it cannot be read.", url: location, cause: errno)
    }
  }

  /// The folders to watch: the location and (when walking subfolders) every folder inside
  /// that is not a package.
  func folders(of location: URL) -> [URL] {
    var result = [location]
    guard configuration.includesSubfolders else { return result }
    var index = 0
    while index < result.count {
      let folder = result[index]
      index += 1
      for name in names(in: folder) {
        let url = folder.appendingPathComponent(name)
        guard case .success(let info) = SystemCalls.lstat(PathCarrier.filePath(url)), (info.st_mode & S_IFMT) == S_IFDIR else { continue }
        if !isPackage(url) { result.append(url) }
      }
    }
    return result
  }

  func walk(_ folder: URL, location: URL) -> [BrowserItem] {
    var items: [BrowserItem] = []
    forEachEntry(in: folder) { path, info in
      if let item = try? makeItem(Self.url(ofEntry: path, info), info: info, location: location), isAllowed(item) { items.append(item) }
    }
    return items
  }

  /// Calls `visit` with the path (`PathText`) and `lstat` of every entry under `folder` that
  /// could be a document (anything but a folder, and packages), in name order, going into
  /// subfolders when configured: one `lstat` per entry, nothing opened or read, no URL made.
  /// ``walk(_:location:)`` makes items of them; the search index compares them with what it
  /// holds, and makes a URL (``url(ofEntry:_:)``) only for what changed.
  func forEachEntry(in folder: URL, _ visit: (_ path: String, _ info: stat) -> Void) {
    forEachEntry(inPath: folder.path, visit)
  }

  private func forEachEntry(inPath folder: String, _ visit: (_ path: String, _ info: stat) -> Void) {
    let prefix = folder.hasSuffix("/") ? folder : folder + "/"
    // Each entry is looked at beneath the open folder (`fstatat`), not by its whole path.
    guard case .success(let descriptor) = SystemCalls.open(PathCarrier.path(folder), O_RDONLY | O_DIRECTORY) else { return }
    defer { SystemCalls.release(descriptor) }
    for name in names(inPath: folder) {
      let path = prefix + name
      guard case .success(let info) = SystemCalls.lstat(name, in: descriptor, path: path) else { continue }
      if (info.st_mode & S_IFMT) == S_IFDIR && !isPackage(named: name) {
        if configuration.includesSubfolders { forEachEntry(inPath: path, visit) }
        continue
      }
      visit(path, info)
    }
  }

  /// The URL of an entry ``forEachEntry(in:_:)`` gave (a folder's, i.e. a package's, ends in `/`).
  static func url(ofEntry path: String, _ info: stat) -> URL {
    URL(fileURLWithPath: path, isDirectory: (info.st_mode & S_IFMT) == S_IFDIR)
  }

  /// The names in `folder` (hidden ones only when configured), read as bytes and carried as
  /// `PathText`: a name that is not UTF-8 is listed under its own bytes (Foundation's listing
  /// would decode it into a *different* name, one that is not there), and its item's URL
  /// carries it (see `PathCarrier`, ``BrowserItem/path``).
  func names(in folder: URL) -> [String] { names(inPath: folder.path) }

  private func names(inPath folder: String) -> [String] {
    let entries = SystemCalls.entryNames(in: PathCarrier.path(folder)) ?? []
    return entries.filter { $0.first != UInt8(ascii: ".") || configuration.includesHiddenFiles }.map { PathText.string(bytes: $0) }.sorted()
  }

  func isAllowed(_ item: BrowserItem) -> Bool {
    let type = configuration.registry.type(withIdentifier: item.contentTypeIdentifier) ?? item.contentType
    return configuration.allowedContentTypes.contains { type.conforms(to: $0) }
  }

  func isPackage(_ url: URL) -> Bool { isPackage(named: url.lastPathComponent) }

  /// Whether a folder of this name is a package: its extension (after the last dot that is
  /// not the first character) names a type that conforms to `com.apple.package`.
  func isPackage(named name: String) -> Bool {
    guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return false }
    let ext = String(name[name.index(after: dot)...])
    guard !ext.isEmpty, let type = configuration.registry.type(forFilenameExtension: ext) else { return false }
    return type.conforms(to: .package)
  }

  /// The location `url` is under, if any.
  func location(of url: URL) -> URL? {
    configuration.locations.filter { url.path.hasPrefix($0.path.hasSuffix("/") ? $0.path : $0.path + "/") }.max { $0.path.count < $1.path.count }
  }

  func item(at url: URL) throws -> BrowserItem {
    switch SystemCalls.lstat(PathCarrier.filePath(url)) {
    case .success(let info):
      return try makeItem(url, info: info, location: location(of: url) ?? url.deletingLastPathComponent())
    case .failure(.noSuchFileOrDirectory):
      throw QuireError(.fileMissing, "There is no document \(QuireError.name(url)) in '\(url.deletingLastPathComponent().path)'.", url: url)
    case .failure(let errno):
      throw QuireError(.permissionDenied, "Cannot examine \(QuireError.name(url)).", url: url, cause: errno)
    }
  }

  func makeItem(_ url: URL, info: stat, location: URL) throws -> BrowserItem {
    let kind = info.st_mode & S_IFMT
    let package = kind == S_IFDIR && isPackage(url)
    guard kind == S_IFREG || package else {
      let what = kind == S_IFLNK ? "a symbolic link" : kind == S_IFDIR ? "a folder" : "a special file (FIFO, device or socket)"
      throw QuireError(.unsupportedType, "\(QuireError.name(url)) is \(what), not a document.", url: url)
    }
    let type: UTType
    if package {
      type = configuration.registry.type(forFilenameExtension: url.pathExtension) ?? .package
    } else {
      type =
        (try? configuration.registry.identifyFile(at: PathCarrier.filePath(url), options: .init(maximumBytesRead: 4096, followsSymbolicLinks: false)))?.type
        ?? .data
    }
    let size = package ? packageSize(url) : Int64(info.st_size)
    var relative = String(url.path.dropFirst(location.path.count))
    while relative.hasPrefix("/") { relative.removeFirst() }
    return BrowserItem(
      url: url, location: location, relativePath: relative, contentTypeIdentifier: type.identifier, mimeType: type.preferredMIMEType,
      isPackage: package, size: size, modificationDate: Self.date(info.st_mtim), creationDate: creationDate(url),
      accessDate: Self.date(info.st_atim), tags: (try? FileTags.tags(of: PathCarrier.filePath(url))) ?? [],
      fileID: FileID(device: UInt64(info.st_dev), inode: UInt64(info.st_ino)))
  }

  func packageSize(_ url: URL) -> Int64 {
    var total: Int64 = 0
    guard let walker = FileManager.default.enumerator(atPath: url.path) else { return 0 }
    while let name = walker.nextObject() as? String {
      if case .success(let info) = SystemCalls.lstat(PathCarrier.path(url.path + "/" + name)), (info.st_mode & S_IFMT) == S_IFREG {
        total += Int64(info.st_size)
      }
    }
    return total
  }

  func creationDate(_ url: URL) -> Date? {
    (try? FileManager.default.attributesOfItem(atPath: url.path))?[.creationDate] as? Date
  }

  static func date(_ time: timespec) -> Date {
    Date(timeIntervalSince1970: TimeInterval(time.tv_sec) + TimeInterval(time.tv_nsec) / 1e9)
  }
}
