import Foundation
import QuireCore
import QuireDocuments
import QuireFormats
import QuireTestSupport
import Testing

/// Acceptance 1: a process saving in a loop is SIGKILLed at random moments, 200 times; the
/// file always holds one complete version. Issue 29: 100 more kills each during TextBundle and
/// PDF saves.
@Suite("Crash safety")
final class CrashSafetyTests: FolderSuite {

  /// The same content as `quire-test-saver` writes (Tests/QuireTestSaver/main.swift).
  static func content(version n: Int) -> String {
    var text = "version \(n)\n"
    for line in 0..<2000 { text += "line \(line) of version \(n): the quick brown fox\n" }
    return text + "end of version \(n)\n"
  }

  /// `quire-test-saver`, built beside the test bundle.
  static func saver() throws -> URL {
    try #require(Programs.built("quire-test-saver"), "quire-test-saver is not built beside the tests; run `swift build --build-tests`")
  }

  /// The version named in the header of the file at `url`, when it has one.
  static func version(in url: URL) -> Int? {
    guard let handle = try? FileHandle(forReadingFrom: url) else { return nil }
    defer { try? handle.close() }
    guard let data = try? handle.read(upToCount: 32) else { return nil }
    let header = String(decoding: data, as: UTF8.self).prefix { $0 != "\n" }
    guard header.hasPrefix("version ") else { return nil }
    return Int(header.dropFirst(8))
  }

  @Test func everyKillLeavesACompleteVersion() async throws {
    let saver = try Self.saver()
    let url = folder.file("doc.txt")
    try Data(Self.content(version: 0).utf8).write(to: url)
    var generator = SystemRandomNumberGenerator()
    var versionsSeen: Set<Int> = []
    for round in 0..<200 {
      let process = try ChildProcess.start(saver, [url.path, String((round + 1) * 100_000)], discardingErrors: true)
      // Wait until it has opened the document, then let it save for a random while.
      #expect(await process.waitForLine(startingWith: "ready") == "ready", "round \(round)")
      // Every other round first waits until this process's first save is on disk (its
      // versions start above `start`): on a loaded machine a random 0-40 ms after "ready"
      // often ended before any save, so the kills landed on few versions (17 of 200 seen
      // under load). The other rounds still kill at any moment from "ready" on.
      if round % 2 == 1 {
        let start = (round + 1) * 100_000
        _ = await eventually(timeout: .seconds(60), every: .milliseconds(1)) { (Self.version(in: url) ?? 0) > start || !process.isRunning }
      }
      try await Task.sleep(for: .microseconds(Int.random(in: 0...40_000, using: &generator)))
      await process.killAndAwaitExit()
      #expect(process.endedBySignal == true, "round \(round): the saver stopped by itself")

      let text = String(decoding: try Data(contentsOf: url), as: UTF8.self)
      let header = text.prefix { $0 != "\n" }
      guard header.hasPrefix("version "), let found = Int(header.dropFirst(8)) else {
        Issue.record("round \(round): the file does not start with a version header")
        return
      }
      #expect(text == Self.content(version: found), "round \(round): version \(found) is torn")
      versionsSeen.insert(found)
    }
    // The kills landed while saves were happening, not only before the first: many rounds
    // left a version their own process wrote.
    #expect(versionsSeen.count > 50)
    // Leftover temporary files are allowed (a kill mid-save), but never the document's name twice.
    #expect(names(in: folder.url).filter { !$0.hasPrefix(".") } == ["doc.txt"])
  }

  /// The same with a version store: each save hands the file it replaces to the store. After
  /// every kill the file is one complete version, and so is every version the store lists
  /// (its bytes are a whole `content(version:)` and their SHA-256 is the name they are kept under).
  @Test func everyKillWithVersionsLeavesACompleteFileAndCompleteVersions() async throws {
    let saver = try Self.saver()
    let url = folder.file("kept.txt")
    try Data(Self.content(version: 0).utf8).write(to: url)
    let store = VersionStore(root: folder.file("state/versions"))
    var generator = SystemRandomNumberGenerator()
    for round in 0..<60 {
      let start = (round + 1) * 100_000
      let process = try ChildProcess.start(saver, [url.path, String(start), store.root.path], discardingErrors: true)
      #expect(await process.waitForLine(startingWith: "ready") == "ready", "round \(round)")
      if round % 2 == 1 {
        _ = await eventually(timeout: .seconds(60), every: .milliseconds(1)) { (Self.version(in: url) ?? 0) > start || !process.isRunning }
      }
      try await Task.sleep(for: .microseconds(Int.random(in: 0...40_000, using: &generator)))
      await process.killAndAwaitExit()
      let text = String(decoding: try Data(contentsOf: url), as: UTF8.self)
      let found = Int(text.prefix { $0 != "\n" }.dropFirst(8)) ?? -1
      #expect(text == Self.content(version: found), "round \(round): the file is torn")
    }
    let versions = try store.versions(ofItemAt: url)
    #expect(versions.count > 1)
    for version in versions {
      let data = try store.contents(of: version)
      let text = String(decoding: data, as: UTF8.self)
      let found = Int(text.prefix { $0 != "\n" }.dropFirst(8)) ?? -1
      #expect(text == Self.content(version: found), "a kept version is torn")
      #expect(ContentDigest.sha256(data) == version.contentHash)
    }
  }

