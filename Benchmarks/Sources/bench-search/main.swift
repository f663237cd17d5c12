// bench-search: the document browser's full-text index (SQLite FTS5 through GRDB) beside
// `grep -rli` (no index; reads every file for every query, and cannot read compressed PDF
// text) and recoll (a Xapian index; PDFs through pdftotext), on corpus/markdown and
// corpus/pdf, in one run. Prints index build time and rate, and per-query latency with ratios.
//
// Usage: swift run -c release --scratch-path .build bench-search [ROUNDS] [BUILDS]
import BenchmarkSupport
import Foundation
import Quire

let rounds = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 5
/// Index builds are long (every PDF is read): BUILDS of each, 1 by default.
let builds = CommandLine.arguments.dropFirst(2).first.flatMap { Int($0) } ?? 1
guard let markdown = corpusFolder("markdown"), let pdf = corpusFolder("pdf") else { exit(0) }

let scratch = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("bench-search-\(getpid())")
try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: scratch) }
var environment = ProcessInfo.processInfo.environment
environment["XDG_CACHE_HOME"] = scratch.appendingPathComponent("cache").path
environment["XDG_DATA_HOME"] = scratch.appendingPathComponent("data").path
environment["XDG_STATE_HOME"] = scratch.appendingPathComponent("state").path

let browser = DocumentBrowser(configuration: .init(locations: [markdown, pdf], environment: environment))
let items = try browser.items()
let bytes = items.reduce(Int64(0)) { $0 + $1.size }
print("corpus: \(items.count) documents (markdown and pdf), \(String(format: "%.1f", Double(bytes) / 1e6)) MB")

/// Runs a program to the end with output to /dev/null (or captured); returns (seconds, output).
func run(_ program: String, _ arguments: [String], capture: Bool = false) throws -> (Double, String) {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: program)
  process.arguments = arguments
  let outputURL = scratch.appendingPathComponent("out-\(UUID().uuidString)")
  _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
  defer { try? FileManager.default.removeItem(at: outputURL) }
  process.standardOutput = try FileHandle(forWritingTo: outputURL)
  process.standardError = FileHandle.nullDevice
  let time = try seconds {
    try process.run()
    process.waitUntilExit()
  }
  return (time, capture ? (try String(contentsOf: outputURL, encoding: .utf8)) : "")
}

// MARK: Index build

print("\n## index build (median of \(builds))")
var quireBuilds: [Double] = []
var indexReport = SearchIndexReport()
for _ in 0..<builds {
  quireBuilds.append(try seconds { indexReport = try browser.rebuildSearchIndex() })
}
let quireBuild = median(quireBuilds)
let update = try seconds { _ = try browser.updateSearchIndex() }
print("Quire: \(indexReport.indexed) indexed, \(indexReport.failures.count) by name only (unreadable PDFs)")

let recollConfig = scratch.appendingPathComponent("recoll")
let hasRecoll = FileManager.default.isExecutableFile(atPath: "/usr/bin/recollindex")
var recollBuild = 0.0
if hasRecoll {
  try FileManager.default.createDirectory(at: recollConfig, withIntermediateDirectories: true)
  try Data("topdirs = \(markdown.path) \(pdf.path)\nloglevel = 1\n".utf8).write(to: recollConfig.appendingPathComponent("recoll.conf"))
  var times: [Double] = []
  for _ in 0..<builds {
    try? FileManager.default.removeItem(at: recollConfig.appendingPathComponent("xapiandb"))
    times.append(try run("/usr/bin/recollindex", ["-c", recollConfig.path, "-z"]).0)
  }
  recollBuild = median(times)
}
report("Quire FTS5 index build", quireBuild, unit: "s", baseline: hasRecoll ? recollBuild : nil)
print(String(format: "  %.0f documents/s, %.1f MB/s", Double(items.count) / quireBuild, Double(bytes) / 1e6 / quireBuild))
report("Quire update, nothing changed", update * 1000, unit: "ms")
if hasRecoll {
  report("recollindex -z (from scratch)", recollBuild, unit: "s")
  print(String(format: "  %.0f documents/s", Double(items.count) / recollBuild))
} else {
  print("recoll: not installed (Debian recoll), skipped")
}

// MARK: Queries

let queries = ["license", "xargs", "Brunelle", "\"command line\"", "config*", "kernel scheduler"]
print("\n## query latency (median of \(rounds); Quire in process, peers one process per query)")
print("| query | Quire hits | Quire ms | grep -rli hits | grep ms | ratio Quire/grep | recoll hits | recoll ms | ratio Quire/recoll |")
print("|---|---|---|---|---|---|---|---|---|")
for query in queries {
  var hits: [SearchHit] = []
  let quire = median(try (0..<rounds).map { _ in try seconds { hits = try browser.search(SearchQuery(query, limit: 1000)) } })
  // grep gets the words as fixed strings, all required: one grep for the first word, the
  // rest filtered by more greps would be slower still; the first word (or phrase) is the floor.
  let word = query.replacingOccurrences(of: "\"", with: "").replacingOccurrences(of: "*", with: "").split(separator: " ").first.map(String.init) ?? query
  let phrase = query.hasPrefix("\"") ? query.replacingOccurrences(of: "\"", with: "") : word
  var grepOutput = ""
  let grep = median(
    try (0..<rounds).map { _ in
      let (time, output) = try run("/usr/bin/grep", ["-rliF", phrase, markdown.path, pdf.path], capture: true)
      grepOutput = output
      return time
    })
  let grepHits = grepOutput.split(separator: "\n").count
  var recollCell = "– | – | –"
  if hasRecoll {
    var recollOutput = ""
    let recoll = median(
      try (0..<rounds).map { _ in
        let (time, output) = try run("/usr/bin/recollq", ["-c", recollConfig.path, "-b", "-n", "0-1000", query], capture: true)
        recollOutput = output
        return time
      })
    let recollHits = recollOutput.split(separator: "\n").filter { $0.hasPrefix("file://") }.count
    recollCell = String(format: "%d | %.2f | %.3f", recollHits, recoll * 1000, quire / recoll)
  }
  print(String(format: "| `%@` | %d | %.2f | %d | %.2f | %.4f | %@ |", query, hits.count, quire * 1000, grepHits, grep * 1000, quire / grep, recollCell))
}
print("\npeak memory: \(String(format: "%.0f", peakMemoryMiB())) MiB")
