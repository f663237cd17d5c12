// PDFKit's actions: what activating an annotation does (`PDFAnnotation.action`), for links to
// a web address (`PDFActionURL`) and to a place in the document (`PDFActionGoTo`).
// Compatibility surface: see the "Porting from Apple's frameworks" article.
public import Foundation

/// PDFKit's `PDFAction`: what activating an annotation does. Quire makes and reads the two a
/// link holds, ``PDFActionURL`` and ``PDFActionGoTo``.
open class PDFAction: NSObject {
  /// The action's kind as PDFKit names it: "URL", "GoTo".
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
