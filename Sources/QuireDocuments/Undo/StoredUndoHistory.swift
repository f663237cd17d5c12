import QuireCore

/// A document's undo history as stored: its steps, the state they end at (the text the
/// document last saved), and which file it belongs to.
///
/// **Format** (version 1, binary, little-endian; `varint` is LEB128):
/// ```
/// "QUIRUNDO"  u32 version
/// varint path length, path          the file's path when stored
/// u64 device, u64 inode             the file's identity when stored (follows a rename)
/// 64 bytes                          SHA-256 (hex) of the end state
/// u8 has state, [varint length, state]
/// varint undo count, steps          newest first
/// varint redo count, steps          next redo first
/// 64 bytes                          SHA-256 (hex) of everything before
/// step:   varint name length, name, varint record count, records
/// record: u8 kind length, kind, varint payload length, payload
/// ```
/// The trailing digest finds a truncated or damaged file; the end state's digest tells
/// whether the file on disk is still the text the history ends at.
public struct StoredUndoHistory: Sendable, Hashable {
  /// The format written; a file with a larger number is from a newer Quire.
  public static let formatVersion: UInt32 = 1
  static let magic = Array("QUIRUNDO".utf8)

  /// The file's path when the history was stored.
  public var path: String
  /// The file's device and inode when the history was stored.
  public var device: UInt64
  public var inode: UInt64
  /// The SHA-256 (lowercase hex) of the state the history ends at.
  public var endDigest: String
  /// That state (a text document's UTF-8 text), when it was small enough to keep: what an
  /// outside change is measured against. `nil` when only its digest was kept.
  public var endState: [UInt8]?
  /// The undo steps, newest first.
  public var undo: StoredUndoSteps
  /// The redo steps, the next redo first.
  public var redo: StoredUndoSteps

  /// A history of `undo` and `redo` steps ending at `endState` (kept when `keepsState`).
  public init(path: String, device: UInt64 = 0, inode: UInt64 = 0, endState: [UInt8], keepsState: Bool = true, undo: [StoredUndoStep], redo: [StoredUndoStep]) {
    self.path = path
    self.device = device
    self.inode = inode
    self.endDigest = Self.digest(endState)
    self.endState = keepsState ? endState : nil
    self.undo = StoredUndoSteps(undo)
    self.redo = StoredUndoSteps(redo)
  }

  /// The SHA-256 (lowercase hex) of `bytes`.
  public static func digest(_ bytes: [UInt8]) -> String {
    let digest = ContentDigest()
    bytes.withUnsafeBytes { digest.update($0) }
    return digest.finalize()
  }

  // MARK: Writing

  /// The history in the stored format.
  public func encoded() -> [UInt8] {
    var out = HistoryWriter()
    out.bytes.reserveCapacity(64 + (endState?.count ?? 0) + (undo.count + redo.count) * 48)
    out.bytes += Self.magic
    out.u32(Self.formatVersion)
    out.data(Array(path.utf8))
    out.u64(device)
    out.u64(inode)
    out.bytes += Array(endDigest.utf8.prefix(64)) + [UInt8](repeating: 0x30, count: max(0, 64 - endDigest.utf8.count))
    if let endState {
      out.bytes.append(1)
      out.data(endState)
    } else {
      out.bytes.append(0)
    }
    for steps in [undo, redo] {
      out.varint(steps.count)
      steps.encode(into: &out.bytes)
    }
    let digest = Array(Self.digest(out.bytes).utf8)
    out.bytes += digest
    return out.bytes
  }

  /// The size `step` takes in the stored format.
  static func encodedSize(of step: StoredUndoStep) -> Int {
    var out = HistoryWriter()
    out.step(step)
    return out.bytes.count
  }

  // MARK: Reading

  /// Why a stored history cannot be used.
  public enum Problem: Error, Sendable, Hashable, CustomStringConvertible {
    /// It is not a history file (another format, random bytes).
    case notAHistory
    /// It is written in a newer format (the version found).
    case newerFormat(UInt32)
    /// It ends early, or its digest does not match its bytes.
    case damaged
    /// Its end state does not match the digest stored with it.
    case digestMismatch

    public var description: String {
      switch self {
      case .notAHistory: "it is not an undo history"
      case .newerFormat(let version): "it was written by a newer Quire (format \(version))"
      case .damaged: "it is damaged or truncated"
      case .digestMismatch: "its text does not match its digest"
      }
    }
  }

  /// Reads only the file's identity (path, device, inode) from the start of `bytes`, without
  /// checking the rest: to find the history of a renamed file.
  static func identity(in bytes: [UInt8]) -> (path: String, device: UInt64, inode: UInt64)? {
    var reader = HistoryReader(bytes: bytes[...])
    guard (try? reader.header()) != nil, let path = try? reader.data(), let device = try? reader.u64(), let inode = try? reader.u64() else {
      return nil
    }
    return (String(decoding: path, as: UTF8.self), device, inode)
  }

