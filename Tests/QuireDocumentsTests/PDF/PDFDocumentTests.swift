import Foundation
@_spi(Testing) import QuireDocuments
import QuireFormats
@_spi(Testing) import QuirePDF
import QuireSystem
import QuireTestSupport
import QuireTypes
import Testing

@Suite("PDFDocument")
final class PDFDocumentTests: FolderSuite {
  /// A PDF of `count` pages whose text is "PAGEn marker", with an outline entry per page.
  func makePDF(_ name: String = "five.pdf", pages count: Int = 5, word: String = "PAGE") throws -> URL {
    try writePDF(to: folder.file(name), pages: (1...count).map { "\(word)\($0) marker" }) { writer in
      writer.setTitle("Quire \(word) test")
      let chapter = writer.addOutlineEntry("Chapter", page: 1)
      for number in 2...max(2, count) where number <= count {
        writer.addOutlineEntry("Section \(number)", page: number, parent: chapter)
      }
    }
  }

  func pageWords(_ document: PDFDocument) throws -> [String] {
    try (0..<document.pageCount).map { index in
      let text = try document.text(ofPage: index)
      return text.split(whereSeparator: \.isWhitespace).first.map(String.init) ?? ""
    }
  }

  @Test func readsPagesTextOutlineAndMetadata() throws {
    let document = try PDFDocument(contentsOf: makePDF())
    #expect(document.pageCount == 5)
    #expect(try pageWords(document) == ["PAGE1", "PAGE2", "PAGE3", "PAGE4", "PAGE5"])
    #expect(try document.text().components(separatedBy: "\u{0C}").count == 5)
    let size = try document.pageSize(at: 0)
    #expect(abs(size.width - 595.28) < 1 && abs(size.height - 841.89) < 1)
    #expect(try document.rotation(ofPage: 0) == 0)
    #expect(document.metadata.title == "Quire PAGE test")
    #expect(document.metadata.producer?.contains("cairo") == true)
    #expect(document.metadata.creationDate != nil)
    #expect(document.permissions == .all)
    #expect(!document.isEncrypted)
    let outline = document.outline
    #expect(outline.count == 1)
    #expect(outline.first?.label == "Chapter")
    #expect(outline.first?.pageIndex == 0)
    #expect(outline.first?.children.map(\.label) == ["Section 2", "Section 3", "Section 4", "Section 5"])
    #expect(outline.first?.children.map(\.pageIndex) == [1, 2, 3, 4])
  }

  @Test func searchFindsResultsByPage() throws {
    let document = try PDFDocument(contentsOf: makePDF())
    let results = try document.findString("page3", caseSensitive: false)
    #expect(results.map(\.pageIndex) == [2])
    #expect(results.first?.bounds.count == 1)
    #expect(try document.findString("marker", caseSensitive: false).map(\.pageIndex) == [0, 1, 2, 3, 4])
    #expect(try document.findString("page3", caseSensitive: true).isEmpty)
    #expect(try document.findString("absent", caseSensitive: false).isEmpty)
  }

  /// Client code written for PDFKit: `findString(_:)` without options (one selection per
  /// match, and it does not throw), and documents and pages compared with `==` as NSObjects.
  @Test func pdfKitsFindAndEqualityAsClientsWriteThem() throws {
    let url = try makePDF()
    let document = try PDFDocument(contentsOf: url)
    #expect(document.findString("marker").map(\.pageIndex) == [0, 1, 2, 3, 4])
    #expect(document.findString("MARKER").isEmpty, "no options: case counts, as in PDFKit")
    #expect(document.findString("MARKER", withOptions: .caseInsensitive).count == 5)
    #expect(document.findString("absent").isEmpty)
    let page = try #require(document.page(at: 0))
    #expect(page.document == document)
    #expect(document.page(at: 0) == page, "another object for the same page")
    #expect(document.page(at: 1) != page)
    #expect(Set([page, try #require(document.page(at: 0)), try #require(document.page(at: 1))]).count == 2)
    let other = try PDFDocument(contentsOf: url)
    #expect(other != document)
    #expect(other.page(at: 0) != page, "the same page of another document object")
  }

