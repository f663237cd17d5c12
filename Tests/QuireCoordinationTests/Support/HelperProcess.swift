import Foundation
import QuireTestSupport
import Testing

/// Starts `quire-coordination-helper` (built beside the tests) with `arguments`; its output is
/// gathered line by line.
func startHelper(_ arguments: [String]) throws -> RunningProcess {
  try ChildProcess.startBuilt("quire-coordination-helper", arguments)
}

/// Runs a system tool (cp, mv, rm, sh) with an argument array and waits for it.
func runTool(_ path: String, _ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
  let result = try ChildProcess.runBlocking(URL(fileURLWithPath: path), arguments)
  #expect(result.status == 0, "\(path) \(arguments) failed: \(result.error)", sourceLocation: sourceLocation)
}
