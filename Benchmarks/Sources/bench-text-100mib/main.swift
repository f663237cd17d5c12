// bench-text-100mib: the library's text path (what the `quire` REPL does through
// `PlainTextDocument` and `TextStorage`) against GNU `ed -s` on the same 100 MiB file, in one
// run. Each Quire case runs in a child process of this program (`--child CASE FILE`) so that
// its peak memory is its own: GNU time's `%M` for both programs. The cases are those of
// bench-repl-100mib:
//
// - open + `$=`: open the file as a document (byte-exact, as ed reads it) and print its line count;
// - `,s/fox/cat/g` + `w`: every line through `regexec` (ed's basic regular expressions), the
//   changed lines replaced in one batched edit (one undo entry), then the document's save
//   (safe save, the check for changes on disk, a kept version);
// - small edits + `w`: `1000s/fox/cat/`, a `d`, two `a`, a `j`, each its own undoable edit, then save;
// - `g/re/d` + `u` + `w`: the matching lines deleted in one batched edit, undone, then saved.
//
// Prints each time, Quire's ratio to ed, each program's peak memory as a multiple of the file's
// size, and whether the files each left are byte-identical.
//
// Usage: swift run -c release bench-text-100mib [MIB] [RUNS]   (MIB defaults to 100, RUNS to 1)
import BenchmarkSupport
import Foundation
import QuireDocuments

#if canImport(Glibc)
  import Glibc
#endif

let arguments = Array(CommandLine.arguments.dropFirst())

// MARK: The child: one case through the library

/// A compiled POSIX basic regular expression, as ed (and the REPL's `POSIXRegex`) uses.
final class BasicRegex {
  private var compiled = regex_t()
  init(_ pattern: String) {
    precondition(regcomp(&compiled, pattern, 0) == 0, "bad pattern \(pattern)")
  }
  deinit { regfree(&compiled) }

  /// The first match in `line` at or after `start`, as byte offsets.
  func firstMatch(in line: UnsafeBufferPointer<UInt8>, from start: Int) -> Range<Int>? {
    guard let base = line.baseAddress else {
      return "".withCString { empty in
        var match = regmatch_t(rm_so: 0, rm_eo: 0)
        return regexec(&compiled, empty, 1, &match, REG_STARTEND) == 0 ? 0..<0 : nil
      }
    }
    var match = regmatch_t(rm_so: regoff_t(start), rm_eo: regoff_t(line.count))
    let status = base.withMemoryRebound(to: CChar.self, capacity: line.count) { text in
      regexec(&compiled, text, 1, &match, REG_STARTEND | (start > 0 ? REG_NOTBOL : 0))
    }
    return status == 0 ? Int(match.rm_so)..<Int(match.rm_eo) : nil
  }

  /// `line` with every match replaced by `replacement` (`s/re/replacement/g`), or `nil` when
  /// nothing matches.
  func replacingAll(in line: UnsafeBufferPointer<UInt8>, with replacement: [UInt8]) -> [UInt8]? {
    var result: [UInt8]?
    var position = 0
    while position <= line.count, let match = firstMatch(in: line, from: position) {
      if result == nil { result = [] }
      result!.append(contentsOf: UnsafeBufferPointer(rebasing: line[position..<match.lowerBound]))
      result!.append(contentsOf: replacement)
      position = match.isEmpty ? match.upperBound + 1 : match.upperBound
    }
    guard var result else { return nil }
    if position < line.count { result.append(contentsOf: UnsafeBufferPointer(rebasing: line[position...])) }
    return result
  }
}

@MainActor
func openDocument(_ path: String, versions: URL) async throws -> PlainTextDocument {
  let document = PlainTextDocument(fileURL: URL(fileURLWithPath: path))
  document.readsBytesExactly = true
  document.appendsMissingFinalNewline = true
  document.autosavePolicy = nil
  document.recoveryStore = nil
  document.versionStore = VersionStore(root: versions)
  try await document.open()
  return document
}

