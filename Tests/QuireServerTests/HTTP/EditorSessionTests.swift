import Foundation
import QuireTestSupport
import Testing

/// Issue 29, findings 1 and 6: the page's editor keeps unsaved work (close and stop leave it in
/// recovery, offered at the next open) and keys open documents by the file, not by the
/// reference string. Driven with curl against the real `quire serve`.
@Suite("quire serve editor sessions", .serialized, .enabled(if: Programs.find("curl") != nil, "curl is not installed (scripts/setup installs it)"))
final class EditorSessionTests: ServedFolderTestCase {
  init() throws {
    try super.init(prefix: "quire-serve-editor", files: ["b.txt": "base text\n", "draft.txt": "saved line\n"])
    try FileManager.default.createSymbolicLink(atPath: served.appendingPathComponent("link.txt").path, withDestinationPath: "b.txt")
  }

  /// POSTs `/api/editor/COMMAND` with `body`; returns the status and the JSON object answered.
  func editor(_ command: String, _ body: [String: Any], _ page: SignedInPage) async throws -> (status: Int, state: [String: Any]) {
    let answer = try await post("/api/editor/\(command)", body, as: page)
    return (answer.status, answer.reply)
  }

  var recoveryFolder: URL { home.root.appendingPathComponent("state/quire/recovery") }

  /// The recovery files' contents (the `.recovery` data files).
  func recoveryContents() -> [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: recoveryFolder.path)) ?? []
    return names.filter { $0.hasSuffix(".recovery") }.compactMap { try? String(contentsOf: recoveryFolder.appendingPathComponent($0), encoding: .utf8) }
  }

  @Test func everyReferenceToOneFileIsOneDocumentAndAMovedDocumentIsNotFoundAtItsOldName() async throws {
    let server = try await ServeProcess.start(serving: [served], home: home, in: folder.url)
    defer { server.stop() }
    let page = try await signIn(server)

    let opened = try await editor("open", ["doc": "0/b.txt"], page)
    #expect(opened.status == 200, "\(opened.state)")
    let id = try #require(opened.state["id"] as? String)
    let again = try await editor("open", ["doc": "00/b.txt"], page)
    #expect(again.state["id"] as? String == id, "00/b.txt opened another entry: \(again.state)")
    // A symbolic link, even one to a file in the folder, is refused by the server's one opener
    // (issue 29, finding 3): it never becomes a second entry for the file.
    let link = try await editor("open", ["doc": "0/link.txt"], page)
    #expect(link.status >= 400 && link.state["id"] == nil, "the link was opened: \(link.status) \(link.state)")
    // One version for all the names: the second edit against the first one's version is stale.
    let edited = try await editor("edit", ["doc": id, "text": "edited text\n", "revision": 0], page)
    #expect(edited.status == 200 && edited.state["revision"] as? Int == 1, "\(edited.state)")
    let stale = try await editor("edit", ["doc": id, "text": "stale text\n", "revision": 0], page)
    #expect(stale.status == 409, "a stale edit was accepted: \(stale.state)")

    // Moved by another program: the document follows; a new file at the old name is another one.
    try FileManager.default.moveItem(at: served.appendingPathComponent("b.txt"), to: served.appendingPathComponent("c.txt"))
    let followed = await eventually(timeout: .seconds(60), every: .milliseconds(100)) {
      (try? await self.editor("state", ["doc": id], page))?.state["doc"] as? String == "0/c.txt"
    }
    #expect(followed, "the editor did not follow the move")
    try Data("a new file\n".utf8).write(to: served.appendingPathComponent("b.txt"))
    let newFile = try await editor("open", ["doc": "0/b.txt"], page)
    #expect(newFile.state["id"] as? String != id, "the old name opened the moved document")
    #expect(newFile.state["text"] as? String == "a new file\n")
    let saved = try await editor("save", ["doc": id], page)
    #expect(saved.status == 200 && saved.state["event"] as? String == "saved", "\(saved.state)")
    #expect(try String(contentsOf: served.appendingPathComponent("c.txt"), encoding: .utf8) == "edited text\n")
    #expect(try String(contentsOf: served.appendingPathComponent("b.txt"), encoding: .utf8) == "a new file\n", "the save wrote to the new file")
  }

  @Test func closingOrStoppingTheServerKeepsUnsavedEditsForTheNextOpen() async throws {
    let server = try await ServeProcess.start(serving: [served], home: home, in: folder.url)
    let page = try await signIn(server)
    let opened = try await editor("open", ["doc": "0/draft.txt"], page)
    let id = try #require(opened.state["id"] as? String)
    #expect(opened.state["recovered"] == nil)
    _ = try await editor("edit", ["doc": id, "text": "saved line\ntyped, not saved\n", "revision": 0], page)
    // The autosave writes the recovery file after a few idle seconds.
    try await waitFor("the autosave", limit: .seconds(90)) { self.recoveryContents() == ["saved line\ntyped, not saved\n"] }
    // Closing the editor (Escape) keeps it.
    let closed = try await editor("close", ["doc": id], page)
    #expect(closed.status == 200)
    #expect(recoveryContents() == ["saved line\ntyped, not saved\n"], "closing the editor threw the typing away")
    #expect(try String(contentsOf: served.appendingPathComponent("draft.txt"), encoding: .utf8) == "saved line\n")
    // The next open offers it, and restoring brings it back.
    let reopened = try await editor("open", ["doc": "0/draft.txt"], page)
    #expect(reopened.state["recovered"] is String, "the next open does not offer the kept edits: \(reopened.state)")
    let reopenedID = try #require(reopened.state["id"] as? String)
    let restored = try await editor("recover", ["doc": reopenedID, "choice": "restore"], page)
    #expect(restored.state["text"] as? String == "saved line\ntyped, not saved\n")
    let revision = try #require(restored.state["revision"] as? Int)
    // Typing more, then SIGTERM at once (no time for an autosave): the stop keeps it.
    _ = try await editor("edit", ["doc": reopenedID, "text": "saved line\ntyped, not saved\nand more\n", "revision": revision], page)
    server.server.kill(SIGTERM)
    _ = server.server.child.wait()
    #expect(recoveryContents() == ["saved line\ntyped, not saved\nand more\n"], "stopping the server threw the typing away")
    #expect(try String(contentsOf: served.appendingPathComponent("draft.txt"), encoding: .utf8) == "saved line\n")

    let restarted = try await ServeProcess.start(serving: [served], home: home, in: folder.url)
    defer { restarted.stop() }
    let again = try await editor("open", ["doc": "0/draft.txt"], try await signIn(restarted))
    #expect(again.state["recovered"] is String, "after a restart the kept edits are not offered: \(again.state)")
  }
}
