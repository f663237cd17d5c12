import Foundation
@_spi(Testing) import QuireDocuments
import QuireFormats
@_spi(Testing) import QuirePDF
import QuireTestSupport
import QuireTypes
import Testing

@Suite("PDF documents")
@MainActor
final class PDFFileDocumentTests: MainActorFolderSuite {
  func makePDF(_ name: String = "five.pdf", pages count: Int = 5, word: String = "PAGE") throws -> URL {
    try writePDF(to: folder.file(name), pages: (1...count).map { "\(word)\($0) marker" })
  }

  func controller() -> DocumentController {
    let controller = quietController(in: folder)
    return controller
  }

  func words(_ document: PDFFileDocument) throws -> [String] {
    try (0..<document.pageCount).map { index in
      try document.text(ofPage: index).split(whereSeparator: \.isWhitespace).first.map(String.init) ?? ""
    }
  }

  @Test func pageOperationsUndoThroughTheDocumentsUndoManager() async throws {
    let document = try #require(try await controller().openDocument(at: makePDF()) as? PDFFileDocument)
    #expect(document.contentType == .pdf)
    #expect(document.pageCount == 5)
    try document.removePages(in: 1..<3)
    #expect(document.undoManager.undoActionName == "Delete Pages 2–3")
    try document.movePage(at: 2, to: 0)
    try document.rotatePages(in: 0..<1, by: 90)
    try document.exchangePage(at: 1, withPageAt: 2)
    #expect(try words(document) == ["PAGE5", "PAGE4", "PAGE1"])
    #expect(document.changeCount == 4)
    #expect(document.hasUnsavedChanges)
    #expect(document.undoManager.undoActionName == "Exchange Pages 2 and 3")
    document.undoManager.undo()
    document.undoManager.undo()
    #expect(try words(document) == ["PAGE5", "PAGE1", "PAGE4"])
    #expect(try document.rotation(ofPage: 0) == 0)
    #expect(document.changeCount == 2)
    #expect(document.undoManager.redoActionName == "Rotate Page 1 by 90°")
    document.undoManager.redo()
    #expect(try document.rotation(ofPage: 0) == 90)
    #expect(document.changeCount == 3)
    // Moving a page onto itself is no change and no undo step.
    try document.movePage(at: 1, to: 1)
    #expect(document.changeCount == 3)
    #expect(document.operations.count == 3)
  }

  @Test func savingWritesThePagesAtomicallyAndReopens() async throws {
    let url = try makePDF()
    let original = try Data(contentsOf: url).count
    let controller = controller()
    let document = try #require(try await controller.openDocument(at: url) as? PDFFileDocument)
    try document.movePage(at: 4, to: 0)
    try document.rotatePages(in: 1..<3, by: -90)
    try document.insertPages(from: makePDF("two.pdf", pages: 2, word: "EXTRA"), at: 5)
    try await document.save()
    #expect(!document.hasUnsavedChanges)
    #expect(names(in: folder.url).filter { $0.hasPrefix(".") }.isEmpty)
    // Undo after a save still works on the document's own snapshot.
    document.undoManager.undo()
    #expect(document.pageCount == 5)
    #expect(document.hasUnsavedChanges)
    document.undoManager.redo()
    #expect(!document.hasUnsavedChanges)
    try await controller.close(document)
    let reopened = try PDFDocument(contentsOf: url)
    #expect(reopened.pageCount == 7)
    #expect(
      try (0..<7).map { try reopened.text(ofPage: $0).split(whereSeparator: \.isWhitespace).first.map(String.init) ?? "" }
        == ["PAGE5", "PAGE1", "PAGE2", "PAGE3", "PAGE4", "EXTRA1", "EXTRA2"])
    #expect(try reopened.rotation(ofPage: 1) == 270)
    #expect(try reopened.rotation(ofPage: 0) == 0)
    if let check = try runTool("qpdf", ["--check", url.path]) { #expect(check.status == 0, "\(check.output)") }
    if let info = try runTool("pdfinfo", [url.path]) {
      let pages = info.output.split(separator: "\n").first { $0.hasPrefix("Pages:") }
      #expect(pages?.split(separator: " ").last == "7")
    }
    // Moving and rotating only: the size stays close to the original's.
    let plain = try makePDF("plain.pdf")
    let again = try #require(try await controller.openDocument(at: plain) as? PDFFileDocument)
    try again.movePage(at: 0, to: 4)
    try again.rotatePages(in: 0..<5, by: 180)
    try await again.save()
    #expect(Double(try Data(contentsOf: plain).count) <= Double(original) * 1.1)
  }

