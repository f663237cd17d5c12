import Foundation
import Quire
import QuireSystem
import QuireTestSupport
import Testing

@testable import QuireCLI

@MainActor
@Suite("REPL session")
final class REPLSessionTests: MainActorFolderSuite {
  /// The file most tests edit: three lines.
  var file: URL { folder.file("t.txt") }

  init() throws {
    try super.init()
    try folder.write("one\ntwo\nthree\n", to: "t.txt")
  }

  @Test func uTogglesTheLastChangeAsEdDoes() async throws {
    // ed's u undoes the last change; u again redoes it, and the current line goes back to
    // where the first u found it.
    let (session, transcript) = makeSession(["1d", "2d", "u", ".=", ",p", "u", ".=", ",p", "u", "u", "w", "q"], in: folder)
    #expect(await session.run(opening: [file.path]) == 0)
    let printed = transcript.output.filter { !$0.hasPrefix("opened") && !$0.hasPrefix("quire ") }
    #expect(printed == ["1", "two", "three", "1", "two", "4"])
    #expect(contents(file) == "two\n")
  }

  @Test func undoAndRedoWordsWalkTheHistory() async throws {
    let (session, transcript) = makeSession(["1d", "1d", "undo 2", ",p", "redo", ",p", "redo 5", ",p", "undo", "w", "q"], in: folder)
    #expect(await session.run(opening: [file.path]) == 0)
    let printed = transcript.output.filter { !$0.hasPrefix("opened") && !$0.hasPrefix("quire ") && !$0.hasPrefix("undid") && !$0.hasPrefix("redid") }
    #expect(printed == ["one", "two", "three", "two", "three", "three", "10"])
    #expect(contents(file) == "two\nthree\n")
    #expect(transcript.output.contains("undid 2 changes; 0 more level(s) of undo"))
    // redo 5 with one change left to redo redoes that one and says so.
    #expect(transcript.output.contains("redid 1 change; 0 more to redo"))
  }

  @Test func undoAndRedoTakeACountOfOneOrMore() async throws {
    let (session, transcript) = makeSession(["1d", "undo 0", "redo 0", "w", "q"], in: folder)
    #expect(await session.run(opening: [file.path]) == 0)
    #expect(transcript.refusals.count == 2, "\(transcript.output)")
    #expect(transcript.refusals.first?.contains("undo N takes a count of 1 or more") == true, "\(transcript.refusals)")
    #expect(transcript.refusals.last?.contains("redo N takes a count of 1 or more") == true, "\(transcript.refusals)")
    #expect(contents(file) == "two\nthree\n")
  }

  @Test func quitWithUnsavedChangesAsksOnce() async throws {
    let (session, transcript) = makeSession(["1d", "q", "2p", "q", "q"], in: folder)
    #expect(await session.run(opening: [file.path]) == 0)
    let warnings = transcript.output.filter { $0.hasPrefix("? unsaved changes in 't.txt'") }
    // The 2p between resets the warning, so the first q after it asks again.
    #expect(warnings.count == 2)
    #expect(contents(file) == "one\ntwo\nthree\n")
  }

  @Test func endOfInputWithUnsavedChangesAsksFirst() async throws {
    let (session, transcript) = makeSession(["1d"], in: folder)
    #expect(await session.run(opening: [file.path]) == 0)
    #expect(transcript.output.contains { $0.hasPrefix("? unsaved changes in 't.txt': Ctrl-D again quits") })
  }

  @Test func promptShowsDocumentAndUnsavedMarker() async throws {
    let (session, _) = makeSession([], in: folder)
    #expect(session.prompt == "quire> ")
    try await session.open(file.path)
    #expect(session.prompt == "t.txt> ")
    _ = try await session.handle("1d")
    #expect(session.prompt == "t.txt*> ")
  }

  @Test func writeRefusesToOverwriteAChangeOnDisk() async throws {
    let (session, _) = makeSession([], in: folder)
    try await session.open(file.path)
    _ = try await session.handle("1d")
    try "someone else's save\n".write(to: file, atomically: true, encoding: .utf8)
    await #expect(throws: EdError.self) { try await session.handle("w") }
    do {
      _ = try await session.handle("w")
    } catch let error as EdError {
      #expect(error.message.hasPrefix("conflict: 't.txt' was changed on disk"))
    }
    #expect(contents(file) == "someone else's save\n")
    _ = try await session.handle("keep")
    _ = try await session.handle("w")
    #expect(contents(file) == "two\nthree\n")
  }

