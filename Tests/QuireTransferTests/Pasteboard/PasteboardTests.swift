import Foundation
import QuireSystem
import QuireTestSupport
@_spi(Testing) import QuireTransfer
import QuireTypes
import Testing

/// What every pasteboard suite here starts from: a temporary folder and the pasteboards' root
/// in it, removed after each test, and a clock the test moves.
class PasteboardFolderFixture: FolderSuite {
  init() throws { try super.init() }

  var root: URL { folder.file("pasteboards") }

  /// The time by which this test's pasteboards tell whether items have expired: it stands
  /// still until the test moves it.
  let now = Box(Date())

  /// The pasteboard as this process sees it.
  func board(_ name: String = "general") throws -> Pasteboard {
    try Pasteboard(name: name, rootFolder: root, usesLocalItems: true, now: { [now] in now.current })
  }
  /// The same pasteboard as another process sees it: through the folder and the socket.
  func otherProcessView(_ name: String = "general") throws -> Pasteboard {
    try Pasteboard(name: name, rootFolder: root, usesLocalItems: false, now: { [now] in now.current })
  }
}

@Suite("Pasteboard: items, change count, visibility, promises, expiration")
final class PasteboardTests: PasteboardFolderFixture {

  func entries(_ name: String = "general") throws -> [String] {
    // A load's reading folder can go while it is being listed (ENOENT): list again.
    for _ in 0..<20 {
      if let listed = try? FileManager.default.subpathsOfDirectory(atPath: root.appendingPathComponent(name).path) { return listed.sorted() }
    }
    return try FileManager.default.subpathsOfDirectory(atPath: root.appendingPathComponent(name).path).sorted()
  }

  /// The folder's entries once finished loads' reading folders are gone: a load hands the
  /// reader a hard link in a `read-…` folder, removed just after the reader has the file.
  func settledEntries(_ name: String = "general") async throws -> [String] {
    _ = try await eventually { try !entries(name).contains { $0.hasPrefix("read-") } }
    return try entries(name)
  }

  @Test func setsAndReadsStrings() async throws {
    let board = try board()
    #expect(try board.changeCount == 0)
    #expect(try board.numberOfItems == 0)
    try board.setString("hello")
    #expect(try board.changeCount == 1)
    #expect(try board.types == ["public.plain-text"])
    #expect(try board.hasStrings)
    #expect(try await board.string() == "hello")
    #expect(try await otherProcessView().string() == "hello")
  }

  @Test func changeCountGrowsWithEveryChangeAndClearEmpties() async throws {
    let board = try board()
    try board.setObjects(["a", "b"])
    try board.setObjects([MarkdownText("# c")])
    #expect(try board.changeCount == 2)
    #expect(try otherProcessView().changeCount == 2)
    try board.clear()
    #expect(try board.changeCount == 3)
    #expect(try board.numberOfItems == 0)
    #expect(try otherProcessView().numberOfItems == 0)
    #expect(try await board.strings() == [])
  }

  @Test func severalItemsKeepTheirOrder() async throws {
    try board().setObjects(["one", URL(string: "https://example.org")!, "three"])
    #expect(try await otherProcessView().strings() == ["one", "https://example.org", "three"])
    let providers = try otherProcessView().itemProviders
    #expect(try await providers[1].loadObject(ofClass: URL.self) == URL(string: "https://example.org"))
  }

  @Test func namedPasteboardsAreSeparate() async throws {
    try board("general").setString("general text")
    try board("find").setString("search term")
    #expect(try await otherProcessView("general").string() == "general text")
    #expect(try await otherProcessView("find").string() == "search term")
    #expect(try board("general").changeCount == 1)
  }

