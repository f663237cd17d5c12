import ArgumentParser
import Foundation
import Quire
import SystemPackage

/// `quire recent`: the desktop's recent documents, moved files found again.
struct RecentCommand: AsyncParsableCommand, TakesNamesAsBytes {
  static let configuration = CommandConfiguration(
    commandName: "recent",
    _superCommandName: "quire", abstract: "List recent documents (shared with GNOME), following files that moved.",
    discussion: """
      Reads $XDG_DATA_HOME/recently-used.xbel, the list GTK applications share. Documents Quire \
      opened are found again after a rename or move (by file handle, inode or content, in \
      their old folder and the --in folders); gone ones are marked. Exit codes: 0 done, \
      1 the list could not be read or written, 2 usage error; 3 and up as 'quire help' lists.
      """)

  @OptionGroup var locations: BrowserLocationOptions
  @Option(help: "Add this document to the list (as Quire's).") var add: [String] = []
  @Option(help: "Remove this document from the list.") var remove: [String] = []
  @Option(help: "Show at most this many.") var limit = 20
  @Flag(help: "Print JSON.") var json = false

  func run() async throws {
    // The files are taken as bytes; the folders to search are not yet (the listing takes URLs).
    for folder in locations.folders where PathText.holdsNonUTF8Bytes(folder) {
      throw QuireError(
        .invalidArgument,
        "Cannot search '\(DisplayName.escaping(folder))' for moved files: a folder whose name is not UTF-8 cannot be searched yet. Give a UTF-8 folder; nothing was read or written."
      )
    }
    let browser = locations.makeBrowser()
    // By their bytes: a name that is not UTF-8 is the very file named.
    for path in add { try browser.noteRecentDocument(at: QuireCommand.filePath(path)) }
    for path in remove { try browser.recentDocuments.remove(QuireCommand.filePath(path)) }
    if !add.isEmpty || !remove.isEmpty { return }
    let entries = Array(try browser.recentItems().prefix(max(0, limit)))
    if json {
      print(try BrowserJSON.encode(entries))
      return
    }
    for entry in entries {
      switch entry.status {
      case .available: print(BrowserJSON.shown(entry.url))
      case .moved: print("\(BrowserJSON.shown(entry.url))  (moved from \(entry.previousURL.map(BrowserJSON.shown) ?? "?"))")
      case .missing: print("\(BrowserJSON.shown(entry.url))  (gone)")
      }
    }
  }
}
