import Foundation
import QuireTestSupport
import Testing

/// The web page's live listing on a FUSE mount: a file created behind the mount (in bindfs's
/// source folder, as another machine would) reaches the page's event stream, through the same
/// browser watcher (polled presenters) that `quire browse --watch` uses.
@Suite("The page's listing on a bindfs mount", .enabled(if: FUSEMount.bindfsUnavailableReason == nil, "\(FUSEMount.bindfsUnavailableReason ?? "")"))
final class MountEventsTests: FolderSuite {
  let home: TestHome
  let mount: FUSEMount

  init() throws {
    let folder = try TemporaryFolder(prefix: "quire-serve-mount")
    home = try TestHome(in: folder.url)
    let source = folder.url.appendingPathComponent("src")
    try FileManager.default.createDirectory(at: source, withIntermediateDirectories: true)
    try Data("# Old\n".utf8).write(to: source.appendingPathComponent("old.md"))
    mount = try FUSEMount.bindfs(source, at: folder.url.appendingPathComponent("view"))
    super.init(folder: folder)
  }

  deinit { mount.unmount() }

  @Test func aFileCreatedBehindTheMountReachesThePage() async throws {
    let curl = try #require(Programs.find("curl"), "curl is not installed")
    let server = try await ServeProcess.start(serving: [mount.view], home: home, in: folder.url, environment: ["QUIRE_POLL_INTERVAL": "0.5"])
    defer { server.stop() }
    let jar = folder.file("cookies").path
    let login = try await Programs.run(curl, ["--silent", "--cookie-jar", jar, "--output", "/dev/null", server.address], environment: home.environment)
    #expect(login.status == 0, "\(login.error)")
    let events = try ChildProcess.start(curl, ["--silent", "--no-buffer", "--cookie", jar, "\(server.origin)/api/events"], environment: home.environment)
    defer { events.killAndWait() }
    _ = try await events.output.firstLine(containing: ": quire events", within: patience)

    try Data("# New\n".utf8).write(to: mount.source.appendingPathComponent("new.md"))
    let line = try await events.output.firstLine(containing: "new.md", within: patience)
    #expect(line.contains("added"), "\(line)")
  }
}
