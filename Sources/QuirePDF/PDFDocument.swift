public import Foundation
import Glibc
import QuireDocuments
public import QuireFormats
import QuireSystem
import QuireTypes
import Synchronization
import SystemPackage

/// One page operation on a ``PDFDocument``, as recorded for undo and shown to the user.
public enum PDFPageOperation: Sendable, Equatable, CustomStringConvertible {
  /// Pages `range` (0-based) were removed.
  case delete(Range<Int>)
  /// The page at `from` now is at `to` (0-based).
  case move(from: Int, to: Int)
  /// Two pages swapped places.
  case exchange(Int, Int)
  /// Pages `range` were turned clockwise by `degrees` (a multiple of 90).
  case rotate(Range<Int>, degrees: Int)
  /// `count` pages of the file `name` were inserted at `index`.
  case insert(name: String, count: Int, at: Int)

  /// A short name for an undo menu ("Delete Pages 2–3").
  public var description: String {
    func pages(_ range: Range<Int>) -> String {
      range.count == 1 ? "Page \(range.lowerBound + 1)" : "Pages \(range.lowerBound + 1)–\(range.upperBound)"
    }
    switch self {
    case .delete(let range): return "Delete \(pages(range))"
    case .move(let from, let to): return "Move Page \(from + 1) to \(to + 1)"
    case .exchange(let a, let b): return "Exchange Pages \(a + 1) and \(b + 1)"
    case .rotate(let range, let degrees): return "Rotate \(pages(range)) by \(degrees)°"
    case .insert(let name, let count, let index): return "Insert \(count) Page\(count == 1 ? "" : "s") of '\(name)' at \(index + 1)"
    }
  }
}

/// Text on pages: where a search found it, or what a client selected, page by page with the
/// rectangles on each (PDFKit's `PDFSelection`).
///
/// A class, as PDFKit's is: a find's delegate receives the selection and may set its
/// ``color`` for the client's own drawing, and ``add(_:)`` extends it, also onto other pages.
/// Two selections are equal when they cover the same text at the same places (the colour is
/// not compared). Sendable: its parts and colour are kept behind locks, so a find's
/// notification can carry a selection to another task.
open class PDFSelection: NSObject, @unchecked Sendable {
  /// One page's share of a selection.
  struct Part: Equatable {
    /// The 0-based page, in the document's current page order.
    var pageIndex: Int
    /// The text, when known.
    var string: String?
    /// The areas, in points from the top left of the page as displayed by its source.
    var bounds: [PDFRect]
    /// The same areas grown to whole lines (``extendForLineBoundaries()``), when they were.
    var extended: [PDFRect]?
  }
  private let partsStorage: Mutex<[Part]>
  var parts: [Part] { partsStorage.withLock { $0 } }

  /// The 0-based page of the selection's first part, in the document's current page order
  /// (`NSNotFound` for an empty selection).
  public var pageIndex: Int { parts.first?.pageIndex ?? NSNotFound }
  /// The text (PDFKit's `string`): what a search looked for, or the selected text, the
  /// parts' texts joined by line breaks; nil when no part has text.
  public var string: String? {
    let texts = parts.compactMap(\.string)
    return texts.isEmpty ? nil : texts.joined(separator: "\n")
  }
  /// The areas on the first page, in points from the top left of the page as displayed by
  /// its source (``bounds(for:)`` gives any page's).
  public var bounds: [PDFRect] { parts.first?.bounds ?? [] }
  /// The colour to draw the selection with (PDFKit's `color`); nil, the default, means the
  /// viewer's own highlight colour. Quire has no `PDFView`: the colour is kept for the
  /// client that draws selections.
  open var color: UIColor? {
    get { colorStorage.withLock { $0 } }
    set { colorStorage.withLock { $0 = newValue } }
  }
  private let colorStorage = Mutex<UIColor?>(nil)

  /// The document the selection was made in (weak: a selection does not keep it open).
  private let documentStorage = Mutex<WeakDocument>(WeakDocument())
  private struct WeakDocument: @unchecked Sendable {
    // @unchecked: only read and written under `documentStorage`'s lock.
    weak var document: PDFDocument?
  }

  init(pageIndex: Int, string: String?, bounds: [PDFRect], document: PDFDocument? = nil) {
    partsStorage = Mutex([Part(pageIndex: pageIndex, string: string, bounds: bounds)])
    super.init()
    documentStorage.withLock { $0.document = document }
  }

  /// A selection of `bounds` on `page` (PDFKit's `init(document:)` and `add(_:)` combined):
  /// an empty selection when `page` is not in a document.
  public convenience init(page: PDFPage, bounds: [PDFRect] = [], string: String? = nil) {
    let document = page.document
    self.init(pageIndex: document.map { $0.index(for: page) } ?? NSNotFound, string: string, bounds: bounds, document: document)
  }

  /// An empty selection in `document` (PDFKit's `init(document:)`), to build with ``add(_:)``.
  public init(document: PDFDocument) {
    partsStorage = Mutex([])
    super.init()
    documentStorage.withLock { $0.document = document }
  }

  /// The document the selection is in, while it is open.
  var document: PDFDocument? { documentStorage.withLock { $0.document } }

  /// Adds `selection`'s text and areas to this one (PDFKit's `add(_:)`), on its pages: a part
  /// on a page this selection has already is joined to it. A selection of another document is
  /// ignored.
  open func add(_ selection: PDFSelection) {
    guard selection !== self else { return }
    let added = selection.parts
    guard selection.document === document || parts.isEmpty else { return }
    if document == nil, let other = selection.document { documentStorage.withLock { $0.document = other } }
    partsStorage.withLock { parts in
      for part in added {
        if let same = parts.firstIndex(where: { $0.pageIndex == part.pageIndex }) {
          parts[same].bounds += part.bounds
          parts[same].extended = nil
          if let text = part.string { parts[same].string = (parts[same].string.map { $0 + "\n" } ?? "") + text }
        } else {
          parts.append(part)
        }
      }
      parts.sort { $0.pageIndex < $1.pageIndex }
    }
  }

  /// Adds each of `selections` (PDFKit's `add(_:)` of an array).
  open func add(_ selections: [PDFSelection]) {
    for selection in selections { add(selection) }
  }

  /// The pages the selection covers (PDFKit's `pages`), in page order; none when its
  /// document is gone.
  open var pages: [PDFPage] {
    guard let document else { return [] }
    return parts.compactMap { document.page(at: $0.pageIndex) }
  }

  /// Extends the selection to whole lines (PDFKit's `extendForLineBoundaries()`): each area
  /// grows to the full width of the text lines it lies on, as poppler lays the page out.
  open func extendForLineBoundaries() {
    guard let document else { return }
    let grown = parts.map { part -> [PDFRect]? in
      guard let lines = try? document.lineRects(ofPage: part.pageIndex) else { return nil }
      return part.bounds.map { area in
        lines.first { line in line.y < area.y + area.height && area.y < line.y + line.height }.map { line in
          PDFRect(x: line.x, y: min(area.y, line.y), width: line.width, height: max(area.y + area.height, line.y + line.height) - min(area.y, line.y))
        } ?? area
      }
    }
    partsStorage.withLock { parts in
      for index in parts.indices where index < grown.count { parts[index].extended = grown[index] ?? parts[index].extended }
    }
  }

