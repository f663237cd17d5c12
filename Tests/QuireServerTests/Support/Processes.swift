import Foundation
import QuireTestSupport

/// A home for one test's processes: its own `HOME` and XDG folders (data: recents and Trash;
/// cache: thumbnails and the search index; state: recovery; runtime: coordination), so the
/// server, the REPL and the tools the tests run (`gio`, `getfattr`) all see the same ones and
/// never the user's.
struct TestHome: Sendable {
  let root: URL

  init(in folder: URL) throws {
    root = folder.appendingPathComponent("home")
    for name in ["data", "cache", "state", "run", "config"] {
      try FileManager.default.createDirectory(at: root.appendingPathComponent(name), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }
  }

  var environment: [String: String] {
    [
      "PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8", "HOME": root.path,
      "XDG_DATA_HOME": root.appendingPathComponent("data").path,
      "XDG_CACHE_HOME": root.appendingPathComponent("cache").path,
      "XDG_STATE_HOME": root.appendingPathComponent("state").path,
      "XDG_RUNTIME_DIR": root.appendingPathComponent("run").path,
      "XDG_CONFIG_HOME": root.appendingPathComponent("config").path,
    ]
  }
}

/// Finding and running programs.
enum Programs {
  /// The `quire` executable built beside the test bundle.
  static var quire: URL? {
    let folder = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
    let candidates = [folder.appendingPathComponent("quire"), folder.deletingLastPathComponent().appendingPathComponent("quire")]
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
  }

  static func find(_ name: String) -> URL? {
    ["/usr/bin/\(name)", "/bin/\(name)"].map(URL.init(fileURLWithPath:)).first { FileManager.default.isExecutableFile(atPath: $0.path) }
  }

  /// Runs a program to its end on a thread of its own; returns status, stdout and stderr.
  ///
  /// Output goes to files, not pipes, and the wait is for the program's exit: a program that
  /// leaves daemons behind holding its output (`dbus-run-session` starting gvfsd for `gio`)
  /// cannot keep the test waiting for an end of file.
  static func run(_ program: URL, _ arguments: [String], environment: [String: String], in folder: URL? = nil) async throws -> (
    status: Int32, output: String, error: String
  ) {
    try await withCheckedThrowingContinuation { continuation in
      Thread {
        continuation.resume(
          with: Result {
            let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("quire-run-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: scratch) }
            let outputURL = scratch.appendingPathComponent("out")
            let errorURL = scratch.appendingPathComponent("err")
            try Data().write(to: outputURL)
            try Data().write(to: errorURL)
            let output = try FileHandle(forWritingTo: outputURL)
            let error = try FileHandle(forWritingTo: errorURL)
            defer {
              try? output.close()
              try? error.close()
            }
            let process = Process()
            process.executableURL = program
            process.arguments = arguments
            process.environment = environment
            if let folder { process.currentDirectoryURL = folder }
            process.standardOutput = output
            process.standardError = error
            process.standardInput = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            let out = (try? String(contentsOf: outputURL, encoding: .utf8)) ?? ""
            let err = (try? String(contentsOf: errorURL, encoding: .utf8)) ?? ""
            return (process.terminationStatus, out, err)
          })
      }.start()
    }
  }
}

/// `quire serve FOLDER --port 0`, started as a person would, with the address it prints.
final class ServeProcess: Sendable {
  let process: Process
  let address: String
  let port: Int
  let output: LineReader
  let errors: LineReader

  private init(process: Process, address: String, port: Int, output: LineReader, errors: LineReader) {
    self.process = process
    self.address = address
    self.port = port
    self.output = output
    self.errors = errors
  }

  /// The origin, `http://127.0.0.1:PORT`.
  var origin: String { "http://127.0.0.1:\(port)" }

  static func start(serving folders: [URL], home: TestHome, in workingFolder: URL) async throws -> ServeProcess {
    guard let quire = Programs.quire else { throw TestFailure("the quire executable was not built beside the tests") }
    let process = Process()
    process.executableURL = quire
    process.arguments = ["serve"] + folders.map(\.path) + ["--port", "0"]
    process.environment = home.environment
    process.currentDirectoryURL = workingFolder
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let outputReader = LineReader(output.fileHandleForReading)
    let errorReader = LineReader(errors.fileHandleForReading)
    let line: String
    do { line = try await outputReader.firstLine(containing: "http://127.0.0.1:", within: .seconds(60)) } catch {
      process.terminate()
      throw TestFailure("quire serve printed no address: \(outputReader.text) \(errorReader.text)")
    }
    let address = line.trimmingCharacters(in: .whitespaces)
    guard let url = URL(string: address), let port = url.port else { throw TestFailure("not an address: \(address)") }
    return ServeProcess(process: process, address: address, port: port, output: outputReader, errors: errorReader)
  }

  /// Stops the server as Ctrl+C would and waits for it to end.
  func stop() {
    if process.isRunning { process.interrupt() }
    process.waitUntilExit()
  }
}

/// A `quire` REPL on a file, reading the commands the test writes to it over time.
final class REPLProcess: Sendable {
  let process: Process
  private let input: FileHandle
  let output: LineReader
  let errors: LineReader

  init(file: URL, home: TestHome) throws {
    guard let quire = Programs.quire else { throw TestFailure("the quire executable was not built beside the tests") }
    process = Process()
    process.executableURL = quire
    process.arguments = [file.lastPathComponent]
    process.environment = home.environment
    process.currentDirectoryURL = file.deletingLastPathComponent()
    let stdin = Pipe()
    let stdout = Pipe()
    let stderr = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    process.standardError = stderr
    try process.run()
    input = stdin.fileHandleForWriting
    output = LineReader(stdout.fileHandleForReading)
    errors = LineReader(stderr.fileHandleForReading)
  }

  /// Sends `lines` as the person's next commands.
  func send(_ lines: String) throws {
    try input.write(contentsOf: Data(lines.utf8))
  }

  /// Ends the input and waits for the REPL to exit; returns its status.
  func finish() throws -> Int32 {
    try? input.close()
    process.waitUntilExit()
    return process.terminationStatus
  }
}

/// Waits for `condition` (polled every 50 ms), failing with `what` after `limit`.
func waitFor(_ what: String, limit: Duration = .seconds(30), _ condition: () throws -> Bool) async throws {
  let deadline = ContinuousClock.now + limit
  while ContinuousClock.now < deadline {
    if (try? condition()) == true { return }
    try await Task.sleep(for: .milliseconds(50))
  }
  if try condition() { return }
  throw TestFailure("waited \(limit) for \(what)")
}
