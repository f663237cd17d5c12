// bench-speed: issue 36's side-by-side measurement, whole processes in one run.
//
// 1. Start-up per command: `quire --version`, `quire type` and `quire thumbnail -s 256` of a
//    small Markdown file (as GNOME's thumbnailer calls it), and a warm `quire search` on a
//    one-file folder, beside a Swift program that only uses Foundation, built the same way
//    (`swiftc -O -static-stdlib`, as scripts/install builds quire with --static-swift-stdlib).
// 2. Previews: `quire preview` of a 21 MB Markdown file (the corpus's Markdown, concatenated)
//    beside `cmark-gfm -e table -e strikethrough -e autolink -e tasklist`.
// 3. Search on corpus/markdown, corpus/markdown-ja and corpus/pdf (and a one-file folder of
//    the benchmark's own, changed between queries) beside Debian's recoll: the index built
//    from nothing (`quire search --rebuild` / `recollindex -z`), warm queries (`quire search` /
//    `recollq`), a query right after one file changed, and a 50 MB file of one repeated word
//    indexed and searched.
//
// Usage: swift run -c release --scratch-path .build bench-speed [ROUNDS] [QUIRE] [BUILDS]
//   QUIRE defaults to ../.build-release/release/quire (scripts/install builds it); BUILDS is
//   how many index builds from nothing each side gets (3 by default; recollindex alone takes
//   about 14 s).
import BenchmarkSupport
import Foundation

let arguments = CommandLine.arguments
let rounds = arguments.count > 1 ? max(1, Int(arguments[1]) ?? 7) : 7
let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
let benchRoot = here.deletingLastPathComponent().deletingLastPathComponent()
let quire = arguments.count > 2 ? arguments[2] : benchRoot.appendingPathComponent("../.build-release/release/quire").standardizedFileURL.path
let builds = arguments.count > 3 ? max(1, Int(arguments[3]) ?? 3) : 3
guard FileManager.default.isExecutableFile(atPath: quire) else {
  print("skipped: no quire at \(quire); build it with scripts/install (its swift build line, in .build-release)")
  exit(0)
}
guard let markdown = corpusFolder("markdown"), let markdownJA = corpusFolder("markdown-ja"), let pdf = corpusFolder("pdf") else { exit(0) }

let work = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("bench-speed-\(getpid())")
try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: work) }
/// Quire's per-user state, all in the scratch folder.
func quireEnvironment(_ name: String) -> [String: String] {
  let home = work.appendingPathComponent("xdg-\(name)")
  return [
    "XDG_CACHE_HOME": home.appendingPathComponent("cache").path, "XDG_DATA_HOME": home.appendingPathComponent("data").path,
    "XDG_STATE_HOME": home.appendingPathComponent("state").path, "XDG_CONFIG_HOME": home.appendingPathComponent("config").path,
  ]
}
func write(_ text: String, to url: URL) throws {
  try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
  try Data(text.utf8).write(to: url)
}
func ms(_ seconds: Double) -> String { String(format: "%.1f ms", seconds * 1000) }
func ratio(_ value: Double, _ peer: Double) -> String { peer > 0 ? String(format: "%.2f", value / peer) : "–" }
var summary: [(String, String, String, String, String)] = []
@MainActor func row(_ work: String, _ quireValue: Double, _ peerName: String, _ peerValue: Double, _ target: String) {
  summary.append((work, ms(quireValue), "\(peerName): \(ms(peerValue))", ratio(quireValue, peerValue), target))
  print("| \(work) | \(ms(quireValue)) | \(peerName): \(ms(peerValue)) | \(ratio(quireValue, peerValue)) | \(target) |")
  fflush(nil)  // each row as it is measured, also into a file
}
print("quire: \(quire)\nrounds: \(rounds) (medians; one unmeasured run first)\n")

// MARK: 1. Start-up

let floorBinary = work.appendingPathComponent("foundation-version").path
let floorBuild = spawnProcess([
  "swiftc", "-O", "-static-stdlib", "-o", floorBinary, benchRoot.appendingPathComponent("floors/foundation-version.swift").path,
])
guard floorBuild.status == 0 else {
  print("could not compile floors/foundation-version.swift with swiftc -O -static-stdlib")
  exit(1)
}
// The text thumbnail's floor: the same libraries (pango, cairo, fontconfig) from C, nothing else.
let textFloorBinary = work.appendingPathComponent("text-thumbnail-floor").path
let pangoFlags = spawnProcess(["pkg-config", "--cflags", "--libs", "pangocairo"], capture: true).output
  .split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)
