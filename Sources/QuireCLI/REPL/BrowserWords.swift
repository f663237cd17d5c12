import ArgumentParser
import Foundation
import Quire

/// The document browser in the REPL: `browse`, `recent`, `tag`, `trash`, `search`, and `new
/// --template` creating the file through the browser.
@MainActor
enum BrowserWords {
  /// A browser over `folders`, else the session's Documents/ folder, else the current folder.
  static func browser(for session: REPLSession, folders: [String] = []) -> DocumentBrowser {
    let here = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    let given = folders.map { URL(fileURLWithPath: $0, relativeTo: here).standardizedFileURL }
    let locations = given.isEmpty ? [session.configuration.documentsFolder ?? here] : given
    return DocumentBrowser(
      configuration: .init(locations: locations, templatesFolder: session.configuration.templatesFolder, pdfTextWorkers: BrowserLocationOptions.pdfTextWorkers))
  }

  /// Runs a browser call, turning its QuireError into the REPL's error message.
  static func run<T>(_ body: () throws -> T) throws -> T {
    do {
      return try body()
    } catch let error as QuireError {
      throw EdError(error.reason)
    }
  }

  /// `new --template NAME PATH`: the browser copies the template to PATH (coordinated, never
  /// replacing a file), then the session opens it.
  static func newDocument(at path: String, template: String, in session: REPLSession) async throws {
    let url = URL(fileURLWithPath: path).standardizedFileURL
    let browser = browser(for: session, folders: [url.deletingLastPathComponent().path])
    let item = try run { try browser.createDocument(named: url.lastPathComponent, in: url.deletingLastPathComponent(), fromTemplate: template) }
    try await session.open(item.url.path)
  }
}

struct BrowseWord: SessionCommand {
  static let configuration = CommandConfiguration(
    commandName: "browse", abstract: "List the documents of Documents/ (or of FOLDERs): type, size, date, tags.")
  @Argument(help: "Folders (Documents/ by default).") var folders: [String] = []
  @Option(help: "Sort by name, date, size or kind ('-' reverses).") var sort = "name"
  @Option(help: "Only documents with this tag.") var tag: String?
  @MainActor func run(in session: REPLSession) async throws {
    guard let order = BrowserSortOrder(parsing: sort) else { throw EdError("sort by name, date, size or kind, not '\(sort)'") }
    let items = try BrowserWords.run { try BrowserWords.browser(for: session, folders: folders).items(sortedBy: order, taggedWith: tag) }
    if items.isEmpty { session.print("no documents") }
    for item in items {
      // The name printed is one `open` takes to this very file.
      let name = session.openableName(of: item.url, listedAs: item.relativePath) + (item.isPackage ? "/" : "")
      session.print("  " + BrowseCommand.line(for: item, thumbnail: nil, name: name))
    }
  }
}

struct RecentWord: SessionCommand {
  static let configuration = CommandConfiguration(
    commandName: "recent", abstract: "List recent documents (shared with GNOME), following moved files; 'recent N' opens the Nth.")
  @Argument(help: "A number from the list, to open it.") var number: Int?
  @MainActor func run(in session: REPLSession) async throws {
    let entries = try BrowserWords.run { try BrowserWords.browser(for: session).recentItems() }
    if let number {
      guard entries.indices.contains(number - 1) else { throw EdError("there is no recent document \(number); 'recent' lists them") }
      guard entries[number - 1].status != .missing else { throw EdError("'\(entries[number - 1].name)' is gone (deleted or moved out of reach)") }
      return try await session.open(entries[number - 1].url.path)
    }
    if entries.isEmpty { session.print("no recent documents") }
    for (index, entry) in entries.prefix(20).enumerated() {
      let note = entry.status == .moved ? "  (moved from \(entry.previousURL?.path ?? "?"))" : entry.status == .missing ? "  (gone)" : ""
      session.print("  \(index + 1)  \(entry.url.path)\(note)")
    }
  }
}

