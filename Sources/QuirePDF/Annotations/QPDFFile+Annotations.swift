internal import CQPDF
import Foundation
import QuireTypes

/// Reading annotations and form fields through libqpdf's object handles, applying a
/// document's annotation edits to the file's objects, and writing those objects as an
/// incremental update.
///
/// Every walk over the file's objects is bounded (arrays, field trees, parent chains), so a
/// hostile file costs at most those bounds.
extension QPDFFile {
  private static let maximumItems = 10_000
  private static let maximumDepth = 32

  // MARK: Reading values

  private func key(_ object: qpdf_oh, _ name: String) -> qpdf_oh { qpdf_oh_get_key_if_dict(handle, object, name) }

  private func isDictionary(_ object: qpdf_oh) -> Bool { qpdf_oh_is_dictionary(handle, object) != 0 }

  private func name(_ object: qpdf_oh) -> String? {
    guard qpdf_oh_is_name(handle, object) != 0, let raw = qpdf_oh_get_name(handle, object) else { return nil }
    return String(String(cString: raw).dropFirst())
  }

  private func number(_ object: qpdf_oh) -> Double? {
    guard qpdf_oh_is_number(handle, object) != 0 else { return nil }
    let value = qpdf_oh_get_numeric_value(handle, object)
    return value.isFinite ? value : nil
  }

  private func text(_ object: qpdf_oh) -> String? {
    guard qpdf_oh_is_string(handle, object) != 0, let raw = qpdf_oh_get_utf8_value(handle, object) else { return nil }
    return String(cString: raw)
  }

  private func items(_ object: qpdf_oh) -> [qpdf_oh] {
    guard qpdf_oh_is_array(handle, object) != 0 else { return [] }
    let count = min(Int(qpdf_oh_get_array_n_items(handle, object)), Self.maximumItems)
    return (0..<max(0, count)).map { qpdf_oh_get_array_item(handle, object, Int32($0)) }
  }

  /// A link action of a kind other than /URI and /GoTo (see `AnnotationData.LinkAction`).
  private func otherAction(_ action: qpdf_oh) -> AnnotationData.LinkAction? {
    switch name(key(action, "/S")) {
    case "Named": return name(key(action, "/N")).map { .named($0) }
    case "GoToR":
      let fileSpecification = key(action, "/F")
      guard let file = text(fileSpecification) ?? text(key(fileSpecification, "/UF")) ?? text(key(fileSpecification, "/F")) else { return nil }
      let destination = items(key(action, "/D"))
      let page = destination.first.flatMap(number).map { max(0, Int($0)) } ?? 0
      let point = destination.count >= 4 && name(destination[1]) == "XYZ" ? [destination[2], destination[3]].compactMap(number) : []
      return .remoteGoTo(file: file, page: page, point: point.count == 2 ? point : nil)
    case "ResetForm":
      let fields = items(key(action, "/Fields")).compactMap { text($0) ?? text(key($0, "/T")) }
      let flags = Int(number(key(action, "/Flags")) ?? 0)
      return .resetForm(fields: fields, exceptThem: flags & 1 == 1)
    default: return nil
    }
  }

  /// The action dictionary of `action`.
  private func actionObject(_ action: AnnotationData.LinkAction) -> qpdf_oh {
    switch action {
    case .named(let name):
      let object = qpdf_oh_parse(handle, "<< /S /Named >>")
      qpdf_oh_replace_key(handle, object, "/N", qpdf_oh_new_name(handle, "/" + name))
      return object
    case .remoteGoTo(let file, let page, let point):
      let object = qpdf_oh_parse(handle, "<< /S /GoToR >>")
      qpdf_oh_replace_key(handle, object, "/F", qpdf_oh_new_unicode_string(handle, file))
      qpdf_oh_replace_key(handle, object, "/D", destination(to: qpdf_oh_new_integer(handle, Int64(page)), at: point))
      return object
    case .resetForm(let fields, let exceptThem):
      let object = qpdf_oh_parse(handle, "<< /S /ResetForm >>")
      if !fields.isEmpty {
        let names = qpdf_oh_new_array(handle)
        for field in fields { qpdf_oh_append_item(handle, names, qpdf_oh_new_unicode_string(handle, field)) }
        qpdf_oh_replace_key(handle, object, "/Fields", names)
      }
      qpdf_oh_replace_key(handle, object, "/Flags", qpdf_oh_new_integer(handle, exceptThem ? 1 : 0))
      return object
    }
  }

