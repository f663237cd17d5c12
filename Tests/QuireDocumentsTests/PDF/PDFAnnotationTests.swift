import Foundation
import QuireDocuments
import QuireFormats
import QuirePDF
import QuireTestSupport
import QuireTypes
import Testing

/// PDFKit's annotation API as a client uses it: markup over a found selection, notes and ink
/// added to a page, undo and redo, and the file written as an incremental update.
@Suite("PDFAnnotation")
final class PDFAnnotationTests: FolderSuite {
  func makePDF() throws -> URL {
    try writePDF(to: folder.file("notes.pdf"), pages: ["The otter swims past the heron.", "Second page"])
  }

  @Test func markupOverASelectionIsWrittenAsAnIncrementalUpdate() throws {
    let url = try makePDF()
    let original = try Data(contentsOf: url)
    let document = try PDFDocument(contentsOf: url)
    let page = try #require(document.page(at: 0))
    #expect(page.annotations.isEmpty)
    let found = document.findString("otter", withOptions: .caseInsensitive)
    let selection = try #require(found.first)
    let highlight = try #require(PDFAnnotation(markupOver: selection, type: .highlight))
    #expect(highlight.quadrilateralPoints?.count == 4)
    #expect(highlight.bounds == selection.bounds(for: page))
    page.addAnnotation(highlight)
    let note = PDFAnnotation(bounds: CGRect(x: 300, y: 700, width: 20, height: 20), forType: .text, withProperties: [PDFAnnotationKey.contents: "Look"])
    page.addAnnotation(note)
    let ink = PDFAnnotation(bounds: CGRect(x: 90, y: 390, width: 120, height: 40), forType: .ink, withProperties: nil)
    ink.add([CGPoint(x: 100, y: 400), CGPoint(x: 150, y: 420), CGPoint(x: 200, y: 400)])
    page.addAnnotation(ink)
    #expect(page.annotations.map(\.type) == ["Highlight", "Text", "Ink"])
    #expect(page.annotation(at: CGPoint(x: 310, y: 710))?.contents == "Look")
    #expect(document.undoActionName == "Add Ink")
    document.undo()
    #expect(page.annotations.count == 2)
    document.redo()
    page.removeAnnotation(note)
    #expect(page.annotations.map(\.type) == ["Highlight", "Ink"])
    try document.save()

    let saved = try Data(contentsOf: url)
    #expect(saved.prefix(original.count) == original)
    let reopened = try PDFDocument(contentsOf: url)
    let annotations = try #require(reopened.page(at: 0)).annotations
    #expect(annotations.map(\.type) == ["Highlight", "Ink"])
    #expect(annotations.allSatisfy { $0.hasAppearanceStream })
    #expect(annotations[0].contents == "otter")
    // Written with 3 decimals: the same points within a thousandth of a point.
    let written = annotations[0].quadrilateralPoints ?? []
    let made = highlight.quadrilateralPoints ?? []
    #expect(written.count == 4 && made.count == 4)
    for (a, b) in zip(written, made) { #expect(abs(a.x - b.x) < 0.001 && abs(a.y - b.y) < 0.001) }
    #expect(annotations[1].inkPaths.first?.count == 3)
    #expect(try #require(reopened.page(at: 1)).annotations.isEmpty)
  }

  @Test func annotationsFollowTheirPageWhenPagesMove() throws {
    let url = try makePDF()
    let document = try PDFDocument(contentsOf: url)
    let link = PDFAnnotation(bounds: CGRect(x: 50, y: 50, width: 100, height: 20), forType: .link, withProperties: nil)
    link.url = URL(string: "https://example.com/")
    try #require(document.page(at: 1)).addAnnotation(link)
    try document.exchangePage(at: 0, withPageAt: 1)
    #expect(try #require(document.page(at: 0)).annotations.first?.url?.absoluteString == "https://example.com/")
    // Pages reorganised: the file is written whole by libqpdf, with the annotation.
    let copy = folder.file("copy.pdf")
    try document.write(to: copy)
    let reopened = try PDFDocument(contentsOf: copy)
    #expect(try #require(reopened.page(at: 0)).annotations.map(\.type) == ["Link"])
    #expect(try reopened.text(ofPage: 0).contains("Second"))
  }

  /// PDFKit's actions on links: a web address and a page, set, saved, read back; nil takes the
  /// action away; each change is one undoable step.
  @Test func linkActionsAreWrittenAndReadBack() throws {
    let url = try makePDF()
    let document = try PDFDocument(contentsOf: url)
    let first = try #require(document.page(at: 0))
    let second = try #require(document.page(at: 1))
    let web = PDFAnnotation(bounds: CGRect(x: 50, y: 50, width: 100, height: 20), forType: .link, withProperties: nil)
    first.addAnnotation(web)
    web.action = PDFActionURL(url: try #require(URL(string: "https://example.com/otters")))
    #expect(web.url?.absoluteString == "https://example.com/otters" && web.action?.type == "URL")
    let jump = PDFAnnotation(bounds: CGRect(x: 50, y: 100, width: 100, height: 20), forType: .link, withProperties: nil)
    first.addAnnotation(jump)
    jump.action = PDFActionGoTo(destination: PDFDestination(page: second, at: .zero))
    #expect(jump.action?.type == "GoTo" && (jump.action as? PDFActionGoTo)?.destination.page == second)
    // Going somewhere else replaces the address, in one step.
    jump.action = PDFActionURL(url: try #require(URL(string: "https://example.com/herons")))
    #expect(jump.destination == nil && (jump.action as? PDFActionURL)?.url?.absoluteString == "https://example.com/herons")
    document.undo()
    let undone = try #require(first.annotations.last)
    #expect(undone.url == nil && undone.destination?.page == second && document.undoActionName != nil)
    document.redo()
    #expect((first.annotations.last?.action as? PDFActionURL)?.url?.absoluteString == "https://example.com/herons")
    try document.save()

    let reopened = try PDFDocument(contentsOf: url)
    let links = try #require(reopened.page(at: 0)).annotations
    #expect(links.compactMap { ($0.action as? PDFActionURL)?.url?.absoluteString } == ["https://example.com/otters", "https://example.com/herons"])
    links[1].action = nil
    #expect(links[1].action == nil && links[1].url == nil)
    #expect(PDFAnnotation(bounds: .zero, forType: .square, withProperties: nil).action == nil)
  }

  /// PDFKit's other link actions: a viewer's operation, a page of another PDF and a form
  /// reset, set, saved, read back by Quire and by pypdf (the dictionaries PDF 32000 gives);
  /// each change is one undoable step.
  @Test func namedRemoteAndResetActionsAreWrittenAndReadBack() throws {
    let url = try makePDF()
    let document = try PDFDocument(contentsOf: url)
    let first = try #require(document.page(at: 0))
    func link(_ y: CGFloat) -> PDFAnnotation {
      let annotation = PDFAnnotation(bounds: CGRect(x: 50, y: y, width: 100, height: 20), forType: .link, withProperties: nil)
      first.addAnnotation(annotation)
      return annotation
    }
    let next = link(50)
    next.action = PDFActionNamed(name: .nextPage)
    #expect((next.action as? PDFActionNamed)?.name == .nextPage && next.action?.type == "Named")
    let other = link(100)
    let elsewhere = folder.file("other file.pdf")
    other.action = PDFActionRemoteGoTo(pageIndex: 2, at: CGPoint(x: 72, y: 600), fileURL: elsewhere)
    let reset = link(150)
    let clear = PDFActionResetForm()
    clear.fields = ["name", "agree"]
    clear.fieldsIncludedAreCleared = false
    reset.action = clear
    // One step each: undone, the remote link is a remote link again.
    other.action = PDFActionNamed(name: .print)
    document.undo()
    #expect((first.annotations[1].action as? PDFActionRemoteGoTo)?.pageIndex == 2)
    try document.save()

    let saved = try PDFDocument(contentsOf: url)
    let reopened = try #require(saved.page(at: 0)).annotations
    try #require(reopened.count == 3)
    #expect((reopened[0].action as? PDFActionNamed)?.name == .nextPage)
    let remote = try #require(reopened[1].action as? PDFActionRemoteGoTo)
    #expect(remote.url.path == elsewhere.path && remote.pageIndex == 2 && remote.point == CGPoint(x: 72, y: 600), "\(remote.url) \(remote.point)")
    let readReset = try #require(reopened[2].action as? PDFActionResetForm)
    #expect(readReset.fields == ["name", "agree"] && !readReset.fieldsIncludedAreCleared && readReset.type == "ResetForm")
    guard (try? ChildProcess.runBlocking(URL(fileURLWithPath: "/usr/bin/python3"), ["-c", "import pypdf"]).status) == 0 else {
      Issue.record("pypdf (python3-pypdf) is not installed: scripts/setup installs it")
      return
    }
    let script = """
      import sys, pypdf
      r = pypdf.PdfReader(sys.argv[1])
      for a in r.pages[0]["/Annots"]:
          act = a.get_object()["/A"]
          print(act["/S"], act.get("/N"), act.get("/F"), list(act.get("/D", [])), list(act.get("/Fields", [])), act.get("/Flags"))
      """
    let result = try ChildProcess.runBlocking(URL(fileURLWithPath: "/usr/bin/python3"), ["-c", script, url.path])
    #expect(result.status == 0, "\(result.error)")
    let lines = result.output.split(separator: "\n").map(String.init)
    #expect(lines.count == 3 && lines[0].hasPrefix("/Named /NextPage None"), "\(result.output)")
    #expect(lines.count == 3 && lines[1].hasPrefix("/GoToR None \(elsewhere.path) [2, '/XYZ', 72, 600, NullObject]"), "\(result.output)")
    #expect(lines.count == 3 && lines[2] == "/ResetForm None None [] ['name', 'agree'] 1", "\(result.output)")
  }

  @Test func badAnnotationsAreRefusedWithTheReason() throws {
    let url = try makePDF()
    let document = try PDFDocument(contentsOf: url)
    let page = try #require(document.page(at: 0))
    let huge = PDFAnnotation(bounds: CGRect(x: 0, y: 0, width: 1e12, height: 10), forType: .square, withProperties: nil)
    page.addAnnotation(huge)  // PDFKit's form: ignored
    #expect(page.annotations.isEmpty)
    #expect(!document.hasUnsavedChanges)
    expectQuireError(.invalidArgument, reasonContains: "no form fields") { try document.setValue("x", ofField: "name") }
    #expect(try document.formFields().isEmpty)
  }
}