  @Test func pageOperationsUndoAndRedo() throws {
    let document = try PDFDocument(contentsOf: makePDF())
    try document.removePage(at: 1)  // 1 3 4 5
    try document.movePage(at: 0, to: 3)  // 3 4 5 1
    try document.exchangePage(at: 0, withPageAt: 1)  // 4 3 5 1
    try document.rotatePage(at: 2, by: 90)
    #expect(try pageWords(document) == ["PAGE4", "PAGE3", "PAGE5", "PAGE1"])
    #expect(try document.rotation(ofPage: 2) == 90)
    let size = try document.pageSize(at: 2)
    #expect(size.width > size.height)
    #expect(document.operations.count == 4)
    #expect(document.undoActionName == "Rotate Page 3 by 90°")
    document.undo()
    #expect(try document.rotation(ofPage: 2) == 0)
    document.undo()
    #expect(try pageWords(document) == ["PAGE3", "PAGE4", "PAGE5", "PAGE1"])
    document.redo()
    #expect(try pageWords(document) == ["PAGE4", "PAGE3", "PAGE5", "PAGE1"])
    document.undo()
    document.undo()
    document.undo()
    #expect(try pageWords(document) == ["PAGE1", "PAGE2", "PAGE3", "PAGE4", "PAGE5"])
    #expect(!document.canUndo && document.canRedo && !document.hasUnsavedChanges)
    // A new operation clears what could be redone.
    try document.rotatePage(at: 0, by: -90)
    #expect(!document.canRedo)
    #expect(try document.rotation(ofPage: 0) == 270)
    #expect(document.outline.first?.children.map(\.pageIndex) == [1, 2, 3, 4])
  }

  @Test func outlineFollowsMovedAndRemovedPages() throws {
    let document = try PDFDocument(contentsOf: makePDF())
    try document.movePage(at: 4, to: 0)  // 5 1 2 3 4
    try document.removePage(at: 2)  // 5 1 3 4
    #expect(document.outline.first?.pageIndex == 1)
    #expect(document.outline.first?.children.map(\.pageIndex) == [nil, 2, 3, 0])
  }

