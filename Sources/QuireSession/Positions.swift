import QuireDocuments
import QuireTypes

/// How a front end counts the characters of a line in a ``TextPosition``: UTF-8 bytes,
/// UTF-16 code units (LSP's default, JavaScript's strings) or Unicode scalars (UTF-32).
public enum PositionEncoding: String, Sendable, Hashable, CaseIterable {
  /// UTF-8 bytes.
  case utf8 = "utf-8"
  /// UTF-16 code units: a character outside the Basic Multilingual Plane (an emoji) counts 2.
  case utf16 = "utf-16"
  /// Unicode scalars.
  case utf32 = "utf-32"
}

/// A place in a text: a line (from 0) and a character offset in that line, counted in a
/// ``PositionEncoding``, as LSP's `Position`.
public struct TextPosition: Sendable, Hashable {
  /// The line, from 0.
  public var line: Int
  /// The offset in the line, from 0, in the encoding the front end chose.
  public var character: Int

  /// A position.
  public init(line: Int, character: Int) {
    self.line = line
    self.character = character
  }
}

/// A place in a text given in every encoding at once, for telling front ends that count
/// differently where a change happened.
public struct TextPoint: Sendable, Hashable {
  /// The line, from 0.
  public var line: Int
  /// The offset in the line in UTF-8 bytes.
  public var utf8: Int
  /// The offset in the line in UTF-16 code units.
  public var utf16: Int
  /// The offset in the line in Unicode scalars.
  public var utf32: Int

  /// The position in `encoding`.
  public func position(in encoding: PositionEncoding) -> TextPosition {
    switch encoding {
    case .utf8: TextPosition(line: line, character: utf8)
    case .utf16: TextPosition(line: line, character: utf16)
    case .utf32: TextPosition(line: line, character: utf32)
    }
  }

  /// The start of a text.
  public static let start = TextPoint(line: 0, utf8: 0, utf16: 0, utf32: 0)
}

extension TextStorage {
  /// The UTF-8 offset of `position` counted in `encoding`.
  ///
  /// A line past the last one is refused, as is a character past the end of its line
  /// (the end of a line is before its `\n`) or inside a character (the second half of a
  /// UTF-16 surrogate pair, a byte inside a UTF-8 sequence).
  ///
  /// - Throws: ``QuireError`` (`invalidArgument`) naming the position.
  func utf8Offset(of position: TextPosition, in encoding: PositionEncoding) throws(QuireError) -> Int {
    guard position.line >= 0, position.character >= 0 else {
      throw QuireError(.invalidArgument, "Position \(position.line):\(position.character) is negative.")
    }
    // The line after the last newline exists (empty) whether or not the text ends with one.
    guard position.line <= newlineCount else {
      throw QuireError(.invalidArgument, "Line \(position.line) is past the end of the text (it has \(newlineCount + 1) lines counting from 0).")
    }
    let range = utf8Range(ofLine: position.line, keepingCarriageReturn: false)
    if position.character == 0 { return range.lowerBound }
    let bytes = utf8Bytes(in: range)
    var units = 0
    var offset = 0
    for scalar in String(decoding: bytes, as: UTF8.self).unicodeScalars {
      if units == position.character { return range.lowerBound + offset }
      units += Self.width(of: scalar, in: encoding)
      offset += scalar.utf8.count
      if units > position.character {
        throw QuireError(.invalidArgument, "Position \(position.line):\(position.character) (\(encoding.rawValue)) falls inside a character.")
      }
    }
    guard units == position.character else {
      throw QuireError(
        .invalidArgument, "Position \(position.line):\(position.character) (\(encoding.rawValue)) is past the end of its line (\(units) long).")
    }
    return range.lowerBound + offset
  }

  /// Where UTF-8 offset `offset` is, in every encoding.
  func point(atUTF8Offset offset: Int) -> TextPoint {
    let offset = min(max(0, offset), utf8Count)
    let line = offset == utf8Count ? newlineCount : lineIndex(containingUTF8Offset: offset)
    let start = utf8Offset(ofLine: line)
    let prefix = String(decoding: utf8Bytes(in: start..<offset), as: UTF8.self)
    return TextPoint(line: line, utf8: offset - start, utf16: prefix.utf16.count, utf32: prefix.unicodeScalars.count)
  }

  private static func width(of scalar: Unicode.Scalar, in encoding: PositionEncoding) -> Int {
    switch encoding {
    case .utf8: scalar.utf8.count
    case .utf16: scalar.utf16.count
    case .utf32: 1
    }
  }
}