  private func numbers(_ object: qpdf_oh) -> [Double]? {
    guard qpdf_oh_is_array(handle, object) != 0 else { return nil }
    return items(object).compactMap(number)
  }

  private func reference(_ object: qpdf_oh) -> PDFObjectReference? {
    let number = qpdf_oh_get_object_id(handle, object)
    return number > 0 ? PDFObjectReference(number: number, generation: qpdf_oh_get_generation(handle, object)) : nil
  }

  private func keys(_ dictionary: qpdf_oh) -> [String] {
    guard isDictionary(dictionary) else { return [] }
    var names: [String] = []
    qpdf_oh_begin_dict_key_iter(handle, dictionary)
    while qpdf_oh_dict_more_keys(handle) != 0, names.count < Self.maximumItems {
      if let raw = qpdf_oh_dict_next_key(handle) { names.append(String(cString: raw)) }
    }
    return names
  }

  /// Looks `name` up on `object` and then up its /Parent chain (inheritable field entries).
  private func inherited(_ object: qpdf_oh, _ name: String) -> qpdf_oh? {
    var node = object
    for _ in 0..<Self.maximumDepth {
      let value = key(node, name)
      if qpdf_oh_is_null(handle, value) == 0 { return value }
      let parent = key(node, "/Parent")
      guard isDictionary(parent) else { return nil }
      node = parent
    }
    return nil
  }

  // MARK: Reading annotations

  /// The annotations of page `index` (0-based, in this file), each with its object.
  /// Direct (unreferenced) annotation dictionaries, which cannot be named for removal, are
  /// listed without a reference.
  func annotations(ofPage index: Int) throws -> [(reference: PDFObjectReference?, data: AnnotationData)] {
    guard index >= 0, index < pageCount else { return [] }
    let page = qpdf_get_page_n(handle, index)
    try check("reading page \(index + 1)")
    let pages = (0..<min(pageCount, Self.maximumItems)).compactMap { reference(qpdf_get_page_n(handle, $0)) }
    var result: [(PDFObjectReference?, AnnotationData)] = []
    for annotation in items(key(page, "/Annots")) where isDictionary(annotation) {
      guard let subtype = name(key(annotation, "/Subtype")) else { continue }
      let rect = numbers(key(annotation, "/Rect")) ?? []
      var data = AnnotationData(
        subtype: subtype, rect: rect.count == 4 ? [min(rect[0], rect[2]), min(rect[1], rect[3]), max(rect[0], rect[2]), max(rect[1], rect[3])] : [0, 0, 0, 0])
      data.color = numbers(key(annotation, "/C"))
      data.interiorColor = numbers(key(annotation, "/IC"))
      data.contents = text(key(annotation, "/Contents"))
      if subtype != "Widget" { data.author = text(key(annotation, "/T")) }
      data.modificationDate = text(key(annotation, "/M")).flatMap(Self.date)
      data.borderWidth = number(key(key(annotation, "/BS"), "/W")) ?? numbers(key(annotation, "/Border")).flatMap { $0.count >= 3 ? $0[2] : nil }
      data.quadPoints = numbers(key(annotation, "/QuadPoints"))
      let ink = items(key(annotation, "/InkList")).compactMap(numbers)
      data.inkList = ink.isEmpty ? nil : ink
      data.linePoints = numbers(key(annotation, "/L"))
      data.iconName = name(key(annotation, "/Name"))
      data.uniqueName = text(key(annotation, "/NM"))
      data.isOpen = qpdf_oh_is_bool(handle, key(annotation, "/Open")) != 0 ? qpdf_oh_get_bool_value(handle, key(annotation, "/Open")) != 0 : nil
      let action = key(annotation, "/A")
      data.url = text(key(action, "/URI"))
      data.otherAction = otherAction(action)
      let destination = qpdf_oh_is_null(handle, key(annotation, "/Dest")) == 0 ? key(annotation, "/Dest") : key(action, "/D")
      if let target = items(destination).first, let target = reference(target) { data.destinationPage = pages.firstIndex(of: target) }
      let appearance = key(annotation, "/AP")
      data.hasAppearance = qpdf_oh_is_null(handle, key(appearance, "/N")) == 0
      if subtype == "Widget" { data.field = field(of: annotation) }
      result.append((reference(annotation), data))
    }
    _ = lastError()
    return result
  }

