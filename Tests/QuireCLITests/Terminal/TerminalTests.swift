import Foundation
import QuireTestSupport
import Testing

/// Drives the real `quire` in a tmux terminal as a person would, and reads the screen.
///
/// The tests are async and wait with `Task.sleep`: a synchronous test that polls the screen
/// holds a thread of the cooperative pool (two on CI) for all its seconds, and the two of them
/// together starved the async tests running beside them. Every wait polls a condition until a
/// generous deadline (``patience``): a loaded machine makes quire slower to start and answer,
/// never wrong, and a test that passes waits no longer than the condition takes.
@Suite("REPL in a terminal (tmux)")
final class TerminalTests: FolderSuite {
  let socket = "quire-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"

  deinit { _ = try? tmux(["kill-server"]) }

  static var tmuxPath: URL? { Programs.system("tmux") }

  @discardableResult
  private func tmux(_ arguments: [String]) throws -> ProcessResult {
    guard let tmux = Self.tmuxPath else { return ProcessResult(status: 127, output: "", error: "") }
    return try spawn(tmux.path, ["-L", socket] + arguments)
  }

  /// Runs a program and waits for it (its output goes through a file: tmux's server keeps
  /// what it inherited).
  private func spawn(_ program: String, _ arguments: [String]) throws -> ProcessResult {
    try ChildProcess.runBlocking(
      URL(fileURLWithPath: program), arguments, environment: ["PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8", "TERM": "xterm"])
  }

  /// Starts a tmux session (`new-session` and its arguments) and fails the test if tmux could
  /// not. The server is told not to exit when its last session ends: a test that quits quire
  /// and starts it again would otherwise race the server's exit, and tmux answered the new
  /// session with "server exited unexpectedly", leaving an empty screen to wait on.
  private func startSession(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
    let result = try tmux(["start-server", ";", "set-option", "-s", "exit-empty", "off", ";", "new-session"] + arguments)
    try #require(result.status == 0, "tmux could not start the session: \(result.error)", sourceLocation: sourceLocation)
  }

  private func send(_ keys: String...) throws { try tmux(["send-keys", "-t", "main:0"] + keys) }

  /// The pane's text, with tmux's answer (it fails once the session has ended).
  private func capture() throws -> ProcessResult { try tmux(["capture-pane", "-p", "-J", "-t", "main:0", "-S", "-200"]) }

  private func screen() throws -> String { try capture().output }

  /// Polls `condition` every 50 ms (each look may start tmux) until it holds or ``patience``
  /// has passed.
  private func eventually(_ condition: () throws -> Bool) async throws -> Bool {
    try await QuireTestSupport.eventually(every: .milliseconds(50), condition)
  }

  /// Waits until the screen shows `text` `count` times (up to ``patience``); returns the screen.
  @discardableResult
  private func waitFor(_ text: String, count: Int = 1, sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
    var last = ""
    var gone = false
    if try await eventually({
      // A session that has ended will never show it: stop looking at once.
      let captured = try capture()
      gone = captured.status != 0
      last = captured.output
      return gone || last.components(separatedBy: text).count - 1 >= count
    }), !gone {
      return last
    }
    let why = gone ? "the tmux session has ended" : "it shows:\n\(last)"
    Issue.record("the screen never showed \(text.debugDescription) (\(count)×); \(why)", sourceLocation: sourceLocation)
    return last
  }

  /// How often `text` is on the screen now.
  private func occurrences(_ text: String) throws -> Int { try screen().components(separatedBy: text).count - 1 }

  /// Sends `keys`, then waits until the screen shows `text` once more than before.
  @discardableResult
  private func type(_ keys: [String], expecting text: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
    let before = try occurrences(text)
    try tmux(["send-keys", "-t", "main:0"] + keys)
    return try await waitFor(text, count: before + 1, sourceLocation: sourceLocation)
  }

  private var isRunning: Bool { (try? tmux(["has-session", "-t", "main"]).status) == 0 }

  /// Waits (up to ``patience``) until the tmux session, and so quire in it, has ended.
  private func waitUntilQuit() async throws { _ = try await eventually { !isRunning } }

