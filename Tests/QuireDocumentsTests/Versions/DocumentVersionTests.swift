import Foundation
import QuireDocuments
import QuireFormats
import QuirePDF
import QuireTestSupport
import QuireTypes
import Testing

@Suite("Document versions")
@MainActor
final class DocumentVersionTests: MainActorFolderSuite {
  func controller() -> DocumentController {
    let controller = quietController(in: folder)
    return controller
  }

  /// Acceptance 4, through the Document API.
  @Test func saveFiveTimesRestoreTheSecondUndoTheRestore() async throws {
    let url = try folder.write("v0", to: "notes.md")
    let controller = controller()
    let document = try #require(try await controller.openDocument(at: url) as? MarkdownDocument)
    for number in 1...5 {
      try document.replaceText(with: "v\(number)")
      try await document.save()
    }
    let versions = try document.versions()
    #expect(versions.count == 5)
    let texts = try versions.map { version -> String in
      let opened = try #require(try document.openVersion(version) as? MarkdownDocument)
      return opened.text
    }
    #expect(texts == ["v0", "v1", "v2", "v3", "v4"])
    #expect(versions.allSatisfy { !$0.isPackage && $0.originalPath == url.path })
    try document.restoreVersion(versions[1])
    #expect(document.text == "v1")
    #expect(document.hasUnsavedChanges)
    #expect(document.undoManager.undoActionName == "Restore Version")
    document.undoManager.undo()
    #expect(document.text == "v5")
    #expect(!document.hasUnsavedChanges)
    document.undoManager.redo()
    #expect(document.text == "v1")
    // Earlier edits still undo after the restore is undone.
    document.undoManager.undo()
    document.undoManager.undo()
    #expect(document.text == "v4")
    // The file is untouched until the document is saved.
    #expect(String(decoding: try Data(contentsOf: url), as: UTF8.self) == "v5")
  }

  @Test func aVersionOpensReadOnly() async throws {
    let url = try folder.write("first", to: "notes.txt")
    let document = try #require(try await controller().openDocument(at: url) as? PlainTextDocument)
    try document.replaceText(with: "second")
    try await document.save()
    let version = try #require(try document.versions().first)
    let opened = try #require(try document.openVersion(version) as? PlainTextDocument)
    #expect(opened.text == "first")
    #expect(opened.isReadOnlyVersion)
    #expect(throws: QuireError.self) { try opened.replaceText(with: "edit") }
    await #expect(throws: QuireError.self) { try await opened.save() }
    await #expect(throws: QuireError.self) { try await opened.save(to: self.folder.file("copy.txt"), for: .saveAs) }
    #expect(String(decoding: try Data(contentsOf: url), as: UTF8.self) == "second")
    #expect(!FileManager.default.fileExists(atPath: folder.file("copy.txt").path))
  }

  @Test func withoutAVersionStoreVersionsAreAClearError() async throws {
    let url = try folder.write("text", to: "plain.txt")
    let document = try await openQuietly(PlainTextDocument(fileURL: url))
    try document.replaceText(with: "changed")
    try await document.save()  // saves without keeping versions
    #expect(throws: QuireError.self) { try document.versions() }
  }

  @Test func aBrokenVersionStoreDoesNotStopTheSave() async throws {
    let url = try folder.write("old", to: "notes.txt")
    let document = quiet(PlainTextDocument(fileURL: url))
    // A file where the store's folder should be.
    let blocker = try folder.write("x", to: "blocked")
    document.versionStore = VersionStore(root: blocker.appendingPathComponent("versions"))
    try await document.open()
    try document.replaceText(with: "new")
    try await document.save()
    #expect(String(decoding: try Data(contentsOf: url), as: UTF8.self) == "new")
    #expect(document.lastVersioningError != nil)
  }

