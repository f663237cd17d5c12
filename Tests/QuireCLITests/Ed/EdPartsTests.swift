import Foundation
import Quire
import QuireTestSupport
import Testing

@testable import QuireCLI

@MainActor
@Suite("Line buffer undo: the lines and undo of a document")
struct LineBufferTests {
  private func buffer(_ text: String) throws -> DocumentLineBuffer { try DocumentLineBuffer(untitled: Data(text.utf8), with: DocumentController()) }

  @Test func undoRedoAndSavedState() throws {
    let buffer = try buffer("a\nb\n")
    #expect(!buffer.isEdited)
    buffer.beginEditGroup(named: "delete", cursor: 2)
    try buffer.replaceLines(in: 0..<1, with: [])
    buffer.endEditGroup(cursor: 1)
    #expect(buffer.isEdited)
    buffer.markSaved()
    #expect(!buffer.isEdited)
    #expect(buffer.undo() == 2)
    #expect(buffer.allLines == ["a", "b"])
    #expect(buffer.isEdited, "the saved state is one redo away")
    #expect(buffer.redo() == 1)
    #expect(!buffer.isEdited)
    #expect(buffer.redo() == nil)
  }

  @Test func editsAreTheDocumentsOwn() throws {
    let buffer = try buffer("a\nb\n")
    buffer.beginEditGroup(named: "substitute", cursor: 1)
    try buffer.replaceLines(in: 0..<1, with: ["A"])
    try buffer.replaceLines(in: 1..<2, with: ["B"])
    buffer.endEditGroup(cursor: 2)
    // The text is the document's storage, the step its undo manager's, named for the command.
    #expect(buffer.document.text == "A\nB\n")
    #expect(buffer.document.undoManager.undoCount == 1)
    #expect(buffer.document.undoManager.undoActionName == "substitute")
    #expect(buffer.document.hasUnsavedChanges)
    buffer.document.undoManager.undo()
    #expect(buffer.document.text == "a\nb\n")
    #expect(!buffer.document.hasUnsavedChanges)
  }

  @Test func aGroupWithoutEditsLeavesNoStep() throws {
    let buffer = try buffer("a\n")
    buffer.beginEditGroup(named: "global", cursor: 1)
    buffer.endEditGroup(cursor: 1)
    #expect(buffer.undoCount == 0)
    #expect(buffer.undo() == nil)
    #expect(!buffer.isEdited)
  }

  @Test func nestedGroupsAreOneStep() throws {
    let buffer = try buffer("a\n")
    buffer.beginEditGroup(named: "global", cursor: 1)
    buffer.beginEditGroup(named: "append", cursor: 1)
    try buffer.insertLines(["b"], at: 1)
    buffer.endEditGroup(cursor: 2)
    try buffer.insertLines(["c"], at: 2)
    buffer.endEditGroup(cursor: 3)
    #expect(buffer.undoCount == 1)
    #expect(buffer.undo() == 1)
    #expect(buffer.allLines == ["a"])
    #expect(buffer.redo() == 3)
    #expect(buffer.allLines == ["a", "b", "c"])
  }

  @Test func droppingOldLevelsKeepsTheEditedState() throws {
    let buffer = try buffer("")
    buffer.document.undoManager.levelsOfUndo = 2
    for index in 0..<5 {
      buffer.beginEditGroup(named: "append", cursor: index)
      try buffer.insertLines(["\(index)"], at: index)
      buffer.endEditGroup(cursor: index + 1)
    }
    #expect(buffer.undoCount == 2)
    _ = buffer.undo()
    _ = buffer.undo()
    #expect(buffer.undo() == nil)
    #expect(buffer.allLines == ["0", "1", "2"])
    #expect(buffer.isEdited, "the file held no lines; three remain")
  }

  @Test func newEditClearsRedo() throws {
    let buffer = try buffer("a\n")
    try buffer.deleteLines(in: 0..<1)
    _ = buffer.undo()
    try buffer.insertLines(["b"], at: 0)
    #expect(buffer.redoCount == 0)
  }

