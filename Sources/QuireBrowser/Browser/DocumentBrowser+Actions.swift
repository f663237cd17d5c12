public import Foundation
import QuireCoordination
public import QuireDocuments
import QuireTypes
public import SystemPackage

extension DocumentBrowser {
  // MARK: Creating

  /// The templates of ``Configuration/templatesFolder`` (described by its `templates.json`).
  ///
  /// - Throws: ``QuireError`` when no templates folder is set or its list cannot be read.
  public func templates() throws -> [DocumentTemplate] {
    guard let folder = configuration.templatesFolder else {
      throw QuireError(.invalidArgument, "No templates folder is set: give the browser's configuration a templatesFolder (Quire's is Templates/).")
    }
    return try DocumentTemplate.templates(in: folder)
  }

  /// Creates a document named `name` in `folder`: a copy of template `template`, or an empty
  /// file when no template is given.
  ///
  /// When `name` has no extension, the template's (or, for an empty document, `.md`) is
  /// added. The file is made with `O_EXCL`, inside a coordinated write of the new URL; an
  /// existing file is never replaced.
  ///
  /// - Parameters:
  ///   - name: The new file's name (one path component).
  ///   - folder: Where; the first location by default.
  ///   - template: A template's file name (see ``templates()``), or nil for an empty document.
  /// - Returns: The new document.
  /// - Throws: ``QuireError``: `fileExists` when the name is taken, `invalidArgument` for a
  ///   bad name or an unknown template, and any failure to write.
  public func createDocument(named name: String, in folder: URL? = nil, fromTemplate template: String? = nil) throws -> BrowserItem {
    try Actions(browser: self).create(named: name, in: folder, template: template)
  }

  /// Why `name` cannot be a document's name (a new one's or a rename's), or `nil` when it can.
  ///
  /// Refused: empty, `.` and `..`; a `/` or NUL; more than 255 bytes; space at either end;
  /// control characters (a tab, a newline, C1 controls, DEL), which hide in listings and
  /// shells; and the bidirectional overrides and isolates (U+202A–U+202E, U+2066–U+2069),
  /// which make `cod.exe\u{202E}dm.txt`-style names show another extension than they have.
  public static func problem(withName name: String) -> String? {
    let shown = String(name.unicodeScalars.prefix(60).map { $0.properties.generalCategory == .control ? "?" : Character($0) })
    if name.isEmpty || name == "." || name == ".." {
      return "'\(shown)' cannot be a file name: give a name that is not empty, '.' or '..'."
    }
    if name.contains("/") || name.contains("\0") { return "'\(shown)' cannot be a file name: a name holds no '/' (or NUL)." }
    if name.utf8.count > 255 { return "The name '\(shown)…' is longer than 255 bytes, the most a file name may have." }
    if let control = name.unicodeScalars.first(where: { $0.properties.generalCategory == .control }) {
      return
        "'\(shown)' cannot be a file name: it holds a control character (U+\(String(format: "%04X", control.value))), which listings and shells do not show. Remove it."
    }
    if let bidi = name.unicodeScalars.first(where: { (0x202A...0x202E).contains($0.value) || (0x2066...0x2069).contains($0.value) }) {
      return
        "'\(shown)' cannot be a file name: it holds a bidirectional override (U+\(String(format: "%04X", bidi.value))), which makes a name show another extension than it has. Remove it."
    }
    if name.first?.isWhitespace == true || name.last?.isWhitespace == true {
      return "'\(shown)' cannot be a file name: it begins or ends with a space. Remove it."
    }
    return nil
  }

  // MARK: Renaming, moving, duplicating

  /// Renames the item at `url` to `newName` in the same folder, coordinated: open documents
  /// (in this process or another) follow it.
  ///
  /// - Parameters:
  ///   - newName: The new name. With `keepingExtension`, the old extension is kept: "Plan"
  ///     for `notes.md` gives `Plan.md`, and "Plan.txt" gives `Plan.txt.md`.
  ///   - keepingExtension: Whether to keep the extension (true by default, as Files does).
  /// - Returns: The item's new URL.
  /// - Throws: ``QuireError``: `fileExists` when the new name is taken (nothing is replaced;
  ///   the rename is `renameat2(RENAME_NOREPLACE)`), `fileMissing`, `invalidArgument` for an
  ///   empty name or one with "/".
  @discardableResult
  public func renameItem(at url: URL, to newName: String, keepingExtension: Bool = true) throws -> URL {
    try Actions(browser: self).rename(url.standardizedFileURL, to: newName, keepingExtension: keepingExtension)
  }

