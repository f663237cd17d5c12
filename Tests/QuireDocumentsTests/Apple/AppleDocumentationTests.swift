// Written from Apple's documentation (UIDocument, NSFileVersion, PDFKit, UndoManager), not
// from Quire's own API: each test uses the calls as Apple's docs show them.
import Foundation
import QuireCoordination
import QuireDocuments
import QuireFormats
import QuirePDF
import QuireTestSupport
import QuireTypes
import Testing

/// The subclass of the "Document-Based App Programming Guide for iOS" (Listing 4-1/4-2):
/// String type names, contents returned as `Any`.
final class MyDocument: UIDocument {
  var userText: String? = ""

  override func contents(forType typeName: String) throws -> Any {
    if let content = userText {
      let length = content.lengthOfBytes(using: .utf8)
      return NSData(bytes: content, length: length)
    } else {
      return Data()
    }
  }

  override func load(fromContents contents: Any, ofType typeName: String?) throws {
    if let userContent = contents as? Data {
      userText = String(data: userContent, encoding: .utf8)
    }
  }
}

/// A package document (UIDocument with a FileWrapper), as Apple's guide shows for
/// documents made of several files.
final class NotesPackage: UIDocument {
  var text = ""
  var image = Data()

  override func contents(forType typeName: String) throws -> Any {
    let wrapper = FileWrapper(directoryWithFileWrappers: [:])
    wrapper.addRegularFile(withContents: Data(text.utf8), preferredFilename: "text.txt")
    wrapper.addRegularFile(withContents: image, preferredFilename: "image.bin")
    return wrapper
  }

  override func load(fromContents contents: Any, ofType typeName: String?) throws {
    guard let wrapper = contents as? FileWrapper, let children = wrapper.fileWrappers else { return }
    text = (children["text.txt"]?.regularFileContents).map { String(decoding: $0, as: UTF8.self) } ?? ""
    image = children["image.bin"]?.regularFileContents ?? Data()
  }
}

/// AppKit's document template (Xcode's "Document" class): a designated `override init()`,
/// `data(ofType:)` and `read(from:ofType:)` with String type names.
final class TemplateDocument: NSDocument {
  var text = ""
  var initialised = 0

  override init() {
    super.init()
    // Add your subclass-specific initialization here.
    initialised += 1
  }

  override class var autosavesInPlace: Bool { true }

  override func data(ofType typeName: String) throws -> Data { Data(text.utf8) }

  override func read(from data: Data, ofType typeName: String) throws { text = String(decoding: data, as: UTF8.self) }
}

@Suite("Apple's documentation: UIDocument, NSFileVersion, PDFKit, UndoManager")
@MainActor
final class AppleDocumentationTests: MainActorFolderSuite {
  /// Turns a completion-handler call into a value.
  private func result(_ start: (@escaping @MainActor (Bool) -> Void) -> Void) async -> Bool {
    await withCheckedContinuation { continuation in start { continuation.resume(returning: $0) } }
  }

  @Test func aUIDocumentSubclassCreatesOpensEditsAndCloses() async throws {
    let url = folder.file("note.txt")
    final class States: @unchecked Sendable { var all: [UIDocument.State] = [] }  // written on the main actor only
    let states = States()
    let document = MyDocument(fileURL: url)
    let observer = NotificationCenter.default.addObserver(forName: UIDocument.stateChangedNotification, object: document, queue: nil) { _ in
      MainActor.assumeIsolated { states.all.append(document.documentState) }
    }
    defer { NotificationCenter.default.removeObserver(observer) }
    document.userText = "Hello from UIDocument"
    let created = await result { document.save(to: url, for: .forCreating, completionHandler: $0) }
    #expect(created, "\(document.lastError.map { "\($0)" } ?? "")")
    #expect(document.documentState == .normal)
    #expect(states.all.contains(.normal))
    #expect(document.fileModificationDate != nil)
    #expect(try String(contentsOf: url, encoding: .utf8) == "Hello from UIDocument")
    // Saving for creating again refuses: the file exists.
    let second = MyDocument(fileURL: url)
    #expect(await result { second.save(to: url, for: .forCreating, completionHandler: $0) } == false)

    document.userText = "Edited"
    document.updateChangeCount(.done)
    #expect(document.hasUnsavedChanges)
    #expect(await result { document.close(completionHandler: $0) })
    #expect(document.documentState.contains(.closed))
    #expect(try String(contentsOf: url, encoding: .utf8) == "Edited")

    let reopened = MyDocument(fileURL: url)
    #expect(await result { reopened.open(completionHandler: $0) })
    #expect(reopened.userText == "Edited")
    if await reopened.open() {}  // already open: still true
    #expect(await reopened.close())
  }