let textFloorBuild = spawnProcess(
  ["cc", "-O2", "-o", textFloorBinary, benchRoot.appendingPathComponent("floors/text-thumbnail.c").path] + pangoFlags)
let small = work.appendingPathComponent("small/note.md")
try write("# Note\n\nSome *Markdown* with `code`.\n", to: small)
let thumbnail = work.appendingPathComponent("note.png").path
let startEnvironment = quireEnvironment("start")
print("## start-up (whole process)\n")
print("| work | Quire | peer | ratio | target |\n|---|---|---|---|---|")
let startCommands: [(String, [String], String)] = [
  ("`quire --version`", [quire, "--version"], "≤ 2× floor"),
  ("`quire type note.md`", [quire, "type", small.path], ""),
  ("`quire thumbnail -s 256 note.md note.png`", [quire, "thumbnail", "-s", "256", small.path, thumbnail], "≤ 20 ms"),
  ("`quire search note` (one-file folder, warm)", [quire, "search", "note", "--in", small.deletingLastPathComponent().path], ""),
]
// Every command and the floors in turn, round after round.
var startRuns: [(argv: [String], environment: [String: String])] = [([floorBinary], [:])] + startCommands.map { ($0.1, startEnvironment) }
// The same thumbnail with its text laid out by pango (the engine before HarfBuzz's).
var pangoEnvironment = startEnvironment
pangoEnvironment["QUIRE_TEXT_ENGINE"] = "pango"
startRuns.append(([quire, "thumbnail", "-s", "256", small.path, work.appendingPathComponent("pango.png").path], pangoEnvironment))
if textFloorBuild.status == 0 {
  startRuns.append(([textFloorBinary, "256", small.path, work.appendingPathComponent("floor.png").path], startEnvironment))
}
let startTimes = interleavedMedians(startRuns, rounds: rounds * 3)
let pangoThumbnailSeconds = startTimes[startCommands.count + 1].seconds
let floorStart = startTimes[0].seconds
var thumbnailSeconds = 0.0
for ((label, argv, target), measured) in zip(startCommands, startTimes.dropFirst().prefix(startCommands.count)) {
  if measured.status != 0 { print("  (\(label) exited with status \(measured.status))") }
  if argv.contains("thumbnail") { thumbnailSeconds = measured.seconds }
  row(label, measured.seconds, "Foundation-only Swift program", floorStart, target)
}
row("`quire thumbnail -s 256 note.md note.png`", thumbnailSeconds, "the same with QUIRE_TEXT_ENGINE=pango", pangoThumbnailSeconds, "")
if textFloorBuild.status == 0 {
  row("`quire thumbnail -s 256 note.md note.png`", thumbnailSeconds, "C floor: pango + cairo draw the same text", startTimes.last!.seconds, "")
} else {
  print("  (could not compile floors/text-thumbnail.c: install libpango1.0-dev)")
}

// MARK: 2. Previews

print("\n## preview of a 21 MB Markdown file (whole process, output to /dev/null)\n")
let bigMarkdown = work.appendingPathComponent("big-21MB.md")
do {
  var sources: [URL] = []
  for folder in [markdown, markdownJA] {
    let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".md") }.sorted()
    sources += names.map { folder.appendingPathComponent($0) }
  }
  var text = Data()
  while text.count < 21_000_000 {
    for source in sources where text.count < 21_000_000 {
      guard let data = try? Data(contentsOf: source), String(validating: data, as: UTF8.self) != nil, !data.contains(0) else { continue }
      text.append(data)
      text.append(contentsOf: Array("\n\n".utf8))
    }
  }
  try text.write(to: bigMarkdown)
  print(String(format: "file: %.1f MB, %d corpus files concatenated", Double(text.count) / 1e6, sources.count))
}
print("| work | Quire | peer | ratio | target |\n|---|---|---|---|---|")
// Quire, cmark-gfm and (when it compiles) the footnotes floor in turn, round after round.
let previewRounds = max(5, rounds)
// cmark-gfm asked for all Quire renders: its program cannot turn footnotes on, which the file has.
let cmarkFloorBinary = work.appendingPathComponent("cmark-footnotes-floor").path
let cmarkFlags = spawnProcess(["pkg-config", "--cflags", "--libs", "libcmark-gfm"], capture: true).output
  .split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)
