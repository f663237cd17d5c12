import Foundation
import QuireFormats
import QuirePreviews
import QuireTestSupport
import QuireTypes
import Testing

/// The `quire` program built beside the test bundle, which the batch starts as its worker.
func builtQuire() -> URL? {
  let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
  for folder in [me.deletingLastPathComponent(), me.deletingLastPathComponent().deletingLastPathComponent()] {
    let candidate = folder.appendingPathComponent("quire")
    if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
  }
  print("note: no built 'quire' beside \(me.path); skipping the worker-process checks (run 'swift build' first)")
  return nil
}

@Suite("Batch with worker processes")
final class ThumbnailBatchTests {
  let folder: TemporaryFolder
  init() throws { folder = try TemporaryFolder() }
  deinit { folder.remove() }

  func run(_ paths: [URL], options: ThumbnailBatch.Options) -> ([ThumbnailBatch.Result], ThumbnailBatch.Summary) {
    var results: [ThumbnailBatch.Result] = []
    let summary = ThumbnailBatch(options: options).run(paths, onResult: { results.append($0) })
    return (results, summary)
  }

  /// Self-made hostile and ordinary inputs: they always run.
  func makeHostileFolder() throws -> URL {
    let input = folder.file("input")
    try FileManager.default.createDirectory(at: input.appendingPathComponent("sub"), withIntermediateDirectories: true)
    try PDFFixtures.onePage(content: "0 g 0 0 100 100 re f").write(to: input.appendingPathComponent("good.pdf"))
    try Data().write(to: input.appendingPathComponent("empty.pdf"))
    try PDFFixtures.onePage(content: "0 g").prefix(100).write(to: input.appendingPathComponent("truncated.pdf"))
    try Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: input.appendingPathComponent("garbage.pdf"))
    try PDFFixtures.onePage(mediaBox: "[0 0 14400 14400]", content: "0 g 0 0 7200 7200 re f")
      .write(to: input.appendingPathComponent("huge-mediabox.pdf"))
    try PDFFixtures.onePage(mediaBox: "[0 0 -50 0]", content: "").write(to: input.appendingPathComponent("zero-area.pdf"))
    // A page tree whose kid is itself.
    try Data(
      "%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [2 0 R] /Count 1 >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"
        .utf8
    )
    .write(to: input.appendingPathComponent("loop.pdf"))
    try Data("# Hello\n\nWorld\n".utf8).write(to: input.appendingPathComponent("sub/note.md"))
    try Data("hidden".utf8).write(to: input.appendingPathComponent(".hidden.md"))
    return input
  }

  @Test func hostileFilesCostOneEntryEachAndTheBatchFinishes() throws {
    guard let quire = builtQuire() else { return }
    let input = try makeHostileFolder()
    let output = folder.file("out")
    // A time limit far above what any of these files takes even on a loaded machine: this
    // test is about how each file ends, aHangingWorkerIsKilledAtTheTimeLimit about the limit.
    let (results, summary) = run(
      [input], options: ThumbnailBatch.Options(size: 128, destination: .folder(output), jobs: 2, timeLimit: 60, workerExecutable: quire, version: "test"))
    let byName = Dictionary(uniqueKeysWithValues: results.map { (URL(fileURLWithPath: $0.file).lastPathComponent, $0) })
    #expect(Set(byName.keys) == ["good.pdf", "empty.pdf", "truncated.pdf", "garbage.pdf", "huge-mediabox.pdf", "zero-area.pdf", "loop.pdf", "note.md"])
    #expect(byName["good.pdf"]?.status == .made)
    #expect(byName["note.md"]?.status == .made)
    #expect(byName["huge-mediabox.pdf"]?.status == .made)
    for bad in ["empty.pdf", "truncated.pdf", "garbage.pdf", "zero-area.pdf", "loop.pdf"] {
      #expect(byName[bad]?.status == .failed, "\(bad) should fail")
      #expect(byName[bad]?.message?.contains(bad) == true, "the message names the file")
    }
    #expect(summary.total == 8 && summary.made == 3 && summary.failed == 5)
    // Output mirrors the walked folder; PNGs carry the text chunks and the exact size.
    let png = try Data(contentsOf: output.appendingPathComponent("sub/note.md.png"))
    let bitmap = try Bitmap(pngData: png)
    #expect(max(bitmap.width, bitmap.height) == 128)
    let keys = try PNGText.chunks(in: png).map(\.key)
    #expect(keys.contains("Thumb::URI") && keys.contains("Thumb::MTime") && keys.contains("Software"))
  }

  // /bin/sleep never answers: each file must end as timed-out. It sleeps an hour, so the batch
  // returning at all shows the limit killed it (the test's time limit only guards a hang).
  @Test(.timeLimit(.minutes(5))) func aHangingWorkerIsKilledAtTheTimeLimit() throws {
    let files = try (1...3).map { try folder.write("# \($0)\n", to: "f\($0).md") }
    let (results, summary) = run(
      files,
      options: ThumbnailBatch.Options(
        size: 64, destination: .folder(folder.file("out")), jobs: 2, timeLimit: 0.3, memoryLimit: 0,
        workerExecutable: URL(fileURLWithPath: "/bin/sleep"), workerArguments: ["3600"], version: "test"))
    #expect(results.count == 3)
    #expect(results.allSatisfy { $0.status == .timedOut })
    #expect(summary.timedOut == 3)
  }

  @Test func timeOutsAreNotRecordedAsFailuresButCrashesAre() throws {
    let file = try folder.write("# x\n", to: "slow.md")
    try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -60)], ofItemAtPath: file.path)
    let cache = ThumbnailCache(root: folder.file("thumbnails"), version: "test", settleInterval: 0)
    let source = try ThumbnailCache.source(for: file)
    let (timedOut, _) = run(
      [file],
      options: ThumbnailBatch.Options(
        destination: .cache(cache), jobs: 1, timeLimit: 0.2, memoryLimit: 0,
        workerExecutable: URL(fileURLWithPath: "/bin/sleep"), workerArguments: ["30"], version: "test"))
    #expect(timedOut.first?.status == .timedOut)
    #expect(!FileManager.default.fileExists(atPath: cache.failureURL(for: source).path))
    #expect(cache.entry(for: source, flavor: .large) == .missing)
    let (crashed, _) = run(
      [file],
      options: ThumbnailBatch.Options(
        destination: .cache(cache), jobs: 1, timeLimit: 5, memoryLimit: 0,
        workerExecutable: URL(fileURLWithPath: "/bin/false"), workerArguments: [], version: "test"))
    #expect(crashed.first?.status == .failed)
    #expect(cache.entry(for: source, flavor: .large) == .failed(cache.failureURL(for: source)))
  }

  @Test func workersRunUnderTheAddressSpaceLimit() throws {
    guard let quire = builtQuire() else { return }
    let process = Process()
    process.executableURL = quire
    process.arguments = ["thumbnail-worker", "--memory-limit", "1073741824"]
    let input = Pipe()
    process.standardInput = input
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    defer {
      try? input.fileHandleForWriting.close()
      process.waitUntilExit()
    }
    // The limit is set first thing; poll until the worker has started (up to 30 s: a debug
    // build of quire starts slowly on a loaded machine).
    var line = ""
    let deadline = ContinuousClock.now + .seconds(30)
    while ContinuousClock.now < deadline {
      let limits = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/limits", encoding: .utf8)) ?? ""
      line = limits.split(separator: "\n").first { $0.hasPrefix("Max address space") }.map(String.init) ?? ""
      if line.contains("1073741824") { break }
      usleep(20_000)
    }
    #expect(line.contains("1073741824"), "limits: \(line)")
  }

  @Test func aCrashingWorkerCostsOneEntryPerFile() throws {
    let files = try (1...3).map { try folder.write("# \($0)\n", to: "f\($0).md") }
    let (results, summary) = run(
      files,
      options: ThumbnailBatch.Options(
        size: 64, destination: .folder(folder.file("out")), jobs: 1, timeLimit: 5, memoryLimit: 0,
        workerExecutable: URL(fileURLWithPath: "/bin/false"), workerArguments: [], version: "test"))
    #expect(results.count == 3)
    #expect(results.allSatisfy { $0.status == .failed && $0.message?.contains("stopped the renderer") == true })
    #expect(summary.failed == 3)
  }

  @Test func aMissingWorkerProgramFailsEachFileClearly() throws {
    let file = try folder.write("# x\n", to: "x.md")
    let (results, _) = run(
      [file],
      options: ThumbnailBatch.Options(
        destination: .folder(folder.file("out")), workerExecutable: URL(fileURLWithPath: "/nonexistent/quire"), version: "test"))
    #expect(results.first?.status == .failed)
    #expect(results.first?.message?.contains("/nonexistent/quire") == true)
  }

  @Test func cacheRunsSkipFreshFilesDeferNewOnesAndRecordFailures() throws {
    guard let quire = builtQuire() else { return }
    let good = try folder.write("# Good\n", to: "good.md")
    let bad = folder.file("bad.pdf")
    try Data("%PDF-1.4 nothing".utf8).write(to: bad)
    let fresh = try folder.write("# just written\n", to: "fresh.md")
    for url in [good, bad] {
      try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -60)], ofItemAtPath: url.path)
    }
    // fresh.md must still count as just written when the batch looks at it: a settle interval
    // of 30 s (the others were modified 60 s ago) leaves room for a slow, loaded machine.
    let cache = ThumbnailCache(root: folder.file("thumbnails"), version: "test", settleInterval: 30)
    let options = ThumbnailBatch.Options(size: 256, destination: .cache(cache), jobs: 2, workerExecutable: quire, version: "test")
    let (first, _) = run([good, bad, fresh], options: options)
    let status = Dictionary(uniqueKeysWithValues: first.map { (URL(fileURLWithPath: $0.file).lastPathComponent, $0.status) })
    #expect(status == ["good.md": .made, "bad.pdf": .failed, "fresh.md": .deferred])
    #expect(FileManager.default.fileExists(atPath: cache.failureURL(for: try ThumbnailCache.source(for: bad)).path))
    let (second, summary) = run([good, bad], options: options)
    #expect(second.map(\.status).sorted { $0.rawValue < $1.rawValue } == [.failedBefore, .fresh])
    #expect(summary.made == 0)
  }

  @Test func brokenPDFCorpusEndsWithinTheLimits() throws {
    guard let corpus = sharedCorpus("broken-pdf") else { return }
    guard let quire = builtQuire() else { return }
    let limit = 10.0
    let (results, summary) = run(
      [corpus],
      options: ThumbnailBatch.Options(size: 128, destination: .folder(folder.file("out")), jobs: 2, timeLimit: limit, workerExecutable: quire, version: "test"))
    let pdfs = try FileManager.default.contentsOfDirectory(atPath: corpus.path).filter { $0.hasSuffix(".pdf") }
    let seen = Set(results.map { URL(fileURLWithPath: $0.file).lastPathComponent })
    #expect(Set(pdfs).isSubset(of: seen))
    for result in results {
      #expect(result.milliseconds < (limit + 1) * 1000, "\(result.file) took \(result.milliseconds) ms")
      #expect(result.status == .made || ((result.status == .failed || result.status == .timedOut) && !(result.message ?? "").isEmpty))
    }
    #expect(summary.total == results.count)
  }
}
