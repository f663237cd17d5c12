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
