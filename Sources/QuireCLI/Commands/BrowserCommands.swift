import ArgumentParser
import Foundation
import Quire
import SystemPackage

/// What the browser commands share: which folders they browse, and JSON output.
struct BrowserLocationOptions: ParsableArguments {
  @Option(
    name: .customLong("in"),
    help: ArgumentHelp("A folder to browse, search or look for moved files in (repeatable; the current folder by default).", valueName: "FOLDER"))
  var folders: [String] = []

  /// A browser over `folders` (or the current folder), with Quire's templates when `Templates/` is here.
  func makeBrowser(types: [UTType] = DocumentBrowser.defaultContentTypes) -> DocumentBrowser {
    Self.makeBrowser(folders: folders, types: types)
  }

  /// A browser over `folders` (or the current folder).
  static func makeBrowser(folders: [String], types: [UTType] = DocumentBrowser.defaultContentTypes) -> DocumentBrowser {
    let here = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    let given = folders.map { URL(fileURLWithPath: $0, relativeTo: here).standardizedFileURL }
    let templates = here.appendingPathComponent("Templates")
    return DocumentBrowser(
      configuration: .init(
        locations: given.isEmpty ? [here] : given, allowedContentTypes: types,
        templatesFolder: DocumentsFolder.isFolder(templates) ? templates : nil, pdfTextWorkers: pdfTextWorkers))
  }

  /// PDFs' text is read by `quire thumbnail-worker` processes of this `quire`, so that a hostile
  /// PDF costs a worker, not the command; in this process when no `quire` program is found.
  static var pdfTextWorkers: PDFTextWorkers? {
    (try? ThumbnailCommand.locateQuire()).map { PDFTextWorkers(executable: $0) }
  }
}

/// The browser commands' output: JSON through ``OutputJSON``, and paths as they print them.
enum BrowserJSON {
  static func encode<T: Encodable>(_ value: T) throws -> String { try OutputJSON.encode(value) }

  /// `path` made absolute (from the current folder) and normalized, as text for output: the
  /// path itself when it is UTF-8, escaped (`\xFF`) when it is not.
  static func shown(absolute path: FilePath) -> String {
    DisplayName.escaping(path.absoluteNormalized)
  }

  /// A name or path for JSON: as it is, or escaped (`\xFF`) when it holds bytes that are not
  /// UTF-8 (JSON strings are Unicode).
  static func text(_ pathText: String) -> String {
    PathText.holdsNonUTF8Bytes(pathText) ? DisplayName.escaping(pathText) : pathText
  }

  /// A path as the commands print it: escaped (`\xFF`, control characters) for a terminal.
  static func shown(_ url: URL) -> String { DisplayName.escaping(PathText.path(url.path)) }

  /// One value on one line (for streams of changes).
  static func encodeLine<T: Encodable>(_ value: T) throws -> String { try OutputJSON.encodeLine(value) }

  /// One document as `quire browse --json` prints it.
  struct Item: Encodable {
    var path: String
    var name: String
    var type: String
    var mimeType: String?
    var kind: String
    var isPackage: Bool
    var size: Int64
    var modified: Date
    var created: Date?
    var tags: [String]
    var thumbnail: String?

    init(_ item: BrowserItem, thumbnail: URL?) {
      path = BrowserJSON.text(item.url.path)
      name = BrowserJSON.text(item.name)
      type = item.contentTypeIdentifier
      mimeType = item.mimeType
      kind = DocumentBrowser.kindName(of: item)
      isPackage = item.isPackage
      size = item.size
      modified = item.modificationDate
      created = item.creationDate
      tags = item.tags
      self.thumbnail = thumbnail?.path
    }
  }
}

/// The search indexes a long-running front end (the REPL, `quire rpc`) keeps current once it
/// has searched their folders.
///
/// The first search of a set of folders brings its index up to date and starts keeping it
/// current from the folders' change notifications (``DocumentBrowser/startUpdatingSearchIndex()``),
/// so later searches, in this process or another (`quire search`), answer from the index at
/// once instead of looking at every file first. At most `limit` sets are kept (the one
/// searched longest ago stops first); ``stopAll()`` stops them when the session ends. Where
/// keeping cannot start (too many folders for inotify, a mark that is not Quire's), the search
/// brings the index up to date and answers, as `quire search` does.
@MainActor
final class KeptSearchIndexes {
  private var kept: [(folders: [String], browser: DocumentBrowser)] = []
  let limit: Int

  init(limit: Int = 4) { self.limit = limit }

  /// The hits of `query` in `browser`'s folders, from the browser already keeping their index
  /// when there is one.
  func search(_ query: SearchQuery, in browser: DocumentBrowser) throws -> [SearchHit] {
    let folders = browser.configuration.locations.map(\.path)
    if let index = kept.firstIndex(where: { $0.folders == folders }) {
      let entry = kept.remove(at: index)
      kept.append(entry)
      return try entry.browser.search(query)
    }
    do {
      try browser.startUpdatingSearchIndex()
    } catch {
      browser.stopWatching()
      try browser.updateSearchIndex()
      return try browser.search(query)
    }
    kept.append((folders, browser))
    if kept.count > limit { kept.removeFirst().browser.stopWatching() }
    return try browser.search(query)
  }

  /// Stops keeping every index (the session is ending).
  func stopAll() {
    for entry in kept { entry.browser.stopWatching() }
    kept = []
  }
}
