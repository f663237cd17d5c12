import Foundation

/// Runs `quire-documents-test-helper` (built beside the test binary) as a child process.
enum TestHelper {
  static var url: URL? {
    let exe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    var folder = exe.deletingLastPathComponent()
    for _ in 0..<4 {
      let candidate = folder.appendingPathComponent("quire-documents-test-helper")
      if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
      folder.deleteLastPathComponent()
    }
    return nil
  }

  /// Starts the helper with `arguments`; standard output goes to a pipe.
  static func start(_ arguments: [String]) throws -> (Process, Pipe)? {
    guard let url else {
      print("note: quire-documents-test-helper is not built beside the tests; skipping")
      return nil
    }
    let process = Process()
    process.executableURL = url
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    return (process, output)
  }

  /// Runs the helper to its end, or kills it once it has used `timeLimit` seconds of CPU
  /// time (or, blocked, six times that on the clock).
  ///
  /// CPU time, not the clock: a helper that loops runs out of it just the same, while on a
  /// loaded machine one that works gets a small share of a core and its clock time stretches
  /// (2.6 s of CPU took 27 s beside eight busy loops, past a 20 s clock limit).
  /// - Returns: The exit status (nil when it was killed for time) and its output.
  static func run(_ arguments: [String], timeLimit: Double) throws -> (status: Int32?, output: String)? {
    guard let (process, pipe) = try start(arguments) else { return nil }
    let deadline = Date().addingTimeInterval(timeLimit * 6)
    while process.isRunning && Date() < deadline && (cpuSeconds(of: process.processIdentifier) ?? 0) < timeLimit {
      usleep(5_000)
    }
    var killed = false
    if process.isRunning {
      kill(process.processIdentifier, SIGKILL)
      killed = true
    }
    process.waitUntilExit()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    return (killed ? nil : process.terminationStatus, String(decoding: data, as: UTF8.self))
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
