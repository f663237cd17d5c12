import Foundation
import QuireCore
import QuireSystem
import QuireTestSupport
import QuireTypes
import SystemPackage
import Testing

@testable import QuireDocuments

/// A save keeps the version it replaces by handing the swapped-out file to the store: moved in
/// when nobody else can change it, copied otherwise; either way the kept bytes are the old
/// file's, exactly, and the save itself never fails for it.
@Suite("Versions: the replaced file kept by the save")
@MainActor
final class ReplacedVersionTests: MainActorFolderSuite {
  /// Bytes no text decoder would pass: NUL, an invalid UTF-8 sequence, no final newline.
  static let oldBytes = Data("first line\n".utf8) + Data([0x00, 0xFF, 0xFE, 0x0A]) + Data("unended".utf8)

  func controller() -> DocumentController {
    let controller = quietController(in: folder)
    return controller
  }

  func inode(_ url: URL) -> UInt64? {
    var info = stat()
    return lstat(url.path, &info) == 0 ? UInt64(info.st_ino) : nil
  }

  func mode(_ url: URL) -> mode_t? {
    var info = stat()
    return lstat(url.path, &info) == 0 ? info.st_mode & 0o7777 : nil
  }

  /// A document that holds bytes exactly (as the REPL's do), opened on `url`.
  func openExactly(_ url: URL, store: VersionStore) async throws -> PlainTextDocument {
    try await openQuietly(PlainTextDocument(fileURL: url)) {
      $0.readsBytesExactly = true
      $0.versionStore = store
    }
  }

