import Foundation
@_spi(Testing) import QuireDocuments
import QuireSystem
import QuireTestSupport
import QuireTypes
import SystemPackage
import Testing

@Suite("Versions")
final class VersionStoreTests: FolderSuite {
  var store: VersionStore { VersionStore(root: folder.file("state/quire/versions")) }

  /// What a document's save does: keep the old content, then write the new atomically.
  func save(_ text: String, to url: URL, in store: VersionStore? = nil) throws {
    try (store ?? self.store).keepVersion(of: url)
    try FileWrapper(regularFileWithContents: Data(text.utf8)).write(to: url, options: .atomic)
  }

  func read(_ url: URL) throws -> String { String(decoding: try Data(contentsOf: url), as: UTF8.self) }

  @Test func fiveSavesRestoreTheSecondThenUndo() throws {
    let url = folder.file("notes.md")
    try Data("v0".utf8).write(to: url)
    for number in 1...5 { try save("v\(number)", to: url) }
    let versions = try store.versions(ofItemAt: url)
    #expect(versions.count == 5)
    #expect(try versions.map { String(decoding: try store.contents(of: $0), as: UTF8.self) } == ["v0", "v1", "v2", "v3", "v4"])
    #expect(versions.map(\.savedDate) == versions.map(\.savedDate).sorted())
    // Restore the second version.
    let restoration = try store.restore(versions[1])
    #expect(try read(url) == "v1")
    #expect(try store.versions(ofItemAt: url).count == 6)  // "v5" was kept first
    // Undo the restore.
    try store.undoRestoration(restoration)
    #expect(try read(url) == "v5")
    // Redo: restoring the same version again.
    try store.restore(restoration.restored)
    #expect(try read(url) == "v1")
  }

  @Test func identicalContentIsStoredOnce() throws {
    let a = folder.file("a.md")
    let b = folder.file("b.md")
    try Data(String(repeating: "same ", count: 1000).utf8).write(to: a)
    try Data(String(repeating: "same ", count: 1000).utf8).write(to: b)
    try store.keepVersion(of: a)
    try store.keepVersion(of: b)
    let again = try store.keepVersion(of: a)  // unchanged since: nothing new
    #expect(try store.versions(ofItemAt: a).count == 1)
    #expect(again == (try store.versions(ofItemAt: a).first))
    #expect(try store.totalSize() == 5000)
  }

  @Test func versionsOfADeletedFileCanBeListedAndRestored() throws {
    let url = folder.file("gone.md")
    try Data("first".utf8).write(to: url)
    try save("second", to: url)
    try FileManager.default.removeItem(at: url)
    let versions = try store.versions(ofItemAt: url)
    #expect(versions.count == 1)
    #expect(try store.itemsWithVersions() == [url.path])
    let restoration = try store.restore(versions[0])
    #expect(restoration.previous == nil)
    #expect(try read(url) == "first")
    try store.undoRestoration(restoration)
    #expect(!FileManager.default.fileExists(atPath: url.path))
  }

  @Test func countIsBoundedOldestFirst() throws {
    let small = VersionStore(root: folder.file("small"), limits: .init(maximumVersionsPerFile: 3))
    let url = folder.file("n.md")
    try Data("0".utf8).write(to: url)
    for number in 1...6 { try save("\(number)", to: url, in: small) }
    let kept = try small.versions(ofItemAt: url).map { String(decoding: try small.contents(of: $0), as: UTF8.self) }
    #expect(kept == ["3", "4", "5"])
    #expect(try small.totalSize() == 3)  // unreferenced content was removed
  }

  @Test func sizeIsBoundedAcrossFiles() throws {
    let small = VersionStore(root: folder.file("small"), limits: .init(maximumTotalBytes: 2500))
    let a = folder.file("a")
    let b = folder.file("b")
    try Data(repeating: 1, count: 1000).write(to: a)
    try small.keepVersion(of: a)
    try Data(repeating: 2, count: 1000).write(to: b)
    try small.keepVersion(of: b)
    try Data(repeating: 3, count: 1000).write(to: a)
    try small.keepVersion(of: a)  // 3000 bytes > 2500: the oldest (a's first) goes
    #expect(try small.totalSize() == 2000)
    #expect(try small.versions(ofItemAt: a).map(\.size) == [1000])
    #expect(try small.versions(ofItemAt: b).count == 1)
  }

