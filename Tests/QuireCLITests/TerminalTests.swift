import Foundation
import QuireTestSupport
import Testing

/// Drives the real `quire` in a tmux terminal as a person would, and reads the screen.
@Suite("REPL in a terminal (tmux)")
final class TerminalTests {
  let folder: TemporaryFolder
  let socket = "quire-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"

  init() throws { folder = try TemporaryFolder(prefix: "quire-tmux") }

  deinit {
    _ = try? tmux(["kill-server"])
    folder.remove()
  }

  private static var tmuxPath: URL? {
    ["/usr/bin/tmux", "/bin/tmux"].map(URL.init(fileURLWithPath:)).first { FileManager.default.isExecutableFile(atPath: $0.path) }
  }

  @discardableResult
  private func tmux(_ arguments: [String]) throws -> ProcessResult {
    guard let tmux = Self.tmuxPath else { return ProcessResult(status: 127, output: "", error: "") }
    return try spawn(tmux.path, ["-L", socket] + arguments)
  }

  /// Runs a program with posix_spawn and waits for it; its output goes through a file, since
  /// tmux's server keeps the standard output it inherited (a pipe would never end) and
  /// Foundation's Process did not notice the tmux client's exit here.
  private func spawn(_ program: String, _ arguments: [String]) throws -> ProcessResult {
    let outputPath = folder.file(".tmux-output-\(UInt32.random(in: 0...UInt32.max))").path
    defer { unlink(outputPath) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let argv: [UnsafeMutablePointer<CChar>?] = ([program] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    let variables: [String] = ["PATH=/usr/bin:/bin", "LC_ALL=C.UTF-8", "TERM=xterm"]
    var environment: [UnsafeMutablePointer<CChar>?] = variables.map { strdup($0) } + [nil]
    defer { environment.forEach { free($0) } }
    var pid: pid_t = 0
    let status = posix_spawn(&pid, program, &actions, nil, argv, &environment)
    guard status == 0 else { return ProcessResult(status: 127, output: "", error: "posix_spawn failed: \(status)") }
    var exitStatus: Int32 = 0
    while waitpid(pid, &exitStatus, 0) < 0 && errno == EINTR {}
    let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
    return ProcessResult(status: (exitStatus >> 8) & 0xff, output: output, error: "")
  }

  private func send(_ keys: String...) throws { try tmux(["send-keys", "-t", "main:0"] + keys) }

  private func screen() throws -> String { try tmux(["capture-pane", "-p", "-J", "-t", "main:0", "-S", "-200"]).output }

  /// Waits until the screen shows `text` (up to 10 s); returns the screen.
  @discardableResult
  private func waitFor(_ text: String, count: Int = 1, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
    var last = ""
    for _ in 0..<200 {
      last = try screen()
      if last.components(separatedBy: text).count - 1 >= count { return last }
      usleep(50_000)
    }
    Issue.record("the screen never showed \(text.debugDescription) (\(count)×); it shows:\n\(last)", sourceLocation: sourceLocation)
    return last
  }

  /// How often `text` is on the screen now.
  private func occurrences(_ text: String) throws -> Int { try screen().components(separatedBy: text).count - 1 }

  /// Sends `keys`, then waits until the screen shows `text` once more than before.
  @discardableResult
  private func type(_ keys: [String], expecting text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
    let before = try occurrences(text)
    try tmux(["send-keys", "-t", "main:0"] + keys)
    return try waitFor(text, count: before + 1, sourceLocation: sourceLocation)
  }

  private var isRunning: Bool { (try? tmux(["has-session", "-t", "main"]).status) == 0 }

  @Test func editUndoSaveReloadConflictAndQuit() throws {
    guard Self.tmuxPath != nil else {
      print("note: tmux is not installed (apt-get install tmux); skipping the terminal test")
      return
    }
    let quire = try #require(ProcessRunner.quire, "the quire executable is not built; run 'swift build' first")
    let notes = try folder.write("one\ntwo\nthree\n", to: "notes.txt")
    let state = folder.file(".state")
    try tmux([
      "new-session", "-d", "-s", "main", "-x", "150", "-y", "50", "-c", folder.url.path,
      "/usr/bin/env", "TERM=xterm", "LC_ALL=C.UTF-8", "XDG_STATE_HOME=\(state.path)", "HOME=\(folder.url.path)",
      quire.path, "notes.txt",
    ])
    try waitFor("notes.txt> ")

    // Look, edit, undo.
    try type([",n", "Enter"], expecting: "3       three")
    try type(["2d", "Enter"], expecting: "notes.txt*> ")
    try type(["u", "Enter"], expecting: "notes.txt> ")

    // Edit and save: ed prints the byte count.
    try type(["$a", "Enter", "four", "Enter", ".", "Enter", "1d", "Enter", "w", "Enter"], expecting: "\n15\n")
    #expect(try String(contentsOf: notes, encoding: .utf8) == "two\nthree\nfour\n")

    // Tab completes a word command.
    try type(["sta", "Tab", "Enter"], expecting: "undo: ")

    // Ctrl-C drops a half-typed line; the session goes on.
    try type(["junk that is not a command"], expecting: "junk that is not a command")
    try send("C-c")
    let afterInterrupt = try type(["=", "Enter"], expecting: "\n3\n")
    #expect(!afterInterrupt.contains("? unknown command"))

    // Another shell changes the file while it is open and unchanged here: reloaded.
    try tmux(["new-window", "-d", "-t", "main:", "-c", folder.url.path, "/bin/sh", "-c", "printf 'from another shell\\n' >> notes.txt"])
    try waitForFile(notes, toContain: "from another shell")
    try type(["$p", "Enter"], expecting: "\nfrom another shell\n")
    #expect(try screen().contains("changed on disk; reloaded"))

    // Now with unsaved edits here: the change is announced, and w refuses to overwrite it.
    try type(["1s/two/TWO/", "Enter"], expecting: "notes.txt*> ")
    try tmux(["new-window", "-d", "-t", "main:", "-c", folder.url.path, "/bin/sh", "-c", "printf 'second change\\n' >> notes.txt"])
    try waitForFile(notes, toContain: "second change")
    try type(["w", "Enter"], expecting: "? conflict: 'notes.txt' was changed on disk")
    #expect(try screen().contains("has unsaved changes here"))
    #expect(try String(contentsOf: notes, encoding: .utf8).hasSuffix("second change\n"))

    // Quit with unsaved changes: the first q warns, the second quits without saving.
    try type(["q", "Enter"], expecting: "? unsaved changes in 'notes.txt'")
    #expect(isRunning)
    try send("q", "Enter")
    for _ in 0..<100 where isRunning { usleep(50_000) }
    #expect(!isRunning, "quire should have quit after the second q")
    #expect(try String(contentsOf: notes, encoding: .utf8) == "two\nthree\nfour\nfrom another shell\nsecond change\n")

    // History was kept under XDG_STATE_HOME, owner-only.
    var info = stat()
    #expect(lstat(state.appendingPathComponent("quire/history").path, &info) == 0)
    #expect(info.st_mode & 0o777 == 0o600)
    #expect(lstat(state.appendingPathComponent("quire").path, &info) == 0)
    #expect(info.st_mode & 0o777 == 0o700)
  }

  /// Acceptance 3: SIGKILL mid-edit, start again on the same file, the autosaved edits are
  /// offered, and `recover` then `w` puts them into the file.
  @Test func autosavedEditsSurviveSIGKILL() throws {
    guard Self.tmuxPath != nil else {
      print("note: tmux is not installed (apt-get install tmux); skipping the terminal test")
      return
    }
    let quire = try #require(ProcessRunner.quire, "the quire executable is not built; run 'swift build' first")
    let notes = try folder.write("one\ntwo\nthree\n", to: "notes.txt")
    let state = folder.file(".state")
    func start(session: String) throws {
      try tmux([
        "new-session", "-d", "-s", session, "-x", "150", "-y", "50", "-c", folder.url.path,
        "/usr/bin/env", "TERM=xterm", "LC_ALL=C.UTF-8", "XDG_STATE_HOME=\(state.path)", "HOME=\(folder.url.path)",
        "QUIRE_AUTOSAVE_DELAY=0.3", quire.path, "notes.txt",
      ])
    }
    try start(session: "main")
    try waitFor("notes.txt> ")
    try type(["2s/two/TWO/", "Enter"], expecting: "notes.txt*> ")
    try type(["$a", "Enter", "four", "Enter", ".", "Enter"], expecting: "notes.txt*> ")
    // Past the autosave delay, `status` reports the autosave.
    var autosaved = false
    for _ in 0..<100 where !autosaved {
      usleep(100_000)
      autosaved = try type(["status", "Enter"], expecting: "undo: ").contains("autosaved ")
    }
    #expect(autosaved, "status never reported an autosave")
    let recovery = state.appendingPathComponent("quire/recovery")
    let files = (try? FileManager.default.contentsOfDirectory(atPath: recovery.path)) ?? []
    #expect(files.contains { $0.hasSuffix(".recovery") })
    var info = stat()
    #expect(lstat(recovery.path, &info) == 0 && info.st_mode & 0o777 == 0o700)

    // SIGKILL: no chance to clean up. The file on disk is untouched.
    let pidText = try tmux(["display-message", "-p", "-t", "main:0", "#{pane_pid}"]).output
    let pid = try #require(pid_t(pidText.trimmingCharacters(in: .whitespacesAndNewlines)))
    #expect(kill(pid, SIGKILL) == 0)
    for _ in 0..<100 where isRunning { usleep(50_000) }
    #expect(!isRunning)
    #expect(try String(contentsOf: notes, encoding: .utf8) == "one\ntwo\nthree\n")

    // Start again: the autosaved edits are offered; recover, then w, restores them.
    try start(session: "main")
    let offer = try waitFor("notes.txt> ")
    #expect(offer.contains("'notes.txt' has autosaved edits from "))
    #expect(offer.contains("'recover' restores them, 'recover discard' drops them"))
    try type(["docs", "Enter"], expecting: "to recover ('recover')")
    try type(["recover", "Enter"], expecting: "recovered the autosaved edits of 'notes.txt'")
    try type([",p", "Enter"], expecting: "\nfour\n")
    try type(["w", "Enter"], expecting: "\n19\n")
    #expect(try String(contentsOf: notes, encoding: .utf8) == "one\nTWO\nthree\nfour\n")
    // Saved: the recovery file is gone, and a second recover has nothing to offer.
    let left = (try? FileManager.default.contentsOfDirectory(atPath: recovery.path)) ?? []
    #expect(!left.contains { $0.hasSuffix(".recovery") }, "the recovery file outlived the save: \(left)")
    try type(["recover", "Enter"], expecting: "has no autosaved edits to recover")
    try send("q", "Enter")
    for _ in 0..<100 where isRunning { usleep(50_000) }
    #expect(!isRunning)
  }

  private func waitForFile(_ url: URL, toContain text: String) throws {
    for _ in 0..<100 {
      if (try? String(contentsOf: url, encoding: .utf8))?.contains(text) == true { return }
      usleep(50_000)
    }
    Issue.record("\(url.lastPathComponent) never contained \(text)")
  }
}
