import Foundation
import Quire
import QuireTestSupport
import Testing

@testable import QuireCLI

/// The REPL's transfer, PDF and version words.
@MainActor
@Suite("REPL transfer, PDF and version words")
final class REPLWordsTests: MainActorFolderSuite {
  var pasteboards: URL { folder.file("runtime") }

  /// A session whose pasteboards and versions live in this test's folder.
  private func session(_ lines: [String], interactive: Bool = false) -> (REPLSession, Transcript) {
    let (session, transcript) = makeSession(lines, in: folder, interactive: interactive, versionStore: VersionStore(root: folder.file("versions")))
    REPLWordState.of(session).pasteboardRoot = pasteboards
    return (session, transcript)
  }

  /// Runs `copy` in a session on `source` and, once it has ended, `paste` then `w` in another
  /// session on `target`, expecting both to succeed; returns the target's text afterwards.
  private func copy(_ copy: String, from source: URL, thenPaste paste: String, into target: URL) async -> String? {
    let (first, copied) = session([copy, "q"])
    #expect(await first.run(opening: [source.path]) == 0, "\(copied.errors)")
    let (second, pasted) = session([paste, "w", "q"])
    #expect(await second.run(opening: [target.path]) == 0, "\(pasted.errors)")
    return contents(target)
  }

  // MARK: Copy, cut, paste

  @Test func copyInOneSessionPastesInAnother() async throws {
    let source = try folder.write("# Title\nsome *words*\nthird\n", to: "a.md")
    let target = try folder.write("x\n", to: "b.md")
    // Markdown into Markdown keeps the Markdown.
    #expect(await copy("copy 1,2", from: source, thenPaste: "paste 0", into: target) == "# Title\nsome *words*\nx\n")
    #expect(contents(source) == "# Title\nsome *words*\nthird\n")
  }

  @Test func markdownPastedIntoPlainTextTakesThePlainText() async throws {
    let source = try folder.write("# Title\nsome *words*\n", to: "a.md")
    let target = try folder.write("x\n", to: "b.txt")
    let text = try #require(await copy("copy ,", from: source, thenPaste: "paste", into: target))
    #expect(text.hasPrefix("x\nTitle\n"))
    #expect(text.contains("some words"))
    #expect(!text.contains("#") && !text.contains("*"))
  }

  @Test func pasteWithATypeTakesThatRepresentation() async throws {
    let source = try folder.write("some *words*\n", to: "a.md")
    let target = try folder.write("x\n", to: "b.md")
    #expect(await copy("copy", from: source, thenPaste: "paste --type public.html", into: target)?.contains("<em>words</em>") == true)
  }

  @Test func aTypeTheDocumentCannotTakeIsRefusedWithTheReason() async throws {
    let board = try Pasteboard(name: Pasteboard.generalName, rootFolder: pasteboards)
    let provider = ItemProvider(suggestedName: "picture")
    provider.registerDataRepresentation(for: .png) { Data([0x89, 0x50, 0x4E, 0x47]) }
    try board.setItemProviders([provider])
    let target = try folder.write("x\n", to: "b.txt")
    let (second, transcript) = session(["paste", "paste --type public.png", "w", "q"], interactive: true)
    #expect(await second.run(opening: [target.path]) == 0)
    let refusals = transcript.refusals
    #expect(refusals.count == 2)
    #expect(refusals.first?.contains("Cannot paste into 'b.txt'") == true)
    #expect(refusals.first?.contains("public.png") == true)
    #expect(refusals.last?.contains("text types only") == true)
    #expect(contents(target) == "x\n")
  }

  @Test func cutDeletesAndUndoBringsTheLinesBack() async throws {
    let file = try folder.write("one\ntwo\nthree\n", to: "t.txt")
    let (session, transcript) = session(["cut 2", ",p", "u", "paste $", "w", "q"])
    #expect(await session.run(opening: [file.path]) == 0, "\(transcript.errors)")
    #expect(transcript.output.prefix(2) == ["one", "three"])
    #expect(contents(file) == "one\ntwo\nthree\ntwo\n")
  }

