public import Foundation
import GRDB
import QuireSystem
public import QuireTypes
import Synchronization
public import SystemPackage

/// What to look for in the search index.
///
/// The text is a list of terms, all of which must occur (in any order): a word (`deadline`),
/// a phrase in double quotes (`"quarterly report"`), or a prefix (`budg*`). Case and accents
/// are ignored (SQLite FTS5's `unicode61` tokenizer with diacritics removed). Anything else
/// (operators, parentheses, column names) is taken as plain words, so no query text is an error.
public struct SearchQuery: Sendable, Hashable, Codable {
  /// The terms, as a person types them.
  public var text: String
  /// Only documents whose type conforms to one of these identifiers; all when empty.
  public var contentTypeIdentifiers: [String]
  /// The most hits returned (best first). 50.
  public var limit: Int
  /// How long the search may take before it is stopped (``QuireError`` `timedOut`). 20 s.
  public var timeLimit: Duration = .seconds(20)

  private enum CodingKeys: String, CodingKey {
    case text, contentTypeIdentifiers, limit
  }

  /// Makes a query.
  public init(_ text: String, contentTypes: [UTType] = [], limit: Int = 50, timeLimit: Duration = .seconds(20)) {
    self.text = text
    self.contentTypeIdentifiers = contentTypes.map(\.identifier)
    self.limit = limit
    self.timeLimit = timeLimit
  }

  /// Whether the text holds no word to look for (only quotes, `*`, punctuation): such a query
  /// is refused, a usage error.
  public var hasNoWords: Bool { SearchIndex.terms(of: text).isEmpty }
}

/// Text with some ranges marked as hits: a search snippet.
public struct MarkedText: Sendable, Hashable, Codable, CustomStringConvertible {
  /// One run of text, a hit or not.
  public struct Segment: Sendable, Hashable, Codable {
    /// The run's text.
    public var text: String
    /// Whether it matched the query.
    public var isMatch: Bool
    /// Makes a run.
    public init(text: String, isMatch: Bool) {
      self.text = text
      self.isMatch = isMatch
    }
  }
  /// The runs, in order.
  public var segments: [Segment]

  /// Makes marked text.
  public init(segments: [Segment]) { self.segments = segments }

  /// The text without marks.
  public var plainText: String { segments.map(\.text).joined() }

  /// The text with each hit between `open` and `close`, e.g. `[deadline]`, or `<mark>`/`</mark>`
  /// (then escape the text yourself: use ``segments``). Line breaks become spaces.
  public func rendered(open: String = "[", close: String = "]") -> String {
    segments.map { $0.isMatch ? open + $0.text + close : $0.text }.joined()
  }

  /// The text with hits in bold reverse video (`ESC[1;7m` … `ESC[0m`), for terminals.
  public var terminalText: String { rendered(open: "\u{1B}[1;7m", close: "\u{1B}[0m") }

  /// ``rendered(open:close:)`` with the default brackets.
  public var description: String { rendered() }
}

/// One document that matches a ``SearchQuery``.
public struct SearchHit: Sendable, Hashable, Codable {
  /// The document.
  public var url: URL
  /// Its type identifier.
  public var contentTypeIdentifier: String
  /// SQLite FTS5's `bm25` score, negated: higher is better.
  public var score: Double
  /// A few words around the best hit, with the hits marked.
  public var snippet: MarkedText
  /// The 1-based line of the first hit (for text documents; the REPL opens the document there).
  public var line: Int?
  /// The 1-based page of the first hit (for PDFs).
  public var page: Int?

  /// Makes a hit.
  public init(url: URL, contentTypeIdentifier: String, score: Double, snippet: MarkedText, line: Int?, page: Int?) {
    self.url = url
    self.contentTypeIdentifier = contentTypeIdentifier
    self.score = score
    self.snippet = snippet
    self.line = line
    self.page = page
  }

  /// The document's path with the bytes of its name, also when they are not UTF-8 (``url``
  /// then only stands for it).
  public var path: FilePath { PathCarrier.filePath(url) }