  /// Reads a history in the stored format, checking its digest first.
  ///
  /// - Throws: ``Problem`` saying why it cannot be used.
  public static func decode(_ bytes: [UInt8]) throws(Problem) -> StoredUndoHistory {
    var reader = HistoryReader(bytes: bytes[...])
    try reader.header()
    guard bytes.count >= magic.count + 4 + 64 else { throw .damaged }
    let body = bytes[..<(bytes.count - 64)]
    let expected = bytes[(bytes.count - 64)...]
    let digest = ContentDigest()
    body.withUnsafeBytes { digest.update($0) }
    guard Array(digest.finalize().utf8) == Array(expected) else { throw .damaged }
    reader = HistoryReader(bytes: body)
    try reader.header()
    let path = String(decoding: try reader.data(), as: UTF8.self)
    let device = try reader.u64()
    let inode = try reader.u64()
    let endDigest = String(decoding: try reader.take(64), as: UTF8.self)
    let hasState = try reader.byte()
    guard hasState <= 1 else { throw .damaged }
    var endState: [UInt8]?
    if hasState == 1 { endState = Array(try reader.data()) }
    // The trailing digest vouches for the bytes; this check finds a writer that stored a
    // state with another state's digest.
    if let endState, Self.digest(endState) != endDigest { throw .digestMismatch }
    // The steps stay in `bytes`: each is checked here and read when first needed.
    var lists: [StoredUndoSteps] = []
    for _ in 0..<2 {
      let count = try reader.varint()
      guard count <= reader.remaining else { throw .damaged }
      var offsets: [Int] = []
      offsets.reserveCapacity(count + 1)
      for _ in 0..<count {
        offsets.append(reader.position)
        try reader.skipStep()
      }
      offsets.append(reader.position)
      lists.append(StoredUndoSteps(encoded: bytes, offsets: offsets))
    }
    guard reader.remaining == 0 else { throw .damaged }
    var history = StoredUndoHistory(path: path, device: device, inode: inode, endState: [], undo: [], redo: [])
    history.endDigest = endDigest
    history.endState = endState
    history.undo = lists[0]
    history.redo = lists[1]
    return history
  }
}

/// Appends the stored format's pieces.
struct HistoryWriter {
  var bytes: [UInt8] = []

  mutating func varint(_ value: Int) {
    var value = UInt64(max(0, value))
    while value >= 0x80 {
      bytes.append(UInt8(value & 0x7F) | 0x80)
      value >>= 7
    }
    bytes.append(UInt8(value))
  }

  mutating func u32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
  mutating func u64(_ value: UInt64) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }

  mutating func data(_ data: [UInt8]) {
    varint(data.count)
    bytes += data
  }

  mutating func step(_ step: StoredUndoStep) {
    data(Array(step.actionName.utf8))
    varint(step.records.count)
    for record in step.records {
      let kind = Array(record.kind.utf8.prefix(255))
      bytes.append(UInt8(kind.count))
      bytes += kind
      data(record.payload)
    }
  }
}

/// Reads the stored format's pieces, every length checked against what is left.
struct HistoryReader {
  var bytes: ArraySlice<UInt8>
  var position: Int

  init(bytes: ArraySlice<UInt8>) {
    self.bytes = bytes
    position = bytes.startIndex
  }

  var remaining: Int { bytes.endIndex - position }

  mutating func take(_ count: Int) throws(StoredUndoHistory.Problem) -> ArraySlice<UInt8> {
    guard count >= 0, count <= remaining else { throw .damaged }
    defer { position += count }
    return bytes[position..<(position + count)]
  }

  mutating func byte() throws(StoredUndoHistory.Problem) -> UInt8 {
    guard position < bytes.endIndex else { throw .damaged }
    defer { position += 1 }
    return bytes[position]
  }

  mutating func header() throws(StoredUndoHistory.Problem) {
    guard remaining >= StoredUndoHistory.magic.count + 4, bytes[position..<(position + 8)].elementsEqual(StoredUndoHistory.magic) else {
      throw .notAHistory
    }
    position += 8
    let version = try u32()
    guard version <= StoredUndoHistory.formatVersion else { throw .newerFormat(version) }
    guard version >= 1 else { throw .notAHistory }
  }

  mutating func varint() throws(StoredUndoHistory.Problem) -> Int {
    var value: UInt64 = 0
    var shift: UInt64 = 0
    while true {
      guard position < bytes.endIndex, shift < 63 else { throw .damaged }
      let byte = bytes[position]
      position += 1
      value |= UInt64(byte & 0x7F) << shift
      if byte & 0x80 == 0 { break }
      shift += 7
    }
    guard value <= UInt64(Int32.max) else { throw .damaged }
    return Int(value)
  }

  mutating func u32() throws(StoredUndoHistory.Problem) -> UInt32 {
    var value: UInt32 = 0
    for (i, byte) in try take(4).enumerated() { value |= UInt32(byte) << (8 * UInt32(i)) }
    return value
  }

