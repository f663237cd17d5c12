import Foundation
import Quire
import QuireSystem

/// `w`, `W`, `wq`: writing lines through the document's own API (its save, save as, save to,
/// and ``Document/writeToOwnFile(_:)`` for some of its lines), or to another file or a device.
extension EdEngine {
  /// `w FILE`, `W FILE`, `wq`, `w !cmd`.
  func write(
    _ addresses: Addresses, _ target: EdCommand.FileTarget?, appending: Bool, then: EdCommand.QuitAfterWrite?
  ) async throws(EdError) -> Outcome {
    var addresses = addresses
    if addresses.count == 0 {
      addresses.first = min(1, lastLine)
      addresses.second = lastLine
    }
    if lastLine > 0 || addresses.count > 0 { try requireRange(addresses) }
    // Under -r a name that leaves the folder is refused as such, not as a failed write.
    if case .file(let name) = target { try checkFileNameAllowed(name) }
    if case .shell(let typed) = target {
      let shellCommand = try expandShellCommand(typed)
      let bytes = lastLine == 0 ? [] : Self.bytes(of: buffer.lineBytes(in: (addresses.first - 1)..<addresses.second))
      try runShell(shellCommand, reading: false, input: bytes)
      if printsByteCounts { output?.print("\(bytes.count)") }
    } else {
      do {
        try await write(addresses, to: target?.fileName, appending: appending)
      } catch {
        if edOptions != nil, let url = try? fileURL(target?.fileName) {
          output?.diagnose("\(url.relativePath): \(error.systemReason ?? "Cannot open output file")")
        }
        throw edOptions == nil ? error : EdError(error.message, ed: "Cannot open output file")
      }
    }
    switch then {
    case nil: return .proceed
    case .quitUnconditionally: return .quit
    case .quit:
      let unsaved = (output?.otherUnsavedDocuments ?? []) + (document.isEdited ? [document.displayName] : [])
      try confirmQuit(unsaved: unsaved, advice: "'q' again quits without saving")
      return .quit
    }
  }

  /// Writes lines `addresses` to the file `name` (the current file when `nil`): the whole text
  /// by the document's save, some lines over its own file by the document, other files and
  /// devices through the output-path rule.
  private func write(_ addresses: Addresses, to name: String?, appending: Bool) async throws(EdError) {
    if let pdf = document.pdfDocument { return try await writePDF(pdf, to: name, appending: appending) }
    let url = try fileURL(name)
    let isOwnFile = document.fileURL == nil || document.fileURL?.standardizedFileURL == url.standardizedFileURL
    let wholeBuffer = addresses.first <= 1 && addresses.second == lastLine
    if !appending, wholeBuffer, let text = document.plainTextDocument, !Self.isSpecialFile(url) {
      // The document's own save: safe save, coordination, the check for changes on disk and
      // a kept version; to another file, a copy of it (ed: the buffer counts as saved).
      try await save(text, to: url, ownFile: isOwnFile)
      if document.fileURL == nil { document.fileURL = url }
      buffer.markSaved()
      document.currentLine = min(document.currentLine, lastLine)
      if printsByteCounts { output?.print("\(text.storage.utf8Count)") }
      return
    }
    if isOwnFile, document.fileURL != nil, document.textBundle != nil {
      // A TextBundle is saved whole, by its document (its text with its assets).
      throw EdError("'\(document.displayName)' is a TextBundle: w saves all of it; write some lines to another file with 'N,Mw FILE'")
    }
    let bytes = lastLine == 0 ? [] : buffer.bytes(ofLines: (addresses.first - 1)..<addresses.second)
    if appending {
      do {
        try FileSaver.appendOutput(Data(bytes), to: url)
      } catch {
        throw EdError(Self.reason(error), cause: error)
      }
    } else if isOwnFile, document.fileURL != nil, !Self.isSpecialFile(url), let text = document.plainTextDocument {
      // Some lines over the document's own file (ed's `1,2w`): the document writes them as its
      // own write, not someone else's change.
      do {
        try await text.writeToOwnFile(Data(bytes))
      } catch {
        throw EdError(Self.reason(error), cause: error)
      }
    } else {
      // Any other file (or a device or FIFO, written through), inside a coordinated write.
      try coordinatedWrite(url) { () throws(EdError) in
        do {
          try FileSaver.writeOutput(Data(bytes), to: url)
        } catch {
          throw EdError(Self.reason(error), cause: error)
        }
      }
    }
    if document.fileURL == nil { document.fileURL = url }
    // As in ed, writing the whole buffer anywhere counts as saving it.
    if wholeBuffer { buffer.markSaved() }
    if printsByteCounts { output?.print("\(bytes.count)") }
  }

