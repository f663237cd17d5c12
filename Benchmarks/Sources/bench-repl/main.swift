// bench-repl: quire's script mode against GNU ed (`ed -s`) on the same generated file and the
// same edit scripts, in one run; prints each time and quire's ratio to ed.
//
// Usage: swift run -c release --scratch-path .build bench-repl [QUIRE] [LINES]
// QUIRE defaults to ../.build/release/quire (build it with `swift build -c release --product quire`).
import BenchmarkSupport
import Foundation

let arguments = CommandLine.arguments.dropFirst()
let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
let quire = requireProgram(
  arguments.first.map { URL(fileURLWithPath: $0) } ?? here.appendingPathComponent("../../../.build/release/quire").standardizedFileURL,
  "run 'swift build -c release --product quire' in the project first")
let lineCount = arguments.dropFirst().first.flatMap { Int($0) } ?? 200_000
let ed = requireProgram(EdComparison.ed, "install GNU ed (apt-get install ed)")

let folder = try EdComparison.makeFolder("bench-repl")
defer { try? FileManager.default.removeItem(at: folder) }
var text = ""
text.reserveCapacity(lineCount * 40)
for index in 1...lineCount { text += "line \(index) of the sample text, some words\n" }
let original = Data(text.utf8)

/// Runs `program` on a fresh copy of the file with `script` on standard input; returns seconds.
func run(_ program: URL, _ arguments: [String], script: String, file: URL) throws -> Double {
  try original.write(to: file)
  let process = Process()
  process.executableURL = program
  process.arguments = arguments + [file.path]
  let input = Pipe()
  process.standardInput = input
  process.standardOutput = FileHandle.nullDevice
  process.standardError = FileHandle.nullDevice
  return try seconds {
    try process.run()
    input.fileHandleForWriting.write(Data(script.utf8))
    try input.fileHandleForWriting.close()
    process.waitUntilExit()
  }
}

let scripts: [(String, String)] = [
  ("load, write, quit", "w\nq\n"),
  (",s/some/SOME/g", ",s/some/SOME/g\nw\nq\n"),
  ("g/5/d (delete matching lines)", "g/5/d\nw\nq\n"),
  ("g/^/m0 (reverse the file)", "g/^/m0\nw\nq\n"),
  ("/line 150000/ search and print", "/line 150000 /p\nq\n"),
]

print("quire script mode vs GNU ed -s, \(lineCount) lines (\(original.count) bytes), median of 3 runs")
for (name, script) in scripts {
  var edTimes: [Double] = []
  var quireTimes: [Double] = []
  for _ in 0..<3 {
    edTimes.append(try run(ed, ["-s"], script: script, file: folder.appendingPathComponent("ed.txt")))
    quireTimes.append(try run(quire, [], script: script, file: folder.appendingPathComponent("quire.txt")))
  }
  let same = FileManager.default.contentsEqual(
    atPath: folder.appendingPathComponent("ed.txt").path, andPath: folder.appendingPathComponent("quire.txt").path)
  report("ed     \(name)", median(edTimes), unit: "s")
  report("quire  \(name)\(same ? "" : "  (FILES DIFFER)")", median(quireTimes), unit: "s", baseline: median(edTimes))
}
print("peak memory of this harness: \(String(format: "%.1f", peakMemoryMiB())) MiB")
