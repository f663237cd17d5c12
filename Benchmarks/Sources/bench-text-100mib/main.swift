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
EdComparison.requirePeers()
let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()

let folder = try EdComparison.makeFolder("bench-text-100mib")
defer { try? FileManager.default.removeItem(at: folder) }
let original = folder.appendingPathComponent("original.txt")
let (fileSize, lineCount) = try EdComparison.writeFile(at: original, mebibytes: mebibytes)

print("Quire's text path (PlainTextDocument, in a child process) vs GNU ed -s, \(fileSize) bytes (\(lineCount) lines), median of \(runs) run(s) each")
let empty = folder.appendingPathComponent("empty")
_ = FileManager.default.createFile(atPath: empty.path, contents: Data())
let versions = folder.appendingPathComponent("versions")
try EdComparison.compareCases(in: folder, original: original, fileSize: fileSize, lineCount: lineCount, runs: runs, scratch: [versions]) { key, _, file in
  ([me.path, "--child", key, file.path, versions.path], empty)
}
