import Foundation
import QuireCoordination
import QuireTestSupport
import QuireTypes
import SystemPackage
import Testing

/// Coordinated access to items whose names are not UTF-8 (no `URL` holds them), by `FilePath`.
@Suite("FileCoordinator with paths that are not UTF-8")
final class NonUTF8PathTests: CoordinationSuite {
  /// Makes `non\xFFutf.md` holding `text`; returns its path.
  func makeFile(_ text: String = "x\n") throws -> FilePath {
    let name = Array("non".utf8) + [0xFF] + Array("utf.md".utf8)
    try folder.write(text, toNameBytes: name)
    return folder.path(nameBytes: name)
  }

  /// The whole file at `path`, read by its bytes (nil when it cannot be opened).
  func contents(of path: FilePath) -> String? { folder.contents(of: path).map { String(decoding: $0, as: UTF8.self) } }

  @Test func theVeryFileIsReadAndWrittenByItsBytes() throws {
    let path = try makeFile()
    let coordinator = FileCoordinator(location: location)
    let read = try coordinator.coordinate(readingItemAt: path, timeout: .seconds(5)) { given in
      #expect(given == path)
      return contents(of: given)
    }
    #expect(read == "x\n")
    try coordinator.coordinate(writingItemAt: path, timeout: .seconds(5)) { given in
      let fd = try FileDescriptor.open(given, .writeOnly, options: [.truncate])
      _ = try fd.closeAfter { try fd.writeAll("y\n".utf8) }
    }
    #expect(contents(of: path) == "y\n")
  }

  @Test func aRelativePathIsTakenFromTheCurrentFolderAndNormalized() throws {
    let path = try makeFile()
    let here = FileManager.default.currentDirectoryPath
    #expect(FileManager.default.changeCurrentDirectoryPath(folder.url.path))
    defer { _ = FileManager.default.changeCurrentDirectoryPath(here) }
    let relative = FilePath("./sub/..").appending(path.lastComponent!)
    try FileManager.default.createDirectory(at: folder.file("sub"), withIntermediateDirectories: false)
    let given = try FileCoordinator(location: location).coordinate(readingItemAt: relative, timeout: .seconds(5)) { $0 }
    #expect(given == path)
  }

  /// A writer holding the item, on another thread, until `release` is signalled.
  func holdWriting(_ body: @escaping @Sendable (FileCoordinator, () -> Void) -> Void) {
    let inside = DispatchSemaphore(value: 0)
    let location = self.location
    Thread.detachNewThread {
      body(FileCoordinator(location: location)) { inside.signal() }
    }
    inside.wait()
  }

  @Test func aWriterOfSuchAPathExcludesAReaderAndTheMessageNamesItEscaped() throws {
    let path = try makeFile()
    let release = DispatchSemaphore(value: 0)
    holdWriting { coordinator, entered in
      try? coordinator.coordinate(writingItemAt: path) { _ in
        entered()
        release.wait()
      }
    }
    let coordinator = FileCoordinator(location: location)
    expectQuireError(.timedOut, reasonContains: "'non\\xFFutf.md'", "process \(getpid())") {
      try coordinator.coordinate(readingItemAt: path, timeout: .milliseconds(100)) { _ in }
    }
    release.signal()
    #expect(try coordinator.coordinate(readingItemAt: path, timeout: .seconds(5)) { _ in true })
  }

  @Test func theURLAndThePathOfAUTF8NameLockTheSameItem() throws {
    let file = try folder.write("x\n", to: "plain.md")
    let release = DispatchSemaphore(value: 0)
    holdWriting { coordinator, entered in
      try? coordinator.coordinate(writingItemAt: file) { _ in
        entered()
        release.wait()
      }
    }
    expectQuireError(.timedOut) {
      try FileCoordinator(location: location).coordinate(readingItemAt: FilePath(file.path), timeout: .milliseconds(100)) { _ in }
    }
    release.signal()
  }

  @Test func aMissingItemIsAClearErrorNamingItEscaped() throws {
    let path = folder.path(nameBytes: Array("gone".utf8) + [0xFE])
    expectQuireError(.fileMissing, reasonContains: "'gone\\xFE'") {
      try FileCoordinator(location: location).coordinate(readingItemAt: path, timeout: .seconds(5)) { _ in }
    }
  }

  // MARK: Presenters of such names (finding 4: `quire watch` refused them)

  /// `name` (with `\xFF` standing for that byte) as a path in the test's folder.
  func path(_ name: String) -> FilePath { folder.path(nameBytes: Array(name.utf8).flatMap { $0 == UInt8(ascii: "?") ? [0xFF] : [$0] }) }

