import ArgumentParser
import Foundation
import Quire
import QuireSystem

/// `quire search QUERY`: full-text search of the documents in folders.
struct SearchCommand: AsyncParsableCommand, TakesNamesAsBytes, ChecksInputAfterParsing {
  static let configuration = CommandConfiguration(
    commandName: "search",
    _superCommandName: "quire", abstract: "Search the text of documents (Markdown, text, TextBundle, PDF), ranked, hits marked.",
    discussion: """
      QUERY is words (all must occur), "phrases" in double quotes and prefixes such as budg*. \
      The index (SQLite FTS5, in $XDG_CACHE_HOME/quire/search) is brought up to date first, \
      unless a 'quire search --watch' or 'quire serve' of the same folders keeps it current: \
      then the search answers from it at once and says so on standard error. A missing or \
      damaged index is made anew. Exit codes: 0 done (also with no hits), \
      1 a folder or the index could not be used, 2 usage error; 3 and up as 'quire help' lists.
      """)

  @Argument(help: "What to look for.") var query: [String] = []
  @OptionGroup var locations: BrowserLocationOptions
  @Option(name: .customLong("type"), help: "Only documents conforming to this type identifier or extension (repeatable).") var types: [String] = []
  @Option(help: "Show at most this many documents.") var limit = Request.defaultLimit
  @Flag(help: "Throw the index away and make it again.") var rebuild = false
  @Flag(help: "Print JSON.") var json = false
  @Flag(
    help: ArgumentHelp(
      "Keep the index current until stopped (Ctrl-C, SIGTERM).",
      discussion: "Searches of the same folders then answer from the index at once, without looking at every file first."))
  var watch = false

  func checkInputGiven() throws { try request.checkInputGiven() }

  func validate() throws { try request.validate() }

  func run() async throws { try await request.run() }

  /// What was asked, as the parser read it.
  var request: Request {
    Request(query: query, folders: locations.folders, types: types, limit: limit, rebuild: rebuild, json: json, watch: watch)
  }

  /// A search as asked on the command line: read by argument-parser, or, for the form people
  /// type most (`quire search WORD…` with `--in`, `--type`, `--limit`, `--json`), without it
  /// (``init(directForm:)``).
  struct Request: DirectForm {
    var query: [String]
    var folders: [String] = []
    var types: [String] = []
    var limit = Self.defaultLimit
    var rebuild = false
    var json = false
    var watch = false

    /// `--limit`'s default.
    static let defaultLimit = 20

    func checkInputGiven() throws {
      if query.isEmpty && !rebuild && !watch { throw ValidationError("Give words to search for, --rebuild or --watch.") }
    }

    func validate() throws {
      if watch && !query.isEmpty { throw ValidationError("--watch keeps the index current and searches nothing; search from another shell.") }
      if !query.isEmpty && SearchQuery(query.joined(separator: " ")).hasNoWords {
        throw ValidationError(
          "'\(query.joined(separator: " "))' has no word to search for: give words, a \"phrase\" in double quotes, or a prefix such as budg*.")
      }
      for type in types where BrowseCommand.type(named: type) == nil {
        throw ValidationError("'\(type)' is not a known type identifier or filename extension.")
      }
    }

    func run() async throws {
      let browser = BrowserLocationOptions.makeBrowser(folders: folders)
      let showsProgress = isatty(STDERR_FILENO) == 1
      let progress: (@Sendable (Int, Int) -> Void)? = showsProgress ? SearchCommand.showProgress : nil
      if watch {
        if rebuild { try browser.rebuildSearchIndex(progress: progress) }
        try await SearchCommand.keepCurrent(browser)
        return
      }
      let search = SearchQuery(query.joined(separator: " "), contentTypes: types.compactMap(BrowseCommand.type(named:)), limit: limit)
      let hits: [SearchHit]
      // A process that keeps the index current (quire search --watch, quire serve) makes the
      // walk over every file unneeded; otherwise the index is brought up to date as the query
      // runs, and the query runs again if that changed it.
      if !rebuild, let keeper = browser.searchIndexKeeper {
        FileHandle.standardError.write(
          Data("quire: answered from the index that process \(keeper) keeps current; a change of the last second may not be in it yet.\n".utf8))
        guard !query.isEmpty else { return }
        hits = try browser.search(search)
      } else if rebuild || query.isEmpty {
        let report = rebuild ? try browser.rebuildSearchIndex(progress: progress) : try browser.updateSearchIndex(progress: progress)
        if rebuild && !json { print("indexed \(report.indexed) documents (\(report.failures.count) by name only)") }
        guard !query.isEmpty else { return }
        hits = try browser.search(search)
      } else {
        hits = try browser.updateSearchIndexAndSearch(search, progress: progress).hits
      }
      if json {
        print(try BrowserJSON.encode(hits))
        return
      }
      SearchCommand.printHits(hits, terminal: isatty(STDOUT_FILENO) == 1)
    }
  }

