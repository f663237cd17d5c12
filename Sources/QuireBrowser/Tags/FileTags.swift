public import Foundation
import QuireCoordination
import QuireSystem
import QuireTypes
public import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// The tags of a file, kept where the desktop keeps them: the `user.xdg.tags` extended
/// attribute, a comma-separated list (the freedesktop "Common Extended Attributes"
/// convention, read by KDE's Dolphin and Baloo, and by `getfattr -n user.xdg.tags`).
///
/// Tags are read with `lgetxattr(2)` and written with `lsetxattr(2)` (or removed with
/// `lremovexattr(2)` when none are left): symbolic links are never followed. A file system
/// without user extended attributes (some `tmpfs` mounts, FAT, many network file systems)
/// answers `ENOTSUP`, which becomes a ``QuireError`` that says so.
public enum FileTags {
  /// The extended attribute's name: `user.xdg.tags`.
  public static let attributeName = "user.xdg.tags"

  /// The tags of the file at `url`, in the attribute's order, blanks and duplicates left out.
  /// A file without the attribute has none.
  ///
  /// A tag whose bytes are not UTF-8 (written by another program) is carried as `PathText`
  /// (shown escaped, `caf\xE9`) and written back with its own bytes.
  ///
  /// - Throws: ``QuireError``: `fileMissing`, `unsupportedType` when the file system keeps no
  ///   user attributes.
  public static func tags(of url: URL) throws -> [String] {
    try tags(of: PathCarrier.filePath(url), url: url)
  }

  /// The tags of the file at `path`, a path of any bytes (a name that is not UTF-8, which no
  /// `URL` holds, included), as ``tags(of:)-(URL)`` reads them.
  ///
  /// - Throws: ``QuireError`` as ``tags(of:)-(URL)``, naming the file escaped.
  public static func tags(of path: FilePath) throws -> [String] {
    try tags(of: path, url: nil)
  }

  /// Sets the file's tags (replacing the old ones); an empty list removes the attribute.
  ///
  /// - Throws: ``QuireError`` as ``tags(of:)-(URL)``, and `invalidArgument` for a tag with a comma
  ///   or a line break.
  public static func setTags(_ tags: [String], of url: URL) throws {
    try setTags(tags, of: PathCarrier.filePath(url), url: url)
  }

  /// Sets the tags of the file at `path` (any bytes), as ``setTags(_:of:)-(_,URL)`` does.
  public static func setTags(_ tags: [String], of path: FilePath) throws {
    try setTags(tags, of: path, url: nil)
  }

  static func tags(of path: FilePath, url: URL?) throws -> [String] {
    switch SystemCalls.attribute(attributeName, of: path) {
    case .success(nil): return []
    case .success(let data?):
      // Another program may have written bytes that are not UTF-8: they are carried as
      // PathText (one private-use scalar per byte, shown `\xE9`), so such a tag can still be
      // listed, kept byte for byte, or removed.
      return parse(PathText.string(bytes: Array(data)))
    case .failure(let failure): throw error(failure, reading: true, path: path, url: url)
    }
  }

  static func setTags(_ tags: [String], of path: FilePath, url: URL?) throws {
    let clean = try normalized(tags, path: path, url: url)
    let result: Result<Void, SyscallFailure>
    if clean.isEmpty {
      result = SystemCalls.removeAttribute(attributeName, of: path)
    } else {
      result = SystemCalls.setAttribute(attributeName, to: Data(PathText.bytes(clean.joined(separator: ","))), of: path)
    }
    if case .failure(let failure) = result { throw error(failure, reading: false, path: path, url: url) }
  }

  /// Splits an attribute value: comma-separated, spaces around each tag trimmed, blanks and
  /// repeats (ignoring case) left out.
  public static func parse(_ value: String) -> [String] {
    var seen = Set<String>()
    var result: [String] = []
    for part in value.split(separator: ",") {
      let tag = part.trimmingCharacters(in: .whitespacesAndNewlines)
      if tag.isEmpty || !seen.insert(tag.lowercased()).inserted { continue }
      result.append(tag)
    }
    return result
  }

  static func normalized(_ tags: [String], path: FilePath, url: URL?) throws -> [String] {
    for tag in tags where tag.contains(",") || tag.contains("\n") {
      throw QuireError(.invalidArgument, "Cannot tag \(QuireError.name(path)) with '\(tag)': a tag cannot hold a comma or a line break.", url: url)
    }
    return parse(tags.joined(separator: ","))
  }

  static func isSymbolicLink(_ path: FilePath) -> Bool {
    if case .success(let info) = SystemCalls.lstat(path) { return info.st_mode & S_IFMT == S_IFLNK }
    return false
  }

  /// Whether `tag` is one of `removed` (ignoring case): as typed, or as shown escaped (`caf\xE9`
  /// for a tag whose bytes are not UTF-8).
  static func isListed(_ tag: String, in removed: Set<String>) -> Bool {
    removed.contains(tag.lowercased()) || removed.contains(DisplayName.escaping(tag).lowercased())
  }

