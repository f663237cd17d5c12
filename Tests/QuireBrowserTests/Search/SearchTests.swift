import Foundation
import QuireBrowser
import QuireFormats
import QuirePreviews
import QuireTestSupport
import QuireTypes
import Testing

@Suite("Search")
final class SearchTests: BrowserTestCase {

  func makeDocuments() throws {
    try folder.write("# Budget\n\nThe quarterly report is due.\nSee the budget for Zürich.\n", to: "notes.md")
    try folder.write("first line\nsecond line mentions elephants\n", to: "plain.txt")
    try FileManager.default.createDirectory(at: folder.file("Trip.textbundle"), withIntermediateDirectories: true)
    try folder.write("# Trip\n\nPack the hiking boots.\n", to: "Trip.textbundle/text.md")
    try folder.write("{\"version\": 2}", to: "Trip.textbundle/info.json")
    // Two pages, made by cairo: the hit is on the second.
    try writePDF(to: folder.file("bill.pdf"), pages: ["Cover page", "Invoice for consulting"], width: 300, height: 400)
  }

  @Test func findsWordsInEveryKindWithHitsMarked() throws {
    try makeDocuments()
    let report = try browser.updateSearchIndex()
    #expect(report.indexed == 4 && report.failures.isEmpty)
    let budget = try browser.search("budget")
    #expect(budget.map(\.url.lastPathComponent) == ["notes.md"])
    #expect(budget[0].snippet.rendered().contains("[Budget]"))
    #expect(budget[0].line == 1)
    let elephants = try #require(try browser.search("elephants").first)
    #expect(elephants.url.lastPathComponent == "plain.txt" && elephants.line == 2)
    #expect(elephants.snippet.segments.contains { $0.isMatch && $0.text == "elephants" })
    #expect(try browser.search("hiking").map(\.url.lastPathComponent) == ["Trip.textbundle"])
    let invoice = try #require(try browser.search("invoice").first)
    #expect(invoice.url.lastPathComponent == "bill.pdf" && invoice.page == 2)
  }

  @Test func phrasesPrefixesAccentsAndTypes() throws {
    try makeDocuments()
    try browser.updateSearchIndex()
    #expect(try browser.search("\"quarterly report\"").count == 1)
    #expect(try browser.search("\"report quarterly\"").isEmpty)
    #expect(try browser.search("quart*").map(\.url.lastPathComponent) == ["notes.md"])
    #expect(try browser.search("zurich").count == 1)
    #expect(try browser.search(SearchQuery("line", contentTypes: [.markdown])).isEmpty)
    #expect(try browser.search(SearchQuery("line", contentTypes: [.plainText])).map(\.url.lastPathComponent) == ["plain.txt"])
    // FTS5 syntax in what people type is plain text, not an error.
    #expect(try browser.search("budget AND ( NEAR:").isEmpty)
    #expect(throws: QuireError.self) { try browser.search("  \"\" * ") }
  }

  /// Issue 29, finding 5: FTS5's snippet() weighs every hit against every other (80,000 hits
  /// in one document took 40 s; 2,000,000 would take days). Snippets are made in one pass now.
  @Test(.timeLimit(.minutes(10))) func aDocumentOfMillionsOfHitsIsSearchedInOnePass() throws {
    let body = String(repeating: "needle ", count: 2_000_000)
    try folder.write("first line\n" + body + "\n", to: "haystack.txt")
    try browser.updateSearchIndex()
    let hit = try #require(try browser.search(SearchQuery("needle", timeLimit: .seconds(300))).first)
    #expect(hit.url.lastPathComponent == "haystack.txt" && hit.line == 2)
    #expect(hit.snippet.segments.filter(\.isMatch).count > 3, "\(hit.snippet)")
    #expect(hit.snippet.rendered().hasPrefix("first line [needle] [needle]"), "\(hit.snippet.rendered())")
  }

