public import Foundation
import QuireSystem
public import QuireTypes
public import SystemPackage

/// One entry of the recent documents.
public struct RecentDocument: Sendable, Hashable, Codable {
  /// Whether the entry's file is still there.
  public enum Status: String, Sendable, Hashable, Codable {
    /// The file is at ``RecentDocument/url``.
    case available
    /// The file moved or was renamed, and was found again at ``RecentDocument/url``
    /// (``RecentDocument/previousURL`` is where the entry had it).
    case moved
    /// The file is gone (deleted, or moved where it could not be found). The entry stays,
    /// marked, until removed.
    case missing
  }

  /// Where the document is (after resolving a move), or was (when ``status`` is ``Status/missing``).
  public var url: URL
  /// Where the entry had it before it was resolved again, for ``Status/moved``.
  public var previousURL: URL?
  /// Whether the file is there.
  public var status: Status
  /// The MIME type recorded with the entry.
  public var mimeType: String?
  /// When the entry was added, modified and last used (the xbel `added`, `modified`, `visited`).
  public var added: Date?
  public var modified: Date?
  public var visited: Date?
  /// The applications that used it (`bookmark:application name=`), e.g. `["quire", "gedit"]`.
  public var applications: [String]
  /// Whether Quire recorded what identifies the file (so it can follow it).
  public var isFollowed: Bool

  /// The file name.
  public var name: String { url.lastPathComponent }

  /// Where the document is, with the bytes of its name: for a name that is not UTF-8 (which
  /// no `URL` holds) ``url`` only stands for it, and this is the path to use.
  public var path: FilePath { PathCarrier.filePath(url) }

  /// Encodes the entry; a URL whose name is not UTF-8 is written as the `file://` URI of its
  /// bytes (`%FF`), as the `href` in `recently-used.xbel` holds it.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try PathCarrier.encode(url, forKey: .url, in: &container)
    try PathCarrier.encode(previousURL, forKey: .previousURL, in: &container)
    try container.encode(status, forKey: .status)
    try container.encodeIfPresent(mimeType, forKey: .mimeType)
    try container.encodeIfPresent(added, forKey: .added)
    try container.encodeIfPresent(modified, forKey: .modified)
    try container.encodeIfPresent(visited, forKey: .visited)
    try container.encode(applications, forKey: .applications)
    try container.encode(isFollowed, forKey: .isFollowed)
  }

  enum CodingKeys: String, CodingKey {
    case url, previousURL, status, mimeType, added, modified, visited, applications, isFollowed
  }

  /// Makes an entry.
  public init(
    url: URL, previousURL: URL? = nil, status: Status, mimeType: String?, added: Date?, modified: Date?, visited: Date?,
    applications: [String], isFollowed: Bool
  ) {
    self.url = url
    self.previousURL = previousURL
    self.status = status
    self.mimeType = mimeType
    self.added = added
    self.modified = modified
    self.visited = visited
    self.applications = applications
    self.isFollowed = isFollowed
  }
}

/// The desktop's recent documents: `$XDG_DATA_HOME/recently-used.xbel`, read and written as
/// GTK's `GtkRecentManager` does, so GNOME's recent files and Quire's are one list.
///
/// The file is XBEL with the `bookmark` and `mime` namespaces of GLib's `GBookmarkFile`:
/// each `<bookmark href="file:///…" added=… modified=… visited=…>` has a `mime:mime-type`
/// and `bookmark:applications` with one `bookmark:application name= exec= modified= count=`
/// per program. Quire rewrites the file atomically (temporary file beside it, `rename(2)`),
/// keeps every other program's entries and data as they were, and changes only its own.
///
/// Unlike GTK's list, which loses a file that is renamed, Quire's entry follows it, as an
/// Apple bookmark does: its `<bookmark:metadata owner="…quire">` records the file's device and
/// inode, a kernel file handle (`name_to_handle_at(2)`, where the file system allows), its
/// size and modification time and a SHA-256 of its content. Reading the list resolves an
/// entry whose path no longer holds that file: the file handle first, then a search of the
/// browser's locations and the entry's old folder for the same inode or the same content.
/// A file that cannot be found is reported ``RecentDocument/Status/missing``, not dropped.
public struct RecentDocuments: Sendable {
  /// The list's file: `$XDG_DATA_HOME/recently-used.xbel` (else `~/.local/share/…`).
  public let fileURL: URL
  /// The name Quire's entries carry (`bookmark:application name=`).
  public let applicationName: String
  /// The command recorded for it (`exec=`).
  public let applicationCommand: String
  /// The most entries kept in the list (oldest visited dropped first); GTK's default limit
  /// is unlimited age, so Quire keeps 500.
  public var maximumCount = 500
  let registry: TypeRegistry

