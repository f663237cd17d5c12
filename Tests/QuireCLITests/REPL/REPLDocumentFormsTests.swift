import Foundation
import Quire
import QuireTestSupport
import Synchronization
import Testing

@testable import QuireCLI

/// The REPL's documents in their three forms: PDFs (page commands with `w`, `u`, `redo`),
/// TextBundles (`assets`, package and textpack saves) and the versions every `w` keeps.
@MainActor
@Suite("REPL documents: PDFs, TextBundles, versions")
final class REPLDocumentFormsTests: MainActorFolderSuite {
  var versions: VersionStore { VersionStore(root: folder.file("versions")) }

  private func session(_ lines: [String], interactive: Bool = false) -> (REPLSession, Transcript) {
    makeSession(lines, in: folder, interactive: interactive, versionStore: versions)
  }

  private func pageTexts(_ url: URL) throws -> [String] {
    let pdf = try PDFDocument(contentsOf: url)
    return try (0..<pdf.pageCount).map { try pdf.text(ofPage: $0).trimmingCharacters(in: .whitespacesAndNewlines) }
  }

  private let picture = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3, 4])

  private func makeBundle(_ name: String, text: String, assets: [String: Data] = [:]) throws -> URL {
    let bundle = TextBundle(text: text)
    for (asset, data) in assets.sorted(by: { $0.key < $1.key }) { bundle.addAsset(data, preferredFilename: asset) }
    let url = folder.file(name)
    try bundle.write(to: url)
    return url
  }

  // MARK: PDFs

  @Test func pdfPageChangesAreSavedWithWAndUndoneWithU() async throws {
    let pdf = try writePDF(to: folder.file("doc.pdf"), pages: ["Alpha", "Bravo", "Charlie"])
    let (session, transcript) = session(["open \(pdf.path)", "delete-page 2", "rotate 1 90", "u", "redo", "u", "docs", "w", "versions", "q"])
    #expect(await session.run(opening: []) == 0, "\(transcript.errors)")
    #expect(try pageTexts(pdf) == ["Alpha", "Charlie"])
    #expect(try PDFDocument(contentsOf: pdf).rotation(ofPage: 0) == 0)
    #expect(transcript.output.contains { $0.contains("doc.pdf  2 pages  unsaved changes") })
    // The w kept the three-page original as a version.
    let kept = try versions.versions(ofItemAt: pdf)
    #expect(kept.count == 1)
    #expect(try PDFDocument(contentsOf: versions.readOnlyURL(of: kept[0])).pageCount == 3)
    #expect(transcript.output.last?.contains("bytes") == true)
  }

  @Test func pdfSaveAsMakesTheNewFileTheDocument() async throws {
    let pdf = try writePDF(to: folder.file("doc.pdf"), pages: ["Alpha", "Bravo"])
    let copy = folder.file("copy.pdf")
    let (session, transcript) = session(["open \(pdf.path)", "move-page 2 1", "save as \(copy.path)", "rotate 2 180", "w", "f", "q"])
    #expect(await session.run(opening: []) == 0, "\(transcript.errors)")
    #expect(try pageTexts(pdf) == ["Alpha", "Bravo"])
    #expect(try pageTexts(copy) == ["Bravo", "Alpha"])
    #expect(try PDFDocument(contentsOf: copy).rotation(ofPage: 1) == 180)
    #expect(transcript.output.last?.hasSuffix("copy.pdf") == true)
  }

  @Test func lineCommandsOnAPDFAreRefusedAndChangeNothing() async throws {
    let pdf = try writePDF(to: folder.file("doc.pdf"), pages: ["Alpha"])
    let before = try Data(contentsOf: pdf)
    let commands = [
      "p", "1d", "a", ",s/A/B/", "copy", "paste", "drag 1", "outline", "recover", "merge", "f other.pdf", "W \(folder.file("x").path)", "1w", "assets",
    ]
    let (session, transcript) = session(["open \(pdf.path)"] + commands + ["u", "Q"], interactive: true)
    #expect(await session.run(opening: []) == 0)
    let messages = transcript.refusals
    #expect(messages.count == commands.count + 1, "\(messages)")
    #expect(messages.prefix(4).allSatisfy { $0.contains("is a PDF") })
    #expect(messages.last?.contains("nothing to undo in 'doc.pdf'") == true)
    #expect(try Data(contentsOf: pdf) == before)
    #expect(!FileManager.default.fileExists(atPath: folder.file("x").path))
  }

  @Test func quittingWithUnsavedPageChangesAsksFirst() async throws {
    let pdf = try writePDF(to: folder.file("doc.pdf"), pages: ["Alpha", "Bravo"])
    let (session, transcript) = session(["open \(pdf.path)", "delete-page 1", "q", "q"], interactive: true)
    #expect(await session.run(opening: []) == 0)
    #expect(transcript.output.contains { $0.hasPrefix("? unsaved changes in 'doc.pdf'") })
    #expect(try pageTexts(pdf) == ["Alpha", "Bravo"])
  }

  @Test func pdfChangedOnDiskIsNotOverwrittenWithoutKeep() async throws {
    let pdf = try writePDF(to: folder.file("doc.pdf"), pages: ["Alpha", "Bravo"])
    let (session, _) = session([])
    try await session.open(pdf.path)
    _ = try await session.handle("delete-page 1")
    // Someone else saves the file meanwhile.
    let theirs = try Data(contentsOf: try writePDF(to: folder.file("theirs.pdf"), pages: ["Theirs"]))
    try theirs.write(to: pdf)
    await #expect(throws: EdError.self) { try await session.handle("w") }
    #expect(try Data(contentsOf: pdf) == theirs)
    _ = try await session.handle("keep")
    _ = try await session.handle("w")
    #expect(try pageTexts(pdf) == ["Bravo"])
  }

  @Test func pdfVersionIsRestoredIntoTheFile() async throws {
    let pdf = try writePDF(to: folder.file("doc.pdf"), pages: ["Alpha", "Bravo", "Charlie"])
    let (session, transcript) = session(["open \(pdf.path)", "delete-page 1", "w", "restore 1", "pages", "q"])
    #expect(await session.run(opening: []) == 0, "\(transcript.errors)")
    #expect(try pageTexts(pdf) == ["Alpha", "Bravo", "Charlie"])
    #expect(transcript.output.first == "doc.pdf: 3 pages")
    // The two-page file the restore replaced is kept too.
    #expect(try versions.versions(ofItemAt: pdf).count == 2)
  }

  @Test func brokenPDFsGiveOneClearLineOrOpen() async throws {
    let good = try Data(contentsOf: try writePDF(to: folder.file("good.pdf"), pages: ["Alpha", "Bravo"]))
    let files: [(String, Data)] = [
      ("empty.pdf", Data()), ("garbage.pdf", Data("%PDF-1.7\nthis is not a PDF at all\n%%EOF\n".utf8)),
      ("truncated.pdf", good.prefix(good.count / 2)), ("binary.pdf", Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7) })),
    ]
    for (name, data) in files { try data.write(to: folder.file(name)) }
    let (session, transcript) = session(files.map { "open \(folder.file($0.0).path)" } + ["Q"], interactive: true)
    #expect(await session.run(opening: []) == 0)
    let messages = transcript.refusals
    let opened = transcript.output.filter { $0.hasPrefix("opened PDF") }
    // Each file either opens (poppler repairs some damage) or says it is not a readable PDF.
    #expect(messages.count + opened.count == files.count, "\(transcript.output)")
    #expect(messages.count >= 3)
    // The document layer's reasons, naming the file.
    #expect(messages.allSatisfy { $0.hasPrefix("? Cannot open '") && $0.contains("not a PDF") }, "\(messages)")
  }

  // MARK: TextBundles

  @Test func textBundleTextIsEditedAndAnAssetAddedWithItsReference() async throws {
    let bundle = try makeBundle("notes.textbundle", text: "# Notes\nfirst line\n", assets: ["old.png": picture])
    let image = folder.file("pic.png")
    try picture.write(to: image)
    let (session, transcript) = session(["open \(bundle.path)", "$a", "added line", ".", "assets add \(image.path)", "assets", "w", "q"])
    #expect(await session.run(opening: []) == 0, "\(transcript.errors)")
    let saved = try TextBundle(url: bundle)
    #expect(saved.text == "# Notes\nfirst line\nadded line\n![pic](assets/pic.png)\n")
    #expect(saved.assetNames == ["old.png", "pic.png"])
    #expect(saved.asset(named: "pic.png") == picture)
    #expect(saved.asset(named: "old.png") == picture)
    #expect(transcript.output.filter { $0.hasPrefix("  assets/") }.count == 2)
  }

  @Test func anAssetWhoseReferenceWasUndoneIsNotSaved() async throws {
    let bundle = try makeBundle("notes.textbundle", text: "text\n")
    let image = folder.file("pic.png")
    try picture.write(to: image)
    let (session, transcript) = session(["open \(bundle.path)", "assets add \(image.path) photo.png", "u", "assets", "w", "q"])
    #expect(await session.run(opening: []) == 0, "\(transcript.errors)")
    // u took the asset back with its reference: the document holds neither.
    #expect(transcript.output.contains("no assets in 'notes.textbundle'; 'assets add FILE' adds one"))
    let saved = try TextBundle(url: bundle)
    #expect(saved.text == "text\n")
    #expect(saved.assetNames.isEmpty)
  }

  @Test func textpackIsReadAndWrittenAsAnArchive() async throws {
    let pack = try makeBundle("diary.textpack", text: "# Notes\nday one\n", assets: ["map.png": picture])
    let (session, transcript) = session(["open \(pack.path)", "1s/Notes/Diary/", "w", "q"])
    #expect(await session.run(opening: []) == 0, "\(transcript.errors)")
    #expect(try Data(contentsOf: pack).prefix(2) == Data("PK".utf8))
    let saved = try TextBundle(url: pack)
    #expect(saved.text == "# Diary\nday one\n")
    #expect(saved.asset(named: "map.png") == picture)
  }

  @Test func aNewTextBundleIsCreatedOnTheFirstSave() async throws {
    let url = folder.file("fresh.textbundle")
    let (session, transcript) = session(["new \(url.path)", "a", "hello", ".", "w", "q"])
    #expect(await session.run(opening: []) == 0, "\(transcript.errors)")
    #expect(try String(contentsOf: url.appendingPathComponent("text.md"), encoding: .utf8) == "hello\n")
    #expect(FileManager.default.fileExists(atPath: url.appendingPathComponent("info.json").path))
    #expect(try TextBundle(url: url).text == "hello\n")
  }

  @Test func badTextBundleInputGivesOneClearLineEach() async throws {
    let bundle = try makeBundle("notes.textbundle", text: "kept\n", assets: ["a.png": picture])
    let text = try folder.write("plain\n", to: "t.txt")
    try FileManager.default.createDirectory(at: folder.file("empty.textbundle"), withIntermediateDirectories: false)
    try FileManager.default.createDirectory(at: folder.file("bad.textbundle"), withIntermediateDirectories: false)
    try Data([0x66, 0xFF, 0xFE, 0x0A]).write(to: folder.file("bad.textbundle/text.md"))
    try Data("not a zip archive".utf8).write(to: folder.file("junk.textpack"))
    try Data().write(to: folder.file("zero.textpack"))
    try FileManager.default.createDirectory(at: folder.file("pictures"), withIntermediateDirectories: false)
    let image = folder.file("pic.png")
    try picture.write(to: image)
    let commands: [(String, String)] = [
      ("assets", "is not a TextBundle"),
      ("open \(folder.file("empty.textbundle").path)", "no text.md"),
      ("open \(folder.file("bad.textbundle").path)", "UTF-8"),
      ("open \(folder.file("junk.textpack").path)", "as a textpack"),
      ("open \(folder.file("zero.textpack").path)", "as a textpack"),
      ("new \(folder.file("x.pdf").path)", "cannot make the new PDF"),
      ("open \(folder.file("missing.pdf").path)", "does not exist"),
      ("open \(bundle.path)", ""),
      ("assets add \(folder.file("missing.png").path)", "does not exist"),
      ("assets add \(folder.file("pictures").path)", "it is a folder"),
      ("assets add \(image.path) a/b.png", "not a file name"),
      ("assets remove a.png", "write 'assets'"),
      ("f \(folder.file("notes.md").path)", "is a TextBundle"),
      ("e \(text.path)", "open TextBundles and PDFs"),
      ("save as \(folder.file("other.md").path)", "is a TextBundle"),
    ]
    let (session, transcript) = session(["open \(text.path)"] + commands.map(\.0) + ["Q"], interactive: true)
    #expect(await session.run(opening: []) == 0)
    let messages = transcript.refusals
    let expected = commands.map(\.1).filter { !$0.isEmpty }
    #expect(messages.count == expected.count, "\(messages)")
    for (message, fragment) in zip(messages, expected) {
      #expect(message.contains(fragment), "\(message) should say \(fragment)")
    }
    let after = try TextBundle(url: bundle)
    #expect(after.text == "kept\n")
    #expect(after.assetNames == ["a.png"])
    #expect(!FileManager.default.fileExists(atPath: folder.file("other.md").path))
    #expect(try String(contentsOf: text, encoding: .utf8) == "plain\n")
  }

  // MARK: Versions

  @Test func fiveSavesKeepFiveVersionsAndRestoreIsUndoable() async throws {
    let file = try folder.write("0\n", to: "v.txt")
    var lines = ["open \(file.path)"]
    for number in 1...5 { lines += ["1c", "\(number)", ".", "w"] }
    lines += ["versions", "restore 2", ",p", "u", ",p", "q"]
    let (session, transcript) = session(lines)
    #expect(await session.run(opening: []) == 0, "\(transcript.errors)")
    let listed = transcript.output.filter { $0.contains("saved ") && $0.contains("bytes") }
    #expect(listed.count == 5)
    // Version 2 is what the second save replaced; u brings the text back.
    #expect(transcript.output.suffix(2) == ["1", "5"])
    #expect(try String(contentsOf: file, encoding: .utf8) == "5\n")
    #expect(try versions.versions(ofItemAt: file).count == 5)
  }

  @Test func versionsOfADeletedFileAreListedAndRestored() async throws {
    let file = try folder.write("first\n", to: "gone.txt")
    let (saving, saved) = session(["open \(file.path)", "1c", "second", ".", "w", "q"])
    #expect(await saving.run(opening: []) == 0, "\(saved.errors)")
    try FileManager.default.removeItem(at: file)
    let (session, transcript) = session(["open \(file.path)", "versions", "restore 1", "w", "q"])
    #expect(await session.run(opening: []) == 0, "\(transcript.errors)")
    #expect(transcript.output.count == 1)
    #expect(try String(contentsOf: file, encoding: .utf8) == "first\n")
  }

  @Test func textBundleVersionIsRestoredIntoTheBuffer() async throws {
    let bundle = try makeBundle("b.textbundle", text: "one\n")
    let (session, transcript) = session(["open \(bundle.path)", "1c", "two", ".", "w", "1c", "three", ".", "w", "versions", "restore 1", "w", "q"])
    #expect(await session.run(opening: []) == 0, "\(transcript.errors)")
    #expect(transcript.output.filter { $0.contains("bytes") }.count == 2)
    #expect(try TextBundle(url: bundle).text == "one\n")
    let kept = try versions.versions(ofItemAt: bundle)
    #expect(kept.count == 3)
    #expect(kept.filter(\.isPackage).count == 3)
  }

  @Test func restoringATextBundleVersionBringsBackItsLostAssets() async throws {
    let bundle = try makeBundle("b.textbundle", text: "![pic](assets/pic.png)\n", assets: ["pic.png": picture])
    try versions.keepVersion(of: bundle)
    try FileManager.default.removeItem(at: bundle)
    try TextBundle(text: "plain\n").write(to: bundle)
    // Restored, then undone: the asset is not saved with the current text.
    let (undoing, undone) = session(["open \(bundle.path)", "restore 1", "u", "w", "q"])
    #expect(await undoing.run(opening: []) == 0, "\(undone.errors)")
    #expect(try TextBundle(url: bundle).assetNames.isEmpty)
    let (session, transcript) = session(["open \(bundle.path)", "restore 1", "w", "q"])
    #expect(await session.run(opening: []) == 0, "\(transcript.errors)")
    let saved = try TextBundle(url: bundle)
    #expect(saved.text == "![pic](assets/pic.png)\n")
    #expect(saved.asset(named: "pic.png") == picture)
  }

  // MARK: Coordination

  @Test func wWaitsForAnotherCoordinatedWriterAndDoesNotOverwriteItsSave() async throws {
    let file = try folder.write("one\n", to: "shared.txt")
    let runtime = folder.file("run")
    try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
    let location = CoordinationLocation(runtimeFolder: runtime)
    let transcript = Transcript()
    var configuration = REPLSession.Configuration(isInteractive: true, documentsFolder: nil, templatesFolder: nil, cacheHome: folder.file(".cache"))
    configuration.coordinator = FileCoordinator(location: location)
    let session = REPLSession(configuration: configuration, source: ArrayLineSource([]), output: { transcript.output.append($0) }, errorOutput: { _ in })
    try await session.open(file.path)
    _ = try await session.handle("1s/one/mine/")
    // Another process holds a coordinated write of the file and saves in it.
    let held = Mutex(false)
    Thread.detachNewThread {
      try? FileCoordinator(location: location).coordinate(writingItemAt: file) { url in
        held.withLock { $0 = true }
        usleep(300_000)
        try? Data("theirs\n".utf8).write(to: url, options: .atomic)
      }
    }
    #expect(await eventually { held.withLock { $0 } }, "the other writer never got the lock")
    // The w waits for that save, sees it, and refuses to overwrite it.
    await #expect(throws: EdError.self) { try await session.handle("w") }
    #expect(try String(contentsOf: file, encoding: .utf8) == "theirs\n")
  }

  @Test func sessionWithoutAVersionStoreSaysSo() async throws {
    let file = try folder.write("x\n", to: "v.txt")
    let (session, transcript) = makeSession(["versions", "Q"], in: folder, interactive: true)
    #expect(await session.run(opening: [file.path]) == 0)
    #expect(transcript.refusals.first?.contains("keeps no versions") == true)
  }
}