@MainActor
func runChild(_ name: String, _ path: String, versions: URL) async throws {
  let document = try await openDocument(path, versions: versions)
  switch name {
  case "open":
    print(document.lineCount)
  case "subst":
    let regex = BasicRegex("fox")
    let text = document.storage
    let replacement = Array("cat".utf8)
    try document.undoManager.groupUndo(named: "s") {
      try document.editLines { editor in
        try text.forEachLine(in: 0..<text.lineCount, keepingCarriageReturn: true) { index, line in
          if let new = regex.replacingAll(in: line, with: replacement) { try editor.replaceLine(index, withBytes: new) }
        }
      }
    }
    try await document.save()
  case "small":
    let count = document.lineCount
    // 1000s/fox/cat/
    let regex = BasicRegex("fox")
    var line = document.lineBytes(at: 999)
    if let match = line.withUnsafeBufferPointer({ regex.firstMatch(in: $0, from: 0) }) {
      line.replaceSubrange(match, with: Array("cat".utf8))
      try document.replaceLines(in: 999..<1000, withBytes: [line])
    }
    // (count/2)d
    try document.replaceLines(in: (count / 2 - 1)..<(count / 2), withBytes: [])
    // (count/3)a
    try document.replaceLines(in: (count / 3)..<(count / 3), withBytes: [Array("an added line".utf8)])
    // $a
    let last = document.lineCount
    try document.replaceLines(in: last..<last, withBytes: [Array("the last line".utf8)])
    // 2,3j
    let joined = document.lineBytes(at: 1) + document.lineBytes(at: 2)
    try document.replaceLines(in: 1..<3, withBytes: [joined])
    try await document.save()
  case "gdel":
    let regex = BasicRegex("^[0-9]*999:")
    let text = document.storage
    try document.undoManager.groupUndo(named: "g") {
      try document.editLines { editor in
        try text.forEachLine(in: 0..<text.lineCount, keepingCarriageReturn: true) { index, line in
          if regex.firstMatch(in: line, from: 0) != nil { try editor.deleteLines(in: index..<(index + 1)) }
        }
      }
    }
    document.undoManager.undo()
    try await document.save()
  default:
    fatalError("unknown case \(name)")
  }
}

if arguments.first == "--child", arguments.count >= 4 {
  do {
    try await runChild(arguments[1], arguments[2], versions: URL(fileURLWithPath: arguments[3]))
    exit(0)
  } catch {
    FileHandle.standardError.write(Data("bench-text-100mib: \(error)\n".utf8))
    exit(1)
  }
}

// MARK: The harness

let mebibytes = arguments.first.flatMap { Int($0) } ?? 100
let runs = max(1, arguments.dropFirst().first.flatMap { Int($0) } ?? 1)
let ed = URL(fileURLWithPath: "/usr/bin/ed")
let time = URL(fileURLWithPath: "/usr/bin/time")
guard FileManager.default.isExecutableFile(atPath: time.path) else {
  print("skipped: GNU time is not installed (apt-get install time; scripts/setup installs it)")
  exit(0)
}
guard FileManager.default.isExecutableFile(atPath: ed.path) else {
  print("skipped: GNU ed is not installed (apt-get install ed; scripts/setup installs it)")
  exit(0)
}
let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()

let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("bench-text-100mib-\(getpid())")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }

// The file bench-repl-100mib makes: numbered lines of about 64 bytes, "fox" on every line.
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

struct Cost {
  var seconds: Double
  var peakBytes: Int
  var status: Int32
}