  @Test func aBinaryFilesUnendedLastLineStaysUnendedUntilChanged() throws {
    // As GNU ed: a file with a NUL byte is written back without the newline it lacked; changing
    // its last line ends that line, and undo takes the newline back out.
    let bytes: [UInt8] = [0x61, 0x00, 0x0A, 0xFF, 0x62]
    let buffer = try DocumentLineBuffer(untitled: Data(bytes), with: DocumentController())
    #expect(buffer.isBinary)
    #expect(buffer.lineCount == 2)
    #expect(buffer.bytes(ofLines: 0..<2) == bytes)
    buffer.beginEditGroup(named: "substitute", cursor: 2)
    try buffer.replaceLines(in: 1..<2, withBytes: [[0xFF, 0x63]])
    buffer.endEditGroup(cursor: 2)
    #expect(buffer.bytes(ofLines: 0..<2) == [0x61, 0x00, 0x0A, 0xFF, 0x63, 0x0A])
    #expect(buffer.undo() == 2)
    #expect(buffer.bytes(ofLines: 0..<2) == bytes)
    #expect(buffer.bytes(ofLines: 0..<1) == [0x61, 0x00, 0x0A])
  }

  @Test func aTextFilesMissingNewlineIsAppendedOnReading() throws {
    let buffer = try buffer("a\nb")
    #expect(!buffer.isBinary)
    #expect(buffer.bytes(ofLines: 0..<2) == Array("a\nb\n".utf8))
    #expect(buffer.document.appendedFinalNewline)
    try buffer.reset(contents: Data("x".utf8), fingerprint: nil)
    #expect(buffer.document.text == "x\n")
  }

  @Test func aBinaryReadAtTheEndKeepsItsBytes() throws {
    let buffer = try buffer("a\n")
    try buffer.appendBytes([0x00, 0x0A, 0x7A])
    #expect(buffer.isBinary)
    #expect(buffer.bytes(ofLines: 0..<3) == [0x61, 0x0A, 0x00, 0x0A, 0x7A])
    #expect(buffer.undo() != nil)
    #expect(buffer.allLines == ["a"])
  }

  @Test func resetReplacesTheLinesWithoutHistory() throws {
    let buffer = try buffer("a\n")
    try buffer.deleteLines(in: 0..<1)
    try buffer.reset(contents: Data("x\ny".utf8), fingerprint: nil)
    #expect(buffer.allLines == ["x", "y"])
    #expect(buffer.undoCount == 0)
    #expect(!buffer.isEdited)
  }
}

@Suite("POSIX regular expressions")
struct POSIXRegexTests {
  @Test func basicSyntaxGroupsAndBackReferences() throws {
    let regex = try POSIXRegex(Array("\\(ab\\)\\1".utf8))
    let groups = regex.groupCount
    let match = try regex.firstMatch(in: POSIXRegex.cString("xxababyy"))
    let matchesOther = try regex.matches("abba")
    #expect(groups == 1)
    #expect(match?[0] == 2..<6)
    #expect(match?[1] == 2..<4)
    #expect(!matchesOther)
  }

  @Test func plusIsLiteralInBasicSyntax() throws {
    let regex = try POSIXRegex(Array("a+".utf8))
    let literal = try regex.matches("a+")
    let repeated = try regex.matches("aa")
    #expect(literal)
    #expect(!repeated)
  }

  @Test(arguments: ["\\(", "a\\{2", "[[:nope:]]", "x\\{3,1\\}"])
  func invalidPatternsThrowWithTheLibraryMessage(_ pattern: String) {
    var failed = false
    do {
      _ = try POSIXRegex(Array(pattern.utf8))
    } catch {
      failed = !error.message.isEmpty
    }
    #expect(failed)
  }
}

