// Polling cost on a FUSE mount (issue 33): a folder presenter of 10,000 files on a bindfs
// mount, polled every second; the CPU it costs per interval, in this process and in the bindfs
// daemon that answers its lstat calls, beside the floor (floors/mount-polling.c: readdir and
// one lstat per entry, the least one look can do) measured in the same run on the same files.
// Needs root, /dev/fuse and bindfs.
// Run: cd Benchmarks && swift build -c release --scratch-path .build --product bench-mount-polling
//      && .build/release/bench-mount-polling [FILES] [SECONDS]
import BenchmarkSupport
import Foundation
import QuireCoordination
import Synchronization

let arguments = CommandLine.arguments
let fileCount = arguments.count > 1 ? Int(arguments[1]) ?? 10_000 : 10_000
let seconds = arguments.count > 2 ? Int(arguments[2]) ?? 20 : 20
let floors = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../floors").standardizedFileURL

/// CPU seconds (user + system) this process has used.
func processCPU() -> Double {
  var usage = rusage()
  getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
  return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
}

/// CPU seconds (user + system) process `pid` has used (`/proc/PID/stat` fields 14 and 15).
func cpu(of pid: Int32) -> Double {
  guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = text.lastIndex(of: ")") else { return 0 }
  let fields = text[text.index(after: close)...].split(separator: " ")
  let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
  return ((Double(fields[11]) ?? 0) + (Double(fields[12]) ?? 0)) / ticks
}

/// The bindfs daemon serving `view`: the process whose command line names it.
func bindfsProcess(serving view: String) -> Int32? {
  for name in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
    guard let pid = Int32(name), let data = FileManager.default.contents(atPath: "/proc/\(name)/cmdline") else { continue }
    let parts = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    if parts.first?.hasSuffix("bindfs") == true, parts.contains(view) { return pid }
  }
  return nil
}

var template = Array((NSTemporaryDirectory() + "/quire-bench-mount-XXXXXX").utf8CString)
guard let made = mkdtemp(&template) else {
  print("bench-mount-polling: cannot make a temporary folder")
  exit(1)
}
let folder = URL(fileURLWithPath: String(cString: made))
let source = folder.appendingPathComponent("src")
let view = folder.appendingPathComponent("view")
try FileManager.default.createDirectory(at: source, withIntermediateDirectories: true)
try FileManager.default.createDirectory(at: view, withIntermediateDirectories: true)
for index in 0..<fileCount {
  _ = FileManager.default.createFile(atPath: source.appendingPathComponent("note-\(index).md").path, contents: Data("# \(index)\n".utf8))
}
/// Runs a command through `system(3)` (bindfs leaves a daemon holding whatever output pipe it
/// is given, so `output(of:)` would wait for it forever).
func run(_ command: String) -> Int32 { system(command) }
// The paths are mkdtemp's: no quotes or spaces in them.
guard run("/usr/bin/bindfs '\(source.path)' '\(view.path)'") == 0 else {
  print("bench-mount-polling: bindfs failed (root, /dev/fuse and bindfs are needed)")
  exit(1)
}
defer {
  _ = run("/usr/bin/fusermount3 -u '\(view.path)'")
  try? FileManager.default.removeItem(at: folder)
}
guard let daemon = bindfsProcess(serving: view.path) else {
  print("bench-mount-polling: the bindfs daemon was not found")
  _ = run("/usr/bin/fusermount3 -u '\(view.path)'")
  exit(1)
}
let load = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").first ?? "?"
print("bench-mount-polling: \(fileCount) files on bindfs, polled every 1 s for \(seconds) s; load average \(load)")

// The floor: readdir + lstat of every entry through the mount, 10 rounds.
let binary = folder.appendingPathComponent("mount-polling").path
_ = try output(of: "/usr/bin/cc", ["-O2", "-o", binary, floors.appendingPathComponent("mount-polling.c").path])
let daemonBeforeFloor = cpu(of: daemon)
let floorFields = try output(of: binary, [view.path, "10"]).split(separator: " ")
let floorCPU = Double(floorFields.first ?? "") ?? 0
let floorDaemonCPU = (cpu(of: daemon) - daemonBeforeFloor) / 10
report("floor: readdir + lstat per look (CPU)", floorCPU * 1000, unit: "ms")
report("floor: bindfs daemon per look (CPU)", floorDaemonCPU * 1000, unit: "ms")

// Quire: a folder presenter of the mount, polled every second.
final class Presenter: FilePresenter {
  let url: URL
  let heard = Mutex(0)
  init(url: URL) { self.url = url }
  var presentedItemURL: URL? { url }
  func presentedSubitemDidChange(at url: URL) { heard.withLock { $0 += 1 } }
}
FileCoordinator.pollingOptions = PollingOptions(interval: .seconds(1), maximumInterval: .seconds(1))
let location = CoordinationLocation(runtimeFolder: folder.appendingPathComponent("run"))
let presenter = Presenter(url: view)
try FileCoordinator.addFilePresenter(presenter, location: location)
Thread.sleep(forTimeInterval: 2.5)  // the first look (the baseline listing) is behind us
let processBefore = processCPU()
let daemonBefore = cpu(of: daemon)
let start = ContinuousClock.now
Thread.sleep(forTimeInterval: Double(seconds))
let elapsed = ContinuousClock.now - start
let intervals = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
let quireCPU = (processCPU() - processBefore) / intervals
let quireDaemonCPU = (cpu(of: daemon) - daemonBefore) / intervals
report("Quire: this process per 1 s interval (CPU)", quireCPU * 1000, unit: "ms", baseline: floorCPU * 1000)
report("Quire: bindfs daemon per 1 s interval (CPU)", quireDaemonCPU * 1000, unit: "ms", baseline: floorDaemonCPU * 1000)
report("Quire: share of one core (both)", (quireCPU + quireDaemonCPU) * 100, unit: "%")

// A change behind the mount reaches the presenter (the polling is real).
let before = presenter.heard.withLock { $0 }
_ = FileManager.default.createFile(atPath: source.appendingPathComponent("late.md").path, contents: Data("late\n".utf8))
let changeStart = ContinuousClock.now
while presenter.heard.withLock({ $0 }) == before, ContinuousClock.now - changeStart < .seconds(10) { usleep(10_000) }
print("a file created behind the mount was heard after \(ContinuousClock.now - changeStart)")
FileCoordinator.removeFilePresenter(presenter)
