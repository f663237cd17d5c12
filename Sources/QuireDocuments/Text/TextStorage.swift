public import Foundation
public import QuireTypes

#if canImport(Glibc)
  import Glibc
#endif

/// How lines end in a text.
public enum LineEnding: String, Sendable, Hashable, CaseIterable {
  /// `\n`, as Linux and macOS write it.
  case lf = "\n"
  /// `\r\n`, as Windows writes it.
  case crlf = "\r\n"
}

/// UTF-8 text held in chunks, addressed by line or by UTF-8 offset, fast on 100 MB files.
///
/// The text is a flat rope: an array of chunks of at most 32 KiB, each knowing its byte and
/// newline counts, with prefix sums of those counts (a Fenwick tree). Finding line *n* or
/// byte *n* is a search of the sums (O(log chunks)) and a `memchr` scan of one chunk; an edit
/// copies at most the two chunks at its ends. Nothing ever copies the whole text except
/// ``string`` and ``utf8Bytes()``, which the caller asks for explicitly. A `TextStorage` is a
/// value: copies share chunks until one side edits (copy-on-write), which is how a document
/// keeps the last saved version as its merge base for almost nothing.
///
/// Why not swift-collections' `BigString` (the rope under swift-foundation's
/// `AttributedString`)? It tracks characters, scalars and UTF-16 but not newlines, so every
/// line-addressed read would be a scan from the start; and building one from 100 MB costs
/// grapheme breaking the whole text. `Benchmarks/Sources/bench-documents` measures both.
///
/// Line endings are kept as found: reads strip a line's `\n` or `\r\n`; lines inserted get
/// ``lineEnding`` (the text's dominant ending, LF when it has none).
///
/// **Bytes as they are.** ``init(bytes:)`` holds any bytes, valid UTF-8 or not, NUL bytes
/// included, as GNU ed edits them; the byte-level calls (``lineBytes(at:keepingCarriageReturn:)``,
/// ``replace(utf8Range:withBytes:)``, ``replaceLines(in:withBytes:)``) then read and edit
/// them exactly, and ``utf8Bytes()`` gives them back unchanged. The `String` calls decode
/// such bytes with U+FFFD where the UTF-8 breaks.
///
/// Lines are numbered from 0. The text "a\nb\n" has two lines, as does "a\nb"; "" has none.
public struct TextStorage: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
  /// A run of the text: a range of a byte buffer that chunks may share (the file as read,
  /// until edited), and its newline count.
  struct Chunk: Sendable {
    let storage: Data
    let range: Range<Int>
    /// The offsets of the chunk's `\n` bytes from its start, ascending (a chunk is at most
    /// ``TextStorage/maximumChunk`` bytes, so two bytes a line): line *k* of a chunk is found
    /// without scanning.
    let newlineOffsets: [UInt16]

    var count: Int { range.count }
    var newlines: Int { newlineOffsets.count }

    /// A chunk owning a copy of `bytes`.
    init(copying bytes: UnsafeBufferPointer<UInt8>) {
      storage = Data(buffer: bytes)
      range = 0..<bytes.count
      newlineOffsets = TextStorage.newlineOffsets(in: UnsafeRawBufferPointer(bytes))
    }

    init(sharing storage: Data, range: Range<Int>, newlineOffsets: [UInt16]) {
      self.storage = storage
      self.range = range
      self.newlineOffsets = newlineOffsets
    }

    /// The part `lower..<upper` of this chunk (offsets from its start), sharing its bytes.
    func slice(_ lower: Int, _ upper: Int) -> Chunk {
      if lower == 0 && upper == count { return self }
      let first = newlineOffsets.partitioningIndex { Int($0) >= lower }
      let last = newlineOffsets.partitioningIndex { Int($0) >= upper }
      let offsets = lower == 0 ? Array(newlineOffsets[first..<last]) : newlineOffsets[first..<last].map { $0 - UInt16(lower) }
      return Chunk(sharing: storage, range: (range.lowerBound + lower)..<(range.lowerBound + upper), newlineOffsets: offsets)
    }

    /// Runs `body` on the chunk's bytes (indexed from 0).
    func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
      try storage.withUnsafeBytes { raw in
        try body(UnsafeBufferPointer(rebasing: raw.assumingMemoryBound(to: UInt8.self)[range]))
      }
    }
  }

  static let maximumChunk = 32 * 1024
  static let targetChunk = 16 * 1024

  private(set) var chunks: [Chunk] = []
  /// Prefix sums of the chunks' byte and newline counts: finds the chunk of an offset or of
  /// a line in O(log chunks).
  private var index = ChunkIndex([])
  /// The number of UTF-8 bytes in the text.
  public private(set) var utf8Count = 0
  /// The number of `\n` in the text.
  public private(set) var newlineCount = 0
  /// The ending given to inserted lines: the dominant ending found when the text was made.
  public var lineEnding: LineEnding = .lf
  /// The scratch copy the text was read into (see `ScratchCopy`), whose pages passes over
  /// the text let go of as they go.
  private var scratch: ScratchMapping?

  /// An empty text.
  public init() {}

  /// A text holding `string`.
  public init(_ string: String) {
    var copy = string
    self = copy.withUTF8 { TextStorage(trustedUTF8: UnsafeRawBufferPointer($0)) }
  }

  /// A text holding `bytes`, which must be valid UTF-8.
  ///
  /// - Throws: ``QuireError/Code/invalidContent`` saying at which byte the UTF-8 breaks, or
  ///   that the bytes hold a NUL (binary data, not text).
  public init(validatingUTF8 bytes: UnsafeRawBufferPointer) throws(QuireError) {
    switch UTF8Check.firstProblem(in: bytes) {
    case nil: self.init(trustedUTF8: bytes)
    case .invalid(let offset)?:
      throw QuireError(.invalidContent, "The text is not valid UTF-8 at byte \(offset).")
    case .nul(let offset)?:
      throw QuireError(.invalidContent, "The text holds a NUL byte at offset \(offset), so it is binary data, not text.")
    }
  }

  /// What keeps bytes from being text: the first byte where UTF-8 breaks, or the first NUL.
  public enum TextProblem: Sendable, Hashable {
    /// The UTF-8 sequence starting at this offset is invalid.
    case invalidUTF8(at: Int)
    /// A NUL byte at this offset (binary data).
    case nul(at: Int)
  }

  /// The first problem that keeps `bytes` from being UTF-8 text (what
  /// ``init(validatingUTF8:)`` refuses), or `nil`; eight ASCII bytes at a time.
  public static func firstTextProblem(in bytes: UnsafeRawBufferPointer) -> TextProblem? {
    switch UTF8Check.firstProblem(in: bytes) {
    case nil: nil
    case .invalid(let offset)?: .invalidUTF8(at: offset)
    case .nul(let offset)?: .nul(at: offset)
    }
  }

  /// Builds from bytes already known to be valid UTF-8, copying them.
  init(trustedUTF8 bytes: UnsafeRawBufferPointer) {
    self.init(trustedUTF8: bytes, sharing: nil, offset: 0)
  }

  /// Builds from `data[offset...]`, already known to be valid UTF-8, without copying: the
  /// chunks share `data` until they are edited.
  init(trustedUTF8 data: Data, from offset: Int) {
    let base = data.startIndex == 0 ? data : data.withUnsafeBytes { Data($0) }
    let mapping = base.withUnsafeBytes { ScratchMapping.mapping(at: $0.baseAddress) }
    self = base.withUnsafeBytes { raw in
      TextStorage(trustedUTF8: UnsafeRawBufferPointer(rebasing: raw[offset...]), sharing: base, offset: offset, scratch: mapping)
    }
  }

  /// A text holding `data` byte for byte (``init(bytes:)-(Data)``), and whether the bytes hold
  /// a NUL (GNU ed's "binary" file), found in the pass that finds the lines: the bytes are read
  /// once.
  static func scanning(bytes data: Data) -> (text: TextStorage, holdsNUL: Bool) {
    var holdsNUL = false
    let base = data.startIndex == 0 ? data : data.withUnsafeBytes { Data($0) }
    let mapping = base.withUnsafeBytes { ScratchMapping.mapping(at: $0.baseAddress) }
    let text = base.withUnsafeBytes { raw in
      TextStorage(trustedUTF8: raw, sharing: base, offset: 0, scratch: mapping, findingNUL: &holdsNUL)
    }
    return (text, holdsNUL)
  }

  private init(trustedUTF8 bytes: UnsafeRawBufferPointer, sharing storage: Data?, offset: Int, scratch: ScratchMapping? = nil) {
    var unused = true
    self.init(trustedUTF8: bytes, sharing: storage, offset: offset, scratch: scratch, findingNUL: &unused)
  }

  /// `holdsNUL` is set when a NUL byte is found; it is looked for only while it is `false`.
  private init(
    trustedUTF8 bytes: UnsafeRawBufferPointer, sharing storage: Data?, offset: Int, scratch: ScratchMapping?, findingNUL holdsNUL: inout Bool
  ) {
    self.scratch = scratch
    var crlf = 0
    var start = 0
    let count = bytes.count
    chunks.reserveCapacity(count / Self.targetChunk + 1)
    while start < count {
      // Cut just after a newline within the last 4 KiB where there is one.
      let end = Self.cut(bytes, from: start)
      let slice = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
      let offsets = Self.newlineOffsets(in: slice)
      crlf += Self.carriageReturns(before: offsets, in: slice, previous: start > 0 ? bytes[start - 1] : 0)
      if !holdsNUL, let base = slice.baseAddress, memchr(base, 0, slice.count) != nil { holdsNUL = true }
      if let storage {
        chunks.append(Chunk(sharing: storage, range: (offset + start)..<(offset + end), newlineOffsets: offsets))
      } else {
        chunks.append(Chunk(copying: slice.assumingMemoryBound(to: UInt8.self)))
      }
      newlineCount += offsets.count
      scratch?.noteRead(end - start)
      start = end
    }
    utf8Count = count
    lineEnding = crlf * 2 > newlineCount && crlf > 0 ? .crlf : .lf
    index = ChunkIndex(chunks)
    scratch?.release()
  }

  /// A text holding `data` byte for byte, whether or not it is valid UTF-8 or holds NUL
  /// bytes (GNU ed's byte-exact editing). The chunks share `data` until they are edited.
  ///
  /// Cuts between chunks fall after a newline where one is near, so a line is split between
  /// chunks only when it is longer than 4 KiB.
  public init(bytes data: Data) {
    self.init(trustedUTF8: data, from: 0)
  }

  /// A text holding `bytes` byte for byte (see ``init(bytes:)-(Data)``).
  public init(bytes: [UInt8]) {
    self = bytes.withUnsafeBytes { TextStorage(trustedUTF8: $0) }
  }

  /// The offsets of the `\n` bytes in `bytes` (at most 64 KiB of them), found with `memchr`.
  static func newlineOffsets(in bytes: UnsafeRawBufferPointer) -> [UInt16] {
    guard let base = bytes.baseAddress, !bytes.isEmpty else { return [] }
    var offsets: [UInt16] = []
    var position = 0
    while position < bytes.count, let found = memchr(base + position, 0x0A, bytes.count - position) {
      let index = base.distance(to: UnsafeRawPointer(found))
      offsets.append(UInt16(truncatingIfNeeded: index))
      position = index + 1
    }
    return offsets
  }

  /// How many of the newlines at `offsets` in `bytes` follow a `\r` (`previous` is the byte
  /// before `bytes`).
  static func carriageReturns(before offsets: [UInt16], in bytes: UnsafeRawBufferPointer, previous: UInt8) -> Int {
    var count = 0
    for offset in offsets {
      let before = offset > 0 ? bytes[Int(offset) - 1] : previous
      if before == 0x0D { count += 1 }
    }
    return count
  }

  // MARK: Reading

  /// The number of lines: a last line without a newline counts.
  public var lineCount: Int {
    guard utf8Count > 0 else { return 0 }
    return lastByte == 0x0A ? newlineCount : newlineCount + 1
  }

  /// Whether the text is empty.
  public var isEmpty: Bool { utf8Count == 0 }

  /// Whether the last line ends with a newline (true for an empty text).
  public var endsWithNewline: Bool { utf8Count == 0 || lastByte == 0x0A }

  private var lastByte: UInt8? { chunks.last?.withBytes { $0.last } }

  /// The whole text (copies it).
  public var string: String {
    var result = ""
    result.reserveCapacity(utf8Count)
    forEachChunk { result += String(decoding: $0, as: UTF8.self) }
    return result
  }

  public var description: String { string }

  /// The whole text as UTF-8 bytes (copies it).
  public func utf8Bytes() -> [UInt8] {
    var result = [UInt8]()
    result.reserveCapacity(utf8Count)
    forEachChunk { result.append(contentsOf: $0) }
    return result
  }

  /// Calls `body` with each chunk's bytes in order (a save writes them without joining them).
  func forEachChunk(_ body: (UnsafeBufferPointer<UInt8>) throws -> Void) rethrows {
    for chunk in chunks {
      try chunk.withBytes(body)
      scratch?.noteRead(chunk.count)
    }
  }

  /// The UTF-8 offset where line `index` starts; `lineCount` (or more) gives the end.
  public func utf8Offset(ofLine index: Int) -> Int {
    guard index > 0 else { return 0 }
    guard index <= newlineCount else { return utf8Count }
    // The start of line `index` is just after the `index`-th newline.
    let (chunk, seen, offset) = self.index.chunk(holdingNewline: index)
    guard chunk < chunks.count, index - seen >= 1, index - seen <= chunks[chunk].newlines else { return utf8Count }
    return offset + Int(chunks[chunk].newlineOffsets[index - seen - 1]) + 1
  }

  /// The line holding UTF-8 offset `offset` (0-based).
  public func lineIndex(containingUTF8Offset offset: Int) -> Int {
    guard offset >= 0, offset < utf8Count else { return max(0, lineCount - (endsWithNewline ? 0 : 1)) }
    let (chunk, start) = index.chunk(containingByte: offset)
    let seen = index.newlines(before: chunk)
    return seen + chunks[chunk].newlineOffsets.partitioningIndex { Int($0) >= offset - start }
  }

  /// The UTF-8 range of line `index`'s text, without its `\n` or `\r\n`.
  public func utf8Range(ofLine index: Int) -> Range<Int> {
    utf8Range(ofLine: index, keepingCarriageReturn: false)
  }

  /// The UTF-8 range of line `index`'s text without its `\n`; with `keepingCarriageReturn`,
  /// a `\r` before the `\n` counts as part of the line (as GNU ed sees it), else it is left
  /// out as part of the ending.
  public func utf8Range(ofLine index: Int, keepingCarriageReturn: Bool) -> Range<Int> {
    let start = utf8Offset(ofLine: index)
    let next = utf8Offset(ofLine: index + 1)
    var end = next
    if index < newlineCount {
      end -= 1
      if !keepingCarriageReturn, end > start, byte(at: end - 1) == 0x0D { end -= 1 }
    }
    return start..<max(start, end)
  }

  /// The bytes of line `index` without its `\n` (and without a `\r` before it unless
  /// `keepingCarriageReturn`), exactly as held: for text that is not UTF-8 too.
  ///
  /// - Precondition: `0 <= index < lineCount`; out of range gives no bytes.
  public func lineBytes(at index: Int, keepingCarriageReturn: Bool = false) -> [UInt8] {
    guard index >= 0, index < lineCount else { return [] }
    return utf8Bytes(in: utf8Range(ofLine: index, keepingCarriageReturn: keepingCarriageReturn))
  }

  /// The text of line `index` without its line ending.
  ///
  /// - Precondition: `0 <= index < lineCount`; out of range gives "".
  public func line(at index: Int) -> String {
    guard index >= 0, index < lineCount else { return "" }
    return string(inUTF8Range: utf8Range(ofLine: index))
  }

  /// The text of the lines in `range`, each without its line ending.
  public func lines(in range: Range<Int>) -> [String] {
    let clamped = range.clamped(to: 0..<lineCount)
    guard !clamped.isEmpty else { return [] }
    let block = string(inUTF8Range: utf8Offset(ofLine: clamped.lowerBound)..<utf8Offset(ofLine: clamped.upperBound))
    var result: [String] = []
    result.reserveCapacity(clamped.count)
    var rest = Substring(block)
    while !rest.isEmpty {
      if let newline = rest.utf8.firstIndex(of: 0x0A) {
        var line = rest[..<newline]
        if line.utf8.last == 0x0D { line = line.dropLast() }
        result.append(String(line))
        rest = rest[rest.utf8.index(after: newline)...]
      } else {
        result.append(String(rest))
        rest = ""
      }
    }
    return result
  }

  /// The byte at UTF-8 offset `offset`.
  public func byte(at offset: Int) -> UInt8? {
    guard offset >= 0, offset < utf8Count else { return nil }
    let (index, inner) = locate(offset)
    return chunks[index].withBytes { $0[inner] }
  }

  /// The UTF-8 offset of the first byte equal to `byte` (a NUL, say: GNU ed's test for a
  /// binary buffer), or `nil` when the text has none. Searched chunk by chunk with `memchr`,
  /// never joining the text; the pages of a large file's scratch copy are let go as it goes.
  public func firstUTF8Offset(of byte: UInt8) -> Int? {
    var start = 0
    for chunk in chunks {
      let found: Int? = chunk.withBytes { bytes in
        guard let base = bytes.baseAddress, !bytes.isEmpty, let hit = memchr(base, Int32(byte), bytes.count) else { return nil }
        return UnsafeRawPointer(base).distance(to: UnsafeRawPointer(hit))
      }
      scratch?.noteRead(chunk.count)
      if let found { return start + found }
      start += chunk.count
    }
    return nil
  }

  /// The bytes in `range` (clamped to the text).
  public func utf8Bytes(in range: Range<Int>) -> [UInt8] {
    let clamped = range.clamped(to: 0..<utf8Count)
    guard !clamped.isEmpty else { return [] }
    var result = [UInt8]()
    result.reserveCapacity(clamped.count)
    let (first, firstStart) = index.chunk(containingByte: clamped.lowerBound)
    var start = firstStart
    for chunk in chunks[first...] {
      let end = start + chunk.count
      if end > clamped.lowerBound, start < clamped.upperBound {
        let lower = max(clamped.lowerBound, start) - start
        let upper = min(clamped.upperBound, end) - start
        chunk.withBytes { result.append(contentsOf: UnsafeBufferPointer(rebasing: $0[lower..<upper])) }
      }
      if end >= clamped.upperBound { break }
      start = end
    }
    return result
  }

  /// The text in a UTF-8 range (clamped; a cut scalar is repaired with U+FFFD).
  public func string(inUTF8Range range: Range<Int>) -> String {
    String(decoding: utf8Bytes(in: range), as: UTF8.self)
  }

  /// The chunk holding `offset` and the offset inside it; `utf8Count` maps to the end of the
  /// last chunk.
  private func locate(_ offset: Int) -> (Int, Int) {
    if offset < utf8Count {
      let (chunk, start) = index.chunk(containingByte: offset)
      return (chunk, offset - start)
    }
    return (chunks.count - 1, chunks.last?.count ?? 0)
  }

  private func isScalarBoundary(_ offset: Int) -> Bool {
    guard let byte = byte(at: offset) else { return offset == utf8Count || offset == 0 }
    return byte & 0xC0 != 0x80
  }

  // MARK: Editing

  /// Replaces the UTF-8 range `range` with `replacement` and returns the text it replaced.
  ///
  /// - Throws: ``QuireError/Code/invalidArgument`` when the range is outside the text or cuts
  ///   a character's UTF-8 sequence.
  @discardableResult
  public mutating func replace(utf8Range range: Range<Int>, with replacement: String) throws(QuireError) -> String {
    guard range.lowerBound >= 0, range.upperBound <= utf8Count else {
      throw QuireError(.invalidArgument, "The range \(range) is outside the text (0..<\(utf8Count)).")
    }
    guard isScalarBoundary(range.lowerBound), isScalarBoundary(range.upperBound) else {
      throw QuireError(.invalidArgument, "The range \(range) cuts a character in the middle of its UTF-8 bytes.")
    }
    let removed = range.isEmpty ? "" : string(inUTF8Range: range)
    var copy = replacement
    copy.withUTF8 { replaceBytes(range, with: UnsafeRawBufferPointer($0)) }
    return removed
  }

  /// Replaces the bytes in `range` with `replacement`, exactly, and returns the bytes it
  /// replaced. Unlike ``replace(utf8Range:with:)`` it does not require the range to fall
  /// between characters: for text held byte for byte (``init(bytes:)-(Data)``).
  ///
  /// - Throws: ``QuireError/Code/invalidArgument`` when the range is outside the text.
  @discardableResult
  public mutating func replace(utf8Range range: Range<Int>, withBytes replacement: some Collection<UInt8>) throws(QuireError) -> [UInt8] {
    guard range.lowerBound >= 0, range.upperBound <= utf8Count else {
      throw QuireError(.invalidArgument, "The range \(range) is outside the text (0..<\(utf8Count)).")
    }
    let removed = range.isEmpty ? [] : utf8Bytes(in: range)
    let done: Void? = replacement.withContiguousStorageIfAvailable { replaceBytes(range, with: UnsafeRawBufferPointer($0)) }
    if done == nil {
      let copy = Array(replacement)
      copy.withUnsafeBytes { replaceBytes(range, with: $0) }
    }
    return removed
  }

  private mutating func replaceBytes(_ range: Range<Int>, with new: UnsafeRawBufferPointer) {
    if range.isEmpty && new.isEmpty { return }
    if chunks.isEmpty {
      self.chunks = TextStorage(trustedUTF8: new).chunks
      recount()
      index = ChunkIndex(chunks)
      return
    }
    let (first, firstOffset) = locate(range.lowerBound)
    var (last, lastOffset) = (first, firstOffset)
    if !range.isEmpty {
      // The chunk where the range ends: the first whose end reaches upperBound.
      var start = range.lowerBound - firstOffset
      last = first
      while last < chunks.count - 1, start + chunks[last].count < range.upperBound {
        start += chunks[last].count
        last += 1
      }
      lastOffset = range.upperBound - start
    }
    var combined = [UInt8]()
    combined.reserveCapacity(firstOffset + new.count + chunks[last].count - lastOffset)
    chunks[first].withBytes { combined.append(contentsOf: UnsafeBufferPointer(rebasing: $0[..<firstOffset])) }
    combined.append(contentsOf: new.assumingMemoryBound(to: UInt8.self))
    chunks[last].withBytes { combined.append(contentsOf: UnsafeBufferPointer(rebasing: $0[lastOffset...])) }

    var replacement: [Chunk] = []
    if combined.count <= Self.maximumChunk {
      if !combined.isEmpty {
        replacement = combined.withUnsafeBufferPointer { [Chunk(copying: $0)] }
      }
    } else {
      replacement = combined.withUnsafeBytes { TextStorage(trustedUTF8: $0).chunks }
    }
    let removedNewlines = chunks[first...last].reduce(0) { $0 + $1.newlines }
    let removedBytes = chunks[first...last].reduce(0) { $0 + $1.count }
    let sameShape = replacement.count == last - first + 1
    if sameShape {
      // The usual edit: one chunk rewritten in place; update its sums in O(log chunks).
      for (offset, chunk) in replacement.enumerated() {
        let old = chunks[first + offset]
        index.add(at: first + offset, bytes: chunk.count - old.count, newlines: chunk.newlines - old.newlines)
      }
    }
    chunks.replaceSubrange(first...last, with: replacement)
    if !sameShape { index = ChunkIndex(chunks) }
    newlineCount += replacement.reduce(0) { $0 + $1.newlines } - removedNewlines
    utf8Count += replacement.reduce(0) { $0 + $1.count } - removedBytes
  }

  private mutating func recount() {
    utf8Count = chunks.reduce(0) { $0 + $1.count }
    newlineCount = chunks.reduce(0) { $0 + $1.newlines }
  }

  /// The UTF-8 edit that replaces the lines in `range` with `lines`: the range to replace and
  /// the text to put there. Lines get ``lineEnding``; a text without a final newline keeps
  /// none.
  ///
  /// - Throws: ``QuireError/Code/invalidArgument`` when `range` is outside `0...lineCount`.
  public func edit(replacingLines range: Range<Int>, with lines: [String]) throws(QuireError) -> (Range<Int>, String) {
    let count = lineCount
    guard range.lowerBound >= 0, range.upperBound <= count else {
      throw QuireError(.invalidArgument, "Lines \(range.lowerBound + 1)–\(range.upperBound) are outside the text, which has \(count) lines.")
    }
    let ending = lineEnding.rawValue
    let start = utf8Offset(ofLine: range.lowerBound)
    let end = range.upperBound < count ? utf8Offset(ofLine: range.upperBound) : utf8Count
    var text = lines.map { $0 + ending }.joined()
    if count > 0, !endsWithNewline, range.upperBound == count, !lines.isEmpty {
      if range.isEmpty {
        // Appending after a last line that has no newline: end it, and leave the new last
        // line without one, as the file had.
        text = ending + lines.joined(separator: ending)
      } else {
        text.removeLast()  // "\r\n" is one Character, so this drops either ending whole
      }
    }
    return (start..<end, text)
  }

  /// The byte edit that replaces the lines in `range` with `lines`, each given as its bytes
  /// without an ending: the range to replace and the bytes to put there. Lines get
  /// ``lineEnding``; a text without a final newline keeps none.
  ///
  /// - Throws: ``QuireError/Code/invalidArgument`` when `range` is outside `0...lineCount`.
  public func edit(replacingLines range: Range<Int>, withBytes lines: [[UInt8]]) throws(QuireError) -> (Range<Int>, [UInt8]) {
    let count = lineCount
    guard range.lowerBound >= 0, range.upperBound <= count else {
      throw QuireError(.invalidArgument, "Lines \(range.lowerBound + 1)–\(range.upperBound) are outside the text, which has \(count) lines.")
    }
    let ending = Array(lineEnding.rawValue.utf8)
    let start = utf8Offset(ofLine: range.lowerBound)
    let end = range.upperBound < count ? utf8Offset(ofLine: range.upperBound) : utf8Count
    var bytes: [UInt8] = []
    bytes.reserveCapacity(lines.reduce(0) { $0 + $1.count + ending.count })
    let leavesLastOpen = count > 0 && !endsWithNewline && range.upperBound == count && !lines.isEmpty
    if leavesLastOpen && range.isEmpty {
      // Appending after a last line that has no newline: end it, and leave the new last line
      // without one, as the file had.
      for line in lines {
        bytes.append(contentsOf: ending)
        bytes.append(contentsOf: line)
      }
      return (start..<end, bytes)
    }
    for line in lines {
      bytes.append(contentsOf: line)
      bytes.append(contentsOf: ending)
    }
    if leavesLastOpen { bytes.removeLast(ending.count) }
    return (start..<end, bytes)
  }

  /// Replaces the lines in `range` with `lines` given as bytes (see
  /// ``edit(replacingLines:withBytes:)``), exactly.
  public mutating func replaceLines(in range: Range<Int>, withBytes lines: [[UInt8]]) throws(QuireError) {
    let (bytes, new) = try edit(replacingLines: range, withBytes: lines)
    try replace(utf8Range: bytes, withBytes: new)
  }

  /// Adds a `\n` after a last line that has none (GNU ed's "newline appended" when it reads
  /// such a file) and returns whether it did.
  @discardableResult
  public mutating func appendMissingFinalNewline() -> Bool {
    guard !endsWithNewline else { return false }
    let newline: [UInt8] = [0x0A]
    newline.withUnsafeBytes { replaceBytes(utf8Count..<utf8Count, with: $0) }
    return true
  }

  /// Replaces the lines in `range` with `lines` and returns the lines it replaced.
  @discardableResult
  public mutating func replaceLines(in range: Range<Int>, with lines: [String]) throws(QuireError) -> [String] {
    let old = self.lines(in: range)
    let (bytes, text) = try edit(replacingLines: range, with: lines)
    try replace(utf8Range: bytes, with: text)
    return old
  }

  // MARK: Many lines at once

  /// Calls `body` with each line in `range` (numbered from 0) and its bytes without the `\n`
  /// (and without a `\r` before it unless `keepingCarriageReturn`), in order, without copying
  /// them: the pointer is valid only during the call. A pass over the whole text costs one
  /// lookup, then a step per line (reading them one by one with ``lineBytes(at:keepingCarriageReturn:)``
  /// costs a lookup and an array per line).
  public func forEachLine(
    in range: Range<Int>, keepingCarriageReturn: Bool = false, _ body: (Int, UnsafeBufferPointer<UInt8>) throws -> Void
  ) rethrows {
    let lines = range.clamped(to: 0..<lineCount)
    guard !lines.isEmpty else { return }
    var line = lines.lowerBound
    var (chunkIndex, chunkStart) = index.chunk(containingByte: utf8Offset(ofLine: line))
    var inner = utf8Offset(ofLine: line) - chunkStart
    // A line that runs over the end of a chunk is gathered here.
    var carry: [UInt8] = []
    func emit(_ bytes: UnsafeBufferPointer<UInt8>) throws {
      var end = bytes.count
      if !keepingCarriageReturn, end > 0, bytes[end - 1] == 0x0D { end -= 1 }
      try body(line, UnsafeBufferPointer(rebasing: bytes[..<end]))
    }
    while line < lines.upperBound, chunkIndex < chunks.count {
      let chunk = chunks[chunkIndex]
      var next = chunk.newlineOffsets.partitioningIndex { Int($0) >= inner }
      try chunk.withBytes { bytes in
        while line < lines.upperBound {
          guard next < chunk.newlines else {
            carry.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[inner...]))
            return
          }
          let end = Int(chunk.newlineOffsets[next])
          if carry.isEmpty {
            try emit(UnsafeBufferPointer(rebasing: bytes[inner..<end]))
          } else {
            carry.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[inner..<end]))
            try carry.withUnsafeBufferPointer { try emit($0) }
            carry.removeAll(keepingCapacity: true)
          }
          line += 1
          inner = end + 1
          next += 1
        }
      }
      scratch?.noteRead(chunk.count)
      chunkIndex += 1
      inner = 0
    }
    // The last line, without a newline.
    if line < lines.upperBound, !carry.isEmpty { try carry.withUnsafeBufferPointer { try emit($0) } }
  }

  /// Rebuilds the text in one pass from many line edits (a `g` or `,s` command of an editor):
  /// `body` gets a ``LineEditor`` and gives it the edits in ascending order, with line numbers
  /// of the text as it was before. Unchanged runs of the text are shared, not copied, and the
  /// new bytes are packed into new chunks as they come, so the whole edit costs one pass
  /// however many lines change (one ``replaceLines(in:withBytes:)`` per line would cost a
  /// lookup and a chunk rewrite each).
  ///
  /// - Throws: What `body` throws (then the text is unchanged), or the editor's
  ///   ``QuireError/Code/invalidArgument`` for an edit out of order or outside the text.
  public mutating func editLines(_ body: (inout LineEditor) throws -> Void) rethrows {
    try editLines(requiringUTF8Text: false, body)
  }

  /// ``editLines(_:)``, where with `requiringUTF8Text` every line an edit puts in must be
  /// UTF-8 text without NUL bytes (``PlainTextDocument/requiresUTF8Text``).
  mutating func editLines(requiringUTF8Text: Bool, _ body: (inout LineEditor) throws -> Void) rethrows {
    var editor = LineEditor(source: self, requiresUTF8Text: requiringUTF8Text)
    try body(&editor)
    self = editor.finish()
  }

  /// Takes line edits in ascending order and builds the edited text (see
  /// ``TextStorage/editLines(_:)``).
  public struct LineEditor {
    private let source: TextStorage
    private var chunks: [Chunk] = []
    /// New bytes (and short unchanged runs) not yet packed into a chunk.
    private var pending: [UInt8] = []
    /// The source's bytes before this offset are done.
    private var consumed = 0
    /// The first line an edit may touch (edits come in ascending order).
    private var nextLine = 0
    /// Unchanged runs at least this long are shared with the source; shorter ones are copied
    /// into the new chunks, so that many edits do not leave many tiny chunks.
    private static let shareThreshold = 4096

    /// Whether new chunks go to scratch files (see `ScratchCopy`): for a text that came from
    /// one, so that a large edit's new bytes are not held in memory either.
    private let spills: Bool
    /// New chunks' bytes gathered to be spilled together, and where their chunks go.
    private var segment: [UInt8] = []
    private var segmentChunks: [(index: Int, range: Range<Int>, newlineOffsets: [UInt16])] = []
    private static let segmentSize = 4 << 20

    /// Whether new lines must be UTF-8 text (see ``TextStorage/editLines(requiringUTF8Text:_:)``).
    private let requiresUTF8Text: Bool

    init(source: TextStorage, requiresUTF8Text: Bool = false) {
      self.source = source
      self.requiresUTF8Text = requiresUTF8Text
      spills = source.scratch != nil
      chunks.reserveCapacity(source.chunks.count)
    }

    /// The number of lines of the text being edited (before the edits).
    public var sourceLineCount: Int { source.lineCount }

    /// Replaces the lines in `range` (numbered as in the text before any edit) with `lines`,
    /// each given as its bytes without an ending, as ``TextStorage/replaceLines(in:withBytes:)``
    /// does. `range` must start at or after the end of the previous edit.
    ///
    /// - Throws: ``QuireError/Code/invalidArgument`` when `range` is outside the text or
    ///   comes before an earlier edit.
    public mutating func replaceLines(in range: Range<Int>, withBytes lines: [[UInt8]]) throws(QuireError) {
      guard range.lowerBound >= nextLine else {
        throw QuireError(
          .invalidArgument, "Line edits must come in ascending order: line \(range.lowerBound + 1) comes before line \(nextLine + 1), already edited.")
      }
      let (bytes, new) = try source.edit(replacingLines: range, withBytes: lines)
      if requiresUTF8Text { try TextEncoding.checkNewUTF8Text(new) }
      guard bytes.lowerBound >= consumed else {
        throw QuireError(.invalidArgument, "Line edits must come in ascending order: line \(range.lowerBound + 1) overlaps an earlier edit.")
      }
      copySource(upTo: bytes.lowerBound)
      pending.append(contentsOf: new)
      packPending(all: false)
      consumed = bytes.upperBound
      nextLine = range.upperBound
    }

    /// Replaces line `index` with one line given as its bytes without an ending.
    public mutating func replaceLine(_ index: Int, withBytes line: [UInt8]) throws(QuireError) {
      try replaceLines(in: index..<(index + 1), withBytes: [line])
    }

    /// Deletes the lines in `range`.
    public mutating func deleteLines(in range: Range<Int>) throws(QuireError) {
      try replaceLines(in: range, withBytes: [])
    }

    /// Copies (or shares) the source's bytes from ``consumed`` up to `end`.
    private mutating func copySource(upTo end: Int) {
      guard end > consumed else { return }
      var (chunkIndex, chunkStart) = source.index.chunk(containingByte: consumed)
      var position = consumed
      while position < end, chunkIndex < source.chunks.count {
        let chunk = source.chunks[chunkIndex]
        let lower = position - chunkStart
        let upper = min(chunk.count, end - chunkStart)
        if upper - lower >= Self.shareThreshold {
          packPending(all: true)
          chunks.append(chunk.slice(lower, upper))
        } else if upper > lower {
          chunk.withBytes { pending.append(contentsOf: UnsafeBufferPointer(rebasing: $0[lower..<upper])) }
          packPending(all: false)
        }
        position = chunkStart + upper
        chunkStart += chunk.count
        chunkIndex += 1
      }
      consumed = end
    }

    /// Packs ``pending`` into chunks: those full enough, or all of it.
    private mutating func packPending(all: Bool) {
      guard pending.count >= (all ? 1 : TextStorage.targetChunk + 4096) else { return }
      var start = 0
      pending.withUnsafeBytes { bytes in
        while bytes.count - start > (all ? 0 : TextStorage.targetChunk) {
          let end = bytes.count - start <= TextStorage.targetChunk ? bytes.count : TextStorage.cut(bytes, from: start)
          appendNew(UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
          start = end
        }
      }
      pending.removeSubrange(0..<start)
    }

    /// Appends a chunk of new bytes: in memory, or (``spills``) gathered into a segment that
    /// goes to a scratch file when it is full.
    private mutating func appendNew(_ bytes: UnsafeRawBufferPointer) {
      guard spills else {
        chunks.append(Chunk(copying: bytes.assumingMemoryBound(to: UInt8.self)))
        return
      }
      let start = segment.count
      segment.append(contentsOf: bytes)
      segmentChunks.append((chunks.count, start..<segment.count, TextStorage.newlineOffsets(in: bytes)))
      chunks.append(Chunk(sharing: Data(), range: 0..<0, newlineOffsets: []))  // filled in by spillSegment
      if segment.count >= Self.segmentSize { spillSegment() }
    }

    /// Writes the gathered segment to a scratch file (or keeps it in memory when that fails)
    /// and puts its chunks in place.
    private mutating func spillSegment() {
      guard !segmentChunks.isEmpty else { return }
      let data = segment.withUnsafeBytes { ScratchCopy.spill($0) } ?? Data(segment)
      for (index, range, offsets) in segmentChunks {
        chunks[index] = Chunk(sharing: data, range: range, newlineOffsets: offsets)
      }
      segment.removeAll(keepingCapacity: true)
      segmentChunks.removeAll(keepingCapacity: true)
    }

    /// The edited text.
    fileprivate mutating func finish() -> TextStorage {
      copySource(upTo: source.utf8Count)
      packPending(all: true)
      spillSegment()
      var result = TextStorage(chunks: chunks, lineEnding: source.lineEnding)
      result.scratch = source.scratch
      return result
    }
  }

  /// A text made of `chunks`.
  private init(chunks: [Chunk], lineEnding: LineEnding) {
    self.chunks = chunks
    self.lineEnding = lineEnding
    recount()
    index = ChunkIndex(chunks)
  }

  /// Where the chunk that starts at `start` in `bytes` (which runs on past a chunk) ends:
  /// just after a newline within its last 4 KiB, else at a UTF-8 scalar boundary.
  static func cut(_ bytes: UnsafeRawBufferPointer, from start: Int) -> Int {
    var end = min(start + targetChunk, bytes.count)
    guard end < bytes.count else { return end }
    var cut = end
    while cut > end - 4096, cut > start, bytes[cut - 1] != 0x0A { cut -= 1 }
    if cut > start, bytes[cut - 1] == 0x0A { return cut }
    while end > start + 1, bytes[end] & 0xC0 == 0x80 { end -= 1 }
    return end
  }

  public static func == (lhs: TextStorage, rhs: TextStorage) -> Bool {
    guard lhs.utf8Count == rhs.utf8Count else { return false }
    return lhs.utf8Bytes() == rhs.utf8Bytes()
  }

  /// The storage as a small tree, for tests and `--verbose`.
  public var debugDescription: String {
    """
    TextStorage
    ├─ bytes: \(utf8Count)
    ├─ lines: \(lineCount) (\(lineEnding == .lf ? "LF" : "CRLF"))
    └─ chunks: \(chunks.count)
    """
  }
}

