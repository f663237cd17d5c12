// bench-types: identify every file of corpus/types (both sets), corpus/pdf and
// corpus/markdown with Quire's TypeRegistry, with `file --mime-type -f` (libmagic) and with
// a C floor on GIO's g_content_type_guess, in one run; print agreement with the expected
// answers shipped in the corpus and files/second, and the startup cost of the registry.
//
//   cd Benchmarks && swift build -c release --scratch-path .build && .build/release/bench-types
import BenchmarkSupport
import Foundation
import QuireTypes

#if canImport(FoundationXML)
  import FoundationXML
#endif

struct Case {
  var path: String
  var expected: String
  /// The shared-mime-info list marks some entries as expected to fail for a file lookup.
  var expectedToFail: Bool
  var set: String
  /// Apple's identifier the corpus expects (types/common only).
  var expectedUTI: String? = nil
}

func lines(_ url: URL) -> [Substring] {
  ((try? String(contentsOf: url, encoding: .utf8)) ?? "").split(separator: "\n")
}

if CommandLine.arguments.contains("--profile-startup") {
  // For `perf record`: only the registry's first lookup, many times.
  for _ in 0..<300 { _ = TypeRegistry(configuration: .standard()).type(forFilenameExtension: "md") }
  exit(0)
}

guard let types = corpusFolder("types"), let pdf = corpusFolder("pdf"), let markdown = corpusFolder("markdown") else {
  exit(0)
}
var cases: [Case] = []
let detection = types.appendingPathComponent("mime-detection")
for line in lines(detection.appendingPathComponent("list")) where !line.hasPrefix("#") {
  let fields = line.split(separator: " ")
  guard fields.count >= 2 else { continue }
  let path = detection.appendingPathComponent(String(fields[0])).path
  guard FileManager.default.fileExists(atPath: path) else { continue }
  let flags = fields.count > 2 ? Array(fields[2]) : []
  cases.append(Case(path: path, expected: String(fields[1]), expectedToFail: flags.count > 2 && flags[2] == "x", set: "mime-detection"))
}
let common = types.appendingPathComponent("common")
for line in lines(common.appendingPathComponent("expected.tsv")).dropFirst() where !line.hasPrefix("#") {
  let fields = line.split(separator: "\t")
  guard fields.count >= 3 else { continue }
  cases.append(
    Case(
      path: common.appendingPathComponent(String(fields[0])).path, expected: String(fields[1]), expectedToFail: false, set: "common",
      expectedUTI: String(fields[2])))
}
for (folder, mime, ext) in [(pdf, "application/pdf", "pdf"), (markdown, "text/markdown", "md")] {
  let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
  for name in names where name.hasSuffix(".\(ext)") || (ext == "md" && name.hasSuffix(".markdown")) {
    cases.append(Case(path: folder.appendingPathComponent(name).path, expected: mime, expectedToFail: false, set: folder.lastPathComponent))
  }
}
print("files: \(cases.count) (\(Dictionary(grouping: cases, by: \.set).map { "\($0.key) \($0.value.count)" }.sorted().joined(separator: ", ")))")

// Aliases, so that `application/x-gzip` and `application/gzip` count as the same answer.
var aliases: [String: String] = [:]
for line in lines(URL(fileURLWithPath: "/usr/share/mime/aliases")) {
  let parts = line.split(separator: " ")
  if parts.count == 2 { aliases[String(parts[0])] = String(parts[1]) }
}
@MainActor func canonical(_ mime: String) -> String { aliases[mime] ?? mime }

@MainActor func agreement(_ answers: [String]) -> (all: Double, counted: Double, perSet: [String: Double]) {
  var right = 0
  var countedRight = 0
  var counted = 0
  var perSet: [String: (Int, Int)] = [:]
  for (answer, item) in zip(answers, cases) {
    let ok = canonical(answer) == canonical(item.expected)
    if ok { right += 1 }
    if !item.expectedToFail {
      counted += 1
      if ok { countedRight += 1 }
    }
    perSet[item.set, default: (0, 0)].0 += ok ? 1 : 0
    perSet[item.set, default: (0, 0)].1 += 1
  }
  return (Double(right) / Double(cases.count), Double(countedRight) / Double(max(1, counted)), perSet.mapValues { Double($0.0) / Double($0.1) })
}