  @Test func storeIsPrivate() throws {
    let url = folder.file("p.md")
    try Data("x".utf8).write(to: url)
    let version = try #require(try store.keepVersion(of: url))
    var info = stat()
    #expect(lstat(store.root.path, &info) == 0 && info.st_mode & 0o777 == 0o700)
    #expect(lstat(store.readOnlyURL(of: version).path, &info) == 0 && info.st_mode & 0o777 == 0o400)
    let items = try FileManager.default.contentsOfDirectory(atPath: store.root.appendingPathComponent("items").path)
    #expect(lstat(store.root.appendingPathComponent("items/\(items[0])").path, &info) == 0 && info.st_mode & 0o777 == 0o600)
  }

  @Test func defaultRootFollowsXDGStateHome() {
    #expect(VersionStore.defaultRoot(environment: ["XDG_STATE_HOME": "/s", "HOME": "/h"]).path == "/s/quire/versions")
    #expect(VersionStore.defaultRoot(environment: ["XDG_STATE_HOME": "relative", "HOME": "/h"]).path == "/h/.local/state/quire/versions")
  }

  @Test func missingFileKeepsNothing() throws {
    #expect(try store.keepVersion(of: folder.file("none")) == nil)
    #expect(try store.versions(ofItemAt: folder.file("none")).isEmpty)
  }

  @Test func symbolicLinkAsStoreRootIsRefused() throws {
    let target = folder.file("elsewhere")
    try FileManager.default.createDirectory(at: target, withIntermediateDirectories: false)
    #expect(symlink(target.path, folder.file("linked").path) == 0)
    let linked = VersionStore(root: folder.file("linked"))
    let url = try folder.write("x", to: "f")
    let error = #expect(throws: QuireError.self) { try linked.keepVersion(of: url) }
    #expect(error?.reason.contains("not a folder") == true)
  }

  @Test func damagedIndexGivesAClearError() throws {
    let url = try folder.write("x", to: "f")
    try store.keepVersion(of: url)
    let items = store.root.appendingPathComponent("items")
    let name = try #require(try FileManager.default.contentsOfDirectory(atPath: items.path).first)
    try Data([0xFF, 0x00, 0x7B]).write(to: items.appendingPathComponent(name))
    let error = #expect(throws: QuireError.self) { try self.store.versions(ofItemAt: url) }
    #expect(error?.code == .invalidContent)
  }

  /// Writes made by a restore: the current content's object (1) and index (2), then the file (3).
  @Test(arguments: [1, 2, 3])
  func failedRestoreLeavesTheFile(failingWrite: Int) throws {
    let url = folder.file("r.md")
    try Data("one".utf8).write(to: url)
    try save("two", to: url)
    let version = try #require(try store.versions(ofItemAt: url).first)
    try Data("three".utf8).write(to: url)
    let faults = FaultPlan(failing: .write, with: .noSpace, occurrence: failingWrite, under: folder.url.path)
    let error = #expect(throws: QuireError.self) { try faults.run { try self.store.restore(version) } }
    #expect(error?.reason.contains("disk is full") == true)
    #expect(try read(url) == "three")
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted() == ["r.md", "state"])
  }

  /// Issue 16, finding 14: when the index cannot be written (a full disk), the object stored
  /// for it goes too: nothing in `objects/` that no index names.
  @Test func aVersionRefusedForAFullDiskLeavesNoOrphanObject() throws {
    let url = folder.file("full.md")
    try Data("kept before".utf8).write(to: url)
    // Write 1 is the object, write 2 the index.
    let faults = FaultPlan(failing: .write, with: .noSpace, occurrence: 2, under: folder.url.path)
    #expect(throws: QuireError.self) { try faults.run { try self.store.keepVersion(of: url) } }
    let objects = store.root.appendingPathComponent("objects")
    #expect(try FileManager.default.contentsOfDirectory(atPath: objects.path).isEmpty)
    #expect(try store.versions(ofItemAt: url).isEmpty)
  }
}