/// A fast UTF-8 check with an ASCII fast path, also refusing NUL bytes.
enum UTF8Check {
  enum Problem: Equatable {
    case invalid(Int)
    case nul(Int)
  }

  static func firstProblem(in bytes: UnsafeRawBufferPointer) -> Problem? {
    let count = bytes.count
    guard let base = bytes.baseAddress else { return nil }
    var i = 0
    while i < count {
      // Eight ASCII bytes at a time, none of them NUL.
      if i + 8 <= count {
        let word = base.loadUnaligned(fromByteOffset: i, as: UInt64.self)
        let hasZero = (word &- 0x0101_0101_0101_0101) & ~word & 0x8080_8080_8080_8080
        if word & 0x8080_8080_8080_8080 == 0 && hasZero == 0 {
          i += 8
          continue
        }
      }
      let b0 = bytes[i]
      if b0 == 0 { return .nul(i) }
      if b0 < 0x80 {
        i += 1
        continue
      }
      let length: Int
      var lower: UInt8 = 0x80
      var upper: UInt8 = 0xBF
      switch b0 {
      case 0xC2...0xDF: length = 2
      case 0xE0:
        length = 3
        lower = 0xA0
      case 0xE1...0xEC, 0xEE...0xEF: length = 3
      case 0xED:
        length = 3
        upper = 0x9F
      case 0xF0:
        length = 4
        lower = 0x90
      case 0xF1...0xF3: length = 4
      case 0xF4:
        length = 4
        upper = 0x8F
      default: return .invalid(i)
      }
      guard i + length <= count else { return .invalid(i) }
      let b1 = bytes[i + 1]
      guard b1 >= lower, b1 <= upper else { return .invalid(i) }
      for k in 2..<max(2, length) where bytes[i + k] & 0xC0 != 0x80 { return .invalid(i) }
      i += length
    }
    return nil
  }
}

