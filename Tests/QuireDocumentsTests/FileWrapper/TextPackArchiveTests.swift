import Foundation
import QuireTestSupport
import QuireTypes
import Testing

@testable import QuireDocuments

/// `TextPackArchive`, the zip inside a `.textpack`: round trips, and hostile or broken
/// archives (made with Python's zipfile, as other tools would) refused with a clear error.
@Suite("TextPackArchive")
final class TextPackArchiveTests: FolderSuite {
  /// Writes a zip at `name` holding `entries` (name → text), stored uncompressed; `symlinks`
  /// are entries marked as symbolic links.
  func zip(_ name: String, _ entries: [(String, String)], symlinks: [String] = []) throws -> URL {
    let url = folder.file(name)
    let script = """
      import json, sys, zipfile
      entries, links = json.load(sys.stdin), set(json.loads(sys.argv[2]))
      with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_STORED) as z:
          for name, text in entries:
              info = zipfile.ZipInfo(name)
              if name in links:
                  info.external_attr = 0o120777 << 16
              z.writestr(info, text)
      """
    let entriesJSON = String(decoding: try JSONEncoder().encode(entries.map { [$0.0, $0.1] }), as: UTF8.self)
    let linksJSON = String(decoding: try JSONEncoder().encode(symlinks), as: UTF8.self)
    let python = try #require(Programs.system("python3"), "python3 is not installed: scripts/setup installs it")
    let made = try ChildProcess.runBlocking(python, ["-c", script, url.path, linksJSON], input: Data(entriesJSON.utf8))
    #expect(made.status == 0, "\(made.error)")
    return url
  }

  func expectRefused(_ url: URL, _ code: QuireError.Code, saying words: String, sourceLocation: SourceLocation = #_sourceLocation) {
    expectQuireError(code, reasonContains: url.lastPathComponent, words, sourceLocation: sourceLocation) { try TextPackArchive.read(from: url) }
  }

  @Test func aTreeSurvivesARoundTrip() throws {
    let root = FileWrapper(directoryWithFileWrappers: [:])
    root.addRegularFile(withContents: Data("# Trip\n\n日本語\n".utf8), preferredFilename: "text.md")
    let assets = FileWrapper(directoryWithFileWrappers: [:])
    assets.preferredFilename = "assets"
    assets.addRegularFile(withContents: Data((0..<5000).map { UInt8(truncatingIfNeeded: $0) }), preferredFilename: "photo.png")
    root.addFileWrapper(assets)
    let url = folder.file("Trip.textpack")
    let data = try TextPackArchive.data(for: root, folderName: "Trip.textbundle", url: url)
    let read = try TextPackArchive.read(data: data, url: url)
    #expect(read.fileWrappers?["text.md"]?.regularFileContents == Data("# Trip\n\n日本語\n".utf8))
    #expect(read.fileWrappers?["assets"]?.fileWrappers?["photo.png"]?.regularFileContents?.count == 5000)
    #expect(Set(read.fileWrappers?.keys.map { $0 } ?? []) == ["text.md", "assets"])
  }

  @Test func anEmptyTreeRoundTripsEmpty() throws {
    let url = folder.file("Empty.textpack")
    let data = try TextPackArchive.data(for: FileWrapper(directoryWithFileWrappers: [:]), folderName: "Empty.textbundle", url: url)
    #expect(try TextPackArchive.read(data: data, url: url).fileWrappers?.isEmpty == true)
  }

  @Test func filesAtTheTopAreReadAsTheBundle() throws {
    let url = try zip("Top.textpack", [("text.md", "# Top\n"), ("info.json", "{}")])
    let read = try TextPackArchive.read(from: url)
    #expect(read.fileWrappers?["text.md"]?.regularFileContents == Data("# Top\n".utf8))
  }

  @Test func macOSLitterIsSkipped() throws {
    let url = try zip("Litter.textpack", [("B.textbundle/text.md", "b"), ("__MACOSX/B.textbundle/._text.md", "x"), ("B.textbundle/.DS_Store", "x")])
    let read = try TextPackArchive.read(from: url)
    #expect(read.fileWrappers?.keys.sorted() == ["text.md"])
  }

  @Test func symbolicLinkEntriesAreSkipped() throws {
    let url = try zip("Links.textpack", [("L.textbundle/text.md", "text"), ("L.textbundle/passwd", "/etc/passwd")], symlinks: ["L.textbundle/passwd"])
    #expect(try TextPackArchive.read(from: url).fileWrappers?.keys.sorted() == ["text.md"])
  }

  @Test(arguments: ["../escape.md", "B.textbundle/../../escape.md", "/etc/passwd"])
  func entriesPointingOutsideAreRefused(_ name: String) throws {
    let url = try zip("Escape.textpack", [("B.textbundle/text.md", "ok"), (name, "evil")])
    expectRefused(url, .invalidContent, saying: "points outside the archive")
  }

  @Test func tooManyEntriesAreRefused() throws {
    let entries = (0...TextPackArchive.maximumEntries).map { ("B.textbundle/assets/\($0).txt", "") }
    let url = try zip("Many.textpack", entries)
    expectRefused(url, .limitExceeded, saying: "more than \(TextPackArchive.maximumEntries) entries")
  }

  @Test func aFileThatIsNotAZipIsRefused() throws {
    let url = try folder.write("just some text, not a zip\n", to: "Fake.textpack")
    expectRefused(url, .invalidContent, saying: "not a zip archive")
    #expect(throws: QuireError.self) { try TextPackArchive.read(data: Data(), url: url) }
  }

  @Test func aMissingArchiveIsMissing() {
    expectRefused(folder.file("Gone.textpack"), .fileMissing, saying: "Gone.textpack")
  }

  @Test func aDamagedEntryIsRefused() throws {
    let url = try zip("Damaged.textpack", [("B.textbundle/text.md", "HELLO HELLO HELLO HELLO")])
    var bytes = try Data(contentsOf: url)
    let range = try #require(bytes.range(of: Data("HELLO HELLO".utf8)))
    bytes[range.lowerBound] = UInt8(ascii: "J")  // the stored CRC-32 no longer matches
    try bytes.write(to: url)
    expectRefused(url, .invalidContent, saying: "is damaged")
  }

  @Test func aTruncatedArchiveIsRefused() throws {
    let url = try zip("Cut.textpack", [("B.textbundle/text.md", String(repeating: "text ", count: 200))])
    let bytes = try Data(contentsOf: url)
    try bytes.prefix(bytes.count / 2).write(to: url)
    expectRefused(url, .invalidContent, saying: "not a zip archive")
  }
}
