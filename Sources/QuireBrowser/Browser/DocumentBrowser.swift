public import Foundation
public import QuireCoordination
public import QuirePreviews
import QuireSystem
public import QuireTypes
import Synchronization
internal import SystemPackage

/// The documents of one or more folders, as a person browses them: the analogue of
/// `UIDocumentBrowserViewController` and the Files app's Recents and Tags, without the view.
///
/// A browser lists the documents under its ``locations`` (files, and packages such as
/// `.textbundle` folders as one document each), filtered to ``allowedContentTypes`` by
/// conformance and sorted by name, date, size or kind; it reports every change made by anyone
/// as an `AsyncSequence` (``changes()``); it creates, renames, moves, duplicates, trashes and
/// imports documents, each action coordinated with ``FileCoordinator`` so that open documents
/// (in this process or another, such as a `quire` REPL) follow a rename or save before a move;
/// it keeps the desktop's recent documents (``recentDocuments``), tags (``tags(of:)``), the
/// freedesktop Trash (``trash``) and a full-text search index (``search(_:)``).
///
/// ```swift
/// let browser = DocumentBrowser(locations: [notesFolder])
/// for item in try browser.items(sortedBy: .date) { print(item.name, item.tags) }
/// let renamed = try browser.renameItem(at: item.url, to: "Plan")        // keeps ".md"
/// try browser.setTags(["work"], of: renamed)
/// for hit in try browser.search("deadline") { print(hit.url.path, hit.snippet.rendered()) }
/// for await change in try browser.changes() { print(change) }             // live
/// ```
///
/// **Threads.** A browser is `Sendable`; every method may be called from any thread or task.
/// Actions and listing block the calling thread while they wait for coordination (at most
/// ``Configuration/coordinationTimeout``); in a server, call them from a task that may block.
///
/// **Errors.** Every failure is a ``QuireError`` naming the file, what failed and what to do.
public final class DocumentBrowser: Sendable {
  /// Everything a browser needs to know; the defaults suit Quire's own tools.
  public struct Configuration: Sendable {
    /// The folders whose documents are shown (absolute file URLs).
    public var locations: [URL]
    /// Only documents whose type conforms to one of these are shown, as in
    /// `UIDocumentBrowserViewController.allowedContentTypes`. By default what Quire opens:
    /// text (Markdown, plain text, source), PDF and TextBundle.
    public var allowedContentTypes: [UTType]
    /// Whether folders inside the locations are walked too (packages never are). `true`.
    public var includesSubfolders: Bool
    /// Whether names starting with "." are shown. `false`.
    public var includesHiddenFiles: Bool
    /// Where `XDG_DATA_HOME` (recents, trash), `XDG_CACHE_HOME` (search index, thumbnails) and
    /// `XDG_STATE_HOME` come from. The process's environment by default; tests point them at
    /// temporary folders.
    public var environment: [String: String]
    /// The type registry that identifies files.
    public var registry: TypeRegistry
    /// Where coordinated accesses meet other processes.
    public var coordinationLocation: CoordinationLocation
    /// How long an action waits for coordination (other readers, writers and presenters).
    public var coordinationTimeout: Duration
    /// The templates folder (`Templates/`, with `templates.json`) for
    /// ``DocumentBrowser/createDocument(named:in:fromTemplate:)``.
    public var templatesFolder: URL?
    /// The search index's SQLite file; by default `$XDG_CACHE_HOME/quire/search/index-KEY.sqlite`,
    /// one for each set of locations and options (``DocumentBrowser/searchIndexURL``).
    public var searchIndexURL: URL?
    /// The name recorded in recent-document entries (`bookmark:application name=`). "quire".
    public var applicationName: String
    /// The command recorded with it (`exec=`); `'quire %u'` by default.
    public var applicationCommand: String
    /// The worker processes the search index reads PDFs' text through, so that a hostile PDF
    /// costs a worker, not this process (`quire` names itself); nil to read them in this
    /// process, with poppler.
    public var pdfTextWorkers: PDFTextWorkers?