  @Test func pasteIsOneUndoableEdit() async throws {
    let file = try folder.write("one\ntwo\n", to: "t.txt")
    let (session, transcript) = session(["copy ,", "paste", "paste 0", "u", "w", "q"])
    #expect(await session.run(opening: [file.path]) == 0, "\(transcript.errors)")
    #expect(contents(file) == "one\ntwo\none\ntwo\n")
  }

  @Test func copyInOneQuireProcessPastesInAnother() async throws {
    let runtime = folder.file("xdg-runtime")
    try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    let environment = ["XDG_RUNTIME_DIR": runtime.path]
    let source = try folder.write("# Title\nsome *words*\n", to: "a.md")
    let target = try folder.write("x\n", to: "b.txt")
    let first = try await ProcessRunner.runQuire([source.path], in: folder.url, input: "copy 1,2\nq\n", environment: environment)
    #expect(first.status == 0, "\(first.error)")
    // The first process has ended: its lines were written into the pasteboard as it left.
    let second = try await ProcessRunner.runQuire([target.path], in: folder.url, input: "paste 0\nw\nq\n", environment: environment)
    #expect(second.status == 0, "\(second.error)")
    let text = try #require(contents(target))
    #expect(text.hasPrefix("Title\n") && text.contains("some words") && text.hasSuffix("\nx\n"), "\(text)")
    #expect(!text.contains("#") && !text.contains("*"))
  }

  // MARK: Drag and drop

  @Test func dropCopiesIntoAnotherDocument() async throws {
    let a = try folder.write("a1\na2\na3\n", to: "a.txt")
    let b = try folder.write("b1\n", to: "b.txt")
    let (session, transcript) = session(["switch a.txt", "drag 1,2", "switch b.txt", "drop 0", "w", "switch a.txt", "w", "q"])
    #expect(await session.run(opening: [a.path, b.path]) == 0, "\(transcript.errors)")
    #expect(contents(b) == "a1\na2\nb1\n")
    #expect(contents(a) == "a1\na2\na3\n")
  }

  @Test func dropMoveDeletesFromTheSourceUndoablyThere() async throws {
    let a = try folder.write("a1\na2\na3\n", to: "a.txt")
    let b = try folder.write("b1\n", to: "b.txt")
    let (session, transcript) = session([
      "switch a.txt", "drag 2,3", "switch b.txt", "drop --move", "w", "switch a.txt", ",p", "u", "w", "q",
    ])
    #expect(await session.run(opening: [a.path, b.path]) == 0, "\(transcript.errors)")
    #expect(contents(b) == "b1\na2\na3\n")
    #expect(transcript.output == ["a1"])
    // u in the source document brought its lines back.
    #expect(contents(a) == "a1\na2\na3\n")
  }

  @Test func dropMoveWithinOneDocumentIsOneEdit() async throws {
    let a = try folder.write("1\n2\n3\n4\n", to: "a.txt")
    let (session, transcript) = session(["drag 1", "drop $ --move", "w", ",p", "u", ",p", "Q"])
    #expect(await session.run(opening: [a.path]) == 0, "\(transcript.errors)")
    #expect(contents(a) == "2\n3\n4\n1\n")
    #expect(transcript.output.suffix(8) == ["2", "3", "4", "1", "1", "2", "3", "4"])
  }

  // MARK: PDF

