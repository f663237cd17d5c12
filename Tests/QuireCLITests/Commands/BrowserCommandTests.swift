import Foundation
import Quire
import QuireTestSupport
import Synchronization
import Testing

@Suite("Browser commands")
final class BrowserCommandTests: FolderSuite, RunsQuire {
  var environment: [String: String] {
    ["XDG_DATA_HOME": folder.file(".data").path, "XDG_STATE_HOME": folder.file(".state").path, "XDG_CACHE_HOME": folder.file(".cache").path]
  }

  var fullEnvironment: [String: String] {
    ProcessInfo.processInfo.environment.merging(environment) { $1 }.merging(["HOME": folder.url.path, "LC_ALL": "C.UTF-8"]) { $1 }
  }

  var browser: DocumentBrowser { DocumentBrowser(configuration: .init(locations: [folder.url], environment: fullEnvironment)) }

  // MARK: 1. Recents follow a file moved by mv

  @Test func recentFindsAFileRenamedAndMovedByMv() async throws {
    try FileManager.default.createDirectory(at: folder.file("drafts"), withIntermediateDirectories: true)
    try FileManager.default.createDirectory(at: folder.file("final"), withIntermediateDirectories: true)
    let file = try folder.write("# Report\n", to: "drafts/report.md")
    // Opening in the REPL adds it to Recents.
    let opened = try await quire([file.path], input: "q\n")
    #expect(opened.status == 0, "\(opened.error)")
    #expect(try await quire(["recent"]).output == file.path + "\n")
    // No Quire running: mv renames and moves it.
    #expect(rename(file.path, folder.file("final/report-v2.md").path) == 0)
    let recent = try await quire(["recent", "--in", folder.url.path])
    #expect(recent.status == 0)
    #expect(recent.output.hasPrefix(folder.file("final/report-v2.md").path + "  (moved from \(file.path))"))
    let json = try await quire(["recent", "--json"])
    #expect(json.output.contains("\"status\" : \"available\"") && json.output.contains("final/report-v2.md"))
    #expect(unlink(folder.file("final/report-v2.md").path) == 0)
    #expect(try await quire(["recent"]).output.contains("(gone)"))
  }

  // MARK: Issue 29: a folder that cannot be listed

