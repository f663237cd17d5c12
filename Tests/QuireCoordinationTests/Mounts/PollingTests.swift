import Foundation
import QuireCoordination
import QuireTestSupport
import Synchronization
import Testing

/// Presenters of items on a FUSE mount (bindfs, made by the test) hear changes made behind the
/// mount, in its source folder, where inotify hears nothing: they are polled. Serialized: the
/// polling options are the process's.
@Suite("Polling on FUSE mounts", .serialized, .enabled(if: FUSEMount.bindfsUnavailableReason == nil, "\(FUSEMount.bindfsUnavailableReason ?? "")"))
final class PollingTests: FolderSuite {
  let mount: FUSEMount
  private let added = Box<[any FilePresenter]>([])
  private let options = FileCoordinator.pollingOptions

  /// The test's coordination location (as ``CoordinationSuite``'s).
  var location: CoordinationLocation { folder.coordinationLocation }

  init() throws {
    let folder = try TemporaryFolder(prefix: "quire-PollingTests")
    _ = try folder.privateFolder("run")
    let source = folder.file("src")
    try FileManager.default.createDirectory(at: source, withIntermediateDirectories: true)
    mount = try FUSEMount.bindfs(source, at: folder.file("view"))
    super.init(folder: folder)
  }

  deinit {
    for presenter in added.current { FileCoordinator.removeFilePresenter(presenter) }
    FileCoordinator.pollingOptions = options
    mount.unmount()
  }

  func presenter(of url: URL, every interval: Duration) throws -> RecordingPresenter {
    FileCoordinator.pollingOptions = PollingOptions(interval: interval, maximumInterval: interval)
    let presenter = RecordingPresenter(url, location: location)
    try FileCoordinator.addFilePresenter(presenter, location: location)
    added.update { $0.append(presenter) }
    return presenter
  }

  func behind(_ name: String) -> URL { mount.source.appendingPathComponent(name) }
  func through(_ name: String) -> URL { mount.view.appendingPathComponent(name) }

  @Test func theMountIsKnownAsFUSEAndPolled() throws {
    let kind = FileSystemKind.of(mount.view)
    #expect(kind.family == .fuse && kind.mountPoint == mount.view.path, "\(kind)")
    #expect(!kind.locksReachOtherMachines)
    #expect(FileCoordinator.pollingInterval(forItemAt: through("doc.md")) == FileCoordinator.pollingOptions.interval)
    #expect(FileCoordinator.pollingInterval(forItemAt: mount.source) == nil, "the source folder is local")
  }

  @Test func aChangeBehindTheMountReachesThePresenter() async throws {
    try "one\n".write(to: behind("doc.md"), atomically: false, encoding: .utf8)
    let presenter = try presenter(of: through("doc.md"), every: .milliseconds(200))
    try runTool("/bin/sh", ["-c", "echo two >> \"$1\"", "sh", behind("doc.md").path])
    #expect(await presenter.waitFor("changed") != nil, "heard \(presenter.texts)")
  }

  @Test func anAtomicReplacementBehindTheMountReachesThePresenterAndIsFollowed() async throws {
    try "one\n".write(to: behind("doc.md"), atomically: false, encoding: .utf8)
    let presenter = try presenter(of: through("doc.md"), every: .milliseconds(200))
    try "replaced\n".write(to: behind("doc.md"), atomically: true, encoding: .utf8)
    let first = await presenter.waitFor("changed")
    #expect(first != nil, "heard \(presenter.texts)")
    try runTool("/bin/sh", ["-c", "echo again >> \"$1\"", "sh", behind("doc.md").path])
    #expect(await presenter.waitFor("changed", after: first?.at) != nil, "the new file is polled: heard \(presenter.texts)")
  }

  @Test func aDeletionBehindTheMountReachesThePresenter() async throws {
    try "one\n".write(to: behind("gone.md"), atomically: false, encoding: .utf8)
    let presenter = try presenter(of: through("gone.md"), every: .milliseconds(200))
    try FileManager.default.removeItem(at: behind("gone.md"))
    #expect(await presenter.waitFor("deleted") != nil, "heard \(presenter.texts)")
  }

  @Test func aRenameBehindTheMountIsAMove() async throws {
    try "one\n".write(to: behind("old.md"), atomically: false, encoding: .utf8)
    let presenter = try presenter(of: through("old.md"), every: .milliseconds(200))
    try FileManager.default.moveItem(at: behind("old.md"), to: behind("new.md"))
    let moved = await presenter.waitFor("moved")
    #expect(moved?.text == "moved \(through("new.md").path)", "heard \(presenter.texts)")
    #expect(presenter.presentedItemURL?.path == through("new.md").path)
  }

  @Test func aFolderPresenterHearsOfAFileCreatedBehindTheMount() async throws {
    let presenter = try presenter(of: mount.view, every: .milliseconds(200))
    try "new\n".write(to: behind("created.md"), atomically: false, encoding: .utf8)
    let heard = await presenter.waitFor("subitem")
    #expect(heard?.text == "subitem \(through("created.md").path)", "heard \(presenter.texts)")
  }

  /// With a poll an hour away, a change made through the mount can only arrive by inotify.
  @Test func aChangeThroughTheMountArrivesByInotifyAtOnce() async throws {
    try "one\n".write(to: behind("doc.md"), atomically: false, encoding: .utf8)
    let presenter = try presenter(of: through("doc.md"), every: .seconds(3600))
    try runTool("/bin/sh", ["-c", "echo two >> \"$1\"", "sh", through("doc.md").path])
    #expect(await presenter.waitFor("changed") != nil, "heard \(presenter.texts)")
  }

  @Test func neverPollingLeavesOnlyInotify() async throws {
    FileCoordinator.pollingOptions = PollingOptions(mode: .never)
    #expect(FileCoordinator.pollingInterval(forItemAt: through("doc.md")) == nil)
  }

  @Test func anEmacsLockBehindTheMountIsHonouredThere() async throws {
    try "one\n".write(to: behind("locked.md"), atomically: false, encoding: .utf8)
    // Emacs's lock: a symbolic link `.#NAME` to `user@host.PID:TIME`, of a live process here.
    var buffer = [CChar](repeating: 0, count: 256)
    _ = gethostname(&buffer, 255)
    let host = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    try FileManager.default.createSymbolicLink(atPath: behind(".#locked.md").path, withDestinationPath: "root@\(host).\(getpid()):1700000000")
    let coordinator = FileCoordinator(location: location)
    expectQuireError(.inUse) {
      try coordinator.coordinate(writingItemAt: through("locked.md")) { url in try Data("mine\n".utf8).write(to: url) }
    }
    #expect(try String(contentsOf: behind("locked.md"), encoding: .utf8) == "one\n")
  }

  @Test func coordinatingOnTheMountSaysOnceThatExclusionHoldsOnThisMachineOnly() throws {
    try "0\n".write(to: behind("count.txt"), atomically: false, encoding: .utf8)
    let helper = try #require(Programs.built("quire-coordination-helper"), "the coordination helper is not built; run swift build --build-tests")
    let result = try ChildProcess.runBlocking(helper, [folder.file("run").path, "increment", through("count.txt").path, "3"])
    #expect(result.status == 0, "\(result.error)")
    #expect(try String(contentsOf: behind("count.txt"), encoding: .utf8) == "3\n")
    let warnings = result.error.split(separator: "\n").filter { $0.contains("coordination excludes processes on this machine only") }
    #expect(warnings.count == 1, "\(result.error)")
    #expect(warnings.first?.contains("'\(mount.view.path)'") == true, "names the mount: \(result.error)")
  }
}
