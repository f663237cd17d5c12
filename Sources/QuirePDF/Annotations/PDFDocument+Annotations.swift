import Foundation
import QuireDocuments
import QuireFormats
import QuireTypes

/// Which annotation of a page an entry is: one of the file's (by its object) or one added
/// since the document was opened.
enum AnnotationKey: Hashable {
  case file(PDFObjectReference)
  case added(UUID)
  /// A direct annotation dictionary of the file: listed, but it cannot be removed by reference.
  case unnamed(Int)
}

/// One annotation of a page as the document has it now.
struct AnnotationEntry {
  var key: AnnotationKey
  var data: AnnotationData
}

/// Form field kinds and states as Quire reports them (``PDFDocument/formFields()``).
public struct PDFFormField: Sendable, Equatable {
  /// The fully qualified name (`fill NAME VALUE` takes it).
  public var name: String
  /// "text", "check box", "radio", "push button", "choice", "combo box" or "signature".
  public var kind: String
  /// The value: the text, a choice, or a button's state ("Off" when not checked).
  public var value: String?
  /// A choice field's choices; a radio's or check box's states besides "Off".
  public var choices: [String]
}

extension PDFDocument {
  private static let maximumContents = 65_536
  private static let maximumCoordinate = 1_000_000.0

  // MARK: Reading

  /// The annotations of page `index` (0-based, current order), as the file has them with the
  /// unsaved changes applied: the file's first (less those removed), then those added.
  func annotationEntries(onPage index: Int) throws -> [AnnotationEntry] {
    let page = try checkedPage(index)
    let key = AnnotationEdits.PageKey(source: page.source, index: page.index)
    let removed = annotationEdits.removed[key] ?? []
    let values = annotationEdits.fieldValues[page.source] ?? [:]
    var entries: [AnnotationEntry] = []
    for (position, item) in try annotationsInFile(key).enumerated() {
      if let reference = item.reference, removed.contains(reference) { continue }
      var data = item.data
      if let name = data.field?.name, let value = values[name] {
        data.field?.value = value
        data.hasAppearance = true
      }
      entries.append(AnnotationEntry(key: item.reference.map { .file($0) } ?? .unnamed(position), data: data))
    }
    for added in annotationEdits.added[key] ?? [] { entries.append(AnnotationEntry(key: .added(added.id), data: added.data)) }
    return entries
  }

  /// The annotations page `key` has in its file, read once through libqpdf.
  private func annotationsInFile(_ key: AnnotationEdits.PageKey) throws -> [(reference: PDFObjectReference?, data: AnnotationData)] {
    if let known = fileAnnotations[key] { return known }
    let file = try qpdf(forSource: key.source)
    let read = try file.annotations(ofPage: key.index)
    fileAnnotations[key] = read
    return read
  }

  /// The form's fields (of the first file), with the unsaved values.
  public func formFields() throws -> [PDFFormField] {
    guard !sources.isEmpty else { return [] }
    let values = annotationEdits.fieldValues[0] ?? [:]
    return try qpdf(forSource: 0).formFields().map { field in
      PDFFormField(
        name: field.name, kind: field.kind, value: values[field.name] ?? field.value, choices: field.type == "Btn" ? field.onStates : field.choices)
    }
  }

  // MARK: Changing

  /// Adds `data` to page `index` (0-based) as one undoable step; returns its identity.
  @discardableResult
  func addAnnotation(_ data: AnnotationData, toPage index: Int) throws -> UUID {
    let page = try checkedPage(index)
    try checkAnnotating("annotate")
    try validate(data)
    var data = data
    if data.modificationDate == nil { data.modificationDate = Date() }
    if data.color == nil, data.subtype != "Link" { data.color = Appearance.defaultColor(data.subtype) }
    data.hasAppearance = Appearance.make(for: data) != nil
    let id = UUID()
    data.uniqueName = "quire-\(id.uuidString.lowercased())"
    let key = AnnotationEdits.PageKey(source: page.source, index: page.index)
    applyAnnotationChange(named: "Add \(Self.displayName(ofSubtype: data.subtype))") { edits in
      edits.added[key, default: []].append(.init(id: id, data: data))
    }
    return id
  }