  static func error(_ failure: SyscallFailure, reading: Bool, path: FilePath, url: URL?) -> QuireError {
    let verb = reading ? "read" : "set"
    switch failure.errno {
    case .notSupported:
      return QuireError(
        .unsupportedType,
        "Cannot \(verb) the tags of \(QuireError.name(path)): its file system keeps no user extended attributes (\(attributeName)). Move it to a folder on ext4, XFS or Btrfs to tag it.",
        url: url, cause: failure)
    case .noSuchFileOrDirectory:
      return QuireError(.fileMissing, "Cannot \(verb) the tags of \(QuireError.name(path)): there is no such file.", url: url, cause: failure)
    case .notPermitted where !reading && isSymbolicLink(path):
      // Linux keeps no user.* attributes on symbolic links: lsetxattr answers EPERM.
      return QuireError(
        .unsupportedType,
        "Cannot \(verb) the tags of \(QuireError.name(path)): it is a symbolic link, and Linux keeps no user extended attributes on links. Tag the file it leads to.",
        url: url, cause: failure)
    case .permissionDenied, .notPermitted:
      return QuireError(.permissionDenied, "Cannot \(verb) the tags of \(QuireError.name(path)): permission denied.", url: url, cause: failure)
    case .outOfRange, .argListTooLong:
      return QuireError(
        .limitExceeded, "Cannot \(verb) the tags of \(QuireError.name(path)): they are longer than its file system allows.", url: url, cause: failure)
    default:
      return QuireError(
        QuireError.Code(failure.errno, for: reading ? .read : .write), "Cannot \(verb) the tags of \(QuireError.name(path)).", url: url, cause: failure)
    }
  }
}

extension DocumentBrowser {
  /// The tags of the item at `url` (``FileTags``), read inside a coordinated read.
  ///
  /// - Throws: ``QuireError`` as ``FileTags/tags(of:)``, or when coordination times out.
  public func tags(of url: URL) throws -> [String] {
    try coordinator().coordinate(readingItemAt: url.standardizedFileURL, options: .withoutChanges, timeout: configuration.coordinationTimeout) {
      try FileTags.tags(of: $0)
    }
  }

  /// Replaces the tags of the item at `url`, inside a coordinated write (presenters hear of the
  /// change; the contents are untouched).
  ///
  /// - Throws: ``QuireError`` as ``FileTags/setTags(_:of:)``.
  public func setTags(_ tags: [String], of url: URL) throws {
    try coordinator().coordinate(writingItemAt: url.standardizedFileURL, timeout: configuration.coordinationTimeout) {
      try FileTags.setTags(tags, of: $0)
    }
  }

  /// Adds `added` and removes `removed` (compared ignoring case) in one coordinated write, and
  /// returns the tags the item has afterwards.
  @discardableResult
  public func changeTags(of url: URL, adding added: [String] = [], removing removed: [String] = []) throws -> [String] {
    try coordinator().coordinate(writingItemAt: url.standardizedFileURL, timeout: configuration.coordinationTimeout) { url in
      let gone = Set(removed.map { $0.lowercased() })
      let tags = try FileTags.tags(of: url).filter { !FileTags.isListed($0, in: gone) } + added
      try FileTags.setTags(tags, of: url)
      return try FileTags.tags(of: url)
    }
  }

  /// The tags of the item at `path`, a path of any bytes (a name that is not UTF-8
  /// included), read inside a coordinated read, as ``tags(of:)-(URL)`` reads a URL's.
  ///
  /// - Throws: ``QuireError`` as ``FileTags/tags(of:)-(FilePath)``, or when coordination times out.
  public func tags(of path: FilePath) throws -> [String] {
    try coordinator().coordinate(readingItemAt: path, options: .withoutChanges, timeout: configuration.coordinationTimeout) {
      try FileTags.tags(of: $0)
    }
  }

  /// Adds `added` and removes `removed` (compared ignoring case) in one coordinated write of
  /// the item at `path` (any bytes), and returns its tags afterwards, as
  /// ``changeTags(of:adding:removing:)-(URL,_,_)`` does for a URL.
  @discardableResult
  public func changeTags(of path: FilePath, adding added: [String] = [], removing removed: [String] = []) throws -> [String] {
    try coordinator().coordinate(writingItemAt: path, timeout: configuration.coordinationTimeout) { path in
      let gone = Set(removed.map { $0.lowercased() })
      let tags = try FileTags.tags(of: path).filter { !FileTags.isListed($0, in: gone) } + added
      try FileTags.setTags(tags, of: path)
      return try FileTags.tags(of: path)
    }
  }

  /// Every tag used under the locations, with how many documents carry it, most used first.
  public func allTags() throws -> [(tag: String, count: Int)] {
    Self.tagCounts(in: try items())
  }

  /// Every tag `items` carry (tags that differ only in case are one), with how many of them
  /// carry it, most used first: ``allTags()`` for items already listed, so a caller that
  /// needs both the listing and its tags walks the locations once.
  public static func tagCounts(in items: [BrowserItem]) -> [(tag: String, count: Int)] {
    var counts: [String: (name: String, count: Int)] = [:]
    for item in items {
      for tag in item.tags { counts[tag.lowercased(), default: (tag, 0)].count += 1 }
    }
    return counts.values.map { (tag: $0.name, count: $0.count) }.sorted { $0.count == $1.count ? $0.tag < $1.tag : $0.count > $1.count }
  }

  func coordinator() -> FileCoordinator {
    FileCoordinator(location: configuration.coordinationLocation)
  }
}
