import Foundation
@_spi(Testing) import QuireCoordination
import QuireTestSupport
import QuireTypes
import Testing

@Suite("inotify: file changes as an async sequence")
final class InotifyMonitorTests: FolderSuite {

  /// The first event from `stream` matching `kind`, or nil after `limit` (generous: it returns
  /// as soon as the event comes).
  func firstEvent(
    _ stream: AsyncStream<FileSystemEvent>, matching kind: FileSystemEvent.Kind, within limit: Duration = patience
  ) async -> FileSystemEvent? {
    await withTaskGroup(of: FileSystemEvent?.self) { group in
      group.addTask {
        for await event in stream where !event.kind.intersection(kind).isEmpty { return event }
        return nil
      }
      group.addTask {
        try? await Task.sleep(for: limit)
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
    expectQuireError(.fileMissing, reasonContains: "absent") { try InotifyMonitor.shared.events(at: path) }
  }

  // MARK: The libinotifytools shim

  /// Appends `text` to the file at `url`, as an in-place write.
  func append(_ text: String, to url: URL) throws {
    let handle = try FileHandle(forWritingTo: url)
    try handle.seekToEnd()
    try handle.write(contentsOf: Data(text.utf8))
    try handle.close()
  }

  /// Replaces the file at `url` the way editors save: write beside, rename over.
  func replaceAtomically(_ url: URL, with text: String) throws {
    let beside = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).new")
    try Data(text.utf8).write(to: beside)
    #expect(rename(beside.path, url.path) == 0, "rename failed: errno \(errno)")
  }

  func inode(_ path: String) throws -> Int? {
    try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int
  }

  @Test func aWatchIsFiledInLibinotifytoolsAndItsEventsComeThrough() async throws {
    let url = try folder.write("one\n", to: "shim.txt")
    let events = try InotifyMonitor.shared.events(at: url.path)
    let watch = try #require(try InotifyMonitor.shared.libraryWatch(at: url.path))
    // libinotifytools' own tables hold the watch, both ways round.
    #expect(watch.name == url.path)
    #expect(watch.descriptorForName == watch.descriptor)
    try append("two\n", to: url)
    let event = await firstEvent(events, matching: .modified)
    #expect(event?.watchedPath == url.path)
  }

  @Test func aPathWatchedAgainAfterAtomicReplacementsSeesEachNewFile() async throws {
    let url = try folder.write("version 0\n", to: "saved.txt")
    var descriptors: Set<Int32> = []
    for version in 1...3 {
      let before = try InotifyMonitor.shared.events(at: url.path)
      let old = try #require(try InotifyMonitor.shared.libraryWatch(at: url.path))
      descriptors.insert(old.descriptor)
      try replaceAtomically(url, with: "version \(version)\n")
      // The kernel drops the old file's watch; libinotifytools keeps its name.
      let removed = await firstEvent(before, matching: .watchRemoved)
      #expect(removed != nil, "the replaced file's watch was not removed (version \(version))")

      let after = try InotifyMonitor.shared.events(at: url.path)
      let new = try #require(try InotifyMonitor.shared.libraryWatch(at: url.path))
      #expect(new.descriptor != old.descriptor)
      #expect(new.descriptorForName == new.descriptor, "libinotifytools maps \(new.name) elsewhere")
      // Filed under another spelling of the same path, since the old name is still taken.
      #expect(new.name != url.path)
      #expect(try inode(new.name) == inode(url.path))
      try append("more\n", to: url)
      let event = await firstEvent(after, matching: .modified)
      #expect(event?.watchedPath == url.path, "the re-armed watch saw nothing (version \(version))")
    }
    #expect(descriptors.count == 3)
  }

  @Test func aDeletedAndRecreatedFileIsWatchedAfresh() async throws {
    let url = try folder.write("first\n", to: "again.txt")
    let before = try InotifyMonitor.shared.events(at: url.path)
    try FileManager.default.removeItem(at: url)
    #expect(await firstEvent(before, matching: .deletedSelf) != nil)
    _ = try folder.write("second\n", to: "again.txt")
    let after = try InotifyMonitor.shared.events(at: url.path)
    try append("third\n", to: url)
    #expect(await firstEvent(after, matching: .modified)?.watchedPath == url.path)
  }

  @Test func aMovedFileKeepsItsWatchAndANewFileAtItsPathGetsItsOwn() async throws {
    let url = try folder.write("moving\n", to: "here.txt")
    let moved = folder.file("there.txt")
    let first = try InotifyMonitor.shared.events(at: url.path)
    let firstWatch = try #require(try InotifyMonitor.shared.libraryWatch(at: url.path))
    try FileManager.default.moveItem(at: url, to: moved)
    _ = try folder.write("new\n", to: "here.txt")
    let second = try InotifyMonitor.shared.events(at: url.path)
    let secondWatch = try #require(try InotifyMonitor.shared.libraryWatch(at: url.path))
    #expect(secondWatch.descriptor != firstWatch.descriptor)
    #expect(secondWatch.descriptorForName == secondWatch.descriptor)
    try append("to the moved file\n", to: moved)
    try append("to the new file\n", to: url)
    // The first watch follows the moved file (inotify watches inodes); the second, the new one.
    #expect(await firstEvent(first, matching: .modified) != nil)
    #expect(await firstEvent(second, matching: .modified) != nil)
  }

  @Test func twoSubscribersOfOneFileShareItsWatchAndOneLeavingKeepsTheOther() async throws {
    let url = try folder.write("shared\n", to: "shared.txt")
    let one = try InotifyMonitor.shared.events(at: url.path)
    let first = try InotifyMonitor.shared.libraryWatch(at: url.path)
    let two = try InotifyMonitor.shared.events(at: url.path)
    #expect(try InotifyMonitor.shared.libraryWatch(at: url.path) == first)
    // Ending the first sequence unsubscribes it; the watch stays for the second.
    try append("a\n", to: url)
    #expect(await firstEvent(one, matching: .modified) != nil)
    try append("b\n", to: url)
    #expect(await firstEvent(two, matching: .modified) != nil)
  }
}
