import Foundation
import QuireTestSupport
import Testing

@testable import QuireCLI

@Suite("Line buffer undo")
struct LineBufferTests {
  @Test func undoRedoAndSavedState() {
    let buffer = InMemoryLineBuffer(lines: ["a", "b"])
    #expect(!buffer.isEdited)
    buffer.beginEditGroup(named: "delete", cursor: 2)
    buffer.replaceLines(in: 0..<1, with: [])
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

  @Test func nestedGroupsAreOneStep() {
    let buffer = InMemoryLineBuffer(lines: ["a"])
    buffer.beginEditGroup(named: "global", cursor: 1)
    buffer.beginEditGroup(named: "append", cursor: 1)
    buffer.insertLines(["b"], at: 1)
    buffer.endEditGroup(cursor: 2)
    buffer.insertLines(["c"], at: 2)
    buffer.endEditGroup(cursor: 3)
    #expect(buffer.undoCount == 1)
    _ = buffer.undo()
    #expect(buffer.allLines == ["a"])
  }

  @Test func droppingOldLevelsKeepsTheEditedState() {
    let buffer = InMemoryLineBuffer(lines: [], undoLimit: 2)
    for index in 0..<5 {
      buffer.beginEditGroup(named: "append", cursor: index)
      buffer.insertLines(["\(index)"], at: index)
      buffer.endEditGroup(cursor: index + 1)
    }
    #expect(buffer.undoCount == 2)
    _ = buffer.undo()
    _ = buffer.undo()
    #expect(buffer.undo() == nil)
    #expect(buffer.allLines == ["0", "1", "2"])
    #expect(buffer.isEdited, "the file held no lines; three remain")
  }

  @Test func newEditClearsRedo() {
    let buffer = InMemoryLineBuffer(lines: ["a"])
    buffer.deleteLines(in: 0..<1)
    _ = buffer.undo()
    buffer.insertLines(["b"], at: 0)
    #expect(buffer.redoCount == 0)
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

@Suite("Text files")
final class TextFileTests {
  let folder: TemporaryFolder
  init() throws { folder = try TemporaryFolder(prefix: "quire-textfile") }
  deinit { folder.remove() }

  @Test func atomicWriteKeepsModeAndLeavesNoTemporaryFile() throws {
    let url = try folder.write("old\n", to: "f.txt")
    chmod(url.path, 0o640)
    try TextFileSystem().writeAtomically(Array("new\n".utf8), to: url)
    #expect(try String(contentsOf: url, encoding: .utf8) == "new\n")
    var info = stat()
    #expect(stat(url.path, &info) == 0)
    #expect(info.st_mode & 0o777 == 0o640)
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["f.txt"])
  }

  @Test func writeGoesThroughASymbolicLink() throws {
    let target = try folder.write("old\n", to: "target.txt")
    let link = folder.file("link.txt")
    try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "target.txt")
    try TextFileSystem().writeAtomically(Array("new\n".utf8), to: link)
    #expect(try String(contentsOf: target, encoding: .utf8) == "new\n")
    #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: link.path)) == "target.txt")
  }

  @Test func failedWriteLeavesTheOldFile() throws {
    let url = try folder.write("old\n", to: "f.txt")
    #expect(throws: EdError.self) {
      try TextFileSystem().writeAtomically(Array("new\n".utf8), to: self.folder.file("missing-folder/f.txt"))
    }
    #expect(try String(contentsOf: url, encoding: .utf8) == "old\n")
  }

  @Test func readsLinesAndNotesAMissingFinalNewline() throws {
    let url = try folder.write("a\nb", to: "f.txt")
    let contents = try TextFileSystem().read(url)
    #expect(contents.lines == ["a", "b"])
    #expect(contents.lacksFinalNewline)
    #expect(contents.byteCount == 3)
    let empty = try folder.write("", to: "empty.txt")
    #expect(try TextFileSystem().read(empty).lines == [])
  }

  @Test func fingerprintNoticesSameSizeChanges() {
    #expect(FileFingerprint(of: Array("abc".utf8)) != FileFingerprint(of: Array("abd".utf8)))
    #expect(FileFingerprint(of: Array("abc".utf8)) == FileFingerprint(of: Array("abc".utf8)))
  }
}

@Suite("Tab completion")
final class CompletionTests {
  let folder: TemporaryFolder
  init() throws {
    folder = try TemporaryFolder(prefix: "quire-complete")
    try folder.write("x", to: "notes.md")
    try folder.write("x", to: "novel.txt")
    try FileManager.default.createDirectory(at: folder.file("notebooks"), withIntermediateDirectories: true)
  }
  deinit { folder.remove() }

  var completion: Completion {
    Completion(
      commands: REPLWordCommand.names.sorted(), documents: ["notes.md", "todo.txt"],
      templates: ["blank-note.md", "readme.md"], currentFolder: folder.url.path)
  }

  @Test func commands() {
    #expect(completion.candidates(forLineBefore: "sa") == ["save"])
    #expect(completion.candidates(forLineBefore: "re") == ["recover", "redo", "restore", "revert"])
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
final class HistoryFileTests {
  let folder: TemporaryFolder
  init() throws { folder = try TemporaryFolder(prefix: "quire-history") }
  deinit { folder.remove() }

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
