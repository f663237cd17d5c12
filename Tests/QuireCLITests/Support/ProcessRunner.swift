import Foundation
import QuireTestSupport

/// The CLI tests' way to run `quire` and GNU ed: the shared ``ChildProcess`` runner, in a home
/// of the test's own folder (`HOME`, `XDG_STATE_HOME` and `XDG_CACHE_HOME` under it).
enum ProcessRunner {
  /// The `quire` executable built beside the test bundle, or `nil` when it is missing.
  static var quire: URL? { Programs.quire }

  /// GNU ed, when installed.
  static var ed: URL? { Programs.system("ed") }

  /// Runs `program` with `arguments` in `folder`, feeding `input` on standard input, with
  /// `extra` added to the test home's environment.
  static func run(
    _ program: URL, _ arguments: [String], in folder: URL, input: String, environment extra: [String: String] = [:]
  ) async throws -> ProcessResult {
    var environment = [
      "PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8", "HOME": folder.path,
      "XDG_STATE_HOME": folder.appendingPathComponent(".state").path,
      "XDG_CACHE_HOME": folder.appendingPathComponent(".cache").path,
    ]
    environment.merge(extra) { $1 }
    return try await ChildProcess.run(program, arguments, environment: environment, in: folder, input: Data(input.utf8))
  }

  /// Runs the built `quire` with `arguments` in `folder` (see ``run(_:_:in:input:environment:)``).
  static func runQuire(_ arguments: [String], in folder: URL, input: String = "", environment extra: [String: String] = [:]) async throws
    -> ProcessResult
  {
    guard let quire else { throw TestFailure("the quire executable is not built beside the tests; run 'swift build --build-tests' first") }
    return try await run(quire, arguments, in: folder, input: input, environment: extra)
  }

  /// Every regular file under `folder` (relative path → contents), skipping dot-folders.
  static func snapshot(_ folder: URL) -> [String: Data] {
    var files: [String: Data] = [:]
    guard let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey], options: [.skipsHiddenFiles])
    else { return files }
    for case let url as URL in enumerator where (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
      if let data = FileManager.default.contents(atPath: url.path) { files[String(url.path.dropFirst(folder.path.count + 1))] = data }
    }
    return files
  }
}

/// A suite that runs the built `quire` in its test's folder: ``quire(_:input:)`` runs it there,
/// with the suite's ``environment`` (none unless the suite says) added to the test home's.
protocol RunsQuire {
  /// The test's folder: the working folder and the home.
  var folder: TemporaryFolder { get }
  /// What the suite adds to the test home's environment (`XDG_RUNTIME_DIR`, …).
  var environment: [String: String] { get }
}

extension RunsQuire {
  var environment: [String: String] { [:] }

  /// Runs the built `quire` with `arguments` in the test's folder, `input` on its standard
  /// input, and `extra` added to the suite's environment.
  func quire(_ arguments: [String], input: String = "", environment extra: [String: String] = [:]) async throws -> ProcessResult {
    try await ProcessRunner.runQuire(arguments, in: folder.url, input: input, environment: environment.merging(extra) { $1 })
  }
}
