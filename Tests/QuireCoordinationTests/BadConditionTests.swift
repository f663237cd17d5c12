import Foundation
@_spi(Testing) import QuireCoordination
import QuireSystem
import QuireTestSupport
import QuireTypes
import Synchronization
import SystemPackage
import Testing

@Suite("Bad conditions give clear errors and no hang")
final class BadConditionTests: CoordinationSuite {
  @Test func aLockLocationBlockedByAFileFailsClearly() throws {
    let file = try folder.write("x\n", to: "doc.txt")
    let blocked = try folder.write("not a folder\n", to: "blocked")
    let coordinator = FileCoordinator(location: CoordinationLocation(runtimeFolder: blocked))
    expectQuireError(.fileMissing, reasonContains: "lock folder", "XDG_RUNTIME_DIR") {
      try coordinator.coordinate(readingItemAt: file) { _ in }
    }
  }

  /// Coordinates a write of a file whose lock folder (made here, with `attributes`) fails
  /// `step` (every step when nil) with `errno`, as the system layer's fault plan says.
  func writeWithTheLockFolderFailing(_ step: SystemStep?, with errno: Errno, attributes: [FileAttributeKey: Any]? = nil) throws {
    let file = try folder.write("x\n", to: "doc.txt")
    let runtime = folder.file("faulty-run")
    try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: false, attributes: attributes)
    let coordinator = FileCoordinator(location: CoordinationLocation(runtimeFolder: runtime))
    try FaultPlan(failing: step, with: errno, occurrence: nil, under: runtime.path).run {
      try coordinator.coordinate(writingItemAt: file) { _ in }
    }
  }

  @Test func aLockLocationThatRefusesWritesFailsClearly() {
    expectQuireError(.permissionDenied, reasonContains: "writable") {
      try writeWithTheLockFolderFailing(nil, with: .permissionDenied)
    }
  }

  /// A full disk when the lock file is made is `diskFull`, as everywhere (the one errno mapping).
  @Test func aFullDiskForTheLockFileIsDiskFull() {
    expectQuireError(.diskFull, reasonContains: "disk is full") {
      try writeWithTheLockFolderFailing(.create, with: .noSpace, attributes: [.posixPermissions: 0o700])
    }
  }

  @Test func aSymlinkedLockFolderIsRefused() throws {
    let file = try folder.write("x\n", to: "doc.txt")
    let runtime = folder.file("linked-run")
    try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: false)
    try FileManager.default.createDirectory(at: folder.file("elsewhere"), withIntermediateDirectories: false)
    try FileManager.default.createSymbolicLink(at: runtime.appendingPathComponent("quire"), withDestinationURL: folder.file("elsewhere"))
    let coordinator = FileCoordinator(location: CoordinationLocation(runtimeFolder: runtime))
    expectQuireError(.permissionDenied, reasonContains: "symbolic link") {
      try coordinator.coordinate(readingItemAt: file) { _ in }
    }
  }

  @Test func lockFilesAndFoldersAreOwnerOnly() throws {
    let file = try folder.write("x\n", to: "doc.txt")
    try FileCoordinator(location: location).coordinate(readingItemAt: file) { _ in }
    let locks = location.runtimeFolder.appendingPathComponent("quire/locks")
    let folderMode = try FileManager.default.attributesOfItem(atPath: locks.path)[.posixPermissions] as? Int
    #expect(folderMode == 0o700)
    for name in try FileManager.default.contentsOfDirectory(atPath: locks.path) {
      let mode = try FileManager.default.attributesOfItem(atPath: locks.appendingPathComponent(name).path)[.posixPermissions] as? Int
      #expect(mode == 0o600)
    }
  }

  @Test func readingAPathThatDoesNotExistFailsClearly() throws {
    let missing = folder.file("absent.md")
    expectQuireError(.fileMissing, reasonContains: "absent.md") {
      try FileCoordinator(location: location).coordinate(readingItemAt: missing) { _ in }
    }
  }

  @Test func writingIntoAMissingFolderFailsClearly() throws {
    let missing = folder.file("no-such-folder/new.md")
    expectQuireError(.fileMissing, reasonContains: "no-such-folder") {
      try FileCoordinator(location: location).coordinate(writingItemAt: missing) { _ in }
    }
  }

  @Test func presentingInAMissingFolderFailsClearly() throws {
    let presenter = RecordingPresenter(folder.file("no-such-folder/new.md"), location: location)
    expectQuireError(.fileMissing) { try FileCoordinator.addFilePresenter(presenter, location: location) }
  }

  @Test func deletingThePresentedItemsFolderReachesThePresenterAndLaterAccessFailsClearly() async throws {
    let inner = folder.file("project")
    try FileManager.default.createDirectory(at: inner, withIntermediateDirectories: false)
    let file = try folder.write("x\n", to: "project/notes.md")
    let presenter = RecordingPresenter(file, location: location)
    try FileCoordinator.addFilePresenter(presenter, location: location)
    defer { FileCoordinator.removeFilePresenter(presenter) }
    try runTool("/bin/rm", ["-r", inner.path])
    #expect(await presenter.waitFor("deleted") != nil)
    expectQuireError(.fileMissing, reasonContains: "project") {
      try FileCoordinator(filePresenter: presenter, location: location).coordinate(writingItemAt: file, timeout: .seconds(2)) { _ in }
    }
  }

  @Test func reachingTheInotifyWatchLimitFailsClearly() throws {
    let file = try folder.write("x\n", to: "watched.md")
    let presenter = RecordingPresenter(file, location: location)
    expectQuireError(.limitExceeded, reasonContains: "max_user_watches") {
      try FaultPlan(failing: .watch, with: .noSpace, under: file.path).run {
        try FileCoordinator.addFilePresenter(presenter, location: location)
      }
    }
    #expect(!FileCoordinator.filePresenters.contains { $0 === presenter })
  }

  // A presenter that never answers would hang the read without the bound; the test's time
  // limit only guards that hang (no upper bound on the clock: a loaded machine may be slow).
  @Test(.timeLimit(.minutes(5))) func aPresenterThatNeverAnswersIsSkippedAfterTheBound() throws {
    let file = try folder.write("disk\n", to: "slow.md")
    let presenter = RecordingPresenter(file, location: location, answers: false)
    try FileCoordinator.addFilePresenter(presenter, location: location)
    defer { FileCoordinator.removeFilePresenter(presenter) }
    // The note saying so reaches the program's handler, not standard error.
    let notes = Mutex<[QuireNote]>([])
    QuireNotes.setHandler { note in notes.withLock { $0.append(note) } }
    defer { QuireNotes.setHandler(nil) }
    let start = ContinuousClock.now
    let text = try FileCoordinator(location: location, presenterResponseTimeout: .milliseconds(200))
      .coordinate(readingItemAt: file) { url in try String(contentsOf: url, encoding: .utf8) }
    let elapsed = ContinuousClock.now - start
    #expect(text == "disk\n")
    #expect(elapsed >= .milliseconds(200))
    #expect(presenter.texts.contains("save"))
    let told = notes.withLock { $0 }.filter { $0.message.contains("'slow.md'") }
    #expect(told.count == 1 && told.first?.area == .coordination, "\(told)")
    #expect(told.first?.message.contains("did not answer within") == true, "\(told)")
  }

  @Test func deadStaleRegistryEntriesAreCleanedUp() async throws {
    let file = try folder.write("x\n", to: "doc.md")
    let helper = try startHelper([location.runtimeFolder.path, "present", file.path, ""])
    #expect(await helper.waitForLine(startingWith: "ready") != nil)
    let entry = location.runtimeFolder.appendingPathComponent("quire/presenters/\(helper.pid).json")
    #expect(FileManager.default.fileExists(atPath: entry.path))
    helper.kill()
    _ = await helper.waitForExit()
    try await FileCoordinator(location: location).coordinate(readingItemAt: file, timeout: .seconds(2)) { _ in }
    #expect(!FileManager.default.fileExists(atPath: entry.path))
  }
}