  @Test func mergeCombinesEditsThatDoNotOverlapAndMarksThoseThatDo() async throws {
    let (session, transcript) = makeSession([], in: folder)
    let long = try folder.write("a\nb\nc\nd\ne\nf\ng\nh\n", to: "m.txt")
    try await session.open(long.path)
    _ = try await session.handle("1s/a/A/")
    try "a\nb\nc\nd\ne\nf\ng\nH\n".write(to: long, atomically: true, encoding: .utf8)
    await #expect(throws: EdError.self) { try await session.handle("w") }
    _ = try await session.handle("merge")
    #expect(session.currentDocument?.buffer.allLines == ["A", "b", "c", "d", "e", "f", "g", "H"])
    #expect(transcript.output.last?.hasPrefix("merged the disk version of 'm.txt' with yours (8 lines)") == true)
    // Undo brings back yours alone; redo the merge, and w now saves without a conflict.
    _ = try await session.handle("u")
    #expect(session.currentDocument?.buffer.allLines.last == "h")
    _ = try await session.handle("redo")
    _ = try await session.handle("w")
    #expect(contents(long) == "A\nb\nc\nd\ne\nf\ng\nH\n")

    // Both change line 2: the merge keeps both between markers and says so.
    _ = try await session.handle("2s/b/mine/")
    try "A\ntheirs\nc\nd\ne\nf\ng\nH\n".write(to: long, atomically: true, encoding: .utf8)
    _ = try await session.handle("merge")
    let lines = session.currentDocument?.buffer.allLines ?? []
    #expect(
      lines.contains("mine") && lines.contains("theirs") && lines.contains("=======")
        && lines.contains { $0.hasPrefix("<<<<<<< ") } && lines.contains { $0.hasPrefix(">>>>>>> ") })
    #expect(transcript.output.last?.contains("1 conflict(s)") == true)
    #expect(contents(long) == "A\ntheirs\nc\nd\ne\nf\ng\nH\n", "merge does not write")
  }

  @Test func scriptWriteMergesEditsThatDoNotOverlapAndRefusesThoseThatDo() async throws {
    let (session, _) = makeSession([], in: folder, interactive: false)
    let long = try folder.write("a\nb\nc\nd\ne\nf\ng\nh\n", to: "s.txt")
    try await session.open(long.path)
    _ = try await session.handle("1s/a/A/")
    try "a\nb\nc\nd\ne\nf\ng\nH\n".write(to: long, atomically: true, encoding: .utf8)
    _ = try await session.handle("w")
    #expect(contents(long) == "A\nb\nc\nd\ne\nf\ng\nH\n")
    #expect(session.currentDocument?.isEdited == false)

    _ = try await session.handle("2s/b/mine/")
    try "A\ntheirs\nc\nd\ne\nf\ng\nH\n".write(to: long, atomically: true, encoding: .utf8)
    do {
      _ = try await session.handle("w")
      Issue.record("w should refuse overlapping changes")
    } catch let error as EdError {
      #expect(error.message.hasPrefix("conflict: 's.txt' was changed on disk"))
      #expect(error.message.contains("1 of its changes overlap yours; nothing written"))
    }
    #expect(contents(long) == "A\ntheirs\nc\nd\ne\nf\ng\nH\n")
    #expect(session.currentDocument?.buffer.line(at: 1) == "mine", "a refused merge leaves the buffer alone")
  }

  @Test func mergeWithoutAFileOrABaseFailsClearly() async throws {
    let (session, _) = makeSession([], in: folder)
    await #expect(throws: EdError.self) { try await session.handle("merge") }
    _ = try await session.handle("a")
    try await session.newDocument(path: nil, template: nil)
    do {
      try await session.mergeWithDiskVersion()
      Issue.record("merge of an untitled document should fail")
    } catch let error as EdError {
      #expect(error.message == "'untitled' has no file to merge with")
    }
    try await session.open(file.path)
    _ = try await session.handle("f \(folder.file("elsewhere.txt").path)")
    do {
      try await session.mergeWithDiskVersion()
      Issue.record("merge without a known base should fail")
    } catch let error as EdError {
      #expect(error.message.contains("does not know the version it last read or wrote"))
    }
  }

  @Test func cleanDocumentReloadsAndDirtyOneIsAnnounced() async throws {
    let (session, transcript) = makeSession([], in: folder)
    try await session.open(file.path)
    try "new text\n".write(to: file, atomically: true, encoding: .utf8)
    await session.announceDiskChanges()
    #expect(transcript.output.last?.contains("changed on disk; reloaded") == true)
    #expect(session.currentDocument?.buffer.allLines == ["new text"])
    // The document layer's reload of a clean document starts a new history (nothing unsaved
    // was lost); an edit makes it dirty for the next change on disk.
    _ = try await session.handle("1s/new/my/")
    try "third version\n".write(to: file, atomically: true, encoding: .utf8)
    await session.announceDiskChanges()
    #expect(transcript.output.last?.contains("has unsaved changes here") == true)
    let count = transcript.output.count
    await session.announceDiskChanges()
    #expect(transcript.output.count == count, "a change is announced once")
    _ = try await session.handle("revert")
    #expect(session.currentDocument?.buffer.allLines == ["third version"])
    #expect(session.currentDocument?.isEdited == false)
    _ = try await session.handle("u")
    #expect(session.currentDocument?.buffer.allLines == ["my text"], "u brings your version back after revert")
  }

  @Test func missingFileIsCreatedOnFirstSave() async throws {
    let target = folder.file("new.txt")
    let (session, _) = makeSession(["a", "hello", ".", "w", "q"], in: folder)
    #expect(await session.run(opening: [target.path]) == 0)
    #expect(contents(target) == "hello\n")
  }

  @Test func saveAsMakesTheNewFileTheDocuments() async throws {
    let (session, _) = makeSession([], in: folder)
    try await session.open(file.path)
    _ = try await session.handle("1d")
    _ = try await session.handle("save as \(folder.file("copy.txt").path)")
    #expect(contents(folder.file("copy.txt")) == "two\nthree\n")
    #expect(session.currentDocument?.fileURL?.lastPathComponent == "copy.txt")
    #expect(session.currentDocument?.isEdited == false)
    #expect(contents(file) == "one\ntwo\nthree\n")
  }

  @Test func newFromTemplate() async throws {
    try FileManager.default.createDirectory(at: folder.file("Templates"), withIntermediateDirectories: true)
    try folder.write("# Title\n\nBody\n", to: "Templates/blank-note.md")
    try folder.write("{\"blank-note.md\": \"An empty note.\"}", to: "Templates/templates.json")
    let target = folder.file("note.md")
    let (session, transcript) = makeSession(["new --template blank-note \(target.path)", "outline", "w", "docs", "q"], in: folder)
    #expect(await session.run(opening: []) == 0)
    #expect(contents(target) == "# Title\n\nBody\n")
    #expect(transcript.output.contains("    1  Title"))
    #expect(transcript.output.contains { $0.hasPrefix("* 1  note.md  3 lines  saved") })
  }

  @Test func docsAndSwitch() async throws {
    let other = try folder.write("x\n", to: "other.txt")
    let (session, transcript) = makeSession([], in: folder)
    try await session.open(file.path)
    try await session.open(other.path)
    _ = try await session.handle("switch t.txt")
    #expect(session.currentDocument?.displayName == "t.txt")
    _ = try await session.handle("2d")
    _ = try await session.handle("docs")
    #expect(
      transcript.output.suffix(2) == [
        "* 1  t.txt  2 lines  unsaved changes, autosave: off",
        "  2  other.txt  1 line  saved, autosave: off",
      ])
    _ = try await session.handle("switch 2")
    #expect(session.currentDocument?.displayName == "other.txt")
  }

  @Test func closeAsksWhenUnsaved() async throws {
    let (session, _) = makeSession([], in: folder)
    try await session.open(file.path)
    _ = try await session.handle("1d")
    await #expect(throws: EdError.self) { try await session.handle("close") }
    _ = try await session.handle("close")
    #expect(session.documents.isEmpty)
  }

  // MARK: Autosave and recovery

  private var store: RecoveryStore { RecoveryStore(folder: folder.file(".state/quire/recovery")) }

  @Test func autosaveWritesARecoveryFileAndSavingRemovesIt() async throws {
    // The REPL's documents autosave on their own timer (the document layer's, tested in
    // QuireDocumentsTests); here each autosave is asked for at once, so the test does not
    // depend on when this process lets the main actor run a timer.
    let autosave = AutosaveSettings(store: store, policy: .init(idleDelay: .seconds(600), maximumInterval: .seconds(600)))
    let (session, _) = makeSession([], in: folder, autosave: autosave)
    try await session.open(file.path)
    let document = try session.requireDocument()
    let text = try #require(document.textDocument)
    #expect(text.recoveryStore == store && text.autosavePolicy == autosave.policy)
    _ = try await session.handle("2s/two/TWO/")
    #expect(session.state(of: document) == "unsaved changes, autosave pending")
    try await text.autosave()
    let written = try #require(store.recoveredVersion(for: file), "autosave wrote no recovery file")
    #expect(contents(written.url) == "one\nTWO\nthree\n")
    #expect(session.state(of: document).contains("autosaved "))
    var info = stat()
    #expect(lstat(written.url.path, &info) == 0 && info.st_mode & 0o777 == 0o600)
    // Undo back to the saved state drops it; a new edit brings one back, and a write drops it.
    _ = try await session.handle("u")
    try await text.autosave()
    #expect(store.recoveredVersion(for: file) == nil)
    _ = try await session.handle("1d")
    try await text.autosave()
    #expect(store.recoveredVersion(for: file) != nil)
    _ = try await session.handle("w")
    #expect(store.recoveredVersion(for: file) == nil)
    #expect(contents(file) == "two\nthree\n")
    #expect(session.state(of: document).contains("nothing to autosave"))
  }

  @Test func quittingDropsTheAutosaveAndEndOfInputKeepsIt() async throws {
    let autosave = AutosaveSettings(store: store, policy: .init(idleDelay: .seconds(60), maximumInterval: .seconds(60)))
    let (quitting, _) = makeSession(["2d", "q", "q"], in: folder, autosave: autosave)
    #expect(await quitting.run(opening: [file.path]) == 0)
    #expect(store.recoveredVersion(for: file) == nil, "q twice discards the edits and their autosave")

    // Input that ends (a terminal that went away) writes the pending autosave at once.
    let (ending, _) = makeSession(["2d"], in: folder, autosave: autosave)
    #expect(await ending.run(opening: [file.path]) == 0)
    let version = try #require(store.recoveredVersion(for: file))
    #expect(contents(version.url) == "one\nthree\n")
    #expect(contents(file) == "one\ntwo\nthree\n")
  }

  @Test func recoveredEditsAreOfferedRestoredAndUndoable() async throws {
    try store.write(Data("one\nrecovered\n".utf8), for: file)
    let autosave = AutosaveSettings(store: store, policy: .init(idleDelay: .seconds(60), maximumInterval: .seconds(60)))
    let (session, transcript) = makeSession(["docs", "recover", ",p", "u", ",p", "redo", "w", "recover", "q"], in: folder, autosave: autosave)
    #expect(await session.run(opening: [file.path]) == 0)
    #expect(
      transcript.output.contains { $0.hasPrefix("'t.txt' has autosaved edits from ") && $0.hasSuffix("'recover' restores them, 'recover discard' drops them") })
    #expect(transcript.output.contains { $0.contains("t.txt") && $0.contains("to recover ('recover')") })
    let printed = transcript.output.filter { ["one", "two", "three", "recovered"].contains($0) }
    #expect(printed == ["one", "recovered", "one", "two", "three"])
    #expect(transcript.output.contains("? 't.txt' has no autosaved edits to recover"))
    #expect(contents(file) == "one\nrecovered\n")
    #expect(store.recoveredVersion(for: file) == nil)
  }

  @Test func recoverDiscardDropsTheAutosavedEdits() async throws {
    try store.write(Data("other\n".utf8), for: file)
    let autosave = AutosaveSettings(store: store, policy: .init(idleDelay: .seconds(60), maximumInterval: .seconds(60)))
    let (session, transcript) = makeSession(["recover later", "recover discard", "recover", "q"], in: folder, autosave: autosave)
    #expect(await session.run(opening: [file.path]) == 0)
    #expect(transcript.output.contains("? write 'recover' or 'recover discard', not 'recover later'"))
    #expect(transcript.output.contains("dropped the autosaved edits of 't.txt'"))
    #expect(transcript.output.contains("? 't.txt' has no autosaved edits to recover"))
    #expect(store.recoveredVersion(for: file) == nil)
    #expect(contents(file) == "one\ntwo\nthree\n")
  }

  @Test func anAutosaveThatMatchesTheFileIsNotOfferedAndABadOneIsLeftAlone() async throws {
    try store.write(Data("one\ntwo\nthree\n".utf8), for: file)
    let autosave = AutosaveSettings(store: store, policy: .init(idleDelay: .seconds(60), maximumInterval: .seconds(60)))
    let (session, transcript) = makeSession([], in: folder, autosave: autosave)
    try await session.open(file.path)
    #expect(!transcript.output.contains { $0.contains("autosaved edits") })
    #expect(store.recoveredVersion(for: file) == nil)

    // A recovery file that is not text is reported, kept, and not offered.
    let other = try folder.write("a\n", to: "u.txt")
    try store.write(Data([0x66, 0x00, 0xff, 0x0a]), for: other)
    try await session.open(other.path)
    #expect(transcript.output.contains { $0.contains("autosaved edits of 'u.txt'") && $0.contains("cannot be read") })
    #expect(store.recoveredVersion(for: other) != nil)
    await #expect(throws: EdError.self) { try await session.recover(discarding: false) }
  }

  @Test func previewWritesAnHTMLPage() async throws {
    let markdown = try folder.write("# Hi\n\n<script>x</script>\n", to: "n.md")
    let (session, transcript) = makeSession([], in: folder)
    try await session.open(markdown.path)
    _ = try await session.handle("preview")
    let path = try #require(transcript.output.last?.replacingOccurrences(of: "preview: ", with: ""))
    let html = try String(contentsOfFile: path, encoding: .utf8)
    #expect(html.contains("<h1>Hi</h1>"))
    #expect(!html.contains("<script>x"))
  }

  @Test func helpListsEveryCommandOnOneLineEach() async throws {
    let (session, transcript) = makeSession([], in: folder)
    _ = try await session.handle("help")
    let text = transcript.output
    for word in REPLWordCommand.names {
      #expect(text.contains { $0.hasPrefix("  \(word)") }, "help does not list \(word)")
    }
    for letter in [
      "a", "i", "c", "d", "j", "m", "t", "p", "n", "l", "=", "s/", "g/", "v/", "G/", "V/", "k", "w", "W", "r", "e", "f", "u", "q", "h", "P",
      "y", "x", "z", "!", "#",
    ] {
      #expect(
        text.contains {
          $0.hasPrefix("  ") && $0.dropFirst(2).split(separator: " ").first.map { $0.drop { "(.,$+1)".contains($0) }.hasPrefix(letter) } == true
        }, "help does not list \(letter)")
    }
    #expect(text.contains("Differences from GNU ed 1.19:"), "help says which behaviours differ from ed")
    #expect(text.contains { $0.contains("u again redoes it") }, "help says u is ed's")
    #expect(text.allSatisfy { !$0.contains("\n") })
    _ = try await session.handle("help save")
    #expect(transcript.output.contains { $0.hasPrefix("save ") })
  }

  @Test func wordCommandUsageErrorsAreOneLine() async throws {
    let (session, transcript) = makeSession(["switch", "open", "new --nope", "=", "q"], in: folder)
    #expect(await session.run(opening: []) == 0)
    let errors = transcript.refusals
    #expect(errors.count == 3)
    #expect(transcript.output.contains("0"))
  }

  @Test func interruptCancelsALongCommand() async throws {
    let (session, _) = makeSession([], in: folder)
    try await session.open(file.path)
    session.configuration.interrupt.raise()
    await #expect(throws: EdError.interrupted) { try await session.handle("g/./d") }
    session.configuration.interrupt.clear()
    #expect(session.currentDocument?.buffer.allLines == ["one", "two", "three"])
  }
}

