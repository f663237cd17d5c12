import Foundation
import QuireBrowser
import QuireTestSupport
import QuireTypes
import Testing

/// `gio trash` talks to gvfsd over D-Bus: each run gets its own session bus.
let gioAvailable = Programs.isInstalled("/usr/bin/gio") && Programs.isInstalled("/usr/bin/dbus-run-session")

@Suite("Trash")
final class TrashTests: FolderSuite {
  init() throws { try super.init() }

  var environment: [String: String] { testEnvironment(folder) }

  var browser: DocumentBrowser { DocumentBrowser(configuration: .init(locations: [folder.url], environment: environment)) }

  func gio(_ arguments: [String]) throws -> ProcessResult {
    try runTool("/usr/bin/dbus-run-session", ["--", "/usr/bin/gio"] + arguments, environment: ["XDG_DATA_HOME": environment["XDG_DATA_HOME"]!])
  }

  @Test func aNameTooLongForTheTrashIsSaidSo() throws {
    // 250 bytes: the file is fine, but its .trashinfo would need 260.
    let name = String(repeating: "n", count: 247) + ".md"
    let file = try folder.write("x", to: name)
    let error = try #require(throws: QuireError.self) { try browser.trashItem(at: file) }
    #expect(error.reason.contains("name is too long"), "\(error.reason)")
    #expect(FileManager.default.fileExists(atPath: file.path))
  }

  @Test func trashedItemHasInfoAndComesBack() throws {
    let file = try folder.write("# Gone\n", to: "f.md")
    let trashed = try browser.trashItem(at: file)
    #expect(!FileManager.default.fileExists(atPath: file.path))
    #expect(trashed.trashedURL.path == environment["XDG_DATA_HOME"]! + "/Trash/files/f.md")
    let info = try String(contentsOf: trashed.infoURL, encoding: .utf8)
    #expect(info.hasPrefix("[Trash Info]\nPath=\(file.path)\nDeletionDate="))
    #expect(try browser.trash.items().map(\.originalURL.path) == [file.path])
    let restored = try browser.restoreItem(trashed)
    #expect(restored.path == file.path)
    #expect(try String(contentsOf: file, encoding: .utf8) == "# Gone\n")
    #expect(try browser.trash.items().isEmpty)
  }

  @Test func sameNameTwiceGetsTwoEntriesAndOddNamesAreEncoded() throws {
    let first = try folder.write("one", to: "a b%.md")
    _ = try browser.trashItem(at: first)
    let second = try folder.write("two", to: "a b%.md")
    let trashed = try browser.trashItem(at: second)
    #expect(trashed.name == "a b%.2.md")
    let info = try String(contentsOf: trashed.infoURL, encoding: .utf8)
    #expect(info.contains("Path=\(folder.url.path)/a%20b%25.md\n"))
    #expect(try browser.trash.items().map(\.originalURL.path) == [first.path, first.path])
    let error = try #require(throws: QuireError.self) {
      _ = try folder.write("three", to: "a b%.md")
      try browser.restoreItem(trashed)
    }
    #expect(error.code == .fileExists)
    #expect(try String(contentsOf: first, encoding: .utf8) == "three")
  }

  @Test func missingFileIsAClearError() throws {
    let error = try #require(throws: QuireError.self) { try browser.trashItem(at: folder.file("nothing.md")) }
    #expect(error.code == .fileMissing)
    #expect(error.reason.contains("'nothing.md'"))
  }

  @Test(.enabled(if: gioAvailable, "needs gio (libglib2.0-bin), gvfs and dbus-run-session"))
  func gioListsWhatQuireTrashedAndRestoresIt() throws {
    let file = try folder.write("# Report\n", to: "f.md")
    try browser.trashItem(at: file)
    let list = try gio(["trash", "--list"])
    #expect(list.status == 0, "\(list.error)")
    #expect(list.output.contains("trash:///f.md\t\(file.path)"))
    let restore = try gio(["trash", "--restore", "trash:///f.md"])
    #expect(restore.status == 0, "\(restore.error)")
    #expect(try String(contentsOf: file, encoding: .utf8) == "# Report\n")
  }

  @Test(.enabled(if: gioAvailable, "needs gio (libglib2.0-bin), gvfs and dbus-run-session"))
  func quireRestoresWhatGioTrashed() throws {
    let file = try folder.write("# Theirs\n", to: "g.md")
    let trash = try gio(["trash", file.path])
    #expect(trash.status == 0, "\(trash.error)")
    let item = try #require(try browser.trash.items().first { $0.originalURL.path == file.path })
    try browser.restoreItem(item)
    #expect(try String(contentsOf: file, encoding: .utf8) == "# Theirs\n")
    #expect(try gio(["trash", "--list"]).output.isEmpty)
  }
}