  /// Runs `body` inside a coordinated write of `url` when the session has a coordinator
  /// (`quire` has one): other Quire processes' coordinated readers and writers of the file
  /// wait, and its presenters hear of the change. Waits at most 10 s for the lock.
  private func coordinatedWrite(_ url: URL, _ body: () throws(EdError) -> Void) throws(EdError) {
    guard let coordinator else { return try body() }
    do {
      try coordinator.coordinate(writingItemAt: url, timeout: .seconds(10)) { _ in try body() }
    } catch let error as EdError {
      throw error
    } catch {
      throw EdError("cannot write '\(url.lastPathComponent)': \(Self.reason(error))", cause: error)
    }
  }

  /// `w` for a PDF: its document's save (the pages written losslessly through libqpdf, the
  /// check for changes on disk, a kept version), or a copy saved to another file.
  func writePDF(_ pdf: PDFFileDocument, to name: String?, appending: Bool) async throws(EdError) {
    if appending { throw EdError("'\(document.displayName)' is a PDF: W appends lines; use w to save it") }
    let url = try fileURL(name)
    let isOwnFile = document.fileURL?.standardizedFileURL == url.standardizedFileURL
    do {
      if isOwnFile {
        do {
          try await pdf.save()
        } catch let error as QuireError where error.code == .fileChangedOnDisk {
          throw conflictError(url)
        }
      } else if Self.isSpecialFile(url) {
        // A device or FIFO is written through (the pages as the document would save them).
        try FileSaver.writeOutput(try pdf.contents(forType: .pdf), to: url)
      } else {
        try await pdf.save(to: url, for: .saveToOperation)
      }
    } catch let error as EdError {
      throw error
    } catch {
      throw EdError("cannot write '\(url.path)': \(Self.reason(error))", cause: error)
    }
    if let error = pdf.lastVersioningError, isOwnFile {
      output?.note("note: the previous version of '\(url.lastPathComponent)' could not be kept: \(error.reason)")
    }
    if printsByteCounts { output?.print("\((try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0)") }
  }

  static func reason(_ error: any Error) -> String {
    (error as? QuireError)?.reason ?? "\(error)"
  }

  /// Whether `url` is a device or FIFO (or a link to one), which `w` writes through.
  static func isSpecialFile(_ url: URL) -> Bool {
    if case .special = try? OutputPath.kind(of: url) { return true }
    return false
  }

  /// Saves `text` with the document layer: over its own file (``Document/save()``; a change on
  /// disk is a conflict, which a script merges when no edits overlap), as its first file
  /// (save as, for an untitled buffer) or as a copy to another file.
  func save(_ text: PlainTextDocument, to url: URL, ownFile: Bool) async throws(EdError) {
    do {
      // A TextBundle is written as the kind its new name says (a package, or an archive).
      let type = document.textBundle != nil ? EdDocument.textBundleType(of: url) : nil
      if document.fileURL == nil {
        try await text.save(to: url, ofType: type, for: .saveAsOperation)
      } else if ownFile {
        try await saveOwnFile(text, url)
      } else {
        try await text.save(to: url, ofType: type, for: .saveToOperation)
      }
    } catch let error as EdError {
      throw error
    } catch {
      throw EdError("cannot write '\(url.path)': \(Self.reason(error))", cause: error)
    }
    if let error = text.lastVersioningError {
      output?.note("note: the previous version of '\(url.lastPathComponent)' could not be kept: \(error.reason)")
    }
  }

  func saveOwnFile(_ text: PlainTextDocument, _ url: URL) async throws {
    let count = text.lineCount
    let hadHistory = text.undoManager.canUndo || text.undoManager.canRedo
    do {
      try await text.save()
      // A clean document whose file changed reloads instead (the disk version is newer), with
      // a new history.
      if text.lineCount != count || (hadHistory && !text.undoManager.canUndo && !text.undoManager.canRedo) { buffer.noteChangedOutside() }
      return
    } catch let error as QuireError where error.code == .fileChangedOnDisk {
      // A script merges text files in conflict; a TextBundle is never merged.
      guard mergesOnWriteConflict, document.textBundle == nil, text.documentState.contains(.inConflict) else { throw conflictError(url) }
    }
    let outcome = try await text.resolveConflict(.mergeUnlessOverlapping)
    guard outcome.mergeConflicts == 0 else {
      throw EdError(
        "conflict: '\(url.lastPathComponent)' was changed on disk since quire read it, and \(outcome.mergeConflicts) of its changes overlap yours; nothing written"
      )
    }
    buffer.noteChangedOutside()
    try await text.save()
  }

  /// Says that `url` changed on disk since it was read here, and what the person can do.
  func conflictError(_ url: URL) -> EdError {
    EdError(
      "conflict: '\(url.lastPathComponent)' was changed on disk since quire read it; nothing written. "
        + (document.pdf == nil
          ? "'revert' loads the disk version (your edits stay undoable), \(document.textBundle == nil ? "'merge' combines both, " : "")'keep' then 'w' replaces it, 'w OTHER' saves yours elsewhere"
          : "'revert' loads the disk version (your page changes are dropped), 'keep' then 'w' replaces it, 'w OTHER.pdf' saves yours elsewhere"))
  }
}
