// PDFKit's PDFAnnotation and its value types. Compatibility surface: see the "Porting from
// Apple's frameworks" article. Ink paths are lists of points (`inkPaths`): Linux has no
// UIBezierPath.
public import Foundation
public import QuireFormats

/// PDFKit's `PDFAnnotationSubtype`: an annotation's kind, spelled as the PDF names it ("/Highlight").
public struct PDFAnnotationSubtype: RawRepresentable, Hashable, Sendable {
  public let rawValue: String
  public init(rawValue: String) { self.rawValue = rawValue.hasPrefix("/") ? rawValue : "/" + rawValue }
  public static let text = PDFAnnotationSubtype(rawValue: "/Text")
  public static let link = PDFAnnotationSubtype(rawValue: "/Link")
  public static let freeText = PDFAnnotationSubtype(rawValue: "/FreeText")
  public static let line = PDFAnnotationSubtype(rawValue: "/Line")
  public static let square = PDFAnnotationSubtype(rawValue: "/Square")
  public static let circle = PDFAnnotationSubtype(rawValue: "/Circle")
  public static let highlight = PDFAnnotationSubtype(rawValue: "/Highlight")
  public static let underline = PDFAnnotationSubtype(rawValue: "/Underline")
  public static let strikeOut = PDFAnnotationSubtype(rawValue: "/StrikeOut")
  /// The squiggly underline (PDF's /Squiggly; PDFKit reads it without a constant).
  public static let squiggly = PDFAnnotationSubtype(rawValue: "/Squiggly")
  public static let ink = PDFAnnotationSubtype(rawValue: "/Ink")
  public static let stamp = PDFAnnotationSubtype(rawValue: "/Stamp")
  public static let popup = PDFAnnotationSubtype(rawValue: "/Popup")
  public static let widget = PDFAnnotationSubtype(rawValue: "/Widget")

  /// The name without its slash ("Highlight"), as PDFKit's `PDFAnnotation.type` gives it.
  var name: String { String(rawValue.dropFirst()) }
}

/// PDFKit's `PDFAnnotationWidgetSubtype`: a form field's kind.
public struct PDFAnnotationWidgetSubtype: RawRepresentable, Hashable, Sendable {
  public let rawValue: String
  public init(rawValue: String) { self.rawValue = rawValue }
  public static let button = PDFAnnotationWidgetSubtype(rawValue: "/Btn")
  public static let choice = PDFAnnotationWidgetSubtype(rawValue: "/Ch")
  public static let signature = PDFAnnotationWidgetSubtype(rawValue: "/Sig")
  public static let text = PDFAnnotationWidgetSubtype(rawValue: "/Tx")
}

/// PDFKit's `PDFWidgetCellState`: a button's state.
public enum PDFWidgetCellState: Int, Sendable {
  case mixedState = -1
  case offState = 0
  case onState = 1
}

/// PDFKit's `PDFAnnotationKey`: the annotation dictionary keys of `withProperties:`.
public struct PDFAnnotationKey: RawRepresentable, Hashable, Sendable {
  public let rawValue: String
  public init(rawValue: String) { self.rawValue = rawValue }
  public static let contents = PDFAnnotationKey(rawValue: "/Contents")
  public static let color = PDFAnnotationKey(rawValue: "/C")
  public static let date = PDFAnnotationKey(rawValue: "/M")
  public static let textLabel = PDFAnnotationKey(rawValue: "/T")
  public static let quadPoints = PDFAnnotationKey(rawValue: "/QuadPoints")
  public static let interiorColor = PDFAnnotationKey(rawValue: "/IC")
  public static let name = PDFAnnotationKey(rawValue: "/Name")
  public static let open = PDFAnnotationKey(rawValue: "/Open")
}

/// PDFKit's `PDFBorderStyle`.
public enum PDFBorderStyle: Int, Sendable {
  case solid, dashed, beveled, inset, underline
}

/// PDFKit's `PDFBorder`: an annotation's border.
open class PDFBorder: NSObject {
  /// The line's width in points.
  open var lineWidth: CGFloat = 1
  /// The line's style (Quire draws every style solid).
  open var style: PDFBorderStyle = .solid
  public override init() { super.init() }
}

/// PDFKit's `PDFAnnotation`: a highlight, note, ink stroke, link, shape, stamp or form
/// widget on a page, in PDF user space (points, origin at the bottom left of the page).
///
/// An annotation made with ``init(bounds:forType:withProperties:)`` is a value until
/// ``PDFPage/addAnnotation(_:)`` puts it on a page; from then on, setting its properties
/// changes the page (each change one undoable step of the document), and saving writes it
/// with an appearance stream so that every reader draws it alike. A widget's
/// ``widgetStringValue`` and ``buttonWidgetState`` fill its form field.
open class PDFAnnotation: NSObject {
  var data: AnnotationData
  var key: AnnotationKey?
  /// The page the annotation is on (PDFKit's `page`); nil until added.
  open private(set) weak var page: PDFPage?

