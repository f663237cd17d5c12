import Dispatch
import Foundation
import QuireCoordination
import QuireSystem
import QuireTypes
import Synchronization
import SystemPackage

/// Watches a browser's folders through folder ``FilePresenter``s and turns what they hear into
/// ``BrowserChange``s for every open stream (and, when asked, into search index updates).
///
/// Presenter messages arrive on the presenters' own queues; each is handed to one serial
/// queue, which compares the folder's item with what it knew: a new path holding the inode of
/// a known item whose old path is gone is a move, a known path that is gone is a removal
/// (held back briefly, so that the other half of a rename can turn it into a move).
final class BrowserWatcher: Sendable {
  struct State {
    var configuration: DocumentBrowser.Configuration?
    weak var browser: DocumentBrowser?
    var continuations: [Int: AsyncStream<BrowserChange>.Continuation] = [:]
    var nextStream = 0
    var presenters: [String: FolderPresenter] = [:]
    var known: [String: BrowserItem] = [:]
    var pendingRemovals: [String: BrowserItem] = [:]
    var isIndexing = false
  }

  let state = Mutex(State())
  /// Where every event is handled, one at a time.
  let queue = DispatchQueue(label: "quire.browser.watcher")
  /// How long a removal waits for the other half of a rename.
  static let moveWindow: DispatchTimeInterval = .milliseconds(150)

  var isWatching: Bool { state.withLock { $0.configuration != nil } }

  func start(browser: DocumentBrowser) throws {
    let configuration = browser.configuration
    if state.withLock({ $0.configuration != nil }) { return }
    let listing = Listing(configuration: configuration)
    for location in configuration.locations { try listing.check(location: location) }
    let items = try listing.allItems()
    state.withLock {
      $0.configuration = configuration
      $0.browser = browser
      $0.known = Dictionary(items.map { ($0.url.path, $0) }, uniquingKeysWith: { a, _ in a })
    }
    do {
      for location in configuration.locations {
        for folder in listing.folders(of: location) { try watch(folder, isLocation: folder == location) }
      }
    } catch {
      stop()
      throw error
    }
  }

  func setIndexing(_ on: Bool) { state.withLock { $0.isIndexing = on } }

  /// Whether changes are written to the browser's search index as they arrive.
  var isIndexing: Bool { state.withLock { $0.isIndexing } }

  func makeStream() -> AsyncStream<BrowserChange> {
    let (stream, continuation) = AsyncStream.makeStream(of: BrowserChange.self, bufferingPolicy: .unbounded)
    let id = state.withLock { state -> Int in
      state.nextStream += 1
      state.continuations[state.nextStream] = continuation
      return state.nextStream
    }
    continuation.onTermination = { [weak self] _ in
      self?.state.withLock { _ = $0.continuations.removeValue(forKey: id) }
    }
    return stream
  }

  func stop() {
    let (presenters, continuations) = state.withLock { state in
      let result = (Array(state.presenters.values), Array(state.continuations.values))
      state = State()
      return result
    }
    for presenter in presenters { FileCoordinator.removeFilePresenter(presenter) }
    for continuation in continuations { continuation.finish() }
  }

  private func watch(_ folder: URL, isLocation: Bool) throws {
    guard let configuration = state.withLock({ $0.configuration }) else { return }
    if state.withLock({ $0.presenters[folder.path] != nil }) { return }
    let presenter = FolderPresenter(url: folder, isLocation: isLocation) { [weak self] event in
      guard let self else { return }
      self.queue.async { self.handle(event) }
    }
    try FileCoordinator.addFilePresenter(presenter, location: configuration.coordinationLocation)
    state.withLock { $0.presenters[folder.path] = presenter }
  }

  private func handle(_ event: FolderPresenter.Event) {
    switch event {
    case .subitem(let url): process(url.standardizedFileURL)
    case .locationGone(let url):
      emit(BrowserChange(kind: .resynchronize, url: url))
    }
  }