  /// `indexing 150/900` on one line of standard error, every 50 documents and at the end.
  @Sendable static func showProgress(done: Int, total: Int) {
    guard done == total || done % 50 == 0 else { return }
    let end = done == total ? "\n" : ""
    FileHandle.standardError.write(Data("\rindexing \(done)/\(total)\(end)".utf8))
  }

  /// `--watch`: keeps the index current until SIGINT or SIGTERM (or the task's cancellation).
  static func keepCurrent(_ browser: DocumentBrowser) async throws {
    if QuireCommand.ownsProcess {
      Interrupt.install(for: [SIGINT, SIGTERM])
      CaughtSignals.prepare()
    }
    try browser.startUpdatingSearchIndex()
    defer { browser.stopWatching() }
    let folders = browser.configuration.locations.count
    FileHandle.standardError.write(
      Data("quire: keeping the search index of \(folders) folder\(folders == 1 ? "" : "s") current (process \(getpid())); stop with Ctrl-C.\n".utf8))
    await WatchCommand.waitUntilDone(printer: WatchPrinter(), count: nil, deadline: nil, interruptible: QuireCommand.ownsProcess)
  }

  static func printHits(_ hits: [SearchHit], terminal: Bool) {
    for hit in hits {
      let place = hit.page.map { "page \($0), line \(hit.line ?? 1)" } ?? hit.line.map { "line \($0)" } ?? ""
      print("\(BrowserJSON.shown(hit.url))\(place.isEmpty ? "" : ":") \(place)")
      print("  " + (terminal ? hit.snippet.terminalText : hit.snippet.rendered()))
    }
  }
}

extension SearchCommand.Request {
  /// `search WORD…` with any of `--in FOLDER`, `--type TYPE` (each repeatable), `--limit N`
  /// and `--json`, spelled `--name value` or `--name=value`, when the words hold something to
  /// search for; nil for anything else (another option, `--`, a short option, a value that is
  /// missing, empty or starts with `-`, `--limit` or `--json` twice, a limit that is not a
  /// whole number), which the parser then reads with its checks and messages. The result is
  /// what the parser would have made of the same line.
  init?(directForm arguments: [String]) {
    guard arguments.count >= 2, arguments[0] == "search" else { return nil }
    query = []
    var givenLimit: Int?
    var remaining = arguments.dropFirst()[...]
    while let argument = remaining.popFirst() {
      guard argument.hasPrefix("-") else {
        query.append(argument)
        continue
      }
      let (name, attached) = Self.split(option: argument)
      if name == "--json", attached == nil, !json {
        json = true
        continue
      }
      guard ["--in", "--type", "--limit"].contains(name), let value = attached ?? remaining.popFirst(), !value.isEmpty, !value.hasPrefix("-") else {
        return nil
      }
      switch name {
      case "--in": folders.append(value)
      case "--type": types.append(value)
      default:
        guard givenLimit == nil, let number = Int(value) else { return nil }
        givenLimit = number
      }
    }
    limit = givenLimit ?? Self.defaultLimit
    guard !query.isEmpty, (try? validate()) != nil else { return nil }
  }

  /// `--name=value` as its name and value; any other argument as itself and nil.
  private static func split(option argument: String) -> (name: Substring, value: String?) {
    guard let equals = argument.firstIndex(of: "=") else { return (argument[...], nil) }
    return (argument[..<equals], String(argument[argument.index(after: equals)...]))
  }
}
