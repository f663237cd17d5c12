// bench-documents: safe save against a plain write+fsync+rename floor, opening 100 MB against
// a plain read, and 100,000 single-character edits then undo all, beside swift-collections'
// BigString (the rope TextStorage was measured against).
//
//   cd Benchmarks && swift build -c release --scratch-path .build
//   .build/release/bench-documents
import BenchmarkSupport
import Foundation
import Quire
import _RopeModule

// MARK: Setup

let work = FileManager.default.temporaryDirectory.appendingPathComponent("quire-bench-documents-\(getpid())")
try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: work) }

let floorSource = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
  .appendingPathComponent("../../floors/safe-save.c").standardizedFileURL
let floorBinary = work.appendingPathComponent("safe-save-floor")

_ = try output(of: "/usr/bin/cc", ["-O2", "-o", floorBinary.path, floorSource.path])

func floor(_ arguments: [String]) throws -> Double {
  Double(try output(of: floorBinary.path, arguments).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
}

/// Resets the peak resident size (`VmHWM`) so the next phase's peak can be read on its own.
func resetPeakMemory() {
  try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
}

func residentMiB() -> Double {
  guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
  for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
    return (line.split(separator: " ").compactMap { Double($0) }.first ?? 0) / 1024
  }
  return 0
}

/// Markdown-ish text of about `bytes` bytes, 64-byte lines.
func makeText(bytes: Int) -> String {
  var lines: [String] = []
  lines.reserveCapacity(bytes / 64 + 1)
  var total = 0
  var n = 0
  while total < bytes {
    let line = n % 40 == 0 ? "## Section \(n / 40)" : "Line \(n): the quick brown fox jumps over the lazy dog, again."
    let padded = line.count < 63 ? line + String(repeating: " ", count: 63 - line.count) : String(line.prefix(63))
    lines.append(padded)
    total += 64
    n += 1
  }
  return lines.joined(separator: "\n") + "\n"
}

print("bench-documents — \(Date())")
print("")

// MARK: 1. 100,000 single-character edits, then undo all

do {
  let text = makeText(bytes: 1 << 20)
  let url = work.appendingPathComponent("edits.md")
  try Data(text.utf8).write(to: url)
  var generator = SystemRandomNumberGenerator()
  let edits = 100_000

  let (editSeconds, undoSeconds, memory, restored) = try await { @MainActor () async throws -> (Double, Double, Double, Bool) in
    let document = MarkdownDocument(fileURL: url)
    document.autosavePolicy = nil
    document.recoveryStore = nil
    try await document.open()
    resetPeakMemory()
    let before = residentMiB()
    let lineCount = document.lineCount
    var offsets: [Int] = []
    offsets.reserveCapacity(edits)
    let editTime = try seconds {
      for _ in 0..<edits {
        // Line-addressed: a random line, a random column in it.
        let line = Int.random(in: 0..<lineCount, using: &generator)
        let start = document.storage.utf8Offset(ofLine: line)
        let offset = start + Int.random(in: 0..<40, using: &generator)
        try document.replaceCharacters(inUTF8Range: offset..<offset, with: "x")
      }
    }
    let undoTime = seconds {
      while document.undoManager.canUndo { document.undoManager.undo() }
    }
    let peak = peakMemoryMiB() - before
    return (editTime, undoTime, peak, document.text == text)
  }()

  // The peer: the same number of random single-character inserts into a BigString, and
  // removing them again in reverse order (what undo does).
  var big = BigString(text)
  var positions: [Int] = []
  positions.reserveCapacity(edits)
  let utf8Count = text.utf8.count
  let bigEdit = seconds {
    for i in 0..<edits {
      let offset = Int.random(in: 0..<(utf8Count + i), using: &generator)
      let index = big.utf8.index(big.startIndex, offsetBy: offset)
      big.insert("x", at: index)
      positions.append(offset)
    }
  }
  let bigUndo = seconds {
    for offset in positions.reversed() {
      let index = big.utf8.index(big.startIndex, offsetBy: offset)
      big.remove(at: index)
    }
  }
  print("100,000 single-character edits on a 1 MiB Markdown document, then undo all")
  report("  Quire: edits (line-addressed)", editSeconds, unit: "s", baseline: bigEdit)
  report("  Quire: undo all", undoSeconds, unit: "s", baseline: bigUndo)
  report("  Quire: peak memory above the open document", memory, unit: "MiB")
  print("  Quire: text after undo all equals the original: \(restored)")
  report("  peer BigString: inserts at UTF-8 offsets", bigEdit, unit: "s")
  report("  peer BigString: removals in reverse", bigUndo, unit: "s")
  print("")
}

