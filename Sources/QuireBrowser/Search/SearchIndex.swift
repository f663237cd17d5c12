import Foundation
import GRDB
import QuireDocuments
import QuireFormats
import QuireSystem
import QuireTypes
import Synchronization
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// The full-text index: one SQLite database with an FTS5 table, through GRDB.
///
/// Tables: `document` (path, type, size, modification time, why its text could not be read)
/// and `content`, an FTS5 table (`name`, `body`; `unicode61` tokenizer, diacritics removed)
/// whose rowid is the document's id. A PDF's pages are joined with form feeds, so a hit's
/// page is the number of form feeds before it. The database file is made 0600 in a private
/// folder; a file that is not a database, is corrupt or has another schema version is removed
/// and made anew (``SearchIndexReport/wasRecreated``). Anything else at the database's name or
/// its journal's (a symbolic link, a FIFO, a device, a folder) is refused, naming it: it is
/// never followed (SQLite would open through a link), read (a FIFO would block) or removed.
final class SearchIndex: Sendable {
  static let schemaVersion = 1
  /// Bigger text files are indexed by name only.
  static let maximumTextSize = 64 << 20

  let url: URL
  let cacheHome: XDGBaseDirectory.Location
  private let queue = Mutex<DatabaseQueue?>(nil)
  private let recreated = Mutex(false)

  init(url: URL, environment: [String: String]) {
    self.url = url
    self.cacheHome = XDGBaseDirectory.cacheHome.location(in: environment)
  }

  // MARK: Opening

  /// The open database, made (or remade) when needed.
  func database() throws -> DatabaseQueue {
    if let open = queue.withLock({ $0 }) { return open }
    let made = try open()
    queue.withLock { $0 = made }
    return made
  }

  private func open() throws -> DatabaseQueue {
    let folder = url.deletingLastPathComponent()
    let trusted = folder.path.hasPrefix(cacheHome.url.path + "/") ? cacheHome.trustedFolder : folder.deletingLastPathComponent()
    try PrivateFolder.make(folder, below: trusted, role: "the search index folder", alternative: "set XDG_CACHE_HOME to a folder of your own")
    try checkNothingPlanted(in: folder, trusted: trusted)
    do {
      return try openAndCheck()
    } catch {
      // Not a database, corrupt, or another schema: start again; the index is only a cache.
      removeFiles()
      recreated.withLock { $0 = true }
      do {
        return try openAndCheck()
      } catch {
        throw QuireError(
          .libraryFailure,
          "Cannot make the search index \(QuireError.name(url)) in '\(folder.path)'. Check that the folder is writable, or set XDG_CACHE_HOME.",
          url: url, cause: error)
      }
    }
  }

  private func openAndCheck() throws -> DatabaseQueue {
    if case .failure = SystemCalls.lstat(PathCarrier.filePath(url)) {
      try Actions.writeNew(Data(), to: url, permissions: [.ownerReadWrite])
      recreated.withLock { $0 = true }
    }
    guard case .success(let info) = SystemCalls.lstat(PathCarrier.filePath(url)), (info.st_mode & S_IFMT) == S_IFREG else {
      throw QuireError(.invalidContent, "The search index \(QuireError.name(url)) is not a regular file.", url: url)
    }
    var configuration = Configuration()
    configuration.busyMode = .timeout(10)
    let database = try DatabaseQueue(path: url.path, configuration: configuration)
    try database.write { db in
      let version = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
      let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
      if version == 0 && tables.isEmpty {
        try db.execute(
          sql: """
            CREATE TABLE document (
              id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, type TEXT NOT NULL,
              size INTEGER NOT NULL, mtime REAL NOT NULL, failure TEXT);
            CREATE VIRTUAL TABLE content USING fts5(name, body, tokenize = 'unicode61 remove_diacritics 2');
            PRAGMA user_version = \(Self.schemaVersion);
            """)
      } else if version != Self.schemaVersion {
        throw QuireError(.invalidContent, "The search index has schema \(version), not \(Self.schemaVersion).", url: url)
      }
      // Reads every page of the FTS table's structure: a corrupt index fails here, not later.
      try db.execute(sql: "INSERT INTO content(content, rank) VALUES('integrity-check', 0)")
      _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM document")
    }
    return database
  }

  /// The database's file and SQLite's files beside it.
  static let suffixes = ["", "-wal", "-shm", "-journal"]