  @Test func aFileWrapperDocumentIsSavedAsAPackage() async throws {
    let type = UTType(exportedAs: "org.quire.test.notes-package", conformingTo: .package)
    let url = folder.file("notes.notespkg")
    let document = NotesPackage(fileURL: url, contentType: type)
    document.text = "text"
    document.image = Data([1, 2, 3])
    #expect(await document.save(to: url, for: .forCreating))
    var isFolder: ObjCBool = false
    #expect(FileManager.default.fileExists(atPath: url.appendingPathComponent("text.txt").path, isDirectory: &isFolder) && !isFolder.boolValue)
    #expect(await document.close())
    let reopened = NotesPackage(fileURL: url, contentType: type)
    let opened: Bool = await reopened.open()
    #expect(opened)
    #expect(reopened.text == "text" && reopened.image == Data([1, 2, 3]))
    #expect(await reopened.close())
  }

  @Test func aConflictIsResolvedWithNSFileVersionAsAppleShows() async throws {
    let url = try folder.write("base\n", to: "conflict.txt")
    let document = MyDocument(fileURL: url)
    document.autosavePolicy = nil
    let opened: Bool = await document.open()
    #expect(opened)
    document.userText = "mine\n"
    document.updateChangeCount(.done)
    // Another writer saves the file (coordinated, as another app would).
    try await NSFileCoordinator().coordinate(writingItemAt: url) { url in try Data("theirs\n".utf8).write(to: url) }
    try #require(await eventually { document.documentState.contains(.inConflict) })

    // Apple's pattern: pick the conflict version, replace the item with it, mark resolved,
    // remove the other versions.
    let conflicts = try #require(NSFileVersion.unresolvedConflictVersionsOfItem(at: url))
    try #require(conflicts.count == 1)
    #expect(conflicts[0].isConflict && !conflicts[0].isResolved)
    #expect(conflicts[0].originatorNameComponents == nil)  // Apple gives it for iCloud versions only
    #expect(NSFileVersion.currentVersionOfItem(at: url)?.url == url.standardizedFileURL)
    try conflicts[0].replaceItem(at: url, options: [])
    for version in conflicts { version.isResolved = true }
    try NSFileVersion.removeOtherVersionsOfItem(at: url)
    #expect(!document.documentState.contains(.inConflict))
    #expect(document.userText == "theirs\n")
    #expect(NSFileVersion.unresolvedConflictVersionsOfItem(at: url)?.isEmpty == true)
    #expect(await document.close())
  }

