public import Foundation
import QuireTypes

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
    throw QuireError(.notImplemented, "The Trash is not yet implemented (issue 18).", url: url)
  }

  /// The items in the home trash and in the trash folders of mounted volumes, newest first.
  /// Entries whose file or info is missing or unreadable are left out.
  public func items() throws -> [TrashedItem] {
    throw QuireError(.notImplemented, "The Trash is not yet implemented (issue 18).", url: homeTrashURL)
  }

  /// Moves a trashed item back to its original place (or `destination`) and removes its info.
  ///
  /// - Throws: ``QuireError``: `fileExists` when something now has that name (nothing is replaced).
  public func restore(_ item: TrashedItem, to destination: URL? = nil) throws -> URL {
    throw QuireError(.notImplemented, "The Trash is not yet implemented (issue 18).", url: item.originalURL)
  }
}