  /// Refuses the index when its file or one of SQLite's files beside it is anything but a
  /// regular file: looked at in the private folder (opened through `PrivateFolder`, so the
  /// folder itself is checked too) with `fstatat(AT_SYMLINK_NOFOLLOW)`, so nothing is followed.
  private func checkNothingPlanted(in folder: URL, trusted: URL) throws {
    let opened: FileDescriptor
    do {
      opened = try PrivateFolder.open(folder, below: trusted)
    } catch {
      throw error.error(role: "the search index folder", alternative: "set XDG_CACHE_HOME to a folder of your own")
    }
    defer { SystemCalls.release(opened) }
    for suffix in Self.suffixes {
      let name = url.lastPathComponent + suffix
      guard case .success(let info) = SystemCalls.lstat(name, in: opened), info.st_mode & S_IFMT != S_IFREG else { continue }
      let what: String
      switch info.st_mode & S_IFMT {
      case S_IFLNK: what = "a symbolic link, which Quire never follows for its private files"
      case S_IFIFO: what = "a FIFO (named pipe), not a database"
      case S_IFDIR: what = "a folder, not a database"
      case S_IFCHR, S_IFBLK: what = "a device, not a database"
      default: what = "not a regular file"
      }
      let path = folder.appendingPathComponent(name)
      throw QuireError(
        .permissionDenied,
        "Cannot use the search index '\(DisplayName.escaping(path: path))': it is \(what). Nothing was read or removed; remove it yourself (the index is only a cache and is made anew), or set XDG_CACHE_HOME to a folder of your own.",
        url: path)
    }
  }

  /// Removes the index's regular files (a corrupt or outdated cache); anything else there is
  /// left alone (``checkNothingPlanted(in:trusted:)`` refuses it).
  private func removeFiles() {
    queue.withLock { $0 = nil }
    for suffix in Self.suffixes {
      let path = PathCarrier.path(url.path + suffix)
      guard case .success(let info) = SystemCalls.lstat(path), info.st_mode & S_IFMT == S_IFREG else { continue }
      _ = SystemCalls.remove(path)
    }
  }

  /// Runs `body` on the database; when SQLite finds it corrupt, makes it anew once and runs again.
  private func withDatabase<T>(_ body: (DatabaseQueue) throws -> T) throws -> T {
    do {
      return try body(try database())
    } catch let error as DatabaseError where [.SQLITE_CORRUPT, .SQLITE_NOTADB].contains(error.resultCode) {
      removeFiles()
      recreated.withLock { $0 = true }
      return try body(try database())
    }
  }

  private func takeRecreated() -> Bool {
    recreated.withLock { value in
      defer { value = false }
      return value
    }
  }

  // MARK: Updating

  struct Stored {
    var id: Int64
    var size: Int64
    var mtime: Double
  }

  func update(items: [BrowserItem], registry: TypeRegistry, rebuilding: Bool, progress: (@Sendable (Int, Int) -> Void)?) throws -> SearchIndexReport {
    if rebuilding { removeFiles() }
    var report = SearchIndexReport()
    let indexable = items.filter { Self.isIndexable($0.contentType) }
    try withDatabase { database in
      let stored = try database.read { db in
        try Row.fetchAll(db, sql: "SELECT id, path, size, mtime FROM document").reduce(into: [String: Stored]()) {
          $0[$1["path"]] = Stored(id: $1["id"], size: $1["size"], mtime: $1["mtime"])
        }
      }
      let wanted = Set(indexable.map(\.url.path))
      let gone = stored.filter { !wanted.contains($0.key) }
      if !gone.isEmpty {
        try database.write { db in
          for (_, entry) in gone { try Self.delete(entry.id, in: db) }
        }
        report.removed = gone.count
      }
      var batch: [(BrowserItem, String, String?)] = []
      func flush() throws {
        guard !batch.isEmpty else { return }
        try database.write { db in
          for (item, text, failure) in batch { try Self.store(item, text: text, failure: failure, in: db) }
        }
        batch.removeAll()
      }
      for (number, item) in indexable.enumerated() {
        if let entry = stored[item.url.path], entry.size == item.size, entry.mtime == item.modificationDate.timeIntervalSince1970 {
          report.unchanged += 1
        } else {
          let (text, failure) = Self.text(of: item)
          if let failure { report.failures.append(.init(url: item.url, reason: failure)) }
          batch.append((item, text, failure))
          report.indexed += 1
          if batch.count >= 64 { try flush() }
        }
        progress?(number + 1, indexable.count)
      }
      try flush()
    }
    report.wasRecreated = takeRecreated() || rebuilding
    return report
  }