  @Test func savedEditsReopenAsExpected() throws {
    let url = try makePDF()
    let document = try PDFDocument(contentsOf: url)
    try document.removePage(at: 4)  // 1 2 3 4
    try document.movePage(at: 0, to: 2)  // 2 3 1 4
    try document.rotatePage(at: 1, by: 90)
    try document.rotatePages(in: 3..<4, by: 180)
    try document.save()
    #expect(!document.hasUnsavedChanges)
    let reopened = try PDFDocument(contentsOf: url)
    #expect(try pageWords(reopened) == ["PAGE2", "PAGE3", "PAGE1", "PAGE4"])
    #expect(try (0..<4).map { try reopened.rotation(ofPage: $0) } == [0, 90, 0, 180])
    #expect(reopened.metadata.title == "Quire PAGE test")
    #expect(reopened.outline.first?.label == "Chapter")
    #expect(reopened.outline.first?.pageIndex == 2)
    // The removed page is gone from the file, though an outline entry pointed at it.
    #expect(reopened.outline.first?.children.last?.label == "Section 5")
    #expect(reopened.outline.first?.children.last?.pageIndex == nil)
    if let qdf = try runTool("qpdf", ["--qdf", "--object-streams=disable", url.path, "-"]) {
      #expect(qdf.output.components(separatedBy: "\n").filter { $0 == "  /Type /Page" }.count == 4)
    }
    if let check = try runTool("qpdf", ["--check", url.path]) { #expect(check.status == 0, "\(check.output)") }
    // Undo still works after saving over the original (the document reads a snapshot).
    document.undo()
    document.undo()
    document.undo()
    document.undo()
    try document.save()
    #expect(try pageWords(PDFDocument(contentsOf: url)) == ["PAGE1", "PAGE2", "PAGE3", "PAGE4", "PAGE5"])
  }

  @Test func rewritingTheOriginalInPlaceLeavesTheOpenDocumentWhole() throws {
    let url = try makePDF(pages: 3)
    let document = try PDFDocument(contentsOf: url)
    try document.removePage(at: 0)
    // Another program truncates and rewrites the same file (same inode), not a rename.
    let other = try Data(contentsOf: try makePDF("other.pdf", pages: 1, word: "OTHER"))
    let handle = try FileHandle(forWritingTo: url)
    try handle.truncate(atOffset: 0)
    try handle.write(contentsOf: other)
    try handle.close()
    let copy = folder.file("copy.pdf")
    try document.write(to: copy)
    #expect(try pageWords(PDFDocument(contentsOf: copy)) == ["PAGE2", "PAGE3"])
    try document.save(to: url)
    #expect(document.documentURL == url.standardizedFileURL)
    #expect(try pageWords(PDFDocument(contentsOf: url)) == ["PAGE2", "PAGE3"])
  }

  @Test func poppler_utilsAndQpdfAgree() throws {
    let url = try makePDF()
    let originalSize = try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int ?? 0
    let document = try PDFDocument(contentsOf: url)
    try document.movePage(at: 3, to: 0)  // 4 1 2 3 5
    try document.rotatePage(at: 0, by: 270)
    let output = folder.file("out.pdf")
    try document.write(to: output)
    let outputSize = try FileManager.default.attributesOfItem(atPath: output.path)[.size] as? Int ?? 0
    #expect(Double(outputSize) <= 1.1 * Double(originalSize), "\(outputSize) vs \(originalSize)")
    if let info = try runTool("pdfinfo", ["-f", "1", "-l", "5", output.path]) {
      #expect(info.status == 0)
      let lines = info.output.split(separator: "\n").map { $0.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
      #expect(lines.contains("Pages: 5"))
      #expect(lines.contains("Page 1 rot: 270"))
      #expect(lines.contains("Page 2 rot: 0"))
    }
    if let text = try runTool("pdftotext", ["-layout", output.path, "-"]) {
      let words = text.output.split(whereSeparator: \.isWhitespace).filter { $0.hasPrefix("PAGE") }
      #expect(words == ["PAGE4", "PAGE1", "PAGE2", "PAGE3", "PAGE5"])
    }
    if let check = try runTool("qpdf", ["--check", output.path]) {
      #expect(check.status == 0, "\(check.output)")
      #expect(check.output.contains("No syntax or stream encoding errors found"))
    }
  }

  @Test func insertsPagesFromAnotherPDF() throws {
    let url = try makePDF()
    let other = try makePDF("other.pdf", pages: 2, word: "OTHER")
    let document = try PDFDocument(contentsOf: url)
    try document.insertPages(from: other, at: 1)
    #expect(try pageWords(document) == ["PAGE1", "OTHER1", "OTHER2", "PAGE2", "PAGE3", "PAGE4", "PAGE5"])
    #expect(document.undoActionName == "Insert 2 Pages of 'other.pdf' at 2")
    let output = folder.file("merged.pdf")
    try document.write(to: output)
    #expect(try pageWords(PDFDocument(contentsOf: output)) == ["PAGE1", "OTHER1", "OTHER2", "PAGE2", "PAGE3", "PAGE4", "PAGE5"])
    if let check = try runTool("qpdf", ["--check", output.path]) { #expect(check.status == 0, "\(check.output)") }
    document.undo()
    #expect(document.pageCount == 5)
    #expect(throws: QuireError.self) { try document.insertPages(from: self.folder.file("none.pdf"), at: 0) }
    #expect(throws: QuireError.self) { try document.insertPages(from: other, at: 9) }
  }

  @Test func invalidOperationsFailClearly() throws {
    let document = try PDFDocument(contentsOf: makePDF(pages: 2))
    #expect(throws: QuireError.self) { try document.removePage(at: 2) }
    #expect(throws: QuireError.self) { try document.removePage(at: -1) }
    #expect(throws: QuireError.self) { try document.movePage(at: 0, to: 5) }
    #expect(throws: QuireError.self) { try document.rotatePage(at: 0, by: 45) }
    let error = #expect(throws: QuireError.self) { try document.removePages(in: 0..<2) }
    #expect(error?.reason.contains("at least one page") == true)
    #expect(throws: QuireError.self) { try document.text(ofPage: 7) }
    // The extremes of Int fail with an error, not an overflow.
    for index in [Int.max, Int.min] {
      #expect(throws: QuireError.self) { try document.text(ofPage: index) }
      #expect(throws: QuireError.self) { try document.pageSize(at: index) }
      #expect(throws: QuireError.self) { try document.rotation(ofPage: index) }
      #expect(throws: QuireError.self) { try document.removePage(at: index) }
      #expect(throws: QuireError.self) { try document.rotatePage(at: index, by: 90) }
      #expect(throws: QuireError.self) { try document.movePage(at: index, to: 0) }
      #expect(throws: QuireError.self) { try document.exchangePage(at: 0, withPageAt: index) }
      #expect(document.page(at: index) == nil)
    }
    #expect(document.operations.isEmpty)
    // A turn by a huge multiple of 90 is that turn modulo 360.
    try document.rotatePage(at: 0, by: Int.max / 360 * 360 - 270)
    #expect(try document.rotation(ofPage: 0) == 90)
  }

  @Test func encryptedPDFNeedsItsPasswordAndRestrictionsHold() throws {
    let plain = try makePDF()
    let locked = folder.file("locked.pdf")
    guard let made = try runTool("qpdf", ["--encrypt", "user", "owner", "256", "--assemble=n", "--", plain.path, locked.path]) else { return }
    #expect(made.status == 0)
    let error = #expect(throws: QuireError.self) { try PDFDocument(contentsOf: locked) }
    #expect(error?.code == .passwordRequired)
    let asUser = try PDFDocument(contentsOf: locked, password: "user")
    #expect(asUser.isEncrypted)
    #expect(!asUser.allowsDocumentAssembly)
    #expect(throws: QuireError.self) { try asUser.removePage(at: 0) }
    let asOwner = try PDFDocument(contentsOf: locked, password: "owner")
    #expect(asOwner.allowsDocumentAssembly)
    try asOwner.removePage(at: 0)
    try asOwner.save()
    let reopened = try PDFDocument(contentsOf: locked, password: "user")
    #expect(reopened.pageCount == 4)
    #expect(reopened.isEncrypted)
  }

  /// PDFKit's way with a password: `PDFDocument(url:)` (and `init?(data:)`) opens the file
  /// locked, with no pages and nothing written; `unlock(withPassword:)` refuses a wrong password
  /// and takes the user's (pages readable) or the owner's (the withheld permissions too).
  @Test func aPasswordProtectedPDFOpensLockedUntilUnlocked() throws {
    let plain = try makePDF()
    let protected = folder.file("locked.pdf")
    guard let made = try runTool("qpdf", ["--encrypt", "user", "owner", "256", "--assemble=n", "--", plain.path, protected.path]) else { return }
    #expect(made.status == 0)
    let original = try Data(contentsOf: protected)
    let document = try #require(PDFDocument(url: protected))
    #expect(document.isLocked && document.isEncrypted && document.pageCount == 0 && document.page(at: 0) == nil)
    #expect(!document.allowsDocumentAssembly && document.permissions.isEmpty)
    let copy = folder.file("copy.pdf")
    let refusal = #expect(throws: QuireError.self) { try document.write(to: copy) }
    #expect(refusal?.code == .passwordRequired && refusal?.reason.contains("locked") == true, "\(String(describing: refusal))")
    #expect(!FileManager.default.fileExists(atPath: copy.path) && document.dataRepresentation() == nil)
    #expect(throws: QuireError.self) { try document.insertPages(from: plain, at: 0) }
    #expect(!document.unlock(withPassword: "wrong") && document.isLocked)
    #expect(document.unlock(withPassword: "user"))
    #expect(!document.isLocked && document.isEncrypted && document.pageCount == 5 && !document.allowsDocumentAssembly)
    #expect(document.page(at: 0)?.string?.isEmpty == false)
    #expect(try Data(contentsOf: protected) == original)
    // The same bytes, as PDFKit's init?(data:) opens them; the owner's password gives
    // assembly, so a page can go.
    let fromData = try #require(PDFDocument(data: original))
    #expect(fromData.isLocked && fromData.pageCount == 0)
    #expect(fromData.unlock(withPassword: "owner") && fromData.pageCount == 5 && fromData.allowsDocumentAssembly)
    try fromData.removePage(at: 0)
    #expect(fromData.pageCount == 4)
    // A document that opened with the user's password takes the owner's the same way; a PDF
    // that is not encrypted has no password to take.
    let asUser = try PDFDocument(contentsOf: protected, password: "user")
    #expect(!asUser.allowsDocumentAssembly && !asUser.unlock(withPassword: "wrong") && !asUser.allowsDocumentAssembly)
    #expect(asUser.unlock(withPassword: "owner") && asUser.allowsDocumentAssembly)
    let unencrypted = try #require(PDFDocument(url: plain))
    #expect(!unencrypted.isLocked && !unencrypted.unlock(withPassword: "user"))
  }

  /// PDFKit's `write(to:withOptions:)` with passwords writes an AES-256 copy that qpdf and
  /// pdftotext open with the password and PDFKit's way opens locked; the document and its
  /// file stay as they were. An owner password alone gives a copy that opens without one.
  @Test func writingWithPasswordsEncryptsTheCopy() throws {
    let plain = try makePDF()
    let original = try Data(contentsOf: plain)
    let document = try PDFDocument(contentsOf: plain)
    let copy = folder.file("secret.pdf")
    #expect(document.write(to: copy, withOptions: [.userPasswordOption: "open sesame", .ownerPasswordOption: "owner"]))
    #expect(try Data(contentsOf: plain) == original && !document.isEncrypted && !document.hasUnsavedChanges)
    guard let asOwner = try runTool("qpdf", ["--show-encryption", "--password=owner", copy.path]),
      let asUser = try runTool("qpdf", ["--show-encryption", "--password=open sesame", copy.path])
    else { return }
    #expect(asOwner.status == 0 && asOwner.output.contains("Supplied password is owner password"), "\(asOwner.output)")
    #expect(asOwner.output.contains("R = 6") && asOwner.output.contains("file encryption method: AESv3"), "\(asOwner.output)")
    #expect(asOwner.output.contains("modify document assembly: allowed") && asOwner.output.contains("print high resolution: allowed"))
    #expect(asUser.status == 0 && asUser.output.contains("User password = open sesame"), "\(asUser.output)")
    #expect(try runTool("qpdf", ["--check", copy.path])?.status != 0)
    guard let text = try runTool("pdftotext", ["-upw", "open sesame", "-f", "2", "-l", "2", copy.path, "-"]) else { return }
    #expect(text.status == 0 && text.output.contains("PAGE2 marker"), "\(text.output)")
    let reopened = try #require(PDFDocument(url: copy))
    #expect(reopened.isLocked && reopened.unlock(withPassword: "open sesame") && reopened.pageCount == 5)
    // The owner's password alone: it opens without one, encrypted, everything allowed.
    let ownerOnly = folder.file("owner-only.pdf")
    #expect(document.write(toFile: ownerOnly.path, withOptions: [.ownerPasswordOption: "owner"]))
    let opened = try #require(PDFDocument(url: ownerOnly))
    #expect(!opened.isLocked && opened.isEncrypted && opened.allowsDocumentAssembly && opened.pageCount == 5)
    // A password that is not a string writes nothing; the throwing form needs a password.
    let refused = folder.file("refused.pdf")
    #expect(!document.write(to: refused, withOptions: [.userPasswordOption: 42]))
    #expect(throws: QuireError.self) { try document.write(to: refused, userPassword: nil, ownerPassword: "") }
    #expect(!FileManager.default.fileExists(atPath: refused.path))
    // The same as bytes (PDFKit's dataRepresentation(options:)).
    let bytes = try #require(document.dataRepresentation(options: [PDFDocumentWriteOption.userPasswordOption: "open sesame"]))
    let fromBytes = try #require(PDFDocument(data: bytes))
    #expect(fromBytes.isLocked && !fromBytes.unlock(withPassword: "owner") && fromBytes.unlock(withPassword: "open sesame"))
    #expect(document.dataRepresentation(options: [PDFDocumentWriteOption.ownerPasswordOption: ["not", "a", "string"]]) == nil)
    // No options: the plain copy.
    let same = folder.file("same.pdf")
    #expect(document.write(to: same, withOptions: nil))
    #expect(try #require(PDFDocument(url: same)).isEncrypted == false)
  }

  /// The outline as pypdf reads it from `url`: one line per entry, indented two spaces per
  /// level, `title -> page` (1-based; `-` for none); nil when pypdf is not installed.
  func pypdfOutline(_ url: URL) throws -> String? {
    guard (try? ChildProcess.runBlocking(URL(fileURLWithPath: "/usr/bin/python3"), ["-c", "import pypdf"]).status) == 0 else {
      Issue.record("pypdf (python3-pypdf) is not installed: scripts/setup installs it")
      return nil
    }
    let script = """
      import sys, pypdf
      r = pypdf.PdfReader(sys.argv[1])
      def walk(items, depth):
          for item in items:
              if isinstance(item, list):
                  walk(item, depth + 1)
              else:
                  page = r.get_destination_page_number(item)
                  print("  " * depth + item.title + " -> " + (str(page + 1) if page is not None and page >= 0 else "-"))
      walk(r.outline, 0)
      """
    let result = try ChildProcess.runBlocking(URL(fileURLWithPath: "/usr/bin/python3"), ["-c", script, url.path])
    #expect(result.status == 0, "\(result.error)")
    return result.output
  }

  /// PDFKit's outline editing: a tree built in code and set as `outlineRoot`, or the file's
  /// own tree changed in place, is written by the next write, as pypdf and qpdf read it; a
  /// tree only read is written exactly as the file had it, even after pages moved.
  @Test func anOutlineBuiltOrChangedInCodeIsWritten() throws {
    let plain = try makePDF()
    let document = try PDFDocument(contentsOf: plain)
    // The file's tree: Chapter → Section 2…5. Read it and move a page: nothing to write anew.
    let read = try #require(document.outlineRoot)
    #expect(read === document.outlineRoot && read.child(at: 0)?.label == "Chapter" && read.child(at: 0)?.numberOfChildren == 4)
    try document.movePage(at: 4, to: 0)
    let moved = folder.file("moved.pdf")
    try document.write(to: moved)
    #expect(try pypdfOutline(moved) == "Chapter -> 2\n  Section 2 -> 3\n  Section 3 -> 4\n  Section 4 -> 5\n  Section 5 -> 1\n")
    // Changed in place: renamed, one removed, one added at a point of page 1.
    let chapter = try #require(read.child(at: 0))
    chapter.label = "Chapter One"
    chapter.child(at: 1)?.removeFromParent()
    let added = PDFOutline()
    added.label = "Added ✓"
    added.destination = PDFDestination(page: try #require(document.page(at: 0)), at: CGPoint(x: 72, y: 700))
    read.insertChild(added, at: 1)
    #expect(document.hasUnsavedChanges)
    let changed = folder.file("changed.pdf")
    try document.write(to: changed)
    #expect(try pypdfOutline(changed) == "Chapter One -> 2\n  Section 2 -> 3\n  Section 4 -> 5\n  Section 5 -> 1\nAdded ✓ -> 1\n")
    #expect(try runTool("qpdf", ["--check", changed.path])?.status == 0)
    let reopened = try PDFDocument(contentsOf: changed)
    #expect(reopened.outlineRoot?.child(at: 1)?.label == "Added ✓")
    #expect(reopened.outlineRoot?.child(at: 0)?.child(at: 2)?.destination?.page.map { reopened.index(for: $0) } == 0)
    // A tree built in code replaces the file's; nil takes the outline away.
    let fresh = try PDFDocument(contentsOf: plain)
    let root = PDFOutline()
    for (number, title) in ["Intro", "Appendix"].enumerated() {
      let entry = PDFOutline()
      entry.label = title
      entry.destination = PDFDestination(page: try #require(fresh.page(at: number * 4)), at: .zero)
      root.insertChild(entry, at: number)
    }
    let closed = try #require(root.child(at: 1))
    let note = PDFOutline()
    note.label = "Note"
    note.destination = PDFDestination(page: try #require(fresh.page(at: 2)), at: .zero)
    closed.insertChild(note, at: 0)
    fresh.outlineRoot = root
    let built = folder.file("built.pdf")
    try fresh.save(to: built)
    #expect(!fresh.hasUnsavedChanges)
    #expect(try pypdfOutline(built) == "Intro -> 1\nAppendix -> 5\n  Note -> 3\n")
    fresh.outlineRoot = nil
    let none = folder.file("none.pdf")
    try fresh.write(to: none)
    #expect(try pypdfOutline(none) == "")
    #expect(try PDFDocument(contentsOf: none).outlineRoot == nil)
  }

  /// Fails each system call of a PDF save in turn (the steps of the one atomic writer: the
  /// temporary file's creation, the look at the old file, its mode, the flush, the rename):
  /// the original stays whole and nothing is left beside it.
  @Test func injectedFailuresLeaveTheOriginal() throws {
    let url = try makePDF()
    let original = try Data(contentsOf: url)
    for operation in [SystemStep.create, .inspect, .keepMode, .flush, .rename] {
      let document = try PDFDocument(contentsOf: url)
      try document.removePage(at: 0)
      let faults = FaultPlan(failing: operation, with: .noSpace, under: folder.url.path)
      let error = #expect(throws: QuireError.self) { try faults.run { try document.save() } }
      #expect(error?.reason.contains("disk is full") == true, "\(operation): \(String(describing: error))")
      #expect(try Data(contentsOf: url) == original, "\(operation)")
      #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted() == ["five.pdf"], "\(operation)")
      #expect(document.hasUnsavedChanges)
    }
  }

  enum BadInput: String, CaseIterable { case missing, empty, folder, text, truncated, garbage }

  @Test(arguments: BadInput.allCases)
  func badInputFailsCleanly(_ input: BadInput) throws {
    let url = folder.file("bad.pdf")
    switch input {
    case .missing: break
    case .empty: try Data().write(to: url)
    case .folder: try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
    case .text: try Data("# not a pdf\n".utf8).write(to: url)
    case .truncated:
      let whole = try Data(contentsOf: makePDF())
      try whole.prefix(whole.count / 3).write(to: url)
    case .garbage: try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919) }).write(to: url)
    }
    let error = #expect(throws: QuireError.self) { try PDFDocument(contentsOf: url) }
    #expect(error?.reason.contains("bad.pdf") == true)
  }

  /// A PDF of the shared corpus, edited, saved, and checked by poppler, pdfinfo, pdftotext and qpdf.
  @Test(.enabled(if: sharedCorpus("pdf") != nil, "../shared/corpus/pdf is absent"))
  func corpusPDFRoundTrip() throws {
    let (original, document) = try editableCorpusPDF(scratch: folder)
    print("corpus round trip: \(original.lastPathComponent), \(document.pageCount) pages")
    let count = document.pageCount
    // Moved and rotated: no page removed, size stays within 1.1×.
    try document.movePage(at: 0, to: 2)  // 2 3 1 4…
    try document.rotatePage(at: 1, by: 90)
    let moved = folder.file("moved.pdf")
    try document.write(to: moved)
    let originalSize = try FileManager.default.attributesOfItem(atPath: original.path)[.size] as? Int ?? 0
    let movedSize = try FileManager.default.attributesOfItem(atPath: moved.path)[.size] as? Int ?? 0
    #expect(Double(movedSize) <= 1.1 * Double(originalSize), "\(original.lastPathComponent): \(movedSize) vs \(originalSize)")
    // And a page deleted.
    try document.removePage(at: count - 1)
    let edited = folder.file("edited.pdf")
    try document.write(to: edited)
    let order = [1, 2, 0] + Array(3..<(count - 1))
    let reopened = try PDFDocument(contentsOf: edited)
    #expect(reopened.pageCount == count - 1)
    #expect(try reopened.rotation(ofPage: 1) == QPDFRotation.add(90, to: PDFDocument(contentsOf: original).rotation(ofPage: 2)))
    let source = try PDFDocument(contentsOf: original)
    for (index, from) in order.enumerated() {
      let ours = try reopened.text(ofPage: index)
      let theirs = try source.text(ofPage: from)
      if index == 1 {
        // Turned a quarter: poppler reads the lines in another order, but every character is there.
        #expect(ours.filter { !$0.isWhitespace }.sorted() == theirs.filter { !$0.isWhitespace }.sorted())
      } else {
        #expect(ours == theirs, "page \(index + 1) of \(original.lastPathComponent)")
      }
    }
    if let info = try runTool("pdfinfo", [edited.path]) {
      let lines = info.output.split(separator: "\n").map { $0.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
      #expect(lines.contains("Pages: \(count - 1)"), "\(info.output)")
    }
    for (index, from) in order.prefix(4).enumerated() where index != 1 {
      if let ours = try runTool("pdftotext", ["-f", "\(index + 1)", "-l", "\(index + 1)", edited.path, "-"]),
        let theirs = try runTool("pdftotext", ["-f", "\(from + 1)", "-l", "\(from + 1)", original.path, "-"])
      {
        #expect(ours.output == theirs.output, "page \(index + 1)")
      }
    }
    if let check = try runTool("qpdf", ["--check", edited.path]) {
      #expect(check.status == 0 || check.status == 3, "\(check.output)")  // 3: warnings the original has too
      #expect(!check.output.contains("ERROR"), "\(check.output)")
    }
  }
}

/// Adds rotations the way PDF viewers do: modulo 360.
enum QPDFRotation {
  static func add(_ degrees: Int, to base: Int) -> Int { ((base + degrees) % 360 + 360) % 360 }
}