  /// Encodes the hit; a URL whose name is not UTF-8 is written as the `file://` URI of its
  /// bytes (`%FF`), as GLib writes it.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try PathCarrier.encode(url, forKey: .url, in: &container)
    try container.encode(contentTypeIdentifier, forKey: .contentTypeIdentifier)
    try container.encode(score, forKey: .score)
    try container.encode(snippet, forKey: .snippet)
    try container.encodeIfPresent(line, forKey: .line)
    try container.encodeIfPresent(page, forKey: .page)
  }

  enum CodingKeys: String, CodingKey {
    case url, contentTypeIdentifier, score, snippet, line, page
  }
}

/// What an index update or rebuild did.
public struct SearchIndexReport: Sendable, Hashable, Codable {
  /// Documents whose text was (re)read and indexed.
  public var indexed: Int
  /// Documents already up to date (same size and modification time).
  public var unchanged: Int
  /// Documents removed from the index (gone, or no longer under the locations).
  public var removed: Int
  /// Documents whose text could not be read (a broken or encrypted PDF, no permission),
  /// with why; they are indexed by name only.
  public var failures: [Failure]
  /// Whether the index file was missing or corrupt and was made anew.
  public var wasRecreated: Bool

  /// A document that could not be read.
  public struct Failure: Sendable, Hashable, Codable {
    public var url: URL
    public var reason: String
    public init(url: URL, reason: String) {
      self.url = url
      self.reason = reason
    }
  }

  /// Makes a report.
  public init(indexed: Int = 0, unchanged: Int = 0, removed: Int = 0, failures: [Failure] = [], wasRecreated: Bool = false) {
    self.indexed = indexed
    self.unchanged = unchanged
    self.removed = removed
    self.failures = failures
    self.wasRecreated = wasRecreated
  }
}

extension DocumentBrowser {
  /// The search index's file: ``Configuration/searchIndexURL``, else
  /// `$XDG_CACHE_HOME/quire/search/index-KEY.sqlite` (in a private folder, 0700), where KEY
  /// stands for the browser's locations and options (``searchIndexKey``).
  ///
  /// Browsers of different locations or options keep different indexes: an index holds what
  /// one browser lists, and brings itself up to date by removing what that browser does not
  /// list, so searching one set of folders never empties the index of another. An index that
  /// no search has used for 30 days is removed when a new one is made.
  public var searchIndexURL: URL {
    configuration.searchIndexURL
      ?? XDGBaseDirectory.cacheHome.url(in: configuration.environment).appendingPathComponent("quire/search/index-\(searchIndexKey).sqlite")
  }

  /// What decides which files the browser's index holds, its locations (in any order) and its
  /// options (subfolders, hidden files, allowed types), as 16 hexadecimal digits (FNV-1a):
  /// the name of its default index (``searchIndexURL``) and of the mark of a process that keeps
  /// that index current.
  var searchIndexKey: String {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    let key =
      configuration.locations.map(\.standardizedFileURL.path).sorted().joined(separator: "\u{0}")
      + "\u{0}\(configuration.includesSubfolders)\u{0}\(configuration.includesHiddenFiles)\u{0}"
      + configuration.allowedContentTypes.map(\.identifier).sorted().joined(separator: "\u{0}")
    for byte in key.utf8 {
      hash ^= UInt64(byte)
      hash = hash &* 0x100_0000_01b3
    }
    let digits = String(hash, radix: 16)
    return String(repeating: "0", count: 16 - digits.count) + digits
  }

  /// Brings the index up to date with the locations: new and changed documents are read
  /// (text, Markdown, TextBundle text, PDF text through poppler; on every core, committed in
  /// batches), gone ones removed. Cheap when little changed: one `lstat` per file, and only new
  /// or changed files are identified or read. A missing or corrupt index is made anew.
  ///
  /// - Parameter progress: Called after each document with (done, total), for progress display.
  /// - Throws: ``QuireError`` only when the index folder cannot be made or written.
  @discardableResult
  public func updateSearchIndex(progress: (@Sendable (Int, Int) -> Void)? = nil) throws -> SearchIndexReport {
    let listing = Listing(configuration: configuration)
    return try withSearchIndex { try $0.update(listing: listing, rebuilding: false, progress: progress) }
  }

