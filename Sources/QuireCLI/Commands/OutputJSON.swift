import Foundation

/// The one JSON encoder of the commands' output (`--json`, `quire rpc`'s results, streams of
/// changes): keys sorted, dates in ISO 8601 (`2026-11-28T22:43:06Z`), slashes not escaped, so
/// the same value prints the same bytes from every command.
enum OutputJSON {
  /// The encoder: indented for a document (`pretty`), one line for a stream of values.
  static func encoder(pretty: Bool = true) -> JSONEncoder {
    let encoder = JSONEncoder()
    encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
    encoder.dateEncodingStrategy = .iso8601
    return encoder
  }

  /// `value` as an indented JSON document.
  static func encode<T: Encodable>(_ value: T) throws -> String {
    String(decoding: try encoder().encode(value), as: UTF8.self)
  }

  /// `value` on one line (for streams of values, one per line).
  static func encodeLine<T: Encodable>(_ value: T) throws -> String {
    String(decoding: try encoder(pretty: false).encode(value), as: UTF8.self)
  }
}
