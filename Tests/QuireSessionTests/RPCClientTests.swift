import Foundation
import QuireTestSupport
import Testing

/// /usr/bin/python3, when it can import pylsp_jsonrpc.
let pythonWithJSONRPC: URL? = {
  let python = URL(fileURLWithPath: "/usr/bin/python3")
  guard FileManager.default.isExecutableFile(atPath: python.path),
    let result = try? ChildProcess.runBlocking(python, ["-c", "import pylsp_jsonrpc.streams"]), result.status == 0
  else { return nil }
  return python
}()

/// Issue 32's acceptance: `quire rpc` (the built executable) driven by a real JSON-RPC client
/// in another language — `rpc_client.py` on Debian's python3-pylsp-jsonrpc streams, run by
/// /usr/bin/python3, the interpreter that sees the Debian package. Each scenario prints what
/// it checked and `OK`, or `FAIL: …`.
@Suite(
  "quire rpc from a Python JSON-RPC client",
  .enabled(if: pythonWithJSONRPC != nil, "python3-pylsp-jsonrpc is not installed for /usr/bin/python3 (scripts/setup installs it)"))
final class RPCClientTests: FolderSuite {
  static let client = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("rpc_client.py")

  /// Runs one scenario of the client against `quire rpc` in a folder of its own, with its own
  /// HOME and XDG folders (recovery, coordination), and returns its output.
  func run(_ scenario: String) async throws -> String {
    let python = try #require(pythonWithJSONRPC)
    let quire = try #require(Programs.quire, "the quire executable is built beside the tests")
    let work = folder.file(scenario)
    var environment = ["PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8", "HOME": folder.file("home").path]
    for (variable, name) in [("XDG_STATE_HOME", "state"), ("XDG_CACHE_HOME", "cache"), ("XDG_RUNTIME_DIR", "run"), ("XDG_DATA_HOME", "data")] {
      let place = folder.file("home").appendingPathComponent(name)
      try FileManager.default.createDirectory(at: place, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
      environment[variable] = place.path
    }
    try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    let result = try await ChildProcess.run(python, [Self.client.path, scenario, quire.path, work.path], environment: environment, in: work)
    #expect(result.status == 0, "\(scenario): \(result.output)\n\(result.error)")
    #expect(result.output.hasSuffix("OK\n"), "\(scenario): \(result.output)\n\(result.error)")
    return result.output
  }

  @Test func aThousandVersionedEditsWithNonASCIITextSaveTheExactBytesAndBadRequestsAreAnswered() async throws {
    let output = try await run("edits")
    #expect(output.contains("1000 edits: version 1000"))
    #expect(output.contains("stale version refused: -32801"))
    #expect(output.contains("-32601, -32700, -32602 answered; the session goes on"))
  }

  @Test func anotherProcessSavingReachesTheClientAndUnsavedEditsThenMakeSaveRefuseNamingTheConflict() async throws {
    let output = try await run("conflict")
    #expect(output.contains("didChange from the other process"))
    #expect(output.contains("save refused: Conflict:"))
  }

  @Test func utf8UTF16AndUTF32PositionsGiveTheSameEditOnALineOfJapaneseAndEmoji() async throws {
    let output = try await run("encodings")
    #expect(output.contains("utf-8, utf-16 and utf-32 gave the same bytes"))
  }

  @Test func closingOrStoppingWithUnsavedEditsKeepsThemForTheNextOpen() async throws {
    let output = try await run("recovery")
    #expect(output.contains("close and SIGTERM kept the unsaved edits"))
  }

  @Test func aSearchKeepsTheFoldersIndexCurrentForOtherProcessesUntilTheSessionEnds() async throws {
    let output = try await run("search")
    #expect(output.contains("the session's index answered quire search, took a new file and was let go at the end"))
  }

  @Test func aFrameOver64MiBIsRefusedWithoutBeingReadAndTheSessionGoesOn() async throws {
    let output = try await run("oversized")
    #expect(output.contains("an 80 MiB frame refused"))
  }
}
