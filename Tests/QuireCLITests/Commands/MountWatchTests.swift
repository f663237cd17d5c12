import Foundation
import QuireTestSupport
import Testing

/// `quire watch`, `quire browse --watch` and the REPL on a FUSE mount the test makes: a change
/// made behind the mount (in the source folder, as another machine or the server would) is
/// heard by polling, a change made through the mount by inotify at once. How soon a polled
/// change arrives is measured by hand (README, Coordination), not bounded here.
class MountWatchSuite: FolderSuite {
  let mount: FUSEMount

  init(mount make: (URL, URL, URL) throws -> FUSEMount) throws {
    let folder = try TemporaryFolder(prefix: "quire-MountWatch")
    let source = folder.file("src")
    try FileManager.default.createDirectory(at: source, withIntermediateDirectories: true)
    mount = try make(source, folder.file("view"), folder.file("ssh"))
    super.init(folder: folder)
    try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
  }

  deinit { mount.unmount() }

  var runtime: URL { folder.file("run") }
  func behind(_ name: String) -> URL { mount.source.appendingPathComponent(name) }
  func through(_ name: String) -> URL { mount.view.appendingPathComponent(name) }

  /// The built `quire` with `arguments`, in the test's home, polling every `interval` seconds.
  func startQuire(_ arguments: [String], pollingEvery interval: String) throws -> RunningProcess {
    let quire = try #require(Programs.quire, "the quire executable is not built; run swift build --build-tests")
    let environment = [
      "PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8", "HOME": folder.url.path, "XDG_RUNTIME_DIR": runtime.path,
      "XDG_STATE_HOME": folder.file(".state").path, "XDG_CACHE_HOME": folder.file(".cache").path,
      "XDG_DATA_HOME": folder.file(".data").path, "QUIRE_POLL_INTERVAL": interval,
    ]
    return try ChildProcess.start(quire, arguments, environment: environment, in: folder.url)
  }

  /// Appends a line to `url` as another program does.
  func append(_ line: String, to url: URL) throws {
    let result = try ChildProcess.runBlocking(URL(fileURLWithPath: "/bin/sh"), ["-c", "echo \"$2\" >> \"$1\"", "sh", url.path, line])
    #expect(result.status == 0, "\(result.error)")
  }

  /// `quire watch` on a file of the mount hears a change made behind the mount, and says it polls.
  func watchHearsAChangeBehindTheMount() async throws {
    try "one\n".write(to: behind("doc.md"), atomically: false, encoding: .utf8)
    let watch = try startQuire(["watch", through("doc.md").path], pollingEvery: "0.5")
    defer { watch.killAndWait() }
    let notice = try await watch.errors.firstLine(containing: "by polling", within: patience)
    #expect(notice.contains("every 0.5 s") && notice.contains(mount.view.path), "\(notice)")
    try append("from the other side", to: behind("doc.md"))
    let line = try await watch.output.firstLine(containing: "changed", within: patience)
    #expect(line == "changed \(through("doc.md").path)")
  }

  /// With a poll an hour away, a change made through the mount can only arrive by inotify.
  func watchHearsAChangeThroughTheMountByInotify() async throws {
    try "one\n".write(to: behind("doc.md"), atomically: false, encoding: .utf8)
    let watch = try startQuire(["watch", through("doc.md").path], pollingEvery: "3600")
    defer { watch.killAndWait() }
    _ = try await watch.errors.firstLine(containing: "by polling every 3600 s", within: patience)
    try append("through the mount", to: through("doc.md"))
    let line = try await watch.output.firstLine(containing: "changed", within: patience)
    #expect(line == "changed \(through("doc.md").path)")
  }

  /// `quire browse --watch` on the mount shows a file created behind it.
  func browseShowsAFileCreatedBehindTheMount() async throws {
    try "# old\n".write(to: behind("old.md"), atomically: false, encoding: .utf8)
    let browse = try startQuire(["browse", "--watch", mount.view.path], pollingEvery: "0.5")
    defer { browse.killAndWait() }
    _ = try await browse.output.firstLine(containing: "old.md", within: patience)
    _ = try await browse.errors.firstLine(containing: "by polling", within: patience)
    try "# new\n".write(to: behind("new.md"), atomically: false, encoding: .utf8)
    let line = try await browse.output.firstLine(containing: "added", within: patience)
    #expect(line == "added \(through("new.md").path)")
  }
}

@Suite("Watching files on a bindfs mount", .enabled(if: FUSEMount.bindfsUnavailableReason == nil, "\(FUSEMount.bindfsUnavailableReason ?? "")"))
final class BindfsWatchTests: MountWatchSuite {
  init() throws { try super.init { source, view, _ in try FUSEMount.bindfs(source, at: view) } }

  @Test func quireWatchHearsAChangeMadeBehindTheMount() async throws { try await watchHearsAChangeBehindTheMount() }
  @Test func quireWatchHearsAChangeMadeThroughTheMountByInotify() async throws { try await watchHearsAChangeThroughTheMountByInotify() }
  @Test func quireBrowseShowsAFileCreatedBehindTheMount() async throws { try await browseShowsAFileCreatedBehindTheMount() }
}

@Suite("Watching files on an sshfs mount", .enabled(if: FUSEMount.sshfsUnavailableReason == nil, "\(FUSEMount.sshfsUnavailableReason ?? "")"))
final class SSHFSWatchTests: MountWatchSuite {
  init() throws { try super.init { source, view, scratch in try FUSEMount.sshfs(source, at: view, scratch: scratch) } }

  @Test func quireWatchHearsAChangeMadeOnTheServer() async throws { try await watchHearsAChangeBehindTheMount() }
  @Test func quireWatchHearsAChangeMadeThroughTheMountByInotify() async throws { try await watchHearsAChangeThroughTheMountByInotify() }
  @Test func quireBrowseShowsAFileCreatedOnTheServer() async throws { try await browseShowsAFileCreatedBehindTheMount() }
}