// MARK: 2. Safe save against write + fsync + rename

print("Safe save (median per save, ms) against the floor: open(O_EXCL) + write + fsync + rename")
print("(Quire and the floors alternate in 3 rounds; the median of all rounds is reported)")
for (label, size, iterations) in [("4 KB", 4096, 100), ("1 MB", 1 << 20, 30), ("100 MB", 100 << 20, 3)] {
  var bytes = [UInt8](repeating: 0, count: size)
  for i in bytes.indices { bytes[i] = i % 64 == 63 ? 0x0A : UInt8(0x61 + i % 26) }
  let data = Data(bytes)
  let quireURL = work.appendingPathComponent("save-\(size).txt")
  let floorURL = work.appendingPathComponent("floor-\(size).txt")
  try data.write(to: quireURL)
  try data.write(to: floorURL)
  var quireTimes: [Double] = []
  var floorTimes: [Double] = []
  var dirsyncTimes: [Double] = []
  var documentTimes: [Double] = []
  for _ in 0..<3 {
    for _ in 0..<iterations {
      quireTimes.append(try seconds { try FileSaver.write(data, to: quireURL) })
    }
    floorTimes.append(try floor(["safe-save", floorURL.path, String(size), String(iterations)]))
    dirsyncTimes.append(try floor(["safe-save-dirsync", floorURL.path, String(size), String(iterations)]))
    if size == 1 << 20 {
      // The whole document save: contents(forType:), the check for changes on disk (read and
      // hash the file), then the safe write.
      documentTimes += try await { @MainActor () async throws -> [Double] in
        let document = PlainTextDocument(fileURL: quireURL)
        document.autosavePolicy = nil
        document.recoveryStore = nil
        try await document.open()
        var result: [Double] = []
        for i in 0..<iterations {
          try document.replaceCharacters(inUTF8Range: i..<(i + 1), with: "b")
          let start = ContinuousClock.now
          try await document.save()
          let elapsed = ContinuousClock.now - start
          result.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        }
        return result
      }()
    }
  }
  let floorTime = median(floorTimes)
  report("  \(label): Quire FileSaver.write", median(quireTimes) * 1000, unit: "ms", baseline: floorTime * 1000)
  if !documentTimes.isEmpty {
    report("  \(label): Quire PlainTextDocument.save()", median(documentTimes) * 1000, unit: "ms", baseline: floorTime * 1000)
  }
  report("  \(label): floor", floorTime * 1000, unit: "ms")
  report("  \(label): floor + folder fsync", median(dirsyncTimes) * 1000, unit: "ms", baseline: floorTime * 1000)
}
print("")

// MARK: 3. Open 100 MB

do {
  let text = makeText(bytes: 100 << 20)
  let url = work.appendingPathComponent("big.md")
  try Data(text.utf8).write(to: url)
  let floorTime = try floor(["read", url.path, "3"])
  resetPeakMemory()
  let before = residentMiB()
  let (openTimes, lineTime, peak) = try await { @MainActor () async throws -> ([Double], Double, Double) in
    var times: [Double] = []
    var lineTime = 0.0
    var peak = 0.0
    for round in 0..<3 {
      let document = MarkdownDocument(fileURL: url)
      document.autosavePolicy = nil
      document.recoveryStore = nil
      let start = ContinuousClock.now
      try await document.open()
      let elapsed = ContinuousClock.now - start
      times.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
      if round == 0 {
        peak = peakMemoryMiB() - before
        lineTime = seconds { _ = document.line(at: 1_500_000) }
      }
    }
    return (times, lineTime, peak)
  }()
  print("Open a 100 MiB Markdown file (median of 3)")
  report("  Quire MarkdownDocument.open()", median(openTimes), unit: "s", baseline: floorTime)
  report("  floor: read(2) into memory", floorTime, unit: "s")
  report("  Quire: peak memory of the open", peak, unit: "MiB")
  report("  Quire: read line 1,500,000", lineTime * 1000, unit: "ms")

  // The rope considered: BigString from the same text, and finding the same line in it
  // (BigString counts no newlines, so a line lookup scans from the start).
  let bigBuild = seconds { _ = BigString(text) }
  let big = BigString(text)
  let bigLine = seconds {
    var newlines = 0
    var index = big.utf8.startIndex
    while newlines < 1_500_000, index < big.utf8.endIndex {
      if big.utf8[index] == 0x0A { newlines += 1 }
      index = big.utf8.index(after: index)
    }
  }
  report("  peer BigString(String) from the text", bigBuild, unit: "s", baseline: median(openTimes))
  report("  peer BigString: find line 1,500,000", bigLine * 1000, unit: "ms", baseline: lineTime * 1000)
}
