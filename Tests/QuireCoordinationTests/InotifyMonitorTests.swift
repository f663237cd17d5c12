import Foundation
import QuireCoordination
import QuireTestSupport
import QuireTypes
import Testing

@Suite("inotify: file changes as an async sequence")
final class InotifyMonitorTests {
  let folder: TemporaryFolder
  init() throws { folder = try TemporaryFolder() }
  deinit { folder.remove() }

  /// The first event from `stream` matching `kind`, or nil after `seconds`.
  func firstEvent(
    _ stream: AsyncStream<FileSystemEvent>, matching kind: FileSystemEvent.Kind, within seconds: Double = 5
  ) async -> FileSystemEvent? {
    await withTaskGroup(of: FileSystemEvent?.self) { group in
      group.addTask {
        for await event in stream where !event.kind.intersection(kind).isEmpty { return event }
        return nil
      }
      group.addTask {
        try? await Task.sleep(for: .seconds(seconds))
        return nil
      }
      let first = await group.next() ?? nil
      group.cancelAll()
      return first
    }
  }

  @Test func seesAWriteToAWatchedFile() async throws {
    let url = try folder.write("one\n", to: "watched.txt")
    let events = try InotifyMonitor.shared.events(at: url.path)
    let handle = try FileHandle(forWritingTo: url)
    try handle.seekToEnd()
    try handle.write(contentsOf: Data("two\n".utf8))
    try handle.close()
    let event = await firstEvent(events, matching: .modified)
    #expect(event?.watchedPath == url.path)
    #expect(event?.kind.contains(.modified) == true)
  }

  @Test func seesACreationInAWatchedFolder() async throws {
    let events = try InotifyMonitor.shared.events(at: folder.url.path)
    try folder.write("new\n", to: "created.txt")
    let event = await firstEvent(events, matching: .created)
    #expect(event?.name == "created.txt")
  }

  @Test func missingPathFailsClearly() {
    let path = folder.file("absent").path
    #expect { try InotifyMonitor.shared.events(at: path) } throws: { error in
      let error = error as? QuireError
      return error?.code == .fileMissing && error?.reason.contains("absent") == true
    }
  }
}
