import Foundation
import QuireTypes
import SystemPackage

/// How the browser's URL-based internals carry a path of any bytes (no system calls here: those
/// are QuireSystem's `SystemCalls`, taking `FilePath`).
///
/// A path given as a `String` here is a `PathText` string: the path itself when it is UTF-8,
/// and for a name that is not UTF-8 (which no `URL` holds) the text that stands for its bytes.
/// The browser's `FilePath` entry points carry such a path inside the module in the `URL` of
/// its `PathText` string (``carrierURL(_:)``), and every call reaches the very bytes through
/// ``path(_:)`` / ``filePath(_:)``.
enum PathCarrier {
  /// The path a `PathText` string (or a URL's `path`) stands for.
  static func path(_ text: String) -> FilePath { PathText.path(text) }

  /// The URL that carries `path` (any bytes) through the module's URL-based internals: its
  /// `path` is `path`'s `PathText` string. It only names the item and reaches it through
  /// `SystemCalls` with ``filePath(_:)``; Foundation would open a different file with it.
  static func carrierURL(_ path: FilePath) -> URL { URL(fileURLWithPath: PathText.string(path)).standardizedFileURL }

  /// The real path of a carrier URL (see ``carrierURL(_:)``); a UTF-8 URL's own path.
  static func filePath(_ url: URL) -> FilePath { PathText.path(url.path) }

  /// Encodes `url` under `key`: as `URL` encodes itself, or, for a URL that carries a name that
  /// is not UTF-8 (see ``carrierURL(_:)``), as the `file://` URI of the real bytes (`%FF`, as
  /// GLib writes it), so encoded items name the very file.
  static func encode<Key: CodingKey>(_ url: URL?, forKey key: Key, in container: inout KeyedEncodingContainer<Key>) throws {
    guard let url else { return }
    if url.isFileURL, PathText.holdsNonUTF8Bytes(url.path) {
      try container.encode("file://" + Trash.percentEncoded(bytes: PathText.bytes(url.path)), forKey: key)
    } else {
      try container.encode(url, forKey: key)
    }
  }
}
