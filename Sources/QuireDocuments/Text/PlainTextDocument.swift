public import Foundation
public import QuireTypes

/// A plain-text document: UTF-8 (with or without BOM) or UTF-16 with a BOM, on a
/// ``TextStorage``, edited by line or by UTF-8 range with undo.
///
/// A file that is not valid text in its encoding (or holds NUL bytes) is refused when
/// opening with a ``QuireError/Code/invalidContent`` error that says where; it is never
/// loaded lossily, so it can never be rewritten lossily. The encoding and line endings found
/// are kept when saving: only edited lines change, new lines get the file's dominant ending.
///
/// Every edit registers its inverse with the document's ``Document/undoManager`` (the
/// replaced text, never a snapshot), so undo and redo cost what the edit cost. Wrap several
/// edits in ``UndoManager/groupUndo(named:_:)`` to undo them as one step.
///
/// **Bytes as they are.** With ``readsBytesExactly`` (what GNU ed does, and the `quire` REPL),
/// the file is held byte for byte — not valid UTF-8, NUL bytes, a byte order mark — and saved
/// back exactly; the byte-level calls (``lineBytes(at:)``, ``replaceBytes(inUTF8Range:with:)``,
/// ``replaceLines(in:withBytes:)``) edit it. With ``appendsMissingFinalNewline`` a last line
/// without a newline gets one when the file is read (ed's "newline appended"), so the next save
/// writes it with one.
///
/// Lines are numbered from 0 here (an ed-style REPL adds 1).
open class PlainTextDocument: Document {
  /// The text.
  public internal(set) var storage = TextStorage()
  /// The encoding found when reading (kept when saving); change it with ``setEncoding(_:)``.
  public private(set) var encoding: TextEncoding = .utf8
  /// The version last read from or saved to the file: the base of a three-way merge.
  public private(set) var mergeBase = TextStorage()
  private var lastWritten: TextStorage?
  /// Whether the file is read byte for byte, without decoding: text that is not UTF-8 and NUL
  /// bytes are held and saved back exactly, as GNU ed edits them (a byte order mark is kept
  /// as bytes of the text). Set it before ``Document/open()``. Off by default: a file that is
  /// not valid text in its encoding is refused.
  public var readsBytesExactly = false
  /// With ``readsBytesExactly``: whether bytes that are not UTF-8 text, or NUL bytes, are
  /// refused all the same (a text editor's own mode; GNU ed's mode reads them). The text is
  /// then still held byte for byte (carriage returns are part of lines), but every read —
  /// open, revert, a reload, a recovered or restored version — refuses what is not text, with
  /// ``TextEncoding/checkUTF8Text(_:)``'s message, and every edit refuses new bytes that are
  /// not (``replaceBytes(inUTF8Range:with:)``, ``replaceLines(in:withBytes:)``,
  /// ``editLines(_:)``), leaving the text as it was. Set it before ``Document/open()``.
  public var requiresUTF8Text = false
  /// Whether a last line without a newline gets one when the file is read (GNU ed's "newline
  /// appended"); the next save writes it. As in GNU ed, a file that holds a NUL byte (with
  /// ``readsBytesExactly``; see ``readHeldNULBytes``) keeps its last line unended. Set it before
  /// ``Document/open()``.
  public var appendsMissingFinalNewline = false
  /// Whether the last read added the missing final newline (see ``appendsMissingFinalNewline``).
  public private(set) var appendedFinalNewline = false
  /// Whether the bytes last read held a NUL byte (only looked for with ``readsBytesExactly``):
  /// GNU ed's "binary" file, whose unended last line stays unended. Found in the same pass that
  /// finds the lines, so knowing it costs no second read of a large file.
  public private(set) var readHeldNULBytes = false

  public required init(fileURL: URL, contentType: UTType? = nil) {
    super.init(fileURL: fileURL, contentType: contentType)
  }

  /// Plain text, for a file without an extension (a README, a LICENSE).
  open override var fallbackType: UTType? { .plainText }

  open override func read(from data: Data, ofType type: UTType) throws {
    if readsBytesExactly && requiresUTF8Text { try TextEncoding.checkUTF8Text(data) }
    let (text, encoding, holdsNUL) = try Self.text(of: data, exactly: readsBytesExactly)
    var storage = text
    readHeldNULBytes = holdsNUL
    appendedFinalNewline = appendsMissingFinalNewline && !holdsNUL && storage.appendMissingFinalNewline()
    if readsBytesExactly { storage.lineEnding = .lf }
    self.storage = storage
    self.encoding = encoding
  }