/// Prefix sums of the chunks' byte and newline counts, as two Fenwick trees: a chunk's counts
/// change in O(log n), and the chunk holding a byte offset or the *n*-th newline is found in
/// O(log n). Rebuilt (O(n)) only when chunks are added or removed.
struct ChunkIndex: Sendable {
  /// 1-based Fenwick trees.
  private var bytes: [Int]
  private var newlines: [Int]
  private var highestStep = 1

  init(_ chunks: [TextStorage.Chunk]) {
    let count = chunks.count
    bytes = [0] + chunks.map(\.count)
    newlines = [0] + chunks.map(\.newlines)
    if count > 0 {
      for i in 1...count {
        let parent = i + (i & -i)
        if parent <= count {
          bytes[parent] += bytes[i]
          newlines[parent] += newlines[i]
        }
      }
    }
    while highestStep * 2 <= count { highestStep *= 2 }
  }

  private var count: Int { bytes.count - 1 }

  mutating func add(at chunk: Int, bytes byteDelta: Int, newlines newlineDelta: Int) {
    guard byteDelta != 0 || newlineDelta != 0 else { return }
    var i = chunk + 1
    while i <= count {
      bytes[i] += byteDelta
      newlines[i] += newlineDelta
      i += i & -i
    }
  }

  /// The newlines in the chunks before `chunk`.
  func newlines(before chunk: Int) -> Int { Self.sum(of: newlines, before: chunk) }