  @Test func aPresenterOfSuchANameHearsChangesMovesAndDeletionWithTheBytes() async throws {
    let file = try makeFile()
    let presenter = RecordingPathPresenter(file, location: location)
    try FileCoordinator.addFilePresenter(presenter, location: location)
    defer { FileCoordinator.removeFilePresenter(presenter) }
    #expect(FileCoordinator.filePresenters.contains { $0 === presenter })

    // An uncoordinated append (another program) is a change.
    let fd = try FileDescriptor.open(file, .writeOnly, options: [.append])
    _ = try fd.closeAfter { try fd.writeAll("more\n".utf8) }
    #expect(await presenter.waitFor("changed") != nil, "\(presenter.texts)")

    // A rename (as mv does) is a move to the very bytes of the new name.
    let moved = path("moved?.md")
    #expect(file.withPlatformString { old in moved.withPlatformString { rename(old, $0) } } == 0)
    #expect(await presenter.waitFor("moved") != nil, "\(presenter.texts)")
    #expect(presenter.path == moved)
    #expect(presenter.texts.contains("moved \(folder.url.path)/moved\\xFF.md"), "\(presenter.texts)")

    // A coordinated write of the new path reaches it (the registry names it by its bytes).
    try FileCoordinator(location: location).coordinate(writingItemAt: moved, timeout: .seconds(10)) { given in
      let fd = try FileDescriptor.open(given, .writeOnly, options: [.truncate])
      _ = try fd.closeAfter { try fd.writeAll("new\n".utf8) }
    }
    #expect(await presenter.waitFor("relinquish-to-writer") != nil, "\(presenter.texts)")
    #expect(await presenter.waitFor("reacquire") != nil, "\(presenter.texts)")

    #expect(moved.withPlatformString { unlink($0) } == 0)
    #expect(await presenter.waitFor("deleted") != nil, "\(presenter.texts)")
  }

  @Test func aFolderPresenterHearsOfAnEntryWhoseNameIsNotUTF8ByItsBytes() async throws {
    let presenter = RecordingPathPresenter(FilePath(folder.url.path), location: location)
    try FileCoordinator.addFilePresenter(presenter, location: location)
    defer { FileCoordinator.removeFilePresenter(presenter) }
    _ = try makeFile()
    #expect(await presenter.waitFor("subitem \(folder.url.path)/non\\xFFutf.md") != nil, "\(presenter.texts)")
    #expect(presenter.subitems.contains(path("non?utf.md")))
  }

  @Test func inotifyEventsOfSuchAPathKeepTheBytes() async throws {
    let file = try makeFile()
    let events = try InotifyMonitor.shared.events(at: FilePath(folder.url.path), kinds: [.created])
    let other = path("other?.md")
    let fd = try FileDescriptor.open(other, .writeOnly, options: [.create, .exclusiveCreate], permissions: .ownerReadWrite)
    try fd.close()
    var seen: FileSystemEvent?
    for await event in events {
      seen = event
      break
    }
    let event = try #require(seen)
    #expect(event.watchedItemPath == FilePath(folder.url.path))
    #expect(event.entryName == other.lastComponent)
    #expect(event.description.contains("other\\xFF.md"), "\(event.description)")
    _ = file
  }

  @Test(arguments: ["missing", "fifo", "dangling link"])
  func aPresenterOfABadPathNeverBlocksAndAMissingFolderIsAClearError(_ kind: String) async throws {
    let item = path("bad?")
    switch kind {
    case "fifo": #expect(item.withPlatformString { mkfifo($0, 0o600) } == 0)
    case "dangling link": #expect(item.withPlatformString { symlink("/nonexistent/x", $0) } == 0)
    default: break
    }
    // A presenter may present an item that is not there yet (as Apple's do); one in a
    // missing folder is an error naming it escaped.
    // A FIFO is watched without being opened for reading, so adding never blocks.
    let presenter = RecordingPathPresenter(item, location: location)
    try FileCoordinator.addFilePresenter(presenter, location: location)
    #expect(FileCoordinator.filePresenters.contains { $0 === presenter })
    FileCoordinator.removeFilePresenter(presenter)
    let inMissing = RecordingPathPresenter(item.appending("inside"), location: location)
    if kind == "missing" {
      expectQuireError(.fileMissing, reasonContains: "bad\\xFF") { try FileCoordinator.addFilePresenter(inMissing, location: location) }
    }
  }
}