  /// The text of `data`: byte for byte (with whether it holds a NUL) or decoded.
  private static func text(of data: Data, exactly: Bool) throws -> (TextStorage, TextEncoding, holdsNUL: Bool) {
    guard exactly else {
      let (storage, encoding) = try TextEncoding.decode(data)
      return (storage, encoding, false)
    }
    let (storage, holdsNUL) = TextStorage.scanning(bytes: data)
    return (storage, .utf8, holdsNUL)
  }

  /// Another version of the file (someone else's save), read as this document reads its file.
  private func theirText(_ theirs: Data) throws -> TextStorage {
    let (text, _, holdsNUL) = try Self.text(of: theirs, exactly: readsBytesExactly)
    var storage = text
    if appendsMissingFinalNewline && !holdsNUL { storage.appendMissingFinalNewline() }
    return storage
  }

  open override func contents(forType type: UTType) throws -> Data {
    lastWritten = storage
    return encoding.encode(storage)
  }

  /// The text's chunks, saved without joining them, when the bytes to write are the text's
  /// own (UTF-8, with or without BOM) and ``contents(forType:)`` is this class's (a subclass
  /// that overrides it, other than ``MarkdownDocument``, is saved through it).
  override func fileContents(forType type: UTType) throws -> StoredContents {
    let prefix: [UInt8]
    switch encoding {
    case .utf8: prefix = []
    case .utf8WithBOM: prefix = [0xEF, 0xBB, 0xBF]
    case .utf16LittleEndian, .utf16BigEndian: return try super.fileContents(forType: type)
    }
    guard Swift.type(of: self) == PlainTextDocument.self || Swift.type(of: self) == MarkdownDocument.self else {
      return try super.fileContents(forType: type)
    }
    lastWritten = storage
    return .text(storage, prefix: prefix)
  }

  open override func documentDidReadFromDisk() { mergeBase = storage }

  // MARK: Stored undo history (PlainTextDocument+UndoRecords.swift)

  /// The text's UTF-8 bytes: what a stored history ends at.
  open override func undoHistoryState() -> [UInt8]? { storage.utf8Bytes() }

  /// The replacement that turns the text into `state`.
  open override func undoRecord(restoringState state: [UInt8]) -> UndoRecord? {
    Self.record(turning: storage.utf8Bytes(), into: state)
  }

  /// Replays one of the document's replacement records (see ``replacementRecordKind``).
  open override func applyUndoRecord(_ record: UndoRecord) throws { try replayReplacement(record) }

  open override func documentDidSave(_ operation: SaveOperation) {
    if let lastWritten { mergeBase = lastWritten }
    lastWritten = nil
  }

  // MARK: Reading

  /// The whole text (copies it).
  public var text: String { storage.string }
  /// The number of lines.
  public var lineCount: Int { storage.lineCount }
  /// The line ending new lines get (the file's dominant one).
  public var lineEnding: LineEnding { storage.lineEnding }
  /// Line `index` (from 0) without its ending.
  public func line(at index: Int) -> String { storage.line(at: index) }
  /// Lines in `range` (from 0), without their endings.
  public func lines(in range: Range<Int>) -> [String] { storage.lines(in: range) }
  /// Line `index` (from 0) as its bytes, without its `\n`. A `\r` before the `\n` is part
  /// of the line when the document ``readsBytesExactly`` (as in ed), else of the ending.
  public func lineBytes(at index: Int) -> [UInt8] {
    storage.lineBytes(at: index, keepingCarriageReturn: readsBytesExactly)
  }

  // MARK: Editing

  /// Replaces the UTF-8 range `range` with `string`, as one undoable change.
  ///
  /// - Throws: ``QuireError`` when the document is not editable or the range is outside the
  ///   text or cuts a character.
  public func replaceCharacters(inUTF8Range range: Range<Int>, with string: String) throws {
    try checkEditable()
    let removed = try storage.replace(utf8Range: range, with: string)
    let inserted = range.lowerBound..<(range.lowerBound + string.utf8.count)
    if undoManager.isUndoRegistrationEnabled {
      undoManager.registerUndo(
        withTarget: self, record: { Self.replacementRecord(inserted, Array(removed.utf8)) },
        handler: { document in
          try? document.replaceCharacters(inUTF8Range: inserted, with: removed)
        })
    } else {
      updateChangeCount(.done)
    }
  }

  /// Replaces the bytes in `range` with `bytes`, exactly, as one undoable change: for a
  /// document that ``readsBytesExactly`` (the range need not fall between characters).
  ///
  /// - Throws: ``QuireError`` when the document is not editable or the range is outside the
  ///   text; `invalidContent` when the document ``requiresUTF8Text`` and `bytes` are not.
  public func replaceBytes(inUTF8Range range: Range<Int>, with bytes: [UInt8]) throws {
    try checkEditable()
    if requiresUTF8Text { try TextEncoding.checkNewUTF8Text(bytes) }
    let removed = try storage.replace(utf8Range: range, withBytes: bytes)
    let inserted = range.lowerBound..<(range.lowerBound + bytes.count)
    if undoManager.isUndoRegistrationEnabled {
      undoManager.registerUndo(
        withTarget: self, record: { Self.replacementRecord(inserted, removed) },
        handler: { document in
          try? document.replaceBytes(inUTF8Range: inserted, with: removed)
        })
    } else {
      updateChangeCount(.done)
    }
  }

