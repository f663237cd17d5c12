import Foundation
import QuireDocuments
import QuireTestSupport
import QuireTypes
import Testing

@Suite("Plain-text document")
@MainActor
final class PlainTextDocumentTests: MainActorFolderSuite {

  @Test(arguments: [
    (TextEncoding.utf8, [UInt8]()),
    (.utf8WithBOM, [0xEF, 0xBB, 0xBF]),
    (.utf16LittleEndian, [0xFF, 0xFE]),
    (.utf16BigEndian, [0xFE, 0xFF]),
  ])
  func readsAndWritesBackEachEncoding(_ encoding: TextEncoding, bom: [UInt8]) async throws {
    let text = "héllo 日本 𝄞\r\nsecond\r\n"
    let original = Data(fixture(text, encoding, bom: bom))
    let url = folder.file("enc.txt")
    try original.write(to: url)
    let document = try await openQuietly(PlainTextDocument(fileURL: url))
    #expect(document.encoding == encoding)
    #expect(document.text == text)
    #expect(document.lineEnding == .crlf)
    try document.replaceLines(in: 1..<2, with: ["2nd"])
    try await document.save()
    #expect(bytes(url) == fixture("héllo 日本 𝄞\r\n2nd\r\n", encoding, bom: bom))
    #expect(bytes(url).starts(with: bom))
  }