  /// Indexes one document again (or drops it when `item` is nil).
  func update(path: String, item: BrowserItem?) throws {
    try withDatabase { database in
      try database.write { db in
        if let id = try Int64.fetchOne(db, sql: "SELECT id FROM document WHERE path = ?", arguments: [path]) { try Self.delete(id, in: db) }
      }
      guard let item, Self.isIndexable(item.contentType) else { return }
      let (text, failure) = Self.text(of: item)
      try database.write { db in try Self.store(item, text: text, failure: failure, in: db) }
    }
  }

  static func isIndexable(_ type: UTType) -> Bool {
    type.conforms(to: .text) || type.conforms(to: .pdf) || type.conforms(to: .textBundle)
  }

  private static func delete(_ id: Int64, in db: Database) throws {
    try db.execute(sql: "DELETE FROM content WHERE rowid = ?", arguments: [id])
    try db.execute(sql: "DELETE FROM document WHERE id = ?", arguments: [id])
  }

  private static func store(_ item: BrowserItem, text: String, failure: String?, in db: Database) throws {
    if let id = try Int64.fetchOne(db, sql: "SELECT id FROM document WHERE path = ?", arguments: [item.url.path]) { try delete(id, in: db) }
    try db.execute(
      sql: "INSERT INTO document(path, type, size, mtime, failure) VALUES (?, ?, ?, ?, ?)",
      arguments: [item.url.path, item.contentTypeIdentifier, item.size, item.modificationDate.timeIntervalSince1970, failure])
    try db.execute(sql: "INSERT INTO content(rowid, name, body) VALUES (?, ?, ?)", arguments: [db.lastInsertedRowID, item.name, text])
  }

  /// The document's text, or "" and why not.
  static func text(of item: BrowserItem) -> (String, String?) {
    do {
      if item.contentType.conforms(to: .pdf) {
        let pdf = try PDFFile(contentsOf: item.url)
        var pages: [String] = []
        for index in 0..<pdf.pageCount { pages.append((try? pdf.text(ofPage: index)) ?? "") }
        return (pages.joined(separator: "\u{0C}"), nil)
      }
      if item.isPackage {
        return (try TextBundle(url: item.url).text, nil)
      }
      guard item.size <= maximumTextSize else { return ("", "larger than \(maximumTextSize >> 20) MB: indexed by name only") }
      let data = try readRegularFile(item.url)
      return (String(decoding: data, as: UTF8.self), nil)
    } catch let error as QuireError {
      return ("", error.reason)
    } catch {
      return ("", "\(error)")
    }
  }

  /// Reads a regular file without following a symbolic link or blocking on a FIFO.
  static func readRegularFile(_ url: URL) throws -> Data {
    let fd: FileDescriptor
    switch SystemCalls.open(PathCarrier.filePath(url), O_RDONLY | O_NOFOLLOW | O_NONBLOCK) {
    case .success(let opened): fd = opened
    case .failure(let failure):
      throw QuireError(QuireError.Code(failure.errno, for: .open), "Cannot read \(QuireError.name(url)).", url: url, cause: failure)
    }
    defer { SystemCalls.release(fd) }
    guard case .success(let info) = SystemCalls.fstat(fd), (info.st_mode & S_IFMT) == S_IFREG else {
      throw QuireError(.unsupportedType, "\(QuireError.name(url)) is not a regular file.", url: url)
    }
    var data = Data()
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while case .success(let count) = buffer.withUnsafeMutableBytes({ SystemCalls.read(fd, into: $0) }), count > 0 {
      data.append(contentsOf: buffer[0..<count])
      if data.count > maximumTextSize { break }
    }
    return data
  }

  // MARK: Searching

