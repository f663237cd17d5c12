import Foundation
import QuireDocuments
import QuireTestSupport
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

  /// Replaces lines of `start` by each step in turn, and expects the text after each.
  func expectEdits(of start: String, _ steps: [(lines: Range<Int>, with: [String], gives: String)], sourceLocation: SourceLocation = #_sourceLocation) throws {
    var text = TextStorage(start)
    for step in steps {
      try text.replaceLines(in: step.lines, with: step.with)
      #expect(text.string == step.gives, sourceLocation: sourceLocation)
    }
  }

  @Test func replacingLinesKeepsOtherLinesEndings() throws {
    try expectEdits(
      of: "a\r\nb\r\nc\n",
      [
        (1..<2, ["B", "B2"], "a\r\nB\r\nB2\r\nc\n"),
        (0..<0, ["top"], "top\r\na\r\nB\r\nB2\r\nc\n"),
        (1..<4, [], "top\r\nc\n"),
      ])
  }

  @Test func aTextWithoutAFinalNewlineKeepsNone() throws {
    try expectEdits(of: "a\nb", [(2..<2, ["c", "d"], "a\nb\nc\nd"), (3..<4, ["D"], "a\nb\nc\nD")])
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

@Suite("Text storage: many lines at once")
struct BatchedLineEditTests {
  /// Lines of every kind: LF and CRLF endings, empty lines, lines longer than a chunk (so
  /// they run over chunk ends), bytes that are not UTF-8, and NUL.
  static func sampleBytes(lines: Int, finalNewline: Bool, seed: UInt64) -> [UInt8] {
    var generator = SplitMix(seed: seed)
    var bytes: [UInt8] = []
    for index in 0..<lines {
      switch generator.next() % 10 {
      case 0: break
      case 1: bytes += Array(String(repeating: "long 日本 ", count: 3000 + Int(generator.next() % 4000)).utf8)
      case 2: bytes += [0xFF, 0x00, 0x41, 0xC3]
      default: bytes += Array("line \(index) fox".utf8)
      }
      bytes += generator.next() % 4 == 0 ? [0x0D, 0x0A] : [0x0A]
    }
    if !finalNewline, bytes.last == 0x0A {
      bytes.removeLast()
      if bytes.last == 0x0D { bytes.removeLast() }
      bytes += Array("end".utf8)
    }
    return bytes
  }

  static func lines(of bytes: [UInt8], keepingCarriageReturn: Bool) -> [[UInt8]] {
    var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).map { Array($0) }
    if lines.last == [] { lines.removeLast() }
    return keepingCarriageReturn ? lines : lines.map { $0.last == 0x0D ? Array($0.dropLast()) : $0 }
  }

  @Test(arguments: [true, false])
  func forEachLineGivesWhatLineBytesGives(finalNewline: Bool) {
    let bytes = Self.sampleBytes(lines: 3000, finalNewline: finalNewline, seed: 7)
    let text = TextStorage(bytes: Data(bytes))
    for keeping in [true, false] {
      var seen: [[UInt8]] = []
      var indexes: [Int] = []
      text.forEachLine(in: 0..<text.lineCount, keepingCarriageReturn: keeping) { index, line in
        indexes.append(index)
        seen.append(Array(line))
      }
      #expect(indexes == Array(0..<text.lineCount))
      #expect(seen == Self.lines(of: bytes, keepingCarriageReturn: keeping))
      var part: [[UInt8]] = []
      text.forEachLine(in: 1234..<1300, keepingCarriageReturn: keeping) { _, line in part.append(Array(line)) }
      #expect(part == (1234..<1300).map { text.lineBytes(at: $0, keepingCarriageReturn: keeping) })
    }
    var none = 0
    text.forEachLine(in: text.lineCount..<(text.lineCount + 5)) { _, _ in none += 1 }
    #expect(none == 0)
  }

  /// Random ascending edits in one pass give what the same edits give one by one (made from
  /// the last to the first, so that the line numbers hold), and the text edited from is
  /// unchanged.
  @Test(arguments: [(true, UInt64(1)), (false, 2), (true, 3)])
  func batchedEditsMatchEditsOneByOne(finalNewline: Bool, seed: UInt64) throws {
    let bytes = Self.sampleBytes(lines: 4000, finalNewline: finalNewline, seed: seed)
    let original = TextStorage(bytes: Data(bytes))
    var generator = SplitMix(seed: seed &* 31)
    var edits: [(Range<Int>, [[UInt8]])] = []
    var line = 0
    while true {
      line += Int(generator.next() % 40)
      guard line <= original.lineCount else { break }
      let length = min(Int(generator.next() % 3), original.lineCount - line)
      let replacement: [[UInt8]] =
        switch generator.next() % 4 {
        case 0: []
        case 1: [Array("cat \(line)".utf8)]
        case 2: [Array("two".utf8), Array(String(repeating: "x", count: 20000).utf8)]
        default: [[0x00, 0xFF]]
        }
      edits.append((line..<(line + length), replacement))
      line += length
    }
    #expect(edits.count > 50)
    var batched = original
    try batched.editLines { editor in
      for (range, lines) in edits { try editor.replaceLines(in: range, withBytes: lines) }
    }
    var oneByOne = original
    for (range, lines) in edits.reversed() { try oneByOne.replaceLines(in: range, withBytes: lines) }
    #expect(batched.utf8Bytes() == oneByOne.utf8Bytes())
    #expect(batched.lineCount == oneByOne.lineCount)
    #expect(batched.newlineCount == oneByOne.newlineCount)
    #expect(original.utf8Bytes() == bytes)
    for index in stride(from: 0, to: batched.lineCount, by: 37) {
      #expect(batched.lineBytes(at: index) == oneByOne.lineBytes(at: index))
      #expect(batched.utf8Offset(ofLine: index) == oneByOne.utf8Offset(ofLine: index))
    }
    // Every line of the result, read in one pass, as the plain model has it.
    var all: [[UInt8]] = []
    batched.forEachLine(in: 0..<batched.lineCount, keepingCarriageReturn: true) { _, line in all.append(Array(line)) }
    #expect(all == Self.lines(of: oneByOne.utf8Bytes(), keepingCarriageReturn: true))
  }

  @Test func editsOutOfOrderOrOutsideTheTextAreRefused() {
    var text = TextStorage("a\nb\nc\nd\n")
    #expect(throws: QuireError.self) {
      try text.editLines { editor in
        try editor.replaceLine(2, withBytes: Array("C".utf8))
        try editor.replaceLine(1, withBytes: Array("B".utf8))
      }
    }
    #expect(throws: QuireError.self) {
      try text.editLines { editor in try editor.deleteLines(in: 3..<5) }
    }
    #expect(text.string == "a\nb\nc\nd\n")
    try? text.editLines { editor in
      try editor.replaceLine(0, withBytes: Array("A".utf8))
      try editor.deleteLines(in: 1..<2)
      try editor.replaceLines(in: 4..<4, withBytes: [Array("e".utf8)])
    }
    #expect(text.string == "A\nc\nd\ne\n")
  }

  /// A text saved from its chunks is the text's bytes, and the fingerprint's hash is the hash
  /// of those bytes taken whole (the hash is taken piece by piece as it is written).
  @Test(arguments: [0, 1, 15, 16, 17, 3 << 20])
  func savingFromChunksWritesAndHashesTheBytes(size: Int) throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    var bytes = [UInt8]()
    var generator = SplitMix(seed: UInt64(size))
    while bytes.count < size { bytes += Array("\(generator.next() % 1000) fox\n".utf8) }
    bytes = Array(bytes.prefix(size))
    var text = TextStorage(bytes: Data(bytes))
    if size > 1000 { try text.replaceLines(in: 10..<11, withBytes: [Array("an odd-sized edit".utf8)]) }
    let url = folder.file("saved.txt")
    let result = try FileSaver.write(text, prefix: [0xEF, 0xBB, 0xBF], to: url)
    let written = try Data(contentsOf: url)
    #expect(Array(written) == [0xEF, 0xBB, 0xBF] + text.utf8Bytes())
    #expect(result.fingerprint.contentHash == ContentHash(written))
    #expect(result.fingerprint.size == written.count)
  }
}
