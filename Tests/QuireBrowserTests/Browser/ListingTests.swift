import Foundation
import QuireBrowser
import QuireTestSupport
import QuireTypes
import SystemPackage
import Testing

@Suite("Listing")
final class ListingTests: FolderSuite {

  func browser(_ types: [UTType] = DocumentBrowser.defaultContentTypes) -> DocumentBrowser {
    DocumentBrowser(configuration: .init(locations: [folder.url], allowedContentTypes: types, environment: testEnvironment(folder)))
  }

  @Test func namesThatAreNotUTF8AreListedUnderTheirOwnBytes() throws {
    try folder.write("# fine\n", to: "fine.md")
    try FileManager.default.createDirectory(at: folder.file("sub"), withIntermediateDirectories: true)
    let raw = try folder.write("# bytes\n", toNameBytes: Array("sub/non".utf8) + [0xFF] + Array("utf.md".utf8))
    try folder.write("hidden\n", toNameBytes: Array(".hid".utf8) + [0xFE])
    let browser = browser()
    let items = try browser.items()
    let expected = (raw + [0]).withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { FilePath(platformString: $0.baseAddress!) } }
    #expect(items.map(\.path) == [FilePath(folder.file("fine.md").path), expected])
    #expect(!items.contains { $0.url.path.contains("\u{FFFD}") })
    // Identified and measured through its bytes (a lossy name would be missing).
    #expect(items.last?.contentTypeIdentifier == "net.daringfireball.markdown")
    #expect(items.last?.size == 8)
  }

  @Test func listsDocumentsWithTypesAndPackagesAsOne() throws {
    try folder.write("# Notes\n", to: "notes.md")
    try folder.write("plain", to: "b.txt")
    try FileManager.default.createDirectory(at: folder.file("sub"), withIntermediateDirectories: true)
    try folder.write("deep", to: "sub/deep.md")
    try FileManager.default.createDirectory(at: folder.file("Trip.textbundle/assets"), withIntermediateDirectories: true)
    try folder.write("# Trip\n", to: "Trip.textbundle/text.md")
    try folder.write("{}", to: "Trip.textbundle/info.json")
    try Data([0, 1, 2, 3, 0xFF]).write(to: folder.file("blob.bin"))
    try folder.write("hidden", to: ".hidden.md")
    #expect(mkfifo(folder.file("pipe.md").path, 0o600) == 0)
    try FileManager.default.createSymbolicLink(at: folder.file("link.md"), withDestinationURL: folder.file("notes.md"))

    let items = try browser().items()
    #expect(items.map(\.relativePath) == ["b.txt", "sub/deep.md", "notes.md", "Trip.textbundle"])  // by name
    let trip = try #require(items.first { $0.isPackage })
    #expect(trip.contentTypeIdentifier == UTType.textBundle.identifier)
    #expect(trip.size == Int64("# Trip\n".utf8.count + 2))
    let notes = try #require(items.first { $0.name == "notes.md" })
    #expect(notes.contentType.conforms(to: .markdown))
    #expect(notes.mimeType == "text/markdown")
  }

  @Test func filtersByConformance() throws {
    try folder.write("# Notes\n", to: "notes.md")
    try folder.write("plain", to: "b.txt")
    #expect(try browser([.markdown]).items().map(\.name) == ["notes.md"])
    #expect(try browser([.plainText]).items().map(\.name) == ["b.txt", "notes.md"])
    #expect(try browser([.pdf]).items().isEmpty)
  }

  @Test func sortsByEachKey() throws {
    let a = try folder.write(String(repeating: "a", count: 30), to: "file 10.md")
    let b = try folder.write("b", to: "file 2.md")
    let c = try folder.write(String(repeating: "c", count: 10), to: "File 3.txt")
    for (url, seconds) in [(a, 100.0), (b, 300.0), (c, 200.0)] {
      try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: seconds)], ofItemAtPath: url.path)
    }
    let browser = browser()
    #expect(try browser.items(sortedBy: .name).map(\.name) == ["file 2.md", "File 3.txt", "file 10.md"])
    #expect(try browser.items(sortedBy: .date).map(\.name) == ["file 2.md", "File 3.txt", "file 10.md"])
    #expect(try browser.items(sortedBy: BrowserSortOrder(.date, ascending: true)).map(\.name) == ["file 10.md", "File 3.txt", "file 2.md"])
    #expect(try browser.items(sortedBy: .size).map(\.name) == ["file 10.md", "File 3.txt", "file 2.md"])
    #expect(try browser.items(sortedBy: .kind).first?.name != nil)
    #expect(BrowserSortOrder(parsing: "-name") == BrowserSortOrder(.name, ascending: false))
    #expect(BrowserSortOrder(parsing: "colour") == nil)
  }

  @Test func missingLocationIsAClearError() throws {
    let browser = DocumentBrowser(configuration: .init(locations: [folder.file("nope")], environment: testEnvironment(folder)))
    let error = try #require(throws: QuireError.self) { try browser.items() }
    #expect(error.code == .fileMissing)
    #expect(error.reason.contains("'nope'"))
  }
}

/// XDG folders inside the test's folder (hidden, so browsing it does not show them), so that
/// nothing touches the real home.
func testEnvironment(_ folder: TemporaryFolder) -> [String: String] {
  var environment = ProcessInfo.processInfo.environment
  for (name, sub) in [("XDG_DATA_HOME", ".xdg/data"), ("XDG_CACHE_HOME", ".xdg/cache"), ("XDG_STATE_HOME", ".xdg/state")] {
    let url = folder.url.appendingPathComponent(sub)
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    environment[name] = url.path
  }
  return environment
}