/// Bad input: one clear line each; an interactive session goes on, a script stops naming the line.
@MainActor
@Suite("REPL bad input")
final class REPLBadInputTests: MainActorFolderSuite {
  enum BadInput: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case unknownCommand, badAddress, badRegex, binaryFile, invalidUTF8, folder, unreadable, missingForRead, emptyCommandWord
    var testDescription: String { rawValue }
  }

  init() throws {
    try super.init()
    try folder.write("one\ntwo\n", to: "t.txt")
    try Data([0x50, 0x4b, 0x03, 0x04, 0x00, 0x00, 0xff]).write(to: folder.file("binary.dat"))
    try Data([0x61, 0xff, 0xfe, 0x0a]).write(to: folder.file("latin1.txt"))
    try folder.write("secret\n", to: "locked.txt")
    try FileManager.default.createDirectory(at: folder.file("sub"), withIntermediateDirectories: true)
  }

  func command(_ input: BadInput) -> String {
    switch input {
    case .unknownCommand: return "X"
    case .badAddress: return "40p"
    case .badRegex: return "s/\\(/x/"
    case .binaryFile: return "open \(folder.file("binary.dat").path)"
    case .invalidUTF8: return "open \(folder.file("latin1.txt").path)"
    case .folder: return "open \(folder.file("sub").path)"
    case .unreadable: return "open \(folder.file("locked.txt").path)"
    case .missingForRead: return "r \(folder.file("missing.txt").path)"
    case .emptyCommandWord: return "save as"
    }
  }

  /// Runs `session` with `locked.txt` failing to open with EACCES through the system layer's
  /// fault plan (CI runs as root, where `chmod 000` does not stop a read).
  func run(_ session: REPLSession, opening files: [String] = []) async -> Int32 {
    await FaultPlan(failing: .open, with: .permissionDenied, occurrence: nil, under: folder.file("locked.txt").path).run {
      await session.run(opening: files)
    }
  }

  @Test(arguments: BadInput.allCases)
  func interactiveSessionPrintsOneLineAndGoesOn(_ input: BadInput) async throws {
    let (session, transcript) = makeSession(
      ["open \(folder.file("t.txt").path)", command(input), "=", "q"], in: folder)
    #expect(await run(session) == 0)
    let errors = transcript.refusals
    #expect(errors.count == 1, "\(transcript.output)")
    #expect(transcript.output.last == "2", "the session went on to run '='")
    #expect(try String(contentsOf: folder.file("t.txt"), encoding: .utf8) == "one\ntwo\n")
  }

  @Test(arguments: BadInput.allCases)
  func scriptStopsNamingTheLine(_ input: BadInput) async throws {
    let (session, transcript) = makeSession(
      ["open \(folder.file("t.txt").path)", "1p", command(input), "2p"], in: folder, interactive: false)
    #expect(await run(session) == 1)
    #expect(transcript.output == ["one"])
    #expect(transcript.errors.count == 1)
    #expect(transcript.errors.first?.hasPrefix("quire: line 3: ") == true, "\(transcript.errors)")
  }

  @Test func messagesNameTheProblem() async throws {
    let (session, transcript) = makeSession(
      BadInput.allCases.map(command) + ["q"], in: folder)
    _ = await run(session, opening: [folder.file("t.txt").path])
    let errors = transcript.refusals
    #expect(
      errors == [
        "? unknown command 'X'; type 'help' for the list",
        "? invalid address: line 40 is past the end (2 lines)",
        "? invalid regular expression '\\(': unmatched ( or \\(",
        "? Cannot open 'binary.dat': it holds a NUL byte at offset 4, so it is binary data, not text. It is refused for editing, so it is never rewritten; open it with a program for its type.",
        "? Cannot open 'latin1.txt': it is not valid UTF-8 text (byte 1 breaks the encoding). It is refused for editing, so it is never rewritten; open it with a program for its type.",
        "? Cannot open 'sub': it is a folder. Open a file instead.",
        "? Cannot open 'locked.txt': permission was denied. Check the file's permissions.",
        "? Cannot open 'missing.txt': it does not exist. Check the path.",
        "? write 'save' or 'save as PATH'",
      ])
  }

  @Test func startingOnABadFileInScriptModeFails() async throws {
    let (session, transcript) = makeSession(["1p"], in: folder, interactive: false)
    #expect(await run(session, opening: [folder.file("binary.dat").path]) == 1)
    #expect(transcript.errors.count == 1)
  }

  @Test(.enabled(if: !isRunningAsRoot, "running as root, where chmod 000 does not stop a read; the syscall seam covers EACCES"))
  func realPermissionDenied() async throws {
    let locked = try folder.write("x\n", to: "real-locked.txt")
    chmod(locked.path, 0)
    let (session, transcript) = makeSession(["open \(locked.path)", "q"], in: folder)
    _ = await session.run(opening: [])
    #expect(transcript.output.contains { $0.contains("permission denied") })
  }
}