  /// Issue 29: the same kills during TextBundle saves (a package: a folder replaced whole) and
  /// PDF saves (libqpdf writing a temporary file renamed over the old), 100 each. After every
  /// kill the bundle's text is one complete version with its info.json, and the PDF opens with
  /// all its pages, in an order some complete save left.
  @Test func everyKillDuringTextBundleAndPDFSavesLeavesACompleteFile() async throws {
    let saver = try Self.saver()
    var generator = SystemRandomNumberGenerator()
    let bundleURL = folder.file("notes.textbundle")
    try TextBundle(text: Self.content(version: 0), creatorIdentifier: "org.quire.tests").write(to: bundleURL)
    var bundleVersions: Set<Int> = []
    for round in 0..<100 {
      let start = (round + 1) * 100_000
      let process = try ChildProcess.start(saver, ["--textbundle", bundleURL.path, String(start)], discardingErrors: true)
      #expect(await process.waitForLine(startingWith: "ready") == "ready", "bundle round \(round)")
      if round % 2 == 1 {
        // Every other kill comes after a save of this round landed, so the kills fall on many
        // versions however slowly a loaded machine saves.
        _ = await eventually(timeout: .seconds(60), every: .milliseconds(1)) {
          let text = (try? String(contentsOf: bundleURL.appendingPathComponent("text.md"), encoding: .utf8)) ?? ""
          return (Int(text.prefix { $0 != "\n" }.dropFirst(8)) ?? 0) > start || !process.isRunning
        }
      }
      try await Task.sleep(for: .microseconds(Int.random(in: 0...60_000, using: &generator)))
      await process.killAndAwaitExit()
      let text = (try? String(contentsOf: bundleURL.appendingPathComponent("text.md"), encoding: .utf8)) ?? ""
      let found = Int(text.prefix { $0 != "\n" }.dropFirst(8)) ?? -1
      #expect(text == Self.content(version: found), "bundle round \(round): text.md is torn or missing")
      let info = try? JSONSerialization.jsonObject(with: Data(contentsOf: bundleURL.appendingPathComponent("info.json"))) as? [String: Any]
      #expect(info?["version"] as? Int == 2, "bundle round \(round): info.json is torn or missing")
      bundleVersions.insert(found)
    }
    #expect(bundleVersions.count > 10, "the kills landed on \(bundleVersions.count) bundle versions only")

    let pdfURL = folder.file("pages.pdf")
    let pages = (1...6).map { "page \($0)" }
    try writePDF(to: pdfURL, pages: pages, width: 200, height: 200)
    var orders: Set<[String]> = []
    for round in 0..<100 {
      let process = try ChildProcess.start(saver, ["--pdf", pdfURL.path], discardingErrors: true)
      #expect(await process.waitForLine(startingWith: "ready") == "ready", "PDF round \(round)")
      try await Task.sleep(for: .microseconds(Int.random(in: 0...60_000, using: &generator)))
      await process.killAndAwaitExit()
      guard let pdf = try? PDFFile(contentsOf: pdfURL) else {
        Issue.record("PDF round \(round): the PDF does not open")
        continue
      }
      let texts = (0..<pdf.metadata.pageCount).map { ((try? pdf.text(ofPage: $0)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines) }
      let rotations = (0..<pages.count).map { Array(pages[$0...] + pages[..<$0]) }
      #expect(rotations.contains(texts), "PDF round \(round): pages \(texts) are not a complete save")
      orders.insert(texts)
    }
    #expect(orders.count > 1, "no PDF save completed between kills")
    #expect(names(in: folder.url).filter { !$0.hasPrefix(".") }.sorted() == ["notes.textbundle", "pages.pdf"])
  }

  /// A process autosaves and is killed; opening the document again offers what it typed.
  @Test @MainActor func aKilledProcessLeavesItsAutosaveForTheNextOpen() async throws {
    let saver = try Self.saver()
    let url = try folder.write("saved\n", to: "notes.txt")
    let recovery = folder.file("state/quire/recovery")
    let process = try ChildProcess.start(saver, ["--autosave", url.path, recovery.path, "typed before the crash\n"])
    #expect(await process.waitForLine(startingWith: "autosaved") == "autosaved")
    await process.killAndAwaitExit()

    #expect(bytes(url) == Array("saved\n".utf8))  // autosave never touched the user's file
    let document = PlainTextDocument(fileURL: url)
    document.recoveryStore = RecoveryStore(folder: recovery)
    document.autosavePolicy = nil
    try await document.open()
    #expect(document.text == "saved\n")
    #expect(document.recoveredVersion != nil)
    try document.restoreRecoveredVersion()
    #expect(document.text == "typed before the crash\n")
    #expect(document.hasUnsavedChanges)
  }
}