  @Test func packageVersionsStoreIdenticalContentOnceAndRestore() async throws {
    let url = folder.file("Trip.textbundle")
    let image = Data(repeating: 0xAB, count: 4096)
    let bundle = TextBundle(text: "one")
    bundle.addAsset(image, preferredFilename: "big.png")
    try bundle.write(to: url)
    let controller = controller()
    let document = try #require(try await controller.openDocument(at: url) as? TextBundleDocument)
    try document.replaceText(with: "two")
    try await document.save()
    try document.replaceText(with: "three")
    try await document.save()
    let versions = try document.versions()
    #expect(versions.count == 2)
    #expect(versions.allSatisfy { $0.isPackage })
    // The image is stored once for both versions.
    let objects = controller.versionStore.root.appendingPathComponent("objects")
    let stored = try FileManager.default.contentsOfDirectory(atPath: objects.path)
    let copies = try stored.filter { try Data(contentsOf: objects.appendingPathComponent($0)) == image }
    #expect(copies.count == 1)
    // Saving unchanged content keeps no new version.
    try await document.save(to: url, for: .saveTo)
    #expect(try document.versions().count == 3)
    try await document.save(to: url, for: .saveTo)
    #expect(try document.versions().count == 3)
    // Restore the first (text "one", with the image), then undo.
    let first = try #require(try document.openVersion(versions[0]) as? TextBundleDocument)
    #expect(first.text == "one")
    #expect(first.asset(named: "big.png") == image)
    try document.addAsset(Data("n".utf8), named: "new.txt")
    try document.restoreVersion(versions[0])
    #expect(document.text == "one")
    #expect(document.assetNames == ["big.png"])
    document.undoManager.undo()
    #expect(document.text == "three\n[new](assets/new.txt)\n")
    #expect(document.assetNames == ["big.png", "new.txt"])
    document.undoManager.undo()
    #expect(document.assetNames == ["big.png"])
  }

  @Test func restoringAPDFVersionIsUndoableWithItsPageHistory() async throws {
    let url = try writePDF(to: folder.file("doc.pdf"), pages: ["P1 text", "P2 text", "P3 text"])
    let document = try #require(try await controller().openDocument(at: url) as? PDFFileDocument)
    try document.removePages(in: 0..<1)
    try await document.save()
    try document.rotatePages(in: 0..<1, by: 90)
    let version = try #require(try document.versions().first)
    try document.restoreVersion(version)
    #expect(document.pageCount == 3)
    document.undoManager.undo()  // the restore
    #expect(document.pageCount == 2)
    #expect(try document.rotation(ofPage: 0) == 90)
    document.undoManager.undo()  // the rotation, made before the restore
    #expect(try document.rotation(ofPage: 0) == 0)
    document.undoManager.undo()  // the deletion
    #expect(document.pageCount == 3)
  }
}

@Suite("Document versions, bad input")
@MainActor
final class DocumentVersionBadInputTests: MainActorFolderSuite {
  @Test func aFolderIsRefusedByATextDocumentWithoutBeingRead() async throws {
    let url = folder.file("notes.txt")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
    let document = quiet(PlainTextDocument(fileURL: url))
    await expectQuireError(.unsupportedType, reasonContains: "notes.txt") { try await document.open() }
  }

  /// `name` holding "one", opened through a quiet controller and saved as "two": one version kept.
  private func savedOnce(_ name: String) async throws -> (DocumentController, PlainTextDocument) {
    let controller = quietController(in: folder)
    let url = try folder.write("one", to: name)
    let document = try #require(try await controller.openDocument(at: url) as? PlainTextDocument)
    try document.replaceText(with: "two")
    try await document.save()
    return (controller, document)
  }

  @Test func aDamagedHistoryOrAMissingVersionGivesAClearError() async throws {
    let (controller, document) = try await savedOnce("notes.txt")
    let version = try #require(try document.versions().first)
    // The stored content disappears: opening or restoring it says so, and nothing changes.
    try FileManager.default.removeItem(at: controller.versionStore.readOnlyURL(of: version))
    let steps = document.undoManager.undoCount
    #expect(throws: QuireError.self) { try document.openVersion(version) }
    #expect(throws: QuireError.self) { try document.restoreVersion(version) }
    #expect(document.text == "two")
    #expect(document.undoManager.undoCount == steps)
    // The history itself is damaged.
    let items = controller.versionStore.root.appendingPathComponent("items")
    for name in try FileManager.default.contentsOfDirectory(atPath: items.path) {
      try Data("{broken".utf8).write(to: items.appendingPathComponent(name))
    }
    #expect(throws: QuireError.self) { try document.versions() }
    // A version of another document's type cannot be restored into this one.
    let pdfDocument = PDFFileDocument(fileURL: folder.file("x.pdf"))
    pdfDocument.versionStore = controller.versionStore
    #expect(throws: QuireError.self) { try pdfDocument.restoreVersion(version) }
  }

  @Test func versionsOfADeletedFileAreStillListed() async throws {
    let (_, document) = try await savedOnce("gone.txt")
    let url = document.fileURL
    try FileManager.default.removeItem(at: url)
    #expect(try document.versions().count == 1)
    try document.restoreVersion(try #require(try document.versions().first))
    #expect(document.text == "one")
  }
}
