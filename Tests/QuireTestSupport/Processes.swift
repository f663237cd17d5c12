public import Foundation
package import QuireSystem
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Finding the programs tests run: this package's executables, built beside the test bundle,
/// and the system's tools.
public enum Programs {
  /// The executable `name` of this package (`quire`, `quire-coordination-helper`,
  /// `quire-documents-test-helper`, …) built beside the test bundle, or `nil` when it is not built.
  public static func built(_ name: String) -> URL? {
    var folder = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
    for _ in 0..<4 {
      let candidate = folder.appendingPathComponent(name)
      if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
      folder.deleteLastPathComponent()
    }
    return nil
  }

  /// The `quire` executable built beside the test bundle.
  public static var quire: URL? { built("quire") }

  /// The system's program `name` (in /usr/bin or /bin), when installed.
  public static func system(_ name: String) -> URL? {
    ["/usr/bin/\(name)", "/bin/\(name)"].map(URL.init(fileURLWithPath:)).first { FileManager.default.isExecutableFile(atPath: $0.path) }
  }

  /// Whether the program at `path` is installed.
  public static func isInstalled(_ path: String) -> Bool { FileManager.default.isExecutableFile(atPath: path) }
}

/// A failure of the test's own machinery (a program not built, a line that never came), with
/// what happened.
public struct TestFailure: Error, CustomStringConvertible {
  public let description: String
  public init(_ description: String) { self.description = description }
}

/// What a program printed and how it ended.
public struct ProcessResult: Sendable {
  /// The exit status (or the signal's number, when ``killed`` is set or it died of one).
  public var status: Int32
  /// Its standard output, as bytes.
  public var outputData: Data
  /// Its standard error, as UTF-8 text.
  public var error: String
  /// Whether the run's time limit ran out and it was killed.
  public var killed = false

  public init(status: Int32, outputData: Data, error: String, killed: Bool = false) {
    self.status = status
    self.outputData = outputData
    self.error = error
    self.killed = killed
  }

  /// A result with `output` as its standard output.
  public init(status: Int32, output: String, error: String) {
    self.init(status: status, outputData: Data(output.utf8), error: error)
  }

  /// Its standard output, as UTF-8 text.
  public var output: String { String(decoding: outputData, as: UTF8.self) }
}

/// Runs programs for the tests: an argument array (never a shell), standard input from bytes,
/// output and exit status collected.
///
/// Output goes to files, not pipes: a program that leaves daemons behind holding its output
/// (`dbus-run-session` starting gvfsd for `gio`) cannot keep the test waiting for an end of
/// file, and a program that quits before reading all its input (ed's `q`) cannot make the
/// writer fail. The async form waits on a thread of its own, never on a thread of the
/// cooperative pool (two wide on CI, and the tests running beside need it), and at most
/// ``slots`` runs go at once, so a parameterised test's cases do not all start together.
public enum ChildProcess {
  /// How many ``run(_:_:environment:in:input:timeLimit:)`` calls run at once.
  public static let slots = AsyncSlots(ProcessInfo.processInfo.activeProcessorCount * 2)

  /// Runs `program` to its end and returns what it printed.
  /// - Parameters:
  ///   - environment: Its whole environment; `nil` inherits the test process's.
  ///   - folder: Its working folder; `nil` keeps the test process's.
  ///   - timeLimit: When given, the program is killed (SIGKILL) once it has run that long on
  ///     the clock, and the result says ``ProcessResult/killed``.
  public static func run(
    _ program: URL, _ arguments: [String], environment: [String: String]? = nil, in folder: URL? = nil, input: Data = Data(),
    timeLimit: Duration? = nil
  ) async throws -> ProcessResult {
    await slots.acquire()
    defer { slots.release() }
    return try await withCheckedThrowingContinuation { continuation in
      Thread {
        continuation.resume(
          with: Result { try runBlocking(program, arguments, environment: environment, in: folder, input: input, timeLimit: timeLimit) })
      }.start()
    }
  }

