import ArgumentParser
import Foundation
import Quire

/// The session's version store, or an error saying versions are not kept.
@MainActor
private func versionStore(of session: REPLSession) throws -> VersionStore {
  guard let store = session.configuration.versionStore else {
    throw EdError("this session keeps no versions (quire keeps them under $XDG_STATE_HOME/quire/versions)")
  }
  return store
}

/// The versions kept of the current document's file, oldest first.
@MainActor
private func keptVersions(of document: EdDocument, in session: REPLSession) throws -> (VersionStore, [FileVersion]) {
  guard let url = document.fileURL else { throw EdError("'\(document.displayName)' is untitled: it has no saved versions") }
  let store = try versionStore(of: session)
  do {
    return (store, try store.versions(ofItemAt: url.resolvingSymlinksInPath()))
  } catch {
    throw EdError("cannot list the versions of '\(document.displayName)': \(REPLSession.message(for: error))")
  }
}

struct VersionsWord: SessionCommand {
  static let configuration = CommandConfiguration(
    commandName: "versions", abstract: "List the saved versions of the current document's file, with dates (each w keeps one).")
  @MainActor func run(in session: REPLSession) async throws {
    let document = try session.requireDocument()
    let (_, versions) = try keptVersions(of: document, in: session)
    if versions.isEmpty { session.print("no versions of '\(document.displayName)' are kept yet: each w keeps the version it replaces") }
    let format = ISO8601DateFormatter()
    for (index, version) in versions.enumerated() {
      session.print(
        "\(String(format: "%4d", index + 1))  saved \(format.string(from: version.savedDate))  modified \(format.string(from: version.modificationDate))  \(version.size) bytes"
      )
    }
  }
}

struct RestoreWord: SessionCommand {
  static let configuration = CommandConfiguration(
    commandName: "restore",
    abstract: "Put version N into the buffer (u brings the current text back; w saves it); for a PDF, put version N back into its file.")
  @Argument(help: "The number from 'versions'.") var number: String
  @MainActor func run(in session: REPLSession) async throws {
    let document = try session.requireDocument()
    let (store, versions) = try keptVersions(of: document, in: session)
    guard let index = Int(number), index >= 1, index <= versions.count else {
      throw EdError(
        "there is no version '\(number)': '\(document.displayName)' has \(versions.count) kept version\(versions.count == 1 ? "" : "s"); 'versions' lists them")
    }
    let version = versions[index - 1]
    if document.pdfDocument != nil {
      try await restorePDF(version, number: index, of: document, from: store, in: session)
      return
    }
    // The document's own undoable restore (a TextBundle's whole package, assets included).
    try await document.buffer.editDocument(named: "restore version \(index)", cursor: document.currentLine) { text in try text.restoreVersion(version) }
    document.currentLine = document.buffer.lineCount
    session.say(
      "restored version \(index) of '\(document.displayName)' (\(document.buffer.lineCount) lines) into the buffer; u undoes it, w saves it")
  }

  /// Puts version `number` back into a PDF's file (keeping what the file held as a version
  /// first, so `restore` of that version takes it back) and reads the PDF again.
  @MainActor private func restorePDF(_ version: FileVersion, number: Int, of document: EdDocument, from store: VersionStore, in session: REPLSession)
    async throws
  {
    if document.isEdited {
      throw EdError("'\(document.displayName)' has unsaved page changes: 'w' saves them (as a version too) or 'revert' drops them before restoring")
    }
    do {
      try store.restore(version, to: document.fileURL?.resolvingSymlinksInPath())
    } catch {
      throw EdError("cannot restore version \(number) of '\(document.displayName)': \(REPLSession.message(for: error))")
    }
    try await session.reloadPDF(document)
    session.say("restored version \(number) of '\(document.displayName)' (\(document.extent))")
    session.say("the file holds version \(number) now; the version it replaced is kept: 'versions' lists it, 'restore' takes it back")
  }
}