  /// Takes annotation `key` off page `index` (0-based) as one undoable step.
  func removeAnnotation(_ key: AnnotationKey, fromPage index: Int) throws {
    let page = try checkedPage(index)
    try checkAnnotating("remove annotations from")
    let pageKey = AnnotationEdits.PageKey(source: page.source, index: page.index)
    let entries = try annotationEntries(onPage: index)
    guard let entry = entries.first(where: { $0.key == key }) else {
      throw QuireError(.invalidArgument, "Cannot remove the annotation from page \(index + 1) of \(displayName): it is not on that page.", url: documentURL)
    }
    if entry.data.subtype == "Widget" {
      throw QuireError(
        .invalidArgument,
        "Cannot remove the form field '\(entry.data.field?.name ?? "")' from page \(index + 1) of \(displayName): fields are filled, not removed.",
        url: documentURL)
    }
    let name = "Remove \(Self.displayName(ofSubtype: entry.data.subtype))"
    switch key {
    case .added(let id):
      applyAnnotationChange(named: name) { edits in edits.added[pageKey]?.removeAll { $0.id == id } }
    case .file(let reference):
      applyAnnotationChange(named: name) { edits in edits.removed[pageKey, default: []].insert(reference) }
    case .unnamed:
      throw QuireError(
        .unsupportedType,
        "Cannot remove that annotation from page \(index + 1) of \(displayName): the file keeps it inside the page, not as an object of its own.",
        url: documentURL)
    }
  }

  /// Replaces annotation `key` of page `index` with `data` (one undoable step); returns the
  /// annotation's key afterwards (a file's annotation becomes a new one).
  func replaceAnnotation(_ key: AnnotationKey, onPage index: Int, with data: AnnotationData) throws -> AnnotationKey {
    let page = try checkedPage(index)
    try checkAnnotating("change annotations of")
    try validate(data)
    var data = data
    data.modificationDate = Date()
    data.hasAppearance = Appearance.make(for: data) != nil
    let pageKey = AnnotationEdits.PageKey(source: page.source, index: page.index)
    let name = "Change \(Self.displayName(ofSubtype: data.subtype))"
    switch key {
    case .added(let id):
      applyAnnotationChange(named: name) { edits in
        if let at = edits.added[pageKey]?.firstIndex(where: { $0.id == id }) { edits.added[pageKey]?[at].data = data }
      }
      return key
    case .file(let reference):
      let id = UUID()
      data.uniqueName = "quire-\(id.uuidString.lowercased())"
      applyAnnotationChange(named: name) { edits in
        edits.removed[pageKey, default: []].insert(reference)
        edits.added[pageKey, default: []].append(.init(id: id, data: data))
      }
      return .added(id)
    case .unnamed:
      throw QuireError(
        .unsupportedType, "Cannot change that annotation of page \(index + 1) of \(displayName): the file keeps it inside the page.", url: documentURL)
    }
  }

