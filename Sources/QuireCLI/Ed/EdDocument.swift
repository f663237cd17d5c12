import Foundation
import Quire
import QuireTypes

/// One document open in the REPL: the document layer's document (a ``PlainTextDocument``,
/// a ``TextBundleDocument`` or a ``PDFFileDocument``, made by its ``DocumentController``
/// registry) and ed's view of it: the current line, marks and file name (``Form`` says which
/// document it is).
///
/// The text, its undo history, saves, conflicts, versions, assets, autosave and crash
/// recovery are the document's; this class keeps none of them.
@MainActor
final class EdDocument {
  /// What a document is stored as, and so what `w`, `u` and `redo` act on.
  enum Form {
    /// A text file: the lines are the file.
    case textFile
    /// A TextBundle (`.textbundle` folder or `.textpack` archive): a ``TextBundleDocument``,
    /// whose text the lines are; its assets and `info.json` are saved with it.
    case textBundle
    /// A PDF: pages rather than lines, a ``PDFFileDocument`` (made by the document layer's
    /// registry). The page commands change it; `w`, `u` and `redo` are its save, undo and redo;
    /// ed's line commands do not apply.
    case pdf(PDFFileDocument)
  }

  /// The lines and their undo history (empty for a PDF).
  let buffer: DocumentLineBuffer
  /// How the document is stored (a `revert` reads a TextBundle or PDF anew).
  var form: Form
  /// ed's current file name (`f`): where `w` writes by default. `nil` for an untitled buffer.
  /// A text document's file is its document's (``Document/setFileURL(_:)``): the saves,
  /// autosaves and conflict checks follow the name.
  var fileURL: URL? {
    didSet {
      if let fileURL, let document = textDocument ?? pdfDocument, document.fileURL != fileURL.standardizedFileURL { document.setFileURL(fileURL) }
    }
  }
  /// The current line, 1-based; 0 when the buffer is empty.
  var currentLine: Int
  /// Marks set with `k`, by letter, as 1-based line numbers. ed's view state, like the
  /// current line, not the document's: nothing saves, autosaves or recovers them, and
  /// another view of the same document would have its own.
  var marks: [UInt8: Int] = [:]
  /// The session's subscription to the document's file events (``Document/addFileObserver(_:)``):
  /// how the REPL hears that the document reloaded, went in conflict or followed a move.
  var fileObservation: ObservationToken?

  init(buffer: DocumentLineBuffer, fileURL: URL?, form: Form = .textFile) {
    self.buffer = buffer
    self.fileURL = fileURL
    self.form = form
    currentLine = buffer.lineCount
  }

  /// The PDF document, when the document is one.
  var pdfDocument: PDFFileDocument? {
    if case .pdf(let document) = form { return document }
    return nil
  }

  /// The PDF's pages (its document's model), when the document is a PDF.
  var pdf: PDFDocument? { pdfDocument?.pdf }

  /// The document layer's document: it saves, checks for changes on disk and settles
  /// conflicts itself.
  var libraryDocument: Document? { plainTextDocument ?? pdfDocument }

  /// The TextBundle document, when the document is one.
  var textBundle: TextBundleDocument? {
    if case .textBundle = form { return textDocument as? TextBundleDocument }
    return nil
  }

  /// The name shown in prompts, lists and messages: escaped for a terminal (a byte that is
  /// not UTF-8 shows as `\xFF`, a control character as its escape).
  var displayName: String { fileURL.map { DisplayName.escaping($0.lastPathComponent) } ?? "untitled" }

  /// Whether there are changes not yet written.
  var isEdited: Bool { pdfDocument?.hasUnsavedChanges ?? buffer.isEdited }

  /// The document text, each line followed by a newline.
  var text: String {
    var text = ""
    for index in 0..<buffer.lineCount {
      text += buffer.line(at: index)
      text += "\n"
    }
    return text
  }

  /// The document layer's document holding the lines (`nil` for a PDF).
  var textDocument: PlainTextDocument? { pdfDocument == nil ? buffer.document : nil }

  /// The text document when the document has lines (a text file or a TextBundle, not a PDF):
  /// its saves and conflict checks are the document layer's own.
  var plainTextDocument: PlainTextDocument? { textDocument }
}
