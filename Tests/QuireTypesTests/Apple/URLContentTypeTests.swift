// Written from Apple's documentation of `URLResourceKey.contentTypeKey` and
// `URLResourceValues.contentType`, through the module of Apple's name.
import Foundation
import QuireTestSupport
import Testing
import UniformTypeIdentifiers

@Suite("URLResourceValues.contentType")
final class URLContentTypeTests: FolderSuite {
  @Test func aFilesTypeComesWithItsResourceValues() throws {
    let note = try folder.write("# Title\n", to: "note.md")
    let values = try note.resourceValues(forKeys: [.contentTypeKey, .fileSizeKey])
    #expect(values.contentType == UTType("net.daringfireball.markdown"))
    #expect(values.contentType?.conforms(to: .text) == true)
    #expect(values.fileSize == 8, "Foundation's own keys are still answered")
    // Content decides where the name says nothing: a PNG without an extension.
    let image = folder.file("picture")
    try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0x0D]).write(to: image)
    #expect(try image.resourceValues(forKeys: [.contentTypeKey]).contentType == .png)
    let folderValues = try folder.url.resourceValues(forKeys: [.contentTypeKey, .isDirectoryKey])
    #expect(folderValues.contentType?.conforms(to: .folder) == true && folderValues.isDirectory == true)
  }

  /// A FIFO is answered without being opened (no writer ever comes, so an open would wait
  /// for ever); a symbolic link gives its target's type.
  @Test func aFIFOIsNotOpenedAndALinkGivesItsTargetsType() throws {
    let fifo = folder.file("pipe.md")
    #expect(mkfifo(fifo.path, 0o600) == 0)
    let fifoType = try fifo.resourceValues(forKeys: [.contentTypeKey]).contentType
    #expect(fifoType?.conforms(to: .text) != true, "\(String(describing: fifoType))")
    let note = try folder.write("# Title\n", to: "note.md")
    let link = folder.file("link-to-note")
    try FileManager.default.createSymbolicLink(at: link, withDestinationURL: note)
    #expect(try link.resourceValues(forKeys: [.contentTypeKey]).contentType == UTType("net.daringfireball.markdown"))
  }

  @Test func keysAskedWithoutTheTypeAndMissingFilesGiveNoType() throws {
    let note = try folder.write("text\n", to: "note.txt")
    #expect(try note.resourceValues(forKeys: [.isRegularFileKey]).contentType == nil)
    // Foundation on Linux answers a missing file's path without an error; its type is nil.
    #expect(try folder.file("missing.md").resourceValues(forKeys: [.contentTypeKey]).contentType == nil)
  }
}
