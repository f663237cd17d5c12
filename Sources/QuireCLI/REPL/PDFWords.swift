import ArgumentParser
import Foundation
import Quire

/// The page words work on the current document when it is a PDF (`open FILE.pdf`, or
/// `pdf FILE.pdf`, or `pages FILE.pdf`). `w` saves the page operations losslessly through
/// libqpdf, `u` and `redo` undo and redo them, as for text.
@MainActor
enum PDFWords {
  /// Opens `path` (which must be a PDF) as a document of the session, or switches to it.
  static func open(_ path: String, in session: REPLSession) async throws {
    let url = URL(fileURLWithPath: path)
    guard FileManager.default.fileExists(atPath: url.path) else {
      throw EdError("cannot open '\(path)': it does not exist")
    }
    guard EdDocument.isPDF(url) else {
      throw EdError("cannot open '\(url.lastPathComponent)' as a PDF: it is not one (open it with 'open \(path)')")
    }
    try await session.open(path)
  }

  /// The current document's PDF document.
  static func require(_ session: REPLSession) throws -> PDFFileDocument {
    guard let document = session.currentDocument else {
      throw EdError("no PDF is open; open one with 'open FILE.pdf'")
    }
    guard let pdf = document.pdfDocument else {
      throw EdError("'\(document.displayName)' is not a PDF: the page commands work on a PDF; open one with 'open FILE.pdf'")
    }
    return pdf
  }

  /// Page `text` (1-based) as a 0-based index.
  static func page(_ text: String, of pdf: PDFFileDocument) throws -> Int {
    guard let number = Int(text) else { throw EdError("'\(text)' is not a page number") }
    guard number >= 1, number <= pdf.pageCount else {
      throw EdError(
        "there is no page \(number): '\(pdf.fileURL.lastPathComponent)' has \(pdf.pageCount) page\(pdf.pageCount == 1 ? "" : "s")")
    }
    return number - 1
  }

  /// Pages `N` or `N-M` (1-based) as 0-based indexes.
  static func pages(_ text: String, of pdf: PDFFileDocument) throws -> Range<Int> {
    let parts = text.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
    guard parts.count <= 2 else { throw EdError("'\(text)' is not a page or page range (N or N-M)") }
    let first = try page(parts[0], of: pdf)
    let last = try parts.count == 2 ? page(parts[1], of: pdf) : first
    guard first <= last else { throw EdError("invalid page range '\(text)': page \(first + 1) comes after page \(last + 1)") }
    return first..<(last + 1)
  }

  /// Runs a page operation on the session's PDF (one undo step of its undo manager): `body`
  /// reads its arguments against the PDF and changes it; errors are one line, and the change
  /// is said.
  static func change(in session: REPLSession, _ body: (PDFFileDocument) throws -> Void) throws {
    let pdf = try require(session)
    do {
      try body(pdf)
    } catch let error as EdError {
      throw error
    } catch {
      throw EdError(REPLSession.message(for: error))
    }
    session.say("\(pdf.undoManager.undoActionName.nonEmpty ?? "done"); \(pdf.pageCount) pages; u undoes it, w saves")
  }
}

struct PDFWord: SessionCommand {
  static let configuration = CommandConfiguration(commandName: "pdf", abstract: "Open a PDF for the page commands (as 'open FILE.pdf').")
  @Argument(help: "The PDF file.") var path: String
  @MainActor func run(in session: REPLSession) async throws { try await PDFWords.open(path, in: session) }
}