let hasCmarkFloor =
  spawnProcess(
    ["cc", "-O2", "-o", cmarkFloorBinary, benchRoot.appendingPathComponent("floors/cmark-footnotes.c").path] + cmarkFlags + ["-lcmark-gfm-extensions"]
  ).status == 0
var previewCommands: [(argv: [String], environment: [String: String])] = [
  ([quire, "preview", bigMarkdown.path], startEnvironment),
  (["cmark-gfm", "-e", "table", "-e", "strikethrough", "-e", "autolink", "-e", "tasklist", bigMarkdown.path], [:]),
]
if hasCmarkFloor { previewCommands.append(([cmarkFloorBinary, bigMarkdown.path], [:])) }
let previewTimes = interleavedMedians(previewCommands, rounds: previewRounds)
let (preview, cmark) = (previewTimes[0], previewTimes[1])
if preview.status != 0 { print("  (quire preview exited with status \(preview.status))") }
row("`quire preview` 21 MB", preview.seconds, "cmark-gfm with the same extensions", cmark.seconds, "≤ 1.1×")
if hasCmarkFloor {
  row("`quire preview` 21 MB", preview.seconds, "C floor: cmark-gfm with footnotes on too", previewTimes[2].seconds, "")
} else {
  print("  (could not compile floors/cmark-footnotes.c: install libcmark-gfm-dev)")
}
let previewMemory = spawnProcess([quire, "preview", bigMarkdown.path], environment: startEnvironment).peakMemoryMiB
let cmarkMemory = spawnProcess(["cmark-gfm", "-e", "table", "-e", "strikethrough", "-e", "autolink", "-e", "tasklist", bigMarkdown.path])
  .peakMemoryMiB
print(String(format: "peak memory: quire preview %.0f MiB, cmark-gfm %.0f MiB", previewMemory, cmarkMemory))

// MARK: 3. Search

print("\n## search: corpus/markdown, markdown-ja and pdf beside recoll (whole processes)\n")
let live = work.appendingPathComponent("live")
let liveNote = live.appendingPathComponent("changing.md")
try write("# Changing\n\nThis note changes between queries.\n", to: liveNote)
let folders = [markdown, markdownJA, pdf, live]
let searchEnvironment = quireEnvironment("search")
let inFolders = folders.flatMap { ["--in", $0.path] }
let recollConfig = work.appendingPathComponent("recoll")
try write(
  "topdirs = \(folders.map(\.path).joined(separator: " "))\nloglevel = 1\n", to: recollConfig.appendingPathComponent("recoll.conf"))
let hasRecoll = FileManager.default.isExecutableFile(atPath: "/usr/bin/recollq")

print("| work | Quire | peer | ratio | target |\n|---|---|---|---|---|")
// The index from nothing: the median of BUILDS for each (after the first, the page cache holds the files).
var quireBuilds: [Double] = []
var recollBuilds: [Double] = []
for round in 0..<builds {
  try? FileManager.default.removeItem(at: work.appendingPathComponent("xdg-search"))
  let built = spawnProcess([quire, "search", "--rebuild"] + inFolders, environment: searchEnvironment, capture: true)
  if round == 0 { print("  quire: \(built.output.trimmingCharacters(in: .whitespacesAndNewlines)) (status \(built.status))") }
  quireBuilds.append(built.seconds)
  if hasRecoll {
    try? FileManager.default.removeItem(at: recollConfig.appendingPathComponent("xapiandb"))
    recollBuilds.append(spawnProcess(["recollindex", "-c", recollConfig.path, "-z"]).seconds)
  }
}
row("index from nothing", median(quireBuilds), "recollindex -z", median(recollBuilds), "≤ 0.8×")