  /// The bytes in the chunks before `chunk`.
  func bytes(before chunk: Int) -> Int { Self.sum(of: bytes, before: chunk) }

  /// The sum of the counts of the chunks before `chunk`, read from the tree `tree`.
  @inline(__always)
  private static func sum(of tree: [Int], before chunk: Int) -> Int {
    var sum = 0
    var i = chunk
    while i > 0 {
      sum += tree[i]
      i -= i & -i
    }
    return sum
  }

  /// The chunk holding byte `offset` (which must be inside the text) and that chunk's first
  /// byte's offset.
  func chunk(containingByte offset: Int) -> (Int, Int) {
    // The largest prefix of whole chunks whose bytes are <= offset.
    var position = 0
    var sum = 0
    var step = highestStep
    while step > 0 {
      let next = position + step
      if next <= count, sum + bytes[next] <= offset {
        position = next
        sum += bytes[next]
      }
      step /= 2
    }
    return (min(position, max(count - 1, 0)), sum)
  }

  /// The chunk holding the `n`-th newline (1-based), with the newlines and bytes before it;
  /// the chunk count when there are fewer newlines.
  func chunk(holdingNewline n: Int) -> (Int, Int, Int) {
    var position = 0
    var seen = 0
    var step = highestStep
    while step > 0 {
      let next = position + step
      if next <= count, seen + newlines[next] < n {
        position = next
        seen += newlines[next]
      }
      step /= 2
    }
    return (position, seen, bytes(before: position))
  }
}

extension Array where Element == UInt16 {
  /// The first index whose element satisfies `belongs` (which must be false, then true, along
  /// the array), by binary search; `count` when none does.
  fileprivate func partitioningIndex(where belongs: (UInt16) -> Bool) -> Int {
    var low = 0
    var high = count
    while low < high {
      let middle = (low + high) / 2
      if belongs(self[middle]) { high = middle } else { low = middle + 1 }
    }
    return low
  }
}
