import Foundation

/// An indirect object of a PDF file: its number and generation.
struct PDFObjectReference: Hashable, Comparable, Codable, Sendable {
  var number: Int32
  var generation: Int32

  static func < (a: Self, b: Self) -> Bool { (a.number, a.generation) < (b.number, b.generation) }
}

/// One annotation as data: what Quire reads from a file's annotation dictionary and writes
/// into a new one (names as the PDF reference spells them, coordinates in PDF user space:
/// points, origin at the bottom left of the page).
struct AnnotationData: Codable, Equatable, Sendable {
  /// The /Subtype without its slash: "Highlight", "Text", "Ink", "Widget", …
  var subtype: String
  /// /Rect: x1, y1, x2, y2.
  var rect: [Double]
  /// /C: an RGB colour, each 0…1.
  var color: [Double]?
  /// /IC: the interior colour of squares, circles and line endings.
  var interiorColor: [Double]?
  /// /Contents.
  var contents: String?
  /// /T of a markup annotation: its author.
  var author: String?
  /// /M.
  var modificationDate: Date?
  /// The /Border's (or /BS's) width.
  var borderWidth: Double?
  /// /QuadPoints of text markup: 8 numbers per quadrilateral (top left, top right, bottom
  /// left, bottom right, as Acrobat writes them).
  var quadPoints: [Double]?
  /// /InkList: each stroke as x, y pairs.
  var inkList: [[Double]]?
  /// /L of a line: x1, y1, x2, y2.
  var linePoints: [Double]?
  /// A link's /A /URI.
  var url: String?
  /// A link's destination page, 0-based in the file the annotation is in.
  var destinationPage: Int?
  /// A link's action of another kind than going to an address or a page.
  var otherAction: LinkAction?
  /// /Name: a note's icon or a stamp's name.
  var iconName: String?
  /// A free text annotation's font size (from /DA).
  var fontSize: Double?
  /// /Open of a note.
  var isOpen: Bool?
  /// The form field of a widget, when it is one.
  var field: FormFieldData?
  /// /NM: the annotation's name, unique on its page (Quire names those it makes
  /// "quire-UUID", the same in every save).
  var uniqueName: String?
  /// Whether the file gives the annotation an appearance stream (/AP /N).
  var hasAppearance: Bool = false

  /// The actions a link may hold besides /URI and a destination (PDF 32000 12.6.4).
  enum LinkAction: Codable, Equatable, Sendable {
    /// /S /Named: a viewer's own operation, by its name without the slash ("NextPage").
    case named(String)
    /// /S /GoToR: a page (0-based) of another PDF, named as the file gives it, at a point
    /// (x, y in that page's space) or its top.
    case remoteGoTo(file: String, page: Int, point: [Double]?)
    /// /S /ResetForm: the fields named (all when empty) are reset, or all but them.
    case resetForm(fields: [String], exceptThem: Bool)
  }

  init(subtype: String, rect: [Double]) {
    self.subtype = subtype
    self.rect = rect
  }
}

/// A form field as data: its fully qualified name, kind, value and choices.
struct FormFieldData: Codable, Equatable, Sendable {
  /// The fully qualified name (partial names joined by dots).
  var name: String
  /// /FT without its slash: "Tx", "Btn", "Ch", "Sig".
  var type: String
  /// /Ff.
  var flags: Int
  /// /V: text, a choice, or a button's state name.
  var value: String?
  /// /Opt: the choices' export values.
  var choices: [String]
  /// The states a button's widgets can be in besides "Off" (their /AP /N names).
  var onStates: [String]

  /// What kind of field it is, for people: "text", "check box", "radio", "push button",
  /// "choice", "combo box", "signature".
  var kind: String {
    switch type {
    case "Tx": return "text"
    case "Btn": return flags & (1 << 16) != 0 ? "push button" : flags & (1 << 15) != 0 ? "radio" : "check box"
    case "Ch": return flags & (1 << 17) != 0 ? "combo box" : "choice"
    case "Sig": return "signature"
    default: return type
    }
  }
}

/// The annotation and form changes made to a ``PDFDocument`` and not yet written: they are
/// kept per page (by its file and its index there), so they follow the page when it moves.
struct AnnotationEdits: Equatable {
  struct PageKey: Hashable, Codable {
    var source: Int
    var index: Int
  }
  struct Added: Equatable {
    var id: UUID
    var data: AnnotationData
  }
  /// New annotations, per page, in the order they were added.
  var added: [PageKey: [Added]] = [:]
  /// Annotations of the file taken off their page.
  var removed: [PageKey: Set<PDFObjectReference>] = [:]
  /// New values of form fields, per file, by their fully qualified names.
  var fieldValues: [Int: [String: String]] = [:]

  var isEmpty: Bool { added.values.allSatisfy(\.isEmpty) && removed.values.allSatisfy(\.isEmpty) && fieldValues.values.allSatisfy(\.isEmpty) }

  /// The changes to file `source`: per page index there.
  func changes(inSource source: Int) -> (added: [Int: [AnnotationData]], removed: [Int: Set<PDFObjectReference>], fieldValues: [String: String]) {
    var added: [Int: [AnnotationData]] = [:]
    for (key, list) in self.added where key.source == source && !list.isEmpty { added[key.index] = list.map(\.data) }
    var removed: [Int: Set<PDFObjectReference>] = [:]
    for (key, set) in self.removed where key.source == source && !set.isEmpty { removed[key.index] = set }
    return (added, removed, fieldValues[source] ?? [:])
  }

  func touches(source: Int) -> Bool {
    let changes = changes(inSource: source)
    return !changes.added.isEmpty || !changes.removed.isEmpty || !changes.fieldValues.isEmpty
  }
}
