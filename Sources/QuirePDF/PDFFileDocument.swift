public import Foundation
public import QuireDocuments
public import QuireTypes

/// A PDF file as a ``Document``: a ``PDFDocument`` for reading and page operations, with the
/// document's undo manager, change count, safe save, conflicts and versions.
///
/// **Why a wrapper, not a subclass.** ``PDFDocument`` mirrors PDFKit's class of that name: a
/// standalone model made from a URL (or bytes) and usable from any one task, as PDFKit's is
/// used outside any `UIDocument`. ``Document`` is a main-actor object with a life cycle
/// (closed, open, in conflict) and a required `init(fileURL:contentType:)` that reads nothing.
/// Making the model a `Document` would tie every PDF reader (Quick Look, search, the CLI's
/// `pdf` commands) to the main actor and to that life cycle. So the document owns a model —
/// as an app's `UIDocument` subclass owns PDFKit's `PDFDocument` — and replaces it whenever
/// its file is read.
///
/// **Undo.** Each page operation is applied to the model and registered on the document's
/// ``Document/undoManager`` under the operation's name ("Delete Page 2"); undo and redo call
/// the model's own ``PDFDocument/undo()`` / ``PDFDocument/redo()``, which keep the page
/// lists. So the change count follows undo and redo as for text.
///
/// **Saving.** ``contents(forType:)`` has libqpdf write the pages losslessly to a private
/// temporary file and hands the bytes to the document's safe save (beside the file, `fsync`,
/// `renameat2(RENAME_EXCHANGE)`, folder `fsync`): the PDF on disk is always the old or the
/// new one. The model keeps reading from its private snapshot, so pages are never pulled
/// from under an undo by a save.
open class PDFFileDocument: Document {
  /// The PDF model; `nil` until the document is opened.
  public private(set) var pdf: PDFDocument?
  /// The password used to open an encrypted PDF; set before ``Document/open()``.
  public var password: String?
  /// Where the model keeps its private snapshots (default: the system's temporary folder).
  public var temporaryFolder: URL?

  public required init(fileURL: URL, contentType: UTType? = nil) {
    super.init(fileURL: fileURL, contentType: contentType)
  }

  open override var fallbackType: UTType? { .pdf }

  /// Reads the PDF: the first read makes the model; later ones (a reload after another
  /// program's change, a revert, a restored version) give the same model the new pages as a
  /// source of its own, so that every undo step, this session's and a stored history's, acts
  /// on the one model the document shows.
  open override func read(from data: Data, ofType type: UTType) throws {
    if let pdf {
      try pdf.replacePages(withPDFData: data)
      pdf.noteSaved()
    } else {
      pdf = try PDFDocument(data: data, url: fileURL, password: password, temporaryFolder: temporaryFolder)
    }
    historyState = persistsUndoHistory ? data : nil
  }

  open override func contents(forType type: UTType) throws -> Data {
    let data = try model().pdfData()
    historyState = persistsUndoHistory ? data : nil
    return data
  }

  // MARK: Stored undo history

  /// The bytes last read or made to be written: the state a stored undo history ends at
  /// (kept only with ``Document/persistsUndoHistory``).
  private var historyState: Data?

  /// The kind of this document's undo records: the whole PDF to go back to.
  static let stateRecordKind = "pdf.state"

  /// The PDF as last read or written (libqpdf's bytes), with ``Document/persistsUndoHistory``.
  open override func undoHistoryState() -> [UInt8]? { historyState.map { [UInt8]($0) } }

  /// A record that makes the pages those of the PDF `state`.
  open override func undoRecord(restoringState state: [UInt8]) -> UndoRecord? {
    UndoRecord(kind: Self.stateRecordKind, payload: state)
  }

  /// Runs a stored page edit: the pages become those of the record's PDF, and the inverse (the
  /// PDF as it is now) is registered as its undo.
  open override func applyUndoRecord(_ record: UndoRecord) throws {
    guard record.kind == Self.stateRecordKind else { return try super.applyUndoRecord(record) }
    try checkEditable()
    let model = try model()
    let inverse = Self.record(of: model, pages: model.pages)
    try model.replacePages(withPDFData: Data(record.payload))
    undoManager.registerUndo(withTarget: self, record: inverse) { document in try? document.applyUndoRecord(inverse()) }
  }

  /// The stored form of `pages` of `model`: made when the history is first stored (libqpdf
  /// writes the pages), then kept.
  private static func record(of model: PDFDocument, pages: [PDFDocument.Page]) -> @MainActor () -> UndoRecord {
    let made = MadeRecord()
    return {
      if let record = made.record { return record }
      // The pages' sources are the model's private snapshots, which outlive its history.
      let record = UndoRecord(kind: stateRecordKind, payload: [UInt8]((try? model.pdfData(of: pages)) ?? Data()))
      made.record = record
      return record
    }
  }

