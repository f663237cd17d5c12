// Apple's override points and the members issue 28 added, used as Apple's documentation shows
// them. The compile-time side (overriding from another module) is Examples/NotesApp's; these
// check what the members do.
import Foundation
import QuireDocuments
import QuireFormats
import QuirePDF
import QuireTestSupport
import QuireTypes
import Synchronization
import Testing

/// What a completion handler handed back, for the test to read after it ran.
@MainActor
final class Handed<Value> {
  var value: Value?
}

/// An undo manager subclass that counts what the document layer asks of it.
final class CountingUndoManager: UndoManager {
  var undos = 0
  override func undo() {
    undos += 1
    super.undo()
  }
}

/// A UIDocument whose subclass overrides Apple's points.
final class OverridingDocument: UIDocument {
  var text = ""
  var savedThroughOverride = 0
  var overriddenType: String?

  override func contents(forType typeName: String) throws -> Any { Data(text.utf8) }
  override func load(fromContents contents: Any, ofType typeName: String?) throws {
    text = String(decoding: contents as? Data ?? Data(), as: UTF8.self)
  }
  override func save(to url: URL, for saveOperation: UIDocument.SaveOperation, completionHandler: (@MainActor (Bool) -> Void)? = nil) {
    savedThroughOverride += 1
    super.save(to: url, for: saveOperation, completionHandler: completionHandler)
  }
  override var fileType: String? { overriddenType ?? super.fileType }
}

/// An AppKit document read at init.
final class BytesDocument: NSDocument {
  var bytes = Data()
  override func data(ofType typeName: String) throws -> Data { bytes }
  override func read(from data: Data, ofType typeName: String) throws { bytes = data }
}

@Suite("Apple's override points and members")
@MainActor
final class AppleOverridePointsTests: MainActorFolderSuite {
  @Test func theAsyncBoolSaveRunsThroughTheOverriddenCompletionHandlerForm() async throws {
    let url = folder.file("note.txt")
    let document = OverridingDocument(fileURL: url)
    document.text = "hello"
    let saved = await document.save(to: url, for: .forCreating)
    #expect(saved)
    #expect(document.savedThroughOverride == 1)
    #expect(try String(contentsOf: url, encoding: .utf8) == "hello")
    #expect(document.fileType == "public.plain-text")
    document.overriddenType = "com.example.note"
    #expect(document.fileType == "com.example.note")
    _ = await document.close()
  }

  @Test func aReplacedUndoManagerIsTheOneTheDocumentCountsChangesWith() async throws {
    let url = try folder.write("a\n", to: "a.txt")
    let document = OverridingDocument(fileURL: url)
    let manager = CountingUndoManager()
    document.undoManager = manager
    #expect(await document.open())
    document.undoManager.registerUndo(withTarget: document) { $0.text = "a\n" }
    document.text = "b\n"
    #expect(document.hasUnsavedChanges)
    document.undoManager.undo()
    #expect(manager.undos == 1)
    #expect(document.text == "a\n")
    #expect(!document.hasUnsavedChanges)
    document.undoManager = nil
    #expect(document.undoManager !== manager, "setting nil puts a fresh manager in place")
    _ = await document.close()
  }

  @Test func undoManagerPostsApplesNotifications() {
    let manager = UndoManager()
    let names = Mutex<[Notification.Name]>([])
    let observers = [Notification.Name.NSUndoManagerDidCloseUndoGroup, .NSUndoManagerWillUndoChange, .NSUndoManagerDidUndoChange].map { name in
      NotificationCenter.default.addObserver(forName: name, object: manager, queue: nil) { note in
        names.withLock { $0.append(note.name) }
      }
    }
    defer { observers.forEach(NotificationCenter.default.removeObserver) }
    let target = NSObject()
    manager.registerUndo(withTarget: target) { _ in }
    manager.undo()
    #expect(names.withLock { $0 } == [.NSUndoManagerDidCloseUndoGroup, .NSUndoManagerWillUndoChange, .NSUndoManagerDidUndoChange])
  }

  @Test func appKitsInitReadsTheFileAndChangeTypesCount() throws {
    let url = try folder.write("abc", to: "b.txt")
    let document = try BytesDocument(contentsOf: url, ofType: "public.plain-text")
    #expect(document.bytes == Data("abc".utf8))
    #expect(!document.documentState.contains(.closed))
    document.updateChangeCount(.changeDone)
    #expect(document.isDocumentEdited)
    document.updateChangeCount(.changeCleared)
    #expect(!document.isDocumentEdited)
    #expect(document.fileNameExtension(forType: "net.daringfireball.markdown", saveOperation: .saveAsOperation) == "md")
    #expect(throws: QuireError.self) { try BytesDocument(contentsOf: self.folder.file("missing.txt"), ofType: "public.plain-text") }
  }

