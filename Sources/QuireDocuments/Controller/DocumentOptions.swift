/// How a ``DocumentController`` opens and makes documents, where front ends differ: an editor
/// of exact bytes (ed, which edits binary files) or of UTF-8 text, with or without autosave.
///
/// ```swift
/// let document = try await controller.openDocument(at: url, options: .utf8Text)
/// ```
public struct DocumentOptions: Sendable, Hashable {
  /// Text documents hold the file's bytes exactly: NUL bytes and bytes that are not UTF-8
  /// included (``PlainTextDocument/readsBytesExactly``), and a last line without a newline
  /// gets one, unless the text holds a NUL byte (``PlainTextDocument/appendsMissingFinalNewline``).
  public var readsBytesExactly: Bool
  /// Text documents refuse bytes that are not UTF-8 text (``PlainTextDocument/requiresUTF8Text``).
  public var requiresUTF8Text: Bool
  /// Documents autosave unsaved edits to recovery files and offer one a crash left; `false`
  /// turns both off (``Document/autosavePolicy``, ``Document/recoveryStore``).
  public var autosaves: Bool

  /// Makes options; the defaults are ``standard``'s.
  public init(readsBytesExactly: Bool = false, requiresUTF8Text: Bool = false, autosaves: Bool = true) {
    self.readsBytesExactly = readsBytesExactly
    self.requiresUTF8Text = requiresUTF8Text
    self.autosaves = autosaves
  }

  /// The document classes' own reading, with the controller's autosave.
  public static let standard = DocumentOptions()
  /// Any bytes, exactly, as ed edits them.
  public static let exactBytes = DocumentOptions(readsBytesExactly: true)
  /// Exact bytes that must be UTF-8 text (quire's own editor).
  public static let utf8Text = DocumentOptions(readsBytesExactly: true, requiresUTF8Text: true)

  /// These options without autosave and recovery.
  public var withoutAutosave: DocumentOptions {
    var options = self
    options.autosaves = false
    return options
  }

  /// Sets `document`'s reading and autosave as these options say, before it reads its file
  /// (``DocumentController`` does this for the documents it opens and makes).
  @MainActor
  public func apply(to document: Document) {
    if let text = document as? PlainTextDocument, readsBytesExactly || requiresUTF8Text {
      text.readsBytesExactly = readsBytesExactly
      text.appendsMissingFinalNewline = readsBytesExactly
      text.requiresUTF8Text = requiresUTF8Text
    }
    if !autosaves {
      document.autosavePolicy = nil
      document.recoveryStore = nil
    }
  }
}
