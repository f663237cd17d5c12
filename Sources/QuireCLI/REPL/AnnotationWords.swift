import ArgumentParser
import Foundation
import Quire

/// The annotation and form words work on the current PDF, as the page words do: each change
/// is one step that `u` undoes, and `w` saves them as an incremental update (the old bytes
/// stay a prefix of the file), every annotation and filled field with its appearance stream.
/// Coordinates are PDF user space: points, origin at the bottom left of the page.
@MainActor
enum AnnotationWords {
  /// `X,Y` (or `X,Y,W,H`) as numbers; `count` of them.
  static func numbers(_ text: String, count: Int, what: String) throws -> [Double] {
    let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimmingCharacters(in: .whitespaces)) }
    guard parts.count == count, parts.allSatisfy({ $0?.isFinite == true }) else {
      throw EdError("'\(text)' is not \(what) (\(count == 2 ? "X,Y" : "X,Y,W,H") in points from the bottom left)")
    }
    return parts.compactMap { $0 }
  }

  /// Runs an annotation change on the session's PDF and says what it did.
  static func change(in session: REPLSession, _ body: (PDFFileDocument) throws -> String?) throws {
    let pdf = try PDFWords.require(session)
    let said: String?
    do {
      said = try body(pdf)
    } catch let error as EdError {
      throw error
    } catch {
      throw EdError(REPLSession.message(for: error))
    }
    session.say("\(said ?? pdf.undoManager.undoActionName.nonEmpty ?? "done"); u undoes it, w saves")
  }

  static func describe(_ annotation: PDFAnnotation, number: Int, page: Int) -> String {
    let b = annotation.bounds
    let box = String(format: "%.1f,%.1f,%.1f,%.1f", b.minX, b.minY, b.width, b.height)
    var text = "\(page):\(number)  \(kind(of: annotation))  \(box)"
    if let name = annotation.fieldName {
      text += "  \(name) = \(annotation.widgetStringValue ?? "")"
    } else if let url = annotation.url {
      text += "  \(url.absoluteString)"
    } else if let contents = annotation.contents, !contents.isEmpty {
      text += "  " + contents.replacingOccurrences(of: "\n", with: " ").prefix(120)
    }
    return text
  }

  static func kind(of annotation: PDFAnnotation) -> String {
    switch annotation.type ?? "" {
    case "Text": "note"
    case "FreeText": "freetext"
    case "StrikeOut": "strikeout"
    case "Widget": "field"
    case let other: other.lowercased()
    }
  }
}

struct AnnotationsWord: SessionCommand {
  static let configuration = CommandConfiguration(
    commandName: "annotations", abstract: "List the PDF's annotations (page:number, kind, x,y,w,h, contents), of one page or all.")
  @Argument(help: "A page number (default: every page).") var page: String?
  @MainActor func run(in session: REPLSession) async throws {
    let pdf = try PDFWords.require(session)
    let pages = try page.map { try PDFWords.page($0, of: pdf)..<(PDFWords.page($0, of: pdf) + 1) } ?? 0..<pdf.pageCount
    var total = 0
    for index in pages {
      let annotations: [PDFAnnotation]
      do { annotations = try pdf.annotations(onPage: index) } catch { throw EdError(REPLSession.message(for: error)) }
      for (number, annotation) in annotations.enumerated() {
        session.print(AnnotationWords.describe(annotation, number: number + 1, page: index + 1))
      }
      total += annotations.count
    }
    if total == 0 { session.say(page.map { "page \($0) has no annotations" } ?? "'\(pdf.fileURL.lastPathComponent)' has no annotations") }
  }
}

struct AnnotateWord: SessionCommand {
  static let configuration = CommandConfiguration(
    commandName: "annotate",
    abstract:
      "Annotate page PAGE: highlight|underline|strikeout|squiggly TEXT, note X,Y TEXT, freetext X,Y,W,H TEXT, ink X1,Y1 X2,Y2 …, link X,Y,W,H URL|#PAGE.")
  @Argument(help: "The page number.") var page: String
  @Argument(help: "highlight, underline, strikeout, squiggly, note, freetext, ink or link.") var kind: String
  @Argument(parsing: .allUnrecognized, help: "The text, place or points.") var rest: [String] = []

