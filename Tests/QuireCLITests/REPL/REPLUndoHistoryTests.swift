import Foundation
import QuireTestSupport
import Testing

/// Issue 31 through the real `quire`, as scripts on standard input: undo across sessions in
/// quire's own mode, an outside change as one undo step, bad stored histories, and GNU ed's
/// mode storing nothing.
@Suite("REPL undo history across sessions")
final class REPLUndoHistoryTests: FolderSuite, RunsQuire {
  var file: URL { folder.file("f.txt") }
  var undoFolder: URL { folder.file(".state/quire/undo") }
  var historyFiles: [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: undoFolder.path)) ?? []).filter { $0.hasSuffix(".undo") }
  }

  override init(prefix: String? = nil) throws {
    try super.init(prefix: prefix)
    _ = try folder.write("one\ntwo\n", to: "f.txt")
  }

  /// Runs one quire session on f.txt with `script`, expecting it to succeed.
  @discardableResult
  func session(_ script: String, arguments: [String] = ["f.txt"], sourceLocation: SourceLocation = #_sourceLocation) async throws -> ProcessResult {
    let result = try await quire(arguments, input: script)
    #expect(result.status == 0, "quire failed: \(result.error)", sourceLocation: sourceLocation)
    return result
  }

  var text: String { (try? String(contentsOf: file, encoding: .utf8)) ?? "" }

  @Test func aNewSessionUndoesTheLastSessionsSavedEdit() async throws {
    try await session("$a\nthree\n.\nw\nq\n")
    #expect(text == "one\ntwo\nthree\n")
    let result = try await session("u\nw\nq\n")
    #expect(text == "one\ntwo\n")
    #expect(result.error.isEmpty)
  }

  @Test func afterAnOutsideChangeTheFirstUndoRestoresWhatQuireSavedAndTheSecondGoesOn() async throws {
    try await session("1s/one/ONE/\nw\nq\n")
    try await session("$a\nthree\n.\nw\nq\n")
    // Another program appends to the file.
    let handle = try FileHandle(forWritingTo: file)
    try handle.seekToEnd()
    try handle.write(contentsOf: Data("from elsewhere\n".utf8))
    try handle.close()

    let result = try await session("u\n,p\nu\n,p\nredo 2\n,p\nundo 3\nw\nq\n")
    let printed = result.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    #expect(
      printed == [
        "ONE", "two", "three",  // the first u: what quire last saved
        "ONE", "two",  // the second u: into the older history
        "ONE", "two", "three", "from elsewhere",  // redo comes back to the disk's text
        "",
      ])
    #expect(text == "one\ntwo\n")
  }

  @Test func anUntitledSessionLeavesAFileNamedUntitledAndItsHistoryAlone() async throws {
    // A real Untitled.txt with a stored history: the name an untitled buffer suggests.
    _ = try folder.write("one\n", to: "Untitled.txt")
    try await session("$a\ntwo\n.\nw\nq\n", arguments: ["Untitled.txt"])
    let stored = try Dictionary(uniqueKeysWithValues: historyFiles.map { ($0, try Data(contentsOf: undoFolder.appendingPathComponent($0))) })
    #expect(stored.count == 1)
    // An untitled session: edited, undone, edited, written to another name.
    try await session("a\ndraft\n.\nu\na\nkept\n.\nw new.txt\nq\n", arguments: [])
    #expect(try String(contentsOf: folder.file("new.txt"), encoding: .utf8) == "kept\n")
    #expect(try String(contentsOf: folder.file("Untitled.txt"), encoding: .utf8) == "one\ntwo\n")
    for (name, bytes) in stored { #expect(try Data(contentsOf: undoFolder.appendingPathComponent(name)) == bytes, "\(name) changed") }
    let setAside = try FileManager.default.contentsOfDirectory(atPath: undoFolder.path).filter { $0.hasSuffix(".set-aside") }
    #expect(setAside.isEmpty)
    // Untitled.txt's next session still undoes its last edit.
    let result = try await session("u\n,p\nQ\n", arguments: ["Untitled.txt"])
    #expect(result.output == "one\n")
  }

  @Test func undoAndRedoWithACountWalkAStoredHistory() async throws {
    try await session("$a\nthree\n.\nw\n$a\nfour\n.\nw\nq\n")
    try await session("undo 2\nw\nq\n")
    #expect(text == "one\ntwo\n")
    try await session("redo 2\nw\nq\n")
    #expect(text == "one\ntwo\nthree\nfour\n")
  }

  @Test func forgetHistoryForgetsTheStoredHistory() async throws {
    try await session("$a\nthree\n.\nw\nq\n")
    #expect(historyFiles.count == 1)
    try await session("forget-history\nq\n")
    #expect(historyFiles.isEmpty)
    let result = try await quire(["f.txt"], input: "u\n")
    #expect(result.status != 0)
    #expect(result.error.contains("nothing to undo"))
  }

  @Test func gnuEdsModeStoresNothingAndItsUndoIsEds() async throws {
    try await session("$a\nthree\n.\nw\nq\n", arguments: ["-s", "f.txt"])
    #expect(text == "one\ntwo\nthree\n")
    #expect(historyFiles.isEmpty)
    let result = try await quire(["-s", "f.txt"], input: "u\nw\nq\n")
    #expect(result.status != 0, "ed has nothing to undo in a new session")
    #expect(text == "one\ntwo\nthree\n")
  }

  /// What a stored history can be that is not one to use.
  enum BadHistory: String, CaseIterable, Sendable {
    case truncated, randomBytes, symbolicLink, fifo, newerFormat
  }

  @Test(arguments: BadHistory.allCases)
  func aBadStoredHistoryWarnsOnceAndEditingGoesOn(_ bad: BadHistory) async throws {
    try await session("$a\nthree\n.\nw\nq\n")
    let name = try #require(historyFiles.first)
    let history = undoFolder.appendingPathComponent(name)
    let good = try Data(contentsOf: history)
    try FileManager.default.removeItem(at: history)
    switch bad {
    case .truncated: try good.prefix(good.count - 10).write(to: history)
    case .randomBytes: try Data((0..<good.count).map { _ in UInt8.random(in: 0...255) }).write(to: history)
    case .symbolicLink: try FileManager.default.createSymbolicLink(at: history, withDestinationURL: file)
    case .fifo: #expect(mkfifo(history.path, 0o600) == 0)
    case .newerFormat:
      var newer = good
      newer[8] = 2
      try newer.write(to: history)
    }
    try await expectWarningOnceThenEditing(bad.rawValue)
  }

  @Test(.enabled(if: isRunningAsRoot, "only root can give a file to another user"))
  func anotherUsersStoredHistoryWarnsOnceAndEditingGoesOn() async throws {
    try await session("$a\nthree\n.\nw\nq\n")
    let name = try #require(historyFiles.first)
    #expect(chown(undoFolder.appendingPathComponent(name).path, 1, 1) == 0)
    try await expectWarningOnceThenEditing("another user's")
  }

  func expectWarningOnceThenEditing(_ what: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    let result = try await session("$a\nfour\n.\nw\nq\n", sourceLocation: sourceLocation)
    let warnings = result.error.split(separator: "\n").filter { $0.contains("warning:") }
    #expect(warnings.count == 1, "\(what): \(result.error)", sourceLocation: sourceLocation)
    #expect(result.error.contains("undo history of 'f.txt' was not used"), sourceLocation: sourceLocation)
    #expect(text == "one\ntwo\nthree\nfour\n", sourceLocation: sourceLocation)
    // The next session has the fresh history, and no warning.
    let next = try await session("u\nw\nq\n", sourceLocation: sourceLocation)
    #expect(next.error.isEmpty, sourceLocation: sourceLocation)
    #expect(text == "one\ntwo\nthree\n", sourceLocation: sourceLocation)
  }
}
