import QuireTypes

/// A text document's edits as data (``UndoRecord``), for a stored undo history.
///
/// Every edit of a ``PlainTextDocument`` is, to undo it, a byte replacement: the bytes in a
/// range of the current text give way to others. Its record (kind `"text.replace"`) is the
/// range's start and length and the new bytes, as LEB128 lengths followed by the bytes.
extension PlainTextDocument {
  /// The kind of a text document's records.
  public static let replacementRecordKind = "text.replace"

  /// The record replacing the bytes in `range` with `bytes`.
  static func replacementRecord(_ range: Range<Int>, _ bytes: [UInt8]) -> UndoRecord {
    var payload: [UInt8] = []
    payload.reserveCapacity(bytes.count + 12)
    for value in [range.lowerBound, range.count, bytes.count] {
      var value = UInt64(max(0, value))
      while value >= 0x80 {
        payload.append(UInt8(value & 0x7F) | 0x80)
        value >>= 7
      }
      payload.append(UInt8(value))
    }
    payload += bytes
    return UndoRecord(kind: replacementRecordKind, payload: payload)
  }

  /// The range and bytes of a replacement record; `nil` when it is not one, or is damaged.
  static func replacement(in record: UndoRecord) -> (range: Range<Int>, bytes: ArraySlice<UInt8>)? {
    guard record.kind == replacementRecordKind else { return nil }
    let payload = record.payload
    var position = 0
    var values: [Int] = []
    for _ in 0..<3 {
      var value: UInt64 = 0
      var shift: UInt64 = 0
      while true {
        guard position < payload.count, shift < 63 else { return nil }
        let byte = payload[position]
        position += 1
        value |= UInt64(byte & 0x7F) << shift
        if byte & 0x80 == 0 { break }
        shift += 7
      }
      guard value <= UInt64(Int32.max) else { return nil }
      values.append(Int(value))
    }
    guard payload.count - position == values[2] else { return nil }
    return (values[0]..<(values[0] + values[1]), payload[position...])
  }

  /// The record that turns the text `current` into `target`: the span between their common
  /// start and common end, with `target`'s bytes there. The span's ends are moved to UTF-8
  /// character boundaries of `current`, so the replaced bytes are whole characters.
  static func record(turning current: [UInt8], into target: [UInt8]) -> UndoRecord {
    let shorter = min(current.count, target.count)
    var prefix = 0
    while prefix < shorter && current[prefix] == target[prefix] { prefix += 1 }
    var suffix = 0
    while suffix < shorter - prefix && current[current.count - 1 - suffix] == target[target.count - 1 - suffix] { suffix += 1 }
    // Not inside a character: back off over continuation bytes (10xxxxxx).
    while prefix > 0 && prefix < current.count && current[prefix] & 0xC0 == 0x80 { prefix -= 1 }
    while suffix > 0 && current.count - suffix < current.count && current[current.count - suffix] & 0xC0 == 0x80 { suffix -= 1 }
    let range = prefix..<(current.count - suffix)
    return replacementRecord(range, Array(target[prefix..<(target.count - suffix)]))
  }

  /// Replays a replacement record: the bytes in its range give way to its bytes, exactly (they
  /// were the document's own text, checked by the stored history's digest), as one undoable
  /// change whose undo is the opposite replacement.
  ///
  /// - Throws: ``QuireError`` when the document is not editable, or the record is not a text
  ///   replacement or its range is outside the text; the text is then unchanged.
  func replayReplacement(_ record: UndoRecord) throws {
    try checkEditable()
    guard let replacement = Self.replacement(in: record) else {
      throw QuireError(.invalidContent, "The undo record '\(record.kind)' is not a text replacement \(Self.self) can replay.")
    }
    let removed = try storage.replace(utf8Range: replacement.range, withBytes: replacement.bytes)
    let inserted = replacement.range.lowerBound..<(replacement.range.lowerBound + replacement.bytes.count)
    if undoManager.isUndoRegistrationEnabled {
      undoManager.registerUndo(
        withTarget: self, record: { Self.replacementRecord(inserted, removed) },
        handler: { document in
          try? document.replayReplacement(Self.replacementRecord(inserted, removed))
        })
    } else {
      updateChangeCount(.done)
    }
  }
}
