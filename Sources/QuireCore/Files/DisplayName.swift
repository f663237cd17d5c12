package import Foundation
package import SystemPackage

/// File names (and other untrusted text) as they may be shown on a terminal or in one line
/// of output: every name printed by a command goes through here.
///
/// Printable text is kept as it is; a backslash becomes `\\`; tab, newline and carriage
/// return become `\t`, `\n`, `\r`; other control characters (C0, DEL, the C1 range, so
/// `ESC[31m` cannot colour the terminal) become `\x1B`-style escapes; and bytes that are not
/// UTF-8 (Linux names are bytes), also when ``PathText`` carries them in a `String`, become
/// `\xFF`. The result is one line, and different names stay different.
package enum DisplayName {
  /// `bytes` (a file name or path as the kernel has it) escaped for display.
  package static func escaping<Bytes: Collection>(bytes: Bytes) -> String where Bytes.Element == UInt8 {
    // Invalid bytes become PathText's byte scalars, which `escaping(_:)` shows as \xNN.
    escaping(PathText.string(bytes: bytes))
  }

  /// `text` escaped for display (control characters and backslashes).
  ///
  /// - Parameter keepsBackslashes: Leaves backslashes alone: for messages whose names were
  ///   escaped already, so they are not escaped twice.
  package static func escaping(_ text: String, keepsBackslashes: Bool = false) -> String {
    var result = ""
    for scalar in text.unicodeScalars { result += keepsBackslashes && scalar == "\\" ? "\\" : escaping(scalar) }
    return result
  }

  /// `path` escaped for display, from its bytes.
  package static func escaping(_ path: FilePath) -> String {
    path.withPlatformString { cPath in
      escaping(bytes: UnsafeRawBufferPointer(start: cPath, count: strlen(cPath)))
    }
  }

  /// The path of `url` escaped for display: its `path`, which for a URL that carries a name
  /// that is not UTF-8 (`URL(fileURLWithPath:)` of a ``PathText`` string) stands for the bytes.
  package static func escaping(path url: URL) -> String { escaping(url.path) }

  private static func escaping(_ scalar: Unicode.Scalar) -> String {
    switch scalar.value {
    case 0x5C: return "\\\\"
    case 0x09: return "\\t"
    case 0x0A: return "\\n"
    case 0x0D: return "\\r"
    case 0x00..<0x20, 0x7F..<0xA0: return String(format: "\\x%02X", scalar.value)
    case PathText.base...:
      // A byte of a name that is not UTF-8, carried by `PathText`.
      return String(format: "\\x%02X", scalar.value - PathText.base)
    case 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069:
      // Line separators and bidirectional overrides: they can reorder or split what follows.
      return String(format: "\\u{%04X}", scalar.value)
    default: return String(scalar)
    }
  }

  /// The length of the valid UTF-8 sequence starting at `position`, or 0 when it is not one.
  package static func sequenceLength(_ bytes: [UInt8], at position: Int) -> Int { PathText.sequenceLength(bytes, at: position) }
}
