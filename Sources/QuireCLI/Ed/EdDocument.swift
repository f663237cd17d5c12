import Foundation
import Quire

/// One document open in the REPL: its lines, ed's per-buffer state (current line, marks,
/// file name), what the file held on disk when it was last read or written, and the form it is
/// stored in (``Form``): a text file, a TextBundle whose text the lines are, or a PDF whose pages
/// the page commands change.
///
/// The lines, their undo and the save go through the document layer's parts: ``FileSaver``'s
/// safe save, ``VersionStore`` versions,
/// ``TextBundle`` packages and ``PDFDocument``'s lossless page operations; autosave and crash
/// recovery are the text document's own (``Document/autosave()``, ``Document/recoveredVersion``).
@MainActor
final class EdDocument {
  /// What a document is stored as, and so what `w`, `u` and `redo` act on.
  enum Form {
    /// A text file: the lines are the file.
    case textFile
    /// A TextBundle (`.textbundle` folder or `.textpack` archive): the lines are its text;
    /// its assets and `info.json` are written with it.
    case textBundle(TextBundle)
    /// A PDF: pages rather than lines, a ``PDFFileDocument`` (made by the document layer's
    /// registry). The page commands change it; `w`, `u` and `redo` are its save, undo and redo;
    /// ed's line commands do not apply.
    case pdf(PDFFileDocument)
  }

  /// The lines and their undo history (empty for a PDF).
  let buffer: any LineBuffer
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
  /// Marks set with `k`, by letter, as 1-based line numbers.
  var marks: [UInt8: Int] = [:]
  /// For a PDF or a TextBundle, which the REPL writes itself: the document layer's
  /// fingerprint of the file when last read or written (a text document keeps its own,
  /// ``Document/fileFingerprint``). `nil` when it has never been read (a new file).
  var diskFingerprint: FileFingerprint?
  /// The disk version a change announcement has already named (a PDF's or TextBundle's
  /// fingerprint, or a text document's ``Document/conflictVersion``'s).
  var announcedDiskChange: FileFingerprint?
  /// Set by `keep` for a PDF or TextBundle: the next `w` may replace a version saved by
  /// someone else (a text document settles it with ``Document/resolveConflict(_:)``).
  var mayOverwriteDiskChange = false

  init(buffer: any LineBuffer, fileURL: URL?, form: Form = .textFile) {
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

  /// The document layer's document that saves, checks for changes on disk and settles
  /// conflicts itself: a text file's or a PDF's (`nil` for a TextBundle, which the REPL
  /// writes through ``TextBundle``).
  var libraryDocument: Document? { plainTextDocument ?? pdfDocument }

  /// The TextBundle, when the document is one.
  var textBundle: TextBundle? {
    if case .textBundle(let bundle) = form { return bundle }
    return nil
  }

  /// Assets added to the TextBundle in this session (`assets add`), by name, with the path
  /// their reference uses. One whose path is no longer in the text when the bundle is saved (the
  /// insertion was undone or deleted) is left out of the save.
  var addedAssets: [String: String] = [:]

  /// Replaces every line with `lines` as one undoable edit named `name` (revert, merge,
  /// recover, restore); the current line becomes the last.
  func replaceAllLines(with lines: [String], named name: String) throws(EdError) {
    buffer.beginEditGroup(named: name, cursor: currentLine)
    try buffer.replaceLines(in: 0..<buffer.lineCount, with: lines)
    currentLine = buffer.lineCount
    buffer.endEditGroup(cursor: currentLine)
  }

  /// The name shown in prompts and lists.
  var displayName: String { fileURL?.lastPathComponent ?? "untitled" }

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
  var textDocument: PlainTextDocument? { pdfDocument == nil ? (buffer as? DocumentLineBuffer)?.document : nil }

  /// The text document when the document is a text file (not a TextBundle or a PDF): the one
  /// whose saves and conflict checks are the document layer's own.
  var plainTextDocument: PlainTextDocument? {
    if case .textFile = form { return textDocument }
    return nil
  }
}