  /// Makes the list for `environment`'s `XDG_DATA_HOME`; nothing is read until asked.
  public init(
    environment: [String: String] = ProcessInfo.processInfo.environment, applicationName: String = "quire",
    applicationCommand: String = "'quire %u'", registry: TypeRegistry = .shared
  ) {
    self.fileURL = XDGBaseDirectory.dataHome.url(in: environment).appendingPathComponent("recently-used.xbel")
    self.applicationName = applicationName
    self.applicationCommand = applicationCommand
    self.registry = registry
    self.stateHome = XDGBaseDirectory.stateHome.location(in: environment)
  }

  /// Where Quire keeps what identifies each of its entries' files:
  /// `$XDG_STATE_HOME/quire/recent-files.json` (GTK rewrites `recently-used.xbel` keeping
  /// only the metadata it knows, so Quire's own metadata lives beside it).
  public var identityFileURL: URL { stateHome.url.appendingPathComponent("quire/recent-files.json") }
  let stateHome: XDGBaseDirectory.Location

  /// Adds `url` (or marks it used again), recording what identifies it so it can be followed.
  ///
  /// - Parameter folders: Unused when adding; kept for symmetry with ``entries(searching:updatingEntries:)``.
  /// - Throws: ``QuireError`` when the file is missing or the list cannot be written.
  public func add(_ url: URL, searching folders: [URL] = []) throws {
    try add(carriedBy: url.standardizedFileURL)
  }

  /// Adds the document at `path`, a path of any bytes (a name that is not UTF-8 included), as
  /// ``add(_:searching:)`` adds a URL's: the `href` holds the name's bytes percent-encoded
  /// (`%FF`), as GLib's `g_filename_to_uri` writes them, so GTK's recent manager finds the file.
  ///
  /// - Throws: ``QuireError`` when the file is missing or the list cannot be written.
  public func add(_ path: FilePath) throws {
    try add(carriedBy: PathCarrier.carrierURL(path))
  }

  /// Removes the entry for `path` (any bytes), as ``remove(_:)-(URL)`` does for a URL.
  public func remove(_ path: FilePath) throws {
    try remove(PathCarrier.carrierURL(path))
  }

  /// Adds the document whose path is `url`'s `PathText` path (see `PathCarrier`).
  func add(carriedBy url: URL) throws {
    guard let identity = FileIdentity.current(of: url) else {
      throw QuireError(.fileMissing, "Cannot add \(QuireError.name(url)) to the recent documents: there is no such file.", url: url)
    }
    let mimeType = (try? registry.identifyFile(at: PathCarrier.filePath(url)))?.type.preferredMIMEType ?? "application/octet-stream"
    var list = try XBELList.read(fileURL)
    list.touch(href: Self.href(for: url), mimeType: mimeType, application: applicationName, exec: applicationCommand, now: Date())
    list.trim(to: maximumCount)
    try list.write(to: fileURL)
    var identities = try IdentityStore.read(identityFileURL)
    identities.entries[Self.href(for: url)] = identity
    try identities.write(to: identityFileURL, stateHome: stateHome)
  }

