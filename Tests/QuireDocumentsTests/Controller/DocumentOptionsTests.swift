import Foundation
import QuireDocuments
import QuireTestSupport
import QuireTypes
import Testing

/// What front ends ask of ``DocumentController`` beyond a document: exact bytes or UTF-8 text,
/// a new file that is created when saved, and some lines written over the document's own file.
@Suite("Document controller: options, new documents, partial writes")
@MainActor
final class DocumentOptionsTests: MainActorFolderSuite {
  func makeController() -> DocumentController {
    let controller = DocumentController(stateFolder: folder.file("state/quire"))
    controller.autosavePolicy = nil
    controller.fileAccess = UncoordinatedFileAccess()
    return controller
  }

  @Test func exactBytesKeepBytesThatAreNotUTF8AndUTF8TextRefusesThem() async throws {
    let url = folder.file("odd.txt")
    try Data([0x61, 0xFF, 0x00, 0x0A, 0x62]).write(to: url)
    let exact = try await makeController().openDocument(at: url, ofType: .plainText, options: .exactBytes)
    let text = try #require(exact as? PlainTextDocument)
    #expect(text.lineBytes(at: 0) == [0x61, 0xFF, 0x00])
    await #expect(throws: QuireError.self) {
      _ = try await self.makeController().openDocument(at: url, ofType: .plainText, options: .utf8Text)
    }
  }

  @Test func theClassComesFromTheRegistryByConformance() async throws {
    let url = try folder.write("# Title\n", to: "notes.md")
    let controller = makeController()
    #expect(try await controller.openDocument(at: url, options: .utf8Text) is MarkdownDocument)
    #expect(try controller.makeNewDocument(at: folder.file("new.md"), options: .utf8Text) is MarkdownDocument)
  }

  @Test func aMissingFileIsFileMissingAndANewDocumentIsCreatedWhenSaved() async throws {
    let url = folder.file("later.txt")
    let controller = makeController()
    await #expect {
      _ = try await controller.openDocument(at: url, ofType: .plainText, options: .exactBytes)
    } throws: { error in
      (error as? QuireError)?.code == .fileMissing
    }
    let document = try controller.makeNewDocument(at: url, ofType: .plainText, options: .exactBytes)
    #expect(!FileManager.default.fileExists(atPath: url.path))
    #expect(controller.documents.contains { $0 === document })
    let text = try #require(document as? PlainTextDocument)
    try text.replaceLines(in: 0..<0, withBytes: [Array("hello".utf8)])
    try await text.save()
    #expect(try Data(contentsOf: url) == Data("hello\n".utf8))
  }

  @Test func writingSomeLinesOverItsOwnFileIsNotSomeoneElsesChange() async throws {
    let url = try folder.write("a\nb\nc\n", to: "lines.txt")
    let document = try await makeController().openDocument(at: url, ofType: .plainText, options: .exactBytes)
    let text = try #require(document as? PlainTextDocument)
    try text.replaceLines(in: 2..<3, withBytes: [Array("C".utf8)])
    try await text.writeToOwnFile(Data("a\n".utf8))
    #expect(try Data(contentsOf: url) == Data("a\n".utf8))
    // The file is the document's own write: a check finds no change, and the edits stay unsaved.
    #expect(try await text.checkForChangesOnDisk() == .unchanged)
    #expect(text.hasUnsavedChanges)
    try await text.save()
    #expect(try Data(contentsOf: url) == Data("a\nb\nC\n".utf8))
  }

  @Test func aPartialWriteIntoAMissingFolderFailsAndLeavesTheDocument() async throws {
    try FileManager.default.createDirectory(at: folder.file("gone"), withIntermediateDirectories: true)
    let url = try folder.write("a\n", to: "gone/x.txt")
    let document = try await makeController().openDocument(at: url, ofType: .plainText, options: .exactBytes)
    try FileManager.default.removeItem(at: folder.file("gone"))
    await #expect(throws: QuireError.self) { try await document.writeToOwnFile(Data("b\n".utf8)) }
    #expect(!FileManager.default.fileExists(atPath: url.path))
  }
}
