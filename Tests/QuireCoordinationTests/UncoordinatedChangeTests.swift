import Foundation
@_spi(Testing) import QuireCoordination
import QuireTestSupport
import QuireTypes
import Synchronization
import Testing

/// Changes made by programs that do not coordinate reach presenters through inotify.
@Suite("Uncoordinated changes reach presenters")
final class UncoordinatedChangeTests: CoordinationSuite {
  /// The presenters this test added, removed when it ends.
  private let added = Box<[RecordingPresenter]>([])

  deinit { for presenter in added.current { FileCoordinator.removeFilePresenter(presenter) } }

  /// A recording presenter of `url`, added at the test's location (and removed when the test ends).
  func presenter(of url: URL) throws -> RecordingPresenter {
    let presenter = RecordingPresenter(url, location: location)
    try FileCoordinator.addFilePresenter(presenter, location: location)
    added.update { $0.append(presenter) }
    return presenter
  }

  /// Presents `url`, runs `change`, and returns the first message starting with `prefix`.
  /// How fast it arrives is measured in `Benchmarks/` (RESULTS.md, coordination), not here:
  /// on a loaded machine a bound on it fails for no fault of the code.
  @discardableResult
  func present(
    _ url: URL, expecting prefix: String, after change: () throws -> Void,
    sourceLocation: SourceLocation = #_sourceLocation
  ) async throws -> (RecordingPresenter, HeardMessages.Message?) {
    let presenter = try presenter(of: url)
    try change()
    let message = await presenter.waitFor(prefix)
    #expect(message != nil, "no '\(prefix)' message; heard \(presenter.texts)", sourceLocation: sourceLocation)
    return (presenter, message)
  }

  /// Appends `line` to the file at `url` in place, as another program does (`echo >>` in sh).
  func append(_ line: String, to url: URL, sourceLocation: SourceLocation = #_sourceLocation) throws {
    try runTool("/bin/sh", ["-c", "echo \"$2\" >> \"$1\"", "sh", url.path, line], sourceLocation: sourceLocation)
  }

  /// Appends a line to the file at `url` and expects `presenter` to hear of it: its watch
  /// follows the file that is there now.
  func expectAChange(
    of presenter: RecordingPresenter, afterAppendingTo url: URL, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation
  ) async throws {
    let since = ContinuousClock.now
    try append("more", to: url, sourceLocation: sourceLocation)
    #expect(await presenter.waitFor("changed", after: since) != nil, comment, sourceLocation: sourceLocation)
  }

  @Test func anInPlaceAppendWithEchoReachesThePresenter() async throws {
    let file = try folder.write("one\n", to: "log.txt")
    try await present(file, expecting: "changed") { try append("two", to: file) }
  }

  @Test func copyingOverTheFileWithCpReachesThePresenter() async throws {
    let file = try folder.write("old\n", to: "target.txt")
    let source = try folder.write("new contents\n", to: "source.txt")
    try await present(file, expecting: "changed") { try runTool("/bin/cp", [source.path, file.path]) }
  }

  @Test func movingTheFileWithMvReachesThePresenterWithItsNewPlace() async throws {
    let file = try folder.write("text\n", to: "a.txt")
    let destination = folder.file("b.txt")
    let (presenter, message) = try await present(file, expecting: "moved") { try runTool("/bin/mv", [file.path, destination.path]) }
    #expect(message?.text == "moved \(destination.path)")
    #expect(presenter.presentedItemURL?.path == destination.path)
    // The presenter follows: a later append at the new place is seen.
    try await expectAChange(of: presenter, afterAppendingTo: destination)
  }

  @Test func replacingTheFileByRenameReachesThePresenterAndRearmsTheWatch() async throws {
    let file = try folder.write("v1\n", to: "doc.txt")
    let replacement = try folder.write("v2\n", to: ".doc.txt.tmp")
    let (presenter, _) = try await present(file, expecting: "changed") { try runTool("/bin/mv", [replacement.path, file.path]) }
    #expect(!presenter.texts.contains { $0.hasPrefix("moved") || $0 == "deleted" })
    try await expectAChange(of: presenter, afterAppendingTo: file, "the watch was not re-armed on the new inode")
  }

  @Test func removingTheFileWithRmReachesThePresenter() async throws {
    let file = try folder.write("bye\n", to: "gone.txt")
    try await present(file, expecting: "deleted") { try runTool("/bin/rm", [file.path]) }
  }