    /// Makes a configuration.
    public init(
      locations: [URL], allowedContentTypes: [UTType] = DocumentBrowser.defaultContentTypes, includesSubfolders: Bool = true,
      includesHiddenFiles: Bool = false, environment: [String: String] = ProcessInfo.processInfo.environment,
      registry: TypeRegistry = .shared, coordinationLocation: CoordinationLocation = .default,
      coordinationTimeout: Duration = .seconds(10), templatesFolder: URL? = nil, searchIndexURL: URL? = nil,
      applicationName: String = "quire", applicationCommand: String = "'quire %u'", pdfTextWorkers: PDFTextWorkers? = nil
    ) {
      self.locations = locations.map { $0.standardizedFileURL }
      self.allowedContentTypes = allowedContentTypes
      self.includesSubfolders = includesSubfolders
      self.includesHiddenFiles = includesHiddenFiles
      self.environment = environment
      self.registry = registry
      self.coordinationLocation = coordinationLocation
      self.coordinationTimeout = coordinationTimeout
      self.templatesFolder = templatesFolder
      self.searchIndexURL = searchIndexURL
      self.applicationName = applicationName
      self.applicationCommand = applicationCommand
      self.pdfTextWorkers = pdfTextWorkers
    }
  }

  /// What Quire opens: text (Markdown, plain text, source code), PDF and TextBundle.
  public static let defaultContentTypes: [UTType] = [.text, .pdf, .textBundle]

  /// The configuration the browser was made with.
  public let configuration: Configuration
  /// The folders whose documents are shown.
  public var locations: [URL] { configuration.locations }
  /// The types shown (by conformance).
  public var allowedContentTypes: [UTType] { configuration.allowedContentTypes }
  /// The desktop's recent documents (`$XDG_DATA_HOME/recently-used.xbel`), with Quire's
  /// entries following their files.
  public let recentDocuments: RecentDocuments
  /// The freedesktop Trash this browser's ``trashItem(at:)`` uses.
  public let trash: Trash
  /// The freedesktop thumbnail cache (`$XDG_CACHE_HOME/thumbnails`).
  public let thumbnailCache: ThumbnailCache

  let watcher: BrowserWatcher
  let searchIndex: Mutex<SearchIndex?> = Mutex(nil)
  /// The descriptor holding the mark that this browser keeps its index current (see
  /// `SearchIndexKeeper`), while ``startUpdatingSearchIndex()`` runs.
  let searchIndexKeeping: Mutex<FileDescriptor?> = Mutex(nil)
  /// Whether a full update of the index is scheduled because a change could not be written
  /// to it (see `indexChange(_:)`).
  let searchIndexRecovering = Mutex(false)

  /// Makes a browser; nothing is read until asked.
  public init(configuration: Configuration) {
    self.configuration = configuration
    self.recentDocuments = RecentDocuments(
      environment: configuration.environment, applicationName: configuration.applicationName,
      applicationCommand: configuration.applicationCommand, registry: configuration.registry)
    self.trash = Trash(environment: configuration.environment)
    self.thumbnailCache = ThumbnailCache(version: "0.1.0", environment: configuration.environment)
    self.watcher = BrowserWatcher()
  }

  /// Makes a browser over `locations`, showing documents of `allowedContentTypes`.
  public convenience init(locations: [URL], allowedContentTypes: [UTType] = DocumentBrowser.defaultContentTypes) {
    self.init(configuration: Configuration(locations: locations, allowedContentTypes: allowedContentTypes))
  }

  deinit { watcher.stop() }

  // MARK: Listing

  /// The documents under the locations, filtered and sorted.
  ///
  /// A location that is missing or unreadable is a ``QuireError`` naming it; files inside that
  /// cannot be examined (removed while listing, no permission) are left out. Symbolic links
  /// are not followed, and special files (FIFOs, devices, sockets) are never shown or opened.
  ///
  /// - Parameters:
  ///   - order: How to sort; by name by default.
  ///   - tag: Only documents carrying this tag (compared case-insensitively), when given.
  /// - Throws: ``QuireError`` when a location cannot be read.
  public func items(sortedBy order: BrowserSortOrder = .name, taggedWith tag: String? = nil) throws -> [BrowserItem] {
    let items = try Listing(configuration: configuration).allItems()
    return Self.sort(tag.map { Self.items(items, taggedWith: $0) } ?? items, by: order)
  }