  /// Throws the index away and indexes every document again.
  @discardableResult
  public func rebuildSearchIndex(progress: (@Sendable (Int, Int) -> Void)? = nil) throws -> SearchIndexReport {
    let listing = Listing(configuration: configuration)
    return try withSearchIndex { try $0.update(listing: listing, rebuilding: true, progress: progress) }
  }

  /// The documents matching `query`, best first (bm25), each with a snippet marking the hits.
  ///
  /// The index is queried as it is; call ``updateSearchIndex(progress:)`` first (the CLI does),
  /// or keep it current with ``startUpdatingSearchIndex()``.
  ///
  /// - Throws: ``QuireError`` when the index cannot be opened or made.
  /// - Parameter isCancelled: Asked every 50 ms while the search runs; when it says true
  ///   the search stops (``QuireError`` `cancelled`), as it does at the query's ``SearchQuery/timeLimit``
  ///   (`timedOut`).
  public func search(_ query: SearchQuery, isCancelled: @escaping @Sendable () -> Bool = { false }) throws -> [SearchHit] {
    try withSearchIndex { try $0.search(query, registry: configuration.registry, isCancelled: isCancelled) }
  }

  /// Brings the index up to date and searches it, as ``updateSearchIndex(progress:)`` and then
  /// ``search(_:isCancelled:)`` do, but both at once: the query reads the index as it is while
  /// the locations are walked on another core, and runs again only when the walk changed the
  /// index. When nothing changed, the usual case, a search costs the longer of the two rather
  /// than both.
  ///
  /// - Throws: ``QuireError`` as the two do.
  public func updateSearchIndexAndSearch(
    _ query: SearchQuery, progress: (@Sendable (Int, Int) -> Void)? = nil, isCancelled: @escaping @Sendable () -> Bool = { false }
  ) throws -> (hits: [SearchHit], report: SearchIndexReport) {
    let listing = Listing(configuration: configuration)
    let walked = Mutex<Result<SearchIndex.Walk, any Error>?>(nil)
    let answered = Mutex<Result<[SearchHit], any Error>?>(nil)
    let known = Mutex<SearchIndex.Fingerprints?>(nil)
    DispatchQueue.concurrentPerform(iterations: 2) { part in
      if part == 0 {
        let walk = Result { try SearchIndex.walk(listing) }
        walked.withLock { $0 = walk }
      } else {
        let hits = Result { try search(query, isCancelled: isCancelled) }
        answered.withLock { $0 = hits }
        // The walk takes longer than the query: what the update compares it with is read meanwhile.
        let fingerprints = try? withSearchIndex { try $0.fingerprints() }
        known.withLock { $0 = fingerprints }
      }
    }
    guard let walk = walked.withLock({ $0 }), let first = answered.withLock({ $0 }) else {
      preconditionFailure("concurrentPerform ran both parts")
    }
    let report = try withSearchIndex {
      try $0.update(listing: listing, walk: try walk.get(), known: known.withLock { $0 }, rebuilding: false, progress: progress)
    }
    if report.indexed == 0, report.removed == 0, !report.wasRecreated { return (try first.get(), report) }
    return (try search(query, isCancelled: isCancelled), report)
  }

  /// ``search(_:)`` for a text, all types.
  public func search(_ text: String, limit: Int = 50) throws -> [SearchHit] {
    try search(SearchQuery(text, limit: limit))
  }

  /// Keeps the index current from change notifications (see ``changes()``) until
  /// ``stopWatching()``: each added or changed document is indexed again within about a
  /// second, each removed one dropped.
  ///
  /// While it does, searches over the same locations, in this process or another, can answer
  /// from the index at once: ``searchIndexKeeper`` names this process.
  public func startUpdatingSearchIndex() throws {
    try updateSearchIndex()
    try watcher.start(browser: self)
    watcher.setIndexing(true)
    try takeSearchIndexMark()
  }

  /// Takes the mark that says this process keeps the index current, unless another process
  /// holds it already.
  private func takeSearchIndexMark() throws {
    let mark = try SearchIndexKeeper.take(at: SearchIndexKeeper.url(beside: searchIndexURL, key: searchIndexKey))
    if let mark,
      let previous = searchIndexKeeping.withLock({ held in
        defer { held = mark }
        return held
      })
    {
      SystemCalls.release(previous)
    }
  }

