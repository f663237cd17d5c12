import Foundation
import QuireBrowser

/// Progress of long work, as the page shows it.
struct ProgressReply: Codable, Sendable {
  /// `thumbnails` or `index`.
  var task: String
  var label: String
  var done: Int
  var total: Int
  var finished: Bool
}

/// A change of the documents, as the page hears of it.
extension EventHub {
  /// Publishes progress; the latest of each task is replayed to pages that connect later.
  func publish(progress: ProgressReply) {
    publish(ServerEvent(name: "progress", value: progress), stickyKey: progress.task)
  }
}

struct ChangeReply: Codable, Sendable {
  var kind: String
  var doc: String?
  var previous: String?
}

extension Site {
  /// Starts what runs for the server's whole life: the browser's change stream (every file
  /// added, changed, moved or removed by anyone goes to the page), thumbnails for documents
  /// the cache lacks, and the search index, with progress events for both.
  ///
  /// - Throws: ``QuireError`` when a served folder cannot be watched.
  func startLiveWork() throws {
    let changes = try browser.changes()
    let events = self.events
    let locations = self.locations
    let browser = self.browser
    work.start { [weak self] in
      for await change in changes {
        let reply = ChangeReply(
          kind: change.kind.rawValue, doc: locations.reference(for: change.url), previous: change.previousURL.flatMap { locations.reference(for: $0) })
        events.publish(ServerEvent(name: "change", value: reply))
        if let item = change.item, [.added, .modified, .moved].contains(change.kind) {
          self?.makeThumbnails(for: [item])
        }
      }
    }
    work.start { [weak self] in
      guard let items = try? await BackgroundWork.run(in: BackgroundWork.Lane.thumbnails, { try browser.items() }) else { return }
      self?.makeThumbnails(for: items)
    }
    work.start {
      let total = (try? await BackgroundWork.run(in: BackgroundWork.Lane.thumbnails) { try browser.items().count }) ?? 0
      events.publish(progress: ProgressReply(task: "index", label: "Indexing for search", done: 0, total: total, finished: false))
      _ = try? await BackgroundWork.run(in: BackgroundWork.Lane.thumbnails) {
        try browser.updateSearchIndex { done, total in
          events.publish(progress: ProgressReply(task: "index", label: "Indexing for search", done: done, total: total, finished: false))
        }
        try browser.startUpdatingSearchIndex()
      }
      events.publish(progress: ProgressReply(task: "index", label: "Indexed", done: total, total: total, finished: true))
    }
  }

  /// Draws the thumbnails the cache lacks, one after another, saying how far it got.
  func makeThumbnails(for items: [BrowserItem]) {
    let browser = self.browser
    let events = self.events
    work.start {
      let missing = items.filter { browser.cachedThumbnail(for: $0) == nil }
      let label = missing.count == 1 ? "Making a thumbnail" : "Making \(missing.count) thumbnails"
      for (index, item) in missing.enumerated() {
        if Task.isCancelled { return }
        events.publish(progress: ProgressReply(task: "thumbnails", label: label, done: index, total: missing.count, finished: false))
        _ = try? await BackgroundWork.run(in: BackgroundWork.Lane.thumbnails) { try browser.thumbnail(for: item) }
      }
      // Also when nothing was missing: a page that connects later learns the thumbnails are done.
      events.publish(progress: ProgressReply(task: "thumbnails", label: "Thumbnails made", done: missing.count, total: missing.count, finished: true))
    }
  }
}
