import Foundation
import QuireTestSupport

/// Runs a program (an argument array, never a shell) with `environment` added to the test
/// process's, feeding `input`, and waits for it.
func runTool(_ path: String, _ arguments: [String], environment extra: [String: String] = [:], input: String? = nil) throws -> ProcessResult {
  try ChildProcess.runBlocking(
    URL(fileURLWithPath: path), arguments, environment: ProcessInfo.processInfo.environment.merging(extra) { $1 }, input: Data((input ?? "").utf8))
}