struct PagesWord: SessionCommand {
  static let configuration = CommandConfiguration(commandName: "pages", abstract: "List the PDF's pages with their sizes and rotation.")
  @Argument(help: "A PDF to open first (default: the open PDF).") var path: String?
  @MainActor func run(in session: REPLSession) async throws {
    if let path { try await PDFWords.open(path, in: session) }
    let pdf = try PDFWords.require(session)
    session.print(
      "\(pdf.fileURL.lastPathComponent): \(pdf.pageCount) page\(pdf.pageCount == 1 ? "" : "s")\(pdf.hasUnsavedChanges ? " (unsaved changes)" : "")"
    )
    for index in 0..<pdf.pageCount {
      do {
        let size = try pdf.pageSize(at: index)
        let rotation = try pdf.rotation(ofPage: index)
        session.print(String(format: "%5d  %.0f×%.0f pt  rotated %d°", index + 1, size.width, size.height, rotation))
      } catch {
        session.print(String(format: "%5d  unreadable: ", index + 1) + REPLSession.message(for: error))
      }
    }
  }
}

struct PageWord: SessionCommand {
  static let configuration = CommandConfiguration(commandName: "page", abstract: "Print the text of a page of the PDF.")
  @Argument(help: "The page number (1 is the first).") var number: String
  @MainActor func run(in session: REPLSession) async throws {
    let pdf = try PDFWords.require(session)
    let index = try PDFWords.page(number, of: pdf)
    let text: String
    do { text = try pdf.text(ofPage: index) } catch { throw EdError(REPLSession.message(for: error)) }
    for line in REPLWords.lines(of: text) { session.print(line) }
  }
}

struct DeletePageWord: SessionCommand {
  static let configuration = CommandConfiguration(commandName: "delete-page", abstract: "Delete pages N or N-M of the PDF (u brings them back).")
  @Argument(help: "N or N-M.") var pages: String
  @MainActor func run(in session: REPLSession) async throws {
    try PDFWords.change(in: session) { pdf in try pdf.removePages(in: PDFWords.pages(pages, of: pdf)) }
  }
}

struct MovePageWord: SessionCommand {
  static let configuration = CommandConfiguration(commandName: "move-page", abstract: "Move page N of the PDF so that it becomes page TO.")
  @Argument(help: "The page to move.") var page: String
  @Argument(help: "Where it ends up.") var to: String
  @MainActor func run(in session: REPLSession) async throws {
    try PDFWords.change(in: session) { pdf in try pdf.movePage(at: PDFWords.page(page, of: pdf), to: PDFWords.page(to, of: pdf)) }
  }
}

struct RotateWord: SessionCommand {
  static let configuration = CommandConfiguration(commandName: "rotate", abstract: "Turn pages N or N-M of the PDF clockwise by DEGREES (a multiple of 90).")
  @Argument(help: "N or N-M.") var pages: String
  @Argument(help: "Degrees, a multiple of 90 (negative turns left).") var degrees: String
  @MainActor func run(in session: REPLSession) async throws {
    try PDFWords.change(in: session) { pdf in
      let range = try PDFWords.pages(pages, of: pdf)
      guard let turn = Int(degrees), turn % 90 == 0 else { throw EdError("rotate by a multiple of 90 degrees, not '\(degrees)'") }
      try pdf.rotatePages(in: range, by: turn)
    }
  }
}

struct InsertPagesWord: SessionCommand {
  static let configuration = CommandConfiguration(
    commandName: "insert-pages", abstract: "Insert every page of another PDF after page AT (0: at the front; default: at the end).")
  @Argument(help: "The PDF whose pages are inserted.") var path: String
  @Argument(help: "Insert after this page (0: at the front).") var at: String?
  @MainActor func run(in session: REPLSession) async throws {
    try PDFWords.change(in: session) { pdf in
      var index = pdf.pageCount
      if let at {
        guard let number = Int(at), number >= 0, number <= pdf.pageCount else {
          throw EdError("cannot insert after page '\(at)': give 0 to \(pdf.pageCount)")
        }
        index = number
      }
      let url = URL(fileURLWithPath: path)
      guard FileManager.default.fileExists(atPath: url.path) else { throw EdError("cannot insert pages from '\(path)': it does not exist") }
      try pdf.insertPages(from: url, at: index)
    }
  }
}
