import Foundation
import GRDB
import QuireTypes

/// The full-text index: SQLite FTS5 through GRDB.
final class SearchIndex {
  let url: URL
  init(url: URL) { self.url = url }

  func update(from browser: DocumentBrowser, progress: (@Sendable (Int, Int) -> Void)?) throws -> SearchIndexReport {
    throw QuireError(.notImplemented, "Search is not yet implemented (issue 18).", url: url)
  }
  func rebuild(from browser: DocumentBrowser, progress: (@Sendable (Int, Int) -> Void)?) throws -> SearchIndexReport {
    throw QuireError(.notImplemented, "Search is not yet implemented (issue 18).", url: url)
  }
  func search(_ query: SearchQuery) throws -> [SearchHit] {
    throw QuireError(.notImplemented, "Search is not yet implemented (issue 18).", url: url)
  }
}

extension DocumentBrowser {
  func withSearchIndex<T>(_ body: (SearchIndex) throws -> T) throws -> T {
    try body(SearchIndex(url: searchIndexURL))
  }

  func indexChange(_ change: BrowserChange) {}
}