/// Runs `argv` under GNU time (stdin from `input`, stdout and stderr to /dev/null) and returns
/// its wall time, peak RSS and exit status.
func run(_ argv: [String], input: URL) throws -> Cost {
  let peakFile = folder.appendingPathComponent("peak.txt")
  var actions = posix_spawn_file_actions_t()
  posix_spawn_file_actions_init(&actions)
  defer { posix_spawn_file_actions_destroy(&actions) }
  posix_spawn_file_actions_addopen(&actions, 0, input.path, O_RDONLY, 0)
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
  posix_spawn_file_actions_addopen(&actions, 2, folder.appendingPathComponent("stderr.txt").path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
  let full = [time.path, "-f", "%M", "-o", peakFile.path] + argv
  var cArguments = full.map { strdup($0) } + [nil]
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
  let code = (status >> 8) & 0xFF
  if code != 0, let message = try? String(contentsOf: folder.appendingPathComponent("stderr.txt"), encoding: .utf8) {
    print("       \(argv.first ?? "") failed: \(message.prefix(400))")
  }
  return Cost(seconds: seconds, peakBytes: kibibytes * 1024, status: code)
}

let cases: [(name: String, child: String, script: String)] = [
  ("open + $=", "open", "$=\nq\n"),
  (",s/fox/cat/g + w", "subst", ",s/fox/cat/g\nw\nq\n"),
  ("small edits + w", "small", "1000s/fox/cat/\n\(lineCount / 2)d\n\(lineCount / 3)a\nan added line\n.\n$a\nthe last line\n.\n2,3j\nw\nq\n"),
  ("g/re/d + u + w", "gdel", "g/^[0-9]*999:/d\nu\nw\nq\n"),
]

print("Quire's text path (PlainTextDocument, in a child process) vs GNU ed -s, \(fileSize) bytes (\(lineCount) lines), median of \(runs) run(s) each")
var worstRatio = 0.0
var worstMemory = 0.0
let empty = folder.appendingPathComponent("empty")
_ = FileManager.default.createFile(atPath: empty.path, contents: Data())
for (index, item) in cases.enumerated() {
  let scriptURL = folder.appendingPathComponent("script-\(index).ed")
  try Data(item.script.utf8).write(to: scriptURL)
  var edCosts: [Cost] = []
  var quireCosts: [Cost] = []
  let edFile = folder.appendingPathComponent("ed.txt")
  let quireFile = folder.appendingPathComponent("quire.txt")
  let versions = folder.appendingPathComponent("versions")
  for _ in 0..<runs {
    for url in [edFile, quireFile, versions] { try? FileManager.default.removeItem(at: url) }
    try FileManager.default.copyItem(at: original, to: edFile)
    try FileManager.default.copyItem(at: original, to: quireFile)
    edCosts.append(try run([ed.path, "-s", edFile.path], input: scriptURL))
    quireCosts.append(try run([me.path, "--child", item.child, quireFile.path, versions.path], input: empty))
  }
  let same = FileManager.default.contentsEqual(atPath: edFile.path, andPath: quireFile.path)
  let edTime = median(edCosts.map(\.seconds))
  let quireTime = median(quireCosts.map(\.seconds))
  let edPeak = edCosts.map(\.peakBytes).max() ?? 0
  let quirePeak = quireCosts.map(\.peakBytes).max() ?? 0
  report("ed     \(item.name)", edTime, unit: "s")
  report("quire  \(item.name)", quireTime, unit: "s", baseline: edTime)
  print(
    String(
      format: "       peak memory: ed %.0f MiB (%.2f× file), quire %.0f MiB (%.2f× file); files %@; exit ed %d, quire %d",
      Double(edPeak) / 1_048_576, Double(edPeak) / Double(fileSize), Double(quirePeak) / 1_048_576,
      Double(quirePeak) / Double(fileSize), same ? "identical" : "DIFFER", edCosts.map(\.status).max() ?? 0,
      quireCosts.map(\.status).max() ?? 0))
  worstRatio = max(worstRatio, edTime > 0 ? quireTime / edTime : 0)
  worstMemory = max(worstMemory, Double(quirePeak) / Double(fileSize))
}
print(String(format: "worst quire/ed time ratio %.2f (target ≤ 1.0); quire's peak memory %.2f× the file (target ≤ 1.5)", worstRatio, worstMemory))
