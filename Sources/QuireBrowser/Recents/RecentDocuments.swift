public import Foundation
public import QuireTypes

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
  }

  /// Adds `url` (or marks it used again), recording what identifies it so it can be followed.
  ///
  /// - Parameter folders: Unused when adding; kept for symmetry with ``entries(searching:updatingEntries:)``.
  /// - Throws: ``QuireError`` when the file is missing or the list cannot be written.
  public func add(_ url: URL, searching folders: [URL] = []) throws {
    throw QuireError(.notImplemented, "Recent documents are not yet implemented (issue 18).", url: url)
  }

  /// The entries, most recently used first; Quire's own entries are resolved again when their
  /// file moved, and marked missing when it is gone.
  ///
  /// - Parameters:
  ///   - folders: Where to search for a moved file, besides the entry's old folder.
  ///   - updatingEntries: Whether to write the resolved paths back (atomically).
  /// - Throws: ``QuireError`` when the list exists but cannot be read; a missing list is empty.
  public func entries(searching folders: [URL] = [], updatingEntries: Bool = true) throws -> [RecentDocument] {
    throw QuireError(.notImplemented, "Recent documents are not yet implemented (issue 18).", url: fileURL)
  }

  /// Removes the entry for `url` (all applications' records of it).
  public func remove(_ url: URL) throws {
    throw QuireError(.notImplemented, "Recent documents are not yet implemented (issue 18).", url: url)
  }
}