  /// The names beside the document other than its own (a save's temporary files).
  func leftovers(_ folder: URL, besides name: String) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0 != name }
  }

  @Test func theReplacedFileIsMovedIntoTheStoreAndRestoresByteForByte() async throws {
    let docs = folder.file("docs")
    try FileManager.default.createDirectory(at: docs, withIntermediateDirectories: false)
    let url = docs.appendingPathComponent("notes.txt")
    try Self.oldBytes.write(to: url)
    let oldInode = try #require(inode(url))
    let store = VersionStore(root: folder.file("state/versions"))
    let document = try await openExactly(url, store: store)
    try document.replaceText(with: "second\n")
    try await document.save()
    #expect(document.lastVersioningError == nil)
    #expect(try Data(contentsOf: url) == Data("second\n".utf8))
    let version = try #require(try document.versions().first)
    let object = store.readOnlyURL(of: version)
    // The very file that was replaced, not a copy of it; read-only, in the private store.
    #expect(inode(object) == oldInode)
    #expect(mode(object) == 0o400)
    #expect(mode(store.root.appendingPathComponent("objects")) == 0o700)
    #expect(try store.contents(of: version) == Self.oldBytes)
    #expect(version.size == Self.oldBytes.count)
    #expect(version.contentHash == ContentDigest.sha256(Self.oldBytes))
    #expect(try leftovers(docs, besides: "notes.txt").isEmpty)
    // Restoring brings the exact bytes back, as an undoable change.
    try document.restoreVersion(version)
    try await document.save()
    #expect(try Data(contentsOf: url) == Self.oldBytes)
    #expect(try document.versions().count == 2)
    #expect(try store.contents(of: try document.versions()[1]) == Data("second\n".utf8))
  }

  @Test func aFileSomeoneStillHasOpenIsCopiedSoTheirWritesCannotChangeTheVersion() async throws {
    let url = try folder.write(String(decoding: Self.oldBytes, as: UTF8.self), to: "open.txt")
    try Self.oldBytes.write(to: url)
    let oldInode = try #require(inode(url))
    let store = VersionStore(root: folder.file("state/versions"))
    let document = try await openExactly(url, store: store)
    // Another program holds the file open for writing through the save.
    let holder = try FileHandle(forUpdating: url)
    defer { try? holder.close() }
    try document.replaceText(with: "new\n")
    try await document.save()
    #expect(document.lastVersioningError == nil)
    let version = try #require(try document.versions().first)
    #expect(inode(store.readOnlyURL(of: version)) != oldInode)
    // It writes into the replaced file: the kept version does not change.
    try holder.seek(toOffset: 0)
    try holder.write(contentsOf: Data("SCRIBBLE".utf8))
    try holder.synchronize()
    #expect(try store.contents(of: version) == Self.oldBytes)
    #expect(try Data(contentsOf: url) == Data("new\n".utf8))
  }

  @Test func aFileWithAnotherNameIsCopiedBeforeItIsRewrittenInPlace() async throws {
    let url = folder.file("linked.txt")
    try Self.oldBytes.write(to: url)
    let other = folder.file("other-name.txt")
    #expect(link(url.path, other.path) == 0)
    let store = VersionStore(root: folder.file("state/versions"))
    let document = try await openExactly(url, store: store)
    try document.replaceText(with: "both names see this\n")
    try await document.save()
    let version = try #require(try document.versions().first)
    #expect(try store.contents(of: version) == Self.oldBytes)
    #expect(inode(store.readOnlyURL(of: version)) != inode(url))
    #expect(try Data(contentsOf: other) == Data("both names see this\n".utf8))
  }

  @Test func contentTheStoreHasAlreadyIsNotStoredTwiceAndTheReplacedFileGoes() async throws {
    let store = VersionStore(root: folder.file("state/versions"))
    let first = folder.file("a.txt")
    let second = folder.file("b.txt")
    try Self.oldBytes.write(to: first)
    try Self.oldBytes.write(to: second)
    for url in [first, second] {
      let document = try await openExactly(url, store: store)
      try document.replaceText(with: "edited \(url.lastPathComponent)\n")
      try await document.save()
    }
    let objects = try FileManager.default.contentsOfDirectory(atPath: store.root.appendingPathComponent("objects").path)
    #expect(objects == [ContentDigest.sha256(Self.oldBytes)])
    #expect(try store.versions(ofItemAt: second).count == 1)
    #expect(try leftovers(folder.url, besides: "a.txt").sorted() == ["b.txt", "state"])
  }

  /// The store's objects folder replaced by a symbolic link to a folder someone else chose:
  /// nothing is moved or written there, and the save succeeds with the reason noted.
  @Test func aSymbolicLinkPlantedAsTheObjectsFolderIsRefused() async throws {
    let store = VersionStore(root: folder.file("state/versions"))
    let url = try folder.write("", to: "planted.txt")
    try Self.oldBytes.write(to: url)
    let document = try await openExactly(url, store: store)
    try FileManager.default.createDirectory(at: store.root, withIntermediateDirectories: true)
    let elsewhere = folder.file("elsewhere")
    try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: false)
    #expect(symlink(elsewhere.path, store.root.appendingPathComponent("objects").path) == 0)
    try document.replaceText(with: "saved anyway\n")
    try await document.save()
    #expect(try Data(contentsOf: url) == Data("saved anyway\n".utf8))
    #expect(document.lastVersioningError?.reason.contains("not a folder") == true)
    #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path).isEmpty)
    #expect(try leftovers(folder.url, besides: "planted.txt").sorted() == ["elsewhere", "state"])
  }

  // MARK: Failures of the steps (FileSaver with a keeper, as a document's save calls it)

  /// The move into the store fails: the save has succeeded, the reason is noted, the replaced
  /// file is removed from beside the document as after any save, and the store names nothing.
  @Test func aFailedMoveLeavesTheSaveDoneAndNoOrphan() throws {
    let store = VersionStore(root: folder.file("state/versions"))
    let url = folder.file("moved.txt")
    try Self.oldBytes.write(to: url)
    let keeper = ReplacedVersionKeeper(store: store)
    let objects = store.root.appendingPathComponent("objects")
    let faults = FaultPlan(failing: .rename, with: .ioError, occurrence: 1, under: objects.path)
    try faults.run { try FileSaver.write(.data(Data("new\n".utf8)), to: url, options: .standard, keeper: keeper) }
    #expect(keeper.error?.reason.contains("moving it there") == true)
    #expect(try Data(contentsOf: url) == Data("new\n".utf8))
    #expect(try leftovers(folder.url, besides: "moved.txt") == ["state"])
    #expect(try FileManager.default.contentsOfDirectory(atPath: objects.path).isEmpty)
    #expect(try store.versions(ofItemAt: url).isEmpty)
  }

  /// The lease is refused (someone opened the file between the swap and the keep): the
  /// version is a copy, and the replaced file goes.
  @Test func aRefusedLeaseKeepsACopy() throws {
    let store = VersionStore(root: folder.file("state/versions"))
    let docs = folder.file("docs")
    try FileManager.default.createDirectory(at: docs, withIntermediateDirectories: false)
    let url = docs.appendingPathComponent("leased.txt")
    try Self.oldBytes.write(to: url)
    let oldInode = try #require(inode(url))
    let keeper = ReplacedVersionKeeper(store: store)
    let faults = FaultPlan(failing: .lock, with: .wouldBlock, occurrence: 1, under: docs.path)
    try faults.run { try FileSaver.write(.data(Data("new\n".utf8)), to: url, options: .standard, keeper: keeper) }
    #expect(keeper.error == nil)
    let version = try #require(try store.versions(ofItemAt: url).first)
    #expect(try store.contents(of: version) == Self.oldBytes)
    #expect(inode(store.readOnlyURL(of: version)) != oldInode)
    #expect(try leftovers(docs, besides: "leased.txt").isEmpty)
  }

  /// A save that fails before the swap keeps nothing and changes nothing.
  @Test func aFailedSaveKeepsNoVersion() throws {
    let store = VersionStore(root: folder.file("state/versions"))
    let url = folder.file("full.txt")
    try Self.oldBytes.write(to: url)
    let keeper = ReplacedVersionKeeper(store: store)
    let faults = FaultPlan(failing: .write, with: .noSpace, occurrence: 1, under: folder.url.path)
    #expect(throws: QuireError.self) {
      try faults.run { try FileSaver.write(.data(Data("new\n".utf8)), to: url, options: .standard, keeper: keeper) }
    }
    #expect(try Data(contentsOf: url) == Self.oldBytes)
    #expect(try store.versions(ofItemAt: url).isEmpty)
    #expect(try leftovers(folder.url, besides: "full.txt").isEmpty)
  }
}