  /// Snippets mark the words FTS5 matched: accents and case folded, prefixes, words of other
  /// scripts, and a first hit past the first 64 KiB that is read first.
  @Test func snippetsMarkFoldedPrefixedJapaneseAndLaterHits() throws {
    try makeDocuments()
    try folder.write("タイトル\n\n東京 と 大阪 の 話\n", to: "ja.md")
    try folder.write("opening\n" + String(repeating: "filler ", count: 30_000) + "\nthe marker is here\n", to: "later.txt")
    try browser.updateSearchIndex()
    let zurich = try #require(try browser.search("zurich").first)
    #expect(zurich.snippet.segments.contains { $0.isMatch && $0.text == "Zürich" } && zurich.line == 4, "\(zurich.snippet.rendered())")
    let prefix = try #require(try browser.search("QUART*").first)
    #expect(prefix.snippet.rendered().contains("[quarterly]"), "\(prefix.snippet.rendered())")
    let japanese = try #require(try browser.search("大阪").first)
    #expect(japanese.snippet.rendered() == "タイトル  東京 と [大阪] の 話" && japanese.line == 3, "\(japanese.snippet.rendered())")
    let later = try #require(try browser.search("marker").first)
    #expect(later.snippet.rendered().hasSuffix("the [marker] is here") && later.line == 3, "\(later.snippet.rendered())")
  }

  /// A snippet looks at a document's first MiB only, so one hit costs the same however large
  /// the document: a hit only later is found, and shown as the document's opening.
  @Test func aHitOnlyBeyondTheFirstMebibyteIsFoundAndShownAsTheOpening() throws {
    let filler = String(repeating: "filler ", count: 160_000)
    try folder.write("opening words\n" + filler + "\nthe needle is here\n", to: "late.txt")
    try folder.write("a needle early\n", to: "early.txt")
    try browser.updateSearchIndex()
    let hits = try browser.search("needle")
    #expect(Set(hits.map(\.url.lastPathComponent)) == ["late.txt", "early.txt"])
    let late = try #require(hits.first { $0.url.lastPathComponent == "late.txt" })
    #expect(late.snippet.rendered().hasPrefix("opening words filler"), "\(late.snippet.rendered())")
    #expect(late.line == nil)
    let early = try #require(hits.first { $0.url.lastPathComponent == "early.txt" })
    #expect(early.snippet.rendered() == "a [needle] early" && early.line == 1)
  }