  @Test(.enabled(if: TerminalTests.tmuxPath != nil, "tmux is not installed (apt-get install tmux)")) func editUndoSaveReloadConflictAndQuit() async throws {
    let quire = try #require(ProcessRunner.quire, "the quire executable is not built; run 'swift build' first")
    let notes = try folder.write("one\ntwo\nthree\n", to: "notes.txt")
    let state = folder.file(".state")
    try startSession([
      "-d", "-s", "main", "-x", "150", "-y", "50", "-c", folder.url.path,
      "/usr/bin/env", "TERM=xterm", "LC_ALL=C.UTF-8", "XDG_STATE_HOME=\(state.path)", "HOME=\(folder.url.path)",
      quire.path, "notes.txt",
    ])
    try await waitFor("notes.txt> ")

    // Look, edit, undo.
    try await type([",n", "Enter"], expecting: "3       three")
    try await type(["2d", "Enter"], expecting: "notes.txt*> ")
    try await type(["u", "Enter"], expecting: "notes.txt> ")

    // Edit and save: ed prints the byte count.
    try await type(["$a", "Enter", "four", "Enter", ".", "Enter", "1d", "Enter", "w", "Enter"], expecting: "\n15\n")
    #expect(try String(contentsOf: notes, encoding: .utf8) == "two\nthree\nfour\n")

    // Tab completes a word command.
    let prompts = try occurrences("notes.txt> ")
    try await type(["sta", "Tab", "Enter"], expecting: "undo: ")

    // Ctrl-C drops a half-typed line; the session goes on. Typed once the next prompt is up, so
    // the line editor has the terminal: typed while `status` still ran, the Ctrl-C was lost
    // under load and the half-typed line went through.
    try await waitFor("notes.txt> ", count: prompts + 1)
    try await type(["junk that is not a command"], expecting: "junk that is not a command")
    try send("C-c")
    let afterInterrupt = try await type(["=", "Enter"], expecting: "\n3\n")
    #expect(!afterInterrupt.contains("? unknown command"))

    // Another shell changes the file while it is open and unchanged here: reloaded.
    try tmux(["new-window", "-d", "-t", "main:", "-c", folder.url.path, "/bin/sh", "-c", "printf 'from another shell\\n' >> notes.txt"])
    try await waitForFile(notes, toContain: "from another shell")
    try await type(["$p", "Enter"], expecting: "\nfrom another shell\n")
    #expect(try screen().contains("changed on disk; reloaded"))

    // Now with unsaved edits here: the change is announced, and w refuses to overwrite it.
    try await type(["1s/two/TWO/", "Enter"], expecting: "notes.txt*> ")
    try tmux(["new-window", "-d", "-t", "main:", "-c", folder.url.path, "/bin/sh", "-c", "printf 'second change\\n' >> notes.txt"])
    try await waitForFile(notes, toContain: "second change")
    try await type(["w", "Enter"], expecting: "? conflict: 'notes.txt' was changed on disk")
    #expect(try screen().contains("has unsaved changes here"))
    #expect(try String(contentsOf: notes, encoding: .utf8).hasSuffix("second change\n"))

    // Quit with unsaved changes: the first q warns, the second quits without saving.
    try await type(["q", "Enter"], expecting: "? unsaved changes in 'notes.txt'")
    #expect(isRunning)
    try send("q", "Enter")
    try await waitUntilQuit()
    #expect(!isRunning, "quire should have quit after the second q")
    #expect(try String(contentsOf: notes, encoding: .utf8) == "two\nthree\nfour\nfrom another shell\nsecond change\n")

    // History was kept under XDG_STATE_HOME, owner-only.
    var info = stat()
    #expect(lstat(state.appendingPathComponent("quire/history").path, &info) == 0)
    #expect(info.st_mode & 0o777 == 0o600)
    #expect(lstat(state.appendingPathComponent("quire").path, &info) == 0)
    #expect(info.st_mode & 0o777 == 0o700)
  }

