import Foundation
import QuireBrowser
import QuireCoordination
import QuireTestSupport
import QuireTypes
import Testing

@Suite("Actions")
final class ActionsTests: BrowserTestCase {
  init() throws {
    try super.init(templates: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../Templates").standardizedFileURL)
  }

  @Test func createsFromTemplateOrEmptyAndNeverReplaces() throws {
    let notes = try browser.createDocument(named: "Kick-off", fromTemplate: "meeting-notes.md")
    #expect(notes.name == "Kick-off.md")
    let template = try browser.templates().first { $0.name == "meeting-notes.md" }
    #expect(try Data(contentsOf: notes.url) == Data(contentsOf: try #require(template).url))
    let empty = try browser.createDocument(named: "Empty")
    #expect(empty.name == "Empty.md" && empty.size == 0)
    let error = try #require(throws: QuireError.self) { try browser.createDocument(named: "Kick-off.md") }
    #expect(error.code == .fileExists)
    #expect(try Data(contentsOf: notes.url) == Data(contentsOf: try #require(template).url))
    #expect(throws: QuireError.self) { try browser.createDocument(named: "x", fromTemplate: "no-such-template") }
    #expect(throws: QuireError.self) { try browser.createDocument(named: "../escape") }
  }

  @Test func duplicatingAFolderIsRefusedBeforeAnythingIsCopied() throws {
    try FileManager.default.createDirectory(at: folder.file("sub"), withIntermediateDirectories: true)
    try folder.write("a", to: "sub/a.md")
    let error = try #require(throws: QuireError.self) { try browser.duplicateItem(at: folder.file("sub")) }
    #expect(error.code == .unsupportedType && error.reason.contains("a folder"))
    #expect(!FileManager.default.fileExists(atPath: folder.file("sub copy").path), "a refused duplicate made a copy")
    #expect(try browser.duplicateItem(at: folder.file("sub/a.md")).lastPathComponent == "a copy.md")
  }

  @Test func namesWithControlCharactersOrBidirectionalOverridesAreRefusedWithTheReason() throws {
    let file = try folder.write("a", to: "notes.md")
    let tab = try #require(throws: QuireError.self) { try browser.renameItem(at: file, to: "\t.md") }
    #expect(tab.reason.contains("control character (U+0009)"))
    let bidi = try #require(throws: QuireError.self) { try browser.renameItem(at: file, to: "invoice\u{202E}dm.exe") }
    #expect(bidi.reason.contains("bidirectional override (U+202E)"))
    #expect(throws: QuireError.self) { try browser.createDocument(named: "new\nline") }
    #expect(FileManager.default.fileExists(atPath: file.path))
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0.hasPrefix(".md") }.isEmpty)
  }

  @Test func templatesThatAreLinksOrFIFOsAreNeitherListedNorFollowed() throws {
    // A templates folder of someone else's making: a link to /etc/passwd, a FIFO, a good one.
    let templates = try TemporaryFolder(prefix: "quire-templates")
    defer { templates.remove() }
    try templates.write(#"{"passwd.md": "a link out", "pipe.md": "a FIFO", "good.md": "fine"}"#, to: "templates.json")
    try FileManager.default.createSymbolicLink(atPath: templates.file("passwd.md").path, withDestinationPath: "/etc/passwd")
    #expect(mkfifo(templates.file("pipe.md").path, 0o600) == 0)
    try templates.write("# Good\n", to: "good.md")
    let browser = DocumentBrowser(configuration: .init(locations: [folder.url], environment: environment, templatesFolder: templates.url))
    #expect(try browser.templates().map(\.name) == ["good.md"])
    for name in ["passwd.md", "pipe.md"] {
      let error = try #require(throws: QuireError.self) { try browser.createDocument(named: "copy-\(name)", fromTemplate: name) }
      #expect(error.code == .invalidArgument && error.reason.contains("There is no template named"), "\(error.reason)")
    }
    #expect(try browser.createDocument(named: "fine", fromTemplate: "good.md").name == "fine.md")
    // A template swapped for a link after it was listed is refused when read, never followed.
    let listed = try #require(try browser.templates().first)
    try FileManager.default.removeItem(at: templates.file("good.md"))
    try FileManager.default.createSymbolicLink(atPath: templates.file("good.md").path, withDestinationPath: "/etc/passwd")
    let swapped = try #require(throws: QuireError.self) { try listed.contents() }
    #expect(swapped.reason.contains("symbolic link"))
    #expect(!FileManager.default.fileExists(atPath: folder.file("copy-passwd.md").path))
  }

  @Test func renameKeepsTheExtensionAndRefusesCollisions() throws {
    let file = try folder.write("a", to: "notes.md")
    try folder.write("b", to: "Plan.md")
    let error = try #require(throws: QuireError.self) { try browser.renameItem(at: file, to: "Plan") }
    #expect(error.code == .fileExists)
    #expect(try String(contentsOf: folder.file("Plan.md"), encoding: .utf8) == "b")
    #expect(try browser.renameItem(at: file, to: "Kick-off").lastPathComponent == "Kick-off.md")
    let text = try browser.renameItem(at: folder.file("Kick-off.md"), to: "Kick-off.txt", keepingExtension: false)
    #expect(text.lastPathComponent == "Kick-off.txt")
    #expect(try String(contentsOf: text, encoding: .utf8) == "a")
    #expect(throws: QuireError.self) { try browser.renameItem(at: text, to: "a/b") }
    #expect(throws: QuireError.self) { try browser.renameItem(at: folder.file("gone.md"), to: "x") }
  }

  @Test func duplicateNumbersCopiesAsFilesDoes() throws {
    let file = try folder.write("a", to: "name.md")
    #expect(try browser.duplicateItem(at: file).lastPathComponent == "name copy.md")
    #expect(try browser.duplicateItem(at: file).lastPathComponent == "name copy 2.md")
    #expect(try browser.duplicateItem(at: file).lastPathComponent == "name copy 3.md")
    #expect(try String(contentsOf: folder.file("name copy 2.md"), encoding: .utf8) == "a")
  }

  @Test func moveAndImport() throws {
    try FileManager.default.createDirectory(at: folder.file("archive"), withIntermediateDirectories: true)
    let file = try folder.write("a", to: "a.md")
    let moved = try browser.moveItem(at: file, into: folder.file("archive"))
    #expect(moved.path == folder.file("archive/a.md").path)
    #expect(throws: QuireError.self) { try browser.moveItem(at: moved, into: folder.file("nowhere")) }
    let outside = try TemporaryFolder()
    defer { outside.remove() }
    let source = try outside.write("outside", to: "a.md")
    try folder.write("taken", to: "a.md")
    let imported = try browser.importItem(from: source)
    #expect(imported.lastPathComponent == "a 2.md")
    #expect(FileManager.default.fileExists(atPath: source.path))
    #expect(mkfifo(outside.file("pipe").path, 0o600) == 0)
    let error = try #require(throws: QuireError.self) { try browser.importItem(from: outside.file("pipe")) }
    #expect(error.code == .unsupportedType)
  }

  @Test func renameReachesAPresenterOfTheFile() async throws {
    let file = try folder.write("a", to: "watched.md")
    let presenter = RecordingPresenter(file, location: .default)
    try FileCoordinator.addFilePresenter(presenter)
    defer { FileCoordinator.removeFilePresenter(presenter) }
    let renamed = try browser.renameItem(at: file, to: "followed")
    #expect(await eventually { presenter.presentedItemURL?.path == renamed.path })
  }

  @Test func moveAsksAPresenterToSaveFirst() async throws {
    try FileManager.default.createDirectory(at: folder.file("archive"), withIntermediateDirectories: true)
    let file = try folder.write("old", to: "draft.md")
    let presenter = RecordingPresenter(file, location: .default, unsavedText: "new")
    try FileCoordinator.addFilePresenter(presenter)
    defer { FileCoordinator.removeFilePresenter(presenter) }
    let moved = try browser.moveItem(at: file, into: folder.file("archive"))
    #expect(try String(contentsOf: moved, encoding: .utf8) == "new")
    #expect(await eventually { presenter.presentedItemURL?.path == moved.path })
  }
}