  /// ``run(_:_:environment:in:input:timeLimit:)``, waiting on the calling thread.
  public static func runBlocking(
    _ program: URL, _ arguments: [String], environment: [String: String]? = nil, in folder: URL? = nil, input: Data = Data(),
    timeLimit: Duration? = nil
  ) throws -> ProcessResult {
    let scratch = try TemporaryFolder(prefix: "quire-run")
    defer { scratch.remove() }
    let inputURL = scratch.file("in")
    let outputURL = scratch.file("out")
    let errorURL = scratch.file("err")
    try input.write(to: inputURL)
    for url in [outputURL, errorURL] { try Data().write(to: url) }
    let handles = try [FileHandle(forReadingFrom: inputURL), FileHandle(forWritingTo: outputURL), FileHandle(forWritingTo: errorURL)]
    defer { for handle in handles { try? handle.close() } }
    let child = try launch(
      program, arguments, environment: environment, in: folder, input: .descriptor(handles[0].fileDescriptor),
      output: .descriptor(handles[1].fileDescriptor), errors: .descriptor(handles[2].fileDescriptor))
    let killed = Mutex(false)
    if let timeLimit {
      let ended = DispatchSemaphore(value: 0)
      Thread {
        if ended.wait(timeout: .now() + timeLimit.seconds) == .timedOut {
          killed.withLock { $0 = true }
          child.signal(SIGKILL)
        }
      }.start()
      _ = child.wait()
      ended.signal()
    }
    return ProcessResult(
      status: child.wait().foundationStatus, outputData: try Data(contentsOf: outputURL),
      error: String(decoding: try Data(contentsOf: errorURL), as: UTF8.self), killed: killed.withLock { $0 })
  }

  /// Starts `program` and returns at once: its standard input is a pipe the test writes to,
  /// its standard output (and, unless `discardingErrors`, standard error) are read line by line.
  public static func start(
    _ program: URL, _ arguments: [String], environment: [String: String]? = nil, in folder: URL? = nil, discardingErrors: Bool = false
  ) throws -> RunningProcess {
    try RunningProcess(program, arguments, environment: environment, in: folder, discardingErrors: discardingErrors)
  }

  /// Starts `program` through the system layer (``SystemCalls/spawn(_:arguments:environment:folder:standardInput:standardOutput:standardError:ownProcessGroup:)``),
  /// as Quire starts its own children: no signal blocked (the threads tests run on block most
  /// signals, and a `dbus-run-session` started with them could not end its `dbus-daemon`), no
  /// descriptor of ours inherited, and reaped by waiting on its process id, so a daemon it
  /// leaves behind holding a descriptor cannot keep a test waiting.
  package static func launch(
    _ program: URL, _ arguments: [String], environment: [String: String]? = nil, in folder: URL? = nil, input: ChildStream,
    output: ChildStream, errors: ChildStream
  ) throws -> SpawnedProcess {
    try SystemCalls.spawn(
      program.path, arguments: arguments, environment: environment, folder: folder?.path, standardInput: input, standardOutput: output,
      standardError: errors
    ).get()
  }

  /// Starts this package's program `name` (``Programs/built(_:)``) as ``start(_:_:environment:in:discardingErrors:)``
  /// does; throws ``TestFailure`` when it is not built.
  public static func startBuilt(_ name: String, _ arguments: [String], discardingErrors: Bool = false) throws -> RunningProcess {
    guard let url = Programs.built(name) else {
      throw TestFailure("\(name) is not built beside the tests; run `swift build --build-tests` first")
    }
    return try start(url, arguments, discardingErrors: discardingErrors)
  }

  /// Runs `process` to its end, or kills it once it has used `cpuSeconds` of CPU time (or,
  /// blocked, six times that on the clock).
  ///
  /// CPU time, not the clock: a program that loops runs out of it just the same, while on a
  /// loaded machine one that works gets a small share of a core and its clock time stretches
  /// (2.6 s of CPU took 27 s beside eight busy loops, past a 20 s clock limit).
  /// - Returns: The exit status (nil when it was killed for time) and its output.
  public static func finish(_ process: RunningProcess, cpuSeconds limit: Double) -> (status: Int32?, output: String) {
    let deadline = Date().addingTimeInterval(limit * 6)
    while process.isRunning && Date() < deadline && (cpuSeconds(of: process.pid) ?? 0) < limit {
      usleep(5_000)
    }
    let killed = process.isRunning
    process.killAndWait()
    _ = process.output.waitForEndBlocking()
    return (killed ? nil : process.child.wait().foundationStatus, process.output.text)
  }