  /// Sets form field `name` (fully qualified) to `value` as one undoable step: text for a
  /// text field, `on`/`off` (or a state name) for a check box, a state for a radio, a choice
  /// for a choice field. The field's appearance is written with it.
  public func setValue(_ value: String, ofField name: String) throws {
    guard permissions.contains(.fillForm) || permissions.contains(.addNotes) else {
      throw QuireError(.permissionDenied, "Cannot fill the form of \(displayName): its security settings forbid it.", url: documentURL)
    }
    let fields = try qpdf(forSource: 0).formFields()
    guard let field = fields.first(where: { $0.name == name }) else {
      let known = fields.prefix(20).map(\.name).joined(separator: ", ")
      throw QuireError(
        .invalidArgument,
        fields.isEmpty
          ? "Cannot fill '\(name)' in \(displayName): it has no form fields."
          : "Cannot fill '\(name)' in \(displayName): it has no such field (it has \(known)).", url: documentURL)
    }
    guard value.utf8.count <= Self.maximumContents else {
      throw QuireError(.invalidArgument, "Cannot fill '\(name)' in \(displayName): the value is longer than \(Self.maximumContents) bytes.", url: documentURL)
    }
    var stored = value
    switch field.kind {
    case "check box":
      switch value.lowercased() {
      case "on", "yes", "true", "1": stored = field.onStates.first ?? "Yes"
      case "off", "no", "false", "0": stored = "Off"
      default:
        guard field.onStates.contains(value) else {
          throw QuireError(.invalidArgument, "Cannot set the check box '\(name)' of \(displayName) to '\(value)': use on or off.", url: documentURL)
        }
      }
    case "radio":
      guard value == "Off" || value.lowercased() == "off" || field.onStates.contains(value) else {
        throw QuireError(
          .invalidArgument,
          "Cannot set the radio button '\(name)' of \(displayName) to '\(value)': use one of \(field.onStates.joined(separator: ", ")) or off.",
          url: documentURL)
      }
      if value.lowercased() == "off" { stored = "Off" }
    case "choice", "combo box":
      guard field.choices.contains(value) || field.kind == "combo box" && field.flags & (1 << 18) != 0 else {
        throw QuireError(
          .invalidArgument, "Cannot set the choice '\(name)' of \(displayName) to '\(value)': use one of \(field.choices.joined(separator: ", ")).",
          url: documentURL)
      }
    case "text": break
    default:
      throw QuireError(
        .unsupportedType, "Cannot fill the \(field.kind) field '\(name)' of \(displayName): Quire fills text, check box, radio and choice fields.",
        url: documentURL)
    }
    applyAnnotationChange(named: "Fill \(name)") { edits in edits.fieldValues[0, default: [:]][name] = stored }
  }

  /// Puts every field back to the value the file has (one undoable step; PDFKit's
  /// "reset form" action).
  public func resetFormFields() {
    guard !(annotationEdits.fieldValues[0] ?? [:]).isEmpty else { return }
    applyAnnotationChange(named: "Reset Form") { edits in edits.fieldValues[0] = nil }
  }

  // MARK: Markup over text

  /// The quadrilaterals (PDF user space, 8 numbers each) of every occurrence of `text` on
  /// page `index`, in reading order.
  func quadrilaterals(of text: String, onPage index: Int, caseSensitive: Bool = false) throws -> [[Double]] {
    try matches(of: text, onPage: index, caseSensitive: caseSensitive).map { try userSpaceQuad($0, onPage: index) }
  }

  /// `rect` (points from the top left of page `index` as its file displays it, its `/Rotate`
  /// applied, as poppler reports text and the page is drawn) in PDF user space, as a
  /// quadrilateral: the displayed top left, top right, bottom left and bottom right corners.
  /// On a turned page the quadrilateral is turned back with it, so text markup lies along
  /// the text and other readers draw it where it was made.
  func userSpaceQuad(_ rect: PDFRect, onPage index: Int) throws -> [Double] {
    let map = try userSpaceMap(onPage: index)
    let corners = [(rect.x, rect.y), (rect.x + rect.width, rect.y), (rect.x, rect.y + rect.height), (rect.x + rect.width, rect.y + rect.height)]
    return corners.flatMap { map($0) }
  }

  /// Page `index`'s map from points as its file displays it (from the top left, `/Rotate`
  /// applied) to PDF user space: the page's boxes read once, for as many points as needed.
  func userSpaceMap(onPage index: Int) throws -> @Sendable ((x: Double, y: Double)) -> [Double] {
    let page = try checkedPage(index)
    let file = sources[page.source].file
    let crop = try readable(index) { try file.cropBox(ofPage: page.index) }
    let rotation = QPDFFile.normalized((try? qpdf(forSource: page.source).rotation(ofPage: page.index)) ?? 0)
    return { Self.userSpacePoint(displayed: $0, crop: crop, rotation: rotation) }
  }