  @Test func promisedRepresentationsAreFetchedFromTheLiveProcess() async throws {
    let made = Box(0)
    let provider = ItemProvider(suggestedName: "lazy")
    provider.registerDataRepresentation(for: .markdown) {
      made.update { $0 += 1 }
      return Data("# made on demand".utf8)
    }
    try board().setItemProviders([provider])
    #expect(made.current == 0, "setting must not load representations")
    // Only the list is on disk: no data files, a socket to fetch from.
    #expect(try entries().contains { $0.hasSuffix(".sock") })
    #expect(!(try entries().contains { $0.contains("/") }))
    let other = try otherProcessView()
    #expect(try other.types == ["net.daringfireball.markdown"])
    let fetched = try await other.itemProviders[0].loadDataRepresentation(for: .markdown)
    #expect(fetched == Data("# made on demand".utf8))
    #expect(made.current == 1)
    #expect(try other.itemProviders[0].suggestedName == "lazy")
  }

  @Test func materializingWritesPromisesIntoTheFolderAndStopsServing() async throws {
    try board().setObjects([MarkdownText("# Kept\n\ntext")])
    try await board().materializePromises()
    let files = try entries()
    #expect(!files.contains { $0.hasSuffix(".sock") }, "the socket outlived materialisation")
    #expect(files.filter { $0.contains("/") }.count == 3)  // markdown, html, plain text
    let provider = try #require(try otherProcessView().itemProviders.first)
    #expect(provider.registeredContentTypes == [.markdown, .html, .plainText])
    #expect(String(decoding: try await provider.loadDataRepresentation(for: .html), as: UTF8.self).contains("<h1>Kept</h1>"))
    #expect(try await provider.loadObject(ofClass: String.self) == "Kept\n\ntext")
    // Materialising twice changes nothing.
    try await board().materializePromises()
    #expect(try await settledEntries() == files)
  }

  @Test func representationsThatFailToMaterializeAreDroppedAndReported() async throws {
    struct Broken: Error {}
    let provider = ItemProvider()
    provider.registerDataRepresentation(for: .html) { throw Broken() }
    provider.registerDataRepresentation(for: .plainText) { Data("survives".utf8) }
    try board().setItemProviders([provider])
    await #expect(throws: Broken.self) { try await self.board().materializePromises() }
    #expect(try otherProcessView().types == ["public.plain-text"])
    #expect(try await otherProcessView().string() == "survives")
  }

  @Test func localOnlyItemsNeverLeaveTheProcess() async throws {
    try board().setObjects(["secret"], localOnly: true)
    #expect(try await board().string() == "secret")
    #expect(try otherProcessView().numberOfItems == 0)
    #expect(try otherProcessView().changeCount == 1)
    let state = try String(contentsOf: root.appendingPathComponent("general/state.json"), encoding: .utf8)
    #expect(!state.contains("plain-text"))
    #expect(!(try entries().contains { $0.hasSuffix(".sock") }))
    try await board().materializePromises()
    #expect(try otherProcessView().numberOfItems == 0)
  }

  @Test func ownProcessRepresentationsAreNotOfferedToOthers() async throws {
    let provider = ItemProvider()
    provider.registerDataRepresentation(forTypeIdentifier: "com.example.private-model", visibility: .ownProcess) { Data([9]) }
    provider.registerDataRepresentation(for: .plainText) { Data("public".utf8) }
    try board().setItemProviders([provider])
    #expect(try board().types == ["com.example.private-model", "public.plain-text"])
    #expect(try otherProcessView().types == ["public.plain-text"])
    try await board().materializePromises()
    #expect(try otherProcessView().types == ["public.plain-text"])
    #expect(try entries().filter { $0.contains("/") }.count == 1)
  }

  @Test func expiredItemsAreGoneForEveryone() async throws {
    // The pasteboards go by the test's clock, so the looks before the expiry cannot come late.
    let expiry = now.current.addingTimeInterval(60)
    try board().setObjects(["fleeting"], expirationDate: expiry)
    #expect(try board().numberOfItems == 1)
    #expect(try otherProcessView().numberOfItems == 1)
    now.set(expiry.addingTimeInterval(1))
    #expect(try board().numberOfItems == 0)
    #expect(try otherProcessView().numberOfItems == 0)
    try await board().materializePromises()
    #expect(try otherProcessView().numberOfItems == 0)
    #expect(!(try entries().contains { $0.contains("/") }), "an expired item was written out")
  }

