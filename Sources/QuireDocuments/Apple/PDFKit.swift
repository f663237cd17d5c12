// PDFKit's names and member spellings over Quire's PDFDocument. Compatibility surface: see the
// "Porting from Apple's frameworks" article. Views (PDFView, PDFThumbnailView) are not here:
// Linux has no UIKit or AppKit; the values PDFKit's API hands out (a thumbnail's UIImage, a
// selection's UIColor, a page's CGPDFPage) are.
public import Foundation
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

/// PDFKit's `PDFPage`: one page of a ``PDFDocument``, wherever page operations move it.
///
/// A page belongs to the document it came from (``document``); inserting it into another
/// document (``PDFDocument/insert(_:at:)``) inserts a copy of it, as PDFKit does.
public final class PDFPage {
  /// The document the page is in.
  public private(set) weak var document: PDFDocument?
  let page: PDFDocument.Page
  let sourceURL: URL
  let password: String?

  init(document: PDFDocument, page: PDFDocument.Page) {
    self.document = document
    self.page = page
    self.sourceURL = document.sources[page.source].snapshot
    self.password = document.sources[page.source].password
  }

  /// Where the page is in its document now; nil when it was removed (or its document is gone).
  private var index: Int? {
    guard let index = document?.index(for: self), index != NSNotFound else { return nil }
    return index
  }

  /// The page's text (nil when it cannot be read).
  public var string: String? {
    guard let document, let index else { return nil }
    return try? document.text(ofPage: index)
  }

  /// The page's label: its number in the document, from 1.
  public var label: String? { index.map { String($0 + 1) } }

  /// The page's rotation in degrees clockwise (0, 90, 180, 270). Setting it rotates the page
  /// in its document (an undoable page operation).
  public var rotation: Int {
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
  public func bounds(for box: PDFDisplayBox) -> CGRect {
    guard let document, let index, let size = try? document.pageSize(at: index) else { return .zero }
    return CGRect(x: 0, y: 0, width: size.width, height: size.height)
  }

  /// How many characters the page's text has.
  public var numberOfCharacters: Int { string?.count ?? 0 }

  /// The page drawn as an image of `size` (PDFKit's `thumbnail(of:for:)`), one pixel per point.
  ///
  /// The page as displayed (its rotation applied, the crop box for every `box`) is scaled to
  /// fit inside `size` with its proportions kept and centred; the page is white, the margins
  /// transparent. The image is empty (no ``UIImage/cgImage``, size zero) when the page cannot
  /// be drawn: a page no longer in its document, a damaged page, a side below 1 or above
  /// 32767 pixels, or more than 64 million pixels in all (256 MB).
  public func thumbnail(of size: CGSize, for box: PDFDisplayBox) -> UIImage {
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
  public var pageRef: CGPDFPage? {
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

/// PDFKit's `PDFOutline`: a node of a document's outline (``PDFDocument/outlineRoot``), read
/// from the file and mapped to the current page order.
public final class PDFOutline {
  /// The entry's title.
  public let label: String?
  /// Whether the entry shows its children open.
  public let isOpen: Bool
  /// The entry above, nil for the root.
  public private(set) weak var parent: PDFOutline?
  private let children: [PDFOutline]
  private let pageIndex: Int?
  private weak var document: PDFDocument?

  init(label: String?, isOpen: Bool, pageIndex: Int?, children: [PDFOutlineItem], document: PDFDocument) {
    self.label = label
    self.isOpen = isOpen
    self.pageIndex = pageIndex
    self.document = document
    self.children = children.map { PDFOutline(label: $0.label, isOpen: $0.isOpen, pageIndex: $0.pageIndex, children: $0.children, document: document) }
    for child in self.children { child.parent = self }
  }

  /// How many entries are directly below this one.
  public var numberOfChildren: Int { children.count }

  /// The entry at `index` below this one.
  public func child(at index: Int) -> PDFOutline? { children.indices.contains(index) ? children[index] : nil }

  /// Where this entry is among its parent's children.
  public var index: Int { parent?.children.firstIndex { $0 === self } ?? 0 }

  /// The page the entry points to (nil when that page was removed, or for the root).
  public var destination: PDFDestination? {
    guard let pageIndex, let document, let page = document.page(at: pageIndex) else { return nil }
    return PDFDestination(page: page, at: .zero)
  }
}

/// PDFKit's `PDFDestination`: a page and a point on it.
public final class PDFDestination {
  /// The page.
  public let page: PDFPage?
  /// The point on the page.
  public let point: CGPoint
  public init(page: PDFPage, at point: CGPoint) {
    self.page = page
    self.point = point
  }
}

extension PDFDocument {
  /// Opens the PDF held in `data`, or nil when it is not a PDF that can be read (PDFKit's
  /// failable `init?(data:)`). The document has no file (``documentURL`` is nil) until
  /// ``save(to:)``.
  public convenience init?(data: Data) {
    try? self.init(data: data, url: nil)
  }

  /// The page at `index` (0-based), or nil past the end.
  public func page(at index: Int) -> PDFPage? {
    pages.indices.contains(index) ? PDFPage(document: self, page: pages[index]) : nil
  }

  /// Where `page` is in this document, or `NSNotFound`.
  public func index(for page: PDFPage) -> Int {
    guard page.document === self else { return NSNotFound }
    return pages.firstIndex { $0.source == page.page.source && $0.index == page.page.index } ?? NSNotFound
  }

  /// Inserts a copy of `page` (of this document or another) before `index` (an undoable page
  /// operation). Pages whose document forbids assembly, and indexes out of range, are ignored,
  /// as PDFKit does; ``insertPages(from:at:password:)`` says why.
  public func insert(_ page: PDFPage, at index: Int) {
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

  /// The outline's root (its children are the top entries), or nil when there is none.
  public var outlineRoot: PDFOutline? {
    let items = outline
    guard !items.isEmpty else { return nil }
    return PDFOutline(label: nil, isOpen: true, pageIndex: nil, children: items, document: self)
  }

  /// The metadata by PDFKit's keys (``PDFDocumentAttribute``): strings, and dates for the
  /// creation and modification dates.
  public var documentAttributes: [AnyHashable: Any]? {
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
  public var string: String? { try? text() }

  /// The PDF with its page operations applied, as bytes (nil when writing fails).
  public func dataRepresentation() -> Data? {
    guard let file = try? snapshotFolder().appendingPathComponent("data-\(UUID().uuidString).pdf") else { return nil }
    defer { try? FileManager.default.removeItem(at: file) }
    guard (try? write(to: file)) != nil else { return nil }
    return try? Data(contentsOf: file)
  }

  /// Writes the PDF to `url` and returns whether it worked (PDFKit's form; the throwing
  /// ``write(to:)`` says why).
  @_disfavoredOverload
  public func write(to url: URL) -> Bool {
    (try? write(to: url) as Void) != nil
  }

  /// Writes the PDF to the file at `path` and returns whether it worked.
  public func write(toFile path: String) -> Bool {
    (try? write(to: URL(fileURLWithPath: path)) as Void) != nil
  }
}

extension PDFSelection {
  /// The page the selection is on, in `document`.
  public func page(in document: PDFDocument) -> PDFPage? { document.page(at: pageIndex) }
}
