import Foundation
import QuireSystem
import QuireTestSupport
import QuireTypes
import SystemPackage
import Testing

#if canImport(Glibc)
  import Glibc
#endif

@Suite("XDG base directories")
struct XDGBaseDirectoryTests {
  @Test(arguments: [
    (XDGBaseDirectory.cacheHome, "/h/.cache"), (.stateHome, "/h/.local/state"), (.dataHome, "/h/.local/share"),
  ])
  func anAbsoluteValueIsUsedAndARelativeOrEmptyOneFallsBack(_ directory: XDGBaseDirectory, _ fallback: String) {
    let set = directory.location(in: [directory.variable: "/x/y", "HOME": "/h"])
    #expect(set.url.path == "/x/y" && !set.isFallback && set.trustedFolder == set.url)
    for value in ["relative/dir", "", "~/dir"] {
      let location = directory.location(in: [directory.variable: value, "HOME": "/h"])
      #expect(location.url.path == fallback && location.isFallback, "\(directory.variable)=\(value)")
    }
    #expect(directory.url(in: ["HOME": "/h"]).path == fallback)
  }

  @Test func theRuntimeFallbackIsAPerUserFolderCheckedFromTmp() {
    let location = XDGBaseDirectory.runtimeDirectory.location(in: ["XDG_RUNTIME_DIR": "run/user", "HOME": "/h"])
    #expect(location.isFallback)
    #expect(location.url.path == "/tmp/quire-runtime-\(geteuid())")
    #expect(location.trustedFolder.path == "/tmp")
  }

  @Test func aRelativeHomeIsNotUsed() {
    let url = XDGBaseDirectory.cacheHome.url(in: ["HOME": "relative"])
    #expect(url.path.hasPrefix("/") && url.path.hasSuffix("/.cache"))
  }
}

@Suite("Private folders")
final class PrivateFolderTests: FolderSuite {

  func mode(_ url: URL) -> UInt32? {
    var info = stat()
    guard lstat(url.path, &info) == 0 else { return nil }
    return UInt32(info.st_mode) & 0o7777
  }