  @Test func aNewCopyReplacesTheOldOneAndItsFiles() async throws {
    try board().setString("first")
    try await board().materializePromises()
    let before = try entries().filter { $0.contains("/") }
    try board().setString("second")
    let after = try entries()
    #expect(before.allSatisfy { !after.contains($0) }, "the old generation's files remain")
    #expect(try await otherProcessView().string() == "second")
  }

  @Test func foldersAndFilesArePrivate() async throws {
    try board().setString("x")
    try await board().materializePromises()
    func mode(_ url: URL) throws -> Int {
      (try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int) ?? -1
    }
    #expect(try mode(root) == 0o700)
    let general = root.appendingPathComponent("general")
    #expect(try mode(general) == 0o700)
    for entry in try entries() {
      let url = general.appendingPathComponent(entry)
      var isFolder: ObjCBool = false
      _ = FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder)
      #expect(try mode(url) == (isFolder.boolValue ? 0o700 : 0o600), "\(entry)")
    }
  }

  @Test func aCancelledFetchFromTheLiveProcessStops() async throws {
    let provider = ItemProvider()
    provider.registerDataRepresentation(for: .plainText) {
      try await Task.sleep(for: .seconds(600))
      return Data()
    }
    try board().setItemProviders([provider])
    let remote = try #require(try otherProcessView().itemProviders.first)
    let outcome = Box<(any Error)?>(nil)
    let progress = remote.loadDataRepresentation(for: .plainText) { _, error in outcome.set(error) }
    try await Task.sleep(for: .milliseconds(50))
    progress.cancel()
    // The wait's patience is well under the handler's 600 s, so only the cancellation can have
    // ended the load (a 15 s wait beside a 20 s handler could time out on a loaded machine).
    #expect(await eventually { outcome.current != nil })
    expectQuireError(.cancelled, in: outcome.current)
  }
}

@Suite("Pasteboard: refusing unsafe folders and bad input")
final class PasteboardSafetyTests: PasteboardFolderFixture {

  func expectRefused(_ name: String = "general", sourceLocation: SourceLocation = #_sourceLocation, containing text: String) {
    expectQuireError(.permissionDenied, reasonContains: text, sourceLocation: sourceLocation) {
      try Pasteboard(name: name, rootFolder: self.root)
    }
  }

  @Test func aFolderWithLoosePermissionsIsRefused() throws {
    let board = try Pasteboard.general(rootFolder: root)
    try board.setString("x")
    chmod(board.folderURL.path, 0o755)
    expectRefused(containing: "chmod 700")
    #expect(throws: QuireError.self) { try board.changeCount }  // checked on every access, not only at creation
    chmod(board.folderURL.path, 0o700)
    chmod(root.path, 0o770)
    expectRefused(containing: "permissions (770)")
  }

  @Test(.enabled(if: isRunningAsRoot, "only root can give a folder to another user")) func aFolderOwnedByAnotherUserIsRefused() throws {
    let board = try Pasteboard.general(rootFolder: root)
    #expect(chown(board.folderURL.path, 4242, 4242) == 0)
    expectRefused(containing: "belongs to user 4242")
  }

  @Test func aSymbolicLinkIsNotFollowed() throws {
    let elsewhere = try folder.privateFolder("elsewhere")
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
    try FileManager.default.createSymbolicLink(at: root.appendingPathComponent("general"), withDestinationURL: elsewhere)
    expectRefused(containing: "symbolic link")
  }

  @Test func aStateFileThatIsASymbolicLinkIsRefused() throws {
    let board = try Pasteboard.general(rootFolder: root)
    let target = try folder.write("{}", to: "target.json")
    try FileManager.default.createSymbolicLink(at: board.folderURL.appendingPathComponent("state.json"), withDestinationURL: target)
    expectQuireError(.permissionDenied) { try board.changeCount }
  }

  @Test(arguments: ["", ".hidden", "a/b", "..", "é", String(repeating: "x", count: 65), "with space"])
  func badNamesAreRefused(_ name: String) {
    expectQuireError(.invalidArgument) { try Pasteboard(name: name, rootFolder: self.root) }
  }