  /// The areas on the first page, grown to whole lines after ``extendForLineBoundaries()``.
  open var selectedBounds: [PDFRect] { parts.first.map { $0.extended ?? $0.bounds } ?? [] }

  /// The selection split into one selection per line of text (PDFKit's `selectionsByLine()`):
  /// one per area, page by page, top to bottom.
  open func selectionsByLine() -> [PDFSelection] {
    parts.flatMap { part in
      (part.extended ?? part.bounds).sorted { ($0.y, $0.x) < ($1.y, $1.x) }.map {
        PDFSelection(pageIndex: part.pageIndex, string: part.string, bounds: [$0], document: document)
      }
    }
  }

  /// Whether `object` is a selection of the same text at the same places.
  open override func isEqual(_ object: Any?) -> Bool {
    guard let other = object as? PDFSelection else { return false }
    return parts.map(\.pageIndex) == other.parts.map(\.pageIndex) && string == other.string && parts.map(\.bounds) == other.parts.map(\.bounds)
  }

  /// A hash consistent with ``isEqual(_:)``.
  open override var hash: Int {
    var hasher = Hasher()
    hasher.combine(pageIndex)
    hasher.combine(string)
    return hasher.finalize()
  }
}

/// A PDF that can be read and reorganised, as PDFKit's `PDFDocument` offers.
///
/// Reading (page count, sizes, rotation, text, search, outline, metadata, permissions) goes
/// through poppler-glib; opening parses the file but renders nothing, so a hostile PDF costs
/// at most what its structure costs. Page operations (``removePages(in:)``,
/// ``movePage(at:to:)``, ``exchangePage(at:withPageAt:)``, ``rotatePages(in:by:)``,
/// ``insertPages(from:at:password:)``) change a list of pages at once, are recorded for
/// ``undo()`` / ``redo()``, and are written by ``write(to:)`` through libqpdf, losslessly:
/// page objects are moved, not rebuilt, so fonts, images, links, forms, outline entries that
/// still apply and metadata stay as they were.
///
/// The document reads from private snapshots of its files (a copy-on-write clone, or a copy
/// made inside the kernel, in a 0700 temporary folder), so saving over the original, or
/// another program rewriting it, never pulls pages from under an undo. Not `Sendable`: poppler and qpdf handles are used by one task.
open class PDFDocument {
  /// The file the document was opened from, or last saved to with ``save(to:)``; nil for a
  /// document made empty with ``init()`` or from bytes with ``init(data:)`` (PDFKit's optional).
  open private(set) var documentURL: URL?

  /// PDFKit's document delegate: told of finds as they run (``beginFindString(_:withOptions:)``).
  public weak var delegate: (any PDFDocumentDelegate)?
  /// The asynchronous find under way (``beginFindString(_:withOptions:)``), if any.
  var findTask: Task<Void, Never>?
  /// Tells the find under way from one started after it, so a cancelled find's end is not taken
  /// for its successor's.
  var findGeneration = 0

  /// How messages name the document: its file, or "the untitled PDF".
  var displayName: String { documentURL.map(QuireError.name) ?? "the untitled PDF" }

  struct Source {
    let name: String
    let original: URL
    let snapshot: URL
    let file: PDFFile
    let password: String?
    var qpdf: QPDFFile?
  }

  struct Page: Equatable {
    var source: Int
    var index: Int
    var addedRotation: Int
  }

  private(set) var sources: [Source] = [] {
    didSet { lastTextLayout = nil }
  }
  /// The page text layout made last (``textLayout(ofPage:)``), by the page it is of: its file
  /// page, whose text never changes (sources are private snapshots, and replacing them forgets
  /// it), and its added rotation, on which the map into user space depends.
  var lastTextLayout: (page: Page, layout: PageTextLayout)?
  private(set) var pages: [Page]
  /// One undoable step: its name, the page operation it was (nil for an annotation or form
  /// change), and the pages and annotation edits before it.
  private struct Step {
    var name: String
    var operation: PDFPageOperation?
    var before: (pages: [Page], annotations: AnnotationEdits)
  }
  private var undoStack: [Step] = []
  private var redoStack: [Step] = []
  private var savedPages: [Page]
  /// Annotations added and removed and form fields filled, not yet undone.
  private(set) var annotationEdits = AnnotationEdits()
  private var savedAnnotationEdits = AnnotationEdits()
  /// The annotations each page of each file has, read once (by file and page index).
  var fileAnnotations: [AnnotationEdits.PageKey: [(reference: PDFObjectReference?, data: AnnotationData)]] = [:]

  /// The file as last saved by an incremental update: a private copy of its bytes, where its
  /// last cross-reference section is, its /Size, and the objects the updates since opening
  /// have written (each later update writes them again, as they now are).
  struct IncrementalBase {
    var copy: URL
    var length: Int
    var crossReference: Int
    var size: Int
    var written: Set<PDFObjectReference>
  }
  private var savedBase: IncrementalBase?
  /// What the last write made, promoted by ``noteSaved()`` when it was a save.
  private enum WriteKind {
    case incremental(IncrementalBase)
    case rewrite
  }
  private var lastWrite: WriteKind?
  /// False once the document was saved whole (its objects then no longer match its source):
  /// later saves rewrite it whole too.
  private var canUpdateIncrementally = true
  /// A PDF of the current state (page operations and annotation edits applied) for drawing
  /// pages with unsaved annotations, and the edits it shows.
  private var preview: (file: PDFFile, pages: [Page], annotations: AnnotationEdits)?
  private var madeSnapshotFolder: URL?
  private let temporaryFolder: URL?

  /// The private (0700) folder of the document's snapshots, made when first needed.
  func snapshotFolder() throws -> URL {
    if let madeSnapshotFolder { return madeSnapshotFolder }
    let folder = try Self.makeSnapshotFolder(in: temporaryFolder)
    madeSnapshotFolder = folder
    return folder
  }

  /// An empty document, without pages or a file (PDFKit's `init()`): insert pages with
  /// ``insert(_:at:)``, then write it with ``write(to:)``.
  public init() {
    temporaryFolder = nil
    pages = []
    savedPages = []
  }

  /// Opens the PDF at `url`, or nil when it cannot be opened (PDFKit's failable
  /// `init?(url:)`); ``init(contentsOf:password:temporaryFolder:)`` throws an error that says why.
  /// A PDF that needs a password opens locked, as PDFKit's does: ``isLocked`` is true and it
  /// has no pages until ``unlock(withPassword:)`` is given its user or owner password.
  public init?(url: URL) {
    documentURL = url.standardizedFileURL
    temporaryFolder = nil
    pages = []
    savedPages = []
    do { try load(url: url.standardizedFileURL, data: nil, password: nil, locksWithoutPassword: true) } catch { return nil }
  }

  /// Opens the PDF at `url`.
  ///
  /// - Parameters:
  ///   - url: The PDF.
  ///   - password: The user or owner password of an encrypted PDF.
  ///   - temporaryFolder: Where to keep snapshots (default: the system's temporary folder).
  /// - Throws: ``QuireError`` naming the file: `.fileMissing`, `.passwordRequired`,
  ///   `.invalidContent` when it is not a PDF poppler can read, `.unsupportedType` for a folder.
  public init(contentsOf url: URL, password: String? = nil, temporaryFolder: URL? = nil) throws {
    documentURL = url.standardizedFileURL
    self.temporaryFolder = temporaryFolder
    pages = []
    savedPages = []
    try load(url: url.standardizedFileURL, data: nil, password: password, locksWithoutPassword: false)
  }