  /// Gives up the mark: searches look at every file again.
  func dropSearchIndexMark() {
    if let mark = searchIndexKeeping.withLock({ held in
      defer { held = nil }
      return held
    }) {
      SystemCalls.release(mark)
    }
  }

  /// The process (its pid) that keeps this browser's index current from change notifications
  /// for exactly these locations and options (``startUpdatingSearchIndex()``, e.g. `quire
  /// search --watch` or `quire serve`), or nil when none does. When one does, the index is
  /// current up to the last second or so and a search need not call
  /// ``updateSearchIndex(progress:)`` first (which looks at every file); when none does, it
  /// should.
  public var searchIndexKeeper: Int32? {
    SearchIndexKeeper.holder(at: SearchIndexKeeper.url(beside: searchIndexURL, key: searchIndexKey))
  }
}

extension DocumentBrowser {
  /// Loads SQLite and sets up the database layer's types for a search, on an in-memory
  /// database (no file is touched): `quire search` calls it on its other core while its
  /// arguments are parsed, so that the search itself finds them ready.
  package static func prepareForSearch() {
    guard let database = try? DatabaseQueue() else { return }
    _ = try? database.write { db in
      _ = try Int.fetchOne(db, sql: "PRAGMA user_version")
      _ = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
    }
    _ = try? database.read { db in
      let rows = try Row.fetchCursor(db, sql: "SELECT 'path', 1, 2, 3.0")
      while let row = try rows.next() { _ = (row[0] as String, row[1] as Int64, row[2] as Int64, row[3] as Double) }
      _ = try Row.fetchAll(db, sql: "SELECT 1 AS id, 'path' AS path, 'type' AS type, 1.0 AS score")
    }
  }

  /// The browser's one index, opened on first use.
  func withSearchIndex<T>(_ body: (SearchIndex) throws -> T) throws -> T {
    let index = searchIndex.withLock { index in
      if let index { return index }
      let made = SearchIndex(url: searchIndexURL, environment: configuration.environment)
      index = made
      return made
    }
    return try body(index)
  }

  /// Brings the index up to date with one change (called by the watcher while indexing).
  ///
  /// When the change cannot be written (the index stayed locked by another process past its
  /// wait, the disk is full), the index no longer holds every change, so this process stops
  /// vouching for it: its mark goes, and searches look at every file again. A full update is
  /// tried after a second, then at growing intervals (at most 30 s) while the browser keeps
  /// indexing; the first that succeeds takes the mark back.
  func indexChange(_ change: BrowserChange) {
    do {
      try writeChange(change)
    } catch {
      dropSearchIndexMark()
      let alreadyScheduled = searchIndexRecovering.withLock { recovering in
        defer { recovering = true }
        return recovering
      }
      if !alreadyScheduled { recoverSearchIndex(after: 1) }
    }
  }

  /// A full update of the index in `delay` seconds, on the watcher's queue, and again later
  /// until one succeeds or the browser stops indexing.
  private func recoverSearchIndex(after delay: Double) {
    watcher.queue.asyncAfter(deadline: .now() + delay) { [weak self] in
      guard let self else { return }
      guard self.watcher.isIndexing else {
        self.searchIndexRecovering.withLock { $0 = false }
        return
      }
      do {
        try self.updateSearchIndex()
        try self.takeSearchIndexMark()
        if !self.watcher.isIndexing { self.dropSearchIndexMark() }
        self.searchIndexRecovering.withLock { $0 = false }
      } catch {
        self.recoverSearchIndex(after: min(delay * 2, 30))
      }
    }
  }

  private func writeChange(_ change: BrowserChange) throws {
    try withSearchIndex { index in
      switch change.kind {
      case .removed: try index.update(path: change.url.path, item: nil)
      case .added, .modified, .moved:
        if let previous = change.previousURL { try index.update(path: previous.path, item: nil) }
        try index.update(path: change.url.path, item: change.item, pdfWorkers: configuration.pdfTextWorkers)
      default:
        _ = try index.update(listing: Listing(configuration: configuration), rebuilding: false, progress: nil)
      }
    }
  }
}