  @Test func movingAFolderAboveTheItemReachesThePresenter() async throws {
    let inner = folder.file("project")
    try FileManager.default.createDirectory(at: inner, withIntermediateDirectories: false)
    let file = try folder.write("x\n", to: "project/notes.md")
    let (_, message) = try await present(file, expecting: "moved") { try runTool("/bin/mv", [inner.path, folder.file("renamed").path]) }
    #expect(message?.text == "moved \(folder.file("renamed/notes.md").path)")
  }

  @Test func aFolderPresenterHearsOfItsEntries() async throws {
    let inner = folder.file("box")
    try FileManager.default.createDirectory(at: inner, withIntermediateDirectories: false)
    let entry = inner.appendingPathComponent("new.txt")
    try await present(inner, expecting: "subitem \(entry.path)") { try runTool("/bin/cp", ["/etc/hostname", entry.path]) }
  }

  @Test func aBurstOfWritesIsCoalesced() async throws {
    let file = try folder.write("", to: "burst.txt")
    let presenter = try presenter(of: file)
    let handle = try FileHandle(forWritingTo: file)
    for index in 0..<200 { try handle.write(contentsOf: Data("line \(index)\n".utf8)) }
    try handle.close()
    #expect(await presenter.waitFor("changed") != nil)
    // A rename after the burst is the barrier: its message comes after every change message
    // the burst gave, so counting then sees them all, with no pause to guess.
    let renamed = folder.file("burst-renamed.txt")
    #expect(rename(file.path, renamed.path) == 0)
    #expect(await presenter.waitFor("moved") != nil)
    let changes = presenter.texts.prefix { !$0.hasPrefix("moved") }.filter { $0 == "changed" }.count
    #expect(changes >= 1 && changes < 20, "200 writes gave \(changes) change messages")
  }

  @Test func ownCoordinatedWritesAreNotReportedBack() async throws {
    let file = try folder.write("mine\n", to: "own.txt")
    let presenter = try presenter(of: file)
    try await FileCoordinator(filePresenter: presenter, location: location).coordinate(writingItemAt: file) { url in
      try Data("saved by me\n".utf8).write(to: url, options: .atomic)
    }
    // An outside change afterwards is the barrier: had the own save been reported, its message
    // would come first. The watch also has to follow the new inode the atomic save made.
    try append("other", to: file)
    #expect(await presenter.waitFor("changed") != nil)
    #expect(presenter.texts == ["changed"], "heard \(presenter.texts)")
  }

  @Test func aQueueOverflowMakesPresentersRescan() async throws {
    let file = try folder.write("x\n", to: "overflowed.txt")
    let presenter = try presenter(of: file)
    InotifyMonitor.shared.simulateOverflow(under: file.path)
    // Events may have been lost, so the presenter is told its item may have changed.
    #expect(await presenter.waitFor("changed") != nil)
  }

  @Test func aPresenterOfAnItemThatDoesNotExistYetHearsItAppear() async throws {
    let file = folder.file("later.md")
    let (presenter, _) = try await present(file, expecting: "changed") {
      try runTool("/bin/sh", ["-c", "echo first > \"$1\"", "sh", file.path])
    }
    try await expectAChange(of: presenter, afterAppendingTo: file, "the watch was not armed on the new file")
  }

  final class QueuePresenter: FilePresenter {
    let url: URL
    let queue = OperationQueue()
    let ranOnQueue = Mutex<[Bool]>([])
    init(url: URL) {
      self.url = url
      queue.maxConcurrentOperationCount = 1
    }
    var presentedItemURL: URL? { url }
    var presentedItemOperationQueue: OperationQueue? { queue }
    func presentedItemDidChange() {
      let onQueue = OperationQueue.current === queue
      ranOnQueue.withLock { $0.append(onQueue) }
    }
  }

  @Test func messagesRunOnThePresentersOperationQueue() async throws {
    let file = try folder.write("x\n", to: "queued.txt")
    let presenter = QueuePresenter(url: file)
    try FileCoordinator.addFilePresenter(presenter, location: location)
    defer { FileCoordinator.removeFilePresenter(presenter) }
    try append("y", to: file)
    #expect(await eventually { !presenter.ranOnQueue.withLock { $0.isEmpty } })
    #expect(presenter.ranOnQueue.withLock { $0 } == [true])
  }
}
