import Foundation

/// Wall-clock seconds of `body`, measured with the monotonic clock.
public func seconds(_ body: () throws -> Void) rethrows -> Double {
  let start = ContinuousClock.now
  try body()
  let elapsed = ContinuousClock.now - start
  return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

/// The median of `values` (0 when empty).
public func median(_ values: [Double]) -> Double {
  guard !values.isEmpty else { return 0 }
  let sorted = values.sorted()
  return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

/// The `p`-th percentile (0…100) of `values`, nearest rank.
public func percentile(_ values: [Double], _ p: Double) -> Double {
  guard !values.isEmpty else { return 0 }
  let sorted = values.sorted()
  let rank = Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1
  return sorted[max(0, min(sorted.count - 1, rank))]
}

/// Peak resident set size of this process so far, in MiB (`VmHWM` from /proc/self/status).
public func peakMemoryMiB() -> Double {
  guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
  for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
    let kb = line.split(separator: " ").compactMap { Double($0) }.first ?? 0
    return kb / 1024
  }
  return 0
}

/// The shared corpus folder `name` (`../shared/corpus/NAME` beside the project), or nil with
/// a printed reason.
public func corpusFolder(_ name: String) -> URL? {
  var url = URL(fileURLWithPath: #filePath)
  for _ in 0..<8 {
    url.deleteLastPathComponent()
    let candidate = url.appendingPathComponent("../shared/corpus/\(name)").standardizedFileURL
    if FileManager.default.fileExists(atPath: candidate.path) { return candidate }
  }
  print("skipped: ../shared/corpus/\(name) is absent")
  return nil
}

/// Prints one result row: `label`, the measured value and its ratio to `baseline`.
public func report(_ label: String, _ value: Double, unit: String, baseline: Double? = nil) {
  var line = "\(label.padding(toLength: 44, withPad: " ", startingAt: 0)) \(String(format: "%10.3f", value)) \(unit)"
  if let baseline, baseline > 0 { line += String(format: "   ratio %.3f", value / baseline) }
  print(line)
}

/// What `executable arguments` prints on standard output; throws when it exits with a status
/// other than 0 (compilers building a floor, floors printing their figures).
public func output(of executable: String, _ arguments: [String]) throws -> String {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: executable)
  process.arguments = arguments
  let pipe = Pipe()
  process.standardOutput = pipe
  try process.run()
  let data = pipe.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  guard process.terminationStatus == 0 else { throw CocoaError(.executableLoad, userInfo: [NSFilePathErrorKey: executable]) }
  return String(decoding: data, as: UTF8.self)
}
