import Foundation
import QuireSystem
import QuireTestSupport
import SystemPackage
import Testing

@Suite("SystemCalls by path: attributes, links, temporary folders")
final class PathCallsTests: FolderSuite {
  @Test func aTemporaryFolderIsNewAndPrivate() throws {
    let first = try SystemCalls.makeTemporaryFolder(in: folder.url.path, prefix: "scratch-").get()
    let second = try SystemCalls.makeTemporaryFolder(in: folder.url.path + "/", prefix: "scratch-").get()
    #expect(first != second && first.hasPrefix(folder.url.path + "/scratch-") && second.hasPrefix(folder.url.path + "/scratch-"))
    let info = try SystemCalls.lstat(FilePath(first)).get()
    #expect(info.st_mode & S_IFMT == S_IFDIR && info.st_mode & 0o777 == 0o700)
    try SystemCalls.removeFolder(first).get()
    #expect(SystemCalls.lstat(FilePath(first)).failure != nil)
    #expect(SystemCalls.makeTemporaryFolder(in: folder.file("missing").path, prefix: "x").failure?.errno == .noSuchFileOrDirectory)
  }

  @Test func makeFoldersMakesEachMissingFolderByItsBytesAndKeepsOnesThere() throws {
    let nested = folder.url.path + "/out" + PathText.string(bytes: [0xFF]) + "/sub"
    try SystemCalls.makeFolders(nested).get()
    let info = try SystemCalls.lstat(PathText.path(nested)).get()
    #expect(info.st_mode & S_IFMT == S_IFDIR)
    // The byte is the name's, not U+FFFD's UTF-8.
    #expect(SystemCalls.lstat(PathText.path(folder.url.path + "/out\u{FFFD}")).failure != nil)
    try SystemCalls.makeFolders(nested).get()
    let file = try folder.write("x", to: "file")
    #expect(SystemCalls.makeFolders(file.path + "/sub").failure?.errno == .notDirectory)
    #expect(SystemCalls.makeFolders(file.path).failure?.errno == .notDirectory)
  }

  @Test func readLinkAndResolvedPathKeepBytesThatAreNotUTF8() throws {
    let target: [UInt8] = Array("caf".utf8) + [0xE9] + Array(".md".utf8)  // Latin-1 "café.md"
    let targetPath = FilePath(folder.url.path).appending(FilePath.Component(platformString: target.map { CChar(bitPattern: $0) } + [0])!)
    let fd = try SystemCalls.open(targetPath, O_WRONLY | O_CREAT | O_EXCL).get()
    SystemCalls.release(fd)
    let link = FilePath(folder.file("link").path)
    #expect(targetPath.withPlatformString { target in link.withPlatformString { symlink(target, $0) } } == 0)
    #expect(SystemCalls.readLink(link) == targetPath)
    #expect(SystemCalls.resolvedPath(link) == SystemCalls.resolvedPath(targetPath))
    #expect(SystemCalls.resolvedPath(link)?.lastComponent == targetPath.lastComponent)
    #expect(SystemCalls.readLink(targetPath) == nil, "not a link")
  }

  @Test func renameNoReplaceAndHardLinksNeverReplace() throws {
    let a = try folder.write("a", to: "a")
    let b = try folder.write("b", to: "b")
    #expect(SystemCalls.renameNoReplace(a.path, to: b.path).failure?.errno == .fileExists)
    #expect(SystemCalls.makeHardLink(at: b.path, to: a.path).failure?.errno == .fileExists)
    try SystemCalls.makeHardLink(at: folder.file("c").path, to: a.path).get()
    try SystemCalls.renameNoReplace(a.path, to: folder.file("d").path).get()
    #expect(try String(contentsOf: folder.file("c"), encoding: .utf8) == "a")
    #expect(try String(contentsOf: folder.file("d"), encoding: .utf8) == "a")
    #expect(try String(contentsOf: b, encoding: .utf8) == "b")
  }
}

/// Whether the temporary folder's file system keeps user extended attributes (tmpfs may not).
private let userAttributesWork: Bool = {
  guard let folder = try? TemporaryFolder(prefix: "quire-xattr-probe"), let file = try? folder.write("x", to: "probe") else { return false }
  defer { folder.remove() }
  return SystemCalls.setAttribute("user.quire.probe", to: Data("1".utf8), of: file.path).failure == nil
}()

@Suite("SystemCalls: extended attributes", .enabled(if: userAttributesWork, "the temporary folder's file system keeps no user extended attributes"))
final class AttributeCallsTests: FolderSuite {
  @Test func attributesRoundTrip() throws {
    let file = try folder.write("x", to: "file")
    try SystemCalls.setAttribute("user.quire.test", to: Data("v".utf8), of: file.path).get()
    #expect(try SystemCalls.attribute("user.quire.test", of: file.path).get() == Data("v".utf8))
    #expect(try SystemCalls.attribute("user.quire.none", of: file.path).get() == nil)
    try SystemCalls.removeAttribute("user.quire.test", of: file.path).get()
    try SystemCalls.removeAttribute("user.quire.test", of: file.path).get()  // already gone: fine
    #expect(try SystemCalls.attribute("user.quire.test", of: file.path).get() == nil)
    let plan = FaultPlan(failing: .write, with: .noSpace, under: folder.url.path)
    #expect(plan.run { SystemCalls.setAttribute("user.quire.test", to: Data("v".utf8), of: file.path) }.failure?.errno == .noSpace)
  }

  /// The handle outlives a move; finding a file by it needs `CAP_DAC_READ_SEARCH` (root here).
  @Test(.enabled(if: geteuid() == 0, "open_by_handle_at needs CAP_DAC_READ_SEARCH: run as root"))
  func aFileHandleFindsTheFileAfterAMove() throws {
    try FileManager.default.createDirectory(at: folder.file("elsewhere"), withIntermediateDirectories: true)
    let file = try folder.write("plan", to: "plan.md")
    let handle = try SystemCalls.fileHandle(of: FilePath(file.path)).get()
    #expect(!handle.bytes.isEmpty)
    let moved = folder.file("elsewhere/renamed.md")
    try SystemCalls.renameNoReplace(FilePath(file.path), to: FilePath(moved.path)).get()
    let fileSystem = try SystemCalls.open(FilePath(folder.url.path), O_RDONLY | O_DIRECTORY).get()
    defer { SystemCalls.release(fileSystem) }
    let found = try SystemCalls.path(forHandle: handle.bytes, type: handle.type, onFileSystemOf: fileSystem).get()
    #expect(SystemCalls.resolvedPath(found) == SystemCalls.resolvedPath(FilePath(moved.path)))
    #expect(SystemCalls.path(forHandle: [0, 1, 2], type: handle.type, onFileSystemOf: fileSystem).failure != nil)
    #expect(SystemCalls.fileHandle(of: FilePath(folder.file("missing").path)).failure?.errno == .noSuchFileOrDirectory)
  }
}