  func search(_ query: SearchQuery, registry: TypeRegistry) throws -> [SearchHit] {
    let match = try Self.matchExpression(for: query.text)
    return try withDatabase { database in
      try database.read { db in
        var sql = """
          SELECT d.path AS path, d.type AS type, bm25(content, 4.0, 1.0) AS score,
                 snippet(content, 1, char(1), char(2), char(3), 12) AS snip, content.body AS body
          FROM content JOIN document d ON d.id = content.rowid
          WHERE content MATCH ?
          """
        var arguments: [any DatabaseValueConvertible] = [match]
        if !query.contentTypeIdentifiers.isEmpty {
          let wanted = query.contentTypeIdentifiers.compactMap { registry.type(withIdentifier: $0) ?? UTType($0) }
          let stored = try String.fetchAll(db, sql: "SELECT DISTINCT type FROM document")
          let types = stored.filter { id in
            let type = registry.type(withIdentifier: id) ?? UTType(id) ?? .data
            return wanted.contains { type.conforms(to: $0) }
          }
          if types.isEmpty { return [] }
          sql += " AND d.type IN (\(types.map { _ in "?" }.joined(separator: ",")))"
          arguments += types
        }
        sql += " ORDER BY score LIMIT ?"
        arguments.append(max(1, query.limit))
        return try Row.fetchAll(db, sql: sql, arguments: StatementArguments(arguments)).map { row in
          let body: String = row["body"] ?? ""
          let snippetText: String = row["snip"] ?? ""
          let (line, page) = Self.position(ofSnippet: snippetText, in: body, isPDF: (row["type"] as String) == UTType.pdf.identifier)
          return SearchHit(
            url: URL(fileURLWithPath: row["path"]), contentTypeIdentifier: row["type"], score: -(row["score"] as Double),
            snippet: Self.markedText(snippetText), line: line, page: page)
        }
      }
    }
  }

  /// The FTS5 expression for what a person typed: each word, `"phrase"` or `prefix*` becomes a
  /// quoted FTS5 string (so operators and punctuation are plain text), all of which must match.
  static func matchExpression(for text: String) throws -> String {
    var terms: [String] = []
    var rest = Substring(text)
    func quoted(_ words: Substring) -> String { "\"" + words.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
    while let first = rest.first {
      if first.isWhitespace {
        rest = rest.dropFirst()
        continue
      }
      if first == "\"" {
        let body = rest.dropFirst()
        let end = body.firstIndex(of: "\"") ?? body.endIndex
        let phrase = body[..<end]
        if phrase.contains(where: { $0.isLetter || $0.isNumber }) { terms.append(quoted(phrase)) }
        rest = end < body.endIndex ? body[body.index(after: end)...] : ""
        continue
      }
      let end = rest.firstIndex(where: { $0.isWhitespace || $0 == "\"" }) ?? rest.endIndex
      var word = rest[..<end]
      rest = rest[end...]
      let isPrefix = word.hasSuffix("*")
      while word.hasSuffix("*") { word = word.dropLast() }
      guard word.contains(where: { $0.isLetter || $0.isNumber }) else { continue }
      terms.append(quoted(word) + (isPrefix ? "*" : ""))
    }
    guard !terms.isEmpty else {
      throw QuireError(.invalidArgument, "Search for what? Give words, a \"phrase\" in double quotes, or a prefix such as budg*.")
    }
    return terms.joined(separator: " ")
  }

  /// FTS5's snippet (hits between U+0001 and U+0002, cut ends marked U+0003) as marked text.
  static func markedText(_ snippet: String) -> MarkedText {
    var segments: [MarkedText.Segment] = []
    var current = ""
    var inMatch = false
    for character in snippet {
      switch character {
      case "\u{01}", "\u{02}":
        if !current.isEmpty { segments.append(.init(text: current, isMatch: inMatch)) }
        current = ""
        inMatch = character == "\u{01}"
      case "\u{03}": current += "…"
      case "\n", "\r", "\u{0C}", "\t": current += " "
      default: current.append(character)
      }
    }
    if !current.isEmpty { segments.append(.init(text: current, isMatch: inMatch)) }
    return MarkedText(segments: segments)
  }

  /// The 1-based line (and for PDFs page) of the snippet's first hit: the snippet without its
  /// marks is a piece of the body, so finding it there gives the hit's offset.
  static func position(ofSnippet snippet: String, in body: String, isPDF: Bool) -> (line: Int?, page: Int?) {
    guard let markIndex = snippet.firstIndex(of: "\u{01}") else { return (nil, nil) }
    let before = snippet[..<markIndex].replacingOccurrences(of: "\u{03}", with: "").replacingOccurrences(of: "\u{02}", with: "")
    let hitStart = snippet[snippet.index(after: markIndex)...].prefix { $0 != "\u{02}" }
    let needle = before + hitStart
    guard !needle.isEmpty, let range = body.range(of: needle) else { return (nil, nil) }
    let offset = body.utf8.distance(from: body.utf8.startIndex, to: range.lowerBound) + before.utf8.count
    var line = 1
    var page = 1
    for byte in body.utf8.prefix(offset) {
      if byte == 0x0A { line += 1 }
      if byte == 0x0C {
        page += 1
        line = 1
      }
    }
    return isPDF ? (line, page) : (line, nil)
  }
}
