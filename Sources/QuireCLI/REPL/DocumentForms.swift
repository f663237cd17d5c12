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
  static func isTextBundle(_ url: URL) -> Bool { textBundleType(of: url) != nil }

  /// The TextBundle type `url`'s name says (a `.textbundle` package or a `.textpack`
  /// archive), as the registry declares them; `nil` for other names.
  static func textBundleType(of url: URL) -> UTType? {
    _ = registry  // declares the TextBundle types
    switch url.pathExtension.lowercased() {
    case "textbundle": return TextBundle.packageType
    case "textpack": return TextBundle.textpackType
    default: return nil
    }
  }

  /// Whether the file at `url` is a PDF (by its contents, or by its name when it cannot be read).
  static func isPDF(_ url: URL) -> Bool {
    if let type = TypeRegistry.shared.type(forFileAt: url) { return type.conforms(to: .pdf) }
    return url.pathExtension.lowercased() == "pdf"
  }

  /// Opens the document at `url` in the form its type calls for; `prepare` gives a text
  /// document the session's file access and versions before it reads.
  ///
  /// - Returns: The document and, for a text file, what was read (for the byte counts the
  ///   REPL reports).
  /// - Throws: ``EdError`` naming the file: missing, unreadable, not text, not a TextBundle,
  ///   a damaged PDF.
  static func open(
    _ url: URL, files: TextFileSystem, autosave: AutosaveSettings? = nil, prepare: (Document) -> Void = { _ in }
  ) async throws(EdError) -> (EdDocument, TextFileContents?) {
    if let type = textBundleType(of: url) {
      let buffer = try await DocumentLineBuffer.opening(url, ofType: type, requiresText: !files.readsAnyBytes, autosave: autosave, prepare: prepare)
      return (EdDocument(buffer: buffer, fileURL: url, form: .textBundle), nil)
    }
    if isPDF(url) {
      // The document layer's class for PDFs, from the one registry of document classes.
      guard let documentClass = registry.documentClass(for: .pdf) as? PDFFileDocument.Type else {
        throw EdError("cannot open '\(url.lastPathComponent)': no document class for PDFs is registered")
      }
      let pdf = documentClass.init(fileURL: url, fileType: .pdf)
      pdf.autosavePolicy = nil
      pdf.recoveryStore = nil
      prepare(pdf)
      do {
        let (fingerprint, contents) = try FileFingerprint.read(at: url)
        try pdf.open(contents: contents, fingerprint: fingerprint)
      } catch {
        throw EdError("cannot open '\(url.lastPathComponent)' as a PDF: \(REPLSession.message(for: error))")
      }
      return (EdDocument(buffer: DocumentLineBuffer(), fileURL: url, form: .pdf(pdf)), nil)
    }
    let contents = try files.read(url)
    let buffer = try DocumentLineBuffer(
      contents: contents.data, fingerprint: contents.fingerprint, url: url, requiresText: !files.readsAnyBytes, autosave: autosave, prepare: prepare)
    return (EdDocument(buffer: buffer, fileURL: url), contents)
  }

  /// A document for `url`, which does not exist yet: created by the first `w`.
  static func new(
    at url: URL?, files: TextFileSystem, autosave: AutosaveSettings? = nil, prepare: (Document) -> Void = { _ in }
  ) async throws(EdError) -> EdDocument {
    guard let url else { return EdDocument(buffer: DocumentLineBuffer(), fileURL: nil) }
    if let type = textBundleType(of: url) {
      let buffer = try await DocumentLineBuffer.opening(
        url, ofType: type, isNew: true, requiresText: !files.readsAnyBytes, autosave: autosave, prepare: prepare)
      return EdDocument(buffer: buffer, fileURL: url, form: .textBundle)
    }
    if url.pathExtension.lowercased() == "pdf" {
      throw EdError(
        "cannot make the new PDF '\(url.lastPathComponent)': quire changes the pages of PDFs that exist; open one and use insert-pages, then 'save as \(url.lastPathComponent)'"
      )
    }
    return EdDocument(buffer: try DocumentLineBuffer(contents: Data(), url: url, requiresText: !files.readsAnyBytes, autosave: autosave), fileURL: url)
  }

  /// Its size in the unit it is edited in: "12 lines", "3 pages".
  var extent: String {
    if let pdf { return "\(pdf.pageCount) page\(pdf.pageCount == 1 ? "" : "s")" }
    return "\(buffer.lineCount) line\(buffer.lineCount == 1 ? "" : "s")"
  }
}
