public import Foundation
import QuireSystem
import QuireTypes
public import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// An item in the Trash: the trashed file and its `.trashinfo`.
public struct TrashedItem: Sendable, Hashable, Codable {
  /// Where the item was (the `.trashinfo`'s `Path`, decoded).
  public var originalURL: URL
  /// The trashed file or folder (`TRASH/files/NAME`).
  public var trashedURL: URL
  /// Its information file (`TRASH/info/NAME.trashinfo`).
  public var infoURL: URL
  /// When it was trashed (the `.trashinfo`'s `DeletionDate`, local time).
  public var deletionDate: Date?
  /// The trash folder it is in (`$XDG_DATA_HOME/Trash`, or a volume's `.Trash-UID`).
  public var trashFolder: URL

  /// The name in the trash (which may be numbered to differ from the original's).
  public var name: String { trashedURL.lastPathComponent }

  /// Where the item was, with the bytes of its name: for a name that is not UTF-8 (which no
  /// `URL` holds) ``originalURL`` only stands for it, and this is the path to use.
  public var originalPath: FilePath { PathCarrier.filePath(originalURL) }

  /// The trashed file or folder, with the bytes of its name (see ``originalPath``).
  public var trashedPath: FilePath { PathCarrier.filePath(trashedURL) }

  /// Encodes the item; a URL whose name is not UTF-8 is written as the `file://` URI of its
  /// bytes (`%FF`), as GLib writes it.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try PathCarrier.encode(originalURL, forKey: .originalURL, in: &container)
    try PathCarrier.encode(trashedURL, forKey: .trashedURL, in: &container)
    try PathCarrier.encode(infoURL, forKey: .infoURL, in: &container)
    try container.encodeIfPresent(deletionDate, forKey: .deletionDate)
    try PathCarrier.encode(trashFolder, forKey: .trashFolder, in: &container)
  }

  enum CodingKeys: String, CodingKey {
    case originalURL, trashedURL, infoURL, deletionDate, trashFolder
  }

  /// Makes an item.
  public init(originalURL: URL, trashedURL: URL, infoURL: URL, deletionDate: Date?, trashFolder: URL) {
    self.originalURL = originalURL
    self.trashedURL = trashedURL
    self.infoURL = infoURL
    self.deletionDate = deletionDate
    self.trashFolder = trashFolder
  }
}

/// The freedesktop Trash (the Trash specification 1.0), as GIO, Nautilus and Dolphin use it:
/// `gio trash --list` shows what Quire trashed, and `gio trash --restore` (or ``restore(_:to:)``)
/// puts it back.
///
/// A file on the same file system as `$XDG_DATA_HOME` goes to `$XDG_DATA_HOME/Trash`; a file on
/// another volume goes to that volume's top folder: `$topdir/.Trash/$uid` when `.Trash` is a
/// real folder with the sticky bit (not a symbolic link), else `$topdir/.Trash-$uid` (made
/// 0700). Each trashed item gets `info/NAME.trashinfo` first (made with `O_EXCL`, which
/// reserves the name), holding the percent-encoded `Path` (absolute, or relative to the
/// top folder on other volumes) and the `DeletionDate` (`YYYY-MM-DDThh:mm:ss`, local time),
/// then is renamed into `files/NAME`. Nothing is copied: a file that cannot be renamed
/// there is left in place with an error.
public struct Trash: Sendable {
  /// The home trash: `$XDG_DATA_HOME/Trash`.
  public let homeTrashURL: URL
  let environment: [String: String]

