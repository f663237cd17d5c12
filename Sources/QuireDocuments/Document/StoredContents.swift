import Foundation
import Glibc
import QuireSystem
import QuireTypes
import SystemPackage

/// A document's contents in the form they take on disk: the bytes of a regular file, or a
/// ``FileWrapper`` tree for a package (a folder the user sees as one document).
///
/// This is the one mechanism through which ``Document`` reads, saves, keeps versions of and
/// restores its contents: what is on disk decides how it is read (a folder becomes
/// `.package`), the document's type decides how it is written (``Document/isPackageType(_:)``).
enum StoredContents {
  case file(Data)
  case package(FileWrapper)
  /// A regular file's bytes as a text's chunks after `prefix` (a byte order mark): saved from
  /// the chunks without joining them (``PlainTextDocument``).
  case text(TextStorage, prefix: [UInt8])

  /// Whether these are a regular file's contents (not a package).
  var isFile: Bool {
    if case .package = self { return false }
    return true
  }

  /// A regular file's bytes, joined (for `.text`, a copy); `nil` for a package.
  var fileData: Data? {
    switch self {
    case .file(let data): return data
    case .text(let text, let prefix):
      var data = Data(prefix)
      data.reserveCapacity(prefix.count + text.utf8Count)
      text.forEachChunk { data.append($0) }
      return data
    case .package: return nil
    }
  }

  /// Reads the item at `url` (symbolic links followed to their end): a folder lazily as a
  /// wrapper tree when `packages`, a regular file whole. A folder when not `packages` is
  /// refused by ``FileReader`` ("it is a folder") without walking it.
  static func read(_ url: URL, packages: Bool) throws -> (fingerprint: FileFingerprint, contents: Handoff<StoredContents>) {
    let target = FileSaver.resolvedTarget(of: url)
    if packages, case .success(let info) = SystemCalls.lstat(PathText.path(target.path)), info.st_mode & S_IFMT == S_IFDIR {
      let wrapper = try FileWrapper(url: target)
      let fingerprint = try PackageFingerprint.read(target, url: url)
      return (fingerprint, Handoff(.package(wrapper)))
    }
    let (fingerprint, data) = try FileReader.read(url)
    return (fingerprint, Handoff(.file(data)))
  }

  /// Whether the item at `url` is what these contents replace: a regular file for `.file`,
  /// a folder for `.package` (symbolic links not followed).
  func isSameKind(as url: URL) -> Bool {
    guard case .success(let info) = SystemCalls.lstat(PathText.path(url.path)) else { return false }
    switch self {
    case .file, .text: return info.st_mode & S_IFMT == S_IFREG
    case .package: return info.st_mode & S_IFMT == S_IFDIR
    }
  }

  /// Writes `self` to `url`: a file through ``FileSaver``, a package with
  /// ``FileWrapper/write(to:options:originalContentsURL:)`` (atomic: built beside, swapped
  /// in with `renameat2(RENAME_EXCHANGE)`), reusing unchanged files of `original`. A file's
  /// replaced content goes to `keeper` (see ``ReplacedVersionKeeper``).
  func write(to url: URL, original: URL?, options: SaveOptions, keeper: ReplacedVersionKeeper? = nil) throws -> SaveResult {
    switch self {
    case .file(let data):
      return try FileSaver.write(.data(data), to: url, options: options, keeper: keeper)
    case .text(let text, let prefix):
      return try FileSaver.write(.text(text, prefix: prefix), to: url, options: options, keeper: keeper)
    case .package(let wrapper):
      let target = FileSaver.resolvedTarget(of: url)
      let existed: Bool
      switch SystemCalls.lstat(PathText.path(target.path)) {
      case .success(let info):
        if options.requiresNewFile {
          throw QuireError(.fileExists, "Cannot create \(QuireError.name(url)): an item with that name already exists. Choose another name.", url: url)
        }
        if info.st_mode & S_IFMT != S_IFDIR {
          throw QuireError(
            .unsupportedType, "Cannot save \(QuireError.name(url)) as a package: a file that is not a folder is in the way. Save under another name.", url: url)
        }
        existed = true
      case .failure: existed = false
      }
      try wrapper.write(to: target, options: .atomic, originalContentsURL: original.map { FileSaver.resolvedTarget(of: $0) })
      let fingerprint = try PackageFingerprint.read(target, url: url)
      return SaveResult(writtenURL: target, fingerprint: fingerprint, method: existed ? .replaced : .created)
    }
  }
}

/// Carries a value that is not `Sendable` into (or out of) a file access closure running off
/// the main actor.
///
/// `@unchecked Sendable` invariant: the value is handed over, not shared — it is either made
/// inside the closure and returned (a tree just read), or made for this one save
/// (``FileWrapper/copyForWriting()``) and not touched by the sender until the closure has
/// returned.
struct Handoff<Value>: @unchecked Sendable {
  let value: Value
  init(_ value: Value) { self.value = value }
}

/// The fingerprint of a package folder: its tree's content hash (names, kinds, file bytes,
/// link destinations, in name order), the total size of its files, and the root folder's
/// identity and modification time.
enum PackageFingerprint {
  static let maximumDepth = 256

  static func read(_ target: URL, url: URL) throws -> FileFingerprint {
    let root = target.standardizedFileURL.path
    guard case .success(let info) = SystemCalls.lstat(PathText.path(root)) else {
      throw QuireError(.fileMissing, "Cannot read \(QuireError.name(url)): the package is gone. Check the path.", url: url)
    }
    var listing = Data()
    var size = 0
    try walk(root, relative: "", depth: 0, url: url, listing: &listing, size: &size)
    return FileFingerprint(
      device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: size,
      modificationTime: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec),
      contentHash: ContentHash(listing))
  }

  private static func walk(_ path: String, relative: String, depth: Int, url: URL, listing: inout Data, size: inout Int) throws {
    guard depth < maximumDepth else {
      throw QuireError(.limitExceeded, "Cannot read \(QuireError.name(url)): its folders nest more than \(maximumDepth) deep.", url: url)
    }
    let names: [String]
    do { names = try FileManager.default.contentsOfDirectory(atPath: path).sorted() } catch {
      throw QuireError(
        .permissionDenied, "Cannot read \(QuireError.name(url)): the folder '\(path)' cannot be listed. Check its permissions.", url: url, cause: error)
    }
    for name in names {
      let childPath = path + "/" + name
      let childRelative = relative.isEmpty ? name : relative + "/" + name
      guard case .success(let info) = SystemCalls.lstat(PathText.path(childPath)) else { continue }
      switch info.st_mode & S_IFMT {
      case S_IFDIR:
        listing.append(contentsOf: Array("d\0\(childRelative)\0".utf8))
        try walk(childPath, relative: childRelative, depth: depth + 1, url: url, listing: &listing, size: &size)
      case S_IFLNK:
        let destination = (try? FileManager.default.destinationOfSymbolicLink(atPath: childPath)) ?? ""
        listing.append(contentsOf: Array("l\0\(childRelative)\0\(destination)\0".utf8))
      case S_IFREG:
        let (fingerprint, _) = try FileReader.read(URL(fileURLWithPath: childPath))
        size += fingerprint.size
        listing.append(contentsOf: Array("f\0\(childRelative)\0\(fingerprint.size) \(fingerprint.contentHash)\0".utf8))
      default:
        listing.append(contentsOf: Array("o\0\(childRelative)\0".utf8))
      }
    }
  }
}
