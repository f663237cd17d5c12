/// Apple's `dyn.` identifiers: the identifier of a type nobody declared, made from its tag.
///
/// Apple's platforms write the facts of an undeclared type as a small key-value string,
/// `?0=6:1=md` (key `0` is `UTTypeConformsTo`, `1` the filename extension tag class, and
/// value `6` stands for `public.data`), encode its UTF-8 bytes five bits at a time, most
/// significant bit first, with the 32-letter alphabet `abcdefghkmnpqrstuvwxyz0123456789`
/// (no `i`, `j`, `l`, `o`), drop the padding, and put `dyn.a` in front. The result is the
/// identifier macOS gives, e.g. `mdls` reports `dyn.ah62d4rv4ge80e2py` for a `.bat` file.
/// Decoding reverses the steps.
///
/// The abbreviation table is the one macOS uses (documented by Alastair Houghton, "UTIs are
/// better than you think", and reproduced in several decoders on GitHub).
public enum DynamicTypeIdentifier: Sendable {
  static let alphabet = Array("abcdefghkmnpqrstuvwxyz0123456789".utf8)
  static let abbreviations: [String: String] = [
    "0": "UTTypeConformsTo", "1": "public.filename-extension", "2": "com.apple.ostype",
    "3": "public.mime-type", "4": "com.apple.nspboard-type", "5": "public.url-scheme",
    "6": "public.data", "7": "public.text", "8": "public.plain-text", "9": "public.utf16-plain-text",
    "A": "com.apple.traditional-mac-plain-text", "B": "public.image", "C": "public.video",
    "D": "public.audio", "E": "public.directory", "F": "public.folder",
  ]
  static let expansions: [String: String] = Dictionary(uniqueKeysWithValues: abbreviations.map { ($1, $0) })

  /// The decoded facts of a dynamic identifier.
  public struct Contents: Sendable, Hashable {
    /// The types the dynamic type conforms to.
    public var conformsTo: [String]
    /// Its tags by class.
    public var tags: [UTTagClass: [String]]
  }

  /// The `dyn.` identifier for a type with `tag` of `tagClass` that conforms to `conformsTo`.
  public static func make(tag: String, tagClass: UTTagClass, conformingTo conformsTo: [String]) -> String {
    var text = "?"
    var pairs: [(String, String)] = conformsTo.map { ("0", $0) }
    pairs.append((tagClass.rawValue, tag))
    text += pairs.map { key, value in "\(abbreviate(key))=\(abbreviate(value))" }.joined(separator: ":")
    return "dyn.a" + encode(Array(text.utf8))
  }

  /// The facts a `dyn.a` identifier encodes, or nil when it is not one.
  public static func decode(_ identifier: String) -> Contents? {
    guard identifier.hasPrefix("dyn.a"), let bytes = decodeBytes(identifier.utf8.dropFirst(5)),
      let text = String(validating: bytes, as: UTF8.self), text.hasPrefix("?")
    else { return nil }
    var conformsTo: [String] = []
    var tags: [UTTagClass: [String]] = [:]
    for pair in split(text.dropFirst(), on: ":", keepingEscapes: true) {
      let parts = split(Substring(pair), on: "=", keepingEscapes: false)
      guard parts.count == 2 else { return nil }
      let key = expand(parts[0])
      let value = expand(parts[1])
      if key == "UTTypeConformsTo" { conformsTo.append(value) } else { tags[UTTagClass(rawValue: key), default: []].append(value) }
    }
    return Contents(conformsTo: conformsTo, tags: tags)
  }

  private static func abbreviate(_ value: String) -> String {
    if let short = expansions[value] { return short }
    var escaped = ""
    for character in value {
      if character == ":" || character == "=" || character == "\\" { escaped.append("\\") }
      escaped.append(character)
    }
    return escaped
  }
  private static func expand(_ value: String) -> String { abbreviations[value] ?? value }

  /// Splits on `separator` not preceded by a backslash, keeping or removing the escapes.
  private static func split(_ text: Substring, on separator: Character, keepingEscapes: Bool) -> [String] {
    var parts: [String] = []
    var current = ""
    var escaping = false
    for character in text {
      if escaping {
        current.append(character)
        escaping = false
      } else if character == "\\" {
        escaping = true
        if keepingEscapes { current.append(character) }
      } else if character == separator {
        parts.append(current)
        current = ""
      } else {
        current.append(character)
      }
    }
    parts.append(current)
    return parts
  }

  static func encode(_ bytes: [UInt8]) -> String {
    var output: [UInt8] = []
    output.reserveCapacity(bytes.count * 8 / 5 + 1)
    var buffer: UInt32 = 0
    var bits = 0
    for byte in bytes {
      buffer = (buffer << 8) | UInt32(byte)
      bits += 8
      while bits >= 5 {
        bits -= 5
        output.append(alphabet[Int((buffer >> UInt32(bits)) & 31)])
      }
      buffer &= (1 << UInt32(bits)) - 1
    }
    if bits > 0 { output.append(alphabet[Int((buffer << UInt32(5 - bits)) & 31)]) }
    return String(decoding: output, as: UTF8.self)
  }

  static func decodeBytes<S: Sequence<UInt8>>(_ characters: S) -> [UInt8]? {
    var output: [UInt8] = []
    var buffer: UInt32 = 0
    var bits = 0
    for character in characters {
      guard let value = alphabet.firstIndex(of: character) else { return nil }
      buffer = (buffer << 5) | UInt32(value)
      bits += 5
      if bits >= 8 {
        bits -= 8
        output.append(UInt8((buffer >> UInt32(bits)) & 0xFF))
        buffer &= (1 << UInt32(bits)) - 1
      }
    }
    // Leftover bits are padding and must be zero, as in any base-32 text.
    return buffer == 0 ? output : nil
  }
}