  /// The entries, most recently used first; Quire's own entries are resolved again when their
  /// file moved, and marked missing when it is gone.
  ///
  /// - Parameters:
  ///   - folders: Where to search for a moved file, besides the entry's old folder.
  ///   - updatingEntries: Whether to write the resolved paths back (atomically).
  /// - Throws: ``QuireError`` when the list exists but cannot be read; a missing list is empty.
  public func entries(searching folders: [URL] = [], updatingEntries: Bool = true) throws -> [RecentDocument] {
    var list = try XBELList.read(fileURL)
    var identities = try IdentityStore.read(identityFileURL)
    var result: [RecentDocument] = []
    var listChanged = false
    var identitiesChanged = false
    for bookmark in list.bookmarks {
      guard let url = Self.url(forHref: bookmark.href) else { continue }
      var entry = RecentDocument(
        url: url, status: .available, mimeType: bookmark.mimeType, added: bookmark.added, modified: bookmark.modified, visited: bookmark.visited,
        applications: bookmark.applications, isFollowed: identities.entries[bookmark.href] != nil)
      if var identity = identities.entries[bookmark.href] {
        if identity.matches(url) {
          // Saved since (a safe save replaces the inode) or back again: record the file as it is now.
          if identity.isGone || !identity.isUnchanged(at: url), let current = FileIdentity.current(of: url) {
            identity = current
            identities.entries[bookmark.href] = identity
            identitiesChanged = true
          }
        } else if let found = identity.resolve(near: url, searching: folders) {
          let newHref = Self.href(for: found)
          entry.previousURL = url
          entry.url = found
          entry.status = .moved
          if list.bookmarks.contains(where: { $0.href == newHref }) {
            list.remove(href: bookmark.href)  // the file already has an entry under its new name
          } else {
            list.rename(href: bookmark.href, to: newHref)
          }
          identities.entries[bookmark.href] = nil
          identities.entries[newHref] = FileIdentity.current(of: found) ?? identity
          listChanged = true
          identitiesChanged = true
        } else {
          entry.status = .missing
          if !identity.isGone {
            identity.isGone = true
            identities.entries[bookmark.href] = identity
            identitiesChanged = true
          }
        }
      } else if case .failure = SystemCalls.lstat(PathCarrier.filePath(url)) {
        entry.status = .missing
      }
      result.append(entry)
    }
    if updatingEntries {
      if listChanged { try list.write(to: fileURL) }
      if identitiesChanged { try identities.write(to: identityFileURL, stateHome: stateHome) }
    }
    var seen = Set<String>()
    return result.filter { seen.insert($0.url.path).inserted }
      .sorted { ($0.visited ?? $0.modified ?? .distantPast) > ($1.visited ?? $1.modified ?? .distantPast) }
  }

  /// Removes the entry for `url` (all applications' records of it).
  public func remove(_ url: URL) throws {
    var list = try XBELList.read(fileURL)
    let href = Self.href(for: url.standardizedFileURL)
    list.remove(href: href)
    try list.write(to: fileURL)
    var identities = try IdentityStore.read(identityFileURL)
    if identities.entries.removeValue(forKey: href) != nil { try identities.write(to: identityFileURL, stateHome: stateHome) }
  }

  /// `file://` and the path percent-encoded as GLib's `g_filename_to_uri` does.
  static func href(for url: URL) -> String {
    "file://" + Trash.percentEncoded(bytes: PathText.bytes(url.path)).replacingOccurrences(of: "%7E", with: "~")
  }

  static func url(forHref href: String) -> URL? {
    // The bytes the escapes stand for, as PathText: a name that is not UTF-8 is kept.
    guard href.hasPrefix("file://"), let path = Trash.percentDecoded(String(href.dropFirst("file://".count))), path.hasPrefix("/") else { return nil }
    return URL(fileURLWithPath: path)
  }
}
