import Foundation
import QuireDocuments

/// A text note, as UIKit's "Document-based app programming" shows it: `contents(forType:)`
/// and `load(fromContents:ofType:)`, undo through the document's undo manager.
class NoteDocument: UIDocument {
  var text = ""
  private(set) var handledErrors: [Error] = []
  private(set) var changeNotices = 0

  override init(fileURL url: URL) {
    super.init(fileURL: url)
    undoManager = LoggingUndoManager()
  }

  override func contents(forType typeName: String) throws -> Any {
    Data(text.utf8)
  }

  override func load(fromContents contents: Any, ofType typeName: String?) throws {
    guard let data = contents as? Data, let text = String(data: data, encoding: .utf8) else {
      throw CocoaError(.fileReadCorruptFile)
    }
    self.text = text
  }

  /// Replaces the text, undoably.
  func setText(_ newText: String) {
    let oldText = text
    undoManager.registerUndo(withTarget: self) { document in
      document.setText(oldText)
    }
    undoManager.setActionName("Typing")
    text = newText
  }

  override func handleError(_ error: Error, userInteractionPermitted: Bool) {
    handledErrors.append(error)
    super.handleError(error, userInteractionPermitted: userInteractionPermitted)
  }

  override func presentedItemDidChange() {
    changeNotices += 1
    super.presentedItemDidChange()
  }

  override var fileModificationDate: Date? {
    get { super.fileModificationDate }
    set { super.fileModificationDate = newValue }
  }
}

/// An AppKit document: `data(ofType:)` and `read(from:ofType:)`, autosaving in place.
class PlainTextFile: NSDocument {
  var contents = Data()

  override init() {
    super.init()
  }

  override class var autosavesInPlace: Bool { true }

  override func data(ofType typeName: String) throws -> Data {
    contents
  }

  override func read(from data: Data, ofType typeName: String) throws {
    contents = data
  }

  override func updateChangeCount(_ change: NSDocument.ChangeType) {
    super.updateChangeCount(change)
  }
}
