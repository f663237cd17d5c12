// bench-rpc: 10,000 single-character versioned edits on a 1 MiB text through `quire rpc`
// (JSON-RPC 2.0, LSP framing, one round trip per edit: each edit names the version it applies
// to and waits for the new one), beside the same edits through Neovim's `--embed` API driven
// by python3-pynvim (nvim_buf_set_text, then the buffer's changedtick read back: two round
// trips per edit, as a client that checks the version it edits needs). Both clients are the
// Python scenarios of Tests/QuireSessionTests/rpc_client.py (`bench`, `bench-nvim`), run by
// /usr/bin/python3, so the client side costs the same.
//
// Usage: swift run -c release --scratch-path .build bench-rpc [QUIRE] [EDITS]
//   QUIRE defaults to ../.build-release/release/quire (scripts/install builds it).
import BenchmarkSupport
import Foundation

let arguments = CommandLine.arguments
let benchRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL
// Absolute: the clients run in folders of their own.
let quire =
  arguments.count > 1
  ? URL(fileURLWithPath: arguments[1]).standardizedFileURL.path : benchRoot.appendingPathComponent("../.build-release/release/quire").standardizedFileURL.path
let edits = arguments.count > 2 ? Int(arguments[2]) ?? 10_000 : 10_000
guard FileManager.default.isExecutableFile(atPath: quire) else {
  print("skipped: no quire at \(quire); build it with scripts/install or swift build -c release --static-swift-stdlib --scratch-path .build-release")
  exit(0)
}
let client = benchRoot.appendingPathComponent("../Tests/QuireSessionTests/rpc_client.py").standardizedFileURL.path
let python = "/usr/bin/python3"

/// Runs one scenario; returns the JSON line it printed.
func scenario(_ name: String) -> [String: Any]? {
  let folder = FileManager.default.temporaryDirectory.appendingPathComponent("quire-bench-rpc-\(name)-\(getpid())")
  try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(at: folder) }
  let process = Process()
  process.executableURL = URL(fileURLWithPath: python)
  process.arguments = [
    "-c", "import sys, runpy; sys.argv = sys.argv[1:]; m = runpy.run_path(sys.argv[0]); m['SCENARIOS'][sys.argv[1]](sys.argv[2], sys.argv[3], \(edits))",
    client, name, quire, folder.path,
  ]
  var environment = ProcessInfo.processInfo.environment
  environment["XDG_STATE_HOME"] = folder.appendingPathComponent("state").path
  environment["XDG_RUNTIME_DIR"] = folder.appendingPathComponent("run").path
  process.environment = environment
  let output = Pipe()
  process.standardOutput = output
  do { try process.run() } catch {
    print("\(name): cannot run \(python): \(error)")
    return nil
  }
  let data = output.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
  guard process.terminationStatus == 0, let last = lines.last(where: { $0.hasPrefix("{") }),
    let object = try? JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any]
  else {
    print("\(name) failed: \(lines.joined(separator: "\n"))")
    return nil
  }
  return object
}

print("quire: \(quire)")
print("edits: \(edits) single characters on a 1 MiB text, one request each")
guard let ours = scenario("bench") else { exit(1) }
let ourMicros = ours["microsecondsPerEdit"] as? Double ?? 0
report("quire rpc: per edit (round trip)", ourMicros / 1000, unit: "ms")
if FileManager.default.isExecutableFile(atPath: "/usr/bin/nvim"), let theirs = scenario("bench-nvim") {
  let theirMicros = theirs["microsecondsPerEdit"] as? Double ?? 0
  report("nvim --embed (pynvim): per edit (set_text + changedtick)", theirMicros / 1000, unit: "ms", baseline: ourMicros / 1000)
  print(String(format: "ratio nvim/quire: %.2f", theirMicros / max(ourMicros, 0.001)))
} else {
  print("nvim --embed: skipped (no /usr/bin/nvim or python3-pynvim)")
}