// MARK: Startup cost (fresh registries, as a new process would build them)
var firstLookup: [Double] = []
var firstSniff: [Double] = []
var fullImport: [Double] = []
for _ in 0..<7 {
  let registry = TypeRegistry(configuration: .standard())
  firstLookup.append(seconds { _ = registry.type(forFilenameExtension: "md") })
  firstSniff.append(seconds { _ = registry.identify(fileName: nil, contents: Data("%PDF-1.7".utf8)) })
  fullImport.append(seconds { _ = registry.type(withIdentifier: "org.freedesktop.mime.application.x-zerosize") })
}
var xmlParse: [Double] = []
if let xml = try? Data(contentsOf: URL(fileURLWithPath: "/usr/share/mime/packages/freedesktop.org.xml")) {
  for _ in 0..<5 {
    xmlParse.append(
      seconds {
        let parser = XMLParser(data: xml)
        _ = parser.parse()
      })
  }
}

// MARK: Quire, in process
let registry = TypeRegistry.shared
var quireAnswers: [String] = []
var quireIdentifiers: [String] = []
var quireTimes: [Double] = []
for _ in 0..<5 {
  var answers: [String] = []
  var identifiers: [String] = []
  answers.reserveCapacity(cases.count)
  identifiers.reserveCapacity(cases.count)
  quireTimes.append(
    seconds {
      for item in cases {
        let result = try? registry.identifyFile(at: URL(fileURLWithPath: item.path))
        answers.append(result?.mimeType ?? "none")
        identifiers.append(result?.type.identifier ?? "error")
      }
    })
  quireAnswers = answers
  quireIdentifiers = identifiers
}

// MARK: Peers: file -f and the GIO floor, on the same list
let listURL = FileManager.default.temporaryDirectory.appendingPathComponent("bench-types-\(getpid()).list")
try Data((cases.map(\.path).joined(separator: "\n") + "\n").utf8).write(to: listURL)
defer { try? FileManager.default.removeItem(at: listURL) }

func run(_ executable: String, _ arguments: [String], stdin: URL? = nil) -> (String, Double) {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: executable)
  process.arguments = arguments
  let pipe = Pipe()
  process.standardOutput = pipe
  if let stdin { process.standardInput = try? FileHandle(forReadingFrom: stdin) }
  var output = Data()
  let time = seconds {
    do { try process.run() } catch { return }
    output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
  }
  return (String(decoding: output, as: UTF8.self), time)
}

var fileAnswers: [String] = []
var fileTimes: [Double] = []
for _ in 0..<3 {
  let (out, time) = run("/usr/bin/file", ["--mime-type", "-b", "-f", listURL.path])
  fileAnswers = out.split(separator: "\n", omittingEmptySubsequences: false).prefix(cases.count).map(String.init)
  fileTimes.append(time)
}

var gioAnswers: [String] = []
var gioTimes: [Double] = []
let floorSource = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../floors/types.c").standardizedFileURL
let floorBinary = FileManager.default.temporaryDirectory.appendingPathComponent("bench-types-gio-floor")
let flags = run("/usr/bin/pkg-config", ["--cflags", "--libs", "gio-2.0"]).0.split(whereSeparator: \.isWhitespace).map(String.init)
let compiled = run("/usr/bin/cc", ["-O2", "-o", floorBinary.path, floorSource.path] + flags)
if FileManager.default.isExecutableFile(atPath: floorBinary.path) {
  for _ in 0..<3 {
    let (out, time) = run(floorBinary.path, [String(registry.defaultReadBound)], stdin: listURL)
    gioAnswers = out.split(separator: "\n", omittingEmptySubsequences: false).prefix(cases.count).map(String.init)
    gioTimes.append(time)
  }
} else {
  print("note: the GIO floor did not compile: \(compiled.0)")
}

