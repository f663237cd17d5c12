// PDFKit's actions: what activating an annotation does (`PDFAnnotation.action`): go to a web
// address (`PDFActionURL`), a place in the document (`PDFActionGoTo`) or a page of another PDF
// (`PDFActionRemoteGoTo`), run a viewer's operation (`PDFActionNamed`), reset a form
// (`PDFActionResetForm`).
// Compatibility surface: see the "Porting from Apple's frameworks" article.
public import Foundation

/// PDFKit's `PDFAction`: what activating an annotation does. Quire makes and reads
/// ``PDFActionURL``, ``PDFActionGoTo``, ``PDFActionRemoteGoTo``, ``PDFActionNamed`` and
/// ``PDFActionResetForm``.
open class PDFAction: NSObject {
  /// The action's kind as PDFKit names it: "URL", "GoTo", "RemoteGoTo", "Named", "ResetForm".
  open var type: String { "" }
}

/// PDFKit's `PDFActionURL`: a link to a web address (the file's `/A /URI` action).
open class PDFActionURL: PDFAction {
  /// The address.
  open var url: URL?

  /// An action that opens `url`.
  public init(url: URL) {
    self.url = url
    super.init()
  }

  open override var type: String { "URL" }
}

/// PDFKit's `PDFActionGoTo`: a link to a place in the document (the file's `/Dest`).
open class PDFActionGoTo: PDFAction {
  /// The place.
  open var destination: PDFDestination

  /// An action that goes to `destination`.
  public init(destination: PDFDestination) {
    self.destination = destination
    super.init()
  }

  open override var type: String { "GoTo" }
}

/// PDFKit's `PDFActionNamedName`: the viewer operations a ``PDFActionNamed`` runs.
public enum PDFActionNamedName: Int, Sendable, CaseIterable {
  case none = 0
  case nextPage, previousPage, firstPage, lastPage, goBack, goForward, goToPage, find, print, zoomIn, zoomOut

  /// The name the file gives it (PDF 32000 12.6.4.11, and Acrobat's for the rest).
  var pdfName: String {
    switch self {
    case .none: "None"
    case .nextPage: "NextPage"
    case .previousPage: "PrevPage"
    case .firstPage: "FirstPage"
    case .lastPage: "LastPage"
    case .goBack: "GoBack"
    case .goForward: "GoForward"
    case .goToPage: "GoToPage"
    case .find: "Find"
    case .print: "Print"
    case .zoomIn: "ZoomViewIn"
    case .zoomOut: "ZoomViewOut"
    }
  }

  /// The operation a file's name stands for; ``none`` for one PDFKit has no case for.
  init(pdfName: String) {
    self = Self.allCases.first { $0.pdfName == pdfName } ?? .none
  }
}

/// PDFKit's `PDFActionNamed`: a viewer's own operation (next page, print, …; the file's
/// `/S /Named`).
open class PDFActionNamed: PDFAction {
  /// The operation.
  open var name: PDFActionNamedName

  /// An action that runs `name`.
  public init(name: PDFActionNamedName) {
    self.name = name
    super.init()
  }

  open override var type: String { "Named" }
}

/// PDFKit's `PDFActionRemoteGoTo`: a page of another PDF (the file's `/S /GoToR`).
open class PDFActionRemoteGoTo: PDFAction {
  /// The page, 0-based.
  open var pageIndex: Int
  /// The point on that page, in its page space (zero for its top).
  open var point: CGPoint
  /// The other PDF. A name the file gives relative to itself is resolved against the
  /// document's folder when read, and written as the URL's path.
  open var url: URL

  /// An action that opens `url` at page `pageIndex` (0-based), at `point`.
  public init(pageIndex: Int, at point: CGPoint, fileURL url: URL) {
    self.pageIndex = pageIndex
    self.point = point
    self.url = url
    super.init()
  }

  open override var type: String { "RemoteGoTo" }
}

/// PDFKit's `PDFActionResetForm`: a form's reset button (the file's `/S /ResetForm`).
open class PDFActionResetForm: PDFAction {
  /// The fields by name: the ones reset when ``fieldsIncludedAreCleared``, else the ones
  /// kept; nil for every field.
  open var fields: [String]?
  /// Whether ``fields`` names the fields to reset (true, the default) or those to keep.
  open var fieldsIncludedAreCleared = true

  /// An action that resets every field.
  public override init() { super.init() }

  open override var type: String { "ResetForm" }
}