  @Test(arguments: ["", "not json", "{\"changeCount\": 1}", "{\"changeCount\":1,\"generation\":\"../../etc\",\"items\":[]}"])
  func aDamagedStateFileIsReportedAndReplacedByTheNextCopy(_ contents: String) async throws {
    let board = try Pasteboard.general(rootFolder: root)
    try Data(contents.utf8).write(to: board.folderURL.appendingPathComponent("state.json"))
    chmod(board.folderURL.appendingPathComponent("state.json").path, 0o600)
    expectQuireError(.invalidContent) { try board.itemProviders }
    try board.setString("fresh")
    #expect(try await board.string() == "fresh")
  }

  @Test func permissionDeniedOnTheLockFileIsAClearError() throws {
    let board = try Pasteboard.general(rootFolder: root)
    let lock = board.folderURL.appendingPathComponent("lock").path
    expectQuireError(.permissionDenied, reasonContains: "'lock'") {
      try FaultPlan(failing: .create, with: .permissionDenied, under: lock).run { try board.setString("x") }
    }
  }

  @Test func theDefaultRootFollowsXDGRuntimeDir() throws {
    let runtime = try folder.privateFolder("runtime")
    let defaultRoot = try Pasteboard.defaultRootFolder(environment: ["XDG_RUNTIME_DIR": runtime.path])
    #expect(defaultRoot.path == runtime.path + "/quire/pasteboards")
    let mode = try FileManager.default.attributesOfItem(atPath: runtime.path + "/quire")[.posixPermissions] as? Int
    #expect(mode == 0o700)
  }
}

/// Finding 6 of issue 16: a stored item's folder is checked as every private folder is.
@Suite("Pasteboard: item folders that are not private")
final class PasteboardItemFolderTests: PasteboardFolderFixture {

  /// Copies text, materialises it, and returns the item folder and a reader of the pasteboard.
  func storedItem() async throws -> (itemFolder: URL, reader: Pasteboard) {
    try Pasteboard(name: "general", rootFolder: root).setString("secret")
    try await Pasteboard(name: "general", rootFolder: root).materializePromises()
    let board = root.appendingPathComponent("general")
    let names = try FileManager.default.contentsOfDirectory(atPath: board.path)
    let generation = try #require(
      names.first { name in
        var isFolder: ObjCBool = false
        return FileManager.default.fileExists(atPath: board.appendingPathComponent(name).path, isDirectory: &isFolder) && isFolder.boolValue
      })
    return (board.appendingPathComponent(generation), try Pasteboard(name: "general", rootFolder: root, usesLocalItems: false))
  }

  func expectRefused(_ reader: Pasteboard, saying words: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    let provider = try #require(try reader.itemProviders.first, sourceLocation: sourceLocation)
    await expectQuireError(.permissionDenied, reasonContains: words, sourceLocation: sourceLocation) {
      try await provider.loadDataRepresentation(for: .plainText)
    }
  }

  @Test func anItemFolderReplacedByASymbolicLinkIsRefused() async throws {
    let (itemFolder, reader) = try await storedItem()
    let planted = folder.file("planted")
    try FileManager.default.moveItem(at: itemFolder, to: planted)
    try FileManager.default.createSymbolicLink(at: itemFolder, withDestinationURL: planted)
    try await expectRefused(reader, saying: "symbolic link")
  }

  @Test func anItemFolderOthersMayWriteIsRefused() async throws {
    let (itemFolder, reader) = try await storedItem()
    #expect(chmod(itemFolder.path, 0o777) == 0)
    try await expectRefused(reader, saying: "permissions")
  }

  @Test(.enabled(if: geteuid() == 0, "giving a folder to another user needs root"))
  func anItemFolderOfAnotherUserIsRefused() async throws {
    let (itemFolder, reader) = try await storedItem()
    #expect(chown(itemFolder.path, 65534, 65534) == 0)
    try await expectRefused(reader, saying: "belongs to user 65534")
  }
}
