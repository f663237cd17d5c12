import Foundation
import QuireCoordination
import QuireTestSupport
import QuireTypes
import Testing

@Suite("FileCoordinator across processes")
final class CrossProcessTests: CoordinationSuite {
  var runtime: String { location.runtimeFolder.path }

  @Test func eightProcessesIncrementingACounterLoseNoUpdate() async throws {
    let counter = try folder.write("0\n", to: "counter.txt")
    let start = ContinuousClock.now
    let helpers = try (0..<8).map { _ in try startHelper([runtime, "increment", counter.path, "500"]) }
    // Wait as long as the counter keeps moving. The time depends steeply on how busy the
    // machine is (3 s idle on two cores, up to 30 s beside two busy loops, 150-170 s beside
    // eight, when a fixed 120 s limit failed the test), while a lost wake-up or a deadlock
    // stops the counter: no change for 60 s ends the wait. (It can change 4,000 times at most,
    // so the wait ends either way; how long it took is printed, not judged.)
    // The counter is read as a reader should, coordinated: the helpers write it in place, and
    // an uncoordinated read often lands between a writer's truncation and its write (under
    // load, every read of a whole minute did, and the counter looked stuck at "").
    let reader = FileCoordinator(location: location)
    var seen = ""
    var lastChange = ContinuousClock.now
    while helpers.contains(where: { $0.isRunning }) {
      let now = (try? await reader.coordinate(readingItemAt: counter) { url in try String(contentsOf: url, encoding: .utf8) }) ?? seen
      if now != seen {
        seen = now
        lastChange = .now
      } else if ContinuousClock.now - lastChange > .seconds(60) {
        Issue.record(
          "the counter was at \(seen.trimmingCharacters(in: .whitespacesAndNewlines)) after \(ContinuousClock.now - start), unchanged for \(ContinuousClock.now - lastChange)"
        )
        break
      }
      try await Task.sleep(for: .milliseconds(50))
    }
    for helper in helpers {
      #expect(await helper.waitForExit(within: .seconds(10)) == 0)
      helper.kill(SIGTERM)
    }
    let elapsed = ContinuousClock.now - start
    print("8 processes × 500 coordinated increments took \(elapsed)")
    let value = try String(contentsOf: counter, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    #expect(value == "4000")
  }

  @Test func aReaderNeverSeesAHalfWrittenFile() async throws {
    let file = try folder.write(String(repeating: "A", count: 64 * 1024), to: "big.txt")
    let writer = try startHelper([runtime, "write-loop", file.path, "300"])
    let coordinator = FileCoordinator(location: location)
    var reads = 0
    var torn = 0
    while writer.isRunning || reads < 20 {
      let data = try await coordinator.coordinate(readingItemAt: file) { url in try Data(contentsOf: url) }
      reads += 1
      if data.count != 64 * 1024 || Set(data).count != 1 { torn += 1 }
    }
    #expect(await writer.waitForExit() == 0)
    #expect(torn == 0, "\(torn) of \(reads) coordinated reads saw a half-written file")
    #expect(reads >= 20)
  }

  @Test func aPresenterInAnotherProcessSavesBeforeThisOneReads() async throws {
    let file = try folder.write("on disk\n", to: "shared.md")
    let presenter = try startHelper([runtime, "present", file.path, "from B\n"])
    #expect(await presenter.waitForLine(startingWith: "ready") != nil)
    let text = try await FileCoordinator(location: location).coordinate(readingItemAt: file) { url in
      try String(contentsOf: url, encoding: .utf8)
    }
    #expect(text == "from B\n")
    #expect(await presenter.waitForLine(startingWith: "reacquire") != nil)
    let heard = presenter.lines
    #expect(heard.firstIndex(of: "saved") ?? 99 < heard.firstIndex(of: "relinquish-to-reader") ?? -1)
    presenter.closeInput()
    #expect(await presenter.waitForExit() == 0)
  }

  @Test func readingWithoutChangesDoesNotAskToSave() async throws {
    let file = try folder.write("on disk\n", to: "shared.md")
    let presenter = try startHelper([runtime, "present", file.path, "from B\n"])
    #expect(await presenter.waitForLine(startingWith: "ready") != nil)
    let text = try await FileCoordinator(location: location).coordinate(readingItemAt: file, options: .withoutChanges) { url in
      try String(contentsOf: url, encoding: .utf8)
    }
    #expect(text == "on disk\n")
    #expect(await presenter.waitForLine(startingWith: "relinquish-to-reader") != nil)
    #expect(!presenter.lines.contains("save"))
    presenter.closeInput()
  }

  @Test func coordinatedRenameAndDeleteReachAPresenterInAnotherProcess() async throws {
    let file = try folder.write("text\n", to: "before.md")
    let moved = folder.file("after.md")
    let presenter = try startHelper([runtime, "present", file.path, ""])
    #expect(await presenter.waitForLine(startingWith: "ready") != nil)
    let coordinator = FileCoordinator(location: location)
    try await coordinator.coordinate(writingItemAt: file, options: .forMoving, writingItemAt: moved, options: .forReplacing) { from, to in
      try FileManager.default.moveItem(at: from, to: to)
      coordinator.item(at: from, didMoveTo: to)
    }
    #expect(await presenter.waitForLine(startingWith: "moved") == "moved \(moved.path)")
    try await coordinator.coordinate(writingItemAt: moved, options: .forDeleting) { url in
      try FileManager.default.removeItem(at: url)
    }
    #expect(await presenter.waitForLine(startingWith: "deleted") != nil)
    // The deletion is reported once in the presenter's whole life, though inotify saw it too:
    // counted once the helper has ended (its output read to the end), not after a pause.
    presenter.closeInput()
    #expect(await presenter.waitForExit() == 0)
    #expect(presenter.output.waitForEndBlocking())
    #expect(presenter.lines.filter { $0 == "deleted" }.count == 1)
  }

  @Test func aCoordinatedWriteInAnotherProcessReachesAPresenterHere() async throws {
    let file = try folder.write("0\n", to: "watched.txt")
    let presenter = RecordingPresenter(file, location: location)
    try FileCoordinator.addFilePresenter(presenter, location: location)
    defer { FileCoordinator.removeFilePresenter(presenter) }
    let writer = try startHelper([runtime, "increment", file.path, "1"])
    #expect(await writer.waitForExit() == 0)
    #expect(await presenter.waitFor("relinquish-to-writer") != nil)
    #expect(await presenter.waitFor("reacquire") != nil)
    #expect(await presenter.waitFor("changed") != nil)
  }

  @Test func aWriterKilledMidWriteReleasesItsAccess() async throws {
    let file = try folder.write("whole\n", to: "victim.txt")
    let holder = try startHelper([runtime, "hold-write", file.path])
    #expect(await holder.waitForLine(startingWith: "holding") != nil)
    // While it holds the item, a reader times out and is told who holds it.
    let coordinator = FileCoordinator(location: location)
    expectQuireError(.timedOut, reasonContains: "process \(holder.pid)", "quire-coordinat", "writing", "since") {
      try coordinator.coordinate(readingItemAt: file, timeout: .milliseconds(150)) { _ in }
    }
    holder.kill()
    _ = await holder.waitForExit()
    let text = try await coordinator.coordinate(writingItemAt: file, timeout: .seconds(5)) { url in
      try Data("repaired\n".utf8).write(to: url)
      return try String(contentsOf: url, encoding: .utf8)
    }
    #expect(text == "repaired\n")
  }

  @Test func aPresenterReacquiresWhenTheWriterInAnotherProcessDies() async throws {
    let file = try folder.write("x\n", to: "presented.txt")
    let presenter = RecordingPresenter(file, location: location)
    try FileCoordinator.addFilePresenter(presenter, location: location)
    defer { FileCoordinator.removeFilePresenter(presenter) }
    let holder = try startHelper([runtime, "hold-write", file.path])
    #expect(await holder.waitForLine(startingWith: "holding") != nil)
    #expect(presenter.texts.contains("relinquish-to-writer"))
    #expect(!presenter.texts.contains("reacquire"))
    holder.kill()
    #expect(await presenter.waitFor("reacquire") != nil)
  }

  @Test func aFolderPresenterInAnotherProcessHearsOfACoordinatedWriteInside() async throws {
    let box = folder.file("box")
    try FileManager.default.createDirectory(at: box, withIntermediateDirectories: false)
    let presenter = try startHelper([runtime, "present", box.path, ""])
    #expect(await presenter.waitForLine(startingWith: "ready") != nil)
    let file = box.appendingPathComponent("inside.md")
    try await FileCoordinator(location: location).coordinate(writingItemAt: file) { url in
      try Data("new\n".utf8).write(to: url)
    }
    #expect(await presenter.waitForLine(startingWith: "subitem") == "subitem \(file.path)")
    presenter.closeInput()
  }
}