  /// Issue 31: `u` across a restart and across another program's change, as a person sees it.
  @Test(.enabled(if: TerminalTests.tmuxPath != nil, "tmux is not installed (apt-get install tmux)")) func undoAcrossARestartAndAnOutsideChange() async throws {
    let quire = try #require(ProcessRunner.quire, "the quire executable is not built; run 'swift build' first")
    let notes = try folder.write("one\ntwo\n", to: "notes.txt")
    let state = folder.file(".state")
    let start = [
      "-d", "-s", "main", "-x", "150", "-y", "50", "-c", folder.url.path,
      "/usr/bin/env", "TERM=xterm", "LC_ALL=C.UTF-8", "XDG_STATE_HOME=\(state.path)", "HOME=\(folder.url.path)",
      quire.path, "notes.txt",
    ]

    // First session: add a line, save, quit.
    try startSession(start)
    try await waitFor("notes.txt> ")
    try await type(["$a", "Enter", "three", "Enter", ".", "Enter", "w", "Enter"], expecting: "\n14\n")
    try send("q", "Enter")
    try await waitUntilQuit()

    // Another program appends to the file while quire is not running.
    try startSession(["-d", "-s", "other", "-c", folder.url.path, "/bin/sh", "-c", "printf 'from another shell\\n' >> notes.txt"])
    try await waitForFile(notes, toContain: "from another shell")

    // Second session: the history is back, under one "changed on disk" step.
    try startSession(start)
    try await waitFor("the file changed on disk since quire saved it")
    try await type(["u", "Enter"], expecting: "notes.txt*> ")
    try await type([",n", "Enter"], expecting: "3       three")
    #expect(try !screen().contains("from another shell\n"))
    try await type(["u", "Enter"], expecting: "notes.txt*> ")
    let afterSecond = try await type([",n", "Enter"], expecting: "2       two")
    #expect(afterSecond.components(separatedBy: "3       three").count - 1 == 1, "the second u went on into the first session's history")
    try await type(["redo 2", "Enter"], expecting: "redid 2 changes")
    try await type(["$n", "Enter"], expecting: "4       from another shell")
    try send("q", "Enter")
    try await waitUntilQuit()
    #expect(try String(contentsOf: notes, encoding: .utf8) == "one\ntwo\nthree\nfrom another shell\n")
  }

