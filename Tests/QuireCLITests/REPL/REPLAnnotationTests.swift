import Foundation
import Quire
import QuireTestSupport
import Testing

@testable import QuireCLI

/// The tools the annotation tests check the saved files with: Debian's reportlab (to make a
/// form), pypdf, poppler-utils, MuPDF's mutool and qpdf.
enum AnnotationTools {
  static let python = "/usr/bin/python3"
  static var available: Bool {
    ["/usr/bin/python3", "/usr/bin/pdftoppm", "/usr/bin/pdftotext", "/usr/bin/mutool", "/usr/bin/qpdf"].allSatisfy(Programs.isInstalled)
      && ["reportlab", "pypdf"].allSatisfy { module in
        (try? ChildProcess.runBlocking(URL(fileURLWithPath: python), ["-c", "import \(module)"]).status) == 0
      }
  }

  /// Runs `tool` with `arguments`; fails the test's machinery when it does not exit 0.
  @discardableResult
  static func run(_ tool: String, _ arguments: [String], in folder: URL) async throws -> ProcessResult {
    let result = try await ChildProcess.run(URL(fileURLWithPath: tool), arguments, in: folder, timeLimit: .seconds(120))
    guard result.status == 0 else { throw TestFailure("\(tool) \(arguments.joined(separator: " ")) failed (\(result.status)): \(result.error)") }
    return result
  }

  /// A US Letter PDF made by reportlab: two lines of text on page 1 (with "fox" twice), an
  /// AcroForm with a text field `name` and a check box `agree`, and a second page.
  static func makeForm(at url: URL) async throws {
    let script = """
      import sys
      from reportlab.pdfgen import canvas
      from reportlab.lib.pagesizes import letter
      c = canvas.Canvas(sys.argv[1], pagesize=letter)
      c.setFont("Helvetica", 14)
      c.drawString(72, 700, "The quick brown fox jumps over the lazy dog.")
      c.drawString(72, 680, "A second line with the word fox again.")
      c.drawString(72, 600, "Name:")
      c.acroForm.textfield(name="name", tooltip="Name", x=130, y=590, width=200, height=22, value="")
      c.drawString(72, 560, "Agree:")
      c.acroForm.checkbox(name="agree", tooltip="Agree", x=130, y=555, size=16, checked=False)
      c.showPage()
      c.drawString(72, 700, "Page two.")
      c.showPage()
      c.save()
      """
    try await run(python, ["-c", script, url.path], in: url.deletingLastPathComponent())
  }

  /// What pypdf finds on page 1 of `url`: each annotation's subtype, whether it has an
  /// appearance stream (/AP /N), its quadrilaterals; and the form's values.
  static func inspect(_ url: URL) async throws -> (annotations: [(subtype: String, hasAppearance: Bool, quads: [Double])], fields: [String: String]) {
    let script = """
      import sys, json, pypdf
      r = pypdf.PdfReader(sys.argv[1])
      out = {"annotations": [], "fields": {}}
      for a in r.pages[0].get("/Annots", []):
          a = a.get_object()
          ap = a.get("/AP")
          out["annotations"].append({"subtype": str(a["/Subtype"]), "ap": ap is not None and "/N" in ap, "quads": [float(v) for v in a.get("/QuadPoints", [])]})
      for name, field in (r.get_fields() or {}).items():
          out["fields"][name] = str(field.get("/V", ""))
      print(json.dumps(out))
      """
    let result = try await run(python, ["-c", script, url.path], in: url.deletingLastPathComponent())
    struct Found: Decodable {
      struct Annotation: Decodable {
        var subtype: String
        var ap: Bool
        var quads: [Double]
      }
      var annotations: [Annotation]
      var fields: [String: String]
    }
    let found = try JSONDecoder().decode(Found.self, from: result.outputData)
    return (found.annotations.map { ($0.subtype, $0.ap, $0.quads) }, found.fields)
  }

