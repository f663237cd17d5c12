public import Foundation
public import QuireDocuments
public import QuireFormats
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
    let inverse = Self.record(of: model, state: model.state)
    try model.replacePages(withPDFData: Data(record.payload))
    undoManager.registerUndo(withTarget: self, record: inverse) { document in try? document.applyUndoRecord(inverse()) }
  }

  /// The stored form of `state` of `model` (its pages and annotation edits): made when the
  /// history is first stored (libqpdf writes the PDF whole), then kept.
  private static func record(of model: PDFDocument, state: PDFDocument.State) -> @MainActor () -> UndoRecord {
    let made = MadeRecord()
    return {
      if let record = made.record { return record }
      // The pages' sources are the model's private snapshots, which outlive its history.
      let record = UndoRecord(kind: stateRecordKind, payload: [UInt8]((try? model.pdfData(of: state)) ?? Data()))
      made.record = record
      return record
    }
  }

  open override func documentDidSave(_ operation: SaveOperation) {
    if operation != .saveToOperation { pdf?.noteSaved() }
  }

  /// Undoing a restore puts the previous pages and annotations back; the model and its
  /// history stay, so the edits made before the restore can still be undone.
  open override func stateForUndoingRestore() throws -> Any { RestoredState(state: try model().state) }

  open override func restoreState(forUndoingRestore state: Any) throws {
    guard let restored = state as? RestoredState else { return try super.restoreState(forUndoingRestore: state) }
    try model().setState(restored.state)
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
    let before = model.undoDepth
    let stateBefore = model.state
    try change(model)
    guard model.undoDepth > before, let name = model.undoActionName else { return }  // a no-op (same place)
    undoManager.groupUndo(named: name) {
      undoManager.registerUndo(withTarget: self, record: Self.record(of: model, state: stateBefore)) { document in
        document.undoPageOperation(on: model)
      }
    }
  }

  private func undoPageOperation(on model: PDFDocument) {
    let stateBefore = model.state
    model.undo()
    undoManager.registerUndo(withTarget: self, record: Self.record(of: model, state: stateBefore)) { document in
      document.redoPageOperation(on: model)
    }
  }

  private func redoPageOperation(on model: PDFDocument) {
    let stateBefore = model.state
    model.redo()
    undoManager.registerUndo(withTarget: self, record: Self.record(of: model, state: stateBefore)) { document in
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

  // MARK: Drawing pages

  /// Page `index` (0-based) drawn as a PNG `width` pixels wide (16 to 4096), its height
  /// following the page's proportions; annotations are drawn, unsaved ones included.
  public func pngData(ofPage index: Int, width: Int) throws -> Data {
    let model = try model()
    let size = try model.pageSize(at: index)
    let width = min(max(width, 16), 4096)
    let height = min(max(Int((Double(width) * size.height / max(size.width, 1)).rounded()), 16), 8192)
    return try model.render(page: index, fittingIn: width, height: height).pngData()
  }

  /// The words of page `index` with their areas in points from the top left of the page.
  public func words(ofPage index: Int) throws -> [(word: String, rect: PDFRect)] {
    let model = try model()
    let origin = try model.origin(ofPage: index)
    return try model.readable(index) { try model.sources[origin.source].file.wordRects(ofPage: origin.index) }
  }

  /// Where `text` occurs on page `index`: one rectangle per match, in points from the top left.
  public func matches(of text: String, onPage index: Int) throws -> [PDFRect] {
    try model().matches(of: text, onPage: index, caseSensitive: false)
  }

  /// Highlights the text in `rects` (points from the top left of page `index`, one per word
  /// or line selected) as one highlight annotation over exactly those areas, one undoable step.
  public func highlight(_ rects: [PDFRect], onPage index: Int, text: String?) throws {
    let model = try model()
    guard !rects.isEmpty, rects.count <= 10_000 else {
      throw QuireError(.invalidArgument, "Cannot highlight nothing in \(QuireError.name(fileURL)): select some text first.", url: fileURL)
    }
    let quads = try rects.flatMap { try model.userSpaceQuad($0, onPage: index) }
    var data = AnnotationData(subtype: "Highlight", rect: PDFDocument.bounds(ofQuads: quads))
    data.quadPoints = quads
    data.contents = text
    try perform { _ = try $0.addAnnotation(data, toPage: index) }
  }

  /// Adds a note with `text` at `point` (points from the top left of page `index`), one
  /// undoable step.
  public func addNote(_ text: String, at point: (x: Double, y: Double), onPage index: Int) throws {
    let model = try model()
    let quad = try model.userSpaceQuad(PDFRect(x: point.x, y: point.y, width: 20, height: 20), onPage: index)
    var data = AnnotationData(subtype: "Text", rect: PDFDocument.bounds(ofQuads: quad))
    data.contents = text
    try perform { _ = try $0.addAnnotation(data, toPage: index) }
  }

  /// The outline, its entries' pages in the current order.
  public var outline: [PDFOutlineItem] { pdf?.outline ?? [] }

  // MARK: Annotations and forms

  /// The annotations of page `index` (0-based) as they are now, unsaved changes included.
  /// - Throws: ``QuireError`` for a page that does not exist or a file libqpdf cannot read.
  public func annotations(onPage index: Int) throws -> [PDFAnnotation] {
    let model = try model()
    guard let page = model.page(at: index) else {
      _ = try model.page(index)
      return []
    }
    return try model.annotationEntries(onPage: index).map { PDFAnnotation(data: $0.data, key: $0.key, page: page) }
  }

  /// Marks every occurrence of `text` on page `index` with a `type` markup annotation
  /// (`.highlight`, `.underline`, `.strikeOut`, `.squiggly`) over exactly its
  /// quadrilaterals, as one undoable step; returns how many were marked.
  /// - Throws: ``QuireError`` when the text is not on the page.
  @discardableResult
  public func markText(_ text: String, onPage index: Int, as type: PDFAnnotationSubtype, color: UIColor? = nil) throws -> Int {
    guard [PDFAnnotationSubtype.highlight, .underline, .strikeOut, .squiggly].contains(type) else {
      throw QuireError(.invalidArgument, "Cannot mark text with a \(type.rawValue) annotation: use highlight, underline, strikeout or squiggly.", url: fileURL)
    }
    guard !text.isEmpty else { throw QuireError(.invalidArgument, "Cannot mark text in \(QuireError.name(fileURL)): give the text to mark.", url: fileURL) }
    let model = try model()
    let quads = try model.quadrilaterals(of: text, onPage: index)
    guard !quads.isEmpty else {
      throw QuireError(.invalidArgument, "Cannot mark '\(text)' on page \(index + 1) of \(QuireError.name(fileURL)): it is not on that page.", url: fileURL)
    }
    let components = color.map { [Double($0.redComponent), Double($0.greenComponent), Double($0.blueComponent)] }
    try perform { model in
      try model.groupAnnotationChanges(named: "\(PDFDocument.displayName(ofSubtype: type.name)) '\(text.prefix(40))'") {
        _ = try model.markText(text, onPage: index, subtype: type.name, color: components)
      }
    }
    return quads.count
  }

  /// Puts `annotation` on page `index` (0-based) as one undoable step.
  public func addAnnotation(_ annotation: PDFAnnotation, toPage index: Int) throws {
    let model = try model()
    var id: UUID?
    try perform { id = try $0.addAnnotation(annotation.data, toPage: index) }
    if let id, let page = model.page(at: index) {
      annotation.key = .added(id)
      annotation.attach(to: page)
    }
  }

  /// Takes annotation `number` (0-based, in the order ``annotations(onPage:)`` lists them)
  /// off page `index` as one undoable step.
  public func removeAnnotation(at number: Int, fromPage index: Int) throws {
    let model = try model()
    let entries = try model.annotationEntries(onPage: index)
    guard entries.indices.contains(number) else {
      throw QuireError(
        .invalidArgument, "Page \(index + 1) of \(QuireError.name(fileURL)) has no annotation \(number < .max ? number + 1 : number): it has \(entries.count).",
        url: fileURL)
    }
    try perform { try $0.removeAnnotation(entries[number].key, fromPage: index) }
  }

  /// The form's fields with their values now.
  public func formFields() throws -> [PDFFormField] { try model().formFields() }

  /// Fills form field `name` with `value` (text; `on`/`off` for a check box; a state or a
  /// choice) as one undoable step; saving writes the field's new appearance.
  public func fill(field name: String, with value: String) throws {
    try perform { try $0.setValue(value, ofField: name) }
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

/// The pages and annotation edits a restore replaced, for undoing it.
private struct RestoredState {
  let state: PDFDocument.State
}