  @Test func pageOperationsAreSavedAndReopenInOrder() async throws {
    let pdf = try writePDF(to: folder.file("doc.pdf"), pages: ["Otters page", "Herons page", "Cranes page"])
    let extra = try writePDF(to: folder.file("extra.pdf"), pages: ["Extra page"])
    let (session, transcript) = session([
      "open \(pdf.path)", "delete-page 1", "move-page 2 1", "rotate 1 90", "insert-pages \(extra.path) 0",
      "u", "redo", "pages", "page 2", "w", "q",
    ])
    #expect(await session.run(opening: []) == 0, "\(transcript.errors)")
    #expect(transcript.output.first == "doc.pdf: 3 pages (unsaved changes)")
    #expect(transcript.output.contains { $0.contains("Cranes page") })
    let reopened = try PDFDocument(contentsOf: pdf)
    #expect(reopened.pageCount == 3)
    let texts = try (0..<3).map { try reopened.text(ofPage: $0) }
    #expect(texts[0].contains("Extra"))
    #expect(texts[1].contains("Cranes"))
    #expect(texts[2].contains("Herons"))
    #expect(try reopened.rotation(ofPage: 1) == 90)
    #expect(try reopened.rotation(ofPage: 0) == 0)
  }

  @Test func undoneDeletionIsNotSaved() async throws {
    let pdf = try writePDF(to: folder.file("doc.pdf"), pages: ["One", "Two"])
    let copy = folder.file("copy.pdf")
    let (session, transcript) = session(["pages \(pdf.path)", "delete-page 1-2", "delete-page 2", "undo", "w \(copy.path)", "q"], interactive: true)
    #expect(await session.run(opening: []) == 0)
    // Removing every page is refused; the second deletion is undone before saving.
    #expect(transcript.refusals.count == 1)
    #expect(transcript.refusals.first?.contains("at least one page") == true)
    #expect(try PDFDocument(contentsOf: copy).pageCount == 2)
  }

  // MARK: Versions

  @Test func restorePutsAVersionInTheBufferUndoably() async throws {
    let file = try folder.write("first\n", to: "v.txt")
    let store = VersionStore(root: folder.file("versions"))
    try store.keepVersion(of: file)
    try "second\n".write(to: file, atomically: true, encoding: .utf8)
    try store.keepVersion(of: file)
    try "third\n".write(to: file, atomically: true, encoding: .utf8)
    let (session, transcript) = session(["versions", "restore 1", ",p", "u", ",p", "restore 2", "w", "q"])
    #expect(await session.run(opening: [file.path]) == 0, "\(transcript.errors)")
    #expect(transcript.output.count == 4)
    #expect(transcript.output.prefix(2).allSatisfy { $0.contains("saved ") && $0.contains("bytes") })
    #expect(transcript.output.suffix(2) == ["first", "third"])
    #expect(contents(file) == "second\n")
  }

  // MARK: Bad input

  @Test func badInputGivesOneClearLineEach() async throws {
    let file = try folder.write("one\ntwo\nthree\n", to: "t.txt")
    let pdf = try writePDF(to: folder.file("doc.pdf"), pages: ["One"])
    let commands = [
      "copy 5", "cut 3,1", "copy x", "paste 9", "drop", "page 1", "pdf \(folder.file("missing.pdf").path)",
      "pdf \(file.path)", "pdf \(pdf.path)", "page 9", "delete-page 1-x", "rotate 1 45", "move-page 1 2",
      "insert-pages \(folder.file("missing.pdf").path)", "insert-pages \(file.path)", "restore 3", "u",
    ]
    let (session, transcript) = session(commands + ["Q"], interactive: true)
    #expect(await session.run(opening: [file.path]) == 0)
    let messages = transcript.refusals
    #expect(messages.count == commands.count - 1, "\(messages)")  // `pdf doc.pdf` succeeds
    let expected = [
      "past the end", "comes after", "invalid address 'x'", "past the end", "nothing is being dragged", "is not a PDF",
      "does not exist", "as a PDF", "there is no page 9", "not a page number", "multiple of 90", "there is no page 2",
      "does not exist", "t.txt", "no version '3'", "nothing to undo",
    ]
    for (message, fragment) in zip(messages, expected) {
      #expect(message.contains(fragment), "\(message) should say \(fragment)")
    }
    #expect(contents(file) == "one\ntwo\nthree\n")
  }
}
