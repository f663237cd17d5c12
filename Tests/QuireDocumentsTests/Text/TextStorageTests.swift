import Foundation
import QuireDocuments
import QuireTypes
import Testing

@Suite("Text storage")
struct TextStorageTests {
  @Test func countsLinesAsEdDoes() {
    #expect(TextStorage("").lineCount == 0)
    #expect(TextStorage("a").lineCount == 1)
    #expect(TextStorage("a\n").lineCount == 1)
    #expect(TextStorage("a\nb").lineCount == 2)
    #expect(TextStorage("a\n\n").lineCount == 2)
  }

  @Test func readsLinesWithoutTheirEndings() {
    let text = TextStorage("one\r\ntwo\nthree")
    #expect(text.line(at: 0) == "one")
    #expect(text.line(at: 1) == "two")
    #expect(text.line(at: 2) == "three")
    #expect(text.line(at: 3) == "")
    #expect(text.lines(in: 0..<3) == ["one", "two", "three"])
    #expect(text.lines(in: 1..<10) == ["two", "three"])
  }

  @Test func detectsTheDominantLineEnding() {
    #expect(TextStorage("a\r\nb\r\nc\n").lineEnding == .crlf)
    #expect(TextStorage("a\nb\r\n").lineEnding == .lf)
    #expect(TextStorage("no newline").lineEnding == .lf)
  }

  @Test func replacingLinesKeepsOtherLinesEndings() throws {
    var text = TextStorage("a\r\nb\r\nc\n")
    try text.replaceLines(in: 1..<2, with: ["B", "B2"])
    #expect(text.string == "a\r\nB\r\nB2\r\nc\n")
    try text.replaceLines(in: 0..<0, with: ["top"])
    #expect(text.string == "top\r\na\r\nB\r\nB2\r\nc\n")
    try text.replaceLines(in: 1..<4, with: [])
    #expect(text.string == "top\r\nc\n")
  }

  @Test func aTextWithoutAFinalNewlineKeepsNone() throws {
    var text = TextStorage("a\nb")
    try text.replaceLines(in: 2..<2, with: ["c", "d"])
    #expect(text.string == "a\nb\nc\nd")
    try text.replaceLines(in: 3..<4, with: ["D"])
    #expect(text.string == "a\nb\nc\nD")
  }

  @Test func outOfRangeEditsAreRefused() {
    var text = TextStorage("a\nb\n")
    #expect(throws: QuireError.self) { try text.replaceLines(in: 1..<5, with: []) }
    #expect(throws: QuireError.self) { try text.replace(utf8Range: 0..<99, with: "") }
    var japanese = TextStorage("日本")
    #expect(throws: QuireError.self) { try japanese.replace(utf8Range: 1..<2, with: "x") }
    #expect(japanese.string == "日本")
  }

  /// Random edits across chunk boundaries agree with the same edits on a plain array, both
  /// for a text copied from a String and for one sharing the bytes of a file as read.
  @Test(arguments: [false, true])
  func randomEditsMatchAPlainModel(sharingFileBytes: Bool) throws {
    var generator = SplitMix(seed: 42)
    let line = "línea 日本 text\n"
    var model = Array(String(repeating: line, count: 6000).utf8)
    let original = model
    var text =
      sharingFileBytes
      ? try TextEncoding.decode(Data(model)).0 : TextStorage(String(decoding: model, as: UTF8.self))
    let untouched = text
    let pieces = ["", "x", "日", "\n", "new line\r\n", String(repeating: "long ", count: 9000)]
    for _ in 0..<400 {
      var lower = Int(generator.next() % UInt64(model.count + 1))
      var upper = min(model.count, lower + Int(generator.next() % 200))
      while lower < model.count, model[lower] & 0xC0 == 0x80 { lower += 1 }
      upper = max(upper, lower)
      while upper < model.count, model[upper] & 0xC0 == 0x80 { upper += 1 }
      let piece = pieces[Int(generator.next() % UInt64(pieces.count))]
      let removed = try text.replace(utf8Range: lower..<upper, with: piece)
      #expect(Array(removed.utf8) == Array(model[lower..<upper]))
      model.replaceSubrange(lower..<upper, with: Array(piece.utf8))
    }
    #expect(text.utf8Bytes() == model)
    #expect(text.utf8Count == model.count)
    #expect(untouched.utf8Bytes() == original)  // a copy taken before the edits is unchanged
    // Split the bytes, not the String: "\r\n" is one Character.
    var expectedLines = model.split(separator: 0x0A, omittingEmptySubsequences: false).map {
      String(decoding: $0.last == 0x0D ? $0.dropLast() : $0[...], as: UTF8.self)
    }
    if expectedLines.last == "" { expectedLines.removeLast() }
    #expect(text.lineCount == expectedLines.count)
    for index in stride(from: 0, to: expectedLines.count, by: 97) {
      #expect(text.line(at: index) == expectedLines[index])
    }
  }

  @Test func refusesInvalidUTF8AndNULs() {
    let bad: [UInt8] = Array("fine".utf8) + [0xC3, 0x28]
    #expect(throws: QuireError.self) { try bad.withUnsafeBytes { try TextStorage(validatingUTF8: $0) } }
    let nul: [UInt8] = [0x61, 0x00, 0x62]
    #expect(throws: QuireError.self) { try nul.withUnsafeBytes { try TextStorage(validatingUTF8: $0) } }
    let good: [UInt8] = Array("ok ✓ 𝄞\n".utf8)
    #expect((try? good.withUnsafeBytes { try TextStorage(validatingUTF8: $0) })?.string == "ok ✓ 𝄞\n")
  }

  @Test func offsetsAndLinesAgree() {
    let text = TextStorage("ab\ncd\nef")
    #expect(text.utf8Offset(ofLine: 1) == 3)
    #expect(text.utf8Range(ofLine: 1) == 3..<5)
    #expect(text.lineIndex(containingUTF8Offset: 4) == 1)
    #expect(text.lineIndex(containingUTF8Offset: 7) == 2)
  }
}

/// A small deterministic generator for repeatable random tests.
struct SplitMix: RandomNumberGenerator {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