  @Test func badInputGivesClearErrors() async throws {
    let controller = controller()
    let empty = try folder.write("", to: "empty.pdf")
    let text = try folder.write("not a pdf at all", to: "text.pdf")
    let truncatedURL = folder.file("truncated.pdf")
    try Data(try Data(contentsOf: makePDF("whole.pdf")).prefix(200)).write(to: truncatedURL)
    for url in [empty, text, truncatedURL, folder.file("missing.pdf")] {
      do {
        _ = try await controller.openDocument(at: url)
        Issue.record("\(url.lastPathComponent) opened")
      } catch let error as QuireError {
        #expect(error.reason.contains(url.lastPathComponent), "\(error)")
      }
    }
    #expect(controller.documents.isEmpty)
    let document = try #require(try await controller.openDocument(at: makePDF("three.pdf", pages: 3)) as? PDFFileDocument)
    #expect(throws: QuireError.self) { try document.removePages(in: 0..<3) }  // every page
    #expect(throws: QuireError.self) { try document.removePages(in: 3..<4) }
    #expect(throws: QuireError.self) { try document.movePage(at: 0, to: 9) }
    #expect(throws: QuireError.self) { try document.rotatePages(in: 0..<1, by: 45) }
    #expect(throws: QuireError.self) { try document.insertPages(from: text, at: 0) }
    #expect(throws: QuireError.self) { try document.insertPages(from: self.folder.file("none.pdf"), at: 0) }
    #expect(throws: QuireError.self) { try document.text(ofPage: 3) }
    #expect(document.changeCount == 0)
    #expect(!document.undoManager.canUndo)
    try await controller.close(document)
    #expect(throws: QuireError.self) { try document.removePages(in: 0..<1) }
  }

  /// Acceptance 1 through the Document API: a corpus PDF copied, edited, saved with
  /// Document.save(), reopened by poppler and checked by qpdf.
  @Test(.enabled(if: sharedCorpus("pdf") != nil, "../shared/corpus/pdf is absent"))
  func corpusPDFRoundTripThroughTheDocument() async throws {
    let original = try editableCorpusPDF(scratch: folder).url
    let url = folder.file("copy.pdf")
    try Data(contentsOf: original).write(to: url)  // a writable copy (the corpus is read-only)
    let source = try PDFDocument(contentsOf: original)
    let count = source.pageCount
    let controller = controller()
    let document = try #require(try await controller.openDocument(at: url) as? PDFFileDocument)
    try document.movePage(at: 0, to: 2)  // 2 3 1 4…
    try document.rotatePages(in: 1..<2, by: 90)
    try await document.save()
    #expect(Double(try Data(contentsOf: url).count) <= 1.1 * Double(try Data(contentsOf: original).count))
    try document.removePages(in: (count - 1)..<count)
    try await document.save()
    try await controller.close(document)
    let reopened = try PDFDocument(contentsOf: url)
    #expect(reopened.pageCount == count - 1)
    for (index, from) in [1, 2, 0, 3].enumerated() where index != 1 {
      #expect(try reopened.text(ofPage: index) == source.text(ofPage: from), "page \(index + 1) of \(original.lastPathComponent)")
    }
    #expect(try reopened.rotation(ofPage: 1) == QPDFRotation.add(90, to: source.rotation(ofPage: 2)))
    // Each save kept the previous file as a version.
    #expect(try controller.versionStore.versions(ofItemAt: url).count == 2)
    if let check = try runTool("qpdf", ["--check", url.path]) {
      #expect(check.status == 0 || check.status == 3, "\(check.output)")
      #expect(!check.output.contains("ERROR"), "\(check.output)")
    }
  }

  /// A closed PDF document for `url` that keeps its undo history in the test's store.
  func persisting(_ url: URL) -> PDFFileDocument {
    let document = quiet(PDFFileDocument(fileURL: url, contentType: .pdf))
    document.persistsUndoHistory = true
    document.undoHistoryStore = UndoHistoryStore(root: folder.file("state/quire/undo"))
    return document
  }

