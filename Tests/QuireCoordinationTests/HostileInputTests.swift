import Foundation
import QuireCoordination
import QuireTestSupport
import QuireTypes
import Testing

/// Odd and hostile inputs: long and odd names, a symlink planted where a lock file goes,
/// garbage in the presenter registry and in lock files.
@Suite("Hostile input to coordination")
final class HostileInputTests: CoordinationSuite {
  var locks: URL { location.runtimeFolder.appendingPathComponent("quire/locks") }

  @Test func aPathLongerThanTheSystemAllowsFailsClearly() {
    let long = folder.file(String(repeating: "n", count: 300))
    expectQuireError(.invalidArgument, reasonContains: "longer") {
      try FileCoordinator(location: location).coordinate(readingItemAt: long) { _ in }
    }
  }

  @Test func writingBelowAFileFailsClearly() throws {
    let file = try folder.write("x\n", to: "plain.txt")
    expectQuireError(.fileMissing, reasonContains: "not a folder") {
      try FileCoordinator(location: location).coordinate(writingItemAt: file.appendingPathComponent("inside.txt")) { _ in }
    }
  }

  @Test func aSymlinkPlantedAsALockFileIsNotFollowed() throws {
    let file = try folder.write("x\n", to: "target.md")
    let coordinator = FileCoordinator(location: location)
    try coordinator.coordinate(readingItemAt: folder.url) { _ in }  // makes the locks folder
    let victim = try folder.write("precious\n", to: "victim.txt")
    // Plant a symlink where the item's own lock file goes.
    let planted = try plantedLockNames(for: file)
    for name in planted {
      try FileManager.default.createSymbolicLink(at: locks.appendingPathComponent(name), withDestinationURL: victim)
    }
    expectQuireError(.systemCallFailed, reasonContains: "lock file") {
      try coordinator.coordinate(writingItemAt: file) { _ in }
    }
    #expect(try String(contentsOf: victim, encoding: .utf8) == "precious\n")
  }

  /// The lock file name of `file` (the one that does not exist yet after locking its folder).
  func plantedLockNames(for file: URL) throws -> [String] {
    let before = Set(try FileManager.default.contentsOfDirectory(atPath: locks.path))
    let probe = FileCoordinator(location: location)
    try probe.coordinate(readingItemAt: file) { _ in }
    let after = Set(try FileManager.default.contentsOfDirectory(atPath: locks.path))
    let new = after.subtracting(before)
    for name in new { try FileManager.default.removeItem(at: locks.appendingPathComponent(name)) }
    return Array(new)
  }

  @Test func garbageInThePresenterRegistryIsIgnored() throws {
    let file = try folder.write("x\n", to: "doc.md")
    let registry = location.runtimeFolder.appendingPathComponent("quire/presenters")
    try FileManager.default.createDirectory(at: registry, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    try Data("{not json".utf8).write(to: registry.appendingPathComponent("4194305.json"))
    try Data(#"{"pid": 1, "program": "x", "paths": ["\#(file.path)"]}"#.utf8).write(to: registry.appendingPathComponent("4194306.json"))
    try Data(repeating: 0xff, count: 10_000).write(to: registry.appendingPathComponent("4194307.json"))
    try Data(#"{"pid": 4194308, "program": "gone", "paths": ["\#(file.path)"]}"#.utf8).write(to: registry.appendingPathComponent("4194308.json"))
    let text = try FileCoordinator(location: location).coordinate(readingItemAt: file, timeout: .seconds(2)) { url in
      try String(contentsOf: url, encoding: .utf8)
    }
    #expect(text == "x\n")
    // The entry of a process that is gone, whose socket is missing, was cleaned up.
    #expect(!FileManager.default.fileExists(atPath: registry.appendingPathComponent("4194308.json").path))
  }

  @Test func theEntryOfAProcessThatIsGoneIsRemovedWhenTheRegistryIsRead() async throws {
    let file = try folder.write("x\n", to: "doc.md")
    let registry = location.runtimeFolder.appendingPathComponent("quire/presenters")
    try FileManager.default.createDirectory(at: registry, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    // A process that ran and ended: its pid names no process now.
    let ended = try await ChildProcess.run(try #require(Programs.system("sh")), ["-c", "echo $$"])
    let pid = try #require(Int32(ended.output.trimmingCharacters(in: .whitespacesAndNewlines)))
    let entry = registry.appendingPathComponent("\(pid).json")
    try Data(#"{"pid": \#(pid), "program": "killed", "paths": ["\#(file.path)"]}"#.utf8).write(to: entry)
    #expect(!FileCoordinator.isItemPresented(at: file, location: location))
    #expect(!FileManager.default.fileExists(atPath: entry.path), "the entry of process \(pid), which is gone, is still there")
  }

  @Test func anEntryLargerThanAMebibyteIsNotRead() throws {
    let file = try folder.write("x\n", to: "doc.md")
    let registry = location.runtimeFolder.appendingPathComponent("quire/presenters")
    try FileManager.default.createDirectory(at: registry, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    // A live process (this one's parent), an entry that is JSON but padded past 1 MiB.
    let pid = getppid()
    let json = #"{"pid": \#(pid), "program": "big", "paths": ["\#(file.path)"]}"# + String(repeating: " ", count: 1 << 20)
    try Data(json.utf8).write(to: registry.appendingPathComponent("\(pid).json"))
    #expect(!FileCoordinator.isItemPresented(at: file, location: location))
  }

  @Test func garbageHolderRecordsAreIgnored() throws {
    let file = try folder.write("x\n", to: "doc.md")
    let coordinator = FileCoordinator(location: location)
    try coordinator.coordinate(readingItemAt: file) { _ in }
    for name in try FileManager.default.contentsOfDirectory(atPath: locks.path) {
      let handle = try FileHandle(forWritingTo: locks.appendingPathComponent(name))
      try handle.seek(toOffset: 4096)
      try handle.write(contentsOf: Data(repeating: 0x09, count: 20_000))
      try handle.close()
    }
    #expect(try coordinator.coordinate(writingItemAt: file, timeout: .seconds(1)) { _ in true })
  }

  @Test func aFolderPresenterSurvivesANameThatIsNotUTF8() async throws {
    let box = folder.file("box")
    try FileManager.default.createDirectory(at: box, withIntermediateDirectories: false)
    let presenter = RecordingPresenter(box, location: location)
    try FileCoordinator.addFilePresenter(presenter, location: location)
    defer { FileCoordinator.removeFilePresenter(presenter) }
    var bytes = Array((box.path + "/").utf8) + [0x66, 0xff, 0xfe, 0x2e, 0x74, 0x78, 0x74, 0]
    let fd = bytes.withUnsafeMutableBufferPointer { buffer in
      buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { open($0, O_CREAT | O_WRONLY, 0o600) }
    }
    #expect(fd >= 0)
    close(fd)
    #expect(await presenter.waitFor("subitem") != nil)
  }
}
