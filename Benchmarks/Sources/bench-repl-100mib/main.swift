// bench-repl-100mib: `quire -s FILE < script` against GNU `ed -s FILE < script` on the same 100 MiB text
// file, in one run: open + `$=`; `,s/fox/cat/g` + `w`; a few small edits + `w`; `g/re/d` + `u` +
// `w`. Prints each time, quire's ratio to ed, each program's peak memory (GNU time's `%M`, the
// maximum resident set size) as a multiple of the file's size, and whether the files each left
// are byte-identical. GNU time runs each program from a fork of its own small process: a child
// spawned straight from this harness would inherit the harness's high-water mark.
//
// Usage: swift run -c release bench-repl-100mib [QUIRE] [MIB] [RUNS]
// QUIRE defaults to ../.build/release/quire (build it with `swift build -c release --product quire`);
// MIB to 100; RUNS (each a fresh copy of the file; the median is reported) to 1.
import BenchmarkSupport
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

let arguments = Array(CommandLine.arguments.dropFirst())
let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
let quire =
  arguments.first.map { URL(fileURLWithPath: $0) }
  ?? here.appendingPathComponent("../../../.build/release/quire").standardizedFileURL
let mebibytes = arguments.dropFirst().first.flatMap { Int($0) } ?? 100
let runs = max(1, arguments.dropFirst(2).first.flatMap { Int($0) } ?? 1)
let ed = URL(fileURLWithPath: "/usr/bin/ed")

guard FileManager.default.isExecutableFile(atPath: quire.path) else {
  print("skipped: \(quire.path) is missing; run 'swift build -c release --product quire' in the project first")
  exit(0)
}
let time = URL(fileURLWithPath: "/usr/bin/time")
guard FileManager.default.isExecutableFile(atPath: time.path) else {
  print("skipped: GNU time is not installed (apt-get install time)")
  exit(0)
}
guard FileManager.default.isExecutableFile(atPath: ed.path) else {
  print("skipped: GNU ed is not installed (apt-get install ed)")
  exit(0)
}

let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("bench-repl-100mib-\(getpid())")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }

// The file: numbered lines of about 64 bytes, "fox" on every line, written in pieces so that
// this harness stays small.
let original = folder.appendingPathComponent("original.txt")
var fileSize = 0
var lineCount = 0
do {
  _ = FileManager.default.createFile(atPath: original.path, contents: nil)
  let handle = try FileHandle(forWritingTo: original)
  var piece = [UInt8]()
  while fileSize < mebibytes << 20 {
    lineCount += 1
    let line = Array("\(lineCount): the quick brown fox jumps over the lazy dog, then rests\n".utf8)
    piece.append(contentsOf: line)
    fileSize += line.count
    if piece.count >= 1 << 20 {
      try handle.write(contentsOf: piece)
      piece.removeAll(keepingCapacity: true)
    }
  }
  try handle.write(contentsOf: piece)
  try handle.close()
}

/// What one child process cost.
struct Cost {
  var seconds: Double
  var peakBytes: Int
  var status: Int32
}

/// Runs `program arguments file` under GNU time with `script` on standard input (stdout and
/// stderr to /dev/null) and returns its wall time, peak RSS and exit status.
func run(_ program: URL, _ arguments: [String], script: URL, file: URL) throws -> Cost {
  let peakFile = folder.appendingPathComponent("peak.txt")
  var actions = posix_spawn_file_actions_t()
  posix_spawn_file_actions_init(&actions)
  defer { posix_spawn_file_actions_destroy(&actions) }
  posix_spawn_file_actions_addopen(&actions, 0, script.path, O_RDONLY, 0)
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
  let argv = [time.path, "-f", "%M", "-o", peakFile.path, program.path] + arguments + [file.path]
  var cArguments = argv.map { strdup($0) } + [nil]
  defer { for pointer in cArguments { free(pointer) } }
  var pid: pid_t = 0
  var status: Int32 = 0
  var usage = rusage()
  let start = ContinuousClock.now
  let spawned = posix_spawn(&pid, time.path, &actions, nil, &cArguments, environ)
  guard spawned == 0 else { throw NSError(domain: "posix_spawn", code: Int(spawned)) }
  while wait4(pid, &status, 0, &usage) < 0, errno == EINTR {}
  let elapsed = ContinuousClock.now - start
  let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
  let peakText = (try? String(contentsOf: peakFile, encoding: .utf8)) ?? ""
  let kibibytes = peakText.split(whereSeparator: \.isNewline).compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }.last ?? 0
  return Cost(seconds: seconds, peakBytes: kibibytes * 1024, status: (status >> 8) & 0xFF)
}

let scripts: [(String, String)] = [
  ("open + $=", "$=\nq\n"),
  (",s/fox/cat/g + w", ",s/fox/cat/g\nw\nq\n"),
  (
    "small edits + w",
    "1000s/fox/cat/\n\(lineCount / 2)d\n\(lineCount / 3)a\nan added line\n.\n$a\nthe last line\n.\n2,3j\nw\nq\n"
  ),
  ("g/re/d + u + w", "g/^[0-9]*999:/d\nu\nw\nq\n"),
]

print("quire -s vs GNU ed -s, \(fileSize) bytes (\(lineCount) lines), median of \(runs) run(s) each")
print("quire: \(quire.path)")
var worstRatio = 0.0
var worstMemory = 0.0
for (index, (name, script)) in scripts.enumerated() {
  let scriptURL = folder.appendingPathComponent("script-\(index).ed")
  try Data(script.utf8).write(to: scriptURL)
  var edCosts: [Cost] = []
  var quireCosts: [Cost] = []
  let edFile = folder.appendingPathComponent("ed.txt")
  let quireFile = folder.appendingPathComponent("quire.txt")
  for _ in 0..<runs {
    try? FileManager.default.removeItem(at: edFile)
    try? FileManager.default.removeItem(at: quireFile)
    try FileManager.default.copyItem(at: original, to: edFile)
    try FileManager.default.copyItem(at: original, to: quireFile)
    edCosts.append(try run(ed, ["-s"], script: scriptURL, file: edFile))
    quireCosts.append(try run(quire, ["-s"], script: scriptURL, file: quireFile))
  }
  let same = FileManager.default.contentsEqual(atPath: edFile.path, andPath: quireFile.path)
  let edTime = median(edCosts.map(\.seconds))
  let quireTime = median(quireCosts.map(\.seconds))
  let edPeak = edCosts.map(\.peakBytes).max() ?? 0
  let quirePeak = quireCosts.map(\.peakBytes).max() ?? 0
  let statuses = "exit ed \(edCosts.map(\.status).max() ?? 0), quire \(quireCosts.map(\.status).max() ?? 0)"
  report("ed     \(name)", edTime, unit: "s")
  report("quire  \(name)", quireTime, unit: "s", baseline: edTime)
  print(
    String(
      format: "       peak memory: ed %.0f MiB (%.2f× file), quire %.0f MiB (%.2f× file); files %@; %@",
      Double(edPeak) / 1_048_576, Double(edPeak) / Double(fileSize), Double(quirePeak) / 1_048_576,
      Double(quirePeak) / Double(fileSize), same ? "identical" : "DIFFER", statuses))
  worstRatio = max(worstRatio, edTime > 0 ? quireTime / edTime : 0)
  worstMemory = max(worstMemory, Double(quirePeak) / Double(fileSize))
}
print(String(format: "worst quire/ed time ratio %.2f (target ≤ 1.0); quire's peak memory %.2f× the file (target ≤ 1.5)", worstRatio, worstMemory))