struct TagWord: SessionCommand {
  static let configuration = CommandConfiguration(
    commandName: "tag", abstract: "Show the current document's tags, or change them: tag +work -draft (or tag FILE +work).")
  @Argument(parsing: .allUnrecognized, help: "An optional file, then +TAG to add and -TAG to remove.") var words: [String] = []
  @MainActor func run(in session: REPLSession) async throws {
    var words = words
    let url: URL
    if let first = words.first, !first.hasPrefix("+"), !first.hasPrefix("-") {
      url = URL(fileURLWithPath: first)
      words.removeFirst()
    } else {
      guard let current = try session.requireDocument().fileURL else { throw EdError("the document has no file yet; save it (w FILE) before tagging") }
      url = current
    }
    for word in words where !(word.hasPrefix("+") || word.hasPrefix("-")) || word.count < 2 {
      throw EdError("'\(word)' is not a change: +TAG adds a tag, -TAG removes one")
    }
    let browser = BrowserWords.browser(for: session, folders: [url.deletingLastPathComponent().path])
    let tags = try BrowserWords.run {
      words.isEmpty
        ? try browser.tags(of: url)
        : try browser.changeTags(
          of: url, adding: words.filter { $0.hasPrefix("+") }.map { String($0.dropFirst()) },
          removing: words.filter { $0.hasPrefix("-") }.map { String($0.dropFirst()) })
    }
    session.print(tags.isEmpty ? "'\(url.lastPathComponent)' has no tags" : tags.map { "#" + $0 }.joined(separator: " "))
  }
}

struct TrashWord: SessionCommand {
  static let configuration = CommandConfiguration(
    commandName: "trash", abstract: "Move files to the Trash ('gio trash --list' shows them); an open one is closed first.")
  @Argument(help: "Files to move to the Trash.") var paths: [String] = []
  @MainActor func run(in session: REPLSession) async throws {
    guard !paths.isEmpty else { throw EdError("trash what? give a file: trash old.md") }
    let browser = BrowserWords.browser(for: session)
    for path in paths {
      let url = URL(fileURLWithPath: path).standardizedFileURL
      if let document = session.documents.first(where: { $0.fileURL?.standardizedFileURL == url }), document.isEdited {
        throw EdError("'\(document.displayName)' is open with unsaved changes: save or close it first")
      }
      let item = try BrowserWords.run { try browser.trashItem(at: url) }
      session.say("moved '\(url.lastPathComponent)' to the Trash (\(item.trashFolder.path))")
    }
  }
}

struct SearchWord: SessionCommand {
  static let configuration = CommandConfiguration(
    commandName: "search", abstract: "Search the text of Documents/ (words, \"phrases\", prefix*); 'search --open N' opens hit N at its line.")
  @Option(help: "Open hit N of the last search at its line.") var open: Int?
  @Argument(help: "What to look for.") var words: [String] = []
  @MainActor func run(in session: REPLSession) async throws {
    if let open {
      let hits = session.lastSearchHits
      guard hits.indices.contains(open - 1) else { throw EdError("there is no hit \(open); search first") }
      let hit = hits[open - 1]
      try await session.open(hit.url.path)
      if let line = hit.line, let document = session.currentDocument, document.pdf == nil, line <= document.buffer.lineCount {
        document.currentLine = line
        session.print(document.buffer.line(at: line - 1))
      }
      return
    }
    guard !words.isEmpty else { throw EdError("search for what? search budget, search \"action items\", search budg*") }
    // The session keeps the index current after its first search (``KeptSearchIndexes``).
    let browser = BrowserWords.browser(for: session)
    let hits = try BrowserWords.run { try session.keptSearchIndexes.search(SearchQuery(words.joined(separator: " ")), in: browser) }
    session.lastSearchHits = hits
    if hits.isEmpty { session.print("no documents match") }
    for (index, hit) in hits.enumerated() {
      let place = hit.page.map { ":page \($0)" } ?? hit.line.map { ":\($0)" } ?? ""
      // The name printed is one `open` takes to this very file.
      let name = DisplayName.escaping(session.openableName(of: hit.url, listedAs: hit.url.lastPathComponent))
      session.print("  \(index + 1)  \(name)\(place)  \(hit.snippet.rendered())")
    }
  }
}