  @Test func pageEditsAreUndoneInTheNextSession() async throws {
    let url = try makePDF(pages: 3)
    let first = persisting(url)
    try await first.open()
    try first.removePages(in: 0..<1)
    try first.rotatePages(in: 0..<1, by: 90)
    try await first.save()
    try await first.close()

    let second = persisting(url)
    try await second.open()
    #expect(second.undoHistoryRestoration == .restored(undoSteps: 2, redoSteps: 0, changedOnDisk: false))
    #expect(try words(second) == ["PAGE2", "PAGE3"])
    // A page edit made in this session sits on top of the stored ones.
    try second.movePage(at: 1, to: 0)
    #expect(try words(second) == ["PAGE3", "PAGE2"])
    second.undoManager.undo()
    second.undoManager.undo()
    #expect(try second.rotation(ofPage: 0) == 0)
    #expect(try words(second) == ["PAGE2", "PAGE3"])
    second.undoManager.undo()
    #expect(try words(second) == ["PAGE1", "PAGE2", "PAGE3"])
    #expect(!second.undoManager.canUndo)
    // Redo walks back up through both sessions' steps, on the one model.
    second.undoManager.redo()
    second.undoManager.redo()
    second.undoManager.redo()
    #expect(try words(second) == ["PAGE3", "PAGE2"])
    #expect(try second.rotation(ofPage: 1) == 90)
    second.undoManager.undo()
    second.undoManager.undo()
    second.undoManager.undo()
    try await second.save()
    try await second.close()
    let back = try PDFDocument(contentsOf: url)
    #expect(back.pageCount == 3)
    #expect(try back.text(ofPage: 0).contains("PAGE1"))
    if let check = try runTool("qpdf", ["--check", url.path]) { #expect(check.status == 0, "\(check.output)") }
  }

  @Test func annotationEditsAreUndoneInTheNextSession() async throws {
    let url = try makePDF(pages: 2)
    let first = persisting(url)
    try await first.open()
    #expect(try first.markText("PAGE1", onPage: 0, as: .highlight) == 1)
    try first.addNote("a note", at: (x: 100, y: 100), onPage: 1)
    try await first.save()
    try await first.close()
    let saved = try PDFDocument(contentsOf: url)
    #expect(saved.page(at: 0)?.annotations.map(\.type) == ["Highlight"])
    #expect(saved.page(at: 1)?.annotations.map(\.type) == ["Text"])

    let second = persisting(url)
    try await second.open()
    #expect(second.undoHistoryRestoration == .restored(undoSteps: 2, redoSteps: 0, changedOnDisk: false))
    #expect(try second.annotations(onPage: 1).count == 1)
    second.undoManager.undo()
    #expect(try second.annotations(onPage: 1).isEmpty, "the note is undone")
    #expect(try second.annotations(onPage: 0).count == 1, "the highlight stays")
    second.undoManager.undo()
    #expect(try second.annotations(onPage: 0).isEmpty, "the highlight is undone")
    second.undoManager.redo()
    #expect(try second.annotations(onPage: 0).count == 1)
    second.undoManager.undo()
    try await second.save()
    try await second.close()
    let reverted = try PDFDocument(contentsOf: url)
    #expect((0..<2).allSatisfy { reverted.page(at: $0)?.annotations.isEmpty == true })
    if let check = try runTool("qpdf", ["--check", url.path]) { #expect(check.status == 0, "\(check.output)") }
  }

  @Test func anOutsideChangeToAPDFIsOneUndoStepOnTopOfItsHistory() async throws {
    let url = try makePDF(pages: 3)
    let first = persisting(url)
    try await first.open()
    try first.removePages(in: 2..<3)
    try await first.save()
    try await first.close()
    // Another program writes a different PDF over it.
    _ = try writePDF(to: url, pages: ["OTHER1 marker"])

    let second = persisting(url)
    try await second.open()
    #expect(second.undoHistoryRestoration == .restored(undoSteps: 2, redoSteps: 0, changedOnDisk: true))
    #expect(try words(second) == ["OTHER1"])
    second.undoManager.undo()
    #expect(try words(second) == ["PAGE1", "PAGE2"], "the first undo returns to what Quire last saved")
    second.undoManager.undo()
    #expect(try words(second) == ["PAGE1", "PAGE2", "PAGE3"], "the next undo continues into the old history")
    second.undoManager.redo()
    second.undoManager.redo()
    #expect(try words(second) == ["OTHER1"], "redo comes back to what is on disk")
  }

  @Test func anUneditedPDFThatReloadsKeepsItsPageHistory() async throws {
    let url = try makePDF(pages: 3)
    let document = persisting(url)
    try await document.open()
    try document.removePages(in: 0..<1)
    try await document.save()
    _ = try writePDF(to: url, pages: ["OTHER1 marker", "OTHER2 marker"])
    #expect(try await document.checkForChangesOnDisk() == .reloaded)
    #expect(try words(document) == ["OTHER1", "OTHER2"])
    document.undoManager.undo()
    #expect(try words(document) == ["PAGE2", "PAGE3"])
    document.undoManager.undo()
    #expect(try words(document) == ["PAGE1", "PAGE2", "PAGE3"], "this session's page edit undoes on the reloaded document")
  }

  @Test(.enabled(if: sharedCorpus("broken-pdf") != nil, "../shared/corpus/broken-pdf is absent"))
  func brokenCorpusFilesOpenOrFailClearly() async throws {
    let corpus = try #require(sharedCorpus("broken-pdf"))
    let files = try FileManager.default.contentsOfDirectory(atPath: corpus.path).sorted().prefix(40)
    for name in files {
      let document = quiet(PDFFileDocument(fileURL: corpus.appendingPathComponent(name), contentType: .pdf))
      do {
        try await document.open()
        #expect(document.pageCount >= 0)
      } catch let error as QuireError {
        #expect(error.reason.contains(name), "\(name): \(error)")
      }
    }
  }
}
