import ArgumentParser
import Foundation
import Quire
import SystemPackage

/// `quire trash FILE…`: move documents to the freedesktop Trash (coordinated).
struct TrashCommand: AsyncParsableCommand, TakesNamesAsBytes, ChecksInputAfterParsing {
  static let configuration = CommandConfiguration(
    commandName: "trash",
    _superCommandName: "quire", abstract: "Move files to the Trash (as 'gio trash' does), or list and restore them.",
    discussion: """
      Uses the freedesktop Trash ($XDG_DATA_HOME/Trash, or the volume's .Trash-UID), so the \
      file manager and 'gio trash --list' show what Quire trashed. Open Quire documents are \
      told first. Exit codes: 0 done, 1 some file could not be trashed (the rest were), \
      2 usage error.
      """)

  @Argument(help: "Files to move to the Trash.") var files: [String] = []
  @Flag(help: "List what is in the Trash.") var list = false
  @Option(help: "Put back the trashed item that was at this path (the newest one).") var restore: [String] = []
  @Flag(help: "Print JSON.") var json = false

  func checkInputGiven() throws {
    if files.isEmpty && !list && restore.isEmpty { throw ValidationError("Give files to move to the Trash, or --list, or --restore PATH.") }
  }

  func run() async throws {
    let here = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    let browser = DocumentBrowser(configuration: .init(locations: [here]))
    var failures = 0
    var trashed: [TrashedItem] = []
    for file in files {
      do {
        // By its bytes: a name that is not UTF-8 is the very file named.
        trashed.append(try browser.trashItem(at: QuireCommand.filePath(file)))
      } catch {
        failures += 1
        ErrorReport.say(error)
      }
    }
    for path in restore {
      let original = URL(fileURLWithPath: path, relativeTo: here).standardizedFileURL
      do {
        // Paths compare as PathText, so a name that is not UTF-8 is found by its bytes.
        guard let item = try browser.trash.items().first(where: { $0.originalURL.path == original.path }) else {
          throw QuireError(
            .fileMissing, "Nothing in the Trash came from '\(BrowserJSON.shown(original))'. 'quire trash --list' shows what is there.", url: original)
        }
        print(BrowserJSON.shown(try browser.restoreItem(item)))
      } catch {
        failures += 1
        ErrorReport.say(error)
      }
    }
    if list {
      let items = (try? browser.trash.items()) ?? []
      if json {
        print(try BrowserJSON.encode(items))
      } else {
        for item in items { print("\(BrowserJSON.shown(item.originalURL))\t\(item.deletionDate.map { BrowseCommand.dateFormat.string(from: $0) } ?? "?")") }
      }
    } else if json && !trashed.isEmpty {
      print(try BrowserJSON.encode(trashed))
    }
    if failures > 0 { throw ExitCode(ExitStatus.failure) }
  }
}