/// A file's bytes as the REPL reads them for `e`, `r` and ed's file: by the document layer.
@Suite("File bytes")
final class FileBytesTests: FolderSuite {
  @Test func readsLinesAndNotesAMissingFinalNewline() throws {
    let url = try folder.write("a\nb", to: "f.txt")
    let contents = try EdDocument.readBytes(of: url, requiresText: true)
    #expect(contents.lines == ["a", "b"])
    #expect(contents.lacksFinalNewline)
    #expect(contents.byteCount == 3)
    let empty = try folder.write("", to: "empty.txt")
    #expect(try EdDocument.readBytes(of: empty, requiresText: true).lines == [])
  }

  @Test func readingGivesTheDocumentLayersFingerprintOfTheFile() throws {
    let url = try folder.write("abc\n", to: "g.txt")
    let read = try #require(try EdDocument.readBytes(of: url, requiresText: true).fingerprint)
    #expect(read.hasSameContent(as: try FileFingerprint.read(at: url).fingerprint))
    try "abd\n".write(to: url, atomically: true, encoding: .utf8)
    #expect(!read.hasSameContent(as: try FileFingerprint.read(at: url).fingerprint))
  }

  @Test func strippingCarriageReturnsCountsTheBytesReadAndDropsTheFingerprint() throws {
    let url = try folder.write("a\r\nb\r\n", to: "crlf.txt")
    var contents = try EdDocument.readBytes(of: url, requiresText: true)
    contents.stripTrailingCarriageReturns()
    #expect(contents.lines == ["a", "b"])
    #expect(contents.byteCount == 6, "ed reports the bytes it read")
    #expect(contents.fingerprint == nil, "the bytes are no longer the file's")
  }

  @Test func textIsRequiredOnlyWhenAsked() throws {
    let url = folder.file("nul.bin")
    try Data([0x61, 0x00, 0xff, 0x0a]).write(to: url)
    #expect(try EdDocument.readBytes(of: url, requiresText: false).bytes == [0x61, 0x00, 0xff, 0x0a])
    #expect {
      try EdDocument.readBytes(of: url, requiresText: true)
    } throws: { error in
      let message = (error as? EdError)?.message ?? ""
      return message.contains("'nul.bin'") && message.contains("NUL byte")
    }
  }

  /// The system call's reason ed prints after a name comes from the document layer's error.
  @Test func failuresCarryTheSystemsReason() throws {
    for (url, reason) in [(folder.file("missing.txt"), "No such file or directory"), (folder.url, "Is a directory")] {
      #expect {
        try EdDocument.readBytes(of: url, requiresText: false)
      } throws: { error in
        (error as? EdError)?.systemReason == reason
      }
    }
  }
}

@Suite("Tab completion")
final class CompletionTests: FolderSuite {
  init() throws {
    try super.init()
    try folder.write("x", to: "notes.md")
    try folder.write("x", to: "novel.txt")
    try FileManager.default.createDirectory(at: folder.file("notebooks"), withIntermediateDirectories: true)
  }

  var completion: Completion {
    Completion(
      commands: REPLWordCommand.names.sorted(), documents: ["notes.md", "todo.txt"],
      templates: ["blank-note.md", "readme.md"], currentFolder: folder.url.path)
  }

  @Test func commands() {
    #expect(completion.candidates(forLineBefore: "sa") == ["save"])
    #expect(completion.candidates(forLineBefore: "re") == ["recent", "recover", "redo", "remove-annotation", "restore", "revert"])
  }

  @Test func paths() {
    #expect(completion.candidates(forLineBefore: "open no") == ["notebooks/", "notes.md", "novel.txt"])
    #expect(completion.candidates(forLineBefore: "open note") == ["notebooks/", "notes.md"])
    #expect(completion.candidates(forLineBefore: "w nov") == ["novel.txt"])
    #expect(completion.candidates(forLineBefore: "1,$w nov") == ["novel.txt"])
    #expect(completion.candidates(forLineBefore: "save as nov") == ["novel.txt"])
  }