  /// Issue 16: Ctrl-C stops a `!cmd` as in GNU ed. The shell starts in quire's process group
  /// (Foundation's `Process` gave it a group of its own, where the terminal's Ctrl-C never
  /// reached it), and quire ignores the SIGINT while the command runs, prints `!` when it has
  /// ended and goes on, as ed does.
  @Test(.enabled(if: TerminalTests.tmuxPath != nil, "tmux is not installed (apt-get install tmux)")) func controlCStopsAShellCommand() async throws {
    let quire = try #require(ProcessRunner.quire, "the quire executable is not built; run 'swift build' first")
    try folder.write("one\n", to: "notes.txt")
    let pidFile = folder.file("shell.pid")
    try startSession([
      "-d", "-s", "main", "-x", "150", "-y", "50", "-c", folder.url.path,
      "/usr/bin/env", "TERM=xterm", "LC_ALL=C.UTF-8", "XDG_STATE_HOME=\(folder.file(".state").path)", "HOME=\(folder.url.path)",
      quire.path, "notes.txt",
    ])
    try await waitFor("notes.txt> ")
    try send("!echo $$ > shell.pid; sleep 100; echo not-stopped", "Enter")
    #expect(try await eventually { ((try? String(contentsOf: pidFile, encoding: .utf8)) ?? "").hasSuffix("\n") })
    let shell = try #require(pid_t(try String(contentsOf: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
    let quirePid = try #require(
      pid_t(try tmux(["display-message", "-p", "-t", "main:0", "#{pane_pid}"]).output.trimmingCharacters(in: .whitespacesAndNewlines)))
    #expect(Self.processGroup(of: shell) == Self.processGroup(of: quirePid), "the shell runs in quire's process group")
    try send("C-c")
    let screen = try await waitFor("notes.txt> ", count: 2)
    #expect(screen.contains("\n!\n") || screen.contains("^C!\n"), "quire printed ed's ! after the command: \(screen)")
    #expect(!screen.contains("\nnot-stopped"), "the shell went on after sleep")
    #expect(kill(shell, 0) != 0, "the shell has ended and been reaped")
    try await type(["!echo after", "Enter"], expecting: "after\n!")
    try await type(["=", "Enter"], expecting: "\n1\n")
    try send("q", "Enter")
    try await waitUntilQuit()
    #expect(!isRunning)
  }

  /// The process group of `pid` (`/proc/PID/stat`, the fifth field).
  private static func processGroup(of pid: pid_t) -> pid_t? {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let end = stat.lastIndex(of: ")") else { return nil }
    let fields = stat[stat.index(after: end)...].split(separator: " ")
    return fields.count > 2 ? pid_t(fields[2]) : nil
  }

  /// Acceptance 3: SIGKILL mid-edit, start again on the same file, the autosaved edits are
  /// offered, and `recover` then `w` puts them into the file.
  @Test(.enabled(if: TerminalTests.tmuxPath != nil, "tmux is not installed (apt-get install tmux)")) func autosavedEditsSurviveSIGKILL() async throws {
    let quire = try #require(ProcessRunner.quire, "the quire executable is not built; run 'swift build' first")
    let notes = try folder.write("one\ntwo\nthree\n", to: "notes.txt")
    let state = folder.file(".state")
    func start(session: String) throws {
      try startSession([
        "-d", "-s", session, "-x", "150", "-y", "50", "-c", folder.url.path,
        "/usr/bin/env", "TERM=xterm", "LC_ALL=C.UTF-8", "XDG_STATE_HOME=\(state.path)", "HOME=\(folder.url.path)",
        "QUIRE_AUTOSAVE_DELAY=0.3", quire.path, "notes.txt",
      ])
    }
    try start(session: "main")
    try await waitFor("notes.txt> ")
    try await type(["2s/two/TWO/", "Enter"], expecting: "notes.txt*> ")
    try await type(["$a", "Enter", "four", "Enter", ".", "Enter"], expecting: "notes.txt*> ")
    // Past the autosave delay the recovery file is written, and `status` reports the autosave.
    let recovery = state.appendingPathComponent("quire/recovery")
    // The recovery file must hold the last edit: on a slow machine the first edit alone may
    // have been autosaved already while the second was being typed.
    let written = try await eventually {
      ((try? FileManager.default.contentsOfDirectory(atPath: recovery.path)) ?? []).contains { name in
        name.hasSuffix(".recovery")
          && ((try? Data(contentsOf: recovery.appendingPathComponent(name))).map { String(decoding: $0, as: UTF8.self).contains("four") } ?? false)
      }
    }
    #expect(written, "autosave never wrote a recovery file")
    let status = try await type(["status", "Enter"], expecting: "undo: ")
    #expect(status.contains("autosaved "), "status did not report the autosave")
    var info = stat()
    #expect(lstat(recovery.path, &info) == 0 && info.st_mode & 0o777 == 0o700)

    // SIGKILL: no chance to clean up. The file on disk is untouched.
    let pidText = try tmux(["display-message", "-p", "-t", "main:0", "#{pane_pid}"]).output
    let pid = try #require(pid_t(pidText.trimmingCharacters(in: .whitespacesAndNewlines)))
    #expect(kill(pid, SIGKILL) == 0)
    try await waitUntilQuit()
    #expect(!isRunning)
    #expect(try String(contentsOf: notes, encoding: .utf8) == "one\ntwo\nthree\n")

    // Start again: the autosaved edits are offered; recover, then w, restores them.
    try start(session: "main")
    let offer = try await waitFor("notes.txt> ")
    #expect(offer.contains("'notes.txt' has autosaved edits from "))
    #expect(offer.contains("'recover' restores them, 'recover discard' drops them"))
    try await type(["docs", "Enter"], expecting: "to recover ('recover')")
    try await type(["recover", "Enter"], expecting: "recovered the autosaved edits of 'notes.txt'")
    try await type([",p", "Enter"], expecting: "\nfour\n")
    try await type(["w", "Enter"], expecting: "\n19\n")
    #expect(try String(contentsOf: notes, encoding: .utf8) == "one\nTWO\nthree\nfour\n")
    // Saved: the recovery file is gone, and a second recover has nothing to offer.
    let left = (try? FileManager.default.contentsOfDirectory(atPath: recovery.path)) ?? []
    #expect(!left.contains { $0.hasSuffix(".recovery") }, "the recovery file outlived the save: \(left)")
    try await type(["recover", "Enter"], expecting: "has no autosaved edits to recover")
    try send("q", "Enter")
    try await waitUntilQuit()
    #expect(!isRunning)
  }

  // MARK: Documents on FUSE mounts (issue 33)

  @Test(
    .enabled(if: TerminalTests.tmuxPath != nil, "tmux is not installed (apt-get install tmux)"),
    .enabled(if: FUSEMount.bindfsUnavailableReason == nil, "\(FUSEMount.bindfsUnavailableReason ?? "")"))
  func aDocumentOnABindfsMountReportsAChangeBehindItAndWRefusesToOverwriteIt() async throws {
    let source = folder.file("src")
    try FileManager.default.createDirectory(at: source, withIntermediateDirectories: true)
    let mount = try FUSEMount.bindfs(source, at: folder.file("view"))
    defer { mount.unmount() }
    try await editOnAMountWhileItChangesBehind(mount)
  }

  @Test(
    .enabled(if: TerminalTests.tmuxPath != nil, "tmux is not installed (apt-get install tmux)"),
    .enabled(if: FUSEMount.sshfsUnavailableReason == nil, "\(FUSEMount.sshfsUnavailableReason ?? "")"))
  func aDocumentOnAnSSHFSMountReportsAChangeOnTheServerAndWRefusesToOverwriteIt() async throws {
    let source = folder.file("src")
    try FileManager.default.createDirectory(at: source, withIntermediateDirectories: true)
    let mount = try FUSEMount.sshfs(source, at: folder.file("view"), scratch: folder.file("ssh"))
    defer { mount.unmount() }
    try await editOnAMountWhileItChangesBehind(mount)
  }

  /// Opens `notes.txt` of the mount in quire (polling every 0.5 s), changes it behind the
  /// mount while it is clean (reloaded, announced) and while it has unsaved edits (announced;
  /// `w` refuses and leaves the other side's text).
  private func editOnAMountWhileItChangesBehind(_ mount: FUSEMount) async throws {
    let quire = try #require(ProcessRunner.quire, "the quire executable is not built; run 'swift build' first")
    let behind = mount.source.appendingPathComponent("notes.txt")
    let through = mount.view.appendingPathComponent("notes.txt")
    try "one\ntwo\n".write(to: behind, atomically: false, encoding: .utf8)
    let runtime = folder.file("run")
    try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    try startSession([
      "-d", "-s", "main", "-x", "200", "-y", "50", "-c", mount.view.path,
      "/usr/bin/env", "TERM=xterm", "LC_ALL=C.UTF-8", "XDG_STATE_HOME=\(folder.file(".state").path)", "HOME=\(folder.url.path)",
      "XDG_RUNTIME_DIR=\(runtime.path)", "QUIRE_POLL_INTERVAL=0.5", quire.path, "notes.txt",
    ])
    let opened = try await waitFor("notes.txt> ")
    #expect(opened.contains("by polling every 0.5 s as well"), "the REPL says the file is polled: \(opened)")

    // Clean here, changed behind the mount: reloaded, and said so.
    let append = URL(fileURLWithPath: "/bin/sh")
    _ = try ChildProcess.runBlocking(append, ["-c", "printf 'from the other side\\n' >> \"$1\"", "sh", behind.path])
    try await waitForFile(through, toContain: "from the other side")
    try await type(["$p", "Enter"], expecting: "\nfrom the other side\n")
    try await waitFor("changed on disk; reloaded")

    // Unsaved edits here, changed behind again: w refuses to overwrite it.
    try await type(["1s/one/ONE/", "Enter"], expecting: "notes.txt*> ")
    _ = try ChildProcess.runBlocking(append, ["-c", "printf 'second change\\n' >> \"$1\"", "sh", behind.path])
    try await waitForFile(through, toContain: "second change")
    try await type(["w", "Enter"], expecting: "? conflict: 'notes.txt' was changed on disk")
    #expect(try String(contentsOf: behind, encoding: .utf8) == "one\ntwo\nfrom the other side\nsecond change\n")

    try await type(["q", "Enter"], expecting: "? unsaved changes in 'notes.txt'")
    try send("q", "Enter")
    try await waitUntilQuit()
    #expect(!isRunning)
  }

  private func waitForFile(_ url: URL, toContain text: String) async throws {
    if try await eventually({ (try? String(contentsOf: url, encoding: .utf8))?.contains(text) == true }) { return }
    Issue.record("\(url.lastPathComponent) never contained \(text)")
  }
}
