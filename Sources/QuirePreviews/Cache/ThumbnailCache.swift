public import Foundation
public import QuireFormats
import QuireTypes
import SystemPackage

/// The freedesktop thumbnail cache (Thumbnail Managing Standard 0.9.0), as GNOME and KDE use it.
///
/// Thumbnails live in `$XDG_CACHE_HOME/thumbnails/{normal,large,x-large,xx-large}/` named by
/// the MD5 of the file's URI, and carry `Thumb::URI`, `Thumb::MTime`, `Thumb::Size`,
/// `Thumb::Mime` and `Software` as PNG `tEXt` chunks. A thumbnail is fresh when its URI and
/// MTime (and Size, when present) match the file. Files that cannot be thumbnailed are recorded
/// under `fail/quire-<version>/`, so a newer Quire tries them again. Folders are made 0700,
/// files 0600; every write goes to a temporary file in the same folder that is renamed over
/// the name (`renameat(2)`), and folders are opened with `O_NOFOLLOW`, so nothing is ever
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
    let path = fileURL.standardizedFileURL.path
    var info = stat()
    guard stat(path, &info) == 0 else { throw FileErrors.opening(fileURL, errno: errno) }
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
  public func entry(for source: Source, flavor: Flavor) -> Entry {
    let thumbnail = thumbnailURL(for: source, flavor: flavor)
    if Self.matches(thumbnail, source: source) { return .fresh(thumbnail) }
    let failure = failureURL(for: source)
    if Self.matches(failure, source: source) { return .failed(failure) }
    return .missing
  }

  /// Whether the PNG at `url` is a regular file whose URI and MTime (and Size, when given)
  /// match `source`. Only the bytes before the image data are read.
  static func matches(_ url: URL, source: Source) -> Bool {
    let fd = open(url.path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var buffer = [UInt8](repeating: 0, count: 4096)
    let got = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, 4096) }
    guard got > 8, let chunks = try? PNGText.chunks(in: Data(buffer[0..<got]), stopAtImageData: true) else { return false }
    var fields: [String: String] = [:]
    for (key, value) in chunks { fields[key] = value }
    guard fields["Thumb::URI"] == source.uri, fields["Thumb::MTime"] == String(source.modificationTime) else { return false }
    if let size = fields["Thumb::Size"], size != String(source.size) { return false }
    return true
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

  /// Writes `data` to `root/folders…/name` through a temporary file and `renameat(2)`.
  func write(_ data: Data, folders: [String], name: String) throws {
    // The root and the folders under it are private (0700, this user's, never through a link).
    let target = folders.reduce(root) { $0.appendingPathComponent($1, isDirectory: true) }
    let folder: Int32
    do {
      folder = try PrivateFolder.open(target, below: root.deletingLastPathComponent()).rawValue
    } catch {
      throw error.error(role: "the thumbnail cache folder", alternative: "pass another cache folder")
    }
    defer { close(folder) }
    // A unique temporary name in the same folder, so the rename is atomic.
    var temporaryName = ""
    var fd: Int32 = -1
    for attempt in 0..<16 {
      temporaryName = ".\(name).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).\(attempt).tmp"
      fd = openat(folder, temporaryName, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
      if fd >= 0 || errno != EEXIST { break }
    }
    guard fd >= 0 else { throw cacheError("create a file in", errno) }
    var written = 0
    let failure: Int32? = data.withUnsafeBytes { raw -> Int32? in
      while written < raw.count {
        let n = Glibc.write(fd, raw.baseAddress! + written, raw.count - written)
        if n < 0 {
          if errno == EINTR { continue }
          return errno
        }
        written += n
      }
      return nil
    }
    // No fsync: a thumbnail is a cache; the rename alone guarantees no reader sees half a file.
    close(fd)
    if let failure {
      _ = unlinkat(folder, temporaryName, 0)
      throw cacheError("write a thumbnail in", failure)
    }
    if renameat(folder, temporaryName, folder, name) != 0 {
      let code = errno  // unlinkat below may change errno
      _ = unlinkat(folder, temporaryName, 0)
      throw cacheError("rename a thumbnail in", code)
    }
  }

  private func cacheError(_ what: String, _ code: Int32) -> QuireError {
    QuireError(
      code == EACCES || code == EPERM ? .permissionDenied : .systemCallFailed,
      "Cannot \(what) the thumbnail cache '\(root.path)': \(String(cString: strerror(code))). Check that it is yours and writable, or pass another cache folder.",
      cause: Errno(rawValue: code))
  }
}