  /// An annotation of kind `type` at `bounds` (PDFKit's initializer). `properties` may give
  /// ``PDFAnnotationKey`` values: contents (String), colour (UIColor), text label (String),
  /// date (Date), quadrilateral points ([CGPoint] relative to `bounds`' origin), name (String).
  public init(bounds: CGRect, forType type: PDFAnnotationSubtype, withProperties properties: [AnyHashable: Any]?) {
    data = AnnotationData(subtype: type.name, rect: [bounds.minX, bounds.minY, bounds.maxX, bounds.maxY].map(Double.init))
    super.init()
    for (key, value) in properties ?? [:] {
      let name = (key as? PDFAnnotationKey)?.rawValue ?? (key as? String) ?? ""
      switch (name, value) {
      case ("/Contents", let text as String): data.contents = text
      case ("/T", let text as String): data.author = text
      case ("/M", let date as Date): data.modificationDate = date
      case ("/C", let color as UIColor): data.color = Self.components(color)
      case ("/IC", let color as UIColor): data.interiorColor = Self.components(color)
      case ("/Name", let text as String): data.iconName = text
      case ("/QuadPoints", let points as [CGPoint]): quadrilateralPoints = points
      default: continue
      }
    }
  }

  init(data: AnnotationData, key: AnnotationKey, page: PDFPage) {
    self.data = data
    self.key = key
    self.page = page
    super.init()
  }

  /// A markup annotation (`.highlight`, `.underline`, `.strikeOut`, `.squiggly`) over exactly
  /// the text `selection` covers on its first page (an annotation lies on one page: make one
  /// per page of ``PDFSelection/selectionsByLine()`` for the rest): one quadrilateral per
  /// matched area, in user space.
  public convenience init?(markupOver selection: PDFSelection, type: PDFAnnotationSubtype) {
    guard let document = selection.document, !selection.bounds.isEmpty,
      let quads = try? selection.bounds.flatMap({ try document.userSpaceQuad($0, onPage: selection.pageIndex) })
    else { return nil }
    let rect = PDFDocument.bounds(ofQuads: quads)
    self.init(bounds: CGRect(x: rect[0], y: rect[1], width: rect[2] - rect[0], height: rect[3] - rect[1]), forType: type, withProperties: nil)
    data.quadPoints = quads
    data.contents = selection.string
  }

  private static func components(_ color: UIColor) -> [Double] {
    [Double(color.redComponent), Double(color.greenComponent), Double(color.blueComponent)]
  }

  /// Writes a change to the page, when the annotation is on one.
  private func update(_ change: (inout AnnotationData) -> Void) {
    var changed = data
    change(&changed)
    guard changed != data else { return }
    if let page, let document = page.document, let key, let index = page.index,
      let newKey = try? document.replaceAnnotation(key, onPage: index, with: changed)
    {
      self.key = newKey
    }
    data = changed
  }

  /// The annotation's rectangle on the page.
  open var bounds: CGRect {
    get {
      let r = data.rect
      return CGRect(x: r[0], y: r[1], width: r[2] - r[0], height: r[3] - r[1])
    }
    set { update { $0.rect = [newValue.minX, newValue.minY, newValue.maxX, newValue.maxY].map(Double.init) } }
  }

  /// The kind without its slash ("Highlight", "Text", "Widget").
  open var type: String? { data.subtype }

  /// The colour (the kind's usual colour when the file gives none).
  open var color: UIColor {
    get {
      let c = data.color ?? Appearance.defaultColor(data.subtype)
      return c.count >= 3 ? UIColor(red: c[0], green: c[1], blue: c[2], alpha: 1) : UIColor(white: 0, alpha: 1)
    }
    set { update { $0.color = Self.components(newValue) } }
  }

  /// The text of a note, or the text a markup annotation covers.
  open var contents: String? {
    get { data.contents }
    set { update { $0.contents = newValue } }
  }

  /// The author (the annotation's /T).
  open var userName: String? {
    get { data.author }
    set { update { $0.author = newValue } }
  }

  /// When the annotation was last changed.
  open var modificationDate: Date? {
    get { data.modificationDate }
    set { update { $0.modificationDate = newValue } }
  }

  /// The border (its width draws ink, lines, shapes and free text).
  open var border: PDFBorder? {
    get {
      guard let width = data.borderWidth else { return nil }
      let border = PDFBorder()
      border.lineWidth = CGFloat(width)
      return border
    }
    set { update { $0.borderWidth = newValue.map { Double($0.lineWidth) } } }
  }

