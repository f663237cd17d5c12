import Foundation
import Quire

/// Opening, reading back and fingerprinting REPL documents in each of their forms (a text
/// file, a TextBundle, a PDF): what differs between the forms lives here, so the session and
/// the ed engine ask the document rather than switch on its form.
extension EdDocument {
  /// The document layer's registry of document classes by type (``DocumentController``), from
  /// which the REPL's documents are made.
  static let registry = DocumentController()

  /// Whether `url` names a TextBundle (`.textbundle` folder or `.textpack` archive).
  static func isTextBundle(_ url: URL) -> Bool {
    ["textbundle", "textpack"].contains(url.pathExtension.lowercased())
  }

  /// Whether the file at `url` is a PDF (by its contents, or by its name when it cannot be read).
  static func isPDF(_ url: URL) -> Bool {
    if let type = TypeRegistry.shared.type(forFileAt: url) { return type.conforms(to: .pdf) }
    return url.pathExtension.lowercased() == "pdf"
  }

  /// Opens the document at `url` in the form its type calls for.
  ///
  /// - Returns: The document and, for the text forms, what was read (for the byte counts the
  ///   REPL reports).
  /// - Throws: ``EdError`` naming the file: missing, unreadable, not text, not a TextBundle,
  ///   a damaged PDF.
  static func open(_ url: URL, files: TextFileSystem, autosave: AutosaveSettings? = nil) throws(EdError) -> (EdDocument, TextFileContents?) {
    if isTextBundle(url) {
      let (contents, bundle) = try readTextBundle(at: url, files: files)
      let buffer = try DocumentLineBuffer(contents: contents.data, url: url, autosave: autosave)
      let document = EdDocument(buffer: buffer, fileURL: url, form: .textBundle(bundle))
      document.diskFingerprint = document.fingerprintOnDisk()
      return (document, contents)
    }
    if isPDF(url) {
      // The document layer's class for PDFs, from the one registry of document classes.
      guard let documentClass = registry.documentClass(for: .pdf) as? PDFFileDocument.Type else {
        throw EdError("cannot open '\(url.lastPathComponent)': no document class for PDFs is registered")
      }
      let pdf = documentClass.init(fileURL: url, fileType: .pdf)
      pdf.autosavePolicy = nil
      pdf.recoveryStore = nil
      pdf.registersAsFilePresenter = false
      do {
        let (fingerprint, contents) = try FileFingerprint.read(at: url)
        try pdf.open(contents: contents, fingerprint: fingerprint)
      } catch {
        throw EdError("cannot open '\(url.lastPathComponent)' as a PDF: \(REPLSession.message(for: error))")
      }
      return (EdDocument(buffer: DocumentLineBuffer(), fileURL: url, form: .pdf(pdf)), nil)
    }
    let contents = try files.read(url)
    let buffer = try DocumentLineBuffer(contents: contents.data, fingerprint: contents.fingerprint, url: url, autosave: autosave)
    return (EdDocument(buffer: buffer, fileURL: url), contents)
  }

  /// A document for `url`, which does not exist yet: created by the first `w`.
  static func new(at url: URL?, autosave: AutosaveSettings? = nil) throws(EdError) -> EdDocument {
    guard let url else { return EdDocument(buffer: DocumentLineBuffer(), fileURL: nil) }
    if isTextBundle(url) {
      let buffer = try DocumentLineBuffer(contents: Data(), url: url, autosave: autosave)
      return EdDocument(buffer: buffer, fileURL: url, form: .textBundle(TextBundle(creatorIdentifier: "org.quire.repl")))
    }
    if url.pathExtension.lowercased() == "pdf" {
      throw EdError(
        "cannot make the new PDF '\(url.lastPathComponent)': quire changes the pages of PDFs that exist; open one and use insert-pages, then 'save as \(url.lastPathComponent)'"
      )
    }
    return EdDocument(buffer: try DocumentLineBuffer(contents: Data(), url: url, autosave: autosave), fileURL: url)
  }

  /// Its size in the unit it is edited in: "12 lines", "3 pages".
  var extent: String {
    if let pdf { return "\(pdf.pageCount) page\(pdf.pageCount == 1 ? "" : "s")" }
    return "\(buffer.lineCount) line\(buffer.lineCount == 1 ? "" : "s")"
  }

  /// What the file of a PDF or TextBundle holds now, for the conflict checks the REPL makes
  /// for them: a PDF's or textpack's bytes, a TextBundle folder's text file; `nil` when there
  /// is nothing there. (A text document checks its file itself: ``Document/checkForChangesOnDisk()``.)
  func fingerprintOnDisk() -> FileFingerprint? {
    guard let url = fileURL else { return nil }
    let file = textBundle != nil && DocumentsFolder.isFolder(url) ? url.appendingPathComponent(textBundle?.textFilename ?? "text.md") : url
    return try? FileFingerprint.read(at: file).fingerprint
  }

  /// Reads the text the document's file holds now (a text file, or a TextBundle's text).
  ///
  /// - Returns: The lines and, for a TextBundle, the bundle as it is on disk.
  /// - Throws: ``EdError`` naming the file; for a PDF, which has no lines.
  func readDiskVersion(_ files: TextFileSystem) throws(EdError) -> (TextFileContents, TextBundle?) {
    guard let url = fileURL else { throw EdError("'\(displayName)' has no file") }
    switch form {
    case .textFile: return (try files.read(url), nil)
    case .textBundle: return try Self.readTextBundle(at: url, files: files)
    case .pdf: throw EdError("'\(displayName)' is a PDF: it has pages, not lines")
    }
  }

  /// Reads the TextBundle at `url`, with its text as lines.
  private static func readTextBundle(at url: URL, files: TextFileSystem) throws(EdError) -> (TextFileContents, TextBundle) {
    let bundle: TextBundle
    do {
      bundle = try TextBundle(url: url)
    } catch {
      throw EdError("cannot open '\(url.lastPathComponent)' as a TextBundle: \(REPLSession.message(for: error))")
    }
    let text = bundle.text
    if text.utf8.contains(0) {
      throw EdError("cannot open '\(url.lastPathComponent)': its \(bundle.textFilename) contains NUL bytes; quire edits text")
    }
    let lacksNewline = !text.isEmpty && text.utf8.last != UInt8(ascii: "\n")
    let contents = TextFileContents(data: Data(text.utf8), byteCount: text.utf8.count, lacksFinalNewline: lacksNewline, fingerprint: nil)
    return (contents, bundle)
  }
}
