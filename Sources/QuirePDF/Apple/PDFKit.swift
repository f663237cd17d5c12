// PDFKit's names and member spellings over Quire's PDFDocument. Compatibility surface: see the
// "Porting from Apple's frameworks" article. Views (PDFView, PDFThumbnailView) are not here:
// Linux has no UIKit or AppKit; the values PDFKit's API hands out (a thumbnail's UIImage, a
// selection's UIColor, a page's CGPDFPage) are.
public import Foundation
import QuireDocuments
public import QuireFormats

/// PDFKit's `PDFDisplayBox`: which box of a page ``PDFPage/bounds(for:)`` measures. Quire
/// measures the crop box for every one of them (the box viewers show).
public enum PDFDisplayBox: Int, Sendable {
  case mediaBox, cropBox, bleedBox, trimBox, artBox
}

/// PDFKit's `PDFDocumentAttribute`: the keys of ``PDFDocument/documentAttributes``.
public struct PDFDocumentAttribute: RawRepresentable, Hashable, Sendable {
  public let rawValue: String
  public init(rawValue: String) { self.rawValue = rawValue }
  public static let titleAttribute = PDFDocumentAttribute(rawValue: "Title")
  public static let authorAttribute = PDFDocumentAttribute(rawValue: "Author")
  public static let subjectAttribute = PDFDocumentAttribute(rawValue: "Subject")
  public static let creatorAttribute = PDFDocumentAttribute(rawValue: "Creator")
  public static let producerAttribute = PDFDocumentAttribute(rawValue: "Producer")
  public static let creationDateAttribute = PDFDocumentAttribute(rawValue: "CreationDate")
  public static let modificationDateAttribute = PDFDocumentAttribute(rawValue: "ModDate")
  public static let keywordsAttribute = PDFDocumentAttribute(rawValue: "Keywords")
}

/// The options of PDFKit's `write(to:withOptions:)`: the passwords a written copy is
/// encrypted with.
public struct PDFDocumentWriteOption: RawRepresentable, Hashable, Sendable {
  public let rawValue: String
  public init(rawValue: String) { self.rawValue = rawValue }
  /// The password that opens the written copy (a `String`).
  public static let userPasswordOption = PDFDocumentWriteOption(rawValue: "UserPasswordOption")
  /// The password that unlocks the written copy for everything (a `String`).
  public static let ownerPasswordOption = PDFDocumentWriteOption(rawValue: "OwnerPasswordOption")
}

/// PDFKit's `PDFPage`: one page of a ``PDFDocument``, wherever page operations move it.
///
/// A page belongs to the document it came from (``document``); inserting it into another
/// document (``PDFDocument/insert(_:at:)``) inserts a copy of it, as PDFKit does.
open class PDFPage {
  /// The document the page is in.
  public private(set) weak var document: PDFDocument?
  let page: PDFDocument.Page
  let sourceURL: URL
  let password: String?

  /// The document of a page made on its own (``init()``, ``copy()``), which the page keeps
  /// open; nil for a page of a document someone else holds.
  private var ownDocument: PDFDocument?

  init(document: PDFDocument, page: PDFDocument.Page) {
    self.document = document
    self.page = page
    self.sourceURL = document.sources[page.source].snapshot
    self.password = document.sources[page.source].password
  }

  /// A blank page of US Letter size (612 × 792 points), in no document you hold (PDFKit's
  /// `init()`): insert it into one with ``PDFDocument/insert(_:at:)``. When the blank page
  /// cannot be made (no writable temporary folder), the page is empty: it has no text and
  /// bounds of zero.
  public convenience init() {
    let holder = Self.blankDocument()
    if let holder, let first = holder.pages.first {
      self.init(document: holder, page: first)
      ownDocument = holder
    } else {
      self.init(emptyIn: PDFDocument())
    }
  }

  /// A page that is in no document's page list: no text, bounds of zero.
  private init(emptyIn holder: PDFDocument) {
    document = holder
    page = PDFDocument.Page(source: -1, index: -1, addedRotation: 0)
    sourceURL = URL(fileURLWithPath: "/dev/null")
    password = nil
    ownDocument = holder
  }

  /// A one-page blank PDF made with cairo in the temporary folder and opened (its private
  /// snapshot is the document's; the file itself is removed at once).
  private static func blankDocument() -> PDFDocument? {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("quire-blank-page-\(UUID().uuidString).pdf")
    defer { try? FileManager.default.removeItem(at: url) }
    guard let writer = try? PDFWriter(url: url, width: 612, height: 792), (try? writer.addPage(markup: "")) != nil,
      (try? writer.finish()) != nil
    else { return nil }
    return try? PDFDocument(contentsOf: url)
  }