  /// The user and system CPU time process `pid` has used (`/proc/PID/stat`), in seconds.
  public static func cpuSeconds(of pid: Int32) -> Double? {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
      let end = stat.lastIndex(of: ")")
    else { return nil }
    // After "pid (comm)": state is field 3, utime and stime are fields 14 and 15.
    let fields = stat[stat.index(after: end)...].split(separator: " ")
    guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
  }
}

extension Termination {
  /// As Foundation's `Process.terminationStatus`: the exit status, or the signal's number.
  package var foundationStatus: Int32 {
    switch self {
    case .exited(let status): status
    case .signalled(let signal): signal
    case .reapedElsewhere: 255
    }
  }
}

extension Duration {
  /// The duration in seconds, for Dispatch and Foundation.
  var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

/// A program the test started and talks to while it runs: lines to its standard input, its
/// output gathered line by line. Killed when the last reference goes, if still running.
public final class RunningProcess: Sendable {
  /// The process.
  package let child: SpawnedProcess
  private let input: FileHandle
  /// Its standard output, line by line.
  public let output: LineReader
  /// Its standard error, line by line (empty when discarded).
  public let errors: LineReader

  fileprivate init(_ program: URL, _ arguments: [String], environment: [String: String]?, in folder: URL?, discardingErrors: Bool) throws {
    let stdin = Pipe()
    let stdout = Pipe()
    let stderr = Pipe()
    child = try ChildProcess.launch(
      program, arguments, environment: environment, in: folder, input: .descriptor(stdin.fileHandleForReading.fileDescriptor),
      output: .descriptor(stdout.fileHandleForWriting.fileDescriptor),
      errors: discardingErrors ? .discarded : .descriptor(stderr.fileHandleForWriting.fileDescriptor))
    for end in [stdin.fileHandleForReading, stdout.fileHandleForWriting, stderr.fileHandleForWriting] { try? end.close() }
    input = stdin.fileHandleForWriting
    output = LineReader(stdout.fileHandleForReading)
    errors = discardingErrors ? LineReader(nil) : LineReader(stderr.fileHandleForReading)
  }

  /// Its process id.
  public var pid: Int32 { child.pid }

  /// Whether it still runs.
  public var isRunning: Bool { child.isRunning }

  /// Its exit status once it has ended, or the signal's number when one ended it (as
  /// Foundation's `Process.terminationStatus`); `nil` while it runs.
  public var terminationStatus: Int32? { child.poll()?.foundationStatus }

  /// Whether a signal ended it (`nil` while it runs).
  public var endedBySignal: Bool? {
    child.poll().map { if case .signalled = $0 { true } else { false } }
  }

  /// Every line it has printed on standard output so far.
  public var lines: [String] { output.lines }

  /// Everything it has printed so far: standard output, then standard error.
  public var transcript: String { output.text + "\n" + errors.text }

  /// Writes `line` and a newline to its standard input.
  public func send(_ line: String) { write(line + "\n") }

  /// Writes `text` to its standard input as it is.
  public func write(_ text: String) { try? input.write(contentsOf: Data(text.utf8)) }

  /// Closes its standard input.
  public func closeInput() { try? input.close() }

  /// Waits (at most `limit`) for an output line starting with `prefix`, among the lines after
  /// the first `seen`; returns it, or `nil` when none came.
  @discardableResult
  public func waitForLine(startingWith prefix: String, after seen: Int = 0, within limit: Duration = patience) async -> String? {
    await output.waitForLine(within: limit) { index, line in index >= seen && line.hasPrefix(prefix) }
  }

  /// Kills it (SIGKILL) and waits, on the calling thread, until it has ended.
  public func killAndWait() {
    kill()
    _ = child.wait()
  }

  /// Kills it (SIGKILL) and waits until it has ended, suspending instead of holding a thread:
  /// the blocking ``killAndWait()`` in an async test holds one of the cooperative pool's two
  /// threads, and a test that does so in a loop starves every other test's timers and waits.
  public func killAndAwaitExit() async {
    kill()
    _ = await waitForExit(within: .seconds(300))
  }

  /// Waits (at most `limit`) for it to end; returns its exit status, or `nil` if it still runs.
  public func waitForExit(within limit: Duration = .seconds(60)) async -> Int32? {
    guard await eventually(timeout: limit, every: .milliseconds(5), { !isRunning }) else { return nil }
    return terminationStatus
  }

