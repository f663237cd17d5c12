import Foundation
import QuireCoordination
import QuireDocuments
import QuireTestSupport
import Synchronization
import Testing

/// A document in the test process that counts what reaches it as a file presenter.
final class CountingDocument: PlainTextDocument {
  var changeNotices = 0
  override func presentedItemDidChange() async {
    changeNotices += 1
    await super.presentedItemDidChange()
  }
}

/// A `quire-documents-test-helper open-document FILE` process: another program with the same
/// file open as a `Document`.
final class DocumentProcess: Sendable {
  let process: Process
  private let input: Pipe
  /// The lines printed so far (a class, so the reading thread can hold it before `init` ends).
  private final class Lines: Sendable {
    let all = Mutex<[String]>([])
  }
  private let lines = Lines()

  init?(_ file: URL) throws {
    guard let url = TestHelper.url else {
      print("note: quire-documents-test-helper is not built beside the tests; skipping")
      return nil
    }
    process = Process()
    process.executableURL = url
    process.arguments = ["open-document", file.path]
    let output = Pipe()
    input = Pipe()
    process.standardOutput = output
    process.standardInput = input
    process.standardError = FileHandle.nullDevice
    try process.run()
    let reader = output.fileHandleForReading
    let box = lines
    Thread.detachNewThread {
      var pending = Data()
      while true {
        let chunk = reader.availableData
        if chunk.isEmpty { break }
        pending += chunk
        while let end = pending.firstIndex(of: 10) {
          let line = String(decoding: pending[pending.startIndex..<end], as: UTF8.self)
          box.all.withLock { $0.append(line) }
          pending = Data(pending[(end + 1)...])
        }
      }
    }
  }

  var output: [String] { lines.all.withLock { $0 } }

  func send(_ line: String) { input.fileHandleForWriting.write(Data((line + "\n").utf8)) }

  /// Waits for a line starting with `prefix` that was not there before (`after` lines seen).
  func waitForLine(startingWith prefix: String, after seen: Int = 0) async -> String? {
    let deadline = ContinuousClock.now + .seconds(30)
    while ContinuousClock.now < deadline {
      if let line = output.dropFirst(seen).first(where: { $0.hasPrefix(prefix) }) { return line }
      try? await Task.sleep(for: .milliseconds(5))
    }
    return nil
  }

  func end() {
    try? input.fileHandleForWriting.close()
    process.waitUntilExit()
  }
}

/// An open `Document` presents its file as UIDocument does: no wiring by the caller.
@Suite("Documents present their files")
@MainActor
final class PresentingDocumentTests {
  let folder: TemporaryFolder
  init() throws { folder = try TemporaryFolder(prefix: "quire-presenting-document") }
  deinit { folder.remove() }

  private func waitUntil(_ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(30)
    while ContinuousClock.now < deadline {
      if condition() { return true }
      try? await Task.sleep(for: .milliseconds(5))
    }
    return condition()
  }

  @Test func openingRegistersThePresenterAndClosingRemovesIt() async throws {
    let url = try folder.write("text\n", to: "a.txt")
    let document = PlainTextDocument(fileURL: url)
    document.autosavePolicy = nil
    document.recoveryStore = nil
    #expect(!FileCoordinator.filePresenters.contains { $0 === document.filePresenter })
    try await document.open()
    #expect(document.fileAccess is FileCoordinator)
    #expect(FileCoordinator.filePresenters.contains { $0 === document.filePresenter })
    #expect(document.filePresenter.presentedItemURL == document.fileURL)
    try await document.close()
    #expect(!FileCoordinator.filePresenters.contains { $0 === document.filePresenter })
  }

  @Test func anUncoordinatedChangeReloadsACleanDocument() async throws {
    let url = try folder.write("before\n", to: "b.txt")
    let document = CountingDocument(fileURL: url)
    document.autosavePolicy = nil
    document.recoveryStore = nil
    try await document.open()
    // Another editor writes the file without coordination: inotify tells the presenter.
    try Data("after\n".utf8).write(to: url, options: .atomic)
    #expect(await waitUntil { document.text == "after\n" })
    #expect(document.changeNotices > 0)
    try await document.close()
  }

  @Test func aSaveInAnotherProcessReachesThisDocumentAndItsEditsBecomeAConflict() async throws {
    let url = try folder.write("base\n", to: "shared.txt")
    let mine = CountingDocument(fileURL: url)
    mine.autosavePolicy = nil
    mine.recoveryStore = nil
    try await mine.open()
    guard let theirs = try DocumentProcess(url) else { return }
    defer { theirs.end() }
    #expect(await theirs.waitForLine(startingWith: "opened") != nil)

    // Unsaved edits here; the other process edits and saves.
    try mine.replaceText(with: "mine\n")
    theirs.send("edit theirs\\n")
    theirs.send("save")
    #expect(await theirs.waitForLine(startingWith: "saved") != nil)

    // Its save reached this document as presentedItemDidChange, and made a conflict.
    #expect(await waitUntil { mine.documentState.contains(.inConflict) })
    #expect(mine.changeNotices > 0)
    #expect(mine.text == "mine\n")
    #expect(mine.conflictVersion.map { String(decoding: $0.contents, as: UTF8.self) } == "theirs\n")
    let versions = NSFileVersion.unresolvedConflictVersionsOfItem(at: url) ?? []
    #expect(versions.count == 1)
    #expect(versions.first.flatMap { try? Data(contentsOf: $0.url) }.map { String(decoding: $0, as: UTF8.self) } == "theirs\n")

    // Keep this version: mark the conflict resolved, then save; the other process hears of it
    // and, having no unsaved edits, reloads.
    let seen = theirs.output.count
    for version in versions { version.isResolved = true }
    #expect(!mine.documentState.contains(.inConflict))
    #expect(NSFileVersion.unresolvedConflictVersionsOfItem(at: url)?.isEmpty ?? true)
    try await mine.save()
    #expect(await theirs.waitForLine(startingWith: "checked text mine\\n", after: seen) != nil)
    try await mine.close()
  }
}
