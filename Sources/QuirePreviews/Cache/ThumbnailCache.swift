public import Foundation
public import QuireFormats
import QuireSystem
import QuireTypes
public import SystemPackage

/// The freedesktop thumbnail cache (Thumbnail Managing Standard 0.9.0), as GNOME and KDE use it.
///
/// Thumbnails live in `$XDG_CACHE_HOME/thumbnails/{normal,large,x-large,xx-large}/` named by
/// the MD5 of the file's URI, and carry `Thumb::URI`, `Thumb::MTime`, `Thumb::Size`,
/// `Thumb::Mime` and `Software` as PNG `tEXt` chunks. A thumbnail is fresh when its URI and
/// MTime (and Size, when present) match the file. Files that cannot be thumbnailed are recorded
/// under `fail/quire-<version>/`, so a newer Quire tries them again. Folders are made 0700,
/// files 0600; every write goes through the package's atomic writer (a temporary file in the
/// same folder, renamed over the name), and folders are opened with `O_NOFOLLOW`, so nothing is ever
/// written through a symbolic link.
public struct ThumbnailCache: Sendable {
  /// The four size classes of the standard.
  public enum Flavor: String, Sendable, CaseIterable, Codable {
    case normal, large
    case xLarge = "x-large"
    case xxLarge = "xx-large"
    /// The longer side in pixels: 128, 256, 512, 1024.
    public var pixels: Int {
      switch self {
      case .normal: return 128
      case .large: return 256
      case .xLarge: return 512
      case .xxLarge: return 1024
      }
    }
    /// The folder name.
    public var folderName: String { rawValue }
    /// The smallest flavor at least `pixels` big (xx-large for anything larger).
    public init(forPixels pixels: Int) {
      self = Flavor.allCases.first { $0.pixels >= pixels } ?? .xxLarge
    }
  }

  /// What the cache knows about a source file.
  public struct Source: Sendable, Hashable, Codable {
    /// The file's path.
    public var path: String
    /// Its `file://` URI as GLib writes it.
    public var uri: String
    /// Its modification time, whole seconds since 1970.
    public var modificationTime: Int
    /// Its size in bytes.
    public var size: Int64
    /// The nanoseconds of its modification time (not part of the standard; the settle rule
    /// and the changed-while-drawn check use it).
    public var modificationTimeNanoseconds: Int = 0
    /// Its modification time as a date, to the nanosecond.
    public var modificationDate: Date {
      Date(timeIntervalSince1970: Double(modificationTime) + Double(modificationTimeNanoseconds) / 1e9)
    }
    /// The MD5 of ``uri``: the thumbnail's file name without `.png`.
    public var hash: String { FreedesktopNames.md5Hex(uri) }
  }

  /// What the cache holds for a source.
  public enum Entry: Sendable, Hashable {
    /// An up-to-date thumbnail.
    case fresh(URL)
    /// An up-to-date failure record of this Quire version.
    case failed(URL)
    /// Nothing usable: make the thumbnail.
    case missing
  }

  /// `$XDG_CACHE_HOME/thumbnails` (or `~/.cache/thumbnails`), or what tests inject.
  public let root: URL
  /// `root.path`, computed once: the warm path builds thumbnail paths from it per file.
  private let rootPath: String
  /// The `Software` text written into thumbnails, e.g. "Quire 0.1.0".
  public let software: String
  /// The folder under `fail/` for this program and version, e.g. "quire-0.1.0".
  public let failureFolderName: String
  /// How long a file must have been unmodified before it is thumbnailed: a younger file may
  /// still be being written, so a batch puts it back in its queue until it is this old (as
  /// Nautilus does). 2 seconds by default.
  public var settleInterval: TimeInterval

  /// Makes a cache.
  /// - Parameters:
  ///   - root: The `thumbnails` folder; by default from `environment` (`XDG_CACHE_HOME`, else `HOME/.cache`).
  ///   - version: The Quire version, for `Software` and the `fail/quire-<version>` folder.
  ///   - settleInterval: See ``settleInterval``.
  public init(
    root: URL? = nil, version: String, settleInterval: TimeInterval = 2,
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) {
    self.root = root ?? Self.defaultRoot(environment: environment)
    self.rootPath = self.root.path
    self.software = "Quire \(version)"
    self.failureFolderName = "quire-\(version)"
    self.settleInterval = settleInterval
  }

  /// `$XDG_CACHE_HOME/thumbnails`, with `XDG_CACHE_HOME` defaulting to `$HOME/.cache` (and
  /// ignored unless absolute, as the XDG Base Directory spec says).
  public static func defaultRoot(environment: [String: String]) -> URL {
    XDGBaseDirectory.cacheHome.url(in: environment).appendingPathComponent("thumbnails", isDirectory: true)
  }