  @Test func templatesAndDocuments() {
    #expect(completion.candidates(forLineBefore: "new --template b") == ["blank-note.md"])
    #expect(completion.candidates(forLineBefore: "switch t") == ["todo.txt"])
    #expect(completion.candidates(forLineBefore: "1,2p") == [])
  }
}

@Suite("Command history file")
final class HistoryFileTests: FolderSuite {
  @Test func ownerOnlyAndNeverThroughALink() throws {
    let devNull = open("/dev/null", O_RDWR)
    defer { close(devNull) }
    let editor = try LineEditor(program: "quire-test", input: devNull, output: devNull)
    editor.remember("1,$p")
    let history = History(stateHome: folder.file("state"))
    history.save(from: editor)
    var info = stat()
    #expect(lstat(history.file.path, &info) == 0)
    #expect(info.st_mode & 0o777 == 0o600)
    #expect(lstat(history.folder.path, &info) == 0)
    #expect(info.st_mode & 0o777 == 0o700)

    // A symbolic link planted at the history path is not written through.
    let victim = try folder.write("precious\n", to: "victim.txt")
    unlink(history.file.path)
    try FileManager.default.createSymbolicLink(atPath: history.file.path, withDestinationPath: victim.path)
    history.save(from: editor)
    #expect(try String(contentsOf: victim, encoding: .utf8) == "precious\n")
  }
}

@MainActor
@Suite("ed commands carry bytes")
struct EdBytesTests {
  /// Lines with a NUL byte, bytes that are not UTF-8 (0xFF, a lone 0xC3) and plain text.
  static let binary: [[UInt8]] = [[0x61, 0x00, 0x62], [0xFF, 0x78, 0xC3], Array("plain".utf8)]

  /// Runs `commands` on a document that holds `lines` byte for byte; returns its lines after.
  private func run(_ commands: [String], on lines: [[UInt8]]) async throws -> ([[UInt8]], [[UInt8]]) {
    let buffer = try DocumentLineBuffer(untitled: Data(EdEngine.bytes(of: lines)), with: DocumentController())
    let output = PrintedBytes()
    let engine = EdEngine(document: EdDocument(buffer: buffer, fileURL: nil), printsByteCounts: false, output: output)
    for command in commands { _ = try await engine.execute(command) { nil } }
    return (buffer.lineBytes(in: 0..<buffer.lineCount), output.printed)
  }

  /// The engine's output, kept as bytes.
  private final class PrintedBytes: EdOutput {
    var printed: [[UInt8]] = []
    func print(_ line: String) { printed.append(Array(line.utf8)) }
    func print(bytes: [UInt8]) { printed.append(bytes) }
  }

  @Test func printingGivesTheBytesBack() async throws {
    let (_, printed) = try await run([",p", "1n", ",l"], on: Self.binary)
    #expect(printed[0..<3].map { $0 } == Self.binary)
    #expect(printed[3] == Array("1\t".utf8) + [0x61, 0x00, 0x62])
    #expect(printed[4...] == [Array("a\\000b$".utf8), Array("\\377x\\303$".utf8), Array("plain$".utf8)])
  }

  @Test func editsKeepTheBytes() async throws {
    let (lines, _) = try await run(["1,2t$", "4,5j", "1m$", "2y", "0x", "1,2d", "u"], on: Self.binary)
    let (a, b, plain) = (Self.binary[0], Self.binary[1], Self.binary[2])
    // t copied, j joined, m moved, y and x put back, and u brought back what d deleted.
    #expect(lines == [plain, b, plain, a + b, a])
  }

  @Test func substituteAndSearchSeeBytesAroundNUL() async throws {
    // A NUL does not end the line for the regular expression: b after it is found.
    let (lines, _) = try await run(["/b/s/b/B/", "2s/x/&&/", "g/plain/s/$/!/"], on: Self.binary)
    #expect(lines == [[0x61, 0x00, 0x42], [0xFF, 0x78, 0x78, 0xC3], Array("plain!".utf8)])
  }
}
