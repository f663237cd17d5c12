import Foundation
import Synchronization

/// One server-sent event: `event: NAME` and one `data:` line of JSON.
public struct ServerEvent: Sendable, Hashable {
  /// The event's name (`change`, `progress`, `document`, …): the page's listener.
  public var name: String
  /// Its data, JSON on one line.
  public var json: String

  /// Makes an event named `name` whose data is `value` encoded as JSON.
  public init(name: String, value: some Encodable) {
    self.name = name
    let encoder = JSONEncoder()
    encoder.dateEncodingStrategy = .iso8601
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    json = (try? encoder.encode(value)).flatMap { String(data: $0, encoding: .utf8) } ?? "{}"
  }

  /// The event in the `text/event-stream` format, ending with its blank line.
  public var wireFormat: String {
    // JSONEncoder escapes line breaks inside strings, so the data is one line.
    "event: \(name)\ndata: \(json)\n\n"
  }
}

/// Hands every published event to every page listening on `/api/events`.
///
/// Each subscriber gets its own buffered stream (the newest 256 events kept when a page
/// reads slowly). ``finish()`` ends every stream, so the server's graceful shutdown is not
/// held up by pages that keep listening.
public final class EventHub: Sendable {
  private let state = Mutex(State())

  private struct State {
    var next = 0
    var subscribers: [Int: AsyncStream<ServerEvent>.Continuation] = [:]
    var isFinished = false
    /// The latest event of each sticky kind (the progress of each task), in order of first
    /// publication: a page that starts listening late learns where long work stands.
    var sticky: [(key: String, event: ServerEvent)] = []
  }

  public init() {}

  /// A stream of the events published from now on; it ends at ``finish()``.
  public func subscribe() -> AsyncStream<ServerEvent> {
    let (stream, continuation) = AsyncStream.makeStream(of: ServerEvent.self, bufferingPolicy: .bufferingNewest(256))
    let id: Int? = state.withLock { state in
      if state.isFinished { return nil }
      state.next += 1
      state.subscribers[state.next] = continuation
      for entry in state.sticky { continuation.yield(entry.event) }
      return state.next
    }
    guard let id else {
      continuation.finish()
      return stream
    }
    continuation.onTermination = { [weak self] _ in
      _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
    }
    return stream
  }

  /// How many pages are listening.
  public var subscriberCount: Int { state.withLock { $0.subscribers.count } }

  /// Sends `event` to every subscriber. With a `stickyKey`, the event is also kept (replacing
  /// the last one of that key) and given to every later subscriber when it subscribes.
  public func publish(_ event: ServerEvent, stickyKey: String? = nil) {
    // Under the lock, so a subscriber joining now gets the sticky event exactly once.
    state.withLock { state in
      if let stickyKey {
        if let index = state.sticky.firstIndex(where: { $0.key == stickyKey }) {
          state.sticky[index].event = event
        } else {
          state.sticky.append((stickyKey, event))
        }
      }
      for subscriber in state.subscribers.values { subscriber.yield(event) }
    }
  }

  /// Ends every stream, now and for later subscribers.
  public func finish() {
    let subscribers = state.withLock { state in
      state.isFinished = true
      defer { state.subscribers.removeAll() }
      return Array(state.subscribers.values)
    }
    for subscriber in subscribers { subscriber.finish() }
  }
}