  /// The facts about `fileURL` that the cache compares (follows a symbolic link to its file).
  /// - Throws: ``QuireError`` when the file cannot be examined.
  public static func source(for fileURL: URL) throws -> Source {
    try source(forPath: fileURL.standardizedFileURL.path)
  }

  /// The facts about the file at `path`, whose name may be any bytes (one that is not UTF-8
  /// too: its ``Source/uri`` escapes them as GLib does, and ``Source/path`` carries them as
  /// `PathText`); a relative path is taken from the current folder.
  /// - Throws: ``QuireError`` when the file cannot be examined.
  public static func source(for path: FilePath) throws -> Source {
    var absolute = path
    if !absolute.isAbsolute {
      guard let cwd = getcwd(nil, 0) else {
        throw QuireError(.systemCallFailed, "Cannot find the current folder: \(QuireError.describe(Errno(rawValue: errno))).")
      }
      absolute = FilePath(platformString: cwd).pushing(path)
      free(cwd)
    }
    absolute = absolute.lexicallyNormalized()
    let info: FileStatus
    switch SystemCalls.stat(absolute) {
    case .success(let found): info = found
    case .failure(.noSuchFileOrDirectory), .failure(.notDirectory): throw InputFile.missingError(absolute, for: "read")
    case .failure(let failure):
      throw QuireError(QuireError.Code(failure.errno, for: .inspect), "Cannot read \(QuireError.name(absolute)): \(failure.errno).", cause: failure)
    }
    return Source(
      path: PathText.string(absolute), uri: try FreedesktopNames.fileURI(for: absolute), modificationTime: Int(info.st_mtim.tv_sec),
      size: Int64(info.st_size), modificationTimeNanoseconds: Int(info.st_mtim.tv_nsec))
  }

  /// ``source(for:)`` of an absolute path with no `.` or `..` components (as a folder walk
  /// makes them), without the URL round trip.
  static func source(forPath path: String) throws -> Source {
    // A name that is not UTF-8, carried by `PathText`: by its bytes.
    if PathText.holdsNonUTF8Bytes(path) { return try source(for: PathText.path(path)) }
    let info: FileStatus
    switch SystemCalls.stat(FilePath(path)) {
    case .success(let found): info = found
    case .failure(let failure): throw FileErrors.opening(URL(fileURLWithPath: path), errno: failure.errno.rawValue)
    }
    return Source(
      path: path, uri: try FreedesktopNames.fileURI(forPath: path), modificationTime: Int(info.st_mtim.tv_sec),
      size: Int64(info.st_size), modificationTimeNanoseconds: Int(info.st_mtim.tv_nsec))
  }

  /// Where the thumbnail of `source` at `flavor` lives.
  public func thumbnailURL(for source: Source, flavor: Flavor) -> URL {
    root.appendingPathComponent(flavor.folderName).appendingPathComponent(source.hash + ".png")
  }

  /// Where the failure record of `source` lives.
  public func failureURL(for source: Source) -> URL {
    root.appendingPathComponent("fail").appendingPathComponent(failureFolderName).appendingPathComponent(source.hash + ".png")
  }

  /// Whether `source` was modified so recently (within ``settleInterval`` of `now`) that it
  /// may still be being written.
  public func isSettling(_ source: Source, now: Date = Date()) -> Bool {
    now < settledDate(of: source)
  }

  /// When `source`, unless it changes again, will have been unmodified for ``settleInterval``:
  /// the batch draws a settling file then.
  public func settledDate(of source: Source) -> Date {
    source.modificationDate.addingTimeInterval(settleInterval)
  }

  /// What the cache holds for `source` at `flavor`: a fresh thumbnail, a fresh failure record
  /// of this version, or nothing usable.
  ///
  /// This is the batch's warm path, so it costs one `open(2)` and one `read(2)` of the
  /// thumbnail's first 4 KiB, whose `tEXt` chunks are compared in place.
  public func entry(for source: Source, flavor: Flavor) -> Entry {
    let hash = source.hash
    let thumbnail = rootPath + "/" + flavor.folderName + "/" + hash + ".png"
    if Self.matches(path: thumbnail, source: source) { return .fresh(URL(fileURLWithPath: thumbnail)) }
    let failure = rootPath + "/fail/" + failureFolderName + "/" + hash + ".png"
    if Self.matches(path: failure, source: source) { return .failed(URL(fileURLWithPath: failure)) }
    return .missing
  }

  /// Whether the PNG at `url` is a regular file whose URI and MTime (and Size, when given)
  /// match `source`. Only the bytes before the image data are read.
  static func matches(_ url: URL, source: Source) -> Bool {
    matches(path: url.path, source: source)
  }