  /// Those of `items` that carry `tag` (compared case-insensitively), in their order: the
  /// filter of ``items(sortedBy:taggedWith:)`` for items already listed.
  public static func items(_ items: [BrowserItem], taggedWith tag: String) -> [BrowserItem] {
    let wanted = tag.lowercased()
    return items.filter { $0.tags.contains { $0.lowercased() == wanted } }
  }

  /// The item at `url`, whether or not it is under the locations or of an allowed type.
  ///
  /// - Throws: ``QuireError`` (`fileMissing`) when nothing is there, (`unsupportedType`) for a
  ///   symbolic link or special file.
  public func item(at url: URL) throws -> BrowserItem {
    try Listing(configuration: configuration).item(at: url.standardizedFileURL)
  }

  /// Sorts `items` by `order` (name ties are broken by path, so the order is total).
  public static func sort(_ items: [BrowserItem], by order: BrowserSortOrder) -> [BrowserItem] {
    let kinds = Dictionary(items.map { ($0.contentTypeIdentifier, kindName(of: $0)) }, uniquingKeysWith: { a, _ in a })
    func byName(_ a: BrowserItem, _ b: BrowserItem) -> Bool {
      let result = a.name.localizedStandardCompare(b.name)
      return result == .orderedSame ? a.url.path < b.url.path : result == .orderedAscending
    }
    return items.sorted { a, b in
      let ordered: Bool?
      switch order.key {
      case .name: ordered = nil
      case .date: ordered = a.modificationDate == b.modificationDate ? nil : a.modificationDate < b.modificationDate
      case .size: ordered = a.size == b.size ? nil : a.size < b.size
      case .kind:
        let ka = kinds[a.contentTypeIdentifier] ?? ""
        let kb = kinds[b.contentTypeIdentifier] ?? ""
        ordered = ka == kb ? nil : ka.localizedStandardCompare(kb) == .orderedAscending
      }
      if let ordered { return order.ascending ? ordered : !ordered }
      return order.ascending || order.key != .name ? byName(a, b) : byName(b, a)
    }
  }

  /// The kind shown for an item: its type's description, else its identifier.
  public static func kindName(of item: BrowserItem) -> String {
    item.contentType.localizedDescription ?? item.contentTypeIdentifier
  }

  // MARK: Live changes

  /// Every change to the documents under the locations from now on, by anyone, until the
  /// consumer stops iterating or ``stopWatching()`` is called.
  ///
  /// Watching goes through the coordination layer: a folder ``FilePresenter`` for each folder
  /// of the locations, so coordinated writes of other processes arrive directly and
  /// uncoordinated ones (`cp`, `mv`, `rm`, other editors) through inotify, within tens of
  /// milliseconds. A rename inside the locations arrives as one ``BrowserChange/Kind/moved``.
  /// Several streams may be open at once; each gets every change.
  ///
  /// - Throws: ``QuireError`` when a location cannot be watched (missing, or the inotify
  ///   watch limit is reached).
  public func changes() throws -> AsyncStream<BrowserChange> {
    try watcher.start(browser: self)
    return watcher.makeStream()
  }

  /// Stops watching: every stream from ``changes()`` finishes and the presenters are removed.
  public func stopWatching() {
    watcher.stop()
    dropSearchIndexMark()
  }

  // MARK: Thumbnails

  /// The item's thumbnail in the freedesktop thumbnail cache (`$XDG_CACHE_HOME/thumbnails`),
  /// made now when the cache has no fresh one.
  ///
  /// The thumbnail is drawn in this process by ``ThumbnailGenerator`` (Markdown, text, PDF).
  ///
  /// - Parameter size: The longest side wanted in pixels; the cache's size class that holds
  ///   it is used (128, 256, 512 or 1024).
  /// - Returns: The PNG's URL.
  /// - Throws: ``QuireError`` when the file cannot be drawn (then a failure record is kept, as
  ///   the standard asks, and later calls fail at once) or the cache cannot be written.
  public func thumbnail(for item: BrowserItem, size: Int = 256) throws -> URL {
    try Thumbnails(cache: thumbnailCache, registry: configuration.registry).thumbnail(for: item, size: size)
  }

  /// The item's thumbnail if the cache already has a fresh one; never draws.
  public func cachedThumbnail(for item: BrowserItem, size: Int = 256) -> URL? {
    Thumbnails(cache: thumbnailCache, registry: configuration.registry).cachedThumbnail(for: item, size: size)
  }
}