  /// Opens the PDF held in `data`: the contents of `url`, which names it in messages and
  /// becomes ``documentURL`` (``PDFFileDocument`` reads its file's bytes this way, inside its
  /// coordinated read). The bytes are written to the private snapshot folder (0600).
  init(data: Data, url: URL?, password: String? = nil, temporaryFolder: URL? = nil) throws {
    documentURL = url?.standardizedFileURL
    self.temporaryFolder = temporaryFolder
    pages = []
    savedPages = []
    try load(url: url?.standardizedFileURL, data: data, password: password, locksWithoutPassword: false)
  }

  /// Opens the PDF held in `data`, or nil when it is not a PDF that can be read (PDFKit's
  /// failable `init?(data:)`). The document has no file (``documentURL`` is nil) until
  /// ``save(to:)``. A PDF that needs a password opens locked (see ``init(url:)``).
  public init?(data: Data) {
    documentURL = nil
    temporaryFolder = nil
    pages = []
    savedPages = []
    do { try load(url: nil, data: data, password: nil, locksWithoutPassword: true) } catch { return nil }
  }

  /// Reads the PDF at `url` (or `data`, its bytes) into the document's first source and pages.
  /// With `locksWithoutPassword`, a PDF that needs a password leaves the document locked
  /// (its snapshot kept for ``unlock(withPassword:)``) instead of throwing.
  private func load(url: URL?, data: Data?, password: String?, locksWithoutPassword: Bool) throws {
    var isFolder: ObjCBool = false
    if data == nil, let url, FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), isFolder.boolValue {
      throw QuireError(.unsupportedType, "Cannot open \(QuireError.name(url)) as a PDF: it is a folder.", url: url)
    }
    let snapshotFolder = try Self.makeSnapshotFolder(in: temporaryFolder)
    madeSnapshotFolder = snapshotFolder
    let original = url ?? snapshotFolder.appendingPathComponent("untitled.pdf")
    do {
      showEveryPage(of: try addSource(url: original, password: password, data: data).file)
    } catch let error as QuireError where error.code == .passwordRequired && locksWithoutPassword {
      locked = (original, try snapshotURL(ofSource: 0))
    } catch {
      try? FileManager.default.removeItem(at: snapshotFolder)
      madeSnapshotFolder = nil
      throw error
    }
  }

  /// Makes the pages, as opened (and as saved), every page of the first source, `file`.
  private func showEveryPage(of file: PDFFile) {
    pages = (0..<file.pageCount).map { Page(source: 0, index: $0, addedRotation: 0) }
    savedPages = pages
  }

  /// The file of a document opened locked (``isLocked``), and the snapshot of it that
  /// ``unlock(withPassword:)`` opens; nil for every other document.
  private var locked: (original: URL, snapshot: URL)?

  /// Whether the document is encrypted and still needs its password (PDFKit's `isLocked`):
  /// until ``unlock(withPassword:)`` succeeds it has no pages, and it cannot be written.
  open var isLocked: Bool { locked != nil }

  /// Throws, for a locked document, the error that says to unlock it before it can `act`
  /// ("change the.pdf").
  func checkUnlocked(toDo act: String? = nil, url: URL? = nil) throws {
    guard isLocked else { return }
    throw QuireError(
      .passwordRequired,
      "Cannot \(act ?? "change \(displayName)"): it is locked. Unlock it with its password (unlock(withPassword:)) first; nothing was changed.",
      url: url ?? documentURL)
  }

  /// Gives the document a password (PDFKit's `unlock(withPassword:)`) and returns whether it
  /// was right. A locked document's pages can then be read. An encrypted document that opened
  /// without one (an empty user password) takes its owner password this way, and with it the
  /// permissions its security settings withheld (``permissions``). False for a document
  /// that is not encrypted, or a wrong password; the document is then as it was.
  open func unlock(withPassword password: String) -> Bool {
    if let locked {
      guard let file = try? PDFFile(contentsOf: locked.snapshot, password: password) else { return false }
      sources = [Source(name: locked.original.lastPathComponent, original: locked.original, snapshot: locked.snapshot, file: file, password: password)]
      showEveryPage(of: file)
      self.locked = nil
      return true
    }
    guard isEncrypted, let first = sources.first, let file = try? PDFFile(contentsOf: first.snapshot, password: password),
      (try? QPDFFile(path: first.snapshot.path, url: first.original, password: password)) != nil
    else { return false }
    sources[0] = Source(name: first.name, original: first.original, snapshot: first.snapshot, file: file, password: password)
    return true
  }

  deinit { if let madeSnapshotFolder { try? FileManager.default.removeItem(at: madeSnapshotFolder) } }

  private static func makeSnapshotFolder(in folder: URL?) throws -> URL {
    let base = (folder ?? URL(fileURLWithPath: NSTemporaryDirectory())).path
    switch SystemCalls.makeTemporaryFolder(in: base, prefix: "quire-pdf-") {  // 0700
    case .success(let path): return URL(fileURLWithPath: path, isDirectory: true)
    case .failure(let failure):
      throw QuireError(
        QuireError.Code(failure.errno, for: .create), "Cannot open a PDF: no private temporary folder could be made in '\(base)'. Check that it is writable.",
        cause: failure)
    }
  }

  /// Copies the file at `url` to `snapshot` (0600): a copy-on-write clone where the file
  /// system can make one, else a copy inside the kernel. Not a hard link: a program that
  /// rewrites the original in place (rather than replacing it) would change a linked snapshot
  /// under the document's pages.
  private static func copySnapshot(of url: URL, to snapshot: URL) throws {
    let source: Int32
    switch SystemCalls.open(FilePath(url.path), O_RDONLY, mode: 0).map(\.rawValue) {
    case .success(let fd): source = fd
    case .failure(let error):
      throw QuireError(.permissionDenied, "Cannot open \(QuireError.name(url)): it cannot be read. Check its permissions.", url: url, cause: error)
    }
    defer { SystemCalls.release(FileDescriptor(rawValue: source)) }
    let destination: Int32
    switch SystemCalls.open(FilePath(snapshot.path), O_WRONLY | O_CREAT | O_EXCL, mode: 0o600).map(\.rawValue) {
    case .success(let fd): destination = fd
    case .failure(let error):
      throw QuireError(
        .systemCallFailed,
        "Cannot open \(QuireError.name(url)): its private copy in '\(snapshot.deletingLastPathComponent().path)' cannot be made. Check that the temporary folder is writable.",
        url: url, cause: error)
    }
    defer { SystemCalls.release(FileDescriptor(rawValue: destination)) }
    if case .failure(let error) = SystemCalls.copyContents(from: FileDescriptor(rawValue: source), to: FileDescriptor(rawValue: destination)).map(
      FileWrapper.ReuseMethod.init)
    {
      throw QuireError(
        .systemCallFailed,
        "Cannot open \(QuireError.name(url)): copying it to '\(snapshot.deletingLastPathComponent().path)' failed (is the disk full?). Free some space and open it again.",
        url: url, cause: error)
    }
  }

  /// Where the private copy of source `number` is kept.
  private func snapshotURL(ofSource number: Int) throws -> URL {
    try snapshotFolder().appendingPathComponent("\(number).pdf")
  }

  @discardableResult
  func addSource(url: URL, password: String?, data: Data? = nil) throws -> Source {
    let snapshot = try snapshotURL(ofSource: sources.count)
    if let data {
      let file = FileWrapper(regularFileWithContents: data)
      file.fileAttributes.posixPermissions = 0o600
      try file.write(to: snapshot)
    } else if !FileManager.default.fileExists(atPath: url.path) {
      throw InputFile.missingError(url, for: "open")
    } else {
      try Self.copySnapshot(of: url, to: snapshot)
    }
    let file: PDFFile
    do {
      file = try PDFFile(contentsOf: snapshot, password: password)
    } catch var error as QuireError {
      error.reason = error.reason.replacingOccurrences(of: "'\(snapshot.lastPathComponent)'", with: QuireError.name(url))
      error.url = url
      throw error
    }
    let source = Source(name: url.lastPathComponent, original: url, snapshot: snapshot, file: file, password: password)
    sources.append(source)
    return source
  }

  func qpdf(forSource index: Int) throws -> QPDFFile {
    if let existing = sources[index].qpdf { return existing }
    let file = try QPDFFile(path: sources[index].snapshot.path, url: sources[index].original, password: sources[index].password)
    sources[index].qpdf = file
    return file
  }

  // MARK: Reading

  /// The number of pages, with the page operations applied.
  open var pageCount: Int { pages.count }

  func page(_ index: Int) throws -> Page {
    guard index >= 0, index < pages.count else {
      throw QuireError(
        .invalidArgument,
        "\(displayName) has no page \(index < .max ? index + 1 : index): it has \(pages.count) page\(pages.count == 1 ? "" : "s").",
        url: documentURL)
    }
    return pages[index]
  }

  /// The rotation of page `index` (0-based) in degrees clockwise: 0, 90, 180 or 270.
  open func rotation(ofPage index: Int) throws -> Int {
    let page = try page(index)
    let base = (try? qpdf(forSource: page.source).rotation(ofPage: page.index)) ?? 0
    return QPDFFile.normalized(base + page.addedRotation)
  }

  /// The size of page `index` in points as displayed: crop box, rotation applied.
  open func pageSize(at index: Int) throws -> (width: Double, height: Double) {
    let page = try page(index)
    let size = try readable(index) { try sources[page.source].file.pageSize(at: page.index) }
    return QPDFFile.normalized(page.addedRotation) % 180 == 0 ? size : (size.height, size.width)
  }

  /// The areas of page `index`'s lines of text, in points from the top left of the page as
  /// its source displays it.
  open func lineRects(ofPage index: Int) throws -> [PDFRect] {
    let page = try page(index)
    return try readable(index) { try sources[page.source].file.lineRects(ofPage: page.index) }
  }

  /// Page `index`'s text and the area of each of its Unicode scalars, in points from the top
  /// left of the page as its source displays it (see `PDFFile.characterLayout(ofPage:)`).
  func characterLayout(ofPage index: Int) throws -> (text: String, areas: [PDFRect]) {
    let page = try page(index)
    return try readable(index) { try sources[page.source].file.characterLayout(ofPage: page.index) }
  }

  /// The text of page `index` (0-based), in reading order as poppler extracts it.
  open func text(ofPage index: Int) throws -> String {
    let page = try page(index)
    return try readable(index) { try sources[page.source].file.text(ofPage: page.index) }
  }

  /// Page `index` (0-based) as displayed (its page operations' rotation applied), scaled to
  /// fit inside `width` × `height` pixels and centred on a transparent image of that size.
  func render(page index: Int, fittingIn width: Int, height: Int) throws -> Bitmap {
    let page = try page(index)
    if let preview = try previewFile() {
      return try readable(index) { try preview.render(page: index, rotation: 0, fittingIn: width, height: height) }
    }
    return try readable(index) {
      try sources[page.source].file.render(page: page.index, rotation: page.addedRotation, fittingIn: width, height: height)
    }
  }

  /// Which file page `index` (0-based) comes from, and its 0-based index in that file.
  func origin(ofPage index: Int) throws -> (source: Int, index: Int) {
    let page = try page(index)
    return (page.source, page.index)
  }

  /// What CoreGraphics' `CGPDFDocument` tells of file `source`: its pages, permissions and
  /// whether it is encrypted.
  func sourceFacts(_ source: Int) -> (pageCount: Int, permissions: PDFPermissions, isEncrypted: Bool) {
    let file = sources[source].file
    return (file.pageCount, file.permissions, (try? qpdf(forSource: source).isEncrypted) ?? false)
  }

  /// Page `index` (0-based) of file `source` as the file has it: its /Rotate and its crop box's
  /// size before that rotation (CoreGraphics' `CGPDFPage` measures so), or nil when it cannot be read.
  func sourcePageBox(_ source: Int, page index: Int) -> (rotation: Int, width: Double, height: Double)? {
    guard let size = try? sources[source].file.pageSize(at: index) else { return nil }
    let rotation = QPDFFile.normalized((try? qpdf(forSource: source).rotation(ofPage: index)) ?? 0)
    return rotation % 180 == 0 ? (rotation, size.width, size.height) : (rotation, size.height, size.width)
  }

  /// Runs `body` on a page that exists; when poppler still cannot load it, says so.
  func readable<R>(_ index: Int, _ body: () throws -> R) throws -> R {
    do {
      return try body()
    } catch let error as QuireError where error.code == .invalidArgument || error.code == .invalidContent {
      throw QuireError(
        .invalidContent, "Cannot read page \(index + 1) of \(displayName): poppler found it damaged. The other pages may still be readable.",
        url: documentURL, cause: error)
    }
  }

  /// The text of every page, pages separated by a form feed (as `pdftotext` does).
  open func text() throws -> String {
    try (0..<pages.count).map { try text(ofPage: $0) }.joined(separator: "\u{0C}")
  }

  /// Every place `string` occurs, page by page in the current order: one selection per page
  /// with all of its matches, and an error naming a page that cannot be read. (PDFKit's
  /// `findString(_:withOptions:)`, which `findString("word")` calls, gives one selection per
  /// match and skips such pages.)
  open func findString(_ string: String, caseSensitive: Bool) throws -> [PDFSelection] {
    try pages.indices.compactMap { index in
      let bounds = try matches(of: string, onPage: index, caseSensitive: caseSensitive)
      return bounds.isEmpty ? nil : PDFSelection(pageIndex: index, string: string, bounds: bounds, document: self)
    }
  }

  /// Where `string` occurs on page `index` (0-based, current order): one rectangle per match.
  func matches(of string: String, onPage index: Int, caseSensitive: Bool) throws -> [PDFRect] {
    let page = try page(index)
    return try readable(index) { try sources[page.source].file.find(string, onPage: page.index, caseSensitive: caseSensitive) }
  }

  /// The outline of the original file, its page numbers mapped to the current order;
  /// an entry whose page was removed keeps its place with `pageIndex == nil`.
  open var outline: [PDFOutlineItem] {
    var position: [Int: Int] = [:]
    for (index, page) in pages.enumerated() where page.source == 0 && position[page.index] == nil {
      position[page.index] = index
    }
    func map(_ items: [PDFOutlineItem]) -> [PDFOutlineItem] {
      items.map { item in
        var item = item
        item.pageIndex = item.pageIndex.flatMap { position[$0] }
        item.children = map(item.children)
        return item
      }
    }
    return map(sources.first?.file.outline ?? [])
  }

  /// Title, author, subject, keywords, creator, producer, dates and version of the original.
  open var metadata: PDFMetadata { sources.first?.file.metadata ?? PDFMetadata() }

  /// What the original's security handler allows: nothing while the document is locked.
  open var permissions: PDFPermissions { isLocked ? [] : sources.first?.file.permissions ?? .all }

  /// Whether the original is encrypted (it may still open without a password).
  open var isEncrypted: Bool { isLocked || (!sources.isEmpty && ((try? qpdf(forSource: 0).isEncrypted) ?? false)) }

  /// Whether the PDF allows inserting, removing and rotating pages (`PDFKit`'s name).
  open var allowsDocumentAssembly: Bool { permissions.contains(.assemble) }

  // MARK: Page operations

  /// The page operations applied so far, oldest first (undone ones excluded).
  open var operations: [PDFPageOperation] { undoStack.compactMap(\.operation) }
  /// How many steps (page operations, annotation and form changes) ``undo()`` can revert.
  var undoDepth: Int { undoStack.count }
  /// Whether the pages, annotations or form fields differ from what was last opened or saved.
  open var hasUnsavedChanges: Bool { pages != savedPages || annotationEdits != savedAnnotationEdits || outlineChangedSinceSave }
  open var canUndo: Bool { !undoStack.isEmpty }
  open var canRedo: Bool { !redoStack.isEmpty }
  /// The step ``undo()`` would revert ("Delete Page 2", "Add Highlight").
  open var undoActionName: String? { undoStack.last?.name }
  /// The step ``redo()`` would apply again.
  open var redoActionName: String? { redoStack.last?.name }

  func apply(_ operation: PDFPageOperation, _ change: (inout [Page]) -> Void) throws {
    try checkUnlocked()
    guard allowsDocumentAssembly else {
      throw QuireError(
        .permissionDenied,
        "Cannot change the pages of \(displayName): its security settings forbid assembling it. Open it with the owner password.",
        url: documentURL)
    }
    let before = (pages, annotationEdits)
    change(&pages)
    undoStack.append(Step(name: operation.description, operation: operation, before: before))
    redoStack.removeAll()
  }

  /// Runs `body`, whose annotation changes become one undoable step named `name`.
  func groupAnnotationChanges(named name: String, _ body: () throws -> Void) throws {
    let depth = undoStack.count
    do { try body() } catch {
      while undoStack.count > depth, let step = undoStack.popLast() { (pages, annotationEdits) = step.before }
      throw error
    }
    guard undoStack.count > depth + 1 else { return }
    let first = undoStack[depth]
    undoStack.removeSubrange(depth...)
    undoStack.append(Step(name: name, operation: nil, before: first.before))
  }

  /// Records an annotation or form change named `name` (one undoable step).
  func applyAnnotationChange(named name: String, _ change: (inout AnnotationEdits) -> Void) {
    let before = (pages, annotationEdits)
    change(&annotationEdits)
    undoStack.append(Step(name: name, operation: nil, before: before))
    redoStack.removeAll()
  }

  private func checkRange(_ range: Range<Int>) throws {
    guard !range.isEmpty, range.lowerBound >= 0, range.upperBound <= pages.count else {
      throw QuireError(
        .invalidArgument,
        "\(displayName) has no pages \(range.lowerBound < .max ? range.lowerBound + 1 : range.lowerBound)–\(range.upperBound): it has \(pages.count) page\(pages.count == 1 ? "" : "s").",
        url: documentURL)
    }
  }

  /// Removes page `index` (0-based).
  open func removePage(at index: Int) throws { try removePages(in: index..<(index < .max ? index + 1 : index)) }

  /// Removes pages `range` (0-based). A document keeps at least one page.
  open func removePages(in range: Range<Int>) throws {
    try checkRange(range)
    guard range.count < pages.count else {
      throw QuireError(.invalidArgument, "Cannot remove every page of \(displayName): a PDF needs at least one page.", url: documentURL)
    }
    try apply(.delete(range)) { $0.removeSubrange(range) }
  }

  /// Moves page `from` so that it ends up at `to` (both 0-based).
  open func movePage(at from: Int, to: Int) throws {
    _ = try page(from)
    _ = try page(to)
    guard from != to else { return }
    try apply(.move(from: from, to: to)) { pages in
      let moved = pages.remove(at: from)
      pages.insert(moved, at: to)
    }
  }

  /// Swaps pages `first` and `second` (0-based), as PDFKit's `exchangePage(at:withPageAt:)`.
  open func exchangePage(at first: Int, withPageAt second: Int) throws {
    _ = try page(first)
    _ = try page(second)
    guard first != second else { return }
    try apply(.exchange(first, second)) { $0.swapAt(first, second) }
  }

  /// Turns page `index` clockwise by `degrees` (a multiple of 90; negative turns left).
  open func rotatePage(at index: Int, by degrees: Int) throws {
    try rotatePages(in: index..<(index < .max ? index + 1 : index), by: degrees)
  }

  /// Turns pages `range` clockwise by `degrees` (a multiple of 90; negative turns left).
  open func rotatePages(in range: Range<Int>, by degrees: Int) throws {
    try checkRange(range)
    guard degrees % 90 == 0 else {
      throw QuireError(.invalidArgument, "Cannot rotate pages of \(displayName) by \(degrees)°: use a multiple of 90.", url: documentURL)
    }
    try apply(.rotate(range, degrees: degrees)) { pages in
      for index in range { pages[index].addedRotation = QPDFFile.normalized(pages[index].addedRotation + QPDFFile.normalized(degrees)) }
    }
  }

  /// Inserts every page of the PDF at `url` before page `index` (0-based; `pageCount` appends).
  /// - Throws: ``QuireError`` when `url` is not a readable PDF, or `index` is out of range.
  open func insertPages(from url: URL, at index: Int, password: String? = nil) throws {
    try checkUnlocked()
    guard index >= 0, index <= pages.count else {
      throw QuireError(
        .invalidArgument, "Cannot insert pages at \(index < .max ? index + 1 : index) in \(displayName): it has \(pages.count) pages.", url: documentURL)
    }
    guard allowsDocumentAssembly else {
      throw QuireError(
        .permissionDenied, "Cannot change the pages of \(displayName): its security settings forbid assembling it.", url: documentURL)
    }
    let source = try addSource(url: url.standardizedFileURL, password: password)
    let number = sources.count - 1
    let count = source.file.pageCount
    guard count > 0 else {
      throw QuireError(.invalidContent, "Cannot insert pages from \(QuireError.name(url)): it has no pages.", url: url)
    }
    try apply(.insert(name: source.name, count: count, at: index)) { pages in
      pages.insert(contentsOf: (0..<count).map { Page(source: number, index: $0, addedRotation: 0) }, at: index)
    }
  }

  /// Reverts the last page operation.
  open func undo() {
    guard let last = undoStack.popLast() else { return }
    redoStack.append(Step(name: last.name, operation: last.operation, before: (pages, annotationEdits)))
    (pages, annotationEdits) = last.before
  }

  /// Applies the last undone page operation again.
  open func redo() {
    guard let last = redoStack.popLast() else { return }
    undoStack.append(Step(name: last.name, operation: last.operation, before: (pages, annotationEdits)))
    (pages, annotationEdits) = last.before
  }

  // MARK: Writing

  /// Saves the pages over ``documentURL``; see ``write(to:)``.
  /// - Throws: ``QuireError`` `.invalidArgument` when the document has no file (use ``save(to:)``).
  open func save() throws {
    guard let documentURL else {
      throw QuireError(.invalidArgument, "Cannot save the untitled PDF: it has no file yet. Save it to a file with save(to:).")
    }
    try write(to: documentURL)
    noteSaved()
  }

  /// Saves the pages to `url`, which becomes ``documentURL`` ("save as"); see ``write(to:)``.
  /// - Throws: ``QuireError`` naming `url`; the document then keeps its file and its
  ///   unsaved changes.
  open func save(to url: URL) throws {
    try write(to: url)
    noteSaved()
    documentURL = url.standardizedFileURL
  }

  /// Writes the document with its page operations applied to `url`, through libqpdf.
  ///
  /// The PDF is written to a temporary file beside `url` (owner-only until it is complete),
  /// `fsync`ed, given the old file's permissions, renamed over `url`, and the folder is
  /// `fsync`ed: `url` is always the old or the new PDF.
  /// A device or FIFO at `url` (or a link to one) is written through instead, and a symbolic
  /// link to a regular file is saved through to its target (`OutputPath`).
  /// - Throws: ``QuireError`` naming `url`; it is then untouched.
  open func write(to url: URL) throws {
    try write(to: url, encryption: nil)
  }

  /// Writes the document to `url` as ``write(to:)`` does, encrypted with AES-256 (PDF 2.0's
  /// security handler, revision 6): opening it needs `userPassword` (none when it is nil or
  /// empty), and `ownerPassword` (the user's when nil) unlocks it for everything. The copy
  /// allows everything once open (printing, copying, changing pages, annotating, filling
  /// forms), as PDFKit's passwords alone do. The document itself, and its file, stay as
  /// they were.
  /// - Throws: ``QuireError`` naming `url`; it is then untouched.
  open func write(to url: URL, userPassword: String?, ownerPassword: String?) throws {
    let user = userPassword ?? ""
    let owner = ownerPassword ?? user
    guard !user.isEmpty || !owner.isEmpty else {
      throw QuireError(.invalidArgument, "Cannot write \(QuireError.name(url)) encrypted: give a user or owner password; nothing was written.", url: url)
    }
    try write(to: url, encryption: QPDFFile.Encryption(userPassword: user, ownerPassword: owner))
  }

  private func write(to url: URL, encryption: QPDFFile.Encryption?) throws {
    try checkUnlocked(toDo: "write \(displayName) to \(QuireError.name(url))", url: url)
    let target: URL
    switch try OutputPath.kind(of: url.standardizedFileURL) {
    case .regularFile(let resolved): target = resolved.standardizedFileURL
    case .special(let description):
      let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(".quire-pdf-\(FileWrapper.randomSuffix())")
      defer { _ = SystemCalls.remove(scratch.path) }
      try writePages(to: scratch.path, encryption: encryption)
      let data: Data
      do { data = try Data(contentsOf: scratch) } catch { throw QuireError(.systemCallFailed, "Cannot write \(QuireError.name(url)).", url: url, cause: error) }
      return try OutputPath.writeThrough(data, to: url, description: description)
    }
    FileWrapper.removeLeftovers(besides: target, notModifiedFor: FileWrapper.abandonedSaveAge)
    // The old file's permissions, or the usual 0644 for a new one.
    let mode: mode_t
    switch SystemCalls.lstat(FilePath(target.path)) {
    case .success(let info): mode = info.st_mode & 0o7777
    case .failure(.noSuchFileOrDirectory): mode = 0o644
    case .failure(let error): throw saveError(error, url: url)
    }
    // The one atomic writer: libqpdf writes the temporary file by name (its descriptor's
    // /proc/self/fd path), which is flushed, given the mode and renamed over the target.
    do {
      try AtomicFile.write(to: target.path, mode: mode) { fd in try writePages(to: "/proc/self/fd/\(fd.rawValue)", encryption: encryption) }
    } catch let error as SyscallFailure {
      throw saveError(error, url: url)
    }
  }

  /// Writes the document into the new file `path`: an incremental update of the file as last
  /// saved when only annotations and form fields changed (the old bytes stay an exact
  /// prefix), otherwise the pages laid out whole through libqpdf with the annotation edits
  /// applied.
  /// With `encryption`, the document is written whole, encrypted.
  private func writePages(to path: String, encryption: QPDFFile.Encryption? = nil) throws {
    guard !sources.isEmpty, !pages.isEmpty else {
      throw QuireError(.invalidArgument, "Cannot write \(displayName): it has no pages. Insert pages first.")
    }
    let outline = outlineToWrite
    if encryption == nil, outline == nil, try writeIncrementalUpdate(to: path) { return }
    // Fresh handles: a write rearranges the handle's pages in memory.
    var files: [Int: QPDFFile] = [:]
    for number in Set(pages.map(\.source)).union([0]) {
      let file = try QPDFFile(path: sources[number].snapshot.path, url: sources[number].original, password: sources[number].password)
      let changes = annotationEdits.changes(inSource: number)
      _ = try file.apply(added: changes.added, removed: changes.removed, fieldValues: changes.fieldValues)
      files[number] = file
    }
    guard let primary = files[0] else { return }
    try primary.write(
      pages: pages.compactMap { page in files[page.source].map { ($0, page.index, page.addedRotation) } },
      info: attributesToWrite, outline: outline, encryption: encryption, to: path)
    lastWrite = .rewrite
  }

  /// Writes the annotation edits as an incremental update appended to the file as last saved
  /// (or opened), into the new file `path`; returns false when the document must be written
  /// whole instead: its pages or information changed, it was saved whole before, it is
  /// encrypted, or qpdf had to repair it (an update would point into the damage).
  private func writeIncrementalUpdate(to path: String) throws -> Bool {
    guard canUpdateIncrementally, attributesToWrite.isEmpty, let first = sources.first, !annotationEdits.isEmpty || savedBase != nil,
      pages == (0..<first.file.pageCount).map({ Page(source: 0, index: $0, addedRotation: 0) })
    else { return false }
    let file = try QPDFFile(path: first.snapshot.path, url: first.original, password: first.password)
    guard !file.isEncrypted, !file.wasRepaired else { return false }
    let changes = annotationEdits.changes(inSource: 0)
    let touched = try file.apply(added: changes.added, removed: changes.removed, fieldValues: changes.fieldValues)
    guard !file.hasWarnings else { return false }
    let baseURL = savedBase?.copy ?? first.snapshot
    let base: Data
    do { base = try Data(contentsOf: baseURL, options: .alwaysMapped) } catch {
      throw QuireError(.systemCallFailed, "Cannot save \(displayName): its private copy '\(baseURL.path)' cannot be read.", url: documentURL, cause: error)
    }
    guard let previous = savedBase?.crossReference ?? QPDFFile.lastCrossReferenceOffset(in: base) else { return false }
    let objects = touched.union(savedBase?.written ?? [])
    let update = try file.incrementalUpdate(
      objects: objects, appendingTo: base.count, previous: previous, previousSize: savedBase?.size ?? file.trailerSize)
    let copy = try snapshotFolder().appendingPathComponent("saved-\(FileWrapper.randomSuffix()).pdf")
    for target in [path, copy.path] {
      // `path` may be the atomic writer's temporary file, named through /proc/self/fd: it
      // exists and is written in place (Foundation's createFile would replace it).
      guard
        FileManager.default.fileExists(atPath: target) || FileManager.default.createFile(atPath: target, contents: nil, attributes: [.posixPermissions: 0o600]),
        let handle = FileHandle(forWritingAtPath: target)
      else {
        throw QuireError(.systemCallFailed, "Cannot save \(displayName): '\(target)' cannot be written. Check that its folder is writable.", url: documentURL)
      }
      defer { try? handle.close() }
      do {
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: base)
        try handle.write(contentsOf: update.bytes)
      } catch {
        throw QuireError(.systemCallFailed, "Cannot save \(displayName): writing '\(target)' failed (is the disk full?).", url: documentURL, cause: error)
      }
    }
    if case .incremental(let unused) = lastWrite { _ = SystemCalls.remove(unused.copy.path) }
    lastWrite = .incremental(
      IncrementalBase(copy: copy, length: base.count + update.bytes.count, crossReference: update.crossReference, size: update.size, written: objects))
    return true
  }

  /// A PDF of the current state for drawing, when annotation edits are not yet written (nil
  /// when the document's files show it as it is). Made once per state.
  private func previewFile() throws -> PDFFile? {
    guard !annotationEdits.isEmpty || savedBase != nil else { return nil }
    if let preview, preview.pages == pages, preview.annotations == annotationEdits { return preview.file }
    let keptWrite = lastWrite
    defer { lastWrite = keptWrite }
    let path = try snapshotFolder().appendingPathComponent("preview-\(FileWrapper.randomSuffix()).pdf")
    try writePages(to: path.path)
    // The preview's own copy of an update is not a base for anything.
    if case .incremental(let made) = lastWrite { _ = SystemCalls.remove(made.copy.path) }
    let file = try PDFFile(contentsOf: path, password: sources.first?.password)
    _ = SystemCalls.remove(path.path)
    preview = (file, pages, annotationEdits)
    return file
  }

  /// The PDF with its page operations applied, as bytes: libqpdf writes it into the private
  /// snapshot folder, and the bytes are read back (mapped) for the document's safe save.
  func pdfData() throws -> Data {
    let snapshotFolder = try snapshotFolder()
    let temporary = snapshotFolder.appendingPathComponent("written-\(FileWrapper.randomSuffix()).pdf")
    defer { _ = SystemCalls.remove(temporary.path) }
    try writePages(to: temporary.path)
    do {
      return try Data(contentsOf: temporary)
    } catch {
      throw QuireError(
        .systemCallFailed, "Cannot save \(displayName): the PDF libqpdf wrote could not be read back from '\(snapshotFolder.path)'.",
        url: documentURL, cause: error)
    }
  }

  /// The document's state: its pages and its annotation and form edits. Undo steps hold
  /// whole states, so one can be written (``pdfData(of:)``) or put back at any time.
  typealias State = (pages: [Page], annotations: AnnotationEdits)

  /// The current state.
  var state: State { (pages, annotationEdits) }

  /// The PDF that `state` makes (the current one, or one from the undo history), written
  /// whole by libqpdf, as bytes: what a stored undo step holds. The document's own saves
  /// (incremental or not) are not affected.
  func pdfData(of state: State) throws -> Data {
    let kept = (pages, annotationEdits, lastWrite, canUpdateIncrementally)
    defer { (pages, annotationEdits, lastWrite, canUpdateIncrementally) = kept }
    (pages, annotationEdits) = state
    canUpdateIncrementally = false
    return try pdfData()
  }

  /// Makes the document the PDF `data` (a stored undo step run after a restart, or the file
  /// read again): `data` becomes a source of its own, the pages are all of its pages and no
  /// annotation edit is pending (its annotations are in it). The undo history stays: its
  /// steps hold whole states, so undoing or redoing this session's steps afterwards still
  /// puts back exactly the pages and annotations they name. Later saves rewrite the file
  /// whole.
  func replacePages(withPDFData data: Data) throws {
    let source = try addSource(
      url: documentURL ?? snapshotFolder().appendingPathComponent("untitled.pdf"), password: sources.first?.password, data: data)
    let number = sources.count - 1
    pages = (0..<source.file.pageCount).map { Page(source: number, index: $0, addedRotation: 0) }
    annotationEdits = AnnotationEdits()
    preview = nil
  }

  /// Puts back a state this document held (undoing a restore); the undo history stays.
  func setState(_ state: State) { (pages, annotationEdits) = state }

  /// Marks the current pages and annotations as saved (``hasUnsavedChanges`` becomes false);
  /// the last write becomes the base of the next incremental update, or, when it rewrote the
  /// file whole, later saves rewrite it whole too.
  func noteSaved() {
    savedPages = pages
    savedAnnotationEdits = annotationEdits
    if let editedOutline { self.editedOutline?.saved = outlineShape(editedOutline.root, byIdentity: true) }
    switch lastWrite {
    case .incremental(let base):
      if let old = savedBase { _ = SystemCalls.remove(old.copy.path) }
      savedBase = base
    case .rewrite: canUpdateIncrementally = false
    case nil: break
    }
    lastWrite = nil
  }

  private func saveError(_ error: SyscallFailure, url: URL) -> QuireError {
    let advice =
      switch error.errno {
      case .noSpace, .diskQuotaExceeded: "Free some space and save again; the original is untouched."
      case .permissionDenied, .notPermitted, .readOnlyFileSystem: "Its folder is not writable; use \"save as\" to keep a copy elsewhere."
      default: "Writing it beside the original failed; the original is untouched."
      }
    return QuireError(
      QuireError.Code(error.errno), "Cannot save \(QuireError.name(url)): \(QuireError.describe(error.errno)). \(advice)", url: url, cause: error)
  }

  // MARK: PDFKit's spellings

  /// The page at `index` (0-based), or nil past the end.
  open func page(at index: Int) -> PDFPage? {
    pages.indices.contains(index) ? PDFPage(document: self, page: pages[index]) : nil
  }

  /// Where `page` is in this document, or `NSNotFound`.
  open func index(for page: PDFPage) -> Int {
    guard page.document === self else { return NSNotFound }
    return pages.firstIndex { $0.source == page.page.source && $0.index == page.page.index } ?? NSNotFound
  }

  /// Inserts a copy of `page` (of this document or another) before `index` (an undoable page
  /// operation). Pages whose document forbids assembly, and indexes out of range, are ignored,
  /// as PDFKit does; ``insertPages(from:at:password:)`` says why.
  open func insert(_ page: PDFPage, at index: Int) {
    guard index >= 0, index <= pages.count, allowsDocumentAssembly else { return }
    if page.document === self {
      try? apply(.insert(name: documentURL?.lastPathComponent ?? "untitled.pdf", count: 1, at: index)) { pages in pages.insert(page.page, at: index) }
      return
    }
    guard let source = try? addSource(url: page.sourceURL, password: page.password) else { return }
    let number = sources.count - 1
    var copy = page.page
    copy.source = number
    try? apply(.insert(name: source.name, count: 1, at: index)) { pages in pages.insert(copy, at: index) }
  }

  /// The outline's root (its children are the top entries), or nil when there is none
  /// (PDFKit's `outlineRoot`).
  ///
  /// The tree is the document's own, as PDFKit's is: change its entries, or set a tree of
  /// ``PDFOutline``s built in code (nil takes the outline away), and the next ``write(to:)`` or
  /// save writes it in place of the file's. Entries go to the top of a page, or to their
  /// destination's point. An outline that was not changed is written exactly as the file had
  /// it; a changed one is written anew, and an entry the file gave another action than going
  /// to a page (a web address) then keeps only its title.
  open var outlineRoot: PDFOutline? {
    get { outlineTree() }
    set {
      _ = outlineTree()
      editedOutline?.root = newValue
    }
  }

  /// The outline tree given out by ``outlineRoot``, made from the file when first asked for,
  /// and its shape then (pages numbered by identity) and as last saved.
  private var editedOutline: (root: PDFOutline?, read: [PDFOutlineShape], saved: [PDFOutlineShape])?

  /// The tree of ``editedOutline``, made from the file the first time.
  private func outlineTree() -> PDFOutline? {
    if let editedOutline { return editedOutline.root }
    let items = outline
    let root = items.isEmpty ? nil : PDFOutline(label: nil, isOpen: true, pageIndex: nil, children: items, document: self)
    let shape = outlineShape(root, byIdentity: true)
    editedOutline = (root, shape, shape)
    return root
  }

  /// The entries of `root`, their pages numbered by their place in the current order, or
  /// (`byIdentity`) by the file page they are, so that moving pages does not count as a change.
  private func outlineShape(_ root: PDFOutline?, byIdentity: Bool) -> [PDFOutlineShape] {
    root?.shape { page in
      let index = self.index(for: page)
      guard index != NSNotFound else { return nil }
      return byIdentity ? page.page.source << 32 | page.page.index : index
    } ?? []
  }

  /// The outline to write in place of the file's (an empty one removes it), or nil to keep
  /// the file's: nil unless the tree from ``outlineRoot`` changed.
  private var outlineToWrite: [PDFOutlineShape]? {
    guard let editedOutline, outlineShape(editedOutline.root, byIdentity: true) != editedOutline.read else { return nil }
    return outlineShape(editedOutline.root, byIdentity: false)
  }

  /// Whether the outline changed since it was read or last saved.
  private var outlineChangedSinceSave: Bool {
    guard let editedOutline else { return false }
    return outlineShape(editedOutline.root, byIdentity: true) != editedOutline.saved
  }

  /// Document information set through ``documentAttributes`` and written by the next save.
  private var attributesToWrite: [String: String] = [:]

  /// The metadata by PDFKit's keys (``PDFDocumentAttribute``): strings, and dates for the
  /// creation and modification dates. Setting it (PDFKit's settable `documentAttributes`)
  /// records the string and date values for the next ``write(to:)``, which puts them in the
  /// file's document information dictionary; reading gives them back until then.
  open var documentAttributes: [AnyHashable: Any]? {
    get {
      var attributes = readAttributes()
      for (key, value) in attributesToWrite { attributes[key] = value }
      return attributes
    }
    set {
      var info: [String: String] = [:]
      for (key, value) in newValue ?? [:] {
        let name = (key as? String) ?? (key as? PDFDocumentAttribute)?.rawValue
        guard let name else { continue }
        switch value {
        case let text as String: info[name] = text
        case let date as Date: info[name] = Self.pdfDateString(date)
        default: continue
        }
      }
      attributesToWrite = info
    }
  }

  /// A date as PDF writes it in the document information (`D:YYYYMMDDHHmmSSZ`).
  static func pdfDateString(_ date: Date) -> String {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC") ?? .current
    let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
    func two(_ value: Int?) -> String { String(format: "%02d", value ?? 0) }
    return "D:\(String(format: "%04d", parts.year ?? 1970))\(two(parts.month))\(two(parts.day))\(two(parts.hour))\(two(parts.minute))\(two(parts.second))Z"
  }

  private func readAttributes() -> [AnyHashable: Any] {
    let metadata = self.metadata
    var attributes: [AnyHashable: Any] = [:]
    let strings: [(PDFDocumentAttribute, String?)] = [
      (.titleAttribute, metadata.title), (.authorAttribute, metadata.author), (.subjectAttribute, metadata.subject),
      (.creatorAttribute, metadata.creator), (.producerAttribute, metadata.producer), (.keywordsAttribute, metadata.keywords),
    ]
    for (key, value) in strings { if let value { attributes[key.rawValue] = value } }
    if let date = metadata.creationDate { attributes[PDFDocumentAttribute.creationDateAttribute.rawValue] = date }
    if let date = metadata.modificationDate { attributes[PDFDocumentAttribute.modificationDateAttribute.rawValue] = date }
    return attributes
  }

  /// The text of every page (nil when it cannot be read).
  open var string: String? { try? text() }

  /// The PDF with its page operations applied, as bytes (nil when writing fails).
  open func dataRepresentation() -> Data? { dataRepresentation(options: [:]) }

  /// The PDF written with `options` (PDFKit's `dataRepresentation(options:)`: the keys are
  /// ``PDFDocumentWriteOption``s, or their raw strings), as bytes; nil when writing fails or
  /// an option's value is not what ``write(to:withOptions:)`` takes.
  open func dataRepresentation(options: [AnyHashable: Any]) -> Data? {
    var writeOptions: [PDFDocumentWriteOption: Any] = [:]
    for (key, value) in options {
      if let option = key.base as? PDFDocumentWriteOption {
        writeOptions[option] = value
      } else if let name = key.base as? String {
        writeOptions[PDFDocumentWriteOption(rawValue: name)] = value
      }
    }
    guard let file = try? snapshotFolder().appendingPathComponent("data-\(UUID().uuidString).pdf") else { return nil }
    defer { try? FileManager.default.removeItem(at: file) }
    guard write(to: file, withOptions: writeOptions) else { return nil }
    return try? Data(contentsOf: file)
  }

  /// Writes the PDF to `url` and returns whether it worked (PDFKit's form; the throwing
  /// ``write(to:)`` says why).
  @_disfavoredOverload
  open func write(to url: URL) -> Bool {
    (try? write(to: url) as Void) != nil
  }

  /// Writes the PDF to the file at `path` and returns whether it worked.
  open func write(toFile path: String) -> Bool {
    (try? write(to: URL(fileURLWithPath: path)) as Void) != nil
  }

  /// Writes the PDF to `url` with `options` and returns whether it worked (PDFKit's
  /// `write(to:withOptions:)`). The options Quire has are the passwords, which encrypt the
  /// copy (see ``write(to:userPassword:ownerPassword:)``); a password that is not a `String`
  /// writes nothing and returns false.
  open func write(to url: URL, withOptions options: [PDFDocumentWriteOption: Any]?) -> Bool {
    var passwords: [String?] = []
    for key in [PDFDocumentWriteOption.userPasswordOption, .ownerPasswordOption] {
      guard let value = options?[key] else {
        passwords.append(nil)
        continue
      }
      guard let password = value as? String else { return false }
      passwords.append(password)
    }
    if passwords.allSatisfy({ $0 == nil }) { return write(to: url) }
    return (try? write(to: url, userPassword: passwords[0], ownerPassword: passwords[1])) != nil
  }

  /// Writes the PDF to the file at `path` with `options` (PDFKit's
  /// `write(toFile:withOptions:)`); see ``write(to:withOptions:)``.
  open func write(toFile path: String, withOptions options: [PDFDocumentWriteOption: Any]?) -> Bool {
    write(to: URL(fileURLWithPath: path), withOptions: options)
  }
}

@available(*, unavailable)
extension PDFDocument: Sendable {}