  @Test func nsDocumentControllerSpellingsOpenAndKeepDocuments() async throws {
    let url = try folder.write("text\n", to: "c.txt")
    let controller = DocumentController(stateFolder: folder.file("state"))
    controller.autosavePolicy = nil
    #expect(controller.documentClass(forType: "public.plain-text").map(ObjectIdentifier.init) == ObjectIdentifier(PlainTextDocument.self))
    #expect(try controller.typeForContents(of: url) == "public.plain-text")
    let made = try controller.makeDocument(withContentsOf: url, ofType: "public.plain-text")
    #expect(made.documentState.contains(.closed))
    controller.addDocument(made)
    #expect(controller.documents.count == 1)
    controller.removeDocument(made)
    #expect(controller.documents.isEmpty)
    let handed = Handed<(Document?, Bool, Bool)>()
    controller.openDocument(withContentsOf: url, display: true) { document, wasOpen, error in
      handed.value = (document, wasOpen, error == nil)
    }
    #expect(await eventually { handed.value != nil })
    let (document, wasOpen, succeeded) = try #require(handed.value)
    #expect(succeeded && !wasOpen)
    #expect((document as? PlainTextDocument)?.text == "text\n")
    #expect(controller.currentDocument === document)
    #expect(throws: QuireError.self) { try controller.makeDocument(withContentsOf: url, ofType: "com.example.unknown") }
    _ = await controller.closeAllDocuments()
  }

  @Test func documentAttributesSetAreWrittenToTheFile() throws {
    let url = try writePDF(to: folder.file("in.pdf"), pages: ["One"], title: "Old title")
    let document = try #require(PDFDocument(url: url))
    #expect(document.documentAttributes?[PDFDocumentAttribute.titleAttribute.rawValue] as? String == "Old title")
    var attributes = document.documentAttributes ?? [:]
    attributes[PDFDocumentAttribute.titleAttribute.rawValue] = "Nouveau titre é"
    attributes[PDFDocumentAttribute.authorAttribute.rawValue] = "Ada"
    document.documentAttributes = attributes
    let out = folder.file("out.pdf")
    try document.write(to: out)
    let reread = try #require(PDFDocument(url: out))
    #expect(reread.documentAttributes?[PDFDocumentAttribute.titleAttribute.rawValue] as? String == "Nouveau titre é")
    #expect(reread.documentAttributes?[PDFDocumentAttribute.authorAttribute.rawValue] as? String == "Ada")
  }

  @Test func aBlankPageAndACopiedPageGoIntoAnotherDocument() throws {
    let url = try writePDF(to: folder.file("two.pdf"), pages: ["First page", "Second page"])
    let document = try #require(PDFDocument(url: url))
    let copy = try #require(document.page(at: 1)?.copy() as? PDFPage)
    #expect(copy.string?.contains("Second page") == true)
    try document.removePage(at: 1)
    #expect(copy.string?.contains("Second page") == true, "a copy does not follow its original")
    let blank = PDFPage()
    #expect(blank.bounds(for: .mediaBox).size == CGSize(width: 612, height: 792))
    let other = PDFDocument()
    other.insert(blank, at: 0)
    other.insert(copy, at: 1)
    #expect(other.pageCount == 2)
    #expect(other.page(at: 1)?.string?.contains("Second page") == true)
  }

  @Test func aSelectionKnowsItsPagesAndSplitsByLine() throws {
    let url = try writePDF(to: folder.file("lines.pdf"), pages: ["alpha beta\ngamma beta delta"])
    let document = try #require(PDFDocument(url: url))
    let matches = document.findString("beta", withOptions: [])
    #expect(matches.count == 2)
    let first = try #require(matches.first)
    #expect(first.pages.count == 1)
    #expect(first.pages.first?.label == "1")
    let width = try #require(first.selectedBounds.first?.width)
    first.extendForLineBoundaries()
    #expect(try #require(first.selectedBounds.first?.width) > width, "the area grows to the whole line")
    #expect(first.selectionsByLine().count == 1)
  }

  @Test func anOutlineBuiltInCodeHoldsItsChildren() {
    let root = PDFOutline()
    let chapter = PDFOutline()
    chapter.label = "Chapter 1"
    root.insertChild(chapter, at: 0)
    let section = PDFOutline()
    section.label = "1.1"
    chapter.insertChild(section, at: 5)
    #expect(root.numberOfChildren == 1)
    #expect(root.child(at: 0)?.label == "Chapter 1")
    #expect(section.parent === chapter && section.index == 0)
    section.removeFromParent()
    #expect(chapter.numberOfChildren == 0)
  }

  @Test func appleCoreTypeConstantsNameApplesIdentifiers() {
    #expect(UTType.mpeg2TransportStream.identifier == "public.mpeg-2-transport-stream")
    #expect(UTType.aiff.identifier == "public.aiff-audio")
    #expect(UTTypeReference.cHeader.identifier == "public.c-header")
  }
}