  /// The form field a widget belongs to (itself, or up its /Parent chain).
  private func field(of widget: qpdf_oh) -> FormFieldData? {
    guard let type = inherited(widget, "/FT").flatMap(name) else { return nil }
    var parts: [String] = []
    var node = widget
    for _ in 0..<Self.maximumDepth {
      if let partial = text(key(node, "/T")) { parts.insert(partial, at: 0) }
      let parent = key(node, "/Parent")
      guard isDictionary(parent) else { break }
      node = parent
    }
    let flags = inherited(widget, "/Ff").flatMap(number).map { Int(max(min($0, Double(Int32.max)), 0)) } ?? 0
    let value = inherited(widget, "/V").flatMap { text($0) ?? name($0) }
    let choices = inherited(widget, "/Opt").map { options in items(options).compactMap { text($0) ?? items($0).first.flatMap(text) } } ?? []
    let states = keys(key(key(widget, "/AP"), "/N")).map { String($0.dropFirst()) }.filter { $0 != "Off" }
    return FormFieldData(name: parts.joined(separator: "."), type: type, flags: flags, value: value, choices: choices, onStates: states)
  }

  /// The form's fields (the catalog's /AcroForm /Fields tree), one entry per field with the
  /// on-states of all its widgets.
  func formFields() -> [FormFieldData] {
    let fields = key(key(qpdf_get_root(handle), "/AcroForm"), "/Fields")
    var result: [FormFieldData] = []
    var seen = Set<PDFObjectReference>()
    var budget = Self.maximumItems
    func visit(_ node: qpdf_oh, depth: Int) {
      guard depth < Self.maximumDepth, budget > 0, isDictionary(node) else { return }
      budget -= 1
      if let reference = reference(node) {
        guard seen.insert(reference).inserted else { return }
      }
      let kids = items(key(node, "/Kids")).filter(isDictionary)
      let childFields = kids.filter { qpdf_oh_has_key(handle, $0, "/T") != 0 }
      if !childFields.isEmpty {
        for kid in childFields { visit(kid, depth: depth + 1) }
        return
      }
      let widgets = kids.isEmpty ? [node] : kids
      guard var found = field(of: widgets[0]) else { return }
      for widget in widgets.dropFirst() {
        for state in field(of: widget)?.onStates ?? [] where !found.onStates.contains(state) { found.onStates.append(state) }
      }
      result.append(found)
    }
    for node in items(fields) { visit(node, depth: 0) }
    _ = lastError()
    return result
  }

  /// A PDF date ("D:20240102030405Z", "D:20240102030405+01'00'").
  static func date(_ text: String) -> Date? {
    var digits = Substring(text)
    if digits.hasPrefix("D:") { digits = digits.dropFirst(2) }
    let number = digits.prefix { $0.isNumber }
    guard number.count >= 4 else { return nil }
    func part(_ offset: Int, _ length: Int, _ fallback: Int) -> Int {
      let start = number.index(number.startIndex, offsetBy: offset, limitedBy: number.endIndex) ?? number.endIndex
      let end = number.index(start, offsetBy: length, limitedBy: number.endIndex) ?? number.endIndex
      return Int(number[start..<end]) ?? fallback
    }
    var components = DateComponents()
    (components.year, components.month, components.day) = (part(0, 4, 1970), part(4, 2, 1), part(6, 2, 1))
    (components.hour, components.minute, components.second) = (part(8, 2, 0), part(10, 2, 0), part(12, 2, 0))
    var offset = 0
    let rest = digits.dropFirst(number.count)
    if let sign = rest.first, sign == "+" || sign == "-" {
      let zone = rest.dropFirst().split(separator: "'").compactMap { Int($0) }
      offset = ((zone.first ?? 0) * 3600 + (zone.dropFirst().first ?? 0) * 60) * (sign == "-" ? -1 : 1)
    }
    components.timeZone = TimeZone(secondsFromGMT: offset)
    return Calendar(identifier: .gregorian).date(from: components)
  }

