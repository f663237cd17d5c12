import Foundation
@_spi(Testing) import QuireDocuments
import QuireSystem
import QuireTestSupport
import QuireTypes
import SystemPackage
import Testing

@Suite("TextBundle documents")
@MainActor
final class TextBundleDocumentTests: MainActorFolderSuite {
  let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 7, 7, 7])

  func controller() -> DocumentController {
    let controller = quietController(in: folder)
    return controller
  }

  /// A TextBundle package on disk with an image asset.
  func makeBundle(_ name: String = "Trip.textbundle", text: String = "# Trip\n\nDay one.\n") throws -> URL {
    let url = folder.file(name)
    let bundle = TextBundle(text: text)
    bundle.addAsset(png, preferredFilename: "photo.png")
    try bundle.write(to: url)
    return url
  }

  func inode(_ url: URL) -> UInt64 {
    var info = stat()
    lstat(url.path, &info)
    return UInt64(info.st_ino)
  }

  @Test func theControllerOpensPackagesAndTextpacksAsTextBundleDocuments() async throws {
    let controller = controller()
    let package = try #require(try await controller.openDocument(at: makeBundle()) as? TextBundleDocument)
    #expect(package.contentType?.identifier == "org.textbundle.package")
    #expect(package.text == "# Trip\n\nDay one.\n")
    #expect(package.assetNames == ["photo.png"])
    #expect(package.asset(named: "photo.png") == png)
    #expect(UTType("org.textbundle.package")?.conforms(to: .package) == true)
    // Declaring the types again changes nothing.
    TextBundleDocument.declareTypes()
    #expect(UTType("org.textbundle.package")?.conforms(to: .package) == true)
    let packURL = folder.file("Trip.textpack")
    try TextBundle(text: "packed").write(to: packURL)
    let pack = try #require(try await controller.openDocument(at: packURL) as? TextBundleDocument)
    #expect(pack.contentType?.identifier == "org.textbundle.textpack")
    #expect(pack.text == "packed")
  }

  @Test func aNewTextBundleIsCreatedAsAPackage() async throws {
    let controller = controller()
    let type = try #require(UTType("org.textbundle.package"))
    let url = folder.file("New.textbundle")
    let document = try #require(try await controller.makeDocument(ofType: type, at: url) as? TextBundleDocument)
    #expect(document.text == "")
    #expect(!document.hasUnsavedChanges)
    #expect(names(in: url) == ["assets", "info.json", "text.md"])
    try document.insertLines(["Hello"], at: 0)
    try await document.save()
    #expect(try TextBundle(url: url).text == "Hello\n")
    // It exists now: creating it again is refused, and nothing changes.
    await expectQuireError(.fileExists) { try await controller.makeDocument(ofType: type, at: url) }
    #expect(try TextBundle(url: url).text == "Hello\n")
    #expect(controller.documents.count == 1)
  }

  @Test func editsUndoAndSaveThePackageReusingUnchangedAssets() async throws {
    let url = try makeBundle()
    let document = try #require(try await controller().openDocument(at: url) as? TextBundleDocument)
    let assetInode = inode(url.appendingPathComponent("assets/photo.png"))
    try document.replaceLines(in: 2..<3, with: ["Day one, by train."])
    try document.insertLines(["", "Day two."], at: document.lineCount)
    #expect(document.changeCount == 2)
    document.undoManager.undo()
    #expect(document.text == "# Trip\n\nDay one, by train.\n")
    #expect(document.hasUnsavedChanges)
    try await document.save()
    #expect(!document.hasUnsavedChanges)
    let read = try TextBundle(url: url)
    #expect(read.text == "# Trip\n\nDay one, by train.\n")
    #expect(read.asset(named: "photo.png") == png)
    // The unchanged asset was hard-linked from the previous package, not rewritten.
    #expect(inode(url.appendingPathComponent("assets/photo.png")) == assetInode)
    // A second save still reuses it (the document's tree now points at the new package).
    try document.replaceText(with: "Second")
    try await document.save()
    #expect(inode(url.appendingPathComponent("assets/photo.png")) == assetInode)
    #expect(try TextBundle(url: url).text == "Second")
    #expect(names(in: folder.url).filter { $0.hasPrefix(".") }.isEmpty)
  }

  @Test func addingAnAssetInsertsAReferenceAsOneUndoableStep() async throws {
    let url = try makeBundle()
    let document = try #require(try await controller().openDocument(at: url) as? TextBundleDocument)
    let reference = try document.addAsset(png, named: "photo.png")
    #expect(reference.name == "photo 2.png")
    #expect(document.assetNames == ["photo 2.png", "photo.png"])
    #expect(document.text == "# Trip\n\nDay one.\n![photo 2](assets/photo%202.png)\n")
    #expect(document.undoManager.undoActionName == "Add Asset")
    #expect(document.changeCount == 1)
    document.undoManager.undo()
    #expect(document.assetNames == ["photo.png"])
    #expect(document.text == "# Trip\n\nDay one.\n")
    document.undoManager.redo()
    #expect(document.assetNames == ["photo 2.png", "photo.png"])
    #expect(document.text.hasSuffix("![photo 2](assets/photo%202.png)\n"))
    // Inserted at an offset, a non-image becomes a plain link.
    try document.addAsset(Data("x".utf8), named: "data.csv", at: 0)
    #expect(document.text.hasPrefix("[data](assets/data.csv)# Trip"))
    try await document.save()
    let read = try TextBundle(url: url)
    #expect(read.assetNames == ["data.csv", "photo 2.png", "photo.png"])
    #expect(read.asset(named: "photo 2.png") == png)
  }

  @Test func badAssetsAreRefusedAndChangeNothing() async throws {
    let document = try #require(try await controller().openDocument(at: makeBundle()) as? TextBundleDocument)
    for name in ["", ".", "..", "a/b.png", "nul\0.png", String(repeating: "x", count: 300)] {
      #expect(throws: QuireError.self) { try document.addAsset(png, named: name) }
    }
    #expect(throws: QuireError.self) { try document.addAsset(png, named: "a.png", at: 10_000) }
    #expect(throws: QuireError.self) { try document.addAsset(png, named: "a.png", at: -1) }
    #expect(document.assetNames == ["photo.png"])
    #expect(document.changeCount == 0)
    #expect(!document.undoManager.canUndo)
    document.disableEditing()
    #expect(throws: QuireError.self) { try document.addAsset(png, named: "a.png") }
  }

  @Test func aTextpackDocumentRoundTrips() async throws {
    let url = folder.file("Notes.textpack")
    let bundle = TextBundle(text: "packed 旅行\n")
    bundle.addAsset(png, preferredFilename: "p.png")
    try bundle.write(to: url)
    let controller = controller()
    let document = try #require(try await controller.openDocument(at: url) as? TextBundleDocument)
    try document.addAsset(Data("more".utf8), named: "notes.txt")
    try await document.save()
    try await controller.close(document)
    let read = try TextBundle(url: url)
    #expect(read.text == "packed 旅行\n[notes](assets/notes.txt)\n")
    #expect(read.assetNames == ["notes.txt", "p.png"])
    #expect(read.asset(named: "p.png") == png)
    let reopened = try #require(try await controller.openDocument(at: url) as? TextBundleDocument)
    #expect(reopened.text == read.text)
    #expect(TextBundle(text: reopened.text).text == read.text)
  }

  @Test func badPackagesGiveClearErrors() async throws {
    let controller = controller()
    // Missing.
    await #expect(throws: QuireError.self) { try await controller.openDocument(at: self.folder.file("none.textbundle")) }
    // A folder without text.
    let empty = folder.file("Empty.textbundle")
    try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: false)
    await expectQuireError(.invalidContent, reasonContains: "Empty.textbundle") { try await controller.openDocument(at: empty) }
    // Text that is not UTF-8.
    let latin = folder.file("Latin.textbundle")
    try FileManager.default.createDirectory(at: latin, withIntermediateDirectories: false)
    try Data([0x63, 0x61, 0x66, 0xE9]).write(to: latin.appendingPathComponent("text.md"))
    await #expect(throws: QuireError.self) { try await controller.openDocument(at: latin) }
    // A damaged info.json.
    let info = folder.file("Info.textbundle")
    try FileManager.default.createDirectory(at: info, withIntermediateDirectories: false)
    try Data("ok".utf8).write(to: info.appendingPathComponent("text.md"))
    try Data("{not json".utf8).write(to: info.appendingPathComponent("info.json"))
    await #expect(throws: QuireError.self) { try await controller.openDocument(at: info) }
    // A regular file named .textbundle, and a textpack that is not a zip (or is empty or truncated).
    let file = try folder.write("plain", to: "File.textbundle")
    await #expect(throws: QuireError.self) { try await controller.openDocument(at: file) }
    for (name, bytes) in [("Bad.textpack", Data("not a zip".utf8)), ("Empty.textpack", Data())] {
      let url = folder.file(name)
      try bytes.write(to: url)
      await #expect(throws: QuireError.self) { try await controller.openDocument(at: url) }
    }
    let good = folder.file("Good.textpack")
    try TextBundle(text: "t").write(to: good)
    let truncated = folder.file("Truncated.textpack")
    try Data(try Data(contentsOf: good).prefix(40)).write(to: truncated)
    await #expect(throws: QuireError.self) { try await controller.openDocument(at: truncated) }
    #expect(controller.documents.isEmpty)
  }

  /// A document opened directly: no version store, so injected faults hit only the package write.
  func openDirectly(_ url: URL) async throws -> TextBundleDocument {
    let document = try await openQuietly(TextBundleDocument(fileURL: url))
    try document.replaceText(with: "new text")
    try document.addAsset(Data("extra".utf8), named: "extra.txt")
    return document
  }

  @Test func aFailedPackageSaveLeavesTheOldOrTheNewPackageWhole() async throws {
    // Count the calls of one clean save, then fail each of them in turn.
    let counter = FaultPlan(scope: folder.url.path)
    let probe = try await openDirectly(try makeBundle("Probe.textbundle"))
    try await counter.run { try await probe.save() }
    var keptOld = 0
    // The writer's steps. Opens and reads are left out: the one plan also reaches the package
    // fingerprint check before the save (FileReader), whose failures are not the writer's.
    for operation in SystemStep.allCases where ![.inspect, .openFolder, .open, .read].contains(operation) {
      for occurrence in 1...max(1, counter.callCounts[operation] ?? 0) {
        let url = try makeBundle("Trip-\(operation)-\(occurrence).textbundle")
        let document = try await openDirectly(url)
        let faults = FaultPlan(failing: operation, with: .noSpace, occurrence: occurrence, under: folder.url.path)
        var failed = false
        do {
          try await faults.run { try await document.save() }
        } catch let error as QuireError {
          failed = true
          #expect(error.reason.contains("Trip-"))
          #expect(document.documentState.contains(.savingError))
          #expect(document.hasUnsavedChanges)
        }
        let onDisk = try TextBundle(url: url)
        if onDisk.text == "# Trip\n\nDay one.\n" {
          #expect(failed, "\(operation) #\(occurrence): the save reported success but the old package is there")
          #expect(onDisk.assetNames == ["photo.png"])
          #expect(onDisk.asset(named: "photo.png") == png)
          keptOld += 1
        } else {
          #expect(onDisk.text == document.text, "\(operation) #\(occurrence)")
          #expect(onDisk.assetNames == ["extra.txt", "photo.png"])
        }
        #expect(names(in: folder.url).filter { $0.hasPrefix(".Trip") }.isEmpty, "leftovers after \(operation) #\(occurrence)")
        // The edits are kept: saving again (no fault) writes them.
        if failed {
          try await document.save()
          #expect(try TextBundle(url: url).text == "new text\n[extra](assets/extra.txt)\n")
        }
      }
    }
    #expect(keptOld > 5)
  }

  /// Kills a process inside a Document.save() of a TextBundleDocument, held at a chosen step:
  /// the package on disk is always one generation, whole.
  @Test func killDuringADocumentSaveLeavesOldOrNewWhole() async throws {
    let url = folder.file("Killed.textbundle")
    let files = 30
    let size = 16 * 1024
    let bundle = TextBundle(text: "generation 2\n")
    for index in 0..<files { bundle.addAsset(Data(repeating: 2, count: size), preferredFilename: "file-\(index).bin") }
    try bundle.write(to: url)
    let holds: [(SystemStep, Int)] = [(.write, 1), (.write, files / 2), (.write, files + 1), (.rename, 1)]
    for (step, occurrence) in holds {
      let helper = try TestHelper.start(["save-bundle-document", url.path, "\(files)", "\(size)", step.rawValue, "\(occurrence)"])
      #expect(await helper.waitForLine(startingWith: "holding") != nil, "the helper never reached \(step) #\(occurrence)")
      await helper.killAndAwaitExit()
      let read = try TextBundle(url: url)
      let generation: UInt8 = read.text == "generation 1\n" ? 1 : 2
      #expect(read.text == "generation \(generation)\n", "killed at \(step) #\(occurrence)")
      #expect(read.assetNames.count == files)
      for name in read.assetNames {
        #expect(read.asset(named: name) == Data(repeating: generation, count: size), "\(name), killed at \(step) #\(occurrence)")
      }
      #expect(!FileWrapper.removeLeftovers(besides: url).isEmpty, "killed at \(step) #\(occurrence), yet no save was under way")
      #expect(names(in: folder.url) == ["Killed.textbundle"])
    }
  }

  @Test func aPackageChangedOnDiskReloadsWhenClean() async throws {
    let url = try makeBundle()
    let document = try #require(try await controller().openDocument(at: url) as? TextBundleDocument)
    #expect(try await document.checkForChangesOnDisk() == .unchanged)
    try Data("changed elsewhere".utf8).write(to: url.appendingPathComponent("text.md"))
    #expect(try await document.checkForChangesOnDisk() == .reloaded)
    #expect(document.text == "changed elsewhere")
    try document.replaceText(with: "mine")
    try Data("theirs".utf8).write(to: url.appendingPathComponent("text.md"))
    await #expect(throws: QuireError.self) { try await document.save() }
    #expect(document.documentState.contains(.inConflict))
    try await document.resolveConflict(.takeTheirs)
    #expect(document.text == "theirs")
    // Keep both: their package is copied beside, whole; merging a package is refused.
    try document.replaceText(with: "mine again")
    try Data("theirs again".utf8).write(to: url.appendingPathComponent("text.md"))
    await #expect(throws: QuireError.self) { try await document.save() }
    await #expect(throws: QuireError.self) { try await document.resolveConflict(.merge) }
    let outcome = try await document.resolveConflict(.keepBoth)
    let copy = try #require(outcome.copyURL)
    #expect(copy.lastPathComponent.hasPrefix("Trip (conflicted copy "))
    #expect(try TextBundle(url: copy).text == "theirs again")
    #expect(try TextBundle(url: copy).asset(named: "photo.png") == png)
    try await document.save()
    #expect(try TextBundle(url: url).text == "mine again")
  }

  // MARK: What a line editor needs (the quire REPL)

  @Test func anAssetAddedAsALineIsOneUndoableStep() async throws {
    let url = try makeBundle(text: "one\ntwo")
    let document = try #require(try await controller().openDocument(at: url) as? TextBundleDocument)
    try document.addAsset(png, named: "map.png", asLineAt: 1)
    #expect(document.text == "one\n![map](assets/map.png)\ntwo")
    #expect(document.undoManager.undoActionName == "Add Asset")
    // At the end, after a last line without a newline: that line is ended first.
    try document.addAsset(Data("x".utf8), named: "notes.csv", asLineAt: document.lineCount)
    #expect(document.text == "one\n![map](assets/map.png)\ntwo\n[notes](assets/notes.csv)\n")
    document.undoManager.undo()
    document.undoManager.undo()
    #expect(document.text == "one\ntwo")
    #expect(document.assetNames == ["photo.png"])
    // Outside the text, or a bad name: refused, nothing changes.
    #expect(throws: QuireError.self) { try document.addAsset(png, named: "far.png", asLineAt: 3) }
    #expect(throws: QuireError.self) { try document.addAsset(png, named: "a/b.png", asLineAt: 0) }
    #expect(throws: QuireError.self) { try document.addAsset(png, named: "neg.png", asLineAt: -1) }
    #expect(document.assetNames == ["photo.png"])
    #expect(!document.hasUnsavedChanges)
  }

  @Test func aNewDocumentOpensEmptyAndItsFirstSaveCreatesThePackage() async throws {
    let url = folder.file("Fresh.textbundle")
    let document = quiet(TextBundleDocument(fileURL: url))
    try document.openNew()
    #expect(!document.documentState.contains(.closed))
    #expect(document.text == "")
    #expect(!FileManager.default.fileExists(atPath: url.path))
    try document.insertLines(["Hello"], at: 0)
    try await document.save()
    #expect(try TextBundle(url: url).text == "Hello\n")
    #expect(names(in: url) == ["assets", "info.json", "text.md"])
  }

  @Test func revertingUndoablyTakesTheDiskPackageAndUndoBringsMineBack() async throws {
    let url = try makeBundle()
    let document = try #require(try await controller().openDocument(at: url) as? TextBundleDocument)
    try document.replaceText(with: "mine\n")
    // Someone else changes the package's text and adds an asset.
    try Data("theirs\n".utf8).write(to: url.appendingPathComponent("text.md"))
    try png.write(to: url.appendingPathComponent("assets/theirs.png"))
    #expect(try await document.checkForChangesOnDisk() == .conflict)
    try await document.revertUndoably(named: "revert")
    #expect(document.text == "theirs\n")
    #expect(document.assetNames == ["photo.png", "theirs.png"])
    #expect(!document.hasUnsavedChanges)
    #expect(!document.documentState.contains(.inConflict))
    #expect(document.undoManager.undoActionName == "revert")
    document.undoManager.undo()
    #expect(document.text == "mine\n")
    #expect(document.assetNames == ["photo.png"])
    #expect(document.hasUnsavedChanges)
    // Saving now replaces theirs without a conflict: the document read it.
    try await document.save()
    #expect(try TextBundle(url: url).text == "mine\n")
    #expect(try TextBundle(url: url).assetNames == ["photo.png"])
  }

  @Test func aTextpackInConflictMergesItsText() async throws {
    let url = folder.file("Notes.textpack")
    try TextBundle(text: "one\ntwo\nthree\n").write(to: url)
    let document = try #require(try await controller().openDocument(at: url) as? TextBundleDocument)
    try document.replaceLines(in: 0..<1, with: ["ONE"])
    let theirs = TextBundle(text: "one\ntwo\nTHREE\n")
    theirs.addAsset(png, preferredFilename: "theirs.png")
    try theirs.write(to: url)
    #expect(try await document.checkForChangesOnDisk() == .conflict)
    let outcome = try await document.resolveConflict(.merge)
    #expect(outcome.mergeConflicts == 0)
    #expect(document.text == "ONE\ntwo\nTHREE\n")
    try await document.save()
    #expect(try TextBundle(url: url).text == "ONE\ntwo\nTHREE\n")
  }

  @Test func aPackagesUnsavedTextIsAutosavedAndRecoveredWithItsAssets() async throws {
    let url = try makeBundle()
    let store = RecoveryStore(folder: folder.file("recovery"))
    let first = TextBundleDocument(fileURL: url)
    first.recoveryStore = store
    first.autosavePolicy = nil
    try await first.open()
    try first.replaceText(with: "# Trip\n\nDay one, unsaved.\n")
    try await first.autosave()
    let recovered = try #require(store.recoveredVersion(for: url))
    #expect(try recovered.contents() == Data("# Trip\n\nDay one, unsaved.\n".utf8))
    // A crash: a second document opens the package and is offered the text.
    let second = TextBundleDocument(fileURL: url)
    second.recoveryStore = store
    second.autosavePolicy = nil
    try await second.open()
    #expect(second.recoveredVersion != nil)
    try second.restoreRecoveredVersion(asChangeNamed: "recover")
    #expect(second.text == "# Trip\n\nDay one, unsaved.\n")
    #expect(second.assetNames == ["photo.png"])
    #expect(second.recoveredVersion == nil)
    #expect(second.hasUnsavedChanges)
    second.undoManager.undo()
    #expect(second.text == "# Trip\n\nDay one.\n")
    #expect(!second.hasUnsavedChanges)
  }
}