  func expectFailure(
    _ url: URL, below trusted: URL, _ kind: PrivateFolder.Failure.Kind, at path: URL,
    loosePermissions: PrivateFolder.LoosePermissions = .tighten, sourceLocation: SourceLocation = #_sourceLocation
  ) {
    #expect(sourceLocation: sourceLocation) {
      try PrivateFolder.make(url, below: trusted, loosePermissions: loosePermissions)
    } throws: { error in
      let failure = error as? PrivateFolder.Failure
      return failure == PrivateFolder.Failure(path: path.path, kind: kind)
    }
  }

  @Test func missingComponentsAreMadeOwnerOnly() throws {
    let target = folder.file("a/b/c")
    let descriptor = try PrivateFolder.open(target, below: folder.url)
    defer { try? descriptor.close() }
    for path in ["a", "a/b", "a/b/c"] {
      #expect(mode(folder.file(path)) == 0o700, "\(path)")
    }
    var info = stat()
    #expect(fstat(descriptor.rawValue, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR)
  }

  @Test func aMissingTrustedFolderIsMadeToo() throws {
    let trusted = folder.file("home/.cache")
    try PrivateFolder.make(trusted.appendingPathComponent("quire/demo"), below: trusted)
    for path in ["home", "home/.cache", "home/.cache/quire", "home/.cache/quire/demo"] {
      #expect(mode(folder.file(path)) == 0o700, "\(path)")
    }
  }

  @Test func anExistingLooseFolderIsTightened() throws {
    let target = folder.file("cache")
    try FileManager.default.createDirectory(at: target, withIntermediateDirectories: false)
    #expect(chmod(target.path, 0o755) == 0)
    try PrivateFolder.make(target, below: folder.url)
    #expect(mode(target) == 0o700)
  }

  @Test func aLooseFolderIsRefusedWhenAsked() throws {
    let target = folder.file("board")
    try FileManager.default.createDirectory(at: target, withIntermediateDirectories: false)
    #expect(chmod(target.path, 0o750) == 0)
    expectFailure(target, below: folder.url, .loosePermissions(mode: 0o750), at: target, loosePermissions: .refuse)
    #expect(mode(target) == 0o750, "a refused folder is left as it was")
  }

  @Test func theTrustedFolderItselfIsLeftAsItIs() throws {
    #expect(chmod(folder.url.path, 0o755) == 0)
    try PrivateFolder.make(folder.file("x"), below: folder.url)
    #expect(mode(folder.url) == 0o755)
    #expect(mode(folder.file("x")) == 0o700)
  }

  @Test func aSymbolicLinkAsTheFolderIsRefused() throws {
    let elsewhere = folder.file("elsewhere")
    try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: false)
    #expect(symlink(elsewhere.path, folder.file("link").path) == 0)
    expectFailure(folder.file("link"), below: folder.url, .symbolicLink, at: folder.file("link"))
  }

  @Test func aSymbolicLinkInThePathIsRefusedAndNothingIsMadeThroughIt() throws {
    let elsewhere = folder.file("elsewhere")
    try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: false)
    #expect(symlink(elsewhere.path, folder.file("link").path) == 0)
    expectFailure(folder.file("link/quire/cache"), below: folder.url, .symbolicLink, at: folder.file("link"))
    #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path).isEmpty)
  }

  @Test func aDanglingSymbolicLinkIsRefusedNotMadeThrough() throws {
    #expect(symlink(folder.file("nowhere").path, folder.file("link").path) == 0)
    expectFailure(folder.file("link"), below: folder.url, .symbolicLink, at: folder.file("link"))
    #expect(mode(folder.file("nowhere")) == nil)
  }

  @Test func aSymbolicLinkInTheTrustedFolderIsFollowed() throws {
    let real = folder.file("real")
    try FileManager.default.createDirectory(at: real, withIntermediateDirectories: false)
    #expect(symlink(real.path, folder.file("configured").path) == 0)
    try PrivateFolder.make(folder.file("configured/quire"), below: folder.file("configured"))
    #expect(mode(real.appendingPathComponent("quire")) == 0o700)
  }

  @Test func aFileWhereAFolderShouldBeIsRefused() throws {
    let file = try folder.write("x", to: "file")
    expectFailure(file, below: folder.url, .notAFolder, at: file)
    expectFailure(file.appendingPathComponent("inside"), below: folder.url, .notAFolder, at: file)
    // A file as the trusted folder itself.
    expectFailure(file.appendingPathComponent("inside"), below: file, .notAFolder, at: file)
    let error = PrivateFolder.Failure(path: file.path, kind: .notAFolder).error(role: "the cache folder", alternative: "pass --cache-dir")
    #expect(error.reason.contains("'\(file.path)'") && error.reason.contains("not a folder") && error.reason.contains("--cache-dir"))
  }

  @Test func aPathNotBelowTheTrustedFolderTrustsItsParent() throws {
    let target = folder.file("other/x")
    try PrivateFolder.make(target, below: folder.file("unrelated"))
    #expect(mode(target) == 0o700)
    #expect(mode(folder.file("unrelated")) == nil)
  }

  @Test(.enabled(if: isRunningAsRoot, "only root can give a folder to another user")) func aFolderOfAnotherUserIsRefused() throws {
    let target = folder.file("theirs")
    try FileManager.default.createDirectory(at: target, withIntermediateDirectories: false)
    #expect(chown(target.path, 4242, 4242) == 0)
    expectFailure(target, below: folder.url, .ownedByAnotherUser(uid: 4242), at: target)
    let error = PrivateFolder.Failure(path: target.path, kind: .ownedByAnotherUser(uid: 4242)).error(role: "the state folder")
    #expect(error.code == .permissionDenied && error.reason.contains("user 4242"))
  }

  @Test(.enabled(if: !isRunningAsRoot, "root writes into a 0500 folder; the fault hook test covers the error")) func anUnwritableParentFailsClearly() throws {
    let parent = folder.file("locked")
    try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: false)
    #expect(chmod(parent.path, 0o500) == 0)
    defer { chmod(parent.path, 0o700) }
    expectFailure(parent.appendingPathComponent("new"), below: parent, .systemCall("mkdirat", .permissionDenied), at: parent.appendingPathComponent("new"))
  }

  @Test func anInjectedFailureIsReportedWithThePathAndWhatToDo() throws {
    let target = folder.file("a/b")
    let failing = folder.file("a").path
    #expect {
      try FaultPlan(failing: .makeFolder, with: .permissionDenied, occurrence: nil, under: failing).run {
        try PrivateFolder.make(target, below: folder.url)
      }
    } throws: { error in
      guard let failure = error as? PrivateFolder.Failure else { return false }
      let quire = failure.error(role: "the thumbnail cache folder", alternative: "pass another cache folder")
      return failure == PrivateFolder.Failure(path: failing, kind: .systemCall("mkdirat", .permissionDenied))
        && quire.code == .permissionDenied && quire.reason.contains("'\(failing)'")
        && quire.reason.contains("writable") && quire.reason.contains("pass another cache folder")
    }
    #expect(mode(folder.file("a")) == nil)
  }

  @Test func theQuireErrorWordingNamesWhatFailed() {
    let symlink = PrivateFolder.Failure(path: "/s/quire", kind: .symbolicLink).error(role: "the state folder", alternative: "set XDG_STATE_HOME")
    #expect(symlink.reason.contains("'/s/quire'") && symlink.reason.contains("symbolic link") && symlink.reason.contains("XDG_STATE_HOME"))
    let loose = PrivateFolder.Failure(path: "/p", kind: .loosePermissions(mode: 0o755)).error(role: "the folder")
    #expect(loose.reason.contains("(755)") && loose.reason.contains("chmod 700"))
    let full = PrivateFolder.Failure(path: "/p", kind: .systemCall("mkdirat", .noSpace)).error(role: "the folder")
    #expect(full.code == .diskFull && String(describing: full.cause!).contains("mkdirat"))
  }
}
