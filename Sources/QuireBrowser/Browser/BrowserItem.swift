public import Foundation
public import QuireTypes
public import SystemPackage

/// One document a ``DocumentBrowser`` shows: a file, or a package (such as a `.textbundle`
/// folder) shown as one document.
///
/// An item is a snapshot taken when the browser listed it; the file may have changed since.
/// The browser's ``DocumentBrowser/changes()`` stream says when.
public struct BrowserItem: Sendable, Hashable, Identifiable, Codable {
  /// The document's file URL (standardized, absolute). For a name that is not UTF-8 (Linux
  /// names are bytes; no `URL` holds them) it only stands for the file: use ``path``, which the
  /// browser's `FilePath` actions take.
  public var url: URL
  /// The location (one of ``DocumentBrowser/locations``) the item was found under.
  public var location: URL
  /// The file name, e.g. `notes.md`.
  public var name: String { url.lastPathComponent }
  /// The document's absolute path with the bytes of its name, also when they are not UTF-8.
  public var path: FilePath { PathCarrier.filePath(url) }
  /// The path relative to ``location``, e.g. `projects/notes.md`.
  public var relativePath: String
  /// The document's type identifier, e.g. `net.daringfireball.markdown` (see ``contentType``).
  public var contentTypeIdentifier: String
  /// The document's MIME type, when its type has one (e.g. `text/markdown`).
  public var mimeType: String?
  /// Whether the item is a package: a folder shown and handled as one document.
  public var isPackage: Bool
  /// The size in bytes: the file's size, or for a package the sum of its files.
  public var size: Int64
  /// When the contents were last modified (`st_mtime`).
  public var modificationDate: Date
  /// When the file was created (`statx(2)` birth time), when the file system records it.
  public var creationDate: Date?
  /// When the file was last read (`st_atime`; file systems mounted `relatime` update it lazily).
  public var accessDate: Date?
  /// The file's tags, from its `user.xdg.tags` extended attribute; empty when it has none or
  /// the file system keeps no user attributes.
  public var tags: [String]
  /// The device and inode numbers: what identifies the file apart from its path.
  public var fileID: FileID

  /// The document's type, looked up in the shared registry.
  public var contentType: UTType { UTType(contentTypeIdentifier) ?? .data }
  /// The item's identity in lists: its path.
  public var id: String { url.path }

  /// Makes an item; the browser makes them while listing.
  public init(
    url: URL, location: URL, relativePath: String, contentTypeIdentifier: String, mimeType: String?, isPackage: Bool,
    size: Int64, modificationDate: Date, creationDate: Date?, accessDate: Date?, tags: [String], fileID: FileID
  ) {
    self.url = url
    self.location = location
    self.relativePath = relativePath
    self.contentTypeIdentifier = contentTypeIdentifier
    self.mimeType = mimeType
    self.isPackage = isPackage
    self.size = size
    self.modificationDate = modificationDate
    self.creationDate = creationDate
    self.accessDate = accessDate
    self.tags = tags
    self.fileID = fileID
  }
}

/// What identifies a file apart from its path: its device and inode numbers (`st_dev`,
/// `st_ino`). Stable across renames and moves within one file system; a copy, or a save that
/// replaces the file (write beside, rename over), gets a new one.
public struct FileID: Sendable, Hashable, Codable, CustomStringConvertible {
  /// The device number (`st_dev`).
  public var device: UInt64
  /// The inode number (`st_ino`).
  public var inode: UInt64
  /// Makes an identity.
  public init(device: UInt64, inode: UInt64) {
    self.device = device
    self.inode = inode
  }
  /// `device:inode`, e.g. `2049:1835012`.
  public var description: String { "\(device):\(inode)" }
}

