import ArgumentParser
import Foundation
import Quire

/// `quire recent`: the desktop's recent documents, moved files found again.
struct RecentCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "recent",
    abstract: "List recent documents (shared with GNOME), following files that moved.",
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
    let browser = locations.makeBrowser()
    for path in add { try browser.noteRecentDocument(at: URL(fileURLWithPath: path)) }
    for path in remove { try browser.recentDocuments.remove(URL(fileURLWithPath: path)) }
    if !add.isEmpty || !remove.isEmpty { return }
    let entries = Array(try browser.recentItems().prefix(max(0, limit)))
    if json {
      print(try BrowserJSON.encode(entries))
      return
    }
    for entry in entries {
      switch entry.status {
      case .available: print(entry.url.path)
      case .moved: print("\(entry.url.path)  (moved from \(entry.previousURL?.path ?? "?"))")
      case .missing: print("\(entry.url.path)  (gone)")
      }
    }
  }
}
