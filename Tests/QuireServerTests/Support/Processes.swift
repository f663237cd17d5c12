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

extension Programs {
  /// The system's program `name`, when installed.
  static func find(_ name: String) -> URL? { system(name) }

  /// Runs a program to its end (the shared runner: output through files, waited for on a
  /// thread of its own) with `environment` as its whole environment.
  static func run(_ program: URL, _ arguments: [String], environment: [String: String], in folder: URL? = nil) async throws -> ProcessResult {
    try await ChildProcess.run(program, arguments, environment: environment, in: folder)
  }
}

/// `quire serve FOLDER --port 0`, started as a person would, with the address it prints.
final class ServeProcess: Sendable {
  let server: RunningProcess
  let address: String
  let port: Int
  var output: LineReader { server.output }
  var errors: LineReader { server.errors }

  private init(server: RunningProcess, address: String, port: Int) {
    self.server = server
    self.address = address
    self.port = port
  }

  /// The origin, `http://127.0.0.1:PORT`.
  var origin: String { "http://127.0.0.1:\(port)" }

  /// - Parameters:
  ///   - environment: Variables added to the test home's.
  ///   - descriptorLimit: The soft and hard `RLIMIT_NOFILE` to start it with (through
  ///     `prlimit`), as a user's session might give it; `nil` for the test's own.
  static func start(
    serving folders: [URL], home: TestHome, in workingFolder: URL, environment extra: [String: String] = [:],
    descriptorLimit: (soft: Int, hard: Int)? = nil
  ) async throws -> ServeProcess {
    guard let quire = Programs.quire else { throw TestFailure("the quire executable was not built beside the tests") }
    let arguments = ["serve"] + folders.map(\.path) + ["--port", "0"]
    let environment = home.environment.merging(extra) { $1 }
    let server: RunningProcess
    if let descriptorLimit {
      guard let prlimit = Programs.find("prlimit") else { throw TestFailure("prlimit (util-linux) is not installed") }
      server = try ChildProcess.start(
        prlimit, ["--nofile=\(descriptorLimit.soft):\(descriptorLimit.hard)", quire.path] + arguments, environment: environment, in: workingFolder)
    } else {
      server = try ChildProcess.start(quire, arguments, environment: environment, in: workingFolder)
    }
    let line: String
    do { line = try await server.output.firstLine(containing: "http://127.0.0.1:", within: .seconds(60)) } catch {
      server.kill(SIGTERM)
      throw TestFailure("quire serve printed no address: \(server.transcript)")
    }
    let address = line.trimmingCharacters(in: .whitespaces)
    guard let url = URL(string: address), let port = url.port else { throw TestFailure("not an address: \(address)") }
    return ServeProcess(server: server, address: address, port: port)
  }

  /// Signs in with the printed address into the cookie jar `jar`; returns the page's CSRF token.
  func signIn(jar: URL, with curl: (_ arguments: [String]) async throws -> (status: Int, body: String)) async throws -> String {
    let login = try await curl(["--cookie-jar", jar.path, address])
    guard login.status == 303 else { throw TestFailure("signing in answered \(login.status)") }
    let page = try await curl(["--cookie", jar.path, "\(origin)/"])
    guard let csrf = page.body.firstMatch(of: /name="quire-csrf" content="([0-9a-f]{64})"/)?.1 else { throw TestFailure("no CSRF token in the page") }
    return String(csrf)
  }

  /// Stops the server as Ctrl+C would and waits for it to end.
  func stop() {
    server.kill(SIGINT)
    _ = server.child.wait()
  }
}

/// A `quire` REPL on a file, reading the commands the test writes to it over time.
func startREPL(file: URL, home: TestHome) throws -> RunningProcess {
  guard let quire = Programs.quire else { throw TestFailure("the quire executable was not built beside the tests") }
  return try ChildProcess.start(quire, [file.lastPathComponent], environment: home.environment, in: file.deletingLastPathComponent())
}

/// Waits for `condition`, failing with `what` after `limit`.
func waitFor(_ what: String, limit: Duration = .seconds(30), _ condition: () throws -> Bool) async throws {
  guard await eventually(timeout: limit, every: .milliseconds(50), { (try? condition()) == true }) else {
    throw TestFailure("waited \(limit) for \(what)")
  }
}

/// What the server suites start from: a temporary folder with a `served` folder holding
/// `files` (name and text, in order), and a home for the server and REPL processes;
/// removed when the suite is done. Suites inherit it.
class ServedFolderTestCase: FolderSuite {
  let home: TestHome
  var served: URL { folder.file("served") }

  init(prefix: String, files: KeyValuePairs<String, String>) throws {
    let folder = try TemporaryFolder(prefix: prefix)
    home = try TestHome(in: folder.url)
    super.init(folder: folder)
    try FileManager.default.createDirectory(at: served, withIntermediateDirectories: true)
    for (name, text) in files { try Data(text.utf8).write(to: served.appendingPathComponent(name)) }
  }

  /// A signed-in page: the cookie jar and CSRF token a browser would hold.
  struct SignedInPage {
    let origin: String
    let jar: URL
    let csrf: String
  }

  /// Signs in to `server` with its printed address, as a browser would.
  func signIn(_ server: ServeProcess) async throws -> SignedInPage {
    let jar = folder.file("cookies-\(server.port)")
    let csrf = try await server.signIn(jar: jar) { try await self.curl($0) }
    return SignedInPage(origin: server.origin, jar: jar, csrf: csrf)
  }

  /// POSTs `body` as JSON to `path` (e.g. `/api/editor/open`) as the signed-in page does;
  /// returns the status and the JSON object answered (`["body": text]` when it is not JSON).
  func post(_ path: String, _ body: [String: Any], as page: SignedInPage) async throws -> (status: Int, reply: [String: Any]) {
    let json = String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self)
    let answer = try await curl([
      "--cookie", page.jar.path, "--header", "X-Quire-CSRF: \(page.csrf)", "--header", "Origin: \(page.origin)", "--header",
      "Content-Type: application/json", "--data", json, "\(page.origin)\(path)",
    ])
    let object = (try? JSONSerialization.jsonObject(with: Data(answer.body.utf8))) as? [String: Any] ?? ["body": answer.body]
    return (answer.status, object)
  }

  /// Runs curl (`--path-as-is`, so `..` is sent as written); returns the status code and the body.
  func curl(_ arguments: [String], maxTime: Int = 60) async throws -> (status: Int, body: String) {
    guard let curl = Programs.find("curl") else { throw TestFailure("curl is not installed") }
    let bodyFile = folder.file("body-\(UUID().uuidString)")
    let result = try await Programs.run(
      curl, ["--silent", "--path-as-is", "--max-time", String(maxTime), "--output", bodyFile.path, "--write-out", "%{http_code}"] + arguments,
      environment: home.environment)
    let body = (try? String(contentsOf: bodyFile, encoding: .utf8)) ?? ""
    try? FileManager.default.removeItem(at: bodyFile)
    return (Int(result.output) ?? -1, body)
  }
}