  @MainActor func run(in session: REPLSession) async throws {
    try AnnotationWords.change(in: session) { pdf in
      let index = try PDFWords.page(page, of: pdf)
      switch kind.lowercased() {
      case "highlight", "underline", "strikeout", "strike-out", "squiggly":
        let text = rest.joined(separator: " ")
        guard !text.isEmpty else { throw EdError("annotate \(page) \(kind) TEXT: give the text to mark") }
        let type: PDFAnnotationSubtype =
          switch kind.lowercased() {
          case "highlight": .highlight
          case "underline": .underline
          case "squiggly": .squiggly
          default: .strikeOut
          }
        let count = try pdf.markText(text, onPage: index, as: type)
        return "marked \(count) occurrence\(count == 1 ? "" : "s") of '\(text)' on page \(index + 1) (\(kind.lowercased()))"
      case "note":
        guard rest.count >= 2 else { throw EdError("annotate \(page) note X,Y TEXT: give the place and the note") }
        let point = try AnnotationWords.numbers(rest[0], count: 2, what: "a point")
        let note = PDFAnnotation(bounds: CGRect(x: point[0], y: point[1], width: 20, height: 20), forType: .text, withProperties: nil)
        note.contents = rest.dropFirst().joined(separator: " ")
        note.userName = ProcessInfo.processInfo.environment["USER"]
        try pdf.addAnnotation(note, toPage: index)
        return nil
      case "freetext", "free-text":
        guard rest.count >= 2 else { throw EdError("annotate \(page) freetext X,Y,W,H TEXT: give the box and the text") }
        let box = try AnnotationWords.numbers(rest[0], count: 4, what: "a box")
        guard box[2] > 0, box[3] > 0 else { throw EdError("'\(rest[0])' is not a box: its width and height must be above 0") }
        let text = PDFAnnotation(bounds: CGRect(x: box[0], y: box[1], width: box[2], height: box[3]), forType: .freeText, withProperties: nil)
        text.contents = rest.dropFirst().joined(separator: " ")
        try pdf.addAnnotation(text, toPage: index)
        return nil
      case "ink":
        guard !rest.isEmpty else { throw EdError("annotate \(page) ink X1,Y1 X2,Y2 …: give the stroke's points") }
        let points = try rest.map { try AnnotationWords.numbers($0, count: 2, what: "a point") }
        let xs = points.map { $0[0] }
        let ys = points.map { $0[1] }
        let margin = 2.0
        let bounds = CGRect(
          x: (xs.min() ?? 0) - margin, y: (ys.min() ?? 0) - margin, width: (xs.max() ?? 0) - (xs.min() ?? 0) + 2 * margin,
          height: (ys.max() ?? 0) - (ys.min() ?? 0) + 2 * margin)
        let ink = PDFAnnotation(bounds: bounds, forType: .ink, withProperties: nil)
        let border = PDFBorder()
        border.lineWidth = 2
        ink.border = border
        ink.inkPaths = [points.map { CGPoint(x: $0[0], y: $0[1]) }]
        try pdf.addAnnotation(ink, toPage: index)
        return nil
      case "link":
        guard rest.count == 2 else { throw EdError("annotate \(page) link X,Y,W,H URL|#PAGE: give the box and the target") }
        let box = try AnnotationWords.numbers(rest[0], count: 4, what: "a box")
        guard box[2] > 0, box[3] > 0 else { throw EdError("'\(rest[0])' is not a box: its width and height must be above 0") }
        let link = PDFAnnotation(bounds: CGRect(x: box[0], y: box[1], width: box[2], height: box[3]), forType: .link, withProperties: nil)
        let target = rest[1]
        if target.hasPrefix("#") {
          let targetIndex = try PDFWords.page(String(target.dropFirst()), of: pdf)
          guard let targetPage = pdf.pdf?.page(at: targetIndex) else { throw EdError("there is no page \(target.dropFirst())") }
          link.destination = PDFDestination(page: targetPage, at: .zero)
        } else {
          guard let url = URL(string: target), url.scheme != nil else { throw EdError("'\(target)' is not a web address or #PAGE") }
          link.url = url
        }
        try pdf.addAnnotation(link, toPage: index)
        return nil
      default:
        throw EdError("annotate with highlight, underline, strikeout, squiggly, note, freetext, ink or link, not '\(kind)'")
      }
    }
  }
}

struct RemoveAnnotationWord: SessionCommand {
  static let configuration = CommandConfiguration(
    commandName: "remove-annotation", abstract: "Remove annotation N of page PAGE (as 'annotations PAGE' numbers them; u brings it back).")
  @Argument(help: "The page number.") var page: String
  @Argument(help: "The annotation's number on the page.") var number: String
  @MainActor func run(in session: REPLSession) async throws {
    try AnnotationWords.change(in: session) { pdf in
      let index = try PDFWords.page(page, of: pdf)
      guard let position = Int(number), position >= 1 else { throw EdError("'\(number)' is not an annotation number (1, 2, …)") }
      try pdf.removeAnnotation(at: position - 1, fromPage: index)
      return nil
    }
  }
}

struct FieldsWord: SessionCommand {
  static let configuration = CommandConfiguration(commandName: "fields", abstract: "List the PDF's form fields: name, kind, value, choices.")
  @MainActor func run(in session: REPLSession) async throws {
    let pdf = try PDFWords.require(session)
    let fields: [PDFFormField]
    do { fields = try pdf.formFields() } catch { throw EdError(REPLSession.message(for: error)) }
    guard !fields.isEmpty else { return session.say("'\(pdf.fileURL.lastPathComponent)' has no form fields") }
    for field in fields {
      var line = "\(field.name)  \(field.kind)  \(field.value.map { "'\($0)'" } ?? "(empty)")"
      if !field.choices.isEmpty { line += "  [\(field.choices.joined(separator: ", "))]" }
      session.print(line)
    }
  }
}

struct FillWord: SessionCommand {
  static let configuration = CommandConfiguration(
    commandName: "fill", abstract: "Fill form field NAME with VALUE (text; on or off for a check box; a choice).")
  @Argument(help: "The field's name, as 'fields' lists it.") var name: String
  @Argument(parsing: .allUnrecognized, help: "The value.") var value: [String] = []
  @MainActor func run(in session: REPLSession) async throws {
    try AnnotationWords.change(in: session) { pdf in
      try pdf.fill(field: name, with: value.joined(separator: " "))
      return "filled '\(name)'"
    }
  }
}