  private func process(_ url: URL) {
    guard let configuration = state.withLock({ $0.configuration }) else { return }
    let listing = Listing(configuration: configuration)
    let path = url.path
    guard listing.location(of: url) != nil else { return }
    guard case .success(let info) = SystemCalls.lstat(PathCarrier.path(path)) else {
      vanished(path)
      return
    }
    if (info.st_mode & S_IFMT) == S_IFDIR && !listing.isPackage(url) {
      guard configuration.includesSubfolders, configuration.includesHiddenFiles || !url.lastPathComponent.hasPrefix(".") else { return }
      for folder in listing.folders(of: url) { try? watch(folder, isLocation: false) }
      for item in listing.walk(url, location: listing.location(of: url) ?? url) { appeared(item) }
      return
    }
    guard configuration.includesHiddenFiles || !url.lastPathComponent.hasPrefix("."),
      let item = try? listing.makeItem(url, info: info, location: listing.location(of: url) ?? url), listing.isAllowed(item)
    else {
      vanished(path)
      return
    }
    appeared(item)
  }

  private func appeared(_ item: BrowserItem) {
    let path = item.url.path
    enum Outcome {
      case added, modified, unchanged
      case moved(from: String)
    }
    let outcome = state.withLock { state -> Outcome in
      defer { state.known[path] = item }
      if let old = state.known[path] { return old == item ? .unchanged : .modified }
      if let (oldPath, _) = state.pendingRemovals.first(where: { $0.value.fileID == item.fileID }) {
        state.pendingRemovals[oldPath] = nil
        return .moved(from: oldPath)
      }
      if let (oldPath, _) = state.known.first(where: {
        $0.value.fileID == item.fileID && $0.key != path && SystemCalls.lstat(PathCarrier.path($0.key)).isFailure
      }) {
        state.known[oldPath] = nil
        return .moved(from: oldPath)
      }
      return .added
    }
    switch outcome {
    case .added: emit(BrowserChange(kind: .added, url: item.url, item: item))
    case .modified: emit(BrowserChange(kind: .modified, url: item.url, item: item))
    case .moved(let from): emit(BrowserChange(kind: .moved, url: item.url, previousURL: URL(fileURLWithPath: from), item: item))
    case .unchanged: break
    }
  }

  private func vanished(_ path: String) {
    let prefix = path + "/"
    let gone = state.withLock { state -> [BrowserItem] in
      let keys = state.known.keys.filter { $0 == path || $0.hasPrefix(prefix) }
      var result: [BrowserItem] = []
      for key in keys {
        if let item = state.known.removeValue(forKey: key) {
          state.pendingRemovals[key] = item
          result.append(item)
        }
      }
      for folder in state.presenters.keys where folder == path || folder.hasPrefix(prefix) {
        if let presenter = state.presenters.removeValue(forKey: folder) { FileCoordinator.removeFilePresenter(presenter) }
      }
      return result
    }
    guard !gone.isEmpty else { return }
    queue.asyncAfter(deadline: .now() + Self.moveWindow) { [weak self] in
      guard let self else { return }
      for item in gone {
        let stillGone = self.state.withLock { $0.pendingRemovals.removeValue(forKey: item.url.path) != nil }
        if stillGone { self.emit(BrowserChange(kind: .removed, url: item.url)) }
      }
    }
  }

  private func emit(_ change: BrowserChange) {
    let (continuations, indexing, browser) = state.withLock { (Array($0.continuations.values), $0.isIndexing, $0.browser) }
    if indexing, let browser { browser.indexChange(change) }
    for continuation in continuations { continuation.yield(change) }
  }
}

extension Result {
  var isFailure: Bool {
    if case .failure = self { return true }
    return false
  }
}

/// A folder presenter that forwards what it hears.
final class FolderPresenter: FilePresenter {
  enum Event: Sendable {
    case subitem(URL)
    case locationGone(URL)
  }

  private let url: Mutex<URL>
  private let isLocation: Bool
  private let forward: @Sendable (Event) -> Void

  init(url: URL, isLocation: Bool, forward: @escaping @Sendable (Event) -> Void) {
    self.url = Mutex(url)
    self.isLocation = isLocation
    self.forward = forward
  }

  var presentedItemURL: URL? { url.withLock { $0 } }

  func presentedSubitemDidChange(at url: URL) { forward(.subitem(url)) }

  func presentedItemDidMove(to newURL: URL) {
    let old = url.withLock { old in
      defer { old = newURL }
      return old
    }
    forward(isLocation ? .locationGone(old) : .subitem(old))
    if !isLocation { forward(.subitem(newURL)) }
  }

  func accommodatePresentedItemDeletion(completionHandler: @escaping @Sendable ((any Error)?) -> Void) {
    let current = url.withLock { $0 }
    forward(isLocation ? .locationGone(current) : .subitem(current))
    completionHandler(nil)
  }
}