  // MARK: Applying edits

  /// Applies annotation edits to this file's objects: on page `index` (0-based here) the
  /// annotations `removed` are taken off and `added` made (each with its appearance stream);
  /// `fieldValues` are set on the form's fields (by fully qualified name), with new
  /// appearances for text and choice fields and the state for buttons.
  /// - Returns: The objects changed or made, for an incremental update.
  func apply(added: [Int: [AnnotationData]], removed: [Int: Set<PDFObjectReference>], fieldValues: [String: String]) throws -> Set<PDFObjectReference> {
    var touched = Set<PDFObjectReference>()
    for index in Set(added.keys).union(removed.keys).sorted() {
      guard index >= 0, index < pageCount else { continue }
      let page = qpdf_get_page_n(handle, index)
      try check("reading page \(index + 1)")
      if let reference = reference(page) { touched.insert(reference) }
      var annots = key(page, "/Annots")
      if qpdf_oh_is_array(handle, annots) == 0 {
        annots = qpdf_oh_new_array(handle)
        qpdf_oh_replace_key(handle, page, "/Annots", annots)
        annots = key(page, "/Annots")
      } else if let reference = reference(annots) {
        touched.insert(reference)
      }
      if let gone = removed[index], !gone.isEmpty {
        let count = min(Int(qpdf_oh_get_array_n_items(handle, annots)), Self.maximumItems)
        for position in stride(from: count - 1, through: 0, by: -1) {
          if let reference = reference(qpdf_oh_get_array_item(handle, annots, Int32(position))), gone.contains(reference) {
            qpdf_oh_erase_item(handle, annots, Int32(position))
          }
        }
      }
      for data in added[index] ?? [] {
        let annotation = try makeAnnotation(data, on: page, touched: &touched)
        qpdf_oh_append_item(handle, annots, annotation)
      }
      try check("adding annotations to page \(index + 1)")
    }
    if !fieldValues.isEmpty { try fill(fieldValues, touched: &touched) }
    return touched
  }

