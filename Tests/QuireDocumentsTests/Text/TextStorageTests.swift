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

@Suite("Text storage: bytes as they are")
struct ByteExactTextStorageTests {
  @Test func holdsInvalidUTF8AndNULBytesExactly() throws {
    let bytes: [UInt8] = [0xFF, 0x00, 0x61, 0x0A, 0xC3, 0x0D, 0x0A, 0x78]
    var text = TextStorage(bytes: Data(bytes))
    #expect(text.utf8Bytes() == bytes)
    #expect(text.lineCount == 3)
    #expect(text.lineBytes(at: 0) == [0xFF, 0x00, 0x61])
    #expect(text.lineBytes(at: 1) == [0xC3])
    #expect(text.lineBytes(at: 1, keepingCarriageReturn: true) == [0xC3, 0x0D])
    #expect(text.lineBytes(at: 2) == [0x78])
    text.lineEnding = .lf
    try text.replaceLines(in: 1..<2, withBytes: [[0xFE], [0x00, 0x00]])
    #expect(text.utf8Bytes() == [0xFF, 0x00, 0x61, 0x0A, 0xFE, 0x0A, 0x00, 0x00, 0x0A, 0x78])
    // A byte edit may cut what would be a UTF-8 sequence: the bytes are not characters here.
    let removed = try text.replace(utf8Range: 0..<1, withBytes: [0xE6, 0x97])
    #expect(removed == [0xFF])
    #expect(text.lineBytes(at: 0) == [0xE6, 0x97, 0x00, 0x61])
    #expect(throws: QuireError.self) { try text.replace(utf8Range: 0..<999, withBytes: []) }
  }

  @Test func saysWhatKeepsBytesFromBeingText() {
    func problem(_ bytes: [UInt8]) -> TextStorage.TextProblem? { bytes.withUnsafeBytes { TextStorage.firstTextProblem(in: $0) } }
    #expect(problem(Array("plain ✓ 𝄞 text, long enough for the eight-byte path\n".utf8)) == nil)
    #expect(problem(Array("0123456789".utf8) + [0x00]) == .nul(at: 10))
    #expect(problem(Array("abc".utf8) + [0xC3, 0x28]) == .invalidUTF8(at: 3))
    #expect(problem([]) == nil)
  }

  @Test func appendsAMissingFinalNewlineOnce() {
    var text = TextStorage(bytes: Array("a\nb".utf8))
    let first = text.appendMissingFinalNewline()
    let second = text.appendMissingFinalNewline()
    #expect(first && !second)
    #expect(text.string == "a\nb\n")
    var empty = TextStorage()
    let appendedToEmpty = empty.appendMissingFinalNewline()
    #expect(!appendedToEmpty)
    #expect(empty.isEmpty)
  }

  /// Random byte edits over many chunks (bytes of every value, including lone UTF-8 lead
  /// bytes and NULs) agree with the same edits on a plain array, line by line and offset by
  /// offset: the chunk index stays in step with every edit.
  @Test func randomByteEditsMatchAPlainModel() throws {
    var generator = SplitMix(seed: 7)
    var model: [UInt8] = []
    for index in 0..<40_000 {
      model.append(contentsOf: Array("line \(index) ".utf8))
      model.append(UInt8(truncatingIfNeeded: generator.next()))
      model.append(0x0A)
    }
    var text = TextStorage(bytes: Data(model))
    text.lineEnding = .lf
    for round in 0..<300 {
      let lower = Int(generator.next() % UInt64(model.count + 1))
      let upper = min(model.count, lower + Int(generator.next() % 3000))
      let length = Int(generator.next() % (round % 50 == 0 ? 40_000 : 60))
      let piece = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next() % 5 == 0 ? 0x0A : generator.next()) }
      let removed = try text.replace(utf8Range: lower..<upper, withBytes: piece)
      #expect(removed == Array(model[lower..<upper]))
      model.replaceSubrange(lower..<upper, with: piece)
    }
    #expect(text.utf8Bytes() == model)
    var starts = [0]
    for (offset, byte) in model.enumerated() where byte == 0x0A && offset + 1 < model.count { starts.append(offset + 1) }
    #expect(text.lineCount == starts.count)
    for line in stride(from: 0, to: starts.count, by: 37) {
      #expect(text.utf8Offset(ofLine: line) == starts[line])
      let end = model[starts[line]...].firstIndex(of: 0x0A) ?? model.count
      #expect(text.lineBytes(at: line, keepingCarriageReturn: true) == Array(model[starts[line]..<end]))
      #expect(text.lineIndex(containingUTF8Offset: starts[line]) == line)
    }
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
