import Foundation
public import QuireTypes

/// Copying, pasting, dragging and dropping text between documents: what the REPL's
/// `copy`, `cut`, `paste`, `drag` and `drop` need.
public enum TextTransfer {
  /// An item offering `text` (lines of a document of `documentType`): Markdown documents
  /// offer Markdown, HTML and plain text; other text documents offer plain text.
  ///
  /// - Parameters:
  ///   - text: The lines, joined with newlines.
  ///   - documentType: The type of the document they come from.
  ///   - suggestedName: A name for the item, e.g. "notes.md lines 3-7".
  public static func itemProvider(forText text: String, documentType: UTType, suggestedName: String? = nil) -> ItemProvider {
    if documentType.conforms(to: .markdown) {
      return ItemProvider(object: MarkdownText(text), suggestedName: suggestedName)
    }
    return ItemProvider(object: text, suggestedName: suggestedName)
  }

  /// What a document of `documentType` accepts, preferred first: its own type, then plain
  /// text (so Markdown pasted into a plain-text document arrives as its plain text).
  public static func pasteConfiguration(forDocumentType documentType: UTType) -> PasteConfiguration {
    var configuration = PasteConfiguration(acceptableTypes: [documentType])
    if documentType.conforms(to: .markdown) { configuration.append(acceptableTypeIdentifiers: [UTType.markdown.identifier]) }
    configuration.append(acceptableTypeIdentifiers: [UTType.plainText.identifier])
    return configuration
  }

  /// The text to insert when `providers` are pasted or dropped into a document of
  /// `documentType`: the best accepted representation of each item, joined with newlines.
  ///
  /// - Parameters:
  ///   - providers: The pasted or dropped items.
  ///   - documentType: The receiving document's type.
  ///   - documentName: The document's name, for messages.
  /// - Throws: ``QuireError`` `.unsupportedType` naming what was offered and what the
  ///   document takes when no item fits (a PNG file into a text document);
  ///   `.invalidContent` when the text is not UTF-8; load errors.
  public static func text(
    toPaste providers: [ItemProvider], intoDocumentOfType documentType: UTType, documentName: String
  ) async throws -> String {
    guard !providers.isEmpty else {
      throw QuireError(.fileMissing, "Nothing to paste into '\(documentName)': the pasteboard is empty. Copy something first.")
    }
    let configuration = pasteConfiguration(forDocumentType: documentType)
    guard providers.contains(where: configuration.canAccept) else {
      let offered = providers.map { provider in
        let name = provider.suggestedName.map { "'\($0)' " } ?? ""
        let types = provider.registeredTypeIdentifiers.map { identifier in
          UTType(identifier)?.localizedDescription.map { "\(identifier) (\($0))" } ?? identifier
        }
        return name + "offers " + (types.isEmpty ? "nothing" : types.joined(separator: ", "))
      }.joined(separator: "; ")
      throw QuireError(
        .unsupportedType,
        "Cannot paste into '\(documentName)': the item \(offered), and a \(documentType.localizedDescription ?? documentType.identifier) document takes \(configuration.acceptableTypeIdentifiers.joined(separator: " or "))."
      )
    }
    let loaded = try await configuration.loadBestRepresentations(from: providers)
    return try loaded.map { try $0.text() }.joined(separator: "\n")
  }
}
