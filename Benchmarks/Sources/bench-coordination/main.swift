// Coordination benchmarks: Quire beside raw floors measured in the same run.
//   1. A small write, uncoordinated (open, write, close) vs inside a coordinated write.
//   2. Lock handoffs per second between two processes taking turns on a counter, through
//      FileCoordinator vs raw F_OFD_SETLKW and flock(2) (floors/coordination-handoff.c).
//   3. Change-notification latency p50/p99 of an uncoordinated append, through a
//      FilePresenter vs a raw inotify reader in another process (floors/coordination-inotify.c).
// Run: cd Benchmarks && swift run -c release --scratch-path .build bench-coordination
import BenchmarkSupport
import Foundation
import Quire
import Synchronization

let arguments = CommandLine.arguments
let floors = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../floors").standardizedFileURL

/// Writes `data` at offset 0 of `url` (open, pwrite, close). No O_TRUNC: on ext4, truncating
/// then closing starts writeback (auto_da_alloc), which would swamp what is measured here.
func writeSmall(_ data: [UInt8], to url: URL) {
  let fd = open(url.path, O_WRONLY | O_CREAT, 0o600)
  _ = data.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
  close(fd)
}

/// The handoff child: take turns with the other child on the counter in `file`.
func handoffChild(runtime: String, file: String, me: UInt64, count: UInt64) throws {
  let coordinator = FileCoordinator(location: CoordinationLocation(runtimeFolder: URL(fileURLWithPath: runtime)))
  let url = URL(fileURLWithPath: file)
  while true {
    let done = try coordinator.coordinate(writingItemAt: url) { url -> Bool in
      let fd = open(url.path, O_RDWR)
      defer { close(fd) }
      var value: UInt64 = 0
      _ = pread(fd, &value, 8, 0)
      if value >= count { return true }
      if value % 2 == me {
        value += 1
        _ = pwrite(fd, &value, 8, 0)
      }
      return false
    }
    if done { return }
  }
}

if arguments.count == 6, arguments[1] == "handoff-child" {
  try handoffChild(runtime: arguments[2], file: arguments[3], me: UInt64(arguments[4]) ?? 0, count: UInt64(arguments[5]) ?? 0)
  exit(0)
}

func compileFloor(_ name: String, into folder: URL) throws -> String {
  let binary = folder.appendingPathComponent(name).path
  _ = try output(of: "/usr/bin/cc", ["-O2", "-o", binary, floors.appendingPathComponent(name + ".c").path])
  return binary
}

var template = Array((NSTemporaryDirectory() + "/quire-bench-coordination-XXXXXX").utf8CString)
guard let made = mkdtemp(&template) else {
  print("bench-coordination: cannot make a temporary folder in \(NSTemporaryDirectory())")
  exit(1)
}
let folder = URL(fileURLWithPath: String(cString: made))
defer { try? FileManager.default.removeItem(at: folder) }
let runtime = folder.appendingPathComponent("run")
try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
let location = CoordinationLocation(runtimeFolder: runtime)
let coordinator = FileCoordinator(location: location)

print("bench-coordination: \(ProcessInfo.processInfo.activeProcessorCount) cores, files in \(folder.path)")

// 1. Small write overhead.
do {
  let file = folder.appendingPathComponent("small.txt")
  let data = Array("a small save of about sixty-four bytes, like a settings file\n".utf8)
  let iterations = 5000
  writeSmall(data, to: file)
  var plain: [Double] = []
  var coordinated: [Double] = []
  for _ in 0..<5 {
    plain.append(seconds { for _ in 0..<iterations { writeSmall(data, to: file) } } / Double(iterations))
    coordinated.append(
      try seconds {
        for _ in 0..<iterations { try coordinator.coordinate(writingItemAt: file) { writeSmall(data, to: $0) } }
      } / Double(iterations))
  }
  print("\n1. Small write (\(data.count) bytes), median of 5 × \(iterations):")
  report("uncoordinated open+pwrite+close (floor)", median(plain) * 1e6, unit: "µs")
  report("FileCoordinator write", median(coordinated) * 1e6, unit: "µs", baseline: median(plain) * 1e6)
  report("  overhead per coordinated write", (median(coordinated) - median(plain)) * 1e6, unit: "µs")
}

