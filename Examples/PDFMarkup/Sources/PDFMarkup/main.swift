// PDFKit, UniformTypeIdentifiers and QuickLookThumbnailing as an app uses them, compiled as a
// package of its own against Quire's products of those names: find a word, highlight it and
// add a note, write the file and read the marks back, give it a table of contents and write a
// copy that needs a password, identify the file's type, and draw a thumbnail of it. Each step prints "ok" or "FAIL"; the program exits 1 when any step failed.
import Foundation
import PDFKit
import QuickLookThumbnailing
import UniformTypeIdentifiers

var failures: [String] = []

func check(_ condition: Bool, _ what: String) {
  print((condition ? "ok   " : "FAIL ") + what)
  if !condition { failures.append(what) }
}

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("PDFMarkup-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }

// The PDF an app would be handed, made here with Quire's writer (the example ships no PDF).
let guideURL = folder.appendingPathComponent("guide.pdf")
let writer = try PDFWriter(url: guideURL, width: 400, height: 300)
_ = try writer.addPage(markup: "Page one: herons wait at the bank.")
_ = try writer.addPage(markup: "Page two: the otter swims in the river.")
try writer.finish()

// An app's own document class, as PDFKit's documentation has it: a subclass whose
// initializer calls the failable designated `init?(url:)`.
final class GuideDocument: PDFDocument {
  let openedAt: Date

  override init?(url: URL) {
    openedAt = Date()
    super.init(url: url)
  }
}

// 1. PDFKit: open, find, highlight, note, write.
guard let document = GuideDocument(url: guideURL) else {
  print("FAIL GuideDocument(url:) (a PDFDocument subclass) opens the PDF")
  exit(1)
}
check(document.pageCount == 2 && document.openedAt <= Date(), "the subclass opens the document, with its two pages")
let selections = document.findString("otter", withOptions: .caseInsensitive)
check(selections.count == 1, "findString finds the word once")
if let selection = selections.first, let page = selection.pages.first {
  check(document.index(for: page) == 1, "the word is on the second page")
  let bounds = selection.bounds(for: page)
  check(bounds.width > 0 && bounds.height > 0, "the selection has bounds on its page")
  let highlight = PDFAnnotation(bounds: bounds, forType: .highlight, withProperties: nil)
  highlight.color = UIColor.yellow
  page.addAnnotation(highlight)
  let note = PDFAnnotation(bounds: CGRect(x: 20, y: 20, width: 24, height: 24), forType: .text, withProperties: nil)
  note.contents = "Seen on Tuesday"
  page.addAnnotation(note)
  check(page.annotations.count == 2, "the page holds the highlight and the note")
}
let markedURL = folder.appendingPathComponent("guide-marked.pdf")
check(document.write(to: markedURL), "write(to:) saves the marked document")

// 2. The marks read back from the written file.
if let marked = PDFDocument(url: markedURL), let page = marked.page(at: 1) {
  let types = page.annotations.compactMap(\.type).sorted()
  check(types == ["Highlight", "Text"], "the written file holds a highlight and a note (\(types))")
  check(page.annotations.contains { $0.contents == "Seen on Tuesday" }, "the note keeps its text")
  check(page.string?.contains("otter") == true, "the page's text is still there")
} else {
  check(false, "the written file opens")
}

// 3. A table of contents and a copy that needs a password, as PDFKit apps write them.
if let marked = PDFDocument(url: markedURL), let first = marked.page(at: 0), let second = marked.page(at: 1) {
  let root = PDFOutline()
  for (index, (title, page)) in [("Herons", first), ("Otters", second)].enumerated() {
    let entry = PDFOutline()
    entry.label = title
    entry.destination = PDFDestination(page: page, at: CGPoint(x: 0, y: page.bounds(for: .mediaBox).height))
    root.insertChild(entry, at: index)
  }
  marked.outlineRoot = root
  let lockedURL = folder.appendingPathComponent("guide-locked.pdf")
  check(marked.write(to: lockedURL, withOptions: [.userPasswordOption: "river", .ownerPasswordOption: "bank"]), "write(to:withOptions:) writes a copy with passwords")
  if let locked = PDFDocument(url: lockedURL) {
    check(locked.isLocked && locked.isEncrypted, "the copy opens locked")
    check(!locked.unlock(withPassword: "wrong") && locked.unlock(withPassword: "river"), "unlock(withPassword:) takes only its password")
    let titles = (0..<(locked.outlineRoot?.numberOfChildren ?? 0)).compactMap { locked.outlineRoot?.child(at: $0)?.label }
    check(titles == ["Herons", "Otters"], "the copy has the table of contents (\(titles))")
    let target = locked.outlineRoot?.child(at: 1)?.destination?.page
    check(target.map { locked.index(for: $0) } == 1, "its second entry goes to the second page")
  } else {
    check(false, "the copy with passwords opens")
  }
} else {
  check(false, "the written file opens for a table of contents")
}

// 4. UniformTypeIdentifiers: the file's type by its extension, and what it conforms to.
let type = UTType(filenameExtension: markedURL.pathExtension)
check(type == .pdf, "UTType(filenameExtension:) gives .pdf")
check(type?.conforms(to: .data) == true && type?.preferredMIMEType == "application/pdf", "a PDF is data, application/pdf")
let values = try markedURL.resourceValues(forKeys: [.contentTypeKey])
check(values.contentType == .pdf, "URLResourceValues.contentType identifies the file")

// 5. QuickLookThumbnailing: a thumbnail of the marked PDF.
let request = QLThumbnailGenerator.Request(fileAt: markedURL, size: CGSize(width: 128, height: 128), scale: 1, representationTypes: .thumbnail)
let drawn = await withCheckedContinuation { continuation in
  QLThumbnailGenerator.shared.generateBestRepresentation(for: request) { representation, error in
    continuation.resume(returning: (representation?.uiImage.size, error))
  }
}
if let size = drawn.0 {
  check(max(size.width, size.height) == 128, "the thumbnail's longer side is 128 (\(size))")
} else {
  check(false, "a thumbnail is drawn (\(String(describing: drawn.1)))")
}

if !failures.isEmpty {
  print("\(failures.count) step(s) failed")
  exit(1)
}
