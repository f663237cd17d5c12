import ArgumentParser
import Foundation
import Quire

/// The version store of a session: `$XDG_STATE_HOME/quire/versions` unless a test set one.
private func versionStore(for session: REPLSession) -> VersionStore {
  VersionStore(root: REPLWordState.of(session).versionRoot)
}

/// The versions kept of the current document's file, oldest first.
private func keptVersions(of document: EdDocument, in session: REPLSession) throws -> (URL, [FileVersion]) {
  guard let url = document.fileURL else { throw EdError("'\(document.displayName)' is untitled: it has no saved versions") }
  do {
    return (url, try versionStore(for: session).versions(ofItemAt: url))
  } catch {
    throw EdError("cannot list the versions of '\(document.displayName)': \(REPLSession.message(for: error))")
  }
}

struct VersionsWord: SessionCommand {
  static let configuration = CommandConfiguration(commandName: "versions", abstract: "List the saved versions of the current document's file, with dates.")
  func run(in session: REPLSession) throws {
    let document = try session.requireDocument()
    let (_, versions) = try keptVersions(of: document, in: session)
    if versions.isEmpty { session.print("no versions of '\(document.displayName)' are kept") }
    let format = ISO8601DateFormatter()
    for (index, version) in versions.enumerated() {
      session.print("\(String(format: "%4d", index + 1))  saved \(format.string(from: version.savedDate))  modified \(format.string(from: version.modificationDate))  \(version.size) bytes")
    }
  }
}

struct RestoreWord: SessionCommand {
  static let configuration = CommandConfiguration(commandName: "restore", abstract: "Put version N into the buffer (u brings the current text back; w saves it).")
  @Argument(help: "The number from 'versions'.") var number: String
  func run(in session: REPLSession) throws {
    let document = try session.requireDocument()
    let (_, versions) = try keptVersions(of: document, in: session)
    guard let index = Int(number), index >= 1, index <= versions.count else {
      throw EdError("there is no version '\(number)': '\(document.displayName)' has \(versions.count) kept version\(versions.count == 1 ? "" : "s"); 'versions' lists them")
    }
    let data: Data
    do { data = try versionStore(for: session).contents(of: versions[index - 1]) } catch { throw EdError(REPLSession.message(for: error)) }
    guard let text = String(data: data, encoding: .utf8) else {
      throw EdError("version \(index) of '\(document.displayName)' is not UTF-8 text")
    }
    let lines = REPLWords.lines(of: text)
    let buffer = document.buffer
    buffer.beginEditGroup(named: "restore version \(index)", cursor: document.currentLine)
    buffer.replaceLines(in: 0..<buffer.lineCount, with: lines)
    document.currentLine = buffer.lineCount
    buffer.endEditGroup(cursor: document.currentLine)
    session.say("restored version \(index) of '\(document.displayName)' (\(lines.count) lines) into the buffer; u undoes it, w saves it")
  }
}
