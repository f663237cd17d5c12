// bench-transfer: moving a large representation between processes' views of a pasteboard,
// beside the floor of copying the same file with cp(1).
//
//   cd Benchmarks && swift build -c release --scratch-path .build && .build/release/bench-transfer [MiB]
//
// Quire rows: a promised file representation fetched over the pasteboard's Unix socket and
// written to a file; the same representation materialised into the pasteboard folder; and
// pasted from there. Every row writes the same bytes to a new file on the same disk, after
// sync(2), so that no step pays for the writeback of the one before.
import BenchmarkSupport
import Foundation
@_spi(Testing) import QuireTransfer
import Synchronization

let mebibytes = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 256
let work = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("bench-transfer-\(getpid())")
try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
defer { try? FileManager.default.removeItem(at: work) }

// Dense, incompressible-looking content (no holes, so nothing is skipped).
let source = work.appendingPathComponent("source.bin")
_ = FileManager.default.createFile(atPath: source.path, contents: nil)
let handle = try FileHandle(forWritingTo: source)
var generator = SystemRandomNumberGenerator()
for _ in 0..<mebibytes {
  var chunk = [UInt8](repeating: 0, count: 1 << 20)
  for index in stride(from: 0, to: chunk.count, by: 8) {
    withUnsafeBytes(of: generator.next() as UInt64) { chunk.replaceSubrange(index..<index + 8, with: $0) }
  }
  try handle.write(contentsOf: chunk)
}
try handle.close()

// Each timed step starts with no dirty pages, so no step pays for the previous one's writeback.
func floor(_ target: URL) throws -> Double {
  sync()
  return try seconds {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/cp")
    process.arguments = [source.path, target.path]
    try process.run()
    process.waitUntilExit()
  }
}

func run(_ body: @escaping @Sendable () async throws -> Void) throws -> Double {
  sync()
  let done = DispatchSemaphore(value: 0)
  let result = Mutex<Double>(0)
  Task.detached {
    let start = ContinuousClock.now
    try? await body()
    let elapsed = ContinuousClock.now - start
    result.withLock { $0 = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18 }
    done.signal()
  }
  done.wait()
  return result.withLock { $0 }
}

print("bench-transfer: \(mebibytes) MiB file, median of 5 runs each")
var copies: [Double] = []
var fetches: [Double] = []
var materializations: [Double] = []
var pastes: [Double] = []
for round in 0..<5 {
  let root = work.appendingPathComponent("pasteboards-\(round)")
  copies.append(try floor(work.appendingPathComponent("cp-\(round).bin")))

  let provider = ItemProvider(suggestedName: "source")
  provider.registerFileRepresentation(for: .data, fileURL: source)
  try Pasteboard(name: "general", rootFolder: root).setItemProviders([provider])
  let remote = try Pasteboard(name: "general", rootFolder: root, usesLocalItems: false).itemProviders[0]
  let fetched = work.appendingPathComponent("fetched-\(round).bin")
  fetches.append(try run { try await remote.writeRepresentation(for: .data, to: fetched) })

  materializations.append(try run { try await Pasteboard(name: "general", rootFolder: root).materializePromises() })
  let stored = try Pasteboard(name: "general", rootFolder: root, usesLocalItems: false).itemProviders[0]
  let pasted = work.appendingPathComponent("pasted-\(round).bin")
  pastes.append(try run { try await stored.writeRepresentation(for: .data, to: pasted) })

  for name in ["cp-\(round).bin", "fetched-\(round).bin", "pasted-\(round).bin", "pasteboards-\(round)"] {
    try? FileManager.default.removeItem(at: work.appendingPathComponent(name))
  }
}
let baseline = median(copies)
report("cp(1) of the file (floor)", baseline, unit: "s")
report("Quire: promise fetched over the socket", median(fetches), unit: "s", baseline: baseline)
report("Quire: materialised into the folder", median(materializations), unit: "s", baseline: baseline)
report("Quire: pasted from the folder", median(pastes), unit: "s", baseline: baseline)
report("peak memory of this process", peakMemoryMiB(), unit: "MiB")