  /// Makes the annotation dictionary of `data` (an indirect object) with its appearance.
  private func makeAnnotation(_ data: AnnotationData, on page: qpdf_oh, touched: inout Set<PDFObjectReference>) throws -> qpdf_oh {
    let n = Appearance.n
    func array(_ values: [Double]) -> String { "[" + values.map(n).joined(separator: " ") + "]" }
    var syntax = "<< /Type /Annot /Subtype /\(data.subtype) /Rect \(array(data.rect)) /F 4"
    if let color = data.color ?? (data.subtype == "Link" ? nil : Appearance.defaultColor(data.subtype)) { syntax += " /C \(array(color))" }
    if let interior = data.interiorColor { syntax += " /IC \(array(interior))" }
    if let quads = data.quadPoints { syntax += " /QuadPoints \(array(quads))" }
    if let ink = data.inkList { syntax += " /InkList [" + ink.map(array).joined(separator: " ") + "]" }
    if let line = data.linePoints { syntax += " /L \(array(line))" }
    if let width = data.borderWidth { syntax += " /BS << /W \(n(width)) /S /S >>" }
    if data.subtype == "Link" { syntax += " /Border [0 0 0]" }
    if data.subtype == "Text" { syntax += " /Name /\(Self.safeName(data.iconName ?? "Note")) /Open \(data.isOpen ?? false)" }
    if data.subtype == "Stamp" { syntax += " /Name /\(Self.safeName(data.iconName ?? "Draft"))" }
    if data.subtype == "FreeText" { syntax += " /DA (/Helv \(n(data.fontSize ?? 12)) Tf 0 g)" }
    syntax += " >>"
    let dictionary = qpdf_oh_parse(handle, syntax)
    try check("making an annotation")
    if let contents = data.contents { qpdf_oh_replace_key(handle, dictionary, "/Contents", qpdf_oh_new_unicode_string(handle, contents)) }
    if let author = data.author { qpdf_oh_replace_key(handle, dictionary, "/T", qpdf_oh_new_unicode_string(handle, author)) }
    qpdf_oh_replace_key(handle, dictionary, "/M", qpdf_oh_new_string(handle, PDFDocument.pdfDateString(data.modificationDate ?? Date())))
    qpdf_oh_replace_key(handle, dictionary, "/NM", qpdf_oh_new_string(handle, data.uniqueName ?? "quire-\(UUID().uuidString.lowercased())"))
    qpdf_oh_replace_key(handle, dictionary, "/P", page)
    if let url = data.url {
      let action = qpdf_oh_parse(handle, "<< /S /URI >>")
      qpdf_oh_replace_key(handle, action, "/URI", qpdf_oh_new_string(handle, url))
      qpdf_oh_replace_key(handle, dictionary, "/A", action)
    } else if let other = data.otherAction {
      qpdf_oh_replace_key(handle, dictionary, "/A", actionObject(other))
    } else if let target = data.destinationPage, target >= 0, target < pageCount {
      let destination = qpdf_oh_parse(handle, "[null /XYZ null null null]")
      qpdf_oh_set_array_item(handle, destination, 0, qpdf_get_page_n(handle, target))
      qpdf_oh_replace_key(handle, dictionary, "/Dest", destination)
    }
    if let appearance = Appearance.make(for: data) {
      let stream = try makeAppearanceStream(appearance, fontResources: nil)
      if let reference = reference(stream) { touched.insert(reference) }
      let normal = qpdf_oh_new_dictionary(handle)
      qpdf_oh_replace_key(handle, normal, "/N", stream)
      qpdf_oh_replace_key(handle, dictionary, "/AP", normal)
    }
    let annotation = qpdf_make_indirect_object(handle, dictionary)
    try check("making an annotation")
    if let reference = reference(annotation) { touched.insert(reference) }
    return annotation
  }

  private static func safeName(_ text: String) -> String {
    let kept = text.unicodeScalars.filter {
      ($0.value >= 0x30 && $0.value <= 0x39) || ($0.value >= 0x41 && $0.value <= 0x5A) || ($0.value >= 0x61 && $0.value <= 0x7A)
    }
    return kept.isEmpty ? "Note" : String(String.UnicodeScalarView(kept.prefix(64)))
  }

  /// A form XObject stream (indirect) holding `appearance`; `fontResources`, when given, is
  /// the /Font dictionary to use (the form's /DR fonts).
  private func makeAppearanceStream(_ appearance: Appearance, fontResources: qpdf_oh?) throws -> qpdf_oh {
    let stream = qpdf_oh_new_stream(handle)
    let bytes = Array(appearance.content.utf8)
    bytes.withUnsafeBufferPointer { buffer in
      qpdf_oh_replace_stream_data(handle, stream, buffer.baseAddress, buffer.count, qpdf_oh_new_null(handle), qpdf_oh_new_null(handle))
    }
    let dictionary = qpdf_oh_get_dict(handle, stream)
    qpdf_oh_replace_key(handle, dictionary, "/Type", qpdf_oh_new_name(handle, "/XObject"))
    qpdf_oh_replace_key(handle, dictionary, "/Subtype", qpdf_oh_new_name(handle, "/Form"))
    qpdf_oh_replace_key(handle, dictionary, "/FormType", qpdf_oh_new_integer(handle, 1))
    qpdf_oh_replace_key(handle, dictionary, "/BBox", qpdf_oh_parse(handle, "[" + appearance.box.map(Appearance.n).joined(separator: " ") + "]"))
    let resources = qpdf_oh_parse(handle, appearance.resources)
    if let fontName = appearance.formFont {
      let fonts = qpdf_oh_new_dictionary(handle)
      let font = fontResources.map { key($0, "/" + fontName) }
      if let font, isDictionary(font) {
        qpdf_oh_replace_key(handle, fonts, "/" + fontName, font)
      } else {
        qpdf_oh_replace_key(handle, fonts, "/" + fontName, qpdf_oh_parse(handle, Appearance.helvetica))
      }
      qpdf_oh_replace_key(handle, resources, "/Font", fonts)
    }
    qpdf_oh_replace_key(handle, dictionary, "/Resources", resources)
    qpdf_oh_replace_key(handle, dictionary, "/Length", qpdf_oh_new_integer(handle, Int64(bytes.count)))
    try check("making an appearance stream")
    return stream
  }

