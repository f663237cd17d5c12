import Foundation
import QuireTestSupport
import QuireTypes
import Testing

@testable import QuireDocuments

#if canImport(Glibc)
  import Glibc
#endif

/// The calls an editor that holds a whole file uses to read it, test it, replace its text and
/// write it without ever joining or copying the text (the `quire` REPL on a 100 MiB file):
/// ``FileFingerprint/read(from:url:)``, ``FileFingerprint/current(at:)``,
/// ``TextStorage/firstUTF8Offset(of:)``, ``PlainTextDocument/replaceText(with:)-(TextStorage)``
/// and ``FileSaver/writeOutput(_:to:options:)-(TextStorage,_,_)``.
@Suite("Whole texts without copies")
@MainActor
final class WholeTextTests: MainActorFolderSuite {
  /// Numbered lines up to `size` bytes, with a NUL byte on line `nulLine` when given.
  func lines(upTo size: Int, nulLine: Int? = nil) -> [UInt8] {
    var bytes = [UInt8]()
    var line = 0
    while bytes.count < size {
      line += 1
      bytes += Array("\(line): the quick brown fox\n".utf8)
      if line == nulLine { bytes.insert(0, at: bytes.count - 3) }
    }
    return bytes
  }

  func open(_ url: URL) throws -> Int32 {
    let fd = Glibc.open(url.path, O_RDONLY | O_CLOEXEC)
    try #require(fd >= 0)
    return fd
  }

  @Test func readsAnOpenDescriptorSmallOrLarge() throws {
    for size in [100, 6 << 20] {
      let bytes = lines(upTo: size)
      let url = folder.file("read-\(size).txt")
      try Data(bytes).write(to: url)
      let fd = try open(url)
      defer { close(fd) }
      let (fingerprint, contents) = try FileFingerprint.read(from: fd, url: url)
      #expect(contents == Data(bytes))
      #expect(fingerprint.size == bytes.count)
      #expect(fingerprint.contentHash == ContentHash(Data(bytes)))
      #expect(fingerprint.hasSameContent(as: try FileFingerprint.read(at: url).fingerprint))
    }
  }

  @Test func aDescriptorThatIsNotARegularFileIsRefusedNamingTheFile() throws {
    let url = URL(fileURLWithPath: "/dev/null")
    let fd = try open(url)
    defer { close(fd) }
    expectQuireError(.unsupportedType, reasonContains: "null", "not a regular file") { try FileFingerprint.read(from: fd, url: url) }
  }

  @Test func theCurrentFingerprintIsTheReadOnesWithoutHoldingTheFile() throws {
    let bytes = lines(upTo: 5 << 20)
    let url = folder.file("current.txt")
    try Data(bytes).write(to: url)
    let current = try FileFingerprint.current(at: url)
    #expect(current.hasSameContent(as: try FileFingerprint.read(at: url).fingerprint))
    try Data(bytes.dropLast()).write(to: url)
    #expect(!(try FileFingerprint.current(at: url)).hasSameContent(as: current))
    #expect(throws: QuireError.self) { try FileFingerprint.current(at: self.folder.file("missing.txt")) }
  }

  @Test func findsTheFirstByteAcrossChunks() throws {
    #expect(TextStorage("no nul here\n").firstUTF8Offset(of: 0) == nil)
    #expect(TextStorage().firstUTF8Offset(of: 0) == nil)
    #expect(TextStorage(bytes: [0x61, 0x00, 0x0A, 0x00]).firstUTF8Offset(of: 0) == 1)
    // Far into a text of many chunks, read from a scratch copy.
    let bytes = lines(upTo: 6 << 20, nulLine: 150_000)
    let url = folder.file("nul.txt")
    try Data(bytes).write(to: url)
    let text = TextStorage(bytes: try FileFingerprint.read(at: url).contents)
    let expected = try #require(bytes.firstIndex(of: 0))
    #expect(text.firstUTF8Offset(of: 0) == expected)
    #expect(text.firstUTF8Offset(of: UInt8(ascii: "q")) == bytes.firstIndex(of: UInt8(ascii: "q")))
    #expect(text.firstUTF8Offset(of: 0xFF) == nil)
  }

  @Test func replacingTheWholeTextIsOneUndoableChange() async throws {
    let url = folder.file("replace.txt")
    try Data("old one\nold two\n".utf8).write(to: url)
    let document = try await openQuietly(PlainTextDocument(fileURL: url)) {
      $0.registersAsFilePresenter = false
      $0.readsBytesExactly = true
    }
    let new = lines(upTo: 6 << 20)
    let newURL = folder.file("new.txt")
    try Data(new).write(to: newURL)
    try document.replaceText(with: TextStorage(bytes: try FileFingerprint.read(at: newURL).contents))
    #expect(document.storage.utf8Bytes() == new)
    #expect(document.hasUnsavedChanges)
    #expect(document.lineBytes(at: 9) == Array("10: the quick brown fox".utf8))
    document.undoManager.undo()
    #expect(document.text == "old one\nold two\n")
    #expect(!document.hasUnsavedChanges)
    document.undoManager.redo()
    #expect(document.storage.utf8Bytes() == new)
    try await document.save()
    #expect(try Data(contentsOf: url) == Data(new))

    try await document.close()
    #expect(throws: QuireError.self) { try document.replaceText(with: TextStorage("closed\n")) }
  }

  @Test func aTextIsWrittenSafelyFromItsChunks() throws {
    let bytes = lines(upTo: 6 << 20)
    let source = folder.file("source.txt")
    try Data(bytes).write(to: source)
    var text = TextStorage(bytes: try FileFingerprint.read(at: source).contents)
    try text.editLines { editor in try editor.replaceLine(2, withBytes: Array("three".utf8)) }
    let url = folder.file("written.txt")
    try Data("old\n".utf8).write(to: url)
    let result = try #require(try FileSaver.writeOutput(text, to: url))
    #expect(try Data(contentsOf: url) == Data(text.utf8Bytes()))
    #expect(result.method == .replaced)
    #expect(result.fingerprint.hasSameContent(as: try FileFingerprint.current(at: url)))
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted() == ["source.txt", "written.txt"])
  }

  @Test func aTextGoesThroughADeviceAndIsRefusedByAFolder() throws {
    #expect(try FileSaver.writeOutput(TextStorage("to nowhere\n"), to: URL(fileURLWithPath: "/dev/null")) == nil)
    expectQuireError(.unsupportedType, reasonContains: "it is a folder") { try FileSaver.writeOutput(TextStorage("text\n"), to: self.folder.url) }
  }
}