  @Test func filesThatAreNotDocumentsAreRememberedAndDocumentsRereadOnlyWhenChanged() throws {
    try makeDocuments()
    try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]).write(to: folder.file("picture.png"))
    let first = try browser.updateSearchIndex()
    #expect(first.indexed == 4 && first.unchanged == 0)
    let second = try browser.updateSearchIndex()
    #expect(second.indexed == 0 && second.unchanged == 4 && second.removed == 0)
    // The picture becomes text under the same name: identified again, and indexed.
    try folder.write("zebra crossing\n", to: "picture.png")
    try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(5)], ofItemAtPath: folder.file("picture.png").path)
    let third = try browser.updateSearchIndex()
    #expect(third.unchanged == 4)
    #expect(third.indexed == (try browser.items().contains { $0.name == "picture.png" } ? 1 : 0))
    try FileManager.default.removeItem(at: folder.file("picture.png"))
    #expect(try browser.updateSearchIndex().unchanged == 4)
  }

  @Test func aSearchStopsAtItsDeadlineAndWhenCancelled() throws {
    try makeDocuments()
    try browser.updateSearchIndex()
    let late = #expect(throws: QuireError.self) { try browser.search(SearchQuery("budget", timeLimit: .zero)) }
    #expect(late?.code == .timedOut && late?.reason.contains("took longer") == true)
    let cancelled = #expect(throws: QuireError.self) { try browser.search(SearchQuery("budget"), isCancelled: { true }) }
    #expect(cancelled?.code == .cancelled)
    #expect(try browser.search(SearchQuery("budget")).count == 1, "a query with time left is answered")
  }

  @Test func queriesOfNothingButSyntaxHaveNoWords() {
    for text in ["\"", "*", "\"\" * ", "( ) :"] { #expect(SearchQuery(text).hasNoWords, "\(text)") }
    #expect(!SearchQuery("budg*").hasNoWords)
  }

  @Test func rankingPutsTheDenserDocumentFirst() throws {
    try folder.write("apple apple apple pie\n", to: "many.md")
    try folder.write("apple and a long text about many other things, pears, plums and more words here\n", to: "one.md")
    try browser.updateSearchIndex()
    #expect(try browser.search("apple").map(\.url.lastPathComponent) == ["many.md", "one.md"])
  }

  @Test func updateIsIncrementalAndDropsGoneFiles() throws {
    try makeDocuments()
    try browser.updateSearchIndex()
    try folder.write("now about giraffes\n", to: "plain.txt")
    try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(5)], ofItemAtPath: folder.file("plain.txt").path)
    try FileManager.default.removeItem(at: folder.file("notes.md"))
    let report = try browser.updateSearchIndex()
    #expect(report.indexed == 1 && report.removed == 1 && report.unchanged == 2)
    #expect(try browser.search("giraffes").count == 1)
    #expect(try browser.search("elephants").isEmpty)
    #expect(try browser.search("budget").isEmpty)
  }

  /// Browsers of different folders or options keep indexes of their own: searching one set
  /// of folders leaves another's index whole, so going back to it reads nothing again.
  @Test func searchingOtherFoldersLeavesEachIndexWhole() throws {
    try makeDocuments()
    let other = folder.file("other")
    try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
    try folder.write("a note about okapis\n", to: "other/okapi.md")
    #expect(try browser.updateSearchIndex().indexed == 5)  // the other folder is a subfolder
    let otherBrowser = DocumentBrowser(configuration: .init(locations: [other], environment: environment))
    let pdfsOnly = DocumentBrowser(configuration: .init(locations: [folder.url], allowedContentTypes: [.pdf], environment: environment))
    #expect(otherBrowser.searchIndexURL != browser.searchIndexURL && pdfsOnly.searchIndexURL != browser.searchIndexURL)
    #expect(try otherBrowser.updateSearchIndex().indexed == 1)
    #expect(try pdfsOnly.updateSearchIndex().indexed == 1)
    #expect(try otherBrowser.search("okapis").map(\.url.lastPathComponent) == ["okapi.md"])
    #expect(try otherBrowser.search("elephants").isEmpty)
    let again = try browser.updateSearchIndex()
    #expect(again.indexed == 0 && again.removed == 0 && again.unchanged == 5)
    #expect(try browser.search("elephants").map(\.url.lastPathComponent) == ["plain.txt"])
    // The same locations in another order are the same browser's.
    let twoWays = [[folder.url, other], [other, folder.url]].map { DocumentBrowser(configuration: .init(locations: $0, environment: environment)) }
    #expect(twoWays[0].searchIndexURL == twoWays[1].searchIndexURL)
  }

  /// A new index removes the default indexes no search used for 30 days, unless an indexer
  /// keeps one current; one in use is marked so, and anything not a regular file is left.
  @Test func indexesUnusedForAMonthAreRemovedWhenANewOneIsMade() throws {
    try makeDocuments()
    try browser.updateSearchIndex()
    let indexFolder = browser.searchIndexURL.deletingLastPathComponent()
    let old = Date().addingTimeInterval(-31 * 86_400)
    func make(_ name: String, modified: Date = old) throws -> URL {
      let url = indexFolder.appendingPathComponent(name)
      try Data("x".utf8).write(to: url)
      try FileManager.default.setAttributes([.modificationDate: modified], ofItemAtPath: url.path)
      return url
    }
    let stale = try make("index-00000000000000aa.sqlite")
    let staleWAL = try make("index-00000000000000aa.sqlite-wal")
    let recent = try make("index-00000000000000bb.sqlite", modified: Date().addingTimeInterval(-86_400))
    let notOurs = try make("notes.sqlite")
    try FileManager.default.createSymbolicLink(at: indexFolder.appendingPathComponent("index-00000000000000cc.sqlite"), withDestinationURL: notOurs)
    try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: browser.searchIndexURL.path)
    // The first browser's index is in use: its search marks it so.
    _ = try DocumentBrowser(configuration: browser.configuration).search("budget")
    let used = try FileManager.default.attributesOfItem(atPath: browser.searchIndexURL.path)[.modificationDate] as? Date
    #expect(try #require(used) > Date().addingTimeInterval(-3600))
    // A new index for other locations prunes.
    let other = folder.file("other")
    try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
    try DocumentBrowser(configuration: .init(locations: [other], environment: environment)).updateSearchIndex()
    #expect(!FileManager.default.fileExists(atPath: stale.path) && !FileManager.default.fileExists(atPath: staleWAL.path))
    #expect(FileManager.default.fileExists(atPath: recent.path) && FileManager.default.fileExists(atPath: notOurs.path))
    #expect(FileManager.default.fileExists(atPath: browser.searchIndexURL.path))
    #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: indexFolder.appendingPathComponent("index-00000000000000cc.sqlite").path)) != nil)
  }

  /// The query runs while the folder is walked; its answer stands when the walk changed
  /// nothing, and the query runs again when it did: an index made from nothing, a changed
  /// file and a removed one are all in the answer.
  @Test func searchingWhileTheIndexIsBroughtUpToDateAnswersFromTheCurrentIndex() throws {
    try makeDocuments()
    let first = try browser.updateSearchIndexAndSearch(SearchQuery("elephants"))
    #expect(first.report.indexed == 4)
    #expect(first.hits.map(\.url.lastPathComponent) == ["plain.txt"])

    try folder.write("now about giraffes\n", to: "plain.txt")
    try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(5)], ofItemAtPath: folder.file("plain.txt").path)
    let changed = try browser.updateSearchIndexAndSearch(SearchQuery("giraffes"))
    #expect(changed.report.indexed == 1 && changed.report.unchanged == 3)
    #expect(changed.hits.map(\.url.lastPathComponent) == ["plain.txt"])

    let unchanged = try browser.updateSearchIndexAndSearch(SearchQuery("giraffes"))
    #expect(unchanged.report.indexed == 0 && unchanged.report.unchanged == 4)
    #expect(unchanged.hits.map(\.url.lastPathComponent) == ["plain.txt"])

    try FileManager.default.removeItem(at: folder.file("plain.txt"))
    let removed = try browser.updateSearchIndexAndSearch(SearchQuery("giraffes"))
    #expect(removed.report.removed == 1 && removed.hits.isEmpty)
  }

  /// A folder that cannot be walked fails the search with the walk's error, as
  /// ``DocumentBrowser/updateSearchIndex(progress:)`` does.
  @Test func searchingInAMissingFolderFailsClearly() throws {
    let missing = DocumentBrowser(configuration: .init(locations: [folder.file("missing")], environment: environment))
    let error = #expect(throws: QuireError.self) { try missing.updateSearchIndexAndSearch(SearchQuery("anything")) }
    #expect(error?.reason.contains("missing") == true)
  }

  /// An index another process holds locked (an indexer stopped in the middle of a write: here
  /// the sqlite3 shell inside `BEGIN EXCLUSIVE`) is waited for, then refused with a clear error.
  /// It is never taken for a damaged one and made anew: that left the indexer writing to a
  /// file no search read, and every later search reading an empty index.
  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3"), "sqlite3 is not installed (apt-get install sqlite3)"))
  func anIndexLockedByAnotherProcessIsWaitedForAndRefusedNeverMadeAnew() async throws {
    try makeDocuments()
    try browser.updateSearchIndex()
    let index = browser.searchIndexURL
    var before = stat()
    #expect(lstat(index.path, &before) == 0)
    let holder = try ChildProcess.start(URL(fileURLWithPath: "/usr/bin/sqlite3"), [index.path])
    defer { holder.kill(SIGKILL) }
    holder.send("BEGIN EXCLUSIVE;")
    holder.send(".print locked")
    _ = try await holder.output.firstLine(containing: "locked", within: .seconds(60))

    // Another process's first search: a browser of its own opens the index anew.
    let other = DocumentBrowser(configuration: .init(locations: [folder.url], environment: environment))
    let error = #expect(throws: QuireError.self) { try other.search("budget") }
    #expect(error?.code == .timedOut && error?.reason.contains("locked") == true, "\(String(describing: error))")
    var after = stat()
    #expect(lstat(index.path, &after) == 0 && after.st_ino == before.st_ino, "the index was made anew")

    holder.send("COMMIT;")
    holder.send(".quit")
    #expect(await holder.waitForExit() == 0)
    #expect(try other.search("budget").map(\.url.lastPathComponent) == ["notes.md"])
  }

  @Test func deletedOrCorruptIndexIsRebuilt() throws {
    try makeDocuments()
    try browser.updateSearchIndex()
    let index = browser.searchIndexURL
    // Garbage over the database: the next use makes it anew.
    let fresh = DocumentBrowser(configuration: browser.configuration)
    try Data(repeating: 0x5A, count: 8192).write(to: index)
    let report = try fresh.updateSearchIndex()
    #expect(report.wasRecreated && report.indexed == 4)
    #expect(try fresh.search("invoice").count == 1)
    let again = DocumentBrowser(configuration: browser.configuration)
    try FileManager.default.removeItem(at: index)
    #expect(try again.updateSearchIndex().wasRecreated)
    #expect(try again.search("hiking").count == 1)
    #expect(try again.rebuildSearchIndex().indexed == 4)
  }

  /// The index is not checked page by page when opened (that read all of it on every query): a
  /// damaged page behind an intact header is found when SQLite reads it, and the index is made
  /// anew.
  @Test func damagedPagesBehindAnIntactHeaderAreFoundAndTheIndexMadeAnew() throws {
    try makeDocuments()
    try browser.updateSearchIndex()
    let index = browser.searchIndexURL
    let size = try #require(try FileManager.default.attributesOfItem(atPath: index.path)[.size] as? Int)
    let handle = try FileHandle(forWritingTo: index)
    try handle.seek(toOffset: 4096)
    try handle.write(contentsOf: Data(repeating: 0x5A, count: max(0, size - 4096)))
    try handle.close()
    let fresh = DocumentBrowser(configuration: browser.configuration)
    let report = try fresh.updateSearchIndex()
    #expect(report.wasRecreated && report.indexed == 4)
    #expect(try fresh.search("invoice").count == 1)
  }

  /// Issue 16: what is planted at the index's name (or its journal's) in the cache folder is
  /// refused, naming it, and never followed, read (a FIFO would block) or removed.
  @Test(.timeLimit(.minutes(2)), arguments: ["link", "dangling link", "fifo", "folder", "wal link"])
  func aLinkOrFIFOPlantedAtTheIndexIsRefusedNotFollowedOrRemoved(_ kind: String) throws {
    try makeDocuments()
    let index = browser.searchIndexURL
    try FileManager.default.createDirectory(at: index.deletingLastPathComponent(), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    let precious = try folder.write("precious\n", to: ".xdg/precious.txt")
    var planted = index
    switch kind {
    case "link": #expect(symlink(precious.path, index.path) == 0)
    case "dangling link": #expect(symlink(folder.file("nowhere.sqlite").path, index.path) == 0)
    case "fifo": #expect(mkfifo(index.path, 0o600) == 0)
    case "folder": try FileManager.default.createDirectory(at: index, withIntermediateDirectories: false)
    default:
      planted = URL(fileURLWithPath: index.path + "-wal")
      #expect(symlink(precious.path, planted.path) == 0)
    }
    for _ in 0..<2 {
      let error = try #require(throws: QuireError.self) { try DocumentBrowser(configuration: browser.configuration).updateSearchIndex() }
      #expect(error.reason.contains(planted.lastPathComponent), "\(error.reason)")
      #expect(error.reason.contains("Nothing was read or removed"), "\(error.reason)")
      #expect(throws: QuireError.self) { try DocumentBrowser(configuration: browser.configuration).rebuildSearchIndex() }
    }
    // Still there, still what it was; the link's target untouched and not created.
    var info = stat()
    #expect(lstat(planted.path, &info) == 0)
    let expected: mode_t = kind == "fifo" ? S_IFIFO : kind == "folder" ? S_IFDIR : S_IFLNK
    #expect(info.st_mode & S_IFMT == expected)
    #expect(try String(contentsOf: precious, encoding: .utf8) == "precious\n")
    #expect(!FileManager.default.fileExists(atPath: folder.file("nowhere.sqlite").path))
    // Once it is removed, the index is made anew.
    try FileManager.default.removeItem(at: planted)
    #expect(try DocumentBrowser(configuration: browser.configuration).updateSearchIndex().indexed == 4)
  }

  @Test func brokenPDFAndSpecialFilesDoNotStopIndexing() throws {
    try makeDocuments()
    try Data("%PDF-1.4 not really".utf8).write(to: folder.file("broken.pdf"))
    try Data([0xFF, 0xFE, 0x41, 0x00, 0xC3]).write(to: folder.file("bad-utf8.txt"))
    #expect(mkfifo(folder.file("fifo.txt").path, 0o600) == 0)
    let report = try browser.updateSearchIndex()
    #expect(report.failures.map(\.url.lastPathComponent) == ["broken.pdf"])
    #expect(try browser.search("invoice").count == 1)
  }

  /// A browser with workers reads PDFs' text in `quire thumbnail-worker` processes: the same
  /// text and pages as in-process, a damaged PDF's reason reported as before.
  @Test(.enabled(if: Programs.quire != nil, "the quire program is not built"))
  func pdfTextIsReadInWorkerProcesses() throws {
    try makeDocuments()
    try Data("%PDF-1.4 not really".utf8).write(to: folder.file("broken.pdf"))
    let workers = PDFTextWorkers(executable: try #require(Programs.quire), count: 2)
    let browser = DocumentBrowser(configuration: .init(locations: [folder.url], environment: environment, pdfTextWorkers: workers))
    let report = try browser.updateSearchIndex()
    #expect(report.indexed == 5)
    #expect(report.failures.map(\.url.lastPathComponent) == ["broken.pdf"])
    let invoice = try #require(try browser.search("invoice").first)
    #expect(invoice.url.lastPathComponent == "bill.pdf" && invoice.page == 2)
  }

  /// A PDF whose name is not UTF-8 (no `String` holds it as it is) is read by its worker
  /// under that very name: the job carries the name's bytes, so the worker neither misses the
  /// file nor reads another one.
  @Test(.enabled(if: Programs.quire != nil, "the quire program is not built"))
  func aPDFWhoseNameIsNotUTF8IsReadByItsWorker() throws {
    try makeDocuments()
    // bill.pdf moves to "fact\xFFure.pdf" and is made again; a decoy sits under the lossy
    // reading of that name, "fact\u{FFFD}ure.pdf", which must not be read in its place.
    let raw = Array(folder.url.path.utf8) + Array("/fact".utf8) + [0xFF] + Array("ure.pdf".utf8) + [0]
    let moved = raw.withUnsafeBufferPointer { bytes in
      bytes.withMemoryRebound(to: CChar.self) { rename(folder.file("bill.pdf").path, $0.baseAddress!) }
    }
    try #require(moved == 0)
    try writePDF(to: folder.file("bill.pdf"), pages: ["Cover page", "Invoice for consulting"], width: 300, height: 400)
    try writePDF(to: folder.file("fact\u{FFFD}ure.pdf"), pages: ["Decoy"], width: 300, height: 400)
    let workers = PDFTextWorkers(executable: try #require(Programs.quire), count: 2)
    let browser = DocumentBrowser(configuration: .init(locations: [folder.url], environment: environment, pdfTextWorkers: workers))
    let report = try browser.updateSearchIndex()
    #expect(report.failures.isEmpty, "\(report.failures.map(\.reason))")
    let hits = try browser.search("invoice")
    #expect(hits.count == 2 && hits.allSatisfy { $0.page == 2 }, "\(hits.map { ($0.url.path, $0.page) })")
    #expect(try browser.search("decoy").map(\.url.lastPathComponent) == ["fact\u{FFFD}ure.pdf"], "the lossy name's own file, read once")
  }

  /// A PDF whose worker crashes, or stalls past the time limit, is indexed by name with why;
  /// the other documents are indexed and the indexing process goes on. (The workers here are
  /// `sh` scripts that crash or hang on every job, in place of poppler on a hostile file.)
  @Test(arguments: ["crash", "hang"])
  func aPDFThatCrashesOrStallsItsWorkerCostsOnlyThatDocument(_ fault: String) throws {
    try makeDocuments()
    let script = fault == "crash" ? "read -r line; kill -SEGV $$" : "read -r line; exec sleep 600"
    let workers = PDFTextWorkers(executable: URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", script], count: 1, timeLimit: 0.5, memoryLimit: 0)
    let browser = DocumentBrowser(configuration: .init(locations: [folder.url], environment: environment, pdfTextWorkers: workers))
    let report = try browser.updateSearchIndex()
    #expect(report.indexed == 4)
    let failure = try #require(report.failures.first)
    #expect(report.failures.count == 1 && failure.url.lastPathComponent == "bill.pdf")
    let expected = fault == "crash" ? "Reading 'bill.pdf' crashed the renderer (signal 11" : "took longer than 0.5 s to read; the worker was stopped"
    #expect(failure.reason.contains(expected), "\(failure.reason)")
    #expect(try browser.search("elephants").map(\.url.lastPathComponent) == ["plain.txt"])
    #expect(try browser.search("invoice").isEmpty)
  }

  /// A PDF that arrives while this process keeps the index current (a server, `quire search
  /// --watch`) is read by the workers too, not by poppler in the keeping process. The worker
  /// here is an `sh` script that answers every job with its own words, so a text found in the
  /// index can only have come from a worker.
  @Test func aPDFAddedWhileTheIndexIsKeptIsReadByTheWorkers() async throws {
    try makeDocuments()
    let script =
      #"while read -r line; do id=$(printf '%s' "$line" | sed 's/.*"id":\([0-9]*\).*/\1/'); printf '{"id":%s,"status":"made","text":"answered by the stub"}\n' "$id"; done"#
    let workers = PDFTextWorkers(executable: URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", script], count: 1, memoryLimit: 0)
    let browser = DocumentBrowser(configuration: .init(locations: [folder.url], environment: environment, pdfTextWorkers: workers))
    try browser.startUpdatingSearchIndex()
    defer { browser.stopWatching() }
    #expect(try browser.search("stub").map(\.url.lastPathComponent) == ["bill.pdf"])
    try writePDF(to: folder.file("later.pdf"), pages: ["Receipt for the boots"], width: 300, height: 400)
    #expect(await eventually { (try? browser.search("stub").map(\.url.lastPathComponent).sorted()) == ["bill.pdf", "later.pdf"] })
    #expect(try browser.search("receipt").isEmpty && browser.search("invoice").isEmpty, "no PDF was read in this process")
    #expect(try browser.search("elephants").map(\.url.lastPathComponent) == ["plain.txt"])
  }

  @Test func indexFileIsPrivate() throws {
    try makeDocuments()
    try browser.updateSearchIndex()
    let attributes = try FileManager.default.attributesOfItem(atPath: browser.searchIndexURL.path)
    #expect((attributes[.posixPermissions] as? Int) == 0o600)
    let folderAttributes = try FileManager.default.attributesOfItem(atPath: browser.searchIndexURL.deletingLastPathComponent().path)
    #expect((folderAttributes[.posixPermissions] as? Int) == 0o700)
  }
}