  /// Many line edits made in one pass are one change: one undo puts every line back, redo
  /// makes them again, and the save writes the edited bytes.
  @Test func batchedLineEditsAreOneUndoStep() async throws {
    let original = (1...500).map { "\($0) fox\n" }.joined()
    let url = folder.file("batch.txt")
    try Data(original.utf8).write(to: url)
    let document = try await openQuietly(PlainTextDocument(fileURL: url)) {
      $0.readsBytesExactly = true
    }
    let text = document.storage
    try document.undoManager.groupUndo(named: "s") {
      try document.editLines { editor in
        try text.forEachLine(in: 0..<text.lineCount) { index, line in
          if index % 3 == 0 {
            try editor.replaceLine(index, withBytes: Array(line).dropLast(3) + Array("cat".utf8))
          } else if index % 3 == 1 {
            try editor.deleteLines(in: index..<(index + 1))
          }
        }
      }
    }
    let edited = (1...500).compactMap { $0 % 3 == 1 ? "\($0) cat\n" : $0 % 3 == 0 ? "\($0) fox\n" : nil }.joined()
    #expect(document.text == edited)
    #expect(document.hasUnsavedChanges)
    #expect(document.undoManager.canUndo)
    document.undoManager.undo()
    #expect(document.text == original)
    #expect(!document.undoManager.canUndo)
    document.undoManager.redo()
    #expect(document.text == edited)
    try await document.save()
    #expect(String(decoding: try Data(contentsOf: url), as: UTF8.self) == edited)
    #expect(throws: QuireError.self) {
      try document.editLines { editor in
        try editor.deleteLines(in: 5..<6)
        try editor.deleteLines(in: 1..<2)
      }
    }
    #expect(document.text == edited)
  }

  /// Six megabytes of numbered lines with a byte that is not UTF-8, a NUL and a CRLF every
  /// thousand lines, and no final newline. Made off the main actor: in a debug build it takes
  /// seconds, which every main-actor test running beside this one would otherwise wait out.
  @concurrent nonisolated static func largeFileBytes() async -> [UInt8] {
    var bytes = [UInt8]()
    var line = 0
    while bytes.count < 6 << 20 {
      line += 1
      bytes += Array("\(line): the quick brown fox\n".utf8)
      if line % 1000 == 0 { bytes += [0xFF, 0x00, 0x0D, 0x0A] }
    }
    return bytes + Array("no final newline".utf8)
  }

  /// A file of several megabytes is read into a scratch copy (a mapped temporary file):
  /// its bytes, fingerprint, edits, undo and save are what they are for a file read into
  /// memory, and the user's file changing afterwards does not change the document.
  @Test func aLargeFileReadsAndSavesByteForByte() async throws {
    let original = await Self.largeFileBytes()
    let url = folder.file("large.txt")
    try Data(original).write(to: url)
    let (fingerprint, contents) = try FileFingerprint.read(at: url)
    #expect(contents == Data(original))
    #expect(fingerprint.contentHash == ContentHash(Data(original)))
    #expect(fingerprint.size == original.count)

    let document = try await openQuietly(PlainTextDocument(fileURL: url)) {
      $0.readsBytesExactly = true
      $0.registersAsFilePresenter = false  // the truncation below is not to be reloaded
    }
    // Someone truncates the file: the document holds its own copy.
    let truncate = try FileHandle(forWritingTo: url)
    try truncate.truncate(atOffset: 10)
    try truncate.close()
    #expect(document.storage.utf8Bytes() == original)
    try Data(original).write(to: url)
    let lines = document.lineCount
    try document.replaceLines(in: 5..<6, withBytes: [Array("five".utf8)])
    try document.undoManager.groupUndo {
      try document.editLines { editor in try editor.deleteLines(in: (lines - 10)..<(lines - 1)) }
    }
    // An edit of every other line: megabytes of new bytes (written to scratch files of their
    // own), the same as the same edit of a text held in memory.
    let before = document.storage
    func everyOtherLine(_ editor: inout TextStorage.LineEditor) throws {
      for index in stride(from: 0, to: lines - 20, by: 2) { try editor.replaceLine(index, withBytes: Array("cat \(index)".utf8)) }
    }
    try document.undoManager.groupUndo { try document.editLines(everyOtherLine) }
    var inMemory = TextStorage(bytes: before.utf8Bytes())
    try inMemory.editLines(everyOtherLine)
    #expect(document.storage.utf8Bytes() == inMemory.utf8Bytes())
    #expect(document.storage.lineBytes(at: lines / 2) == inMemory.lineBytes(at: lines / 2))
    try await document.save()
    var expected = document.storage.utf8Bytes()
    #expect(try Data(contentsOf: url) == Data(expected))
    document.undoManager.undo()
    document.undoManager.undo()
    document.undoManager.undo()
    expected = document.storage.utf8Bytes()
    #expect(expected == original)
    try await document.save()
    #expect(try Data(contentsOf: url) == Data(original))
  }

  @Test func readsBytesExactlyWhenAsked() async throws {
    let original: [UInt8] = Array("first\n".utf8) + [0xFF, 0xFE, 0x00, 0x41, 0x0D, 0x0A] + Array("last\n".utf8)
    let url = folder.file("binary.txt")
    try Data(original).write(to: url)
    let refusing = quiet(PlainTextDocument(fileURL: url))
    await #expect(throws: QuireError.self) { try await refusing.open() }

    let document = try await openQuietly(PlainTextDocument(fileURL: url)) {
      $0.readsBytesExactly = true
    }
    #expect(document.lineCount == 3)
    #expect(document.lineBytes(at: 1) == [0xFF, 0xFE, 0x00, 0x41, 0x0D])
    try document.replaceLines(in: 0..<1, withBytes: [[0x80, 0x00]])
    #expect(document.hasUnsavedChanges)
    try await document.save()
    #expect(bytes(url) == [0x80, 0x00, 0x0A] + Array(original[6...]))
    document.undoManager.undo()
    #expect(document.storage.utf8Bytes() == original)
    document.undoManager.redo()
    #expect(document.lineBytes(at: 0) == [0x80, 0x00])
  }

  @Test func bytesHeldExactlyCanStillBeRequiredToBeText() async throws {
    let url = try folder.write("first\r\nsecond\n", to: "crlf.txt")
    let document = try await openQuietly(PlainTextDocument(fileURL: url)) {
      $0.readsBytesExactly = true
      $0.requiresUTF8Text = true
    }
    // Text, held byte for byte: the carriage return is part of the line.
    #expect(document.lineBytes(at: 0) == Array("first\r".utf8))
    // A NUL byte, or bytes that are not UTF-8, are refused by every read, saying where.
    for bad in [Data([0x61, 0x00, 0x0A]), Data([0x61, 0xFF, 0x0A])] {
      expectQuireError(.invalidContent, reasonContains: "byte") { try document.revert(toContents: bad, fingerprint: nil) }
      #expect(document.lineBytes(at: 0) == Array("first\r".utf8))
      #expect(throws: QuireError.self) { try TextEncoding.checkUTF8Text(bad) }
    }
    try TextEncoding.checkUTF8Text(Data([0xEF, 0xBB, 0xBF, 0x61]))
    try TextEncoding.checkUTF8Text(Data())
  }

  /// Edits keep a document that must hold text, text: new bytes that are not UTF-8 (or a NUL)
  /// are refused by each way bytes go in, and the text stays as it was; GNU ed's mode takes them.
  @Test(arguments: [true, false])
  func editsThatWouldPutInBytesThatAreNotTextAreRefused(_ required: Bool) async throws {
    let url = try folder.write("first\nsecond\n", to: "text.txt")
    let document = try await openQuietly(PlainTextDocument(fileURL: url)) {
      $0.readsBytesExactly = true
      $0.requiresUTF8Text = required
    }
    let latin1: [UInt8] = Array("caf".utf8) + [0xE9]
    let edits: [(String, () throws -> Void)] = [
      ("replaceLines", { try document.replaceLines(in: 1..<1, withBytes: [latin1]) }),
      ("replaceBytes", { try document.replaceBytes(inUTF8Range: 0..<0, with: [0x61, 0x00, 0x0A]) }),
      ("editLines", { try document.editLines { try $0.replaceLine(1, withBytes: latin1) } }),
    ]
    for (name, edit) in edits {
      let before = document.storage
      if required {
        expectQuireError(.invalidContent, reasonContains: "UTF-8 text only", "left as it was") { try edit() }
        #expect(document.storage == before, "\(name) changed the text")
      } else {
        try edit()
        #expect(document.storage != before, "\(name) did not change the text")
      }
    }
    // Text that is UTF-8 goes in either way.
    try document.replaceLines(in: 0..<1, withBytes: [Array("café".utf8)])
    #expect(document.lineBytes(at: 0) == Array("café".utf8))
  }

  @Test(arguments: [true, false])
  func appendsTheMissingFinalNewlineWhenAsked(_ appends: Bool) async throws {
    let url = folder.file("open-end.txt")
    try Data("a\nb".utf8).write(to: url)
    let document = try await openQuietly(PlainTextDocument(fileURL: url)) {
      $0.appendsMissingFinalNewline = appends
    }
    #expect(document.appendedFinalNewline == appends)
    #expect(document.text == (appends ? "a\nb\n" : "a\nb"))
    #expect(!document.hasUnsavedChanges)
    try document.replaceLines(in: 0..<1, with: ["A"])
    try await document.save()
    #expect(bytes(url) == Array((appends ? "A\nb\n" : "A\nb").utf8))
  }

  /// GNU ed's rule, in the document layer: a file that holds a NUL byte keeps its unended last
  /// line unended (and says it held one); a text file gets its newline. The NUL is found while
  /// the lines are, in the first chunk or far into a file read through the scratch copy.
  @Test(
    arguments: [
      ("text", Array("a\nb".utf8), false, true),
      ("binary, unended", [0x61, 0x00, 0x0A, 0x62], true, false),
      ("binary, ended", [0x61, 0x00, 0x0A, 0x62, 0x0A], true, false),
      ("empty", [], false, false),
    ] as [(String, [UInt8], Bool, Bool)])
  func aFileWithANULKeepsItsUnendedLastLine(_ name: String, _ contents: [UInt8], _ holdsNUL: Bool, _ appends: Bool) async throws {
    let url = folder.file("\(name).bin")
    try Data(contents).write(to: url)
    let document = try await openQuietly(PlainTextDocument(fileURL: url)) {
      $0.readsBytesExactly = true
      $0.appendsMissingFinalNewline = true
    }
    #expect(document.readHeldNULBytes == holdsNUL, "\(name)")
    #expect(document.appendedFinalNewline == appends, "\(name)")
    #expect(document.storage.utf8Bytes() == contents + (appends ? [0x0A] : []), "\(name)")
    // Reverting to other bytes reads them by the same rule.
    try document.revert(toContents: Data([0x78, 0x00, 0x79]), fingerprint: nil)
    #expect(document.readHeldNULBytes)
    #expect(!document.appendedFinalNewline)
    #expect(document.storage.utf8Bytes() == [0x78, 0x00, 0x79])
    try document.revert(toContents: Data("plain".utf8), fingerprint: nil)
    #expect(!document.readHeldNULBytes)
    #expect(document.text == "plain\n")
  }

  @Test func aNULFarIntoALargeFileIsFound() async throws {
    var bytes = [UInt8](repeating: 0x61, count: 6 << 20)
    for index in stride(from: 99, to: bytes.count, by: 100) { bytes[index] = 0x0A }
    bytes[bytes.count - 10] = 0x00
    bytes.removeLast()  // unended
    let url = folder.file("large.bin")
    try Data(bytes).write(to: url)
    let document = try await openQuietly(PlainTextDocument(fileURL: url)) {
      $0.readsBytesExactly = true
      $0.appendsMissingFinalNewline = true
    }
    #expect(document.readHeldNULBytes)
    #expect(!document.appendedFinalNewline)
    #expect(document.storage.utf8Count == bytes.count)
    // Without the NUL it is text: the newline is appended.
    bytes[bytes.count - 9] = 0x61
    try document.revert(toContents: Data(bytes), fingerprint: nil)
    #expect(!document.readHeldNULBytes)
    #expect(document.appendedFinalNewline)
  }

  @Test func opensFromContentsTheCallerRead() async throws {
    let url = folder.file("read-by-caller.txt")
    try Data("one\ntwo\n".utf8).write(to: url)
    let (fingerprint, contents) = try FileFingerprint.read(at: url)
    let document = quiet(PlainTextDocument(fileURL: url))
    try document.open(contents: contents, fingerprint: fingerprint)
    #expect(document.lineCount == 2)
    #expect(!document.hasUnsavedChanges)
    try document.replaceLines(in: 1..<2, with: ["TWO"])
    try await document.save()
    #expect(bytes(url) == Array("one\nTWO\n".utf8))
    // The fingerprint given is what later saves check against: a change on disk is a conflict.
    try Data("someone else's\n".utf8).write(to: url)
    try document.replaceLines(in: 0..<1, with: ["ONE"])
    await #expect(throws: QuireError.self) { try await document.save() }
    #expect(document.documentState.contains(.inConflict))
  }

  @Test func opensANewFileFromNoContents() async throws {
    let url = folder.file("new.txt")
    let document = quiet(PlainTextDocument(fileURL: url))
    try document.open(contents: Data(), fingerprint: nil)
    try document.insertLines(["first"], at: 0)
    try await document.save()
    #expect(bytes(url) == Array("first\n".utf8))
  }

  /// The bytes of `text` in `encoding`, made without the library.
  func fixture(_ text: String, _ encoding: TextEncoding, bom: [UInt8]) -> [UInt8] {
    switch encoding {
    case .utf8, .utf8WithBOM: return bom + Array(text.utf8)
    case .utf16LittleEndian: return bom + text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
    case .utf16BigEndian: return bom + text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
    }
  }

  @Test func editingOneLineLeavesTheOthersLineEndingsAsFound() async throws {
    let document = try await openTextDocument("a\r\nb\nc\r\n", in: folder)
    try document.replaceLines(in: 2..<3, with: ["C"])
    try await document.save()
    #expect(bytes(document.fileURL) == Array("a\r\nb\nC\r\n".utf8))
  }

  enum BadText: String, CaseIterable {
    case invalidUTF8, truncatedUTF8, nulBytes, png, oddUTF16, loneSurrogate
    var bytes: [UInt8] {
      switch self {
      case .invalidUTF8: Array("caf".utf8) + [0xE9, 0x0A]
      case .truncatedUTF8: Array("日本".utf8).dropLast()
      case .nulBytes: Array("text\0more".utf8)
      case .png: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]
      case .oddUTF16: [0xFF, 0xFE, 0x61, 0x00, 0x62]
      case .loneSurrogate: [0xFF, 0xFE, 0x00, 0xD8, 0x61, 0x00]
      }
    }
  }

  @Test(arguments: BadText.allCases)
  func invalidTextIsRefusedWithAClearErrorAndNeverTouched(_ bad: BadText) async throws {
    let url = folder.file("bad.txt")
    try Data(bad.bytes).write(to: url)
    let document = quiet(PlainTextDocument(fileURL: url))
    await expectQuireError(.invalidContent, reasonContains: "'bad.txt'", "refused for editing") { try await document.open() }
    #expect(document.documentState.contains(.closed))
    #expect(throws: QuireError.self) { try document.replaceText(with: "x") }
    await #expect(throws: QuireError.self) { try await document.save() }
    #expect(bytes(url) == bad.bytes)
  }

  @Test func undoAndRedoMoveTheChangeCount() async throws {
    let document = try await openTextDocument("one\ntwo\n", in: folder)
    #expect(!document.hasUnsavedChanges)
    try document.insertLines(["zero"], at: 0)
    try document.deleteLines(in: 2..<3)
    #expect(document.text == "zero\none\n")
    #expect(document.changeCount == 2)
    document.undoManager.undo()
    #expect(document.text == "zero\none\ntwo\n")
    document.undoManager.undo()
    #expect(document.text == "one\ntwo\n")
    #expect(!document.hasUnsavedChanges)
    document.undoManager.redo()
    #expect(document.text == "zero\none\ntwo\n")
    #expect(document.hasUnsavedChanges)
    try await document.save()
    #expect(!document.hasUnsavedChanges)
    document.undoManager.undo()
    #expect(document.hasUnsavedChanges)
    // Undone below the saved version and then changed: the saved version is out of reach.
    try document.replaceText(with: "other\n")
    document.undoManager.undo()
    #expect(document.text == "one\ntwo\n")
    #expect(document.hasUnsavedChanges)
  }

  @Test func aGroupedCommandIsOneUndoStep() async throws {
    let document = try await openTextDocument("a\nb\nc\n", in: folder)
    try document.undoManager.groupUndo(named: "Substitute") {
      for index in 0..<3 { try document.replaceLines(in: index..<index + 1, with: ["x"]) }
    }
    #expect(document.text == "x\nx\nx\n")
    #expect(document.changeCount == 1)
    #expect(document.undoManager.undoActionName == "Substitute")
    document.undoManager.undo()
    #expect(document.text == "a\nb\nc\n")
  }

  @Test func editsWithRegistrationDisabledStillCount() async throws {
    let document = try await openTextDocument("a\n", in: folder)
    document.undoManager.disableUndoRegistration()
    try document.insertLines(["b"], at: 1)
    document.undoManager.enableUndoRegistration()
    #expect(document.hasUnsavedChanges)
    #expect(!document.undoManager.canUndo)
  }

  @Test func editingDisabledRefusesEdits() async throws {
    let document = try await openTextDocument("a\n", in: folder)
    var states: [Document.State] = []
    let token = document.addStateObserver { states.append($0) }
    document.disableEditing()
    #expect(throws: QuireError.self) { try document.insertLines(["b"], at: 0) }
    document.enableEditing()
    try document.insertLines(["b"], at: 0)
    #expect(states == [.editingDisabled, .normal])
    token.cancel()
  }

  @Test func revertDropsEditsAndHistory() async throws {
    let document = try await openTextDocument("kept\n", in: folder)
    try document.replaceText(with: "changed\n")
    try await document.revertToSaved()
    #expect(document.text == "kept\n")
    #expect(!document.hasUnsavedChanges)
    #expect(!document.undoManager.canUndo)
  }

  @Test func closeRefusesToLoseChangesUnlessAsked() async throws {
    let document = try await openTextDocument("a\n", in: folder)
    try document.insertLines(["b"], at: 0)
    await #expect(throws: QuireError.self) { try await document.close() }
    #expect(!document.documentState.contains(.closed))
    try await document.close(discardingChanges: true)
    #expect(document.documentState == .closed)
    #expect(bytes(document.fileURL) == Array("a\n".utf8))
  }

  @Test func saveAsMovesTheDocumentAndSaveToDoesNot() async throws {
    let document = try await openTextDocument("a\n", in: folder)
    try document.insertLines(["b"], at: 1)
    let copy = folder.file("copy.txt")
    try await document.save(to: copy, for: .saveTo)
    #expect(document.hasUnsavedChanges)
    #expect(document.fileURL == folder.file("notes.txt"))
    #expect(bytes(copy) == Array("a\nb\n".utf8))
    let moved = folder.file("moved.txt")
    try await document.save(to: moved, for: .saveAs)
    #expect(!document.hasUnsavedChanges)
    #expect(document.fileURL == moved)
    #expect(bytes(folder.file("notes.txt")) == Array("a\n".utf8))
  }

  @Test func aFileWithoutAnExtensionOpensAsPlainText() async throws {
    let document = try await openTextDocument("MIT License\n", name: "LICENSE", in: folder)
    #expect(document.contentType == .plainText)
    #expect(document.line(at: 0) == "MIT License")
  }

  @Test func emptyFileOpensWithNoLines() async throws {
    let document = try await openTextDocument("", in: folder)
    #expect(document.lineCount == 0)
    try document.insertLines(["first"], at: 0)
    try await document.save()
    #expect(bytes(document.fileURL) == Array("first\n".utf8))
  }
}