  /// Moves the item at `url` into `folder` under the same name, coordinated: presenters with
  /// unsaved changes are asked to save first, and open documents follow the move.
  ///
  /// Within one file system this is a rename; across file systems the item is copied, then
  /// the original removed.
  ///
  /// - Returns: The item's new URL.
  /// - Throws: ``QuireError``: `fileExists` when `folder` has an item of that name,
  ///   `fileMissing` when `url` or `folder` is missing.
  @discardableResult
  public func moveItem(at url: URL, into folder: URL) throws -> URL {
    try Actions(browser: self).move(url.standardizedFileURL, into: folder.standardizedFileURL)
  }

  /// Copies the item at `url` beside it as "name copy.ext", then "name copy 2.ext", … (as
  /// Files does), coordinated (a read of the original, a write of the copy).
  ///
  /// - Returns: The copy's URL.
  @discardableResult
  public func duplicateItem(at url: URL) throws -> URL {
    try Actions(browser: self).duplicate(url.standardizedFileURL)
  }

  /// Copies (or, with `moving`, moves) an outside file into `folder` (the first location by
  /// default), numbering the name when it is taken ("name 2.ext").
  ///
  /// - Returns: The imported document's URL.
  /// - Throws: ``QuireError`` when the file is missing, a special file (FIFO, device, socket)
  ///   or a symbolic link, or the copy fails (a partial copy is removed).
  @discardableResult
  public func importItem(from url: URL, into folder: URL? = nil, moving: Bool = false) throws -> URL {
    try Actions(browser: self).importItem(url.standardizedFileURL, into: folder, moving: moving)
  }

  // MARK: Trash

  /// Moves the item at `url` to the freedesktop Trash (``trash``), coordinated as a deletion:
  /// presenters are told to let go of it first.
  ///
  /// - Returns: Where it went and how to restore it.
  /// - Throws: ``QuireError`` when the item is missing or no trash folder can be used.
  @discardableResult
  public func trashItem(at url: URL) throws -> TrashedItem {
    try Actions(browser: self).trash(url.standardizedFileURL)
  }

  /// Moves the item at `path`, a path of any bytes (a name that is not UTF-8, which no `URL`
  /// holds, included), to the Trash, coordinated, as ``trashItem(at:)-(URL)`` does; `gio trash`
  /// sees it under its own bytes.
  ///
  /// - Returns: The trashed item; its ``TrashedItem/originalPath`` and
  ///   ``TrashedItem/trashedPath`` are the paths with the name's bytes.
  /// - Throws: ``QuireError`` as the URL form does, naming the item escaped.
  public func trashItem(at path: FilePath) throws -> TrashedItem {
    try Actions(browser: self).trash(path)
  }

  /// Puts a trashed item back where it was (or at `destination`), coordinated.
  ///
  /// - Returns: The restored item's URL.
  /// - Throws: ``QuireError``: `fileExists` when something now has its old name.
  @discardableResult
  public func restoreItem(_ item: TrashedItem, to destination: URL? = nil) throws -> URL {
    try Actions(browser: self).restore(item, to: destination)
  }

  // MARK: Recents

  /// Adds the document at `url` to the recent documents (or marks it used again), as Quire's
  /// own entry that follows the file.
  ///
  /// - Throws: ``QuireError`` when `recently-used.xbel` cannot be read or written.
  public func noteRecentDocument(at url: URL) throws {
    try recentDocuments.add(url.standardizedFileURL, searching: locations)
  }

  /// Adds the document at `path`, a path of any bytes (a name that is not UTF-8 included), to
  /// the recent documents, as ``noteRecentDocument(at:)-(URL)`` does; its `href` holds the
  /// name's bytes percent-encoded (`%FF`), as GTK writes it.
  ///
  /// - Throws: ``QuireError`` when the file is missing or `recently-used.xbel` cannot be read or written.
  public func noteRecentDocument(at path: FilePath) throws {
    try recentDocuments.add(path)
  }

  /// The recent documents, most recently used first, with Quire's entries resolved again
  /// after a move or rename (searching the locations and the entry's old folder).
  ///
  /// - Parameter updatingEntries: Whether to write resolved paths back to the list. True.
  public func recentItems(updatingEntries: Bool = true) throws -> [RecentDocument] {
    try recentDocuments.entries(searching: locations, updatingEntries: updatingEntries)
  }
}