  @Test func pdfKitPageEdits() throws {
    let url = try writePDF(to: folder.file("three.pdf"), pages: (1...3).map { "PAGE\($0) marker" }, title: "PDFKit test", outline: ["Chapter"])
    let other = try writePDF(to: folder.file("other.pdf"), pages: ["OTHER1 marker"])

    let document = try #require(PDFDocument(data: try Data(contentsOf: url)))
    let extra = try #require(PDFDocument(data: try Data(contentsOf: other)))
    #expect(document.pageCount == 3)
    let first = try #require(document.page(at: 0))
    #expect(first.string?.contains("PAGE1") == true)
    #expect(document.index(for: first) == 0)
    #expect(document.page(at: 3) == nil)
    // Remove the second page, put the other document's page first, swap the last two,
    // and turn the first page of the original a quarter.
    // PDFKit's removePage/exchangePage do not throw; Quire's say why they fail (write `try`).
    try document.removePage(at: 1)
    document.insert(try #require(extra.page(at: 0)), at: 0)
    try document.exchangePage(at: 1, withPageAt: 2)
    first.rotation = 90
    #expect(document.pageCount == 3)
    let data = try #require(document.dataRepresentation())
    let saved = try #require(PDFDocument(data: data))
    let words = (0..<saved.pageCount).compactMap { saved.page(at: $0)?.string?.components(separatedBy: .whitespacesAndNewlines).first }
    #expect(words == ["OTHER1", "PAGE3", "PAGE1"])
    #expect(saved.page(at: 2)?.rotation == 90)
    // The turned page shows its sides swapped.
    let upright = try #require(saved.page(at: 1)?.bounds(for: .cropBox))
    let turned = try #require(saved.page(at: 2)?.bounds(for: .cropBox))
    #expect(turned.width == upright.height && turned.height == upright.width)
    #expect(document.outlineRoot?.child(at: 0)?.label == "Chapter")
    #expect(document.documentAttributes?[PDFDocumentAttribute.titleAttribute.rawValue] as? String == "PDFKit test")
    #expect(document.findString("page3", withOptions: .caseInsensitive).map(\.pageIndex) == [1])
    let written = folder.file("written.pdf")
    let wrote: Bool = document.write(to: written)
    #expect(wrote)
  }

  @Test func undoManagerAsAppleDocumentsIt() async throws {
    final class Counter { var value = 0 }
    let counter = Counter()
    let undoManager = UndoManager()
    undoManager.groupsByEvent = true
    func increment() {
      counter.value += 1
      undoManager.registerUndo(withTarget: counter) { $0.value -= 1 }
    }
    increment()
    increment()
    undoManager.setActionName("Increment")
    // Quire closes the event group at the end of the main-actor turn.
    #expect(await eventually { undoManager.groupingLevel == 0 })
    #expect(undoManager.undoMenuItemTitle == "Undo Increment")
    #expect(undoManager.undoMenuTitle(forUndoActionName: "Typing") == "Undo Typing")
    #expect(undoManager.redoMenuTitle(forUndoActionName: "") == "Redo")
    undoManager.undo()
    #expect(counter.value == 0)  // both increments were one step
    undoManager.setActionIsDiscardable(true)
    #expect(undoManager.undoActionIsDiscardable)
    undoManager.runLoopModes = [.default]
    #expect(undoManager.runLoopModes == [.default])
  }

  @Test func exportedAndImportedTypes() {
    let exported = UTType(exportedAs: "org.quire.test.exported")
    #expect(exported.identifier == "org.quire.test.exported")
    #expect(exported.conforms(to: .data))
    let imported = UTType(importedAs: "org.quire.test.imported", conformingTo: .text)
    #expect(imported.conforms(to: .text))
    #expect(UTType(exportedAs: "public.plain-text") == .plainText)
  }

  @Test func openAndRevertAreUIKitsAsyncBoolForms() async throws {
    let url = try folder.write("first", to: "revert.txt")
    let document = MyDocument(fileURL: url)
    document.autosavePolicy = nil
    let opened = await document.open()  // UIKit's `open() async -> Bool`, no annotation needed
    #expect(opened && document.userText == "first")
    try Data("second".utf8).write(to: url)
    let reverted = await document.revert(toContentsOf: document.fileURL)
    #expect(reverted && document.userText == "second")
    // A file that is not there: false, and the error goes to handleError (kept in lastError).
    let missing = folder.file("missing.txt")
    let failed = await document.revert(toContentsOf: missing)
    #expect(!failed)
    expectQuireError(.fileMissing, in: document.lastError)
    #expect(document.fileURL == url.standardizedFileURL && document.userText == "second")
    await document.close()  // the result may be left unused, as in UIKit
    #expect(document.documentState.contains(.closed))

    let absent = MyDocument(fileURL: missing)
    if await absent.open() { Issue.record("a missing file opened") }
    // Quire's throwing form stays reachable through Document and says why.
    let error = await #expect(throws: QuireError.self) { try await (absent as Document).open() }
    #expect(error?.code == .fileMissing)
  }

  @Test func anNSDocumentSubclassWithOverrideInit() async throws {
    let untitled = TemplateDocument()
    #expect(untitled.initialised == 1)
    #expect(untitled.fileURL.lastPathComponent == "Untitled")
    #expect(TemplateDocument.autosavesInPlace)

    let url = try folder.write("from disk", to: "template.txt")
    // init(fileURL:contentType:) is inherited (it runs the subclass's init()), so documents are
    // still made by class, as DocumentController does.
    let type: Document.Type = TemplateDocument.self
    let document = try #require(type.init(fileURL: url, contentType: .plainText) as? TemplateDocument)
    #expect(document.initialised == 1)
    #expect(document.fileURL == url.standardizedFileURL && document.fileTypeName == "public.plain-text")
    #expect(await document.open())
    #expect(document.text == "from disk")
    document.text = "edited"
    document.updateChangeCount(.done)
    #expect(document.isDocumentEdited)
    #expect(await document.close())
    #expect(try String(contentsOf: url, encoding: .utf8) == "edited")
  }

  @Test func pdfKitInitializersAreFailableAndEmpty() throws {
    let url = try writePDF(to: folder.file("one.pdf"), pages: ["ONLY marker"])
    // init?(url:): a document, or nil for a file that is missing, empty, not a PDF, or a folder.
    let document = try #require(PDFDocument(url: url))
    #expect(document.documentURL == url.standardizedFileURL && document.pageCount == 1)
    #expect(PDFDocument(url: folder.file("missing.pdf")) == nil)
    #expect(PDFDocument(url: try folder.write("", to: "empty.pdf")) == nil)
    #expect(PDFDocument(url: try folder.write("not a pdf", to: "text.pdf")) == nil)
    #expect(PDFDocument(url: folder.url) == nil)
    // init?(data:): no file until saved.
    let fromData = try #require(PDFDocument(data: try Data(contentsOf: url)))
    #expect(fromData.documentURL == nil && fromData.pageCount == 1)
    #expect(PDFDocument(data: Data("%PDF-1.7 broken".utf8)) == nil)
    #expect(PDFDocument(data: Data()) == nil)

    // init(): an empty document, filled with insert(_:at:) as PDFKit's guide does.
    let empty = PDFDocument()
    #expect(empty.pageCount == 0 && empty.documentURL == nil && empty.page(at: 0) == nil)
    #expect(empty.dataRepresentation() == nil)  // nothing to write yet
    #expect(throws: QuireError.self) { try empty.save() }  // no file: save(to:) gives it one
    empty.insert(try #require(document.page(at: 0)), at: 0)
    #expect(empty.pageCount == 1)
    let data = try #require(empty.dataRepresentation())
    let reread = try #require(PDFDocument(data: data))
    #expect(reread.pageCount == 1 && reread.page(at: 0)?.string?.contains("ONLY") == true)
    let saved = folder.file("saved.pdf")
    try empty.save(to: saved)
    #expect(empty.documentURL == saved.standardizedFileURL)
    #expect(PDFDocument(url: saved)?.pageCount == 1)
  }

  @Test func indexPathRowsAndItemsAsUIKitHasThem() {
    var path = IndexPath(row: 2, section: 1)
    #expect(path.row == 2 && path.section == 1 && path.item == 2 && path == [1, 2])
    path.row = 5
    #expect(path == IndexPath(item: 5, section: 1))
  }
}
