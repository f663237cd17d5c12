import Foundation
import Synchronization

/// The result of running a program with a script on standard input.
struct ProcessResult {
  var status: Int32
  var output: String
  var error: String
}

/// Runs programs for the tests: arguments as arrays, standard input from a pipe.
enum ProcessRunner {
  /// The `quire` executable built beside the test bundle, or `nil` when it is missing.
  static var quire: URL? {
    let folder = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
    let candidates = [folder.appendingPathComponent("quire"), folder.deletingLastPathComponent().appendingPathComponent("quire")]
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
  }

  /// GNU ed, when installed.
  static var ed: URL? {
    ["/usr/bin/ed", "/bin/ed"].map(URL.init(fileURLWithPath:)).first { FileManager.default.isExecutableFile(atPath: $0.path) }
  }

  /// Runs `program` with `arguments` in `folder`, feeding `input` on standard input.
  ///
  /// The waiting happens on a thread of its own, never on a thread of the cooperative pool:
  /// the tests run in parallel on a pool as wide as the machine has cores (two on CI), and
  /// a synchronous test that waits for processes holds a pool thread all that time. The 93
  /// ed parity cases did that one after another, and async tests queued behind them (a
  /// paste waiting for its item load, `quire watch` counting messages) waited long enough
  /// on a loaded machine to run into their time limits. At most ``runSlots`` runs go at once,
  /// so that a parameterised test's cases do not all start their processes together.
  static func run(
    _ program: URL, _ arguments: [String], in folder: URL, input: String, environment extra: [String: String] = [:]
  ) async throws -> ProcessResult {
    await runSlots.acquire()
    defer { runSlots.release() }
    return try await withCheckedThrowingContinuation { continuation in
      Thread {
        continuation.resume(with: Result { try runBlocking(program, arguments, in: folder, input: input, environment: extra) })
      }.start()
    }
  }

  /// How many processes ``run(_:_:in:input:environment:)`` runs at once.
  static let runSlots = AsyncSlots(ProcessInfo.processInfo.activeProcessorCount * 2)

  /// `run(_:_:in:input:environment:)`, waiting on the calling thread.
  private static func runBlocking(
    _ program: URL, _ arguments: [String], in folder: URL, input: String, environment extra: [String: String]
  ) throws -> ProcessResult {
    let process = Process()
    process.executableURL = program
    process.arguments = arguments
    process.currentDirectoryURL = folder
    var environment = [
      "PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8", "HOME": folder.path,
      "XDG_STATE_HOME": folder.appendingPathComponent(".state").path,
      "XDG_CACHE_HOME": folder.appendingPathComponent(".cache").path,
    ]
    environment.merge(extra) { $1 }
    process.environment = environment
    let stdin = Pipe()
    let stdout = Pipe()
    let stderr = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    process.standardError = stderr
    try process.run()
    // A program that quits before reading all its input (ed's q) closes the pipe: the write
    // then fails with EPIPE, which must not kill the test process with SIGPIPE.
    signal(SIGPIPE, SIG_IGN)
    try? stdin.fileHandleForWriting.write(contentsOf: Data(input.utf8))
    try? stdin.fileHandleForWriting.close()
    // Read both pipes at once so that neither can fill and block the child.
    nonisolated(unsafe) var errorData = Data()
    let group = DispatchGroup()
    group.enter()
    DispatchQueue.global().async {
      errorData = stderr.fileHandleForReading.readDataToEndOfFile()
      group.leave()
    }
    let outputData = stdout.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    process.waitUntilExit()
    return ProcessResult(
      status: process.terminationStatus, output: String(decoding: outputData, as: UTF8.self),
      error: String(decoding: errorData, as: UTF8.self))
  }

  /// Every regular file under `folder` (relative path → contents), skipping dot-folders.
  static func snapshot(_ folder: URL) -> [String: Data] {
    var files: [String: Data] = [:]
    guard let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil, options: [.skipsHiddenFiles]) else { return files }
    for case let url as URL in enumerator {
      if let data = FileManager.default.contents(atPath: url.path), !DocumentsFolderProbe.isFolder(url) {
        files[String(url.path.dropFirst(folder.path.count + 1))] = data
      }
    }
    return files
  }
}

enum DocumentsFolderProbe {
  static func isFolder(_ url: URL) -> Bool {
    var isDirectory: ObjCBool = false
    return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue
  }
}

/// A counting semaphore for async code: `acquire` suspends (freeing its thread) while all
/// slots are taken.
final class AsyncSlots: Sendable {
  private struct State {
    var free: Int
    var waiting: [CheckedContinuation<Void, Never>] = []
  }
  private let state: Mutex<State>

  init(_ count: Int) { state = Mutex(State(free: max(1, count))) }

  func acquire() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let granted = state.withLock { state in
        guard state.free > 0 else {
          state.waiting.append(continuation)
          return false
        }
        state.free -= 1
        return true
      }
      if granted { continuation.resume() }
    }
  }

  func release() {
    let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
      guard !state.waiting.isEmpty else {
        state.free += 1
        return nil
      }
      return state.waiting.removeFirst()
    }
    next?.resume()
  }
}
