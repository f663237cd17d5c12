import Foundation
import Quire
import QuireSystem

/// `e` and `r`: reading a file, or a shell command's output, into the document.
extension EdEngine {
  /// `e FILE`, `E FILE`, `e !cmd`: the document's text replaced by the file's.
  func editFile(_ addresses: Addresses, _ target: EdCommand.FileTarget?, unconditionally: Bool) throws(EdError) {
    if globalLines != nil {
      // Inside g: e refuses a modified buffer at once (there is no second e to confirm), E
      // goes ahead; either way g has no lines left to visit in the new buffer.
      if !unconditionally && (document.isEdited || globalHasEdited) {
        throw EdError("'\(document.displayName)' has unsaved changes: e inside g does not discard them", ed: EdError.bufferModified)
      }
      globalLines = []
      globalCursor = 0
    }
    if !unconditionally {
      try confirm(
        "e", unsaved: document.isEdited ? [document.displayName] : [],
        warning: "'\(document.displayName)' has unsaved changes: 'e' again discards them, or 'w' saves them first")
    }
    try requireNoAddress(addresses)
    if case .shell(let typed) = target {
      let shellCommand = try expandShellCommand(typed)
      guard case .textFile = document.form else { throw EdError("e !command reads into a text document", ed: "Invalid redirection") }
      let bytes = try runShell(shellCommand, reading: true)
      try replaceContents(with: Data(bytes), fingerprint: nil)
      reportRead(bytes.count, lacksFinalNewline: bytes.last.map { $0 != UInt8(ascii: "\n") } ?? false, at: 0, appended: true, before: (false, false))
      return
    }
    let name = target?.fileName
    let url = try fileURL(name)
    guard case .textFile = document.form, !EdDocument.isTextBundle(url) else {
      throw EdError("e reads a text file into a text document; open TextBundles and PDFs with 'open \(name ?? url.lastPathComponent)'")
    }
    let contents: FileBytes
    do {
      contents = try readFile(url)
    } catch {
      if edOptions != nil {
        // As ed: the buffer is emptied before the read, and the name is kept.
        document.fileURL = url
        try? replaceContents(with: Data(), fingerprint: nil)
        document.currentLine = 0
      }
      throw error
    }
    document.fileURL = url
    try replaceContents(with: contents.data, fingerprint: contents.fingerprint)
    reportRead(contents.byteCount, lacksFinalNewline: contents.lacksFinalNewline, at: 0, appended: true, before: (false, false))
  }

  /// The document's text replaced by `contents` without undo, as `e` does: the cut buffer and
  /// the marks are emptied, and the current line is the last.
  private func replaceContents(with contents: Data, fingerprint: FileFingerprint?) throws(EdError) {
    try document.buffer.reset(contents: contents, fingerprint: fingerprint)
    cutBuffer = []
    document.marks = [:]
    document.currentLine = lastLine
  }

  /// `r FILE`, `r !cmd`: the file's lines (or the command's output) after the addressed line
  /// (the last line without an address).
  func read(_ addresses: Addresses, _ target: EdCommand.FileTarget?) throws(EdError) {
    let at = addresses.count == 0 ? lastLine : addresses.second
    try checkBounds(at)
    let appended = at == lastLine
    let before = (unended: buffer.endsWithUnendedLine, binary: buffer.isBinary)
    if case .shell(let typed) = target {
      let bytes = try runShell(expandShellCommand(typed), reading: true)
      let lines = Self.lines(of: bytes).map { Array($0.utf8) }
      try edit("read") { () throws(EdError) in
        try replace(at..<at, with: lines)
        if !lines.isEmpty { document.currentLine = at + lines.count }
      }
      let lacksFinalNewline = bytes.last.map { $0 != UInt8(ascii: "\n") } ?? false
      reportRead(bytes.count, lacksFinalNewline: lacksFinalNewline, at: at, appended: appended, before: before)
      return
    }
    let url = try fileURL(target?.fileName)
    // As ed: the name becomes the file name, and the undo record is cleared, before the read.
    if document.fileURL == nil { document.fileURL = url }
    markUnchanged()
    let contents = try readFile(url)
    try edit("read") { () throws(EdError) in
      let lines = contents.byteLines
      if contents.lacksFinalNewline && appended && (buffer.isBinary || contents.data.contains(0)) {
        // As ed: a file read at the end of a binary buffer (or a binary file read at the end)
        // keeps its last line unended.
        try buffer.appendBytes(contents.bytes)
        if globalLines != nil { globalHasEdited = true }
      } else {
        try replace(at..<at, with: lines)
      }
      if !lines.isEmpty { document.currentLine = at + lines.count }
    }
    reportRead(contents.byteCount, lacksFinalNewline: contents.lacksFinalNewline, at: at, appended: appended, before: before)
  }
}
