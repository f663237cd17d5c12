import Foundation
import GRDB
internal import GRDBSQLite
import QuireDocuments
import QuireFormats
import QuirePreviews
import QuireSystem
import QuireTypes
import Synchronization
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// The full-text index: one SQLite database with an FTS5 table, through GRDB.
///
/// Tables: `document` (path, type, size, modification time, why its text could not be read),
/// `skipped` (files under the locations that are not indexed, e.g. images, with their size and
/// modification time, so an update need not identify them again) and `content`, an FTS5 table (`name`, `body`; `unicode61` tokenizer, diacritics removed)
/// whose rowid is the document's id. A PDF's pages are joined with form feeds, so a hit's
/// page is the number of form feeds before it. The database file is made 0600 in a private
/// folder; a file that is not a database, is corrupt or has another schema version is removed
/// and made anew (``SearchIndexReport/wasRecreated``). Anything else at the database's name or
/// its journal's (a symbolic link, a FIFO, a device, a folder) is refused, naming it: it is
/// never followed (SQLite would open through a link), read (a FIFO would block) or removed.
final class SearchIndex: Sendable {
  static let schemaVersion = 2
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
    let opened: FileDescriptor
    do {
      opened = try PrivateFolder.open(folder, below: trusted)
    } catch {
      throw error.error(role: "the search index folder", alternative: "set XDG_CACHE_HOME to a folder of your own")
    }
    defer { SystemCalls.release(opened) }
    try checkNothingPlanted(in: opened, folder: folder)
    markUsedOrPrune(in: opened, folder: folder)
    do {
      return try openAndCheck()
    } catch let error as DatabaseError where [.SQLITE_BUSY, .SQLITE_LOCKED].contains(error.resultCode) {
      // Locked, not damaged: another process writes to it (an indexer keeping it current, one
      // stopped in the middle of a write). Removing it would leave that process writing to a
      // file no one reads, and every later search reading an empty index.
      throw QuireError(
        .timedOut,
        "The search index \(QuireError.name(url)) stayed locked by another Quire process for 10 s. Nothing was changed; search again in a moment.",
        url: url, cause: error)
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
            CREATE TABLE skipped (path TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime REAL NOT NULL) WITHOUT ROWID;
            PRAGMA user_version = \(Self.schemaVersion);
            """)
      } else if version != Self.schemaVersion {
        throw QuireError(.invalidContent, "The search index has schema \(version), not \(Self.schemaVersion).", url: url)
      }
      // No integrity check here: FTS5's reads every page of the index (about 250 ms for the
      // 600-document corpus, most of a warm query). A damaged page is found when SQLite reads
      // it (SQLITE_CORRUPT), and ``withDatabase(_:)`` then makes the index anew and runs again.
      _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM document")
    }
    return database
  }

  /// The database's file and SQLite's files beside it.
  static let suffixes = ["", "-wal", "-shm", "-journal"]

  /// Refuses the index when its file or one of SQLite's files beside it is anything but a
  /// regular file: looked at in the private folder (opened through `PrivateFolder`, so the
  /// folder itself is checked too) with `fstatat(AT_SYMLINK_NOFOLLOW)`, so nothing is followed.
  private func checkNothingPlanted(in opened: FileDescriptor, folder: URL) throws {
    for suffix in Self.suffixes {
      let name = url.lastPathComponent + suffix
      guard case .success(let info) = SystemCalls.lstat(name, in: opened), info.st_mode & S_IFMT != S_IFREG else { continue }
      let what = Self.describePlanted(info.st_mode, insteadOf: "a database")
      let path = folder.appendingPathComponent(name)
      throw QuireError(
        .permissionDenied,
        "Cannot use the search index '\(DisplayName.escaping(path: path))': it is \(what). Nothing was read or removed; remove it yourself (the index is only a cache and is made anew), or set XDG_CACHE_HOME to a folder of your own.",
        url: path)
    }
  }

  /// How long an index that no search used is kept: the folder's default indexes
  /// (`index-KEY.sqlite`) unused for longer are removed when a new one is made.
  static let unusedLifetime: TimeInterval = 30 * 86_400

  /// Marks this index used, by its modification time (at most once a day: a search only
  /// reads it), or, when it does not exist yet, removes the folder's other default indexes
  /// that were not used for ``unusedLifetime`` and that no running indexer keeps current.
  /// Only regular files are removed, beneath the private folder; nothing is followed.
  private func markUsedOrPrune(in opened: FileDescriptor, folder: URL) {
    let now = Date()
    func age(_ info: stat) -> TimeInterval { now.timeIntervalSince1970 - Double(info.st_mtim.tv_sec) }
    if case .success(let info) = SystemCalls.lstat(url.lastPathComponent, in: opened) {
      if age(info) > 86_400, case .success(let fd) = SystemCalls.openBeneath(url.lastPathComponent, in: opened, O_RDONLY | O_NOFOLLOW | O_NONBLOCK) {
        _ = SystemCalls.setModificationDate(fd, now)
        SystemCalls.release(fd)
      }
      return
    }
    let names = (SystemCalls.entryNames(in: PathCarrier.path(folder.path)) ?? []).map(PathText.string(bytes:))
    for name in names where name != url.lastPathComponent && Self.isDefaultIndexName(name) {
      guard case .success(let info) = SystemCalls.lstat(name, in: opened), info.st_mode & S_IFMT == S_IFREG, age(info) > Self.unusedLifetime,
        !SearchIndexKeeper.isHeld(beside: name, in: folder, names: names)
      else { continue }
      for file in names where Self.suffixes.contains(where: { name + $0 == file }) || file.hasPrefix(name + ".kept-") {
        guard case .success(let info) = SystemCalls.lstat(file, in: opened), info.st_mode & S_IFMT == S_IFREG else { continue }
        _ = SystemCalls.remove(file, in: opened)
      }
    }
  }

  /// Whether `name` is a default index's (``DocumentBrowser/searchIndexURL``): `index-`, 16
  /// hexadecimal digits, `.sqlite`.
  static func isDefaultIndexName(_ name: String) -> Bool {
    let bytes = Array(name.utf8)
    guard bytes.count == 29, name.hasPrefix("index-"), name.hasSuffix(".sqlite") else { return false }
    return bytes[6..<22].allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
  }

  /// What stands at the name of one of Quire's private files instead of a regular file, for
  /// an error: a link (never followed), a FIFO, a folder, a device or a socket, said with what
  /// the name should hold (`expected`, e.g. "a database") when there is one.
  static func describePlanted(_ mode: mode_t, insteadOf expected: String? = nil) -> String {
    let kind: String
    switch mode & S_IFMT {
    case S_IFLNK: return "a symbolic link, which Quire never follows for its private files"
    case S_IFIFO: kind = "a FIFO (named pipe)"
    case S_IFDIR: kind = "a folder"
    case S_IFCHR, S_IFBLK: kind = "a device"
    case S_IFSOCK: kind = "a socket"
    default: return "not a regular file"
    }
    return expected.map { "\(kind), not \($0)" } ?? kind
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

  struct Stored: Sendable {
    var id: Int64
    var size: Int64
    var mtime: Double
  }

  /// A file's size and modification time as the index stores them (the modification time
  /// as ``BrowserItem/modificationDate`` gives it, so both compare equal).
  static func fingerprint(_ info: stat) -> (size: Int64, mtime: Double) {
    (Int64(info.st_size), Listing.date(info.st_mtim).timeIntervalSince1970)
  }

  /// Brings the index up to date with the locations `listing` walks, at the cost of one
  /// `lstat` per entry when nothing changed: a file whose size and modification time are what
  /// the index holds (indexed, or skipped as not a document to index) is neither identified
  /// nor read. New and changed files are identified; documents among them are read and
  /// indexed on both cores (``SearchIndex/readTexts(of:pdfWorkers:each:)``), committed in batches of 64. Documents
  /// no longer there are removed.
  func update(listing: Listing, rebuilding: Bool, progress: (@Sendable (Int, Int) -> Void)?) throws -> SearchIndexReport {
    if rebuilding { removeFiles() }
    return try update(listing: listing, walk: try Self.walk(listing), rebuilding: rebuilding, progress: progress)
  }

  /// What a walk over a listing's locations found: each entry's path, `lstat` and location,
  /// in the order met.
  struct Walk: Sendable {
    var entries: [(path: String, info: stat, location: URL)] = []
  }

  /// Walks `listing`'s locations: the file system only (one `lstat` per entry), no database,
  /// so that it can run while a query reads the index.
  static func walk(_ listing: Listing) throws -> Walk {
    var walk = Walk()
    for location in listing.configuration.locations {
      try listing.check(location: location)
      listing.forEachEntry(in: location) { path, info in walk.entries.append((path, info, location)) }
    }
    return walk
  }

  /// What the index holds of each file: its documents' ids and fingerprints (`stored`), and
  /// the fingerprints of the files it skipped as not documents to index (`skipped`), by path.
  struct Fingerprints: Sendable {
    var stored: [String: Stored] = [:]
    var skipped: [String: Stored] = [:]
  }

  /// Reads the index's ``Fingerprints``, which an update compares a walk with.
  func fingerprints() throws -> Fingerprints {
    try withDatabase(Self.fingerprints(in:))
  }

  private static func fingerprints(in database: DatabaseQueue) throws -> Fingerprints {
    try database.read { db in
      // Read with a cursor, columns by position: no row is kept, no name looked up.
      var fingerprints = Fingerprints()
      let documents = try Row.fetchCursor(db, sql: "SELECT path, id, size, mtime FROM document")
      while let row = try documents.next() { fingerprints.stored[row[0]] = Stored(id: row[1], size: row[2], mtime: row[3]) }
      let others = try Row.fetchCursor(db, sql: "SELECT path, size, mtime FROM skipped")
      while let row = try others.next() { fingerprints.skipped[row[0]] = Stored(id: 0, size: row[1], mtime: row[2]) }
      return fingerprints
    }
  }

  /// ``update(listing:rebuilding:progress:)`` with the locations walked already, and the
  /// index's fingerprints read already when `known` is given (a search reads them on the core
  /// its query ran on, while the walk goes on).
  func update(
    listing: Listing, walk: Walk, known: Fingerprints? = nil, rebuilding: Bool, progress: (@Sendable (Int, Int) -> Void)?
  ) throws -> SearchIndexReport {
    var report = SearchIndexReport()
    var given = known
    try withDatabase { database in
      // `known` holds for the database it was read from; one made anew (found corrupt) is read.
      defer { given = nil }
      let known = try given ?? Self.fingerprints(in: database)
      let (stored, skipped) = (known.stored, known.skipped)
      // The walk: unchanged entries cost their lstat; the rest are identified.
      var kept = Set<String>()
      var seen = Set<String>()
      var changed: [BrowserItem] = []
      var newlySkipped: [(String, Int64, Double)] = []
      for (path, info, location) in walk.entries {
        guard seen.insert(path).inserted else { continue }
        let isFile = info.st_mode & S_IFMT == S_IFREG
        let (size, mtime) = Self.fingerprint(info)
        if isFile, let entry = stored[path], entry.size == size, entry.mtime == mtime {
          kept.insert(path)
          report.unchanged += 1
          continue
        }
        if isFile, let entry = skipped[path], entry.size == size, entry.mtime == mtime { continue }
        guard let item = try? listing.makeItem(Listing.url(ofEntry: path, info), info: info, location: location) else { continue }
        // A package's size is its files' (known once it is made an item).
        if let entry = stored[path], entry.size == item.size, entry.mtime == item.modificationDate.timeIntervalSince1970 {
          kept.insert(path)
          report.unchanged += 1
          continue
        }
        if listing.isAllowed(item) && Self.isIndexable(item.contentType) {
          kept.insert(path)
          changed.append(item)
        } else if isFile {
          newlySkipped.append((path, size, mtime))
        }
      }
      let gone = stored.filter { !kept.contains($0.key) }
      let skippedGone = skipped.keys.filter { !seen.contains($0) }
      if !gone.isEmpty || !newlySkipped.isEmpty || !skippedGone.isEmpty {
        try database.write { db in
          for (_, entry) in gone { try Self.delete(entry.id, in: db) }
          for path in skippedGone { try db.execute(sql: "DELETE FROM skipped WHERE path = ?", arguments: [path]) }
          for (path, size, mtime) in newlySkipped {
            try db.execute(sql: "INSERT OR REPLACE INTO skipped(path, size, mtime) VALUES (?, ?, ?)", arguments: [path, size, mtime])
          }
        }
        report.removed = gone.count
      }
      // Reading: texts are stored 64 at a time as they come in (``readTexts``), so a batch
      // of PDFs does not wait for the slowest one of another, and the workers start once.
      var pending: [(item: BrowserItem, text: String, failure: String?)] = []
      var storeError: (any Error)?
      func storePending() {
        guard storeError == nil, !pending.isEmpty else { return }
        do {
          try database.write { db in
            for (item, text, failure) in pending {
              try db.execute(sql: "DELETE FROM skipped WHERE path = ?", arguments: [item.url.path])
              try Self.store(item, text: text, failure: failure, in: db)
            }
          }
        } catch {
          storeError = error
          return
        }
        for (item, _, failure) in pending {
          if let failure { report.failures.append(.init(url: item.url, reason: failure)) }
        }
        report.indexed += pending.count
        progress?(report.unchanged + report.indexed, report.unchanged + changed.count)
        pending.removeAll(keepingCapacity: true)
      }
      Self.readTexts(of: changed, pdfWorkers: listing.configuration.pdfTextWorkers) { index, text, failure in
        guard storeError == nil else { return }
        pending.append((changed[index], text, failure))
        if pending.count >= 64 { storePending() }
      }
      storePending()
      if let storeError { throw storeError }
      if changed.isEmpty { progress?(report.unchanged, report.unchanged) }
    }
    report.wasRecreated = takeRecreated() || rebuilding
    return report
  }

  /// Reads the texts of `items` (``text(of:)``), handing each to `each(index, text, failure)`
  /// as it is read. Documents other than PDFs are read first, on every core of this process,
  /// 64 at a time. PDFs follow: with `pdfWorkers`, in those worker processes (one set of
  /// workers for all of them; each PDF within their time and memory limits, so a hostile one
  /// costs a worker, not this process; one a worker could not read is indexed by name, with
  /// why); without, in this process like the rest.
  static func readTexts(of items: [BrowserItem], pdfWorkers: PDFTextWorkers?, each: (Int, String, String?) -> Void) {
    let inWorkers = pdfWorkers == nil ? [] : items.indices.filter { items[$0].contentType.conforms(to: .pdf) }
    let inProcess = inWorkers.isEmpty ? Array(items.indices) : items.indices.filter { !items[$0].contentType.conforms(to: .pdf) }
    for start in stride(from: 0, to: inProcess.count, by: 64) {
      let chunk = inProcess[start..<min(start + 64, inProcess.count)]
      for (index, (text, failure)) in zip(chunk, textsInProcess(of: chunk.map { items[$0] })) { each(index, text, failure) }
    }
    guard let pdfWorkers, !inWorkers.isEmpty else { return }
    pdfWorkers.readTexts(of: inWorkers.map { items[$0].url }) { position, read in
      switch read {
      case .success(let text): each(inWorkers[position], text, nil)
      case .failure(let error): each(inWorkers[position], "", error.reason)
      }
    }
  }

  /// The texts of `items`, all read in this process.
  private static func textsInProcess(of items: [BrowserItem]) -> [(String, String?)] {
    let results = Mutex([(String, String?)](repeating: ("", nil), count: items.count))
    let next = Atomic<Int>(0)
    DispatchQueue.concurrentPerform(iterations: min(items.count, max(1, ProcessInfo.processInfo.activeProcessorCount))) { _ in
      while true {
        let index = next.add(1, ordering: .relaxed).oldValue
        guard index < items.count else { return }
        let text = text(of: items[index])
        results.withLock { $0[index] = text }
      }
    }
    return results.withLock { $0 }
  }

  /// Indexes one document again (or drops it when `item` is nil); a PDF is read in
  /// `pdfWorkers`' processes when given.
  func update(path: String, item: BrowserItem?, pdfWorkers: PDFTextWorkers? = nil) throws {
    try withDatabase { database in
      try database.write { db in
        if let id = try Int64.fetchOne(db, sql: "SELECT id FROM document WHERE path = ?", arguments: [path]) { try Self.delete(id, in: db) }
      }
      guard let item, Self.isIndexable(item.contentType) else { return }
      var read = ("", nil as String?)
      Self.readTexts(of: [item], pdfWorkers: pdfWorkers) { _, text, failure in read = (text, failure) }
      try database.write { db in try Self.store(item, text: read.0, failure: read.1, in: db) }
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
        return (try PDFFile(contentsOf: item.url).text, nil)
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
  static func readRegularFile(_ url: URL, limit: Int = maximumTextSize) throws -> Data {
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
      if data.count > limit { break }
    }
    return data
  }

  // MARK: Searching

  /// The hits for `query`, best first. The database does the matching and ranking (linear in
  /// the hits); the snippet and position of each hit are found here, in one pass over the
  /// document's text up to its first hit, within its first ``snippetScanLimit`` bytes, so a
  /// hit's cost is bounded however large the document (FTS5's `snippet()` weighs every hit against every
  /// other: 80,000 hits in one document took 40 s). The query stops at ``SearchQuery/timeLimit``
  /// or when `isCancelled` says so: SQLite is interrupted, and no further snippet is made.
  ///
  /// - Throws: ``QuireError`` (`timedOut`) when stopped, (`invalidArgument`) for a query of no words.
  func search(_ query: SearchQuery, registry: TypeRegistry, isCancelled: @escaping @Sendable () -> Bool = { false }) throws -> [SearchHit] {
    let match = try Self.matchExpression(for: query.text)
    let terms = Self.terms(of: query.text)
    let deadline = ContinuousClock.now + query.timeLimit
    let database = try database()
    let stopped = Mutex(false)
    @Sendable func mustStop() -> Bool { ContinuousClock.now >= deadline || isCancelled() }
    // A watchman interrupts SQLite at the deadline or on cancellation.
    let watchman = DispatchSource.makeTimerSource(queue: .global())
    watchman.schedule(deadline: .now() + .milliseconds(50), repeating: .milliseconds(50))
    watchman.setEventHandler {
      guard mustStop() else { return }
      stopped.withLock { $0 = true }
      database.interrupt()
    }
    watchman.resume()
    defer { watchman.cancel() }
    func timedOut() -> QuireError {
      isCancelled()
        ? QuireError(.cancelled, "The search for '\(query.text)' was cancelled.")
        : QuireError(
          .timedOut, "The search for '\(query.text)' took longer than \(query.timeLimit) and was stopped. Give longer or more words to narrow it.")
    }
    do {
      return try database.read { db in
        var sql = """
          SELECT d.id AS id, d.path AS path, d.type AS type, bm25(content, 4.0, 1.0) AS score
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
        var hits: [SearchHit] = []
        for row in try Row.fetchAll(db, sql: sql, arguments: StatementArguments(arguments)) {
          if mustStop() { throw timedOut() }
          let found = Self.snippet(ofDocument: row["id"], in: db, terms: terms, isPDF: (row["type"] as String) == UTType.pdf.identifier)
          hits.append(
            SearchHit(
              url: URL(fileURLWithPath: row["path"]), contentTypeIdentifier: row["type"], score: -(row["score"] as Double),
              snippet: found.text, line: found.line, page: found.page))
        }
        return hits
      }
    } catch let error as DatabaseError where error.resultCode == .SQLITE_INTERRUPT || stopped.withLock({ $0 }) {
      throw timedOut()
    }
  }

  /// One term of a query, folded: its words (several for a phrase) and whether the last is a prefix.
  struct Term: Equatable {
    var words: [String]
    var isPrefix: Bool
  }

  /// The terms of `text` as ``matchExpression(for:)`` reads them, each word folded as FTS5's
  /// `unicode61 remove_diacritics 2` folds it (case and accents ignored).
  static func terms(of text: String) -> [Term] {
    var terms: [Term] = []
    var rest = Substring(text)
    while let first = rest.first {
      if first.isWhitespace {
        rest = rest.dropFirst()
        continue
      }
      if first == "\"" {
        let body = rest.dropFirst()
        let end = body.firstIndex(of: "\"") ?? body.endIndex
        let words = Self.words(in: String(body[..<end])).map(\.word)
        if !words.isEmpty { terms.append(Term(words: words, isPrefix: false)) }
        rest = end < body.endIndex ? body[body.index(after: end)...] : ""
        continue
      }
      let end = rest.firstIndex(where: { $0.isWhitespace || $0 == "\"" }) ?? rest.endIndex
      let word = rest[..<end]
      rest = rest[end...]
      let words = Self.words(in: String(word)).map(\.word)
      if !words.isEmpty { terms.append(Term(words: words, isPrefix: word.hasSuffix("*"))) }
    }
    return terms
  }

  /// FTS5's `unicode61` tokens of `text`: runs of letters and digits, folded, with where each
  /// starts (a UTF-8 offset).
  static func words(in text: String, limit: Int = .max) -> [(word: String, offset: Int, end: Int)] {
    var words: [(String, Int, Int)] = []
    var start: String.UnicodeScalarView.Index? = nil
    let scalars = text.unicodeScalars
    func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
      scalar.properties.isAlphabetic || scalar.properties.numericType != nil || scalar.properties.generalCategory == .nonspacingMark
    }
    var index = scalars.startIndex
    while index <= scalars.endIndex, words.count < limit {
      let inWord = index < scalars.endIndex && isWordScalar(scalars[index])
      if inWord, start == nil { start = index }
      if !inWord, let begun = start {
        let word = Self.folded(String(scalars[begun..<index]))
        words.append((word, text.utf8.distance(from: text.utf8.startIndex, to: begun), text.utf8.distance(from: text.utf8.startIndex, to: index)))
        start = nil
      }
      if index == scalars.endIndex { break }
      index = scalars.index(after: index)
    }
    return words
  }

  /// How many words a snippet holds (as FTS5's `snippet(…, 12)` did).
  static let snippetWords = 12

  /// How much of a document's text a snippet looks at: its first MiB. A hit only later in a
  /// document is shown as the document's opening, without a line; every hit's cost is bounded.
  static let snippetScanLimit = 1 << 20

  /// How much of a document's text a snippet looks at first: most documents' first hit is in
  /// their first 64 KiB, so most hits read only that much of the stored text.
  static let snippetFirstScan = 64 << 10

  /// The snippet of the document `id` (``snippet(in:terms:isPDF:)``), from the start of its
  /// stored text read in place (SQLite's incremental blob reading of FTS5's `content_content`
  /// table, column `c1`): its first ``snippetFirstScan`` bytes, and its first
  /// ``snippetScanLimit`` only when no hit is among them. Reading the column in SQL would
  /// load the whole text first (several MB for a long PDF) for every hit. Cut bytes as
  /// bytes: a character cut at the end becomes U+FFFD.
  static func snippet(ofDocument id: Int64, in db: Database, terms: [Term], isPDF: Bool) -> (text: MarkedText, line: Int?, page: Int?) {
    var blob: OpaquePointer? = nil
    guard let connection = db.sqliteConnection, sqlite3_blob_open(connection, "main", "content_content", "c1", id, 0, &blob) == SQLITE_OK,
      let blob
    else {
      if blob != nil { sqlite3_blob_close(blob) }
      return (MarkedText(segments: []), nil, nil)
    }
    defer { sqlite3_blob_close(blob) }
    let size = Int(sqlite3_blob_bytes(blob))
    var found: (text: MarkedText, line: Int?, page: Int?) = (MarkedText(segments: []), nil, nil)
    for scan in [snippetFirstScan, snippetScanLimit] {
      let count = min(size, scan)
      var bytes = [UInt8](repeating: 0, count: count)
      guard count == 0 || bytes.withUnsafeMutableBytes({ sqlite3_blob_read(blob, $0.baseAddress, Int32(count), 0) }) == SQLITE_OK else { break }
      found = bytes.withUnsafeBufferPointer { snippet(in: $0, terms: terms, isPDF: isPDF) }
      if found.line != nil || count == size { break }
    }
    return found
  }

  /// `word` folded as FTS5's `unicode61 remove_diacritics 2` folds it; ASCII words (most
  /// words, in most documents) are only lowercased, without Foundation's folding.
  static func folded(_ word: String) -> String {
    word.utf8.allSatisfy({ $0 < 0x80 }) ? word.lowercased() : word.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
  }

  /// A snippet of `body` (UTF-8, perhaps cut anywhere) around its first hit of `terms`, the
  /// hits in it marked, and the hit's line (and page, for a PDF, whose pages are separated by
  /// form feeds). One pass over the bytes up to the hit and a few words on: linear, however
  /// many hits there are. Words are FTS5's `unicode61` tokens (runs of letters, digits and
  /// combining marks); an ASCII word is compared with the terms in place, without being
  /// copied or folded, so a long English text up to its hit costs a byte comparison or two
  /// per character. Bytes that are not UTF-8 separate words and show as U+FFFD.
  static func snippet(in body: UnsafeBufferPointer<UInt8>, terms: [Term], isPDF: Bool) -> (text: MarkedText, line: Int?, page: Int?) {
    let matcher = WordMatcher(terms: terms)
    let count = body.count
    // The words seen so far: up to `lead` before the first hit, then the ones after it.
    var window: [(offset: Int, end: Int)] = []
    var collected: [(offset: Int, end: Int)] = []
    var first: Int? = nil
    let lead = 3
    var cutBefore = false
    var cutAfter = false
    var wordStart = -1
    var wordIsASCII = true
    func close(at end: Int) {
      guard wordStart >= 0 else { return }
      let entry = (offset: wordStart, end: end)
      if first == nil {
        window.append(entry)
        if window.count > lead + 1 {
          window.removeFirst()
          cutBefore = true
        }
        if matcher.matches(UnsafeBufferPointer(rebasing: body[wordStart..<end]), isASCII: wordIsASCII) { first = window.count - 1 }
      } else {
        collected.append(entry)
      }
      wordStart = -1
      wordIsASCII = true
    }
    var index = 0
    while index < count {
      // ASCII (most of most texts) is told apart here; other scalars are decoded.
      let byte = body[index]
      let (isWord, width) = byte < 0x80 ? ((byte | 0x20) &- 0x61 < 26 || byte &- 0x30 < 10, 1) : Self.wordScalar(in: body, at: index)
      if isWord {
        if wordStart < 0 { wordStart = index }
        if width > 1 { wordIsASCII = false }
      } else {
        close(at: index)
        if first != nil, window.count + collected.count >= snippetWords {
          cutAfter = index + width < count
          break
        }
      }
      index += width
    }
    if index >= count { close(at: count) }
    func text(_ from: Int, _ to: Int) -> String { String(decoding: UnsafeBufferPointer(rebasing: body[from..<to]), as: UTF8.self) }
    guard let first else {
      // No word matched as folded here (FTS5's tokenizer differs in some scripts): the start.
      let opening = text(0, min(count, 2048))
      let shown = flattened(String(opening.prefix(120)))
      let more = count > 2048 || opening.count > 120
      return (MarkedText(segments: shown.isEmpty ? [] : [.init(text: shown + (more ? "…" : ""), isMatch: false)]), nil, nil)
    }
    let shown = Array((window + collected).prefix(snippetWords))
    // The snippet: the original text from the first shown word to the last, hits marked.
    var segments: [MarkedText.Segment] = []
    if cutBefore { segments.append(.init(text: "…", isMatch: false)) }
    var position = shown[0].offset
    for entry in shown {
      if entry.offset > position { segments.append(.init(text: flattened(text(position, entry.offset)), isMatch: false)) }
      let word = UnsafeBufferPointer(rebasing: body[entry.offset..<entry.end])
      segments.append(.init(text: text(entry.offset, entry.end), isMatch: matcher.matches(word, isASCII: word.allSatisfy { $0 < 0x80 })))
      position = entry.end
    }
    if cutAfter { segments.append(.init(text: "…", isMatch: false)) }
    // Merge neighbouring runs of the same kind.
    var merged: [MarkedText.Segment] = []
    for segment in segments {
      if let last = merged.last, last.isMatch == segment.isMatch, !segment.isMatch {
        merged[merged.count - 1].text += segment.text
      } else {
        merged.append(segment)
      }
    }
    // The hit's line and page: count line breaks and form feeds before it.
    var line = 1
    var page = 1
    for byte in UnsafeBufferPointer(rebasing: body[0..<window[first].offset]) {
      if byte == 0x0A { line += 1 }
      if byte == 0x0C {
        page += 1
        line = 1
      }
    }
    return (MarkedText(segments: merged), line, isPDF ? page : nil)
  }

  /// Whether the scalar at `index` of `bytes` is part of a word (a letter, digit or combining
  /// mark, as FTS5's `unicode61` counts them) and how many bytes it takes; a byte that does
  /// not start a valid UTF-8 sequence is one byte and not a word's.
  static func wordScalar(in bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> (isWord: Bool, width: Int) {
    let lead = bytes[index]
    if lead < 0x80 {
      return ((lead | 0x20) >= 0x61 && (lead | 0x20) <= 0x7A || lead >= 0x30 && lead <= 0x39, 1)
    }
    let width = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1
    guard width > 1, index + width <= bytes.count else { return (false, 1) }
    var value = UInt32(lead) & (0xFF >> UInt32(width + 1))
    for offset in 1..<width {
      let next = bytes[index + offset]
      guard next & 0xC0 == 0x80 else { return (false, 1) }
      value = value << 6 | UInt32(next & 0x3F)
    }
    guard let scalar = Unicode.Scalar(value) else { return (false, 1) }
    let properties = scalar.properties
    return (properties.isAlphabetic || properties.numericType != nil || properties.generalCategory == .nonspacingMark, width)
  }

  /// Compares words of a text with a query's terms as FTS5 does (folded: case and accents
  /// ignored; the last word of a `prefix*` term matches the start of a word).
  struct WordMatcher {
    /// Each term's words, folded, as bytes, and whether the word may be a prefix.
    let words: [(bytes: [UInt8], isPrefix: Bool)]
    init(terms: [Term]) {
      var words: [(bytes: [UInt8], isPrefix: Bool)] = []
      for term in terms {
        for (index, word) in term.words.enumerated() {
          words.append((Array(word.utf8), term.isPrefix && index == term.words.count - 1))
        }
      }
      self.words = words
    }

    /// Whether `word` (a token's bytes) is one of the terms' words.
    func matches(_ word: UnsafeBufferPointer<UInt8>, isASCII: Bool) -> Bool {
      if isASCII {
        return words.contains { candidate in
          let length = candidate.bytes.count
          guard candidate.isPrefix ? word.count >= length : word.count == length else { return false }
          for position in 0..<length {
            var byte = word[position]
            if byte >= 0x41 && byte <= 0x5A { byte |= 0x20 }
            if byte != candidate.bytes[position] { return false }
          }
          return true
        }
      }
      let folded = Array(SearchIndex.folded(String(decoding: word, as: UTF8.self)).utf8)
      return words.contains { candidate in
        candidate.isPrefix ? folded.starts(with: candidate.bytes) : folded == candidate.bytes
      }
    }
  }

  /// Line breaks, tabs and form feeds as spaces (a snippet is one line).
  static func flattened(_ text: String) -> String {
    String(text.map { "\n\r\u{0C}\t".contains($0) ? " " : $0 })
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
}
