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
let quire = requireProgram(
  arguments.first.map { URL(fileURLWithPath: $0) } ?? here.appendingPathComponent("../../../.build/release/quire").standardizedFileURL,
  "run 'swift build -c release --product quire' in the project first")
let mebibytes = arguments.dropFirst().first.flatMap { Int($0) } ?? 100
let runs = max(1, arguments.dropFirst(2).first.flatMap { Int($0) } ?? 1)
EdComparison.requirePeers()

let folder = try EdComparison.makeFolder("bench-repl-100mib")
defer { try? FileManager.default.removeItem(at: folder) }
let original = folder.appendingPathComponent("original.txt")
let (fileSize, lineCount) = try EdComparison.writeFile(at: original, mebibytes: mebibytes)

print("quire -s vs GNU ed -s, \(fileSize) bytes (\(lineCount) lines), median of \(runs) run(s) each")
print("quire: \(quire.path)")
try EdComparison.compareCases(in: folder, original: original, fileSize: fileSize, lineCount: lineCount, runs: runs) { _, script, file in
  ([quire.path, "-s", file.path], script)
}