  /// Runs `quire ARGS` as a user who cannot read a mode-000 folder: this user, or (root reads
  /// every folder) `nobody` through `setpriv`.
  func quireWithoutRoot(_ arguments: [String]) async throws -> ProcessResult {
    let quire = try #require(Programs.quire)
    guard isRunningAsRoot else { return try await self.quire(arguments) }
    let setpriv = try #require(Programs.system("setpriv"), "setpriv (util-linux) runs the command as nobody")
    let home = folder.file("nobody-home")
    try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o777])
    return try await ChildProcess.run(
      setpriv, ["--reuid=65534", "--regid=65534", "--clear-groups", quire.path] + arguments,
      environment: [
        "PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8", "HOME": home.path, "XDG_STATE_HOME": home.path + "/state", "XDG_CACHE_HOME": home.path + "/cache",
        "XDG_DATA_HOME": home.path + "/data",
      ], in: home)
  }

  @Test func browseAndSearchOfAFolderThatCannotBeListedSaySoAndExit1() async throws {
    let locked = folder.file("locked")
    try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: true)
    try Data("# Plan\n\nneedle\n".utf8).write(to: locked.appendingPathComponent("plan.md"))
    #expect(chmod(folder.url.path, 0o755) == 0 && chmod(locked.path, 0o000) == 0)
    defer { _ = chmod(locked.path, 0o755) }
    let browse = try await quireWithoutRoot(["browse", locked.path])
    #expect(browse.status == 1, "browse of an unreadable folder: \(browse.status) \(browse.output) \(browse.error)")
    #expect(browse.error.contains("locked") && browse.error.contains("cannot be read"), "\(browse.error)")
    let search = try await quireWithoutRoot(["search", "needle", "--in", locked.path])
    #expect(search.status == 1, "search in an unreadable folder: \(search.status) \(search.output) \(search.error)")
    #expect(search.error.contains("locked") && search.error.contains("cannot be read"), "\(search.error)")
  }

  @Test func aSearchOfNothingButSyntaxIsAUsageError() async throws {
    try folder.write("# Plan\n", to: "plan.md")
    for text in ["\"", "*"] {
      let result = try await quire(["search", text])
      #expect(result.status == 2, "quire search '\(text)': \(result.status) \(result.error)")
      #expect(result.error.contains("no word to search for"))
    }
  }

  // MARK: 2. Trash

  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/gio"), "needs gio (libglib2.0-bin)"))
  func trashedFileIsListedAndRestoredByGio() async throws {
    let file = try folder.write("# Old\n", to: "f.md")
    let trashed = try await quire(["trash", "f.md"])
    #expect(trashed.status == 0, "\(trashed.error)")
    #expect(!FileManager.default.fileExists(atPath: file.path))
    let list = try await gio(["--list"])
    #expect(list.output.contains("trash:///f.md\t\(file.path)"), "\(list.error)")
    let restore = try await gio(["--restore", "trash:///f.md"])
    #expect(restore.status == 0, "\(restore.error)")
    #expect(try String(contentsOf: file, encoding: .utf8) == "# Old\n")
    let missing = try await quire(["trash", "nothing.md"])
    #expect(missing.status == 1 && missing.error.contains("'nothing.md'"))
  }

  /// Runs `quire trash NAME` in a mount namespace of its own (`unshare`, as root or in a user
  /// namespace) where `mounted` is a bind mount of `source` (read-only with `readOnly`).
  func trashUnderBindMount(_ name: String, source: URL, mounted: URL, readOnly: Bool = false) async throws -> ProcessResult {
    let quire = try #require(Programs.quire)
    let unshare = try #require(Programs.system("unshare"), "unshare (util-linux) makes the bind mount")
    let remount = readOnly ? " && mount -o remount,bind,ro \"$2\"" : ""
    return try await ChildProcess.run(
      unshare,
      (isRunningAsRoot ? ["--mount"] : ["--map-root-user", "--mount"]) + [
        "/bin/sh", "-c", "mount --bind \"$1\" \"$2\"\(remount) && exec \"$3\" trash \"$2/$4\"", "sh", source.path, mounted.path, quire.path, name,
      ], environment: fullEnvironment)
  }

  @Test func trashUnderABindMountUsesTheMountsTrashAndReadOnlyIsSaid() async throws {
    let source = folder.file("source")
    let mounted = folder.file("mounted")
    for url in [source, mounted] { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
    try folder.write("# Doc\n", to: "source/doc.md")
    // The home trash ($XDG_DATA_HOME, in this folder) is on the same file system, but a rename
    // cannot cross the mount: the mount's own .Trash-UID is used, as gio does.
    let trashed = try await trashUnderBindMount("doc.md", source: source, mounted: mounted)
    #expect(trashed.status == 0, "\(trashed.error)")
    #expect(!FileManager.default.fileExists(atPath: source.appendingPathComponent("doc.md").path))
    let trashFolders = try FileManager.default.contentsOfDirectory(atPath: source.path).filter { $0.hasPrefix(".Trash-") }
    #expect(trashFolders.count == 1)
    #expect(FileManager.default.fileExists(atPath: source.appendingPathComponent("\(trashFolders.first ?? "")/files/doc.md").path))

    try folder.write("# Kept\n", to: "source/kept.md")
    try FileManager.default.removeItem(at: source.appendingPathComponent(trashFolders.first ?? ".Trash-0"))
    let readOnly = try await trashUnderBindMount("kept.md", source: source, mounted: mounted, readOnly: true)
    #expect(readOnly.status == 1)
    #expect(readOnly.error.contains("read-only"), "\(readOnly.error)")
    #expect(FileManager.default.fileExists(atPath: source.appendingPathComponent("kept.md").path))
  }

  /// `gio trash ARGS` on a D-Bus session of its own (gvfsd serves trash://).
  func gio(_ arguments: [String]) async throws -> ProcessResult {
    try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/dbus-run-session"), ["--", "/usr/bin/gio", "trash"] + arguments, environment: fullEnvironment)
  }

  /// Runs `body` with a `quire` REPL on `file` as another process, fed line by line while it
  /// runs; quits it (`Q`) and waits for it to end afterwards, however `body` ends.
  func withLiveREPL(_ file: URL, _ body: (RunningProcess) async throws -> Void) async throws {
    guard let quire = ProcessRunner.quire else { throw QuireError(.fileMissing, "the quire executable is not built") }
    let repl = try ChildProcess.start(quire, [file.path], environment: fullEnvironment, in: folder.url)
    defer {
      repl.write("Q\n")
      repl.finish()
    }
    try await body(repl)
  }

  // MARK: 3. Tags

  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/setfattr"), "needs setfattr and getfattr (Debian attr)"))
  func tagsAreSharedWithSetfattrAndGetfattr() async throws {
    let file = try folder.write("# F\n", to: "f.md")
    let set = try await ProcessRunner.run(
      URL(fileURLWithPath: "/usr/bin/setfattr"), ["-n", "user.xdg.tags", "-v", "work,urgent", file.path], in: folder.url, input: "")
    #expect(set.status == 0)
    let browse = try await quire(["browse", "--json"])
    let items = try JSONSerialization.jsonObject(with: Data(browse.output.utf8)) as? [[String: Any]]
    #expect(items?.first?["tags"] as? [String] == ["work", "urgent"])
    #expect(try await quire(["tag", "f.md", "+home", "-urgent"]).output == "work\nhome\n")
    let get = try await ProcessRunner.run(
      URL(fileURLWithPath: "/usr/bin/getfattr"), ["--only-values", "-n", "user.xdg.tags", file.path], in: folder.url, input: "")
    #expect(get.output == "work,home")
    #expect(try await quire(["browse", "--tag", "home"]).output.hasPrefix("f.md  "))
    let oops = try await quire(["tag", "f.md", "oops"])
    #expect(oops.status == 2 && oops.error.hasPrefix("Error: "), "\(oops.error)")
    #expect(oops.error.contains("oops"), "\(oops.error)")
  }

  // MARK: 4. Search

  /// `quire search WORD…` with its common options is read without the argument parser (see
  /// `DirectForm`): it prints what the same search spelled for the parser (`--` before the
  /// words) prints, and words it cannot search for get the parser's usage error.
  @Test func theDirectSearchFormAnswersAsTheParsedCommandDoes() async throws {
    try folder.write("a capybara and a \"quoted okapi\"\n", to: "note.md")
    try folder.write("only an okapi\n", to: "other.txt")
    let plain = try await quire(["search", "okapi"])
    let parsed = try await quire(["search", "--limit", "20", "--", "okapi"])
    #expect(plain.status == 0 && parsed.status == 0, "\(plain.error) \(parsed.error)")
    #expect(plain.output == parsed.output && plain.output.contains("note.md") && plain.output.contains("other.txt"), "\(plain.output)")
    let direct = try await quire(["search", "--in", folder.url.path, "--type", "md", "--limit=1", "--json", "okapi"])
    let parsedJSON = try await quire(["search", "--in=\(folder.url.path)", "--type=md", "--limit", "1", "--json", "--", "okapi"])
    #expect(direct.status == 0 && parsedJSON.status == 0, "\(direct.error) \(parsedJSON.error)")
    #expect(direct.output == parsedJSON.output && direct.output.contains("note.md") && !direct.output.contains("other.txt"), "\(direct.output)")
    let phrase = try await quire(["search", "\"quoted okapi\"", "capybara"])
    #expect(phrase.status == 0 && phrase.output.contains("note.md") && !phrase.output.contains("other.txt"), "\(phrase.output)")
    let nothing = try await quire(["search", "*"])
    #expect(nothing.status == 2 && nothing.error.contains("has no word to search for") && nothing.error.contains("Usage: quire search"), "\(nothing.error)")
  }

  @Test func searchFindsMarkdownTextAndPDFAndSurvivesADamagedIndex() async throws {
    guard let markdown = sharedCorpus("markdown"), let pdf = sharedCorpus("pdf") else { return }
    try FileManager.default.copyItem(at: markdown.appendingPathComponent("art-of-command-line-README.md"), to: folder.file("cli.md"))
    try FileManager.default.copyItem(at: pdf.appendingPathComponent("debian-blktrace-btt.pdf"), to: folder.file("btt.pdf"))
    try folder.write("a note about a capybara\n", to: "note.txt")
    let markdownHit = try await quire(["search", "xargs"])
    #expect(markdownHit.status == 0, "\(markdownHit.error)")
    #expect(markdownHit.output.contains(folder.file("cli.md").path + ": line "))
    #expect(markdownHit.output.contains("[xargs]"))
    #expect(try await quire(["search", "Brunelle"]).output.contains("btt.pdf: page 1"))
    #expect(try await quire(["search", "capybara"]).output.contains("[capybara]"))
    // A change is found by the next search.
    try folder.write("a note about an okapi\n", to: "note.txt")
    #expect(try await quire(["search", "okapi"]).output.contains("note.txt"))
    #expect(try await quire(["search", "capybara"]).output.isEmpty)
    // A damaged index is made anew; so is a deleted one.
    let indexFolder = folder.url.appendingPathComponent(".cache/quire/search")
    let indexName = try #require(
      try FileManager.default.contentsOfDirectory(atPath: indexFolder.path).first { $0.hasPrefix("index-") && $0.hasSuffix(".sqlite") })
    let index = indexFolder.appendingPathComponent(indexName)
    try Data(repeating: 0x41, count: 4096).write(to: index)
    #expect(try await quire(["search", "okapi"]).output.contains("note.txt"))
    try FileManager.default.removeItem(at: index)
    let json = try await quire(["search", "okapi", "--json"])
    let hits = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [[String: Any]]
    #expect(hits?.count == 1)
    #expect(try await quire(["search", "--rebuild"]).output.hasPrefix("indexed 3 documents"))
    let noQuery = try await quire(["search"])
    #expect(noQuery.status == 2 && noQuery.output.isEmpty)
    #expect(noQuery.error.contains("Usage: quire search"), "\(noQuery.error)")
  }

  /// `quire search --watch` keeps the index current from change notifications, and searches
  /// of the same folder answer from it without looking at every file, saying so; once it
  /// ends, searches look at every file again.
  @Test func aWatchingIndexerLetsSearchesAnswerWithoutAWalkAndKeepsThemCurrent() async throws {
    let notes = folder.file("notes")
    try FileManager.default.createDirectory(at: notes, withIntermediateDirectories: true)
    try folder.write("first a capybara\n", to: "notes/a.md")
    let program = try #require(ProcessRunner.quire)
    let home: [String: String] = [
      "PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8", "HOME": folder.url.path, "XDG_STATE_HOME": folder.file(".state").path,
      "XDG_CACHE_HOME": folder.file(".cache").path,
    ]
    let watcher = try ChildProcess.start(program, ["search", "--watch", "--in", notes.path], environment: home.merging(environment) { $1 }, in: folder.url)
    defer { watcher.kill(SIGKILL) }
    _ = try await watcher.errors.firstLine(containing: "keeping the search index of 1 folder current", within: .seconds(120))
    let answered = try await quire(["search", "capybara", "--in", notes.path])
    #expect(answered.output.contains("a.md"), "\(answered.output) \(answered.error)")
    #expect(answered.error.contains("process \(watcher.pid) keeps current"), "\(answered.error)")
    // A new file reaches the index through the watcher.
    try folder.write("now an okapi\n", to: "notes/b.md")
    #expect(await eventually { (try? await self.quire(["search", "okapi", "--in", notes.path]))?.output.contains("b.md") == true })
    // While the watcher is stopped, a search answers from the index as it is: no walk finds the new file.
    watcher.kill(SIGSTOP)
    try folder.write("then a tapir\n", to: "notes/c.md")
    let unseen = try await quire(["search", "tapir", "--in", notes.path])
    // Stopped in the middle of a write, the watcher holds the index locked: then the search
    // waits and says so (it must not take the index for a damaged one and make it anew).
    let waitedForLock = unseen.output.isEmpty && unseen.error.contains("locked by another Quire process")
    #expect(
      waitedForLock || (unseen.status == 0 && unseen.output.isEmpty && unseen.error.contains("keeps current")), "\(unseen.output) \(unseen.error)")
    watcher.kill(SIGCONT)
    #expect(await eventually { (try? await self.quire(["search", "tapir", "--in", notes.path]))?.output.contains("c.md") == true })
    // Once it ends (SIGTERM, cleanly), a search looks at every file first again.
    watcher.kill(SIGTERM)
    #expect(await watcher.waitForExit() == 0)
    try folder.write("finally a quokka\n", to: "notes/d.md")
    let walked = try await quire(["search", "quokka", "--in", notes.path])
    #expect(walked.output.contains("d.md") && !walked.error.contains("keeps current"), "\(walked.output) \(walked.error)")
    // --watch takes no query.
    let both = try await quire(["search", "okapi", "--watch", "--in", notes.path])
    #expect(both.status == 2 && both.error.contains("--watch"), "\(both.error)")
  }

  /// `--watch` on a folder that is not there fails at once with exit 1, naming the folder,
  /// instead of watching nothing.
  @Test func watchingAMissingFolderFailsClearly() async throws {
    let missing = folder.file("no-such-folder")
    let result = try await quire(["search", "--watch", "--in", missing.path])
    #expect(result.status == 1, "\(result.error)")
    #expect(result.error.contains("no-such-folder") && !result.error.contains("keeping the search index"), "\(result.error)")
  }

  // MARK: 5. Coordination with an open REPL

  @Test func openREPLFollowsARenameByTheBrowser() async throws {
    let file = try folder.write("# Notes\n", to: "notes.md")
    try await withLiveREPL(file) { repl in
      repl.write("docs\n")
      #expect(await eventually { repl.transcript.contains("notes.md") })
      let renamed = try browser.renameItem(at: file, to: "plan")
      #expect(
        await eventually {
          repl.write("f\n")
          return repl.transcript.contains(renamed.path)
        })
      repl.write("a\nadded by the REPL\n.\nw\n")
      #expect(await eventually { (try? String(contentsOf: renamed, encoding: .utf8)) == "# Notes\nadded by the REPL\n" })
      #expect(!FileManager.default.fileExists(atPath: file.path))
    }
  }

  @Test func openREPLWithUnsavedChangesSavesBeforeAMove() async throws {
    try FileManager.default.createDirectory(at: folder.file("archive"), withIntermediateDirectories: true)
    let file = try folder.write("# Draft\n", to: "draft.md")
    try await withLiveREPL(file) { repl in
      repl.write("a\nnot saved yet\n.\ndocs\n")
      #expect(await eventually { repl.transcript.contains("unsaved changes") })
      let moved = try browser.moveItem(at: file, into: folder.file("archive"))
      #expect(try String(contentsOf: moved, encoding: .utf8) == "# Draft\nnot saved yet\n")
      #expect(
        await eventually {
          repl.write("f\n")
          return repl.transcript.contains(moved.path)
        })
    }
  }
}