// MARK: Report
@MainActor func row(_ label: String, _ answers: [String], _ times: [Double]) {
  let a = agreement(answers)
  let t = median(times)
  let sets = a.perSet.sorted { $0.key < $1.key }.map { "\($0.key) \(String(format: "%.1f", $0.value * 100))%" }.joined(separator: ", ")
  print(
    "| \(label) | \(String(format: "%.1f", a.all * 100))% | \(String(format: "%.1f", a.counted * 100))% | \(sets) | \(String(format: "%.1f", t * 1000)) ms | \(String(format: "%.0f", Double(cases.count) / t)) | \(String(format: "%.4f", t / Double(cases.count) * 1000)) ms |"
  )
}
print("")
print("| tool | agreement (all) | agreement (without list entries marked F=x) | per set | wall (median) | files/s | per file |")
print("|---|---|---|---|---|---|---|")
row("Quire TypeRegistry (in process, median of 5 runs)", quireAnswers, quireTimes)
row("Quire, first run (includes loading the registry and magic)", quireAnswers, [quireTimes[0]])
row("`file --mime-type -b -f` (libmagic, one process)", fileAnswers, fileTimes)
if !gioAnswers.isEmpty { row("C floor: GIO `g_content_type_guess` (one process)", gioAnswers, gioTimes) }
let q = median(quireTimes)
let f = median(fileTimes)
print("")
print(String(format: "Quire / file wall-time ratio: %.3f (Quire %.1f× faster)", q / f, f / q))
if !gioTimes.isEmpty { print(String(format: "Quire / GIO floor wall-time ratio: %.3f", q / median(gioTimes))) }
let sameAsGIO = zip(quireAnswers, gioAnswers).filter { canonical($0) == canonical($1) }.count
if !gioAnswers.isEmpty {
  print(
    String(format: "Quire and GIO give the same MIME type on %d of %d files (%.1f%%)", sameAsGIO, cases.count, Double(sameAsGIO) / Double(cases.count) * 100))
}
let utiCases = cases.indices.filter { cases[$0].expectedUTI != nil }
let utiExact = utiCases.filter { quireIdentifiers[$0] == cases[$0].expectedUTI }.count
let utiConforming = utiCases.filter { index in
  guard let found = UTType(quireIdentifiers[index]), let expected = cases[index].expectedUTI.flatMap({ UTType($0) }) else { return false }
  return found.conforms(to: expected)
}.count
print(
  String(
    format: "Apple identifiers (types/common expected_uti): %d of %d exact, %d of %d the expected type or a subtype of it", utiExact, utiCases.count,
    utiConforming, utiCases.count))
print("")
print("Startup (fresh registry, median of 7):")
print(String(format: "  first extension lookup (reads types, aliases, subclasses, globs2; completes Apple's types): %.2f ms", median(firstLookup) * 1000))
print(String(format: "  first content sniff (reads and parses magic): %.2f ms", median(firstSniff) * 1000))
print(
  String(
    format: "  first use of a type Apple does not declare (makes their entries; the registry then holds %d types): %.2f ms", registry.allTypes.count,
    median(fullImport) * 1000))
if !xmlParse.isEmpty {
  print(String(format: "  for comparison, only parsing packages/freedesktop.org.xml with XMLParser (no extraction): %.2f ms", median(xmlParse) * 1000))
}
print(String(format: "  read bound per file: %d bytes", registry.defaultReadBound))
print(String(format: "  peak memory: %.1f MiB", peakMemoryMiB()))

if CommandLine.arguments.contains("--disagreements") {
  print("\nFiles where Quire differs from the expected answer:")
  for (index, item) in cases.enumerated()
  where canonical(quireAnswers[index]) != canonical(item.expected) || (item.expectedUTI != nil && item.expectedUTI != quireIdentifiers[index]) {
    print(
      "  \(item.set)/\((item.path as NSString).lastPathComponent): expected \(item.expected) \(item.expectedUTI ?? ""), Quire \(quireAnswers[index]) \(quireIdentifiers[index]), GIO \(gioAnswers.indices.contains(index) ? gioAnswers[index] : "-"), file \(fileAnswers.indices.contains(index) ? fileAnswers[index] : "-")"
    )
  }
}

if CommandLine.arguments.contains("--disagreements"), !gioAnswers.isEmpty {
  print("\nFiles where Quire and GIO differ:")
  for (index, item) in cases.enumerated() where canonical(quireAnswers[index]) != canonical(gioAnswers[index]) {
    print("  \(item.set)/\((item.path as NSString).lastPathComponent): Quire \(quireAnswers[index]), GIO \(gioAnswers[index]), expected \(item.expected)")
  }
}