  /// ``matches(_:source:)`` on a path: the `tEXt` chunks before `IDAT` in the first 4 KiB are
  /// compared byte for byte, with no copy of the file into Swift values.
  static func matches(path: String, source: Source) -> Bool {
    guard case .success(let fd) = SystemCalls.open(FilePath(path), O_RDONLY | O_NOFOLLOW) else { return false }
    defer { SystemCalls.release(fd) }
    return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 4096) { buffer in
      guard case .success(let got) = SystemCalls.read(fd, into: UnsafeMutableRawBufferPointer(buffer), at: 0), got > 8 else { return false }
      return textChunksMatch(UnsafeBufferPointer(rebasing: buffer[0..<got]), source: source)
    }
  }

  /// Whether PNG `bytes` carry `Thumb::URI` and `Thumb::MTime` equal to `source`'s, and no
  /// `Thumb::Size` other than its size, in `tEXt` chunks before the image data.
  static func textChunksMatch(_ bytes: UnsafeBufferPointer<UInt8>, source: Source) -> Bool {
    let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    guard bytes.count >= 8, bytes.prefix(8).elementsEqual(signature) else { return false }
    var uriMatches = false
    var timeMatches = false
    var mtime = String(source.modificationTime)
    var size = String(source.size)
    var uri = source.uri
    var offset = 8
    while offset + 8 <= bytes.count {
      let length = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
      let start = offset + 8
      guard length >= 0, start + length <= bytes.count else { break }
      let type = bytes[(offset + 4)..<start]
      if type.elementsEqual("IDAT".utf8) || type.elementsEqual("IEND".utf8) { break }
      if type.elementsEqual("tEXt".utf8), let nul = bytes[start..<(start + length)].firstIndex(of: 0) {
        let key = bytes[start..<nul]
        let value = bytes[(nul + 1)..<(start + length)]
        if key.elementsEqual("Thumb::URI".utf8) {
          uriMatches = uri.withUTF8 { value.elementsEqual($0) }
        } else if key.elementsEqual("Thumb::MTime".utf8) {
          timeMatches = mtime.withUTF8 { value.elementsEqual($0) }
        } else if key.elementsEqual("Thumb::Size".utf8), !size.withUTF8({ value.elementsEqual($0) }) {
          return false
        }
      }
      offset = start + length + 4
    }
    return uriMatches && timeMatches
  }

  /// The `tEXt` chunks a thumbnail of `source` carries.
  public func textChunks(for source: Source, mimeType: String?) -> [(key: String, value: String)] {
    var chunks: [(key: String, value: String)] = [
      ("Thumb::URI", source.uri),
      ("Thumb::MTime", String(source.modificationTime)),
      ("Thumb::Size", String(source.size)),
    ]
    if let mimeType { chunks.append(("Thumb::Mime", mimeType)) }
    chunks.append(("Software", software))
    return chunks
  }

  /// Stores `bitmap` as the thumbnail of `source` at `flavor`, atomically.
  /// - Returns: The thumbnail's URL.
  /// - Throws: ``QuireError`` when a folder cannot be made or is a symbolic link, or the write fails.
  @discardableResult
  public func store(_ bitmap: Bitmap, for source: Source, flavor: Flavor, mimeType: String?) throws -> URL {
    let png = try bitmap.pngData(text: textChunks(for: source, mimeType: mimeType))
    try write(png, folders: [flavor.folderName], name: source.hash + ".png")
    return thumbnailURL(for: source, flavor: flavor)
  }

  /// Records that `source` cannot be thumbnailed by this Quire version (a 1×1 PNG with its
  /// URI and MTime under `fail/quire-<version>/`).
  @discardableResult
  public func recordFailure(for source: Source, mimeType: String?) throws -> URL {
    let png = try Bitmap(width: 1, height: 1, background: .clear).pngData(text: textChunks(for: source, mimeType: mimeType))
    try write(png, folders: ["fail", failureFolderName], name: source.hash + ".png")
    return failureURL(for: source)
  }

  /// Writes `data` to `root/folders…/name` with the atomic writer (a temporary file in the
  /// same folder, renamed over the name).
  func write(_ data: Data, folders: [String], name: String) throws {
    // The root and the folders under it are private (0700, this user's, never through a link).
    let target = folders.reduce(root) { $0.appendingPathComponent($1, isDirectory: true) }
    let folder: FileDescriptor
    do {
      folder = try PrivateFolder.open(target, below: root.deletingLastPathComponent())
    } catch {
      throw error.error(role: "the thumbnail cache folder", alternative: "pass another cache folder")
    }
    defer { SystemCalls.release(folder) }
    // No fsync: a thumbnail is a cache; the rename alone guarantees no reader sees half a file.
    if case .failure(let failure) = AtomicFile.write(data, named: name, in: folder, mode: 0o600, durable: false) {
      throw QuireError(
        failure, while: .write, url: target.appendingPathComponent(name), role: "a thumbnail in the cache '\(root.path)'",
        advice: failure.errno == .noSpace || failure.errno == .diskQuotaExceeded
          ? "Free some space, or pass another cache folder."
          : "Check that it is yours and writable, or pass another cache folder.")
    }
  }

}