  /// Sets form field values by fully qualified name, with their widgets' appearances.
  private func fill(_ values: [String: String], touched: inout Set<PDFObjectReference>) throws {
    let form = key(qpdf_get_root(handle), "/AcroForm")
    let fontResources = key(key(form, "/DR"), "/Font")
    var budget = Self.maximumItems
    var seen = Set<PDFObjectReference>()
    func visit(_ node: qpdf_oh, prefix: String, depth: Int) throws {
      guard depth < Self.maximumDepth, budget > 0, isDictionary(node) else { return }
      budget -= 1
      if let reference = reference(node) {
        guard seen.insert(reference).inserted else { return }
      }
      let partial = text(key(node, "/T"))
      let name = partial.map { prefix.isEmpty ? $0 : prefix + "." + $0 } ?? prefix
      let kids = items(key(node, "/Kids")).filter(isDictionary)
      let childFields = kids.filter { qpdf_oh_has_key(handle, $0, "/T") != 0 }
      if !childFields.isEmpty {
        for kid in childFields { try visit(kid, prefix: name, depth: depth + 1) }
        return
      }
      guard let value = values[name], let field = self.field(of: kids.first ?? node) else { return }
      let widgets = kids.isEmpty ? [node] : kids
      if let reference = reference(node) { touched.insert(reference) }
      switch field.type {
      case "Btn":
        let state = value == "Off" ? "Off" : value
        qpdf_oh_replace_key(handle, node, "/V", qpdf_oh_new_name(handle, "/" + Self.safeName(state)))
        for widget in widgets {
          let states = keys(key(key(widget, "/AP"), "/N"))
          qpdf_oh_replace_key(handle, widget, "/AS", qpdf_oh_new_name(handle, states.contains("/" + state) ? "/" + Self.safeName(state) : "/Off"))
          if let reference = reference(widget) { touched.insert(reference) }
        }
      default:
        qpdf_oh_replace_key(handle, node, "/V", qpdf_oh_new_unicode_string(handle, value))
        let da = inherited(widgets[0], "/DA").flatMap(text) ?? text(key(form, "/DA"))
        for widget in widgets {
          let rect = numbers(key(widget, "/Rect")) ?? []
          guard rect.count == 4 else { continue }
          let appearance = Appearance.field(
            value: value, width: abs(rect[2] - rect[0]), height: abs(rect[3] - rect[1]), defaultAppearance: da,
            isMultiline: field.type == "Tx" && field.flags & (1 << 12) != 0, background: numbers(key(key(widget, "/MK"), "/BG")),
            borderColor: numbers(key(key(widget, "/MK"), "/BC")), borderWidth: number(key(key(widget, "/BS"), "/W")) ?? 1)
          let stream = try makeAppearanceStream(appearance, fontResources: fontResources)
          if let reference = reference(stream) { touched.insert(reference) }
          let normal = qpdf_oh_new_dictionary(handle)
          qpdf_oh_replace_key(handle, normal, "/N", stream)
          qpdf_oh_replace_key(handle, widget, "/AP", normal)
          if let reference = reference(widget) { touched.insert(reference) }
        }
      }
      try check("filling the field '\(name)'")
    }
    for node in items(key(form, "/Fields")) { try visit(node, prefix: "", depth: 0) }
  }

  // MARK: Incremental update

  /// Where the last cross-reference section of `bytes` starts (its `startxref`), or nil.
  static func lastCrossReferenceOffset(in bytes: Data) -> Int? {
    let tail = bytes.suffix(2048)
    guard let text = String(data: tail, encoding: .isoLatin1), let found = text.range(of: "startxref", options: .backwards) else { return nil }
    let digits = text[found.upperBound...].drop { $0 == " " || $0 == "\r" || $0 == "\n" }.prefix { $0.isNumber }
    guard let offset = Int(digits), offset > 0, offset < bytes.count else { return nil }
    return offset
  }

