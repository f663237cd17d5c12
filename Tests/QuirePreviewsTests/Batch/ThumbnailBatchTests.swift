import Foundation
import QuireFormats
import QuirePreviews
import QuireTestSupport
import QuireTypes
import Testing

/// The `quire` program built beside the test bundle, which the batch starts as its worker.
/// The `quire` executable built beside the tests: the batch's worker processes.
func builtQuire() throws -> URL {
  try #require(Programs.quire, "no built quire beside the tests (swift build --build-tests)")
}

@Suite("Batch with worker processes")
final class ThumbnailBatchTests: FolderSuite {

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
    let quire = try builtQuire()
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

  @Test func workersRunUnderTheAddressSpaceLimit() async throws {
    let quire = try builtQuire()
    let worker = try ChildProcess.start(quire, ["thumbnail-worker", "--memory-limit", "1073741824"], discardingErrors: true)
    defer { worker.kill() }
    // The limit is set first thing; poll until the worker has started (a debug build of quire
    // starts slowly on a loaded machine).
    var line = ""
    let limited = await eventually(every: .milliseconds(20)) {
      let limits = (try? String(contentsOfFile: "/proc/\(worker.pid)/limits", encoding: .utf8)) ?? ""
      line = limits.split(separator: "\n").first { $0.hasPrefix("Max address space") }.map(String.init) ?? ""
      return line.contains("1073741824")
    }
    #expect(limited, "limits: \(line)")
  }