  mutating func u64() throws(StoredUndoHistory.Problem) -> UInt64 {
    var value: UInt64 = 0
    for (i, byte) in try take(8).enumerated() { value |= UInt64(byte) << (8 * UInt64(i)) }
    return value
  }

  mutating func data() throws(StoredUndoHistory.Problem) -> ArraySlice<UInt8> { try take(try varint()) }

  /// Checks the step at the reading position and moves past it, making nothing.
  mutating func skipStep() throws(StoredUndoHistory.Problem) {
    _ = try data()
    let count = try varint()
    guard count <= remaining else { throw .damaged }
    for _ in 0..<count {
      _ = try take(Int(try byte()))
      _ = try data()
    }
  }

  mutating func step() throws(StoredUndoHistory.Problem) -> StoredUndoStep {
    let name = String(decoding: try data(), as: UTF8.self)
    let count = try varint()
    guard count <= remaining else { throw .damaged }
    var records: [UndoRecord] = []
    records.reserveCapacity(count)
    for _ in 0..<count {
      let kindLength = Int(try byte())
      let kind = String(decoding: try take(kindLength), as: UTF8.self)
      records.append(UndoRecord(kind: kind, payload: Array(try data())))
    }
    return StoredUndoStep(actionName: name, records: records)
  }
}

/// The steps of a stored history (``StoredUndoHistory/undo``, ``StoredUndoHistory/redo``),
/// newest first: made from steps, or read from a stored history's bytes, where each step
/// stays encoded until it is first asked for. Opening a document with a history of thousands
/// of edits reads each step's bounds once and makes none of them.
public struct StoredUndoSteps: RandomAccessCollection, Sendable, Hashable, ExpressibleByArrayLiteral {
  private enum Storage: Sendable {
    case steps([StoredUndoStep])
    /// A stored history's bytes and where each step starts (and, last, where the last ends).
    case encoded(bytes: [UInt8], offsets: ArraySlice<Int>)
  }
  private var storage: Storage

  /// The steps `steps`, newest first.
  public init(_ steps: [StoredUndoStep]) { storage = .steps(steps) }

  public init(arrayLiteral elements: StoredUndoStep...) { self.init(elements) }

  /// Steps kept encoded in `bytes`, each already checked, starting at `offsets` (one more
  /// offset than steps: where the last one ends).
  init(encoded bytes: [UInt8], offsets: [Int]) { storage = .encoded(bytes: bytes, offsets: offsets[...]) }

  public var startIndex: Int { 0 }
  public var endIndex: Int {
    switch storage {
    case .steps(let steps): steps.count
    case .encoded(_, let offsets): offsets.count - 1
    }
  }

  /// The step at `index`, read from the stored bytes when it was stored.
  public subscript(index: Int) -> StoredUndoStep {
    switch storage {
    case .steps(let steps): return steps[index]
    case .encoded(let bytes, let offsets):
      let start = offsets[offsets.startIndex + index]
      let end = offsets[offsets.startIndex + index + 1]
      var reader = HistoryReader(bytes: bytes[start..<end])
      // Checked when the history was read: this cannot fail.
      return (try? reader.step()) ?? StoredUndoStep(actionName: "", records: [])
    }
  }

  /// The action name of the step at `index`, without reading its records.
  func actionName(at index: Int) -> String {
    switch storage {
    case .steps(let steps): return steps[index].actionName
    case .encoded(let bytes, let offsets):
      var reader = HistoryReader(bytes: bytes[offsets[offsets.startIndex + index]...])
      return (try? reader.data()).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }
  }

  /// The size of the step at `index` in the stored format.
  func encodedSize(at index: Int) -> Int {
    switch storage {
    case .steps(let steps): return StoredUndoHistory.encodedSize(of: steps[index])
    case .encoded(_, let offsets): return offsets[offsets.startIndex + index + 1] - offsets[offsets.startIndex + index]
    }
  }

  /// The first `count` steps (the newest).
  func keeping(first count: Int) -> StoredUndoSteps {
    var kept = self
    switch storage {
    case .steps(let steps): kept.storage = .steps(Array(steps.prefix(count)))
    case .encoded(let bytes, let offsets): kept.storage = .encoded(bytes: bytes, offsets: offsets.prefix(count + 1))
    }
    return kept
  }

  /// Appends the steps in the stored format (encoded steps are copied as they are).
  func encode(into bytes: inout [UInt8]) {
    switch storage {
    case .steps(let steps):
      var out = HistoryWriter()
      for step in steps { out.step(step) }
      bytes += out.bytes
    case .encoded(let stored, let offsets):
      if let first = offsets.first, let last = offsets.last { bytes += stored[first..<last] }
    }
  }

  public static func == (lhs: StoredUndoSteps, rhs: StoredUndoSteps) -> Bool { lhs.elementsEqual(rhs) }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(count)
    for step in self { hasher.combine(step) }
  }
}