  /// Makes the trash for `environment`'s `XDG_DATA_HOME`.
  public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
    self.environment = environment
    self.homeTrashURL = XDGBaseDirectory.dataHome.url(in: environment).appendingPathComponent("Trash", isDirectory: true)
  }

  /// Moves the item at `url` to the trash of its volume (uncoordinated: the browser's
  /// ``DocumentBrowser/trashItem(at:)`` coordinates it).
  ///
  /// - Throws: ``QuireError`` when the item is missing or no trash folder can be made or used.
  public func trashItem(at url: URL) throws -> TrashedItem {
    try trashItem(carriedBy: url.standardizedFileURL)
  }

  /// Moves the item at `path`, a path of any bytes (a name that is not UTF-8 included), to the
  /// trash of its volume, as ``trashItem(at:)-(URL)`` does: the trashed file keeps the name's
  /// bytes and the `.trashinfo` holds them percent-encoded (`%FF`), as `gio trash` writes them.
  /// The item's ``TrashedItem/originalPath`` and ``TrashedItem/trashedPath`` are its paths.
  ///
  /// - Throws: ``QuireError`` when the item is missing or no trash folder can be made or used.
  public func trashItem(at path: FilePath) throws -> TrashedItem {
    try trashItem(carriedBy: PathCarrier.carrierURL(path))
  }

  /// Trashes the item whose path is `url`'s `PathText` path (see `PathCarrier`).
  func trashItem(carriedBy url: URL) throws -> TrashedItem {
    let info: stat
    switch SystemCalls.lstat(PathCarrier.filePath(url)) {
    case .success(let value): info = value
    case .failure(.noSuchFileOrDirectory):
      throw QuireError(.fileMissing, "Cannot move \(QuireError.name(url)) to the Trash: there is no such file.", url: url)
    case .failure(let errno):
      throw QuireError(.permissionDenied, "Cannot move \(QuireError.name(url)) to the Trash: it cannot be examined.", url: url, cause: errno)
    }
    let folder = try trashFolder(for: url, device: info.st_dev)
    do {
      return try trash(url, into: folder)
    } catch let error as QuireError where (error.cause as? SyscallFailure)?.errno == .improperLink && folder.topFolder == nil {
      // The home trash is on the same file system but the item is under another mount of it
      // (a bind mount): a rename cannot cross mounts. As gio does, use the trash folder at the
      // top of the item's own mount.
      guard let mount = Self.mountPoint(of: url), mount.path != "/" else { throw error }
      return try trash(url, into: volumeTrashFolder(for: url, top: mount))
    }
  }

  /// Puts `url` into `folder`: the `.trashinfo` first (`O_EXCL`, reserving the name), then the
  /// rename into `files/`.
  private func trash(_ url: URL, into folder: Folder) throws -> TrashedItem {
    let name = url.lastPathComponent
    let stem = (name as NSString).deletingPathExtension
    let ext = (name as NSString).pathExtension
    let relativeBase = folder.topFolder.map { $0.path == "/" ? "/" : $0.path + "/" }
    var storedPath = url.path
    if let relativeBase, url.path.hasPrefix(relativeBase) { storedPath = String(url.path.dropFirst(relativeBase.count)) }
    let contents = "[Trash Info]\nPath=\(Self.percentEncoded(bytes: PathText.bytes(storedPath)))\nDeletionDate=\(Self.dateFormatter.string(from: Date()))\n"
    var number = 1
    while true {
      let trashName = number == 1 ? name : (ext.isEmpty ? "\(stem).\(number)" : "\(stem).\(number).\(ext)")
      let infoURL = folder.url.appendingPathComponent("info/\(trashName).trashinfo")
      let fileURL = folder.url.appendingPathComponent("files/\(trashName)")
      // The info file is made first, with O_EXCL: it reserves the name (the specification's order).
      do {
        try Actions.writeNew(Data(contents.utf8), to: infoURL, permissions: [.ownerReadWrite])
      } catch let error as QuireError where error.code == .fileExists {
        number += 1
        continue
      } catch let error as QuireError {
        if let failure = error.cause as? SyscallFailure { throw failed(url, folder: folder, failure) }
        throw error
      }
      switch SystemCalls.moveUserItem(PathCarrier.filePath(url), to: PathCarrier.filePath(fileURL)) {
      case .success:
        return TrashedItem(originalURL: url, trashedURL: fileURL, infoURL: infoURL, deletionDate: Date(), trashFolder: folder.url)
      case .failure(.fileExists):
        _ = SystemCalls.remove(PathCarrier.filePath(infoURL))
        number += 1
      case .failure(let failure):
        _ = SystemCalls.remove(PathCarrier.filePath(infoURL))
        throw failed(url, folder: folder, failure)
      }
    }
  }

  /// The error for a trash that failed with `failure`, saying why in words when the reason is
  /// a common one.
  private func failed(_ url: URL, folder: Folder, _ failure: SyscallFailure) -> QuireError {
    let reason: String
    switch failure.errno {
    case .readOnlyFileSystem: reason = "its folder is read-only (a read-only file system)"
    case .fileNameTooLong: reason = "its name is too long for the Trash (with '.trashinfo' added it passes the file system's 255 bytes); shorten it first"
    case .permissionDenied, .notPermitted: reason = "permission denied"
    case .improperLink: reason = "the Trash ('\(folder.url.path)') is on another volume or mount, and files are never copied to it"
    case .noSpace: reason = "the disk is full"
    default: reason = failure.description
    }
    return QuireError(
      QuireError.Code(failure.errno, for: .save),
      "Cannot move \(QuireError.name(url)) to the Trash ('\(folder.url.path)'): \(reason). It is still where it was.",
      url: url, cause: failure)
  }

  /// The mount point `url` is under: the longest mount point in `/proc/self/mounts` that holds it.
  static func mountPoint(of url: URL) -> URL? {
    let path = url.path
    return mountPoints().filter { $0.path == "/" || path.hasPrefix($0.path + "/") }.max { $0.path.count < $1.path.count }
  }

  /// The items in the home trash and in the trash folders of mounted volumes, newest first.
  /// Entries whose file or info is missing or unreadable are left out.
  public func items() throws -> [TrashedItem] {
    var folders: [(url: URL, top: URL?)] = [(homeTrashURL, nil)]
    let uid = getuid()
    for mount in Self.mountPoints() where mount.path != "/" || true {
      let base = mount.path == "/" ? "" : mount.path
      for candidate in ["\(base)/.Trash/\(uid)", "\(base)/.Trash-\(uid)"] where candidate != homeTrashURL.path {
        folders.append((URL(fileURLWithPath: candidate, isDirectory: true), mount))
      }
    }
    var result: [TrashedItem] = []
    var seen = Set<String>()
    for folder in folders where seen.insert(folder.url.path).inserted {
      let infoFolder = folder.url.appendingPathComponent("info")
      // Names as bytes (as PathText): Foundation's listing would turn a name that is not UTF-8
      // into one that is not there.
      guard let entries = SystemCalls.entryNames(in: PathCarrier.filePath(infoFolder)) else { continue }
      for infoName in entries.map({ PathText.string(bytes: $0) }) where infoName.hasSuffix(".trashinfo") {
        let name = String(infoName.dropLast(".trashinfo".count))
        let fileURL = folder.url.appendingPathComponent("files/\(name)")
        let infoURL = infoFolder.appendingPathComponent(infoName)
        guard SystemCalls.lstat(PathCarrier.filePath(fileURL)).isSuccess,
          let data = SystemCalls.readSmallFile(PathCarrier.filePath(infoURL), limit: 1 << 16),
          let parsed = Self.parseInfo(String(decoding: data, as: UTF8.self))
        else { continue }
        var original = parsed.path
        if !original.hasPrefix("/") {
          let top = folder.top?.path ?? "/"
          original = (top.hasSuffix("/") ? top : top + "/") + original
        }
        result.append(
          TrashedItem(
            originalURL: URL(fileURLWithPath: original), trashedURL: fileURL, infoURL: infoURL, deletionDate: parsed.date,
            trashFolder: folder.url))
      }
    }
    return result.sorted { ($0.deletionDate ?? .distantPast) > ($1.deletionDate ?? .distantPast) }
  }

  /// Moves a trashed item back to its original place (or `destination`) and removes its info.
  ///
  /// - Throws: ``QuireError``: `fileExists` when something now has that name (nothing is replaced).
  public func restore(_ item: TrashedItem, to destination: URL? = nil) throws -> URL {
    let target = (destination ?? item.originalURL).standardizedFileURL
    switch SystemCalls.moveUserItem(PathCarrier.filePath(item.trashedURL), to: PathCarrier.filePath(target)) {
    case .success:
      _ = SystemCalls.remove(PathCarrier.filePath(item.infoURL))
      return target
    case .failure(.fileExists), .failure(.directoryNotEmpty):
      throw QuireError(
        .fileExists,
        "Cannot restore \(QuireError.name(target)): '\(target.deletingLastPathComponent().path)' already has an item of that name. Rename or move it first.",
        url: target)
    case .failure(.noSuchFileOrDirectory):
      throw QuireError(
        .fileMissing,
        "Cannot restore \(QuireError.name(target)): it is no longer in the Trash, or its folder '\(target.deletingLastPathComponent().path)' is gone.",
        url: target)
    case .failure(.improperLink):
      throw QuireError(
        .invalidArgument,
        "Cannot restore \(QuireError.name(target)) to '\(target.deletingLastPathComponent().path)': it is on another volume than the Trash it is in.",
        url: target)
    case .failure(let errno):
      throw QuireError(.systemCallFailed, "Cannot restore \(QuireError.name(target)).", url: target, cause: errno)
    }
  }

  // MARK: Folders

  struct Folder {
    var url: URL
    /// The volume's top folder, for trash folders of other volumes (paths are stored relative to it).
    var topFolder: URL?
  }

  /// The trash folder for an item on `device`, made when missing (the specification's rules).
  func trashFolder(for url: URL, device: dev_t) throws -> Folder {
    let dataHome = XDGBaseDirectory.dataHome.location(in: environment)
    try? FileManager.default.createDirectory(at: dataHome.url, withIntermediateDirectories: true)
    if case .success(let home) = SystemCalls.lstat(PathCarrier.filePath(dataHome.url.resolvingSymlinksInPath())), home.st_dev == device {
      try makeTrash(homeTrashURL, below: dataHome.trustedFolder)
      return Folder(url: homeTrashURL, topFolder: nil)
    }
    return try volumeTrashFolder(for: url, top: Self.topFolder(of: url, device: device))
  }

  /// The trash folder at `top`, the top of a volume or mount: `.Trash/UID` when `.Trash` is a
  /// sticky folder, else `.Trash-UID`, made when missing.
  func volumeTrashFolder(for url: URL, top: URL) throws -> Folder {
    let uid = getuid()
    let shared = top.appendingPathComponent(".Trash")
    if case .success(let info) = SystemCalls.lstat(PathCarrier.filePath(shared)), (info.st_mode & S_IFMT) == S_IFDIR, (info.st_mode & S_ISVTX) != 0 {
      let mine = shared.appendingPathComponent("\(uid)")
      if (try? makeTrash(mine, below: shared)) != nil { return Folder(url: mine, topFolder: top) }
    }
    let own = top.appendingPathComponent(".Trash-\(uid)")
    do {
      try makeTrash(own, below: top)
    } catch {
      if SystemCalls.isOnReadOnlyMount(PathCarrier.filePath(top)) {
        throw QuireError(
          .permissionDenied,
          "Cannot move \(QuireError.name(url)) to the Trash: its folder is read-only ('\(top.path)' is mounted read-only), so nothing there can be moved or removed.",
          url: url, cause: error as? QuireError)
      }
      throw QuireError(
        .permissionDenied,
        "Cannot move \(QuireError.name(url)) to the Trash: its volume ('\(top.path)') has no trash folder Quire may use, and files are never copied to the home Trash. Delete it instead, or move it to your home volume first.",
        url: url, cause: error as? QuireError)
    }
    return Folder(url: own, topFolder: top)
  }

  func makeTrash(_ folder: URL, below trusted: URL) throws {
    try PrivateFolder.make(folder, below: trusted, role: "the Trash folder")
    for sub in ["files", "info"] {
      try PrivateFolder.make(folder.appendingPathComponent(sub), below: trusted, role: "the Trash folder")
    }
  }

  /// The highest folder above `url` on the same device: the volume's mount point.
  static func topFolder(of url: URL, device: dev_t) -> URL {
    var current = url.deletingLastPathComponent()
    while current.path != "/" {
      let parent = current.deletingLastPathComponent()
      guard case .success(let info) = SystemCalls.lstat(PathCarrier.filePath(parent)), info.st_dev == device else { break }
      current = parent
    }
    return current
  }

  /// Mount points from `/proc/self/mounts` (octal escapes decoded).
  static func mountPoints() -> [URL] {
    guard let text = try? String(contentsOfFile: "/proc/self/mounts", encoding: .utf8) else { return [] }
    return text.split(separator: "\n").compactMap { line in
      let fields = line.split(separator: " ")
      guard fields.count > 2 else { return nil }
      var path = String(fields[1])
      for (escape, character) in [("\\040", " "), ("\\011", "\t"), ("\\012", "\n"), ("\\134", "\\")] {
        path = path.replacingOccurrences(of: escape, with: character)
      }
      return URL(fileURLWithPath: path, isDirectory: true)
    }
  }

  // MARK: .trashinfo

  /// `YYYY-MM-DDThh:mm:ss` in local time, as the specification asks.
  static var dateFormatter: DateFormatter {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = .current
    formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss"
    return formatter
  }

  /// Percent-encodes every byte but unreserved characters and "/" (RFC 2396 as GIO does).
  static func percentEncoded(_ path: String) -> String {
    percentEncoded(bytes: Array(path.utf8))
  }

  /// Percent-encodes the bytes of a path as ``percentEncoded(_:)`` does (a byte that is not
  /// UTF-8 becomes `%FF`).
  static func percentEncoded(bytes: [UInt8]) -> String {
    var result = ""
    for byte in bytes {
      switch byte {
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
        UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"), UInt8(ascii: "/"):
        result.append(Character(Unicode.Scalar(byte)))
      default:
        result += String(format: "%%%02X", byte)
      }
    }
    return result
  }

  /// `text` with its `%XX` escapes decoded to bytes, as `PathText` (a byte that is not UTF-8
  /// is kept); nil when an escape is malformed.
  static func percentDecoded(_ text: String) -> String? {
    var bytes: [UInt8] = []
    var iterator = Array(text.utf8).makeIterator()
    while let byte = iterator.next() {
      guard byte == UInt8(ascii: "%") else {
        bytes.append(byte)
        continue
      }
      guard let high = iterator.next(), let low = iterator.next(), let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16) else {
        return nil
      }
      bytes.append(value)
    }
    return PathText.string(bytes: bytes)
  }

  /// The `Path` (decoded) and `DeletionDate` of a `.trashinfo`, or nil when it is not one.
  static func parseInfo(_ text: String) -> (path: String, date: Date?)? {
    var inGroup = false
    var path: String?
    var date: Date?
    for line in text.split(whereSeparator: \.isNewline) {
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      if trimmed.hasPrefix("[") {
        inGroup = trimmed == "[Trash Info]"
        continue
      }
      guard inGroup, let equals = trimmed.firstIndex(of: "=") else { continue }
      let key = trimmed[..<equals]
      let value = String(trimmed[trimmed.index(after: equals)...])
      if key == "Path" { path = percentDecoded(value) }
      if key == "DeletionDate" { date = dateFormatter.date(from: value) }
    }
    guard let path, !path.isEmpty else { return nil }
    return (path, date)
  }
}

extension Result {
  var isSuccess: Bool { !isFailure }
}