  /// A copy of the page in no document you hold (PDFKit's `copy()`, from `NSCopying`): its
  /// own one-page document, which it keeps open; insert it elsewhere with
  /// ``PDFDocument/insert(_:at:)``. A page no longer in its document copies as a blank page.
  open func copy() -> Any {
    guard let document, document.index(for: self) != NSNotFound else { return PDFPage() }
    let holder = PDFDocument()
    holder.insert(self, at: 0)
    guard let first = holder.pages.first else { return PDFPage() }
    let copy = PDFPage(document: holder, page: first)
    copy.ownDocument = holder
    return copy
  }

  /// Where the page is in its document now; nil when it was removed (or its document is gone).
  var index: Int? {
    guard let index = document?.index(for: self), index != NSNotFound else { return nil }
    return index
  }

  /// The page's text (nil when it cannot be read).
  open var string: String? {
    guard let document, let index else { return nil }
    return try? document.text(ofPage: index)
  }

  /// The page's label: its number in the document, from 1.
  open var label: String? { index.map { String($0 + 1) } }

  /// The page's rotation in degrees clockwise (0, 90, 180, 270). Setting it rotates the page
  /// in its document (an undoable page operation).
  open var rotation: Int {
    get {
      guard let document, let index else { return 0 }
      return (try? document.rotation(ofPage: index)) ?? 0
    }
    set {
      guard let document, let index else { return }
      let delta = ((newValue - rotation) % 360 + 360) % 360
      if delta != 0 { try? document.rotatePage(at: index, by: delta) }
    }
  }

  /// The page's box in points as displayed (crop box, rotation applied), from the origin.
  open func bounds(for box: PDFDisplayBox) -> CGRect {
    guard let document, let index, let size = try? document.pageSize(at: index) else { return .zero }
    return CGRect(x: 0, y: 0, width: size.width, height: size.height)
  }

  /// The page's annotations (PDFKit's `annotations`): the file's, less those removed, and
  /// those added since, widgets (form fields) included.
  open var annotations: [PDFAnnotation] { annotationList() }

  /// Puts `annotation` on the page (PDFKit's `addAnnotation(_:)`), one undoable step of the
  /// document; saving writes it with its appearance stream.
  open func addAnnotation(_ annotation: PDFAnnotation) { insertAnnotation(annotation) }

  /// Takes `annotation` off the page (PDFKit's `removeAnnotation(_:)`), one undoable step.
  open func removeAnnotation(_ annotation: PDFAnnotation) { deleteAnnotation(annotation) }

  /// The topmost annotation at `point` in page space (PDFKit's `annotation(at:)`), or nil.
  open func annotation(at point: CGPoint) -> PDFAnnotation? { annotation(containing: point) }

  /// How many characters the page's text has (PDFKit's `numberOfCharacters`): UTF-16 units of
  /// ``string``, as `NSString` counts them and ``characterBounds(at:)`` indexes them.
  open var numberOfCharacters: Int { string?.utf16.count ?? 0 }

  /// The page drawn as an image of `size` (PDFKit's `thumbnail(of:for:)`), one pixel per point.
  ///
  /// The page as displayed (its rotation applied, the crop box for every `box`) is scaled to
  /// fit inside `size` with its proportions kept and centred; the page is white, the margins
  /// transparent. The image is empty (no ``UIImage/cgImage``, size zero) when the page cannot
  /// be drawn: a page no longer in its document, a damaged page, a side below 1 or above
  /// 32767 pixels, or more than 64 million pixels in all (256 MB).
  open func thumbnail(of size: CGSize, for box: PDFDisplayBox) -> UIImage {
    let sides: ClosedRange<CGFloat> = 1...32767  // also keeps NaN and infinities out of Int()
    guard sides.contains(size.width.rounded()), sides.contains(size.height.rounded()),
      size.width.rounded() * size.height.rounded() <= 64_000_000
    else { return UIImage() }
    let width = Int(size.width.rounded())
    let height = Int(size.height.rounded())
    guard let document, let index,
      let bitmap = try? document.render(page: index, fittingIn: width, height: height), let image = try? CGImage(bitmap)
    else { return UIImage() }
    return UIImage(cgImage: image)
  }

  /// The page as CoreGraphics has it (PDFKit's `pageRef`): page ``CGPDFPage/pageNumber`` of
  /// the file it comes from, before this document's page operations; nil when the page is no
  /// longer in its document.
  open var pageRef: CGPDFPage? {
    guard let document, let index, let origin = try? document.origin(ofPage: index) else { return nil }
    return CGPDFDocument(document: document, source: origin.source).page(at: origin.index + 1)
  }
}

