import ArgumentParser
import Foundation
import Quire

/// `quire search QUERY`: full-text search of the documents in folders.
struct SearchCommand: AsyncParsableCommand, TakesNamesAsBytes {
  static let configuration = CommandConfiguration(
    commandName: "search",
    abstract: "Search the text of documents (Markdown, text, TextBundle, PDF), ranked, hits marked.",
    discussion: """
      QUERY is words (all must occur), "phrases" in double quotes and prefixes such as budg*. \
      The index (SQLite FTS5, in $XDG_CACHE_HOME/quire/search) is brought up to date first; \
      a missing or damaged index is made anew. Exit codes: 0 done (also with no hits), \
      1 a folder or the index could not be used, 2 usage error; 3 and up as 'quire help' lists.
      """)

  @Argument(help: "What to look for.") var query: [String] = []
  @OptionGroup var locations: BrowserLocationOptions
  @Option(name: .customLong("type"), help: "Only documents conforming to this type identifier or extension (repeatable).") var types: [String] = []
  @Option(help: "Show at most this many documents.") var limit = 20
  @Flag(help: "Throw the index away and make it again.") var rebuild = false
  @Flag(help: "Print JSON.") var json = false

  func validate() throws {
    if query.isEmpty && !rebuild { throw ValidationError("Give words to search for, or --rebuild.") }
    if !query.isEmpty && SearchQuery(query.joined(separator: " ")).hasNoWords {
      throw ValidationError(
        "'\(query.joined(separator: " "))' has no word to search for: give words, a \"phrase\" in double quotes, or a prefix such as budg*.")
    }
    for type in types where BrowseCommand.type(named: type) == nil { throw ValidationError("'\(type)' is not a known type identifier or filename extension.") }
  }

  /// `indexing 150/900` on one line of standard error, every 50 documents and at the end.
  @Sendable static func showProgress(done: Int, total: Int) {
    guard done == total || done % 50 == 0 else { return }
    let end = done == total ? "\n" : ""
    FileHandle.standardError.write(Data("\rindexing \(done)/\(total)\(end)".utf8))
  }

  func run() async throws {
    let browser = locations.makeBrowser()
    let showsProgress = isatty(STDERR_FILENO) == 1
    let progress: (@Sendable (Int, Int) -> Void)? = showsProgress ? Self.showProgress : nil
    let report = rebuild ? try browser.rebuildSearchIndex(progress: progress) : try browser.updateSearchIndex(progress: progress)
    if rebuild && !json { print("indexed \(report.indexed) documents (\(report.failures.count) by name only)") }
    guard !query.isEmpty else { return }
    let hits = try browser.search(SearchQuery(query.joined(separator: " "), contentTypes: types.compactMap(BrowseCommand.type(named:)), limit: limit))
    if json {
      print(try BrowserJSON.encode(hits))
      return
    }
    let terminal = isatty(STDOUT_FILENO) == 1
    for hit in hits {
      let place = hit.page.map { "page \($0), line \(hit.line ?? 1)" } ?? hit.line.map { "line \($0)" } ?? ""
      print("\(BrowserJSON.shown(hit.url))\(place.isEmpty ? "" : ":") \(place)")
      print("  " + (terminal ? hit.snippet.terminalText : hit.snippet.rendered()))
    }
  }
}
