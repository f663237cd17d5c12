import Foundation
import QuireBrowser
import QuireTestSupport
import QuireTypes
import SystemPackage
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Tags, the Trash and the recent documents of a file whose name is not UTF-8 (no `URL` holds
/// it), by `FilePath`, checked with the desktop's own tools.
@Suite("Browser actions on names that are not UTF-8")
final class NonUTF8NameBrowserTests: BrowserTestCase {

  /// Makes `non\xFFutf.md` holding `text`; returns its path.
  func makeFile(_ text: String = "# kept\n") throws -> FilePath {
    let bytes = try folder.write(text, toNameBytes: Array("non".utf8) + [0xFF] + Array("utf.md".utf8))
    return (bytes + [0]).withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { FilePath(platformString: $0.baseAddress!) } }
  }

  func exists(_ path: FilePath) -> Bool {
    var info = stat()
    return path.withPlatformString { lstat($0, &info) } == 0
  }

  /// Runs `command` in `sh` with `$name` set to the file's path (made by `printf`, so the byte
  /// reaches the tool as it is).
  func shell(_ command: String, environment extra: [String: String] = [:]) throws -> ProcessResult {
    try runTool("/bin/sh", ["-c", "name=\"$0/$(printf 'non\\377utf.md')\"; " + command, folder.url.path], environment: extra)
  }

  @Test(
    .enabled(if: userAttributesWork, "the temporary folder's file system keeps no user extended attributes"),
    .enabled(if: attrToolsAvailable, "needs setfattr and getfattr (Debian attr)"))
  func tagsAreSetOnTheVeryFileAndGetfattrReadsThem() throws {
    let path = try makeFile()
    #expect(try browser.tags(of: path).isEmpty)
    #expect(try browser.changeTags(of: path, adding: ["work", "urgent"]) == ["work", "urgent"])
    let get = try shell("exec /usr/bin/getfattr --only-values -n user.xdg.tags \"$name\"")
    #expect(get.status == 0, "\(get.error)")
    #expect(get.output == "work,urgent")
    let set = try shell("exec /usr/bin/setfattr -n user.xdg.tags -v home \"$name\"")
    #expect(set.status == 0, "\(set.error)")
    #expect(try FileTags.tags(of: path) == ["home"])
    try FileTags.setTags([], of: path)
    #expect(try browser.tags(of: path).isEmpty)
  }

  @Test func tagsOfAMissingSuchFileNameItEscaped() throws {
    let path = try makeFile()
    unlinkBytes(path)
    let error = try #require(throws: QuireError.self) { try FileTags.tags(of: path) }
    #expect(error.code == .fileMissing)
    #expect(error.reason.contains("'non\\xFFutf.md'"), "\(error.reason)")
  }

  func unlinkBytes(_ path: FilePath) { _ = path.withPlatformString { unlink($0) } }

  @Test func trashedUnderItsOwnBytesListedAndRestored() throws {
    let path = try makeFile()
    let trashed = try browser.trashItem(at: path)
    #expect(!exists(path))
    #expect(trashed.originalPath == path)
    let inTrash = FilePath(environment["XDG_DATA_HOME"]! + "/Trash/files").appending(path.lastComponent!)
    #expect(trashed.trashedPath == inTrash)
    #expect(exists(inTrash))
    // The .trashinfo holds the byte percent-encoded, as gio writes it.
    #expect(try trashInfo().contains("\nPath=\(folder.url.path)/non%FFutf.md\n"))
    let items = try browser.trash.items()
    #expect(items.map(\.originalPath) == [path])
    try browser.restoreItem(try #require(items.first))
    #expect(exists(path))
    #expect(!exists(inTrash))
  }

  /// The `.trashinfo` of `non\xFFutf.md` in the home Trash (its name holds the byte).
  func trashInfo() throws -> String {
    let info = try shell("exec cat \"$0/.xdg/data/Trash/info/$(printf 'non\\377utf.md').trashinfo\"")
    try #require(info.status == 0, "\(info.error)")
    return info.output
  }

  /// gio lists what Quire trashed, and Quire's `.trashinfo` is the one gio writes for the same
  /// file. (`gio trash --restore` is not checked: GIO 2.74 restores such a name to its escaped
  /// display form, `non\xffutf.md`, also for what gio itself trashed.)
  @Test(.enabled(if: gioAvailable, "needs gio (libglib2.0-bin), gvfs and dbus-run-session"))
  func gioListsWhatQuireTrashedAndWritesTheSameInfo() throws {
    try #require(environment["XDG_DATA_HOME"] == folder.url.path + "/.xdg/data")
    let path = try makeFile()
    try browser.trashItem(at: path)
    let gio = ["XDG_DATA_HOME": environment["XDG_DATA_HOME"]!]
    let list = try runTool("/usr/bin/dbus-run-session", ["--", "/usr/bin/gio", "trash", "--list"], environment: gio)
    #expect(list.status == 0, "\(list.error)")
    #expect(list.output.hasPrefix("trash:///non%FFutf.md\t"), "\(list.output)")
    let quires = try trashInfo()
    try browser.restoreItem(try #require(try browser.trash.items().first))
    let trash = try shell("exec /usr/bin/dbus-run-session -- /usr/bin/gio trash \"$name\"", environment: gio)
    #expect(trash.status == 0, "\(trash.error)")
    let gios = try trashInfo()
    func withoutDate(_ info: String) -> String { info.split(separator: "\n").filter { !$0.hasPrefix("DeletionDate=") }.joined(separator: "\n") }
    #expect(withoutDate(quires) == withoutDate(gios), "\(quires) \(gios)")
  }

  @Test(.enabled(if: gioAvailable, "needs gio (libglib2.0-bin), gvfs and dbus-run-session"))
  func quireListsAndRestoresWhatGioTrashed() throws {
    let path = try makeFile()
    let trash = try shell("exec /usr/bin/dbus-run-session -- /usr/bin/gio trash \"$name\"", environment: ["XDG_DATA_HOME": environment["XDG_DATA_HOME"]!])
    #expect(trash.status == 0, "\(trash.error)")
    #expect(!exists(path))
    let item = try #require(try browser.trash.items().first)
    #expect(item.originalPath == path)
    try browser.restoreItem(item)
    #expect(exists(path))
  }

  @Test func recentDocumentsHoldTheBytesPercentEncoded() throws {
    let path = try makeFile()
    try browser.noteRecentDocument(at: path)
    let xbel = try String(contentsOfFile: environment["XDG_DATA_HOME"]! + "/recently-used.xbel", encoding: .utf8)
    #expect(xbel.contains("href=\"file://\(folder.url.path)/non%FFutf.md\""), "\(xbel)")
    let entries = try browser.recentItems()
    #expect(entries.map(\.path) == [path])
    #expect(entries.first?.status == .available)
    #expect(entries.first?.mimeType == "text/markdown")
    try browser.recentDocuments.remove(path)
    #expect(try browser.recentItems().isEmpty)
  }

  @Test(.enabled(if: gtkAvailable, "needs python3-gi, gir1.2-gtk-3.0 and xvfb"))
  func gtkReadsTheEntryAndFindsTheFile() throws {
    let path = try makeFile()
    try browser.noteRecentDocument(at: path)
    let gtk = try withGtkRecentManager(
      """
      for item in manager.get_items():
          print(item.get_uri(), item.get_mime_type(), item.exists())
      """, dataHome: environment["XDG_DATA_HOME"]!)
    #expect(gtk.status == 0, "\(gtk.error)")
    #expect(gtk.output.contains("file://\(folder.url.path)/non%FFutf.md text/markdown True"), "\(gtk.output)")
  }
}