  /// A worker started from a Dispatch thread (which blocks nearly every signal) starts with
  /// no signal blocked, so the SIGTERM and SIGALRM that bound it reach it. The "worker" here
  /// is a shell that writes its own SigBlk and SigIgn lines from /proc and exits.
  @Test func workersStartWithNoSignalBlockedEvenFromADispatchThread() async throws {
    let file = try folder.write("# x\n", to: "x.md")
    let report = folder.file("status.txt")
    let options = ThumbnailBatch.Options(
      size: 64, destination: .folder(folder.file("out")), jobs: 1, timeLimit: 30, memoryLimit: 0,
      workerExecutable: URL(fileURLWithPath: "/bin/sh"),
      workerArguments: ["-c", "grep -E '^Sig(Blk|Ign):' /proc/self/status > '\(report.path)'"], version: "test")
    let ran: Void = await withCheckedContinuation { continuation in
      DispatchQueue.global().async {
        _ = ThumbnailBatch(options: options).run([file], onResult: { _ in })
        continuation.resume()
      }
    }
    _ = ran
    let status = try String(contentsOf: report, encoding: .utf8)
    #expect(status.contains("SigBlk:\t0000000000000000"), "\(status)")
    // SIGPIPE (bit 13) and SIGINT (bit 2) are not ignored in the child either.
    let ignored = status.split(separator: "\n").first { $0.hasPrefix("SigIgn:") }.flatMap {
      UInt64($0.dropFirst(7).trimmingCharacters(in: .whitespaces), radix: 16)
    }
    #expect(ignored.map { $0 & (1 << 12 | 1 << 1) == 0 } == true, "\(status)")
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

  @Test
  func cacheRunsSkipFreshFilesWaitForNewOnesAndRecordFailures() throws {
    let quire = try builtQuire()
    let good = try folder.write("# Good\n", to: "good.md")
    let bad = folder.file("bad.pdf")
    try Data("%PDF-1.4 nothing".utf8).write(to: bad)
    let fresh = try folder.write("# just written\n", to: "fresh.md")
    for url in [good, bad] {
      try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -60)], ofItemAtPath: url.path)
    }
    // fresh.md was just written: the batch waits until it has been unmodified for 1 s, then draws it.
    let cache = ThumbnailCache(root: folder.file("thumbnails"), version: "test", settleInterval: 1)
    let options = ThumbnailBatch.Options(size: 256, destination: .cache(cache), jobs: 2, workerExecutable: quire, version: "test")
    let freshSource = try ThumbnailCache.source(for: fresh)
    let (first, _) = run([good, bad, fresh], options: options)
    let status = Dictionary(uniqueKeysWithValues: first.map { (URL(fileURLWithPath: $0.file).lastPathComponent, $0.status) })
    #expect(status == ["good.md": .made, "bad.pdf": .failed, "fresh.md": .made])
    let freshThumbnail = cache.thumbnailURL(for: freshSource, flavor: .large)
    #expect(cache.entry(for: freshSource, flavor: .large) == .fresh(freshThumbnail))
    // It was drawn only once it had settled. File times come from the kernel's coarse clock,
    // which trails the precise clock the batch waits on by up to a tick (4 ms at HZ=250): the
    // thumbnail's time may read that much early.
    let stored = try FileManager.default.attributesOfItem(atPath: freshThumbnail.path)[.modificationDate] as? Date
    #expect(stored.map { $0 >= freshSource.modificationDate.addingTimeInterval(1 - 0.01) } == true, "stored \(String(describing: stored))")
    #expect(FileManager.default.fileExists(atPath: cache.failureURL(for: try ThumbnailCache.source(for: bad)).path))
    let (second, summary) = run([good, bad], options: options)
    #expect(second.map(\.status).sorted { $0.rawValue < $1.rawValue } == [.failedBefore, .fresh])
    #expect(summary.made == 0)
  }

  @Test func brokenPDFCorpusEndsWithinTheLimits() throws {
    guard let corpus = sharedCorpus("broken-pdf") else { return }
    let quire = try builtQuire()
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

  @Test
  func aWarmRunAnswersFromTheCacheWithoutStartingWorkers() throws {
    let quire = try builtQuire()
    let input = folder.file("warm")
    try FileManager.default.createDirectory(at: input.appendingPathComponent("sub"), withIntermediateDirectories: true)
    for name in ["a.md", "sub/b.md", "sub/c.txt"] {
      let url = try folder.write("# \(name)\n", to: "warm/\(name)")
      try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -60)], ofItemAtPath: url.path)
    }
    let cache = ThumbnailCache(root: folder.file("thumbnails"), version: "test")
    let (cold, _) = run([input], options: ThumbnailBatch.Options(size: 128, destination: .cache(cache), jobs: 1, workerExecutable: quire, version: "test"))
    #expect(cold.map(\.status) == [.made, .made, .made])
    // No worker program exists now: every answer must come from the cache alone.
    let (warm, summary) = run(
      [input],
      options: ThumbnailBatch.Options(
        size: 128, destination: .cache(cache), jobs: 1, workerExecutable: URL(fileURLWithPath: "/nonexistent/quire"), version: "test"))
    #expect(warm.map(\.status) == [.fresh, .fresh, .fresh])
    #expect(summary.allSucceeded)
    // A changed file is not fresh any more.
    let changed = input.appendingPathComponent("a.md")
    try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -30)], ofItemAtPath: changed.path)
    let (after, _) = run(
      [changed],
      options: ThumbnailBatch.Options(
        size: 128, destination: .cache(cache), jobs: 1, workerExecutable: URL(fileURLWithPath: "/nonexistent/quire"), version: "test"))
    #expect(after.map(\.status) == [.failed])
  }

  @Test func filesCopiedJustBeforeTheRunAreWaitedForAndMade()
    throws
  {
    let quire = try builtQuire()
    let input = folder.file("copied")
    try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
    for index in 0..<12 { _ = try folder.write("# Note \(index)\n\nCopied a moment ago.\n", to: "copied/n\(index).md") }
    let cache = ThumbnailCache(root: folder.file("thumbnails"), version: "test", settleInterval: 1)
    let (results, summary) = run(
      [input], options: ThumbnailBatch.Options(size: 128, destination: .cache(cache), jobs: 2, workerExecutable: quire, version: "test"))
    #expect(summary.made == 12 && summary.allSucceeded, "\(results.filter { !$0.isSuccess })")
    for result in results {
      let source = try ThumbnailCache.source(for: URL(fileURLWithPath: result.file))
      #expect(cache.entry(for: source, flavor: .normal) == .fresh(cache.thumbnailURL(for: source, flavor: .normal)))
    }
  }

  @Test
  func aFileThatKeepsChangingIsDeferredAfterItsAttempts() throws {
    let quire = try builtQuire()
    let file = try folder.write("# growing\n", to: "growing.md")
    let stop = Atomic(false)
    // Another writer appends every few milliseconds until the batch is over.
    let writer = Thread {
      guard let handle = try? FileHandle(forWritingTo: file) else { return }
      defer { try? handle.close() }
      while !stop.value {
        _ = try? handle.seekToEnd()
        try? handle.write(contentsOf: Data("- more\n".utf8))
        usleep(5_000)
      }
    }
    writer.start()
    let cache = ThumbnailCache(root: folder.file("thumbnails"), version: "test", settleInterval: 1)
    let (results, summary) = run(
      [file],
      options: ThumbnailBatch.Options(size: 128, destination: .cache(cache), jobs: 1, workerExecutable: quire, version: "test", settleAttempts: 2))
    stop.value = true
    #expect(results.map(\.status) == [.deferred])
    #expect(results.first?.message?.contains("growing.md") == true)
    #expect(summary.deferred == 1 && !summary.allSucceeded)
  }
}

/// A flag shared with a writer thread.
final class Atomic<Value: Sendable>: @unchecked Sendable {
  // Every access takes the lock, so the stored value is never read while written.
  private let lock = NSLock()
  private var stored: Value
  init(_ value: Value) { stored = value }
  var value: Value {
    get { lock.withLock { stored } }
    set { lock.withLock { stored = newValue } }
  }
}
