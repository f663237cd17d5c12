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

  /// Runs the helper to its end, or kills it after `timeLimit` seconds.
  /// - Returns: The exit status (nil when it was killed for time) and its output.
  static func run(_ arguments: [String], timeLimit: Double) throws -> (status: Int32?, output: String)? {
    guard let (process, pipe) = try start(arguments) else { return nil }
    let deadline = Date().addingTimeInterval(timeLimit)
    while process.isRunning && Date() < deadline { usleep(5_000) }
    var killed = false
    if process.isRunning {
      kill(process.processIdentifier, SIGKILL)
      killed = true
    }
    process.waitUntilExit()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    return (killed ? nil : process.terminationStatus, String(decoding: data, as: UTF8.self))
  }
}