  /// The objects `objects` as they are now, written as an incremental update to append to a
  /// file of `length` bytes whose last cross-reference section is at `previous` and whose
  /// trailer's /Size is `previousSize`: the objects, a cross-reference table for them, and a
  /// trailer that points back with /Prev. Returns the bytes and the update's /Size and
  /// cross-reference offset.
  func incrementalUpdate(objects: Set<PDFObjectReference>, appendingTo length: Int, previous: Int, previousSize: Int) throws -> (
    bytes: Data, size: Int, crossReference: Int
  ) {
    var out = Data("\n".utf8)
    var offsets: [(PDFObjectReference, Int)] = []
    for reference in objects.sorted() {
      let object = qpdf_get_object_by_id(handle, reference.number, reference.generation)
      offsets.append((reference, length + out.count))
      out.append(contentsOf: Array("\(reference.number) \(reference.generation) obj\n".utf8))
      if qpdf_oh_is_stream(handle, object) != 0 {
        var buffer: UnsafeMutablePointer<UInt8>?
        var count = 0
        _ = qpdf_oh_get_stream_data(handle, object, qpdf_dl_none, nil, &buffer, &count)
        defer { free(buffer) }
        let dictionary = qpdf_oh_get_dict(handle, object)
        qpdf_oh_replace_key(handle, dictionary, "/Length", qpdf_oh_new_integer(handle, Int64(count)))
        appendUnparsed(qpdf_oh_unparse(handle, dictionary), to: &out)
        out.append(contentsOf: Array("\nstream\n".utf8))
        if let buffer { out.append(buffer, count: count) }
        out.append(contentsOf: Array("\nendstream\nendobj\n".utf8))
      } else {
        appendUnparsed(qpdf_oh_unparse_resolved(handle, object), to: &out)
        out.append(contentsOf: Array("\nendobj\n".utf8))
      }
      try check("writing object \(reference.number)")
    }
    let crossReference = length + out.count
    var table = "xref\n"
    var run: [(PDFObjectReference, Int)] = []
    func flush() {
      guard let first = run.first else { return }
      table += "\(first.0.number) \(run.count)\n"
      for (reference, offset) in run { table += String(format: "%010d %05d n\r\n", offset, Int(reference.generation)) }
      run = []
    }
    for entry in offsets {
      if let last = run.last, last.0.number + 1 != entry.0.number { flush() }
      run.append(entry)
    }
    flush()
    let size = max(previousSize, Int(objects.map(\.number).max() ?? 0) + 1)
    let trailer = qpdf_get_trailer(handle)
    var entries = "/Size \(size)"
    for name in ["/Root", "/Info", "/ID"] where qpdf_oh_has_key(handle, trailer, name) != 0 {
      var value = Data()
      appendUnparsed(qpdf_oh_unparse(handle, qpdf_oh_get_key(handle, trailer, name)), to: &value)
      entries += " \(name) " + String(decoding: value, as: UTF8.self)
    }
    table += "trailer\n<< \(entries) /Prev \(previous) >>\nstartxref\n\(crossReference)\n%%EOF\n"
    out.append(contentsOf: Array(table.utf8))
    try check("writing the cross-reference table")
    return (out, size, crossReference)
  }

  /// Appends the bytes qpdf unparsed (PDF syntax, copied as they are).
  private func appendUnparsed(_ text: UnsafePointer<CChar>?, to out: inout Data) {
    guard let text else { return }
    text.withMemoryRebound(to: UInt8.self, capacity: strlen(text)) { out.append($0, count: strlen(text)) }
  }

  /// The trailer's /Size.
  var trailerSize: Int {
    let value = qpdf_oh_get_key(handle, qpdf_get_trailer(handle), "/Size")
    return qpdf_oh_is_integer(handle, value) != 0 ? Int(max(0, min(qpdf_oh_get_int_value(handle, value), 10_000_000))) : 0
  }

  /// Whether qpdf has warned since the file was opened (it found damage while resolving
  /// objects).
  var hasWarnings: Bool { qpdf_more_warnings(handle) != 0 }
}