  /// A point shown at (`x`, `y`) points from the top left of a page turned `rotation` degrees
  /// clockwise (0, 90, 180, 270), as (x, y) in user space of the page whose crop box is `crop`.
  static func userSpacePoint(displayed point: (x: Double, y: Double), crop: PDFRect, rotation: Int) -> [Double] {
    // (a, b): from the unturned page's top left, b downwards.
    let (a, b): (Double, Double)
    switch rotation {
    case 90: (a, b) = (point.y, crop.height - point.x)
    case 180: (a, b) = (crop.width - point.x, crop.height - point.y)
    case 270: (a, b) = (crop.width - point.y, point.x)
    default: (a, b) = (point.x, point.y)
    }
    return [crop.x + a, crop.y + crop.height - b]
  }

  /// Marks every occurrence of `text` on page `index` with a `subtype` markup annotation
  /// ("Highlight", "Underline", "StrikeOut", "Squiggly"), one annotation per occurrence;
  /// returns how many were made.
  func markText(_ text: String, onPage index: Int, subtype: String, color: [Double]? = nil) throws -> Int {
    let quads = try quadrilaterals(of: text, onPage: index)
    for quad in quads {
      var data = AnnotationData(subtype: subtype, rect: Self.bounds(ofQuads: quad))
      data.quadPoints = quad
      data.color = color
      data.contents = text
      try addAnnotation(data, toPage: index)
    }
    return quads.count
  }

  static func bounds(ofQuads quads: [Double]) -> [Double] {
    let xs = stride(from: 0, to: quads.count - 1, by: 2).map { quads[$0] }
    let ys = stride(from: 1, to: quads.count, by: 2).map { quads[$0] }
    return [xs.min() ?? 0, ys.min() ?? 0, xs.max() ?? 0, ys.max() ?? 0]
  }

  // MARK: Checks

  private func checkedPage(_ index: Int) throws -> Page { try page(index) }

  private func checkAnnotating(_ verb: String) throws {
    guard permissions.contains(.addNotes) else {
      throw QuireError(.permissionDenied, "Cannot \(verb) \(displayName): its security settings forbid adding notes.", url: documentURL)
    }
  }

  private func validate(_ data: AnnotationData) throws {
    func finite(_ values: [Double]) -> Bool { values.allSatisfy { $0.isFinite && abs($0) <= Self.maximumCoordinate } }
    let coordinates = data.rect + (data.quadPoints ?? []) + (data.inkList ?? []).flatMap { $0 } + (data.linePoints ?? [])
    guard data.rect.count == 4, finite(coordinates), data.rect[0] <= data.rect[2], data.rect[1] <= data.rect[3] else {
      throw QuireError(
        .invalidArgument, "Cannot annotate \(displayName): the annotation's place is not a rectangle on the page (x1 ≤ x2, y1 ≤ y2, within ±1,000,000 points).",
        url: documentURL)
    }
    guard (data.quadPoints?.count ?? 0) % 8 == 0, (data.inkList ?? []).allSatisfy({ $0.count % 2 == 0 && $0.count <= 20_000 }),
      (data.inkList?.count ?? 0) <= 1_000
    else {
      throw QuireError(
        .invalidArgument, "Cannot annotate \(displayName): its points are incomplete (x, y pairs; 4 points per quadrilateral).", url: documentURL)
    }
    guard (data.contents?.utf8.count ?? 0) <= Self.maximumContents, (data.author?.utf8.count ?? 0) <= 1_000, (data.url?.utf8.count ?? 0) <= 8_000 else {
      throw QuireError(.invalidArgument, "Cannot annotate \(displayName): its text is longer than \(Self.maximumContents) bytes.", url: documentURL)
    }
    if let target = data.destinationPage, !(0..<max(1, sources.first?.file.pageCount ?? 0)).contains(target) {
      throw QuireError(.invalidArgument, "Cannot link to page \(target + 1) of \(displayName): it has no such page.", url: documentURL)
    }
  }

  static func displayName(ofSubtype subtype: String) -> String {
    switch subtype {
    case "Text": "Note"
    case "FreeText": "Free Text"
    case "StrikeOut": "Strike-Out"
    case "Widget": "Form Field"
    default: subtype
    }
  }
}