  open override func documentDidSave(_ operation: SaveOperation) {
    if operation != .saveToOperation { pdf?.noteSaved() }
  }

  /// Undoing a restore puts the previous pages back; the model and its page history stay, so
  /// the page operations made before the restore can still be undone.
  open override func stateForUndoingRestore() throws -> Any { RestoredPages(pages: try model().pages) }

  open override func restoreState(forUndoingRestore state: Any) throws {
    guard let restored = state as? RestoredPages else { return try super.restoreState(forUndoingRestore: state) }
    try model().setPages(restored.pages)
  }

  private func model() throws(QuireError) -> PDFDocument {
    guard let pdf else {
      throw QuireError(.invalidArgument, "\(QuireError.name(fileURL)) is closed. Open it first.", url: fileURL)
    }
    return pdf
  }

  // MARK: Reading

  /// The number of pages, with the page operations applied.
  public var pageCount: Int { pdf?.pageCount ?? 0 }

  /// The text of page `index` (0-based).
  /// - Throws: ``QuireError`` for a page that does not exist or poppler cannot read.
  public func text(ofPage index: Int) throws -> String { try model().text(ofPage: index) }

  /// The size of page `index` in points as displayed.
  public func pageSize(at index: Int) throws -> (width: Double, height: Double) { try model().pageSize(at: index) }

  /// The rotation of page `index`: 0, 90, 180 or 270.
  public func rotation(ofPage index: Int) throws -> Int { try model().rotation(ofPage: index) }

  /// The page operations applied since opening (undone ones excluded).
  public var operations: [PDFPageOperation] { pdf?.operations ?? [] }

  // MARK: Page operations

  /// Applies `operation` to the model and registers its undo under its name.
  private func perform(_ change: (PDFDocument) throws -> Void) throws {
    try checkEditable()
    let model = try model()
    let before = model.operations.count
    let pagesBefore = model.pages
    try change(model)
    guard model.operations.count > before, let name = model.undoActionName else { return }  // a no-op (same place)
    undoManager.groupUndo(named: name) {
      undoManager.registerUndo(withTarget: self, record: Self.record(of: model, pages: pagesBefore)) { document in
        document.undoPageOperation(on: model)
      }
    }
  }

  private func undoPageOperation(on model: PDFDocument) {
    let pagesBefore = model.pages
    model.undo()
    undoManager.registerUndo(withTarget: self, record: Self.record(of: model, pages: pagesBefore)) { document in
      document.redoPageOperation(on: model)
    }
  }

  private func redoPageOperation(on model: PDFDocument) {
    let pagesBefore = model.pages
    model.redo()
    undoManager.registerUndo(withTarget: self, record: Self.record(of: model, pages: pagesBefore)) { document in
      document.undoPageOperation(on: model)
    }
  }

  /// Removes pages `range` (0-based); see ``PDFDocument/removePages(in:)``.
  public func removePages(in range: Range<Int>) throws { try perform { try $0.removePages(in: range) } }

  /// Moves page `from` to `to` (0-based).
  public func movePage(at from: Int, to: Int) throws { try perform { try $0.movePage(at: from, to: to) } }

  /// Swaps two pages (0-based).
  public func exchangePage(at first: Int, withPageAt second: Int) throws {
    try perform { try $0.exchangePage(at: first, withPageAt: second) }
  }

  /// Turns pages `range` clockwise by `degrees` (a multiple of 90).
  public func rotatePages(in range: Range<Int>, by degrees: Int) throws {
    try perform { try $0.rotatePages(in: range, by: degrees) }
  }

  /// Inserts every page of the PDF at `url` before page `index` (`pageCount` appends).
  public func insertPages(from url: URL, at index: Int, password: String? = nil) throws {
    try perform { try $0.insertPages(from: url, at: index, password: password) }
  }
}

extension DocumentController {
  /// Makes ``PDFFileDocument`` the class for `com.adobe.pdf` files, so ``openDocument(at:)``
  /// opens PDFs as documents with page edits, undo, versions and conflicts.
  ///
  /// The document layer links no PDF renderer; a front end that opens PDFs calls this once
  /// after making its controller (the REPL, `quire serve` and `quire rpc` do).
  public func registerPDFDocuments() {
    register(PDFFileDocument.self, for: .pdf)
  }
}

/// An undo record made once, when a stored history first needs it.
@MainActor
private final class MadeRecord {
  var record: UndoRecord?
}

/// The pages a restore replaced, for undoing it.
private struct RestoredPages {
  let pages: [PDFDocument.Page]
}
