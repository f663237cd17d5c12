package import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// A file path's bytes carried losslessly in a Swift `String`, for the places that only take
/// text (argument-parser's arguments, a JSON line) and must hand the very same name back.
///
/// Linux names are bytes; `String` holds only Unicode, and decoding a name that is not UTF-8
/// (as `CommandLine.arguments` does) turns `non\xFFutf.md` into a *different* name,
/// `non\u{FFFD}utf.md`. Here each byte of an invalid sequence becomes a scalar of its own in
/// a private-use block, U+10FF00 + byte (the idea of Python's "surrogateescape"); so that the
/// mapping stays one to one, a scalar that is itself in that block is escaped byte by byte
/// too. Valid UTF-8 without such scalars (every ordinary name) is left exactly as it is.
///
/// ``DisplayName`` shows the escaped bytes as `\xFF`. Every `String` path or name the system
/// layer (``SystemCalls``) takes is such a string: the call gets the bytes it stands for.
package enum PathText {
  /// The first scalar of the block that stands for bytes: U+10FF00 + byte.
  package static let base: UInt32 = 0x10_FF00

  /// Whether `scalar` stands for one byte of a name.
  package static func byte(of scalar: Unicode.Scalar) -> UInt8? {
    scalar.value >= base ? UInt8(truncatingIfNeeded: scalar.value - base) : nil
  }

  /// `bytes` (a name or path as the kernel has it) as text that ``bytes(_:)`` turns back into
  /// the same bytes.
  package static func string<Bytes: Collection>(bytes: Bytes) -> String where Bytes.Element == UInt8 {
    let array = Array(bytes)
    // The common case: valid UTF-8 with no scalar from the escape block (its lead is F4 8F BC..BF).
    if let text = String(validating: array, as: UTF8.self), !text.unicodeScalars.contains(where: { $0.value >= base }) {
      return text
    }
    var scalars = String.UnicodeScalarView()
    var position = 0
    while position < array.count {
      let length = sequenceLength(array, at: position)
      if length > 0, let text = String(validating: array[position..<position + length], as: UTF8.self),
        let scalar = text.unicodeScalars.first, scalar.value < base
      {
        scalars.append(scalar)
        position += length
        continue
      }
      // An invalid byte, or a whole sequence of a scalar from the escape block: byte by byte.
      for byte in array[position..<position + max(1, length)] {
        scalars.append(Unicode.Scalar(base + UInt32(byte))!)
      }
      position += max(1, length)
    }
    return String(scalars)
  }

  /// The bytes `text` stands for (see ``string(bytes:)``).
  package static func bytes(_ text: String) -> [UInt8] {
    guard text.unicodeScalars.contains(where: { $0.value >= base }) else { return Array(text.utf8) }
    var bytes: [UInt8] = []
    for scalar in text.unicodeScalars {
      if let byte = byte(of: scalar) {
        bytes.append(byte)
      } else {
        bytes += Array(String(scalar).utf8)
      }
    }
    return bytes
  }

  /// `path` as text that ``path(_:)`` turns back into the same path.
  package static func string(_ path: FilePath) -> String {
    path.withPlatformString { raw in
      string(bytes: UnsafeRawBufferPointer(start: raw, count: strlen(raw)))
    }
  }

  /// The path `text` stands for (see ``string(bytes:)``). A NUL byte, which no path holds,
  /// ends it, as it would end the C string the kernel gets.
  package static func path(_ text: String) -> FilePath {
    var bytes = bytes(text)
    if let nul = bytes.firstIndex(of: 0) { bytes.removeSubrange(nul...) }
    bytes.append(0)
    return bytes.withUnsafeBufferPointer { buffer in
      buffer.withMemoryRebound(to: CInterop.PlatformChar.self) { FilePath(platformString: $0.baseAddress!) }
    }
  }

  /// Whether `text` holds bytes that are not UTF-8 (so a `URL` or `String` API would lose them).
  package static func holdsNonUTF8Bytes(_ text: String) -> Bool {
    text.unicodeScalars.contains { $0.value >= base }
  }

  /// Calls `body` with the C string of the bytes `text` stands for (see ``bytes(_:)``), as
  /// the kernel must get them; for text without bytes that are not UTF-8 (every ordinary
  /// name), its own UTF-8.
  package static func withCString<Result>(_ text: String, _ body: (UnsafePointer<CChar>) throws -> Result) rethrows -> Result {
    guard holdsNonUTF8Bytes(text) else { return try text.withCString(body) }
    let bytes = bytes(text).map { CChar(bitPattern: $0) } + [0]
    return try bytes.withUnsafeBufferPointer { try body($0.baseAddress!) }
  }

  /// The length of the valid UTF-8 sequence starting at `position`, or 0 when it is not one.
  package static func sequenceLength(_ bytes: [UInt8], at position: Int) -> Int {
    let first = bytes[position]
    let length: Int
    switch first {
    case 0x00...0x7F: return 1
    case 0xC2...0xDF: length = 2
    case 0xE0...0xEF: length = 3
    case 0xF0...0xF4: length = 4
    default: return 0
    }
    guard position + length <= bytes.count else { return 0 }
    let second = bytes[position + 1]
    switch first {
    case 0xE0: guard (0xA0...0xBF).contains(second) else { return 0 }
    case 0xED: guard (0x80...0x9F).contains(second) else { return 0 }
    case 0xF0: guard (0x90...0xBF).contains(second) else { return 0 }
    case 0xF4: guard (0x80...0x8F).contains(second) else { return 0 }
    default: guard second & 0xC0 == 0x80 else { return 0 }
    }
    for offset in 2..<max(2, length) where bytes[position + offset] & 0xC0 != 0x80 { return 0 }
    return length
  }
}

extension FilePath {
  /// This path made absolute, with its bytes: a relative path is taken from the current
  /// folder (`realpath(3)` of `.`, so a folder whose name is not UTF-8 stays exact), and `.`
  /// and `..` components are resolved lexically. The one way the package makes a path
  /// absolute.
  package var absoluteNormalized: FilePath {
    var absolute = self
    if absolute.isRelative, let here = SystemCalls.resolvedPath(FilePath(".")) { absolute = here.pushing(absolute) }
    return absolute.lexicallyNormalized()
  }
}
