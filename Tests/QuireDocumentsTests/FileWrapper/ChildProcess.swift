import Foundation
import QuireTestSupport

/// Runs `quire-documents-test-helper` (built beside the test binary) as a child process.
enum TestHelper {
  /// Starts the helper with `arguments`; its output is read line by line.
  static func start(_ arguments: [String]) throws -> RunningProcess {
    guard let url = Programs.built("quire-documents-test-helper") else {
      throw TestFailure("quire-documents-test-helper is not built beside the tests; run `swift build --build-tests` first")
    }
    return try ChildProcess.start(url, arguments, discardingErrors: true)
  }

  /// Runs the helper to its end, or kills it once it has used `timeLimit` seconds of CPU
  /// time (or, blocked, six times that on the clock).
  ///
  /// CPU time, not the clock: a helper that loops runs out of it just the same, while on a
  /// loaded machine one that works gets a small share of a core and its clock time stretches
  /// (2.6 s of CPU took 27 s beside eight busy loops, past a 20 s clock limit).
  /// - Returns: The exit status (nil when it was killed for time) and its output.
  static func run(_ arguments: [String], timeLimit: Double) throws -> (status: Int32?, output: String) {
    let helper = try start(arguments)
    let deadline = Date().addingTimeInterval(timeLimit * 6)
    while helper.process.isRunning && Date() < deadline && (cpuSeconds(of: helper.pid) ?? 0) < timeLimit {
      usleep(5_000)
    }
    let killed = helper.process.isRunning
    helper.killAndWait()
    _ = helper.output.waitForEndBlocking()
    return (killed ? nil : helper.process.terminationStatus, helper.output.text)
  }

  /// The user and system CPU time process `pid` has used (`/proc/PID/stat`), in seconds.
  static func cpuSeconds(of pid: Int32) -> Double? {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
      let end = stat.lastIndex(of: ")")
    else { return nil }
    // After "pid (comm)": state is field 3, utime and stime are fields 14 and 15.
    let fields = stat[stat.index(after: end)...].split(separator: " ")
    guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
  }
}