  /// A markup annotation's quadrilaterals, four points each (top left, top right, bottom
  /// left, bottom right), relative to ``bounds``' origin as PDFKit gives them.
  open var quadrilateralPoints: [CGPoint]? {
    get {
      guard let quads = data.quadPoints else { return nil }
      let origin = (data.rect[0], data.rect[1])
      return stride(from: 0, to: quads.count - 1, by: 2).map { CGPoint(x: quads[$0] - origin.0, y: quads[$0 + 1] - origin.1) }
    }
    set {
      let origin = (data.rect[0], data.rect[1])
      update { $0.quadPoints = newValue?.flatMap { [Double($0.x) + origin.0, Double($0.y) + origin.1] } }
    }
  }

  /// An ink annotation's strokes, in page space.
  open var inkPaths: [[CGPoint]] {
    get { (data.inkList ?? []).map { stroke in stride(from: 0, to: stroke.count - 1, by: 2).map { CGPoint(x: stroke[$0], y: stroke[$0 + 1]) } } }
    set { update { $0.inkList = newValue.map { $0.flatMap { [Double($0.x), Double($0.y)] } } } }
  }

  /// Adds a stroke to an ink annotation (PDFKit's `add(_:)` of a path).
  open func add(_ stroke: [CGPoint]) { inkPaths.append(stroke) }

  /// A line annotation's end points.
  open var startPoint: CGPoint {
    get { data.linePoints.map { CGPoint(x: $0[0], y: $0[1]) } ?? .zero }
    set { update { $0.linePoints = [Double(newValue.x), Double(newValue.y)] + ($0.linePoints?.suffix(2) ?? [0, 0]) } }
  }
  open var endPoint: CGPoint {
    get { data.linePoints.map { CGPoint(x: $0[2], y: $0[3]) } ?? .zero }
    set { update { $0.linePoints = ($0.linePoints?.prefix(2).map { $0 } ?? [0, 0]) + [Double(newValue.x), Double(newValue.y)] } }
  }

  /// A link's web address.
  open var url: URL? {
    get { data.url.flatMap(URL.init(string:)) }
    set { update { $0.url = newValue?.absoluteString } }
  }

  /// A link's page.
  open var destination: PDFDestination? {
    get {
      guard let target = data.destinationPage, let document = page?.document, let destinationPage = document.page(at: target) else { return nil }
      return PDFDestination(page: destinationPage, at: .zero)
    }
    set {
      let target = newValue?.page.flatMap { page in page.document?.index(for: page) }
      update { $0.destinationPage = target }
    }
  }

  /// A note's icon or a stamp's name.
  open var stampName: String? {
    get { data.iconName }
    set { update { $0.iconName = newValue } }
  }

  /// Whether the file draws the annotation from an appearance stream of its own (Quire
  /// writes one for every annotation it makes and every field it fills).
  open var hasAppearanceStream: Bool { data.hasAppearance }

  // MARK: Widgets

  /// A widget's field kind.
  open var widgetFieldType: PDFAnnotationWidgetSubtype { PDFAnnotationWidgetSubtype(rawValue: "/" + (data.field?.type ?? "")) }

  /// A widget's fully qualified field name.
  open var fieldName: String? { data.field?.name }

  /// A text or choice field's value; setting it fills the field (one undoable step).
  open var widgetStringValue: String? {
    get { data.field?.value }
    set {
      guard let name = data.field?.name, let document = page?.document, let newValue else { return }
      if (try? document.setValue(newValue, ofField: name)) != nil { data.field?.value = newValue }
    }
  }

  /// A check box's or radio button's state; setting it fills the field.
  open var buttonWidgetState: PDFWidgetCellState {
    get {
      guard let value = data.field?.value else { return .offState }
      return value == "Off" ? .offState : .onState
    }
    set {
      guard let field = data.field, let document = page?.document else { return }
      let value = newValue == .onState ? (field.onStates.first ?? "Yes") : "Off"
      if (try? document.setValue(value, ofField: field.name)) != nil { data.field?.value = value }
    }
  }

  /// The state name a button has when on ("Yes").
  open var buttonWidgetStateString: String { data.field?.onStates.first ?? "" }

  /// A choice field's choices.
  open var choices: [String]? { data.field.map(\.choices) }

  /// Whether the annotation is a text markup (highlight, underline, strike-out, squiggly).
  open var isMarkup: Bool { ["Highlight", "Underline", "StrikeOut", "Squiggly"].contains(data.subtype) }
}