// 2. Lock handoffs between two processes: 5 rounds, Quire and the floors interleaved, medians.
do {
  let handoffs: UInt64 = 2000
  let rounds = 5
  let me = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
  let floor = try compileFloor("coordination-handoff", into: folder)
  var quireRates: [Double] = []
  var ofdRates: [Double] = []
  var flockRates: [Double] = []
  for round in 0..<rounds {
    let counter = folder.appendingPathComponent("counter-\(round)")
    var zero: UInt64 = 0
    _ = FileManager.default.createFile(atPath: counter.path, contents: Data(bytes: &zero, count: 8))
    let quire = try seconds {
      let children = try (0..<2).map { index -> Process in
        let process = Process()
        process.executableURL = URL(fileURLWithPath: me)
        process.arguments = ["handoff-child", runtime.path, counter.path, "\(index)", "\(handoffs)"]
        try process.run()
        return process
      }
      for child in children { child.waitUntilExit() }
    }
    quireRates.append(Double(handoffs) / quire)
    func floorRate(_ mode: String) throws -> Double {
      let printed = try output(
        of: floor, [mode, folder.appendingPathComponent("lock-\(mode)").path, folder.appendingPathComponent("counter-\(mode)").path, "\(handoffs)"])
      return Double(handoffs) / (Double(printed.trimmingCharacters(in: .whitespacesAndNewlines)) ?? .infinity)
    }
    ofdRates.append(try floorRate("ofd"))
    flockRates.append(try floorRate("flock"))
  }
  print("\n2. Lock handoffs between two processes (\(handoffs) turns, median of \(rounds) interleaved rounds):")
  report("raw fcntl F_OFD_SETLKW (floor)", median(ofdRates), unit: "handoffs/s")
  report("raw flock(2) (floor)", median(flockRates), unit: "handoffs/s")
  report("FileCoordinator (vs F_OFD_SETLKW)", median(quireRates), unit: "handoffs/s", baseline: median(ofdRates))
  print("  rounds: Quire \(quireRates.map { Int($0) }), F_OFD_SETLKW \(ofdRates.map { Int($0) }), flock \(flockRates.map { Int($0) })")
}

// 3. Change-notification latency.
do {
  final class Presenter: FilePresenter {
    let url: URL
    let changes = Mutex<[ContinuousClock.Instant]>([])
    init(url: URL) { self.url = url }
    var presentedItemURL: URL? { url }
    func presentedItemDidChange() { changes.withLock { $0.append(.now) } }
  }
  let samples = 200
  let file = folder.appendingPathComponent("watched.txt")
  _ = FileManager.default.createFile(atPath: file.path, contents: Data())
  let presenter = Presenter(url: file)
  try FileCoordinator.addFilePresenter(presenter, location: location)
  var latencies: [Double] = []
  let fd = open(file.path, O_WRONLY | O_APPEND)
  for index in 0..<samples {
    usleep(20_000)
    let written = ContinuousClock.now
    _ = write(fd, "x", 1)
    var seen: ContinuousClock.Instant?
    while seen == nil, ContinuousClock.now - written < .seconds(2) {
      seen = presenter.changes.withLock { $0.count > index ? $0[index] : nil }
      if seen == nil { usleep(50) }
    }
    if let seen { latencies.append(Double((seen - written).components.attoseconds) / 1e12 + Double((seen - written).components.seconds) * 1e6) }
  }
  close(fd)
  FileCoordinator.removeFilePresenter(presenter)
  let floor = try compileFloor("coordination-inotify", into: folder)
  _ = FileManager.default.createFile(atPath: folder.appendingPathComponent("raw.txt").path, contents: Data())
  let raw = try output(of: floor, [folder.appendingPathComponent("raw.txt").path, "\(samples)"]).split(separator: "\n").compactMap { Double($0) }
  print("\n3. Change-notification latency of an uncoordinated append (\(samples) samples, 20 ms apart):")
  report("raw inotify reader p50 (floor)", percentile(raw, 50), unit: "µs")
  report("raw inotify reader p99 (floor)", percentile(raw, 99), unit: "µs")
  report("FilePresenter p50", percentile(latencies, 50), unit: "µs", baseline: percentile(raw, 50))
  report("FilePresenter p99", percentile(latencies, 99), unit: "µs", baseline: percentile(raw, 99))
  print("  (the presenter settles 1 ms after the first event of a quiet spell, then coalesces for 8 ms; \(samples - latencies.count) samples lost)")
}