  /// Page 1 of `url` drawn by `pdftoppm` (with `-hide-annotations` when asked) or by MuPDF,
  /// as PNG bytes.
  static func draw(_ url: URL, with renderer: String, hidingAnnotations: Bool = false) async throws -> Data {
    let folder = url.deletingLastPathComponent()
    let output = folder.appendingPathComponent("drawn-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: URL(fileURLWithPath: output.path + ".png")) }
    if renderer == "mutool" {
      try await run("/usr/bin/mutool", ["draw", "-q", "-r", "50", "-o", output.path + ".png", url.path, "1"], in: folder)
    } else {
      try await run(
        "/usr/bin/pdftoppm",
        ["-r", "50", "-f", "1", "-l", "1", "-singlefile", "-png"] + (hidingAnnotations ? ["-hide-annotations"] : []) + [url.path, output.path], in: folder)
    }
    return try Data(contentsOf: URL(fileURLWithPath: output.path + ".png"))
  }

  /// Where `pdftotext -bbox` puts the words `word` on page 1: xMin, yMin, xMax, yMax (points
  /// from the top left).
  static func boxes(of word: String, in url: URL) async throws -> [[Double]] {
    let result = try await run("/usr/bin/pdftotext", ["-bbox", "-f", "1", "-l", "1", url.path, "-"], in: url.deletingLastPathComponent())
    return result.output.split(separator: "\n").filter { $0.hasSuffix(">\(word)</word>") }.map { line in
      ["xMin", "yMin", "xMax", "yMax"].compactMap { name in
        line.range(of: "\(name)=\"").flatMap { start in Double(line[start.upperBound...].prefix { $0 != "\"" }) }
      }
    }
  }
}

/// The annotation and form words, driven through the built `quire` as a user's script, and
/// the saved file checked with other programs.
@Suite("REPL annotations and forms", .enabled(if: AnnotationTools.available, "needs python3-reportlab, python3-pypdf, poppler-utils, mupdf-tools, qpdf"))
final class REPLAnnotationTests: FolderSuite, RunsQuire {
  init() throws { try super.init() }

  private let markup = [
    "annotate 1 highlight fox", "annotate 1 note 400,700 Look here", "annotate 1 ink 100,500 150,520 200,500",
    "fill name Jane Doe", "fill agree on",
  ]

