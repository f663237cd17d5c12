import Foundation
import QuireDocuments
import QuireTestSupport
import QuireTypes
import Testing

@testable import QuireSession

/// The session layer the web page and `quire rpc` share: documents by file identity,
/// versioned edits, subscribers, and closes that keep unsaved work.
@MainActor
@Suite("DocumentSession")
final class DocumentSessionTests: MainActorFolderSuite {
  init() throws { try super.init(prefix: "quire-session") }

  func makeSession() -> DocumentSession {
    let controller = DocumentController(stateFolder: folder.file("state"))
    controller.autosavePolicy = nil
    return DocumentSession(controller: controller)
  }

  @Test func positionsInEveryEncodingNameTheSameOffset() throws {
    let storage = TextStorage("first\n日本🙂x\n")
    // After the emoji: 6 + 3 + 3 + 4 bytes, 2 + 2 UTF-16 units, 3 scalars.
    #expect(try storage.utf8Offset(of: TextPosition(line: 1, character: 10), in: .utf8) == 16)
    #expect(try storage.utf8Offset(of: TextPosition(line: 1, character: 4), in: .utf16) == 16)
    #expect(try storage.utf8Offset(of: TextPosition(line: 1, character: 3), in: .utf32) == 16)
    #expect(storage.point(atUTF8Offset: 16) == TextPoint(line: 1, utf8: 10, utf16: 4, utf32: 3))
    // Inside the emoji (between its surrogates, inside its bytes), past the line, past the text.
    #expect(throws: QuireError.self) { try storage.utf8Offset(of: TextPosition(line: 1, character: 3), in: .utf16) }
    #expect(throws: QuireError.self) { try storage.utf8Offset(of: TextPosition(line: 1, character: 7), in: .utf8) }
    #expect(throws: QuireError.self) { try storage.utf8Offset(of: TextPosition(line: 1, character: 5), in: .utf32) }
    #expect(throws: QuireError.self) { try storage.utf8Offset(of: TextPosition(line: 3, character: 0), in: .utf16) }
    // The empty line after the last newline is a place to type.
    #expect(try storage.utf8Offset(of: TextPosition(line: 2, character: 0), in: .utf16) == storage.utf8Count)
  }