/// A warm query's median time for Quire and for recollq (0 without recoll), the two run in
/// turn, three times as many rounds as the rest: each takes tens of milliseconds.
func searchBesideRecoll(_ word: String) -> (quire: (seconds: Double, status: Int32), recoll: (seconds: Double, status: Int32)) {
  let quireCommand = ([quire, "search", word, "--limit", "20"] + inFolders, searchEnvironment)
  guard hasRecoll else { return (medianRun(quireCommand.0, rounds: 3 * rounds, environment: searchEnvironment), (0, 0)) }
  let times = interleavedMedians([quireCommand, (["recollq", "-c", recollConfig.path, "-b", "-n", "20", word], [:])], rounds: 3 * rounds)
  return (times[0], times[1])
}
func recollHits(_ output: String) -> Int { output.split(separator: "\n").filter { $0.hasPrefix("file://") }.count }
func quireHits(_ output: String) -> Int { output.split(separator: "\n").filter { !$0.hasPrefix(" ") && !$0.isEmpty }.count }
var recollWarm = 0.0
for word in ["function", "qqzyxwvq"] {
  let (quireRun, recollRun) = searchBesideRecoll(word)
  let quireCount = quireHits(spawnProcess([quire, "search", word, "--limit", "20"] + inFolders, environment: searchEnvironment, capture: true).output)
  let recollCount = hasRecoll ? recollHits(spawnProcess(["recollq", "-c", recollConfig.path, "-b", "-n", "20", word], capture: true).output) : 0
  if word == "function" { recollWarm = recollRun.seconds }
  row("warm query `\(word)` (Quire \(quireCount) hits, recoll \(recollCount))", quireRun.seconds, "recollq", recollRun.seconds, "≤ 1.5×")
}
// The same warm queries while `quire search --watch` keeps the index current (as
// `recollindex -m` keeps recoll's): the searches answer from the index without a walk.
do {
  let watcher = Process()
  watcher.executableURL = URL(fileURLWithPath: quire)
  watcher.arguments = ["search", "--watch"] + inFolders
  watcher.environment = ProcessInfo.processInfo.environment.merging(searchEnvironment) { $1 }
  let errors = Pipe()
  watcher.standardError = errors
  watcher.standardOutput = FileHandle.nullDevice
  try watcher.run()
  // Ready once it says it keeps the index current.
  var said = Data()
  while !String(decoding: said, as: UTF8.self).contains("current") {
    let chunk = errors.fileHandleForReading.availableData
    if chunk.isEmpty { break }
    said.append(chunk)
  }
  for word in ["function", "qqzyxwvq"] {
    let (watched, recollRun) = searchBesideRecoll(word)
    row("warm query `\(word)`, `quire search --watch` running", watched.seconds, "recollq", recollRun.seconds, "≤ 1.5×")
  }
  watcher.terminate()
  watcher.waitUntilExit()
}
// Right after one file changed: a new word each round, which the query must find.
var changedTimes: [Double] = []
var found = 0
for round in 0..<rounds {
  let word = "changedword\(round)x\(getpid())"
  try write("# Changing\n\nNow it says \(word).\n", to: liveNote)
  let run = spawnProcess([quire, "search", word] + inFolders, environment: searchEnvironment, capture: true)
  changedTimes.append(run.seconds)
  if run.output.contains("changing.md") { found += 1 }
}
row("query right after one file changed (found \(found) of \(rounds))", median(changedTimes), "recollq (warm)", recollWarm, "≤ 3×")

// MARK: 4. 50 MB of one repeated word

print("\n## a 50 MB file of one repeated word: indexed and searched from nothing, one process\n")
let repeated = work.appendingPathComponent("repeated/word.md")
try FileManager.default.createDirectory(at: repeated.deletingLastPathComponent(), withIntermediateDirectories: true)
do {
  let chunk = Data(String(repeating: "lorem ", count: 1 << 16).utf8)
  _ = FileManager.default.createFile(atPath: repeated.path, contents: nil)
  let handle = try FileHandle(forWritingTo: repeated)
  var written = 0
  while written < 50_000_000 {
    try handle.write(contentsOf: chunk)
    written += chunk.count
  }
  try handle.close()
}
let repeatedRun = spawnProcess(
  ["timeout", "300", quire, "search", "lorem", "--in", repeated.deletingLastPathComponent().path],
  environment: quireEnvironment("repeated"), capture: true)
let repeatedFound = repeatedRun.output.contains("word.md")
print(
  String(
    format: "quire search lorem (50 MB, index from nothing): %.2f s, status %d, %@; peak memory %.0f MiB (target: under 10 s)",
    repeatedRun.seconds, repeatedRun.status, repeatedFound ? "found" : "NOT found", repeatedRun.peakMemoryMiB))

print("\n## summary\n\n| work | Quire | peer | ratio | target |\n|---|---|---|---|---|")
for (work, value, peer, ratio, target) in summary { print("| \(work) | \(value) | \(peer) | \(ratio) | \(target) |") }
print(String(format: "| 50 MB of one word, indexed and searched | %.2f s | – | – | < 10 s |", repeatedRun.seconds))