extension PDFPage {
  /// The page's annotations now (the file's, less those removed, and those added).
  func annotationList() -> [PDFAnnotation] {
    guard let document, let index, let entries = try? document.annotationEntries(onPage: index) else { return [] }
    return entries.map { PDFAnnotation(data: $0.data, key: $0.key, page: self) }
  }

  /// Puts `annotation` on the page (one undoable step); ignored when it is on a page already
  /// or cannot be added (``PDFDocument`` says why through its throwing API).
  func insertAnnotation(_ annotation: PDFAnnotation) {
    guard annotation.key == nil, let document, let index, let id = try? document.addAnnotation(annotation.data, toPage: index) else { return }
    annotation.key = .added(id)
    annotation.attach(to: self)
  }

  /// Takes `annotation` off the page (one undoable step).
  func deleteAnnotation(_ annotation: PDFAnnotation) {
    guard let key = annotation.key, let document, let index, (try? document.removeAnnotation(key, fromPage: index)) != nil else { return }
    annotation.key = nil
  }

  /// The topmost annotation whose rectangle holds `point`.
  func annotation(containing point: CGPoint) -> PDFAnnotation? {
    annotationList().last { $0.bounds.contains(point) }
  }
}

extension PDFAnnotation {
  func attach(to page: PDFPage) { self.page = page }
}

extension PDFSelection {
  /// The rectangle around the selection on `page` in PDF user space (PDFKit's `bounds(for:)`);
  /// `.zero` when the selection is not on `page`.
  public func bounds(for page: PDFPage) -> CGRect {
    guard let document, let part = parts.first(where: { $0.pageIndex == document.index(for: page) }),
      let quads = try? part.bounds.flatMap({ try document.userSpaceQuad($0, onPage: part.pageIndex) }), !quads.isEmpty
    else { return .zero }
    let r = PDFDocument.bounds(ofQuads: quads)
    return CGRect(x: r[0], y: r[1], width: r[2] - r[0], height: r[3] - r[1])
  }
}

// In this file: setting the action is one `update` of the annotation's data.
extension PDFAnnotation {
  /// What activating the annotation does (PDFKit's `action`): a ``PDFActionURL`` for a link
  /// to a web address, a ``PDFActionGoTo`` for a link to a page, a ``PDFActionNamed`` for a
  /// viewer's operation, a ``PDFActionRemoteGoTo`` for a page of another PDF, a
  /// ``PDFActionResetForm`` for a form's reset button; nil for none (or a kind Quire does not
  /// read, such as JavaScript).
  ///
  /// Setting one of those makes the annotation do that, replacing what it did before, in one
  /// undoable step; nil takes the action away. An action of another kind is ignored.
  public var action: PDFAction? {
    get {
      if let url { return PDFActionURL(url: url) }
      switch data.otherAction {
      case .named(let name): return PDFActionNamed(name: PDFActionNamedName(pdfName: name))
      case .remoteGoTo(let file, let page, let point):
        let folder = self.page?.document?.documentURL?.deletingLastPathComponent()
        let url = file.hasPrefix("/") || folder == nil ? URL(fileURLWithPath: file) : URL(fileURLWithPath: file, relativeTo: folder)
        return PDFActionRemoteGoTo(pageIndex: page, at: point.map { CGPoint(x: $0[0], y: $0[1]) } ?? .zero, fileURL: url.standardizedFileURL)
      case .resetForm(let fields, let exceptThem):
        let reset = PDFActionResetForm()
        reset.fields = fields.isEmpty ? nil : fields
        reset.fieldsIncludedAreCleared = !exceptThem
        return reset
      case nil: break
      }
      if let destination { return PDFActionGoTo(destination: destination) }
      return nil
    }
    set {
      var target: (url: String?, page: Int?, other: AnnotationData.LinkAction?) = (nil, nil, nil)
      switch newValue {
      case let link as PDFActionURL: target.url = link.url?.absoluteString
      case let goTo as PDFActionGoTo: target.page = goTo.destination.page.flatMap { page in page.document?.index(for: page) }
      case let named as PDFActionNamed: target.other = .named(named.name.pdfName)
      case let remote as PDFActionRemoteGoTo:
        let point = remote.point == .zero ? nil : [Double(remote.point.x), Double(remote.point.y)]
        target.other = .remoteGoTo(file: remote.url.path, page: max(0, remote.pageIndex), point: point)
      case let reset as PDFActionResetForm: target.other = .resetForm(fields: reset.fields ?? [], exceptThem: !reset.fieldsIncludedAreCleared)
      case nil: break
      default: return
      }
      update {
        $0.url = target.url
        $0.destinationPage = target.page
        $0.otherAction = target.other
      }
    }
  }
}