  @Test func anotherNameOrALinkForTheFileOpensTheSameDocument() async throws {
    let session = makeSession()
    let file = try folder.write("text\n", to: "b.txt")
    try FileManager.default.createDirectory(at: folder.file("sub"), withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(atPath: folder.file("link.txt").path, withDestinationPath: "b.txt")
    let first = try await session.open(file)
    let second = try await session.open(folder.url.appendingPathComponent("sub/../b.txt"))
    let linked = try await session.open(folder.file("link.txt"))
    #expect(first === second && first === linked)
    #expect(session.documents.count == 1)
    // One version for all: an edit made against an older one is refused and changes nothing.
    let version = try first.edit([TextReplacement(range: 0..<0, text: "new ")], atVersion: first.version)
    #expect(throws: QuireError.self) { try linked.edit([TextReplacement(range: 0..<0, text: "stale ")], atVersion: version - 1) }
    #expect(first.text == "new text\n")
    await session.closeAll()
  }

  @Test func aMovedDocumentIsFoundAtItsNewNameAndANewFileAtTheOldNameIsAnother() async throws {
    let session = makeSession()
    let old = try folder.write("moved text\n", to: "b.txt")
    let document = try await session.open(old)
    var moves: [URL] = []
    let subscription = document.subscribe { event in if case .moved(_, let to) = event { moves.append(to) } }
    let new = folder.file("c.txt")
    try FileManager.default.moveItem(at: old, to: new)
    #expect(await eventually { moves.last?.lastPathComponent == "c.txt" }, "the move is heard")
    _ = try folder.write("another file\n", to: "b.txt")
    let again = try await session.open(old)
    #expect(again !== document)
    #expect(again.text == "another file\n")
    #expect(try await session.open(new) === document)
    try document.edit([TextReplacement(range: 0..<5, text: "MOVED")], atVersion: document.version)
    try await document.save()
    #expect(try String(contentsOf: new, encoding: .utf8) == "MOVED text\n")
    #expect(try String(contentsOf: old, encoding: .utf8) == "another file\n", "the save went to the moved file only")
    subscription.cancel()
    await session.closeAll()
  }

  @Test func subscribersHearEveryVersionWithTheChangesThatMadeIt() async throws {
    let session = makeSession()
    let document = try await session.open(try folder.write("日本\n", to: "a.txt"))
    var heard: [(Int, [TextChange], SessionEvent.Cause, Int?)] = []
    let one = document.subscribe { event in
      if case .changed(let version, let changes, let cause, let origin) = event { heard.append((version, changes, cause, origin)) }
    }
    let two = document.subscribe { _ in }
    try document.edit([TextReplacement(range: 3..<6, text: "🙂"), TextReplacement(range: 0..<0, text: ">")], atVersion: 0, by: two.id)
    #expect(document.text == ">日🙂\n")
    document.undo()
    #expect(document.text == "日本\n")
    #expect(heard.map(\.0) == [1, 2])
    #expect(heard[0].3 == two.id && heard[0].2 == .edit)
    #expect(heard[0].1.map(\.text) == [">", "🙂"])
    #expect(heard[0].1[1].start == TextPoint(line: 0, utf8: 3, utf16: 1, utf32: 1))
    #expect(heard[1].2 == .undo && heard[1].1.first?.text == "日本\n")
    #expect(heard[1].1.first?.end == TextPoint(line: 1, utf8: 0, utf16: 0, utf32: 0))
    // Overlapping ranges and a range inside a character are refused, changing nothing.
    #expect(throws: QuireError.self) {
      try document.edit([TextReplacement(range: 0..<3, text: "a"), TextReplacement(range: 2..<4, text: "b")], atVersion: 2)
    }
    #expect(throws: QuireError.self) { try document.edit([TextReplacement(range: 1..<3, text: "a")], atVersion: 2) }
    #expect(document.text == "日本\n" && document.version == 2)
    one.cancel()
    two.cancel()
    await session.closeAll()
  }

  @Test func closingWithUnsavedChangesKeepsThemForTheNextOpen() async throws {
    let session = makeSession()
    let file = try folder.write("saved\n", to: "draft.md")
    let document = try await session.open(file)
    try document.edit([TextReplacement(range: 6..<6, text: "unsaved\n")], atVersion: 0)
    try await session.close(document)
    #expect(try String(contentsOf: file, encoding: .utf8) == "saved\n")
    let again = try await session.open(file)
    let recovered = try #require(again.recoveredVersion, "the next open offers the kept edits")
    #expect(String(decoding: try recovered.contents(), as: UTF8.self) == "saved\nunsaved\n")
    try again.recover(discarding: false)
    #expect(again.text == "saved\nunsaved\n" && again.hasUnsavedChanges)
    // Stopping (closeAll) keeps them too.
    #expect(await session.closeAll().isEmpty)
    let third = try await makeSession().open(file)
    #expect(third.recoveredVersion != nil)
  }

  @Test func badFilesAreRefusedClearly() async throws {
    let session = makeSession()
    await expectQuireError(.fileMissing) { _ = try await session.open(self.folder.file("missing.txt")) }
    #expect(mkfifo(folder.file("pipe.txt").path, 0o600) == 0)
    await expectQuireError(.unsupportedType) { _ = try await session.open(self.folder.file("pipe.txt")) }
    try FileManager.default.createDirectory(at: folder.file("folder.txt"), withIntermediateDirectories: true)
    await expectQuireError(.unsupportedType) { _ = try await session.open(self.folder.file("folder.txt")) }
    #expect(session.documents.isEmpty)
  }
}
