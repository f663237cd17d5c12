public import Foundation
import QuireTypes

extension String: ItemProviderWriting, ItemProviderReading {
  /// Plain text, UTF-8.
  public static var writableTypeIdentifiersForItemProvider: [String] { [UTType.plainText.identifier] }
  /// Plain text and everything that conforms to it (Markdown arrives as its source).
  public static var readableTypeIdentifiersForItemProvider: [String] {
    [UTType.plainText.identifier, UTType.utf8PlainText.identifier]
  }

  public func loadData(withTypeIdentifier typeIdentifier: String) async throws -> Data { Data(utf8) }

  /// Decodes UTF-8.
  /// - Throws: ``QuireError`` `.invalidContent` when the bytes are not valid UTF-8.
  public static func object(withItemProviderData data: Data, typeIdentifier: String) throws -> String {
    guard let text = String(validating: data, as: UTF8.self) else {
      throw QuireError(
        .invalidContent,
        "The pasted \(typeIdentifier) is not valid UTF-8 text. Copy it again from a program that writes UTF-8.")
    }
    return text
  }
}

extension URL: ItemProviderWriting, ItemProviderReading {
  /// `public.url` and plain text (file URLs also `public.file-url` first).
  public static var writableTypeIdentifiersForItemProvider: [String] {
    [UTType.url.identifier, UTType.plainText.identifier]
  }
  public var writableTypeIdentifiersForItemProvider: [String] {
    isFileURL
      ? [UTType.fileURL.identifier, UTType.url.identifier, UTType.plainText.identifier]
      : Self.writableTypeIdentifiersForItemProvider
  }
  /// File URLs, URLs, and plain text that holds an absolute URL or an absolute path.
  public static var readableTypeIdentifiersForItemProvider: [String] {
    [UTType.fileURL.identifier, UTType.url.identifier, UTType.plainText.identifier]
  }

  /// The URL's absolute string (for plain text of a file URL, its path).
  public func loadData(withTypeIdentifier typeIdentifier: String) async throws -> Data {
    if typeIdentifier == UTType.plainText.identifier, isFileURL { return Data(path.utf8) }
    return Data(absoluteString.utf8)
  }

  /// Parses an absolute URL (`https://…`, `file:///…`) or an absolute path.
  /// - Throws: ``QuireError`` `.invalidContent` when the text is no absolute URL.
  public static func object(withItemProviderData data: Data, typeIdentifier: String) throws -> URL {
    let text = try String.object(withItemProviderData: data, typeIdentifier: typeIdentifier)
      .trimmingCharacters(in: .whitespacesAndNewlines)
    if text.hasPrefix("/") { return URL(fileURLWithPath: text) }
    guard !text.contains(where: \.isNewline), let url = URL(string: text), let scheme = url.scheme, !scheme.isEmpty
    else {
      throw QuireError(.invalidContent, "The pasted \(typeIdentifier) is not an absolute URL (such as https://example.org or file:///path).")
    }
    if typeIdentifier == UTType.fileURL.identifier, !url.isFileURL {
      throw QuireError(.invalidContent, "The pasted \(typeIdentifier) is a '\(scheme)' URL, not a file URL.")
    }
    return url
  }
}

extension Data: ItemProviderWriting, ItemProviderReading {
  /// `public.data`.
  public static var writableTypeIdentifiersForItemProvider: [String] { [UTType.data.identifier] }
  /// `public.data`: any representation's bytes.
  public static var readableTypeIdentifiersForItemProvider: [String] { [UTType.data.identifier] }
  public func loadData(withTypeIdentifier typeIdentifier: String) async throws -> Data { self }
  public static func object(withItemProviderData data: Data, typeIdentifier: String) throws -> Data { data }
}