/// CoreGraphics' `CGPDFBox`: the boxes ``CGPDFPage/getBoxRect(_:)`` measures.
public enum CGPDFBox: Int32, Sendable {
  /// The page's medium.
  case mediaBox
  /// The region shown and printed (what Quire measures for every box).
  case cropBox
  /// The region clipped to in production.
  case bleedBox
  /// The finished page after trimming.
  case trimBox
  /// The page's meaningful content.
  case artBox
}

/// CoreGraphics' `CGPDFDocument`: a PDF file as it is on disk, with its pages numbered from 1,
/// as ``PDFPage/pageRef`` reaches it.
///
/// It is the file a page came from, before the ``PDFDocument``'s page operations (read from
/// the document's private snapshot of it), and keeps that document alive.
public final class CGPDFDocument {
  private let document: PDFDocument
  private let source: Int

  init(document: PDFDocument, source: Int) {
    self.document = document
    self.source = source
  }

  /// The number of pages in the file.
  public var numberOfPages: Int { document.sourceFacts(source).pageCount }

  /// Page `pageNumber`, from 1 (CoreGraphics' numbering), or nil outside 1…``numberOfPages``.
  public func page(at pageNumber: Int) -> CGPDFPage? {
    guard pageNumber >= 1, pageNumber <= numberOfPages else { return nil }
    return CGPDFPage(document: self, pageNumber: pageNumber, box: document.sourcePageBox(source, page: pageNumber - 1))
  }

  /// Whether the file's permissions let a reader copy its text.
  public var allowsCopying: Bool { document.sourceFacts(source).permissions.contains(.copy) }
  /// Whether the file's permissions let a reader print it.
  public var allowsPrinting: Bool { document.sourceFacts(source).permissions.contains(.print) }
  /// Whether the file is encrypted.
  public var isEncrypted: Bool { document.sourceFacts(source).isEncrypted }
  /// Whether the file can be read: always true here, since a ``PDFDocument`` opens only a file
  /// it can read (with its password).
  public var isUnlocked: Bool { true }
}

/// CoreGraphics' `CGPDFPage`: a page of a ``CGPDFDocument`` as the file has it.
public final class CGPDFPage {
  /// The file the page is in.
  public let document: CGPDFDocument?
  /// The page's number in its file, from 1.
  public let pageNumber: Int
  private let box: (rotation: Int, width: Double, height: Double)?

  init(document: CGPDFDocument, pageNumber: Int, box: (rotation: Int, width: Double, height: Double)?) {
    self.document = document
    self.pageNumber = pageNumber
    self.box = box
  }

  /// The page's rotation in the file (its /Rotate): 0, 90, 180 or 270 degrees clockwise.
  public var rotationAngle: Int32 { Int32(box?.rotation ?? 0) }

  /// The page's box in points, before ``rotationAngle`` is applied. Quire measures the crop
  /// box for every `box` and puts it at the origin; `.zero` when the page cannot be read.
  public func getBoxRect(_ box: CGPDFBox) -> CGRect {
    guard let size = self.box else { return .zero }
    return CGRect(x: 0, y: 0, width: size.width, height: size.height)
  }
}

/// PDFKit's `PDFOutline`: a node of a document's outline (``PDFDocument/outlineRoot``).
///
/// The tree a document gives is the document's own, as PDFKit's is: entries inserted,
/// removed, renamed or pointed elsewhere are written by the document's next ``PDFDocument/write(to:)``
/// or save (and a tree set as ``PDFDocument/outlineRoot`` replaces the file's outline).
open class PDFOutline {
  /// The entry's title.
  open var label: String?
  /// Whether the entry shows its children open.
  open var isOpen: Bool
  /// The entry above, nil for the root.
  public private(set) weak var parent: PDFOutline?
  private var children: [PDFOutline]
  /// The page an entry read from the file goes to (it follows the page wherever page
  /// operations move it).
  private var readPage: PDFPage?
  /// The destination set on an entry (PDFKit's settable `destination`).
  private var destinationSet: PDFDestination?

  /// An empty outline entry (PDFKit's `init()`): give it a ``label`` and a ``destination``
  /// and put it in a tree with ``insertChild(_:at:)``; a root (an entry without a label)
  /// becomes a document's outline as its ``PDFDocument/outlineRoot``.
  public init() {
    label = nil
    isOpen = false
    children = []
  }

  /// Puts `child` below this entry at `index` (clamped to the children's range), taking it
  /// from where it was.
  open func insertChild(_ child: PDFOutline, at index: Int) {
    child.removeFromParent()
    children.insert(child, at: min(max(0, index), children.count))
    child.parent = self
  }