/// How a browser orders its items.
public struct BrowserSortOrder: Sendable, Hashable, Codable {
  /// What to compare.
  public enum Key: String, Sendable, Hashable, Codable, CaseIterable {
    /// File name, in the order people expect ("file 2" before "file 10", case-insensitive).
    case name
    /// Modification date, then name.
    case date
    /// Size in bytes, then name.
    case size
    /// The type's description (kind), e.g. "Markdown document", then name.
    case kind
  }
  /// What to compare.
  public var key: Key
  /// Whether smaller (earlier, A) comes first. Dates and sizes read best descending.
  public var ascending: Bool

  /// Makes an order.
  public init(_ key: Key, ascending: Bool = true) {
    self.key = key
    self.ascending = ascending
  }

  /// By name, A to Z: the default.
  public static let name = BrowserSortOrder(.name)
  /// Newest first.
  public static let date = BrowserSortOrder(.date, ascending: false)
  /// Largest first.
  public static let size = BrowserSortOrder(.size, ascending: false)
  /// By kind, then name.
  public static let kind = BrowserSortOrder(.kind)

  /// Parses `name`, `date`, `size` or `kind`, optionally prefixed by `-` (reversed) or `+`.
  public init?(parsing text: String) {
    var text = Substring(text)
    var reversed = false
    if text.hasPrefix("-") {
      reversed = true
      text = text.dropFirst()
    } else if text.hasPrefix("+") {
      text = text.dropFirst()
    }
    guard let key = Key(rawValue: String(text)) else { return nil }
    let base = BrowserSortOrder.defaultOrder(for: key)
    self.init(key, ascending: reversed ? !base.ascending : base.ascending)
  }

  /// The natural order for `key`: names and kinds ascending, dates and sizes descending.
  public static func defaultOrder(for key: Key) -> BrowserSortOrder {
    switch key {
    case .name: .name
    case .date: .date
    case .size: .size
    case .kind: .kind
    }
  }
}

/// A change to the documents a ``DocumentBrowser`` shows, from its ``DocumentBrowser/changes()``.
///
/// Changes come from anyone: this browser's actions, other Quire processes (coordinated
/// writes), and programs that know nothing of Quire (`cp`, `mv`, `rm`, other editors), noticed
/// through inotify.
public struct BrowserChange: Sendable, Hashable, Codable, CustomStringConvertible {
  /// What happened. New kinds may be added; treat unknown ones as ``resynchronize``.
  public struct Kind: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    /// A document appeared (created, copied in, moved in, restored from the trash).
    public static let added = Kind(rawValue: "added")
    /// A document's contents, size, dates or tags changed.
    public static let modified = Kind(rawValue: "modified")
    /// A document went (deleted, trashed, moved out of every location).
    public static let removed = Kind(rawValue: "removed")
    /// A document was renamed or moved within the locations: ``BrowserChange/previousURL`` to
    /// ``BrowserChange/url``.
    public static let moved = Kind(rawValue: "moved")
    /// Too much changed to say what (the kernel's event queue overflowed, a location itself
    /// moved or went): list everything again.
    public static let resynchronize = Kind(rawValue: "resynchronize")
    public var description: String { rawValue }
  }

  /// What happened.
  public var kind: Kind
  /// The document (its new URL for a move; the location for ``Kind/resynchronize``).
  public var url: URL
  /// For ``Kind/moved``: where the document was before.
  public var previousURL: URL?
  /// The document as it is now, for ``Kind/added``, ``Kind/modified`` and ``Kind/moved``.
  public var item: BrowserItem?

  /// Makes a change.
  public init(kind: Kind, url: URL, previousURL: URL? = nil, item: BrowserItem? = nil) {
    self.kind = kind
    self.url = url
    self.previousURL = previousURL
    self.item = item
  }

  /// `added notes.md`, `moved a.md -> b.md`.
  public var description: String {
    // Escaped for a terminal: control characters and bytes that are not UTF-8 (`\xFF`).
    if let previousURL {
      return "\(kind) \(DisplayName.escaping(PathCarrier.filePath(previousURL))) -> \(DisplayName.escaping(PathCarrier.filePath(url)))"
    }
    return "\(kind) \(DisplayName.escaping(PathCarrier.filePath(url)))"
  }
}