  /// Closes its input and waits for it to end; returns its exit status.
  @discardableResult
  public func finish() -> Int32 {
    closeInput()
    return child.wait().foundationStatus
  }

  /// Sends it `signal` (SIGKILL unless told).
  public func kill(_ signal: Int32 = SIGKILL) { child.signal(signal) }

  deinit { child.signal(SIGKILL) }
}

/// Reads a file handle to its end on a thread of its own, keeping the lines.
public final class LineReader: Sendable {
  private struct State {
    var lines: [String] = []
    var finished = false
  }
  private let state = Mutex(State())

  /// Starts reading `handle`; with `nil`, a reader that has already finished, with no lines.
  public init(_ handle: FileHandle?) {
    guard let handle else {
      state.withLock { $0.finished = true }
      return
    }
    let thread = Thread { [self] in
      var buffer = Data()
      while true {
        let chunk = handle.availableData
        if chunk.isEmpty { break }
        buffer.append(chunk)
        while let newline = buffer.firstIndex(of: 0x0A) {
          let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
          buffer.removeSubrange(buffer.startIndex...newline)
          state.withLock { $0.lines.append(line) }
        }
      }
      state.withLock { state in
        if !buffer.isEmpty { state.lines.append(String(decoding: buffer, as: UTF8.self)) }
        state.finished = true
      }
    }
    thread.start()
  }

  /// Every line read so far.
  public var lines: [String] { state.withLock { $0.lines } }

  /// Everything read so far, lines joined by newlines.
  public var text: String { lines.joined(separator: "\n") }

  /// Whether the end of the file was reached.
  public var finished: Bool { state.withLock { $0.finished } }

  /// Waits, on the calling thread, until the end of the file (at most `limit`); returns whether it came.
  public func waitForEndBlocking(within limit: Duration = patience) -> Bool {
    let deadline = ContinuousClock.now + limit
    while !finished {
      if ContinuousClock.now >= deadline { return false }
      usleep(500)
    }
    return true
  }

  /// The first line (with its index) matching `matches`, waiting at most `limit`, or until the
  /// end of the file; `nil` when none came.
  public func waitForLine(within limit: Duration, _ matches: (Int, String) -> Bool) async -> String? {
    var found: String?
    _ = await eventually(timeout: limit) {
      let (lines, finished) = state.withLock { ($0.lines, $0.finished) }
      found = lines.enumerated().first { matches($0.offset, $0.element) }?.element
      return found != nil || finished
    }
    return found
  }

  /// The first line containing `needle`, waiting at most `limit`; throws when none came.
  public func firstLine(containing needle: String, within limit: Duration) async throws -> String {
    guard let line = await waitForLine(within: limit, { $1.contains(needle) }) else {
      throw TestFailure("no line containing '\(needle)' within \(limit); read: \(text)")
    }
    return line
  }
}

/// A counting semaphore for async code: ``acquire()`` suspends (freeing its thread) while all
/// slots are taken.
public final class AsyncSlots: Sendable {
  private struct State {
    var free: Int
    var waiting: [CheckedContinuation<Void, Never>] = []
  }
  private let state: Mutex<State>

  /// A semaphore with `count` slots (at least one).
  public init(_ count: Int) { state = Mutex(State(free: max(1, count))) }

  /// Takes a slot, waiting for one to be released when none is free.
  public func acquire() async {
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

  /// Gives a slot back, to the longest waiter if any.
  public func release() {
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

/// Waits for `semaphore` on a thread of its own, so that the test's task does not hold one of
/// the few threads of Swift's cooperative pool while it waits.
public func waitOffPool(_ semaphore: DispatchSemaphore) async {
  await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
    Thread.detachNewThread {
      semaphore.wait()
      continuation.resume()
    }
  }
}

/// A value several threads set and a test reads.
public final class Box<Value: Sendable>: Sendable {
  private let value: Mutex<Value>
  public init(_ value: Value) { self.value = Mutex(value) }
  /// The value now.
  public var current: Value { value.withLock { $0 } }
  /// Replaces the value.
  public func set(_ newValue: Value) { value.withLock { $0 = newValue } }
  /// Changes the value in place.
  public func update(_ body: (inout Value) -> Void) { value.withLock { body(&$0) } }
}
