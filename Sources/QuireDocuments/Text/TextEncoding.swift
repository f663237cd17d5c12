public import Foundation
public import QuireTypes

/// How a text file's bytes encode its characters. Kept from reading to saving.
public enum TextEncoding: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
  /// UTF-8 without a byte order mark.
  case utf8
  /// UTF-8 starting with `EF BB BF`.
  case utf8WithBOM
  /// UTF-16, little-endian, starting with `FF FE`.
  case utf16LittleEndian
  /// UTF-16, big-endian, starting with `FE FF`.
  case utf16BigEndian

  public var description: String {
    switch self {
    case .utf8: "UTF-8"
    case .utf8WithBOM: "UTF-8 with BOM"
    case .utf16LittleEndian: "UTF-16 LE"
    case .utf16BigEndian: "UTF-16 BE"
    }
  }

  /// Decodes a whole file: the byte order mark picks the encoding, UTF-8 otherwise.
  ///
  /// - Throws: ``QuireError/Code/invalidContent`` when the bytes are not valid text in that
  ///   encoding or hold a NUL (binary data); the message says where.
  public static func decode(_ data: Data) throws(QuireError) -> (TextStorage, TextEncoding) {
    let refusal = "It is refused for editing, so it is never rewritten; open it with a program for its type."
    let result = data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> Result<(TextStorage, TextEncoding), QuireError> in
      Result { () throws(QuireError) -> (TextStorage, TextEncoding) in
        if raw.starts(with: [0xEF, 0xBB, 0xBF]) {
          try check(UnsafeRawBufferPointer(rebasing: raw[3...]), offset: 3, refusal)
          return (TextStorage(trustedUTF8: data, from: 3), .utf8WithBOM)
        }
        if raw.starts(with: [0xFF, 0xFE]) || raw.starts(with: [0xFE, 0xFF]) {
          let little = raw[0] == 0xFF
          let body = UnsafeRawBufferPointer(rebasing: raw[2...])
          guard body.count % 2 == 0 else {
            throw QuireError(.invalidContent, "it starts as UTF-16 but has an odd number of bytes. \(refusal)")
          }
          var units = [UInt16](repeating: 0, count: body.count / 2)
          for i in units.indices {
            let a = UInt16(body[2 * i])
            let b = UInt16(body[2 * i + 1])
            units[i] = little ? a | b << 8 : a << 8 | b
          }
          if let nul = units.firstIndex(of: 0) {
            throw QuireError(.invalidContent, "it holds a NUL character at byte \(2 + 2 * nul), so it is binary data, not text. \(refusal)")
          }
          guard let string = String(validating: units, as: UTF16.self) else {
            throw QuireError(.invalidContent, "it is not valid UTF-16 (an unpaired surrogate). \(refusal)")
          }
          return (TextStorage(string), little ? .utf16LittleEndian : .utf16BigEndian)
        }
        try check(raw, offset: 0, refusal)
        return (TextStorage(trustedUTF8: data, from: 0), .utf8)
      }
    }
    return try result.get()
  }

  /// Checks that `data` is UTF-8 text (a byte order mark allowed) without NUL bytes, as
  /// ``decode(_:)`` requires of a file without a UTF-16 byte order mark, without decoding it.
  ///
  /// - Throws: ``QuireError/Code/invalidContent`` saying where the bytes stop being text.
  public static func checkUTF8Text(_ data: Data) throws(QuireError) {
    let refusal = "It is refused for editing, so it is never rewritten; open it with a program for its type."
    let result = data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> Result<Void, QuireError> in
      Result { () throws(QuireError) in try check(raw, offset: 0, refusal) }
    }
    try result.get()
  }

  /// Checks that `bytes`, new text for a document that holds UTF-8 text only
  /// (``PlainTextDocument/requiresUTF8Text``), are UTF-8 text without NUL bytes.
  ///
  /// - Throws: ``QuireError/Code/invalidContent`` saying which byte of the new text breaks it.
  static func checkNewUTF8Text(_ bytes: some ContiguousBytes) throws(QuireError) {
    let problem = bytes.withUnsafeBytes { UTF8Check.firstProblem(in: $0) }
    let keep = "This document holds UTF-8 text only, and was left as it was; type the text as UTF-8."
    switch problem {
    case nil: return
    case .invalid(let at)?:
      throw QuireError(.invalidContent, "The new text is not valid UTF-8 (its byte \(at + 1) breaks the encoding). \(keep)")
    case .nul(let at)?:
      throw QuireError(.invalidContent, "The new text holds a NUL byte (its byte \(at + 1)). \(keep)")
    }
  }

  private static func check(_ bytes: UnsafeRawBufferPointer, offset: Int, _ refusal: String) throws(QuireError) {
    switch UTF8Check.firstProblem(in: bytes) {
    case nil: return
    case .invalid(let at)?:
      throw QuireError(.invalidContent, "it is not valid UTF-8 text (byte \(at + offset) breaks the encoding). \(refusal)")
    case .nul(let at)?:
      throw QuireError(.invalidContent, "it holds a NUL byte at offset \(at + offset), so it is binary data, not text. \(refusal)")
    }
  }

  /// Encodes `storage` as a file in this encoding (with its byte order mark).
  public func encode(_ storage: TextStorage) -> Data {
    switch self {
    case .utf8:
      var data = Data(capacity: storage.utf8Count)
      storage.forEachChunk { data.append($0) }
      return data
    case .utf8WithBOM:
      var data = Data([0xEF, 0xBB, 0xBF])
      data.reserveCapacity(storage.utf8Count + 3)
      storage.forEachChunk { data.append($0) }
      return data
    case .utf16LittleEndian, .utf16BigEndian:
      let little = self == .utf16LittleEndian
      var bytes: [UInt8] = little ? [0xFF, 0xFE] : [0xFE, 0xFF]
      bytes.reserveCapacity(2 + storage.utf8Count * 2)
      for unit in storage.string.utf16 {
        if little {
          bytes.append(UInt8(unit & 0xFF))
          bytes.append(UInt8(unit >> 8))
        } else {
          bytes.append(UInt8(unit >> 8))
          bytes.append(UInt8(unit & 0xFF))
        }
      }
      return Data(bytes)
    }
  }
}
