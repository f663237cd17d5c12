import Dispatch
import Foundation
import Quire

/// Autosave for the REPL: after each command the session hands over a snapshot of every
/// document with unsaved changes; after an idle delay (or at a maximum interval while edits go
/// on) the snapshot is written as the document's recovery file through the document layer's
/// ``RecoveryStore`` (`$XDG_STATE_HOME/quire/recovery`, folder 0700, files 0600). Saving,
/// undoing back to the saved state or discarding the edits removes it; a crash or SIGKILL
/// leaves it for the next `quire` on the same file to offer (`recover`).
///
/// The REPL blocks in `readLine` between commands, so the timer runs on its own serial queue
/// and writes only the value snapshot it was given, never the live buffer.
final class Autosaver: @unchecked Sendable {
  // @unchecked Sendable: `pending`, `written` and `lastError` are touched only on `queue`
  // (every method below goes through `queue.sync` or runs on it), so they are never shared.
  struct Pending {
    var contents: Data
    var token: Int
    var firstChange: DispatchTime
  }

  /// Where recovery files go.
  let store: RecoveryStore
  /// How long input must be idle before an autosave.
  let idleDelay: Double
  /// The longest unsaved edits wait while commands keep coming.
  let maximumInterval: Double
  private let queue = DispatchQueue(label: "quire.repl.autosave")
  private var pending: [URL: Pending] = [:]
  private var written: [URL: Date] = [:]
  private var lastError: [URL: String] = [:]
  private var nextToken = 0

  init(store: RecoveryStore, idleDelay: Double = 5, maximumInterval: Double = 30) {
    self.store = store
    self.idleDelay = max(0, idleDelay)
    self.maximumInterval = max(self.idleDelay, maximumInterval)
  }

  /// Schedules `contents` as the recovery version of `url`, replacing an earlier snapshot.
  func schedule(_ contents: Data, for url: URL) {
    queue.sync {
      nextToken += 1
      let token = nextToken
      let first = pending[url]?.firstChange ?? .now()
      pending[url] = Pending(contents: contents, token: token, firstChange: first)
      let idleDue = DispatchTime.now() + idleDelay
      let intervalDue = first + maximumInterval
      queue.asyncAfter(deadline: min(idleDue, intervalDue)) { [self] in
        guard let snapshot = pending[url], snapshot.token == token else { return }
        write(snapshot, for: url)
      }
    }
  }

  /// Writes every pending snapshot now (the session ends without the person quitting).
  func flush() {
    queue.sync {
      for (url, snapshot) in pending { write(snapshot, for: url) }
    }
  }

  /// On `queue`: writes `snapshot` as the recovery file of `url`.
  private func write(_ snapshot: Pending, for url: URL) {
    pending[url] = nil
    do {
      try store.write(snapshot.contents, for: url)
      written[url] = Date()
      lastError[url] = nil
    } catch {
      lastError[url] = REPLSession.message(for: error)
    }
  }

  /// Drops the pending snapshot and the recovery file of `url` (saved, or edits discarded).
  func discard(for url: URL) {
    queue.sync {
      pending[url] = nil
      written[url] = nil
      lastError[url] = nil
      store.remove(for: url)
    }
  }

  /// Drops pending snapshots without touching recovery files (a session that ends).
  func stop() { queue.sync { pending.removeAll() } }

  /// What autosave has done for `url`, for `docs` and `status`.
  func state(for url: URL) -> String {
    queue.sync {
      if let error = lastError[url] { return "autosave failed: \(error)" }
      if pending[url] != nil { return "autosave pending" }
      if let date = written[url] { return "autosaved \(Self.time(date))" }
      return "nothing to autosave"
    }
  }

  static func time(_ date: Date) -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
    return formatter.string(from: date)
  }
}