  /// Replaces the lines in `range` (from 0) with `lines`, each given as its bytes without an
  /// ending, as one undoable change.
  public func replaceLines(in range: Range<Int>, withBytes lines: [[UInt8]]) throws {
    try checkEditable()
    let (bytes, new) = try storage.edit(replacingLines: range, withBytes: lines)
    try replaceBytes(inUTF8Range: bytes, with: new)
  }

  /// Makes many line edits as one undoable change (a `g` or `,s` command of an editor): `body`
  /// gives the ``TextStorage/LineEditor`` its edits in ascending order, numbered as the lines
  /// were before (see ``TextStorage/editLines(_:)``). Undo puts the text back as it was; the
  /// undo entry holds the chunks the edit replaced (shared, not copied), not one entry per line.
  ///
  /// - Throws: ``QuireError`` when the document is not editable or an edit is out of order or
  ///   outside the text (or puts in bytes that are not UTF-8 text, when the document
  ///   ``requiresUTF8Text``), or what `body` throws; the text is then unchanged.
  public func editLines(_ body: (inout TextStorage.LineEditor) throws -> Void) throws {
    try checkEditable()
    var edited = storage
    try edited.editLines(requiringUTF8Text: requiresUTF8Text, body)
    replaceStorage(with: edited)
  }

  /// Replaces the whole text with `text` as one undoable change, without copying it: the
  /// document shares `text`'s chunks (a file read with ``FileFingerprint/read(from:url:)``
  /// stays in its mapped scratch copy), and the undo entry keeps the replaced text's chunks.
  ///
  /// - Throws: ``QuireError`` when the document is not editable.
  public func replaceText(with text: TextStorage) throws {
    try checkEditable()
    replaceStorage(with: text)
  }

  /// Puts `new` in place of the whole text, registering the way back.
  private func replaceStorage(with new: TextStorage) {
    let old = storage
    storage = new
    if undoManager.isUndoRegistrationEnabled {
      // As data: the part of `new` that differs from `old`, and what `old` has there.
      undoManager.registerUndo(
        withTarget: self, record: { Self.record(turning: new.utf8Bytes(), into: old.utf8Bytes()) },
        handler: { document in
          document.replaceStorage(with: old)
        })
    } else {
      updateChangeCount(.done)
    }
  }

  /// Replaces the lines in `range` (from 0) with `lines`.
  public func replaceLines(in range: Range<Int>, with lines: [String]) throws {
    try checkEditable()
    let (bytes, text) = try storage.edit(replacingLines: range, with: lines)
    try replaceCharacters(inUTF8Range: bytes, with: text)
  }

  /// Inserts `lines` before line `index` (`lineCount` appends).
  public func insertLines(_ lines: [String], at index: Int) throws {
    try replaceLines(in: index..<index, with: lines)
  }

  /// Deletes the lines in `range`.
  public func deleteLines(in range: Range<Int>) throws {
    try replaceLines(in: range, with: [])
  }

  /// Replaces the whole text.
  public func replaceText(with string: String) throws {
    try replaceCharacters(inUTF8Range: 0..<storage.utf8Count, with: string)
  }

  /// Changes the encoding used when saving, as an undoable change.
  public func setEncoding(_ newEncoding: TextEncoding) throws {
    try checkEditable()
    let old = encoding
    guard old != newEncoding else { return }
    encoding = newEncoding
    if undoManager.isUndoRegistrationEnabled {
      undoManager.registerUndo(withTarget: self) { try? $0.setEncoding(old) }
    } else {
      updateChangeCount(.done)
    }
  }

  // MARK: Merging

  override func overlappingEdits(with theirs: Data) throws -> Int? {
    let theirStorage = try theirText(theirs)
    return try TextMerge.merge(base: mergeBase.string, mine: storage.string, theirs: theirStorage.string).conflicts
  }

  open override func merge(with theirs: Data, ofType type: UTType) throws -> MergeOutcome {
    let theirStorage = try theirText(theirs)
    let result = try TextMerge.merge(base: mergeBase.string, mine: storage.string, theirs: theirStorage.string)
    try undoManager.groupUndo(named: "Merge") {
      try replaceText(with: result.text)
    }
    mergeBase = theirStorage
    return MergeOutcome(conflicts: result.conflicts)
  }
}