  @Test func annotationsAndFilledFieldsAreAppendedWithAppearancesEveryReaderDraws() async throws {
    let pdf = folder.file("form.pdf")
    try await AnnotationTools.makeForm(at: pdf)
    let original = try Data(contentsOf: pdf)
    let result = try await quire(["form.pdf"], input: (markup + ["annotations 1", "fields", "w", "q"]).joined(separator: "\n") + "\n")
    #expect(result.status == 0, "\(result.error)")
    #expect(result.output.contains("1:3  highlight"), "\(result.output)")
    #expect(result.output.contains("name  text  'Jane Doe'"), "\(result.output)")
    let saved = try Data(contentsOf: pdf)
    // An incremental update: the original bytes are an exact prefix.
    #expect(saved.count > original.count)
    #expect(saved.prefix(original.count) == original)
    try await AnnotationTools.run("/usr/bin/qpdf", ["--check", pdf.path], in: folder.url)
    let found = try await AnnotationTools.inspect(pdf)
    let subtypes = found.annotations.map(\.subtype)
    for subtype in ["/Highlight", "/Text", "/Ink", "/Widget"] { #expect(subtypes.contains(subtype), "\(subtypes)") }
    #expect(found.annotations.allSatisfy { $0.hasAppearance }, "\(found.annotations.map { ($0.subtype, $0.hasAppearance) })")
    #expect(found.fields["name"] == "Jane Doe")
    #expect(found.fields["agree"] == "/Yes")
    // Each highlight covers a "fox" exactly where pdftotext finds it (page height 792).
    let boxes = try await AnnotationTools.boxes(of: "fox", in: pdf)
    let highlights = found.annotations.filter { $0.subtype == "/Highlight" }
    #expect(boxes.count == 2 && highlights.count == 2)
    for (box, highlight) in zip(boxes, highlights) where box.count == 4 && highlight.quads.count == 8 {
      let expected = [box[0], 792 - box[1], box[2], 792 - box[1], box[0], 792 - box[3], box[2], 792 - box[3]]
      for (got, want) in zip(highlight.quads, expected) { #expect(abs(got - want) < 0.5, "\(highlight.quads) vs \(expected)") }
    }
    // Both renderers draw the annotations; without them, the page is the original's.
    let copy = folder.file("original.pdf")
    try original.write(to: copy)
    #expect(try await AnnotationTools.draw(pdf, with: "pdftoppm") != AnnotationTools.draw(copy, with: "pdftoppm"))
    #expect(try await AnnotationTools.draw(pdf, with: "mutool") != AnnotationTools.draw(copy, with: "mutool"))
    #expect(
      try await AnnotationTools.draw(pdf, with: "pdftoppm", hidingAnnotations: true)
        == AnnotationTools.draw(copy, with: "pdftoppm", hidingAnnotations: true))
  }

  @Test func undoAfterSavingTakesTheAnnotationsAwayInAnotherUpdate() async throws {
    let pdf = folder.file("form.pdf")
    try await AnnotationTools.makeForm(at: pdf)
    let copy = folder.file("original.pdf")
    try FileManager.default.copyItem(at: pdf, to: copy)
    let undos = Array(repeating: "u", count: markup.count)
    // Annotate, save (and the same bytes to a copy, to compare with later), undo every step,
    // save again.
    let script = markup + ["w first-save.pdf", "w"] + undos + ["annotations 1", "w", "q"]
    let result = try await quire(["form.pdf"], input: script.joined(separator: "\n") + "\n")
    #expect(result.status == 0, "\(result.error)")
    #expect(!result.output.contains("highlight"), "\(result.output)")
    let annotated = try Data(contentsOf: folder.file("first-save.pdf"))
    #expect(try await AnnotationTools.inspect(folder.file("first-save.pdf")).annotations.count == 6)
    let saved = try Data(contentsOf: pdf)
    // The second save is another update: what the first wrote stays a prefix.
    #expect(saved.count > annotated.count)
    #expect(saved.prefix(annotated.count) == annotated)
    try await AnnotationTools.run("/usr/bin/qpdf", ["--check", pdf.path], in: folder.url)
    #expect(try await AnnotationTools.draw(pdf, with: "pdftoppm") == AnnotationTools.draw(copy, with: "pdftoppm"))
    #expect(try await AnnotationTools.draw(pdf, with: "mutool") == AnnotationTools.draw(copy, with: "mutool"))
    let found = try await AnnotationTools.inspect(pdf)
    #expect(found.annotations.map(\.subtype) == ["/Widget", "/Widget"])
    #expect(found.fields["name"] == "" && found.fields["agree"] == "/Off")
  }

  @Test func removedAnnotationsAndLinksAndFreeTextRoundTrip() async throws {
    let pdf = folder.file("form.pdf")
    try await AnnotationTools.makeForm(at: pdf)
    let commands = [
      "annotate 1 underline quick", "annotate 1 strikeout lazy", "annotate 1 squiggly second", "annotate 1 freetext 300,400,150,40 Free text",
      "annotate 1 link 72,650,100,20 https://example.com/", "annotate 1 link 72,620,100,20 #2", "remove-annotation 1 3", "w", "annotations 1", "q",
    ]
    let result = try await quire(["form.pdf"], input: commands.joined(separator: "\n") + "\n")
    #expect(result.status == 0, "\(result.error)")
    let listed = result.output.split(separator: "\n").map(String.init)
    #expect(listed.count == 7, "\(listed)")  // two fields, five kept
    #expect(listed.contains { $0.contains("link") && $0.contains("https://example.com/") })
    #expect(!listed.contains { $0.contains("underline") })  // annotation 3 was the underline
    let found = try await AnnotationTools.inspect(pdf)
    #expect(found.annotations.map(\.subtype) == ["/Widget", "/Widget", "/StrikeOut", "/Squiggly", "/FreeText", "/Link", "/Link"])
    #expect(found.annotations.allSatisfy { $0.hasAppearance })
    try await AnnotationTools.run("/usr/bin/qpdf", ["--check", pdf.path], in: folder.url)
  }

  /// A page with `/Rotate` shows its text turned, and poppler reports the text where it is
  /// shown: the highlight must be turned back into user space, or it lands elsewhere on the
  /// page. Pages turned by qpdf (the text sideways on screen) and a page whose text is drawn
  /// turned so that `/Rotate` shows it upright (a scan, a landscape page), each checked
  /// against pdftotext, pypdf and pdftoppm.
  @Test(arguments: [90, 180, 270])
  func highlightsOnTurnedPagesCoverTheirWords(rotation: Int) async throws {
    let pdf = folder.file("form.pdf")
    try await AnnotationTools.makeForm(at: pdf)
    // Where the two "fox"es are in user space, from pdftotext on the unturned page.
    let expected = try await AnnotationTools.boxes(of: "fox", in: pdf).map { [$0[0], 792 - $0[3], $0[2], 792 - $0[1]] }
    let turned = folder.file("turned.pdf")
    try await AnnotationTools.run("/usr/bin/qpdf", ["--rotate=+\(rotation):1", pdf.path, turned.path], in: folder.url)
    let result = try await quire(["turned.pdf"], input: "annotate 1 highlight fox\nw\nq\n")
    #expect(result.status == 0, "\(result.error)")
    let highlights = try await AnnotationTools.inspect(turned).annotations.filter { $0.subtype == "/Highlight" }
    #expect(highlights.count == 2 && expected.count == 2)
    // In user space, bottom line first (the turned page lists its matches in its own order).
    let made = highlights.filter { $0.quads.count == 8 }.map { highlight in
      let xs = stride(from: 0, to: 8, by: 2).map { highlight.quads[$0] }
      let ys = stride(from: 1, to: 8, by: 2).map { highlight.quads[$0] }
      return [xs.min()!, ys.min()!, xs.max()!, ys.max()!]
    }
    for (bounds, box) in zip(made.sorted { $0[1] < $1[1] }, expected.sorted { $0[1] < $1[1] }) {
      for (got, want) in zip(bounds, box) { #expect(abs(got - want) < 0.5, "turned \(rotation)°: \(bounds) vs \(box)") }
    }
    #expect(try await highlightedPixels(AnnotationTools.draw(turned, with: "pdftoppm")) > 20)
  }

  @Test func markupOnAPageTurnedUprightFollowsItsText() async throws {
    // The text is drawn going up the page; /Rotate 90 shows it left to right.
    let pdf = folder.file("upright.pdf")
    let script = """
      import sys
      from reportlab.pdfgen import canvas
      c = canvas.Canvas(sys.argv[1], pagesize=(612, 792))
      c.setFont("Helvetica", 14)
      c.translate(300, 100)
      c.rotate(90)
      c.drawString(0, 0, "The quick brown fox jumps over the lazy dog.")
      c.showPage()
      c.save()
      """
    try await AnnotationTools.run(AnnotationTools.python, ["-c", script, pdf.path], in: folder.url)
    try await AnnotationTools.run("/usr/bin/qpdf", ["--rotate=+90:1", "--replace-input", pdf.path], in: folder.url)
    let result = try await quire(["upright.pdf"], input: "annotate 1 underline fox\nw\nq\n")
    #expect(result.status == 0, "\(result.error)")
    let underline = try #require(try await AnnotationTools.inspect(pdf).annotations.first { $0.subtype == "/Underline" })
    let q = underline.quads
    try #require(q.count == 8)
    // In user space the text runs up (+y) from x = 300 and its top is towards -x: the
    // quadrilateral's top edge (x1, y1)–(x2, y2) runs up, and its bottom edge, where the line
    // is drawn, is on the +x side, at the baseline.
    #expect(q[3] > q[1] + 10, "the top edge runs along the text: \(q)")
    #expect(q[4] > q[0] + 5, "the bottom edge is below the text's top: \(q)")
    #expect(abs(q[4] - 300) < 5 && q[1] > 100 && q[3] < 500, "the word is on the line of text: \(q)")
    let drawn = try Bitmap(pngData: try await AnnotationTools.draw(pdf, with: "pdftoppm"))
    #expect(drawn.width > drawn.height, "pdftoppm shows the page turned, landscape")
  }

  /// How many pixels of the PNG `data` have a highlight's yellow.
  private func highlightedPixels(_ data: Data) throws -> Int {
    let bitmap = try Bitmap(pngData: data)
    var count = 0
    for y in 0..<bitmap.height {
      for x in 0..<bitmap.width {
        let p = bitmap.pixel(x: x, y: y)
        if p.red > 220 && p.green > 190 && p.blue < 140 { count += 1 }
      }
    }
    return count
  }

  /// GNOME's thumbnailer (`quire thumbnail`) draws a saved highlight, as viewers do.
  @Test func thumbnailsDrawTheHighlight() async throws {
    let pdf = folder.file("form.pdf")
    try await AnnotationTools.makeForm(at: pdf)
    try FileManager.default.copyItem(at: pdf, to: folder.file("plain.pdf"))
    let result = try await quire(["form.pdf"], input: "annotate 1 highlight quick brown fox\nw\nq\n")
    #expect(result.status == 0, "\(result.error)")
    let made = try await quire(["thumbnail", "--size", "256", "--output", "thumbs", "form.pdf", "plain.pdf"])
    #expect(made.status == 0, "\(made.error)")
    func highlighted(_ name: String) throws -> Int {
      try highlightedPixels(Data(contentsOf: folder.file("thumbs/\(name).png")))
    }
    #expect(try highlighted("form.pdf") > 20)
    #expect(try highlighted("plain.pdf") == 0)
  }

  /// Every file of the shared broken-PDF corpus given to `annotations`, `fields` and
  /// `annotate` (then `w` to a copy): each run ends with a clear error or works, within the
  /// time limit; none crashes.
  @Test func hostilePDFsGiveAClearErrorOrWork() async throws {
    guard let corpus = sharedCorpus("broken-pdf") else { return }
    let files = try FileManager.default.contentsOfDirectory(atPath: corpus.path).filter { $0.hasSuffix(".pdf") }.sorted()
    var worked = 0
    var refused = 0
    for name in files {
      try? FileManager.default.removeItem(at: folder.file(name))
      try FileManager.default.copyItem(at: corpus.appendingPathComponent(name), to: folder.file(name))
      for words in [["annotations"], ["fields"], ["annotate 1 highlight the"], ["annotate 1 note 10,10 hi", "w copy-\(name)"]] {
        let input = (["open \(name)"] + words + ["Q"]).joined(separator: "\n") + "\n"
        let result = try await ChildProcess.run(
          try #require(Programs.quire), [], environment: ["PATH": "/usr/bin:/bin", "HOME": folder.url.path, "LC_ALL": "C.UTF-8"], in: folder.url,
          input: Data(input.utf8), timeLimit: .seconds(120))
        #expect(!result.killed, "\(name): \(words) did not end")
        #expect(result.status == 0 || result.status == 1, "\(name): \(words) ended with \(result.status): \(result.error)")
        if result.status == 1 {
          refused += 1
          #expect(result.error.contains("quire: line "), "\(name): \(words): \(result.error)")
          #expect(!result.error.contains("/tmp/quire-pdf-"), "\(name): the message names a private snapshot: \(result.error)")
        } else {
          worked += 1
        }
      }
    }
    print("broken-pdf annotations: \(worked) runs worked, \(refused) refused with a clear error")
  }
}

/// Bad arguments to the annotation words: one clear line each, nothing changed.
@MainActor
@Suite("REPL annotation words' bad input")
final class REPLAnnotationBadInputTests: MainActorFolderSuite {
  @Test func badArgumentsGiveOneClearLineEach() async throws {
    let pdf = try writePDF(to: folder.file("doc.pdf"), pages: ["Otters and herons"])
    let before = try Data(contentsOf: pdf)
    let commands = [
      "annotate 1 highlight", "annotate 1 highlight cranes", "annotate 2 highlight otters", "annotate 1 circle 1,2", "annotate 1 note 1;2 hi",
      "annotate 1 note nan,2 hi", "annotate 1 freetext 1,2,0,5 hi", "annotate 1 ink 1,2 x", "annotate 1 link 1,2,3,4 nowhere",
      "annotate 1 link 1,2,3,4 #9", "remove-annotation 1 1", "remove-annotation 1 x", "fill name Jane", "annotations 3",
    ]
    let (session, transcript) = makeSession(["open \(pdf.path)"] + commands + ["fields", "annotations", "Q"], in: folder, interactive: true)
    #expect(await session.run(opening: []) == 0)
    let expected = [
      "give the text", "not on that page", "no page 2", "not 'circle'", "is not a point", "is not a point", "width and height",
      "is not a point", "not a web address", "no page 9", "has no annotation 1", "not an annotation number", "has no form fields",
      "no page 3",
    ]
    #expect(transcript.refusals.count == expected.count, "\(transcript.refusals)")
    for (message, fragment) in zip(transcript.refusals, expected) { #expect(message.contains(fragment), "\(message) should say \(fragment)") }
    #expect(try Data(contentsOf: pdf) == before)
  }
}
