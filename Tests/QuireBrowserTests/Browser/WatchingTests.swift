import Foundation
import QuireBrowser
import QuireTestSupport
import QuireTypes
import Synchronization
import Testing

/// Collects a browser's changes on a task of its own.
final class ChangeLog: Sendable {
  let changes = Mutex<[BrowserChange]>([])
  init(_ stream: AsyncStream<BrowserChange>) {
    Task { [self] in
      for await change in stream { changes.withLock { $0.append(change) } }
    }
  }
  func has(_ kind: BrowserChange.Kind, _ name: String, from previous: String? = nil) -> Bool {
    changes.withLock { list in
      list.contains { $0.kind == kind && $0.url.lastPathComponent == name && (previous == nil || $0.previousURL?.lastPathComponent == previous) }
    }
  }
}

@Suite("Live changes")
final class WatchingTests: FolderSuite {
  let browser: DocumentBrowser
  init() throws {
    let folder = try TemporaryFolder()
    try FileManager.default.createDirectory(at: folder.file("sub"), withIntermediateDirectories: true)
    browser = DocumentBrowser(configuration: .init(locations: [folder.url], environment: testEnvironment(folder)))
    super.init(folder: folder)
  }
  deinit { browser.stopWatching() }

  @Test func changesByOtherProgramsArrive() async throws {
    let log = ChangeLog(try browser.changes())
    let file = try folder.write("# New\n", to: "new.md")
    #expect(await eventually { log.has(.added, "new.md") })
    try Data("# New\nmore\n".utf8).write(to: file)
    #expect(await eventually { log.has(.modified, "new.md") })
    #expect(rename(file.path, folder.file("sub/moved.md").path) == 0)
    #expect(await eventually { log.has(.moved, "moved.md", from: "new.md") })
    #expect(unlink(folder.file("sub/moved.md").path) == 0)
    #expect(await eventually { log.has(.removed, "moved.md") })
    try Data([0x89, 0x00, 0xFF, 0x00, 0x01]).write(to: folder.file("image.bin"))
    try folder.write("# After\n", to: "after.md")
    #expect(await eventually { log.has(.added, "after.md") })
    #expect(!log.has(.added, "image.bin"))
  }

  @Test func browserActionsAndNewFoldersArrive() async throws {
    let log = ChangeLog(try browser.changes())
    let item = try browser.createDocument(named: "made")
    #expect(await eventually { log.has(.added, "made.md") })
    try browser.renameItem(at: item.url, to: "renamed")
    #expect(await eventually { log.has(.moved, "renamed.md", from: "made.md") })
    try FileManager.default.createDirectory(at: folder.file("later"), withIntermediateDirectories: true)
    // A folder made after watching began is watched too (its presenter is added before it is walked).
    try folder.write("# Deep\n", to: "later/deep.md")
    #expect(await eventually { log.has(.added, "deep.md") })
  }

  /// The mark a keeping process leaves beside the index: held while it watches, gone when
  /// it stops; something other than a regular file planted at its name (a link, a FIFO, a
  /// folder) is refused with a clear error, never followed or opened for reading, and searches
  /// then look at every file as when no one keeps the index.
  @Test(arguments: ["link", "fifo", "folder"]) func aPlantedKeeperMarkIsRefusedAndSearchesStillWalk(_ kind: String) throws {
    try folder.write("a walrus appears\n", to: "a.md")
    try browser.startUpdatingSearchIndex()
    #expect(browser.searchIndexKeeper == getpid())
    browser.stopWatching()
    #expect(browser.searchIndexKeeper == nil)
    let indexFolder = browser.searchIndexURL.deletingLastPathComponent()
    let name = try #require(try FileManager.default.contentsOfDirectory(atPath: indexFolder.path).first { $0.contains(".kept-") })
    let mark = indexFolder.appendingPathComponent(name)
    try FileManager.default.removeItem(at: mark)
    let target = folder.file("target")
    try "12345\n".write(to: target, atomically: false, encoding: .utf8)
    switch kind {
    case "link": try FileManager.default.createSymbolicLink(at: mark, withDestinationURL: target)
    case "fifo": #expect(mkfifo(mark.path, 0o600) == 0)
    default: try FileManager.default.createDirectory(at: mark, withIntermediateDirectories: false)
    }
    let error = #expect(throws: QuireError.self) { try browser.startUpdatingSearchIndex() }
    #expect(error?.reason.contains(kind == "link" ? "symbolic link" : kind == "fifo" ? "FIFO" : "a folder") == true, "\(String(describing: error))")
    browser.stopWatching()
    #expect(browser.searchIndexKeeper == nil)
    #expect(try String(contentsOf: target, encoding: .utf8) == "12345\n")
    try folder.write("a walrus and a narwhal\n", to: "b.md")
    #expect(try browser.updateSearchIndexAndSearch(SearchQuery("narwhal")).hits.map(\.url.lastPathComponent) == ["b.md"])
  }

  /// A change the keeper cannot write (the index held locked by another process past SQLite's
  /// 10 s wait: the sqlite3 shell inside `BEGIN EXCLUSIVE`) makes it give up its mark, so
  /// searches look at every file again; once the lock goes, a full update brings the change in
  /// and the mark comes back.
  @Test(
    .timeLimit(.minutes(2)),
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3"), "sqlite3 is not installed (apt-get install sqlite3)"))
  func aChangeTheIndexCannotTakeDropsTheKeepersMarkUntilAFullUpdate() async throws {
    try folder.write("nothing here\n", to: "a.md")
    try browser.startUpdatingSearchIndex()
    #expect(browser.searchIndexKeeper == getpid())
    let holder = try ChildProcess.start(URL(fileURLWithPath: "/usr/bin/sqlite3"), [browser.searchIndexURL.path])
    defer { holder.kill(SIGKILL) }
    holder.send("BEGIN EXCLUSIVE;")
    holder.send(".print locked")
    _ = try await holder.output.firstLine(containing: "locked", within: .seconds(60))
    try folder.write("a walrus appears\n", to: "a.md")
    #expect(await eventually(timeout: .seconds(60)) { browser.searchIndexKeeper == nil })
    holder.send("COMMIT;")
    holder.send(".quit")
    #expect(await holder.waitForExit() == 0)
    #expect(await eventually(timeout: .seconds(60)) { browser.searchIndexKeeper == getpid() })
    #expect(try browser.search("walrus").map(\.url.lastPathComponent) == ["a.md"])
    browser.stopWatching()
  }

  @Test func searchIndexFollowsChanges() async throws {
    try folder.write("nothing here\n", to: "a.md")
    try browser.startUpdatingSearchIndex()
    #expect(try browser.search("walrus").isEmpty)
    try folder.write("a walrus appears\n", to: "a.md")
    #expect(try await eventually { try browser.search("walrus").count == 1 })
    try FileManager.default.removeItem(at: folder.file("a.md"))
    #expect(try await eventually { try browser.search("walrus").isEmpty })
  }
}
