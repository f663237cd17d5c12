import Foundation
import Quire
import QuireSystem
import QuireTypes
import SystemPackage

/// Opening, reading back and fingerprinting REPL documents in each of their forms (a text
/// file, a TextBundle, a PDF): what differs between the forms lives here, so the session and
/// the ed engine ask the document rather than switch on its form.
extension EdDocument {
  /// Whether `url` names a TextBundle (`.textbundle` folder or `.textpack` archive).
  static func isTextBundle(_ url: URL) -> Bool { textBundleType(of: url) != nil }

  /// The TextBundle type `url`'s name says (a `.textbundle` package or a `.textpack`
  /// archive), as the registry declares them; `nil` for other names.
  static func textBundleType(of url: URL) -> UTType? {
    TextBundleDocument.declareTypes()
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

  /// The type the REPL edits `url` as: a PDF (by its contents, or its name when it cannot be
  /// read), a TextBundle (by its name), else plain text: ed edits any file as lines.
  static func editingType(of url: URL) -> UTType {
    if isPDF(url) { return .pdf }
    return textBundleType(of: url) ?? .plainText
  }

  /// Opens the document at `url` through `controller` (the class its registry has for the
  /// type, read by the document itself: ``Document/open()``), in the form its type calls for.
  ///
  /// - Parameter options: ``DocumentOptions/utf8Text`` in quire's own mode (bytes that are not
  ///   UTF-8 text are refused), ``DocumentOptions/exactBytes`` as a drop-in ed; a PDF never
  ///   autosaves.
  /// - Returns: The document, or `nil` when nothing is at `url` (a dangling symbolic link
  ///   included: the first save writes its target, as ed's does).
  /// - Throws: ``EdError`` naming the file: a folder, a device or FIFO, unreadable, not text,
  ///   not a TextBundle, a damaged PDF.
  static func open(_ url: URL, with controller: DocumentController, options: DocumentOptions) async throws(EdError) -> EdDocument? {
    let type = editingType(of: url)
    let opened: Document
    do {
      opened = try await controller.openDocument(at: url, ofType: type, options: type == .pdf ? options.withoutAutosave : options)
    } catch let error as QuireError where error.code == .fileMissing {
      return nil
    } catch {
      throw EdError(openingFailure(url, error), cause: error)
    }
    return try EdDocument(opened, at: url, with: controller)
  }

  /// A document for `url`, which does not exist yet, made by `controller`: created by the
  /// first `w`.
  static func new(at url: URL, with controller: DocumentController, options: DocumentOptions) throws(EdError) -> EdDocument {
    if url.pathExtension.lowercased() == "pdf" {
      throw EdError(
        "cannot make the new PDF '\(url.lastPathComponent)': quire changes the pages of PDFs that exist; open one and use insert-pages, then 'save as \(url.lastPathComponent)'"
      )
    }
    do {
      // A document opened empty (``Document/openNew()``): its first save creates the file.
      return try EdDocument(controller.makeNewDocument(at: url, ofType: textBundleType(of: url) ?? .plainText, options: options), at: url, with: controller)
    } catch let error as EdError {
      throw error
    } catch {
      throw EdError(openingFailure(url, error), cause: error)
    }
  }

  /// An untitled document made by `controller` (``DocumentController/makeUntitledTextDocument(options:)``),
  /// with no file until `w FILE` or `f FILE` names one: nothing is read or written for it
  /// before.
  static func untitled(with controller: DocumentController, options: DocumentOptions) -> EdDocument {
    EdDocument(buffer: DocumentLineBuffer(document: controller.makeUntitledTextDocument(options: options.withoutAutosave)), fileURL: nil)
  }

  /// ed's view of `document`, which the document layer opened for `url`: a PDF's pages, a
  /// TextBundle's or a text file's lines. A PDF has no lines: its (empty, unused) line buffer
  /// is an untitled document of `controller`'s, which has no file.
  convenience init(_ document: Document, at url: URL, with controller: DocumentController) throws(EdError) {
    if let pdf = document as? PDFFileDocument {
      let lines = DocumentLineBuffer(document: controller.makeUntitledTextDocument(options: DocumentOptions.exactBytes.withoutAutosave))
      self.init(buffer: lines, fileURL: url, form: .pdf(pdf))
    } else if let text = document as? PlainTextDocument {
      self.init(buffer: DocumentLineBuffer(document: text), fileURL: url, form: text is TextBundleDocument ? .textBundle : .textFile)
    } else {
      throw EdError("cannot open '\(url.lastPathComponent)': quire edits text files, TextBundles and PDFs")
    }
  }

  /// Why the document at `url` did not open: the document layer's reason, which names the
  /// file ("Cannot open 'a.md': it is a folder. Open a file instead."), else one that does.
  static func openingFailure(_ url: URL, _ error: any Error) -> String {
    if let error = error as? QuireError, error.url != nil { return error.reason }
    let form = isPDF(url) ? " as a PDF" : isTextBundle(url) ? " as a TextBundle" : ""
    return "cannot open \(QuireError.name(url))\(form): \(REPLSession.message(for: error))"
  }

  /// The bytes of the file at `url`, as the document layer reads a file
  /// (``FileFingerprint/read(at:)``: a regular file only, never blocking on a FIFO or device,
  /// the name taken by its bytes), for ed's `e` and `r` and the file it starts on.
  ///
  /// - Parameter requiresText: Whether bytes that are not UTF-8 text are refused
  ///   (``TextEncoding/checkUTF8Text(_:)``), as quire's own mode refuses them.
  /// - Throws: ``EdError`` with the document layer's reason; its ``EdError/cause`` is the
  ///   document layer's error.
  ///
  /// - Parameter confined: Read through the one confined opener (`InputFile.open(_:beneath:…)`)
  ///   beneath the current folder, through no symbolic link, a regular file only, and from
  ///   that descriptor: ed's `-r`, whose files must stay in the current folder.
  nonisolated static func readBytes(of url: URL, requiresText: Bool, confined: Bool = false) throws(EdError) -> FileBytes {
    do {
      let (fingerprint, data) = try confined ? readConfined(url) : FileFingerprint.read(at: url)
      if requiresText { try TextEncoding.checkUTF8Text(data) }
      return FileBytes(data: data, fingerprint: fingerprint)
    } catch let error as QuireError where error.url == nil {
      // The text check names no file.
      throw EdError("cannot read \(QuireError.name(url)): \(error.reason)", cause: error)
    } catch {
      throw EdError(REPLSession.message(for: error), cause: error)
    }
  }

  /// `url` (a name in the current folder) read beneath the current folder's descriptor.
  nonisolated static func readConfined(_ url: URL) throws -> (fingerprint: FileFingerprint, contents: Data) {
    let fd = try openConfined(url.relativePath, url: url)
    defer { SystemCalls.release(FileDescriptor(rawValue: fd)) }
    return try FileFingerprint.read(from: fd, url: url)
  }

  /// Opens `name` beneath the current folder through the one confined opener (`naming` only
  /// checks what it is). The caller closes the descriptor.
  nonisolated static func openConfined(_ name: String, url: URL, naming: Bool = false) throws(QuireError) -> Int32 {
    let folder: FileDescriptor
    switch SystemCalls.open(FilePath("."), O_RDONLY | O_DIRECTORY) {
    case .success(let fd): folder = fd
    case .failure(let failure):
      throw QuireError(.permissionDenied, "Cannot open the current folder (\(failure)).", url: url, cause: failure)
    }
    defer { SystemCalls.release(folder) }
    return try InputFile.open(name, beneath: folder, url: url, for: "open", naming: naming)
  }

  /// Writes `data` to `url` by the document layer's output-path rule
  /// (``FileSaver/writeOutput(_:to:options:)``): a regular file by safe save, a device or FIFO
  /// (or a link to one) written through; for what the REPL makes (previews, thumbnails).
  ///
  /// - Throws: ``EdError`` naming the file and what failed; an old file is untouched.
  nonisolated static func writeOutput(_ data: Data, to url: URL) throws(EdError) {
    do {
      try FileSaver.writeOutput(data, to: url)
    } catch {
      throw EdError(REPLSession.message(for: error), cause: error)
    }
  }

  /// Its size in the unit it is edited in: "12 lines", "3 pages".
  var extent: String {
    if let pdf { return "\(pdf.pageCount) page\(pdf.pageCount == 1 ? "" : "s")" }
    return "\(buffer.lineCount) line\(buffer.lineCount == 1 ? "" : "s")"
  }
}

/// A file's bytes as the document layer read them (``EdDocument/readBytes(of:requiresText:)``),
/// with what ed reports of them.
struct FileBytes {
  /// The bytes read (a document is opened from them, without a copy).
  var data: Data
  /// The document layer's fingerprint of the file as read (what its conflict checks compare
  /// with); `nil` when the bytes are no longer the file's (carriage returns stripped).
  var fingerprint: FileFingerprint?
  /// Bytes read, as ed reports them.
  let byteCount: Int
  /// The last line had no newline (ed adds one when writing).
  private(set) var lacksFinalNewline: Bool

  init(data: Data, fingerprint: FileFingerprint?) {
    self.data = data
    self.fingerprint = fingerprint
    byteCount = data.count
    lacksFinalNewline = !data.isEmpty && data.last != UInt8(ascii: "\n")
  }

  /// The bytes read, as an array.
  var bytes: [UInt8] { [UInt8](data) }

  /// The lines as text (bytes that are not UTF-8 replaced), without their newlines.
  var lines: [String] { byteLines.map { String(decoding: $0, as: UTF8.self) } }

  /// The lines as bytes, exactly as read (NUL bytes and bytes that are not UTF-8 included).
  var byteLines: [[UInt8]] {
    var lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map(Array.init)
    if !lacksFinalNewline { lines.removeLast() }
    return lines
  }

  /// Drops a carriage return at the end of each line (ed's `--strip-trailing-cr`).
  mutating func stripTrailingCarriageReturns() {
    var lines = byteLines
    for index in lines.indices where lines[index].last == UInt8(ascii: "\r") { lines[index].removeLast() }
    data = Data(EdEngine.bytes(of: lines))
    lacksFinalNewline = false
    fingerprint = nil
  }
}