  /// Takes the entry out of its parent.
  open func removeFromParent() {
    parent?.children.removeAll { $0 === self }
    parent = nil
  }

  init(label: String?, isOpen: Bool, pageIndex: Int?, children: [PDFOutlineItem], document: PDFDocument) {
    self.label = label
    self.isOpen = isOpen
    self.readPage = pageIndex.flatMap { document.page(at: $0) }
    self.children = children.map { PDFOutline(label: $0.label, isOpen: $0.isOpen, pageIndex: $0.pageIndex, children: $0.children, document: document) }
    for child in self.children { child.parent = self }
  }

  /// How many entries are directly below this one.
  open var numberOfChildren: Int { children.count }

  /// The entry at `index` below this one.
  open func child(at index: Int) -> PDFOutline? { children.indices.contains(index) ? children[index] : nil }

  /// Where this entry is among its parent's children.
  open var index: Int { parent?.children.firstIndex { $0 === self } ?? 0 }

  /// The place the entry goes to: for an entry read from the file, the top of its page
  /// (nil when that page was removed, and for the root); for one set in code, what was set.
  open var destination: PDFDestination? {
    get {
      if let destinationSet { return destinationSet }
      guard let readPage, let document = readPage.document, document.index(for: readPage) != NSNotFound else { return nil }
      return PDFDestination(page: readPage, at: .zero)
    }
    set {
      destinationSet = newValue
      readPage = nil
    }
  }

  /// The entries below this one: titles, the page of each as `page` numbers it (nil for
  /// none), the point, open or closed.
  func shape(page number: (PDFPage) -> Int?) -> [PDFOutlineShape] {
    children.map { child in
      let destination = child.destination
      let page = destination?.page.flatMap(number)
      let point = destination.flatMap { $0.point == .zero ? nil : [Double($0.point.x), Double($0.point.y)] }
      return PDFOutlineShape(
        label: child.label ?? "", pageIndex: page, point: page == nil ? nil : point, isOpen: child.isOpen, children: child.shape(page: number))
    }
  }
}

/// One outline entry as written: see ``PDFOutline``.
struct PDFOutlineShape: Equatable {
  var label: String
  /// The page it goes to (numbered as the caller of ``PDFOutline/shape(page:)`` chose).
  var pageIndex: Int?
  /// The point on the page in page space, nil for the page's top.
  var point: [Double]?
  var isOpen: Bool
  var children: [PDFOutlineShape]
}

/// PDFKit's `PDFDestination`: a page and a point on it.
open class PDFDestination {
  /// The page.
  public let page: PDFPage?
  /// The point on the page.
  public let point: CGPoint
  public init(page: PDFPage, at point: CGPoint) {
    self.page = page
    self.point = point
  }
}

extension PDFSelection {
  /// The page the selection is on, in `document`.
  public func page(in document: PDFDocument) -> PDFPage? { document.page(at: pageIndex) }
}

// PDFKit's classes are NSObjects there, so `==` and hashing work on them: by identity, and
// PDFKit hands out one PDFPage object per page. Quire's PDFDocument, PDFPage and PDFOutline
// are plain classes, and `page(at:)` makes a page object per call: a document is equal to
// itself only, and two page objects are equal when they are the same page of the same
// document. So `page.document == document` and sets of pages mean what they mean in PDFKit.

extension PDFDocument: Equatable, Hashable {
  /// Whether `lhs` and `rhs` are the same document object (NSObject's default `isEqual`).
  public static func == (lhs: PDFDocument, rhs: PDFDocument) -> Bool { lhs === rhs }
  /// Hashes the object's identity.
  public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

extension PDFPage: Equatable, Hashable {
  /// Whether `lhs` and `rhs` are the same page (of the same file) of the same document,
  /// whichever call made the objects; a page in no document is equal to itself only.
  public static func == (lhs: PDFPage, rhs: PDFPage) -> Bool {
    if lhs === rhs { return true }
    guard let document = lhs.document, document === rhs.document else { return false }
    return lhs.page.source == rhs.page.source && lhs.page.index == rhs.page.index
  }
  /// Hashes the document's identity and the page's place in its file.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(document.map(ObjectIdentifier.init))
    hasher.combine(page.source)
    hasher.combine(page.index)
  }
}

extension PDFOutline: Equatable, Hashable {
  /// Whether `lhs` and `rhs` are the same outline object (NSObject's default `isEqual`).
  public static func == (lhs: PDFOutline, rhs: PDFOutline) -> Bool { lhs === rhs }
  /// Hashes the object's identity.
  public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
