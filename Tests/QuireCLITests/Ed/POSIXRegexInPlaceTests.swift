import Foundation
import Testing

@testable import QuireCLI

/// `POSIXRegex` matching a line's bytes in place (`REG_STARTEND`) finds what matching its
/// NUL-terminated copy finds, for every start offset.
@Suite("POSIX regex: matching lines in place")
struct POSIXRegexInPlaceTests {
  static let patterns = ["fox", "^[0-9]*999:", "o*", "^", "$", "\\(b\\)\\(c*\\)", "x\\{2,3\\}", "[[:space:]]the", "\\<qu", ".", "\\(a\\)\\1"]
  static let lines: [[UInt8]] = [
    [], Array("1999: the quick brown fox".utf8), Array("bcc abc xx xxx fox".utf8), Array("aa the the".utf8),
    [0x61, 0x00, 0x62, 0x63], Array("ooo".utf8), [0xFF, 0xFE, 0x66, 0x6F, 0x78],
  ]

  @Test(arguments: patterns)
  func inPlaceMatchesTheCopy(_ pattern: String) throws {
    let regex = try POSIXRegex(Array(pattern.utf8))
    for line in Self.lines {
      let copy = POSIXRegex.cString(line)
      let matchesInPlace = try line.withUnsafeBufferPointer { line throws(EdError) in try regex.matches(line) }
      #expect(try matchesInPlace == (regex.firstMatch(in: copy) != nil), "\(pattern) on \(line)")
      for offset in 0...line.count {
        for notAtLineStart in [false, true] {
          let inPlace = try line.withUnsafeBufferPointer { line throws(EdError) in
            try regex.firstMatch(inLine: line, from: offset, notAtLineStart: notAtLineStart)
          }
          let copied = try regex.firstMatch(in: copy, from: offset, notAtLineStart: notAtLineStart)
          #expect(inPlace == copied, "\(pattern) on \(line) from \(offset)")
        }
      }
    }
  }
}
