import Foundation

/// What a program printed and how it ended.
struct ToolResult {
  var status: Int32
  var output: String
  var error: String
}

/// Runs a program (an argument array, never a shell) with `environment` added, and waits.
///
/// Output goes to files, not pipes: daemons a program starts (gvfsd under `dbus-run-session`)
/// inherit its output and would keep a pipe open long after the program ended.
func runTool(_ path: String, _ arguments: [String], environment extra: [String: String] = [:], input: String? = nil) throws -> ToolResult {
  let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("quire-tool-\(UUID().uuidString)")
  try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(at: scratch) }
  let outputURL = scratch.appendingPathComponent("out")
  let errorURL = scratch.appendingPathComponent("err")
  let inputURL = scratch.appendingPathComponent("in")
  for url in [outputURL, errorURL] { _ = FileManager.default.createFile(atPath: url.path, contents: nil) }
  _ = FileManager.default.createFile(atPath: inputURL.path, contents: Data((input ?? "").utf8))
  let process = Process()
  process.executableURL = URL(fileURLWithPath: path)
  process.arguments = arguments
  process.environment = ProcessInfo.processInfo.environment.merging(extra) { _, new in new }
  process.standardOutput = try FileHandle(forWritingTo: outputURL)
  process.standardError = try FileHandle(forWritingTo: errorURL)
  process.standardInput = try FileHandle(forReadingFrom: inputURL)
  try process.run()
  process.waitUntilExit()
  return ToolResult(
    status: process.terminationStatus, output: String(decoding: try Data(contentsOf: outputURL), as: UTF8.self),
    error: String(decoding: try Data(contentsOf: errorURL), as: UTF8.self))
}

/// Whether a program is installed.
func isInstalled(_ path: String) -> Bool { FileManager.default.isExecutableFile(atPath: path) }

/// Waits until `condition` holds, checking every 20 ms, for at most `seconds`.
func waitUntil(seconds: Double = 10, _ condition: () throws -> Bool) rethrows -> Bool {
  let deadline = Date().addingTimeInterval(seconds)
  while Date() < deadline {
    if try condition() { return true }
    usleep(20_000)
  }
  return try condition()
}

/// Waits until `condition` holds, sleeping 20 ms between checks (without holding a thread of
/// the cooperative pool, where the streams being watched are consumed), for at most `seconds`.
func eventually(seconds: Double = 10, _ condition: () throws -> Bool) async rethrows -> Bool {
  let deadline = Date().addingTimeInterval(seconds)
  while Date() < deadline {
    if try condition() { return true }
    try? await Task.sleep(for: .milliseconds(20))
  }
  return try condition()
}
