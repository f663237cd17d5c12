// bench-undo-history: what a stored undo history costs when a document opens (issue 31).
//
// A text document of 10,000 lines is opened (`PlainTextDocument.open()`) without a stored
// history and, beside it in the same run, with a stored history of 10,000 edits (each a
// one-line edit, as a REPL session's `s` commands make; the history as `save()` stored it).
// The peer is the same open without a history: the difference is the history's cost (read,
// SHA-256 checks of the file and of the text, decode, 10,000 undo steps rebuilt). The budget
// is under 10 ms extra. It also times the save that stores the history, beside a save without.
//
// Usage: swift run -c release bench-undo-history [EDITS] [RUNS]   (EDITS 10000, RUNS 21)
import BenchmarkSupport
import Foundation
import QuireDocuments

let arguments = Array(CommandLine.arguments.dropFirst())
let edits = arguments.first.flatMap(Int.init) ?? 10_000
let runs = arguments.dropFirst().first.flatMap(Int.init) ?? 21

/// Seconds `body` takes, by the monotonic clock.
@MainActor
func time(_ body: () async throws -> Void) async rethrows -> Double {
  let start = ContinuousClock.now
  try await body()
  let elapsed = ContinuousClock.now - start
  return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

@MainActor
func main() async throws {
  let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("bench-undo-history-\(getpid())")
  try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(at: folder) }
  let store = UndoHistoryStore(root: folder.appendingPathComponent("state/quire/undo"))
  let lines = (0..<10_000).map { "line \($0): the quick brown fox jumps over the lazy dog" }
  let text = lines.joined(separator: "\n") + "\n"
  let plain = folder.appendingPathComponent("plain.txt")
  let kept = folder.appendingPathComponent("kept.txt")
  try Data(text.utf8).write(to: plain)
  try Data(text.utf8).write(to: kept)

  func makeDocument(_ url: URL, persisting: Bool) -> PlainTextDocument {
    let document = PlainTextDocument(fileURL: url)
    document.autosavePolicy = nil
    document.recoveryStore = nil
    document.registersAsFilePresenter = false
    document.persistsUndoHistory = persisting
    document.undoHistoryStore = store
    return document
  }

  // The history: `edits` one-line edits, saved (which stores them).
  let editing = makeDocument(kept, persisting: true)
  try await editing.open()
  for index in 0..<edits {
    let line = index % 10_000
    try editing.replaceLines(in: line..<(line + 1), with: ["line \(line): the quick brown cat jumps over the lazy dog (\(index))"])
  }
  let storeTime = try await time { try await editing.save() }
  try await editing.close()
  let historyBytes =
    (try? FileManager.default.contentsOfDirectory(atPath: store.root.path))?
    .filter { $0.hasSuffix(".undo") }
    .compactMap { try? FileManager.default.attributesOfItem(atPath: store.root.appendingPathComponent($0).path)[.size] as? Int }
    .reduce(0, +) ?? 0

  var off: [Double] = []
  var without: [Double] = []
  var with: [Double] = []
  for _ in 0..<runs {
    // Interleaved, so that a busy moment of the shared machine falls on all three.
    let a = makeDocument(plain, persisting: false)
    off.append(try await time { try await a.open() })
    try await a.close()

    let b = makeDocument(plain, persisting: true)
    without.append(try await time { try await b.open() })
    precondition(!b.undoManager.canUndo)
    try await b.close()

    let c = makeDocument(kept, persisting: true)
    with.append(try await time { try await c.open() })
    precondition(c.undoManager.undoCount == edits, "the history did not come back: \(c.undoHistoryRestoration)")
    try await c.close()
  }
  // The history works: undoing every step gives back the original text.
  let check = makeDocument(kept, persisting: true)
  try await check.open()
  for _ in 0..<edits { check.undoManager.undo() }
  precondition(check.text == text, "undoing the stored history did not give back the original text")

  print("open of a 10,000-line text (\(text.utf8.count) bytes); history of \(edits) edits (\(historyBytes) bytes stored); \(runs) runs, medians")
  let base = median(without) * 1000
  let keptTime = median(with) * 1000
  report("open, history not kept", median(off) * 1000, unit: "ms")
  report("open without a stored history", base, unit: "ms")
  report("open with a stored history of \(edits) edits", keptTime, unit: "ms", baseline: base)
  report("extra for the history (median)", keptTime - base, unit: "ms")
  report("extra for the history (90th percentile)", (percentile(with, 90) - percentile(without, 90)) * 1000, unit: "ms")
  report("save that stores the history", storeTime * 1000, unit: "ms")
  print(keptTime - base < 10 ? "within the 10 ms budget" : "OVER the 10 ms budget")
}

try await main()
