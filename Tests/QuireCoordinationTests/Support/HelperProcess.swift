import Foundation
import QuireCoordination
import QuireTestSupport
import Synchronization
import Testing

/// Starts `quire-coordination-helper` (built beside the tests) with `arguments`; its output is
/// gathered line by line.
func startHelper(_ arguments: [String]) throws -> RunningProcess {
  try ChildProcess.startBuilt("quire-coordination-helper", arguments)
}

/// Runs a system tool (cp, mv, rm, sh) with an argument array and waits for it.
func runTool(_ path: String, _ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
  let result = try ChildProcess.runBlocking(URL(fileURLWithPath: path), arguments)
  #expect(result.status == 0, "\(path) \(arguments) failed: \(result.error)", sourceLocation: sourceLocation)
}

/// What a test presenter heard, in order, with the time each message arrived.
final class HeardMessages: Sendable {
  struct Message: Sendable {
    var text: String
    var at: ContinuousClock.Instant
  }

  private let messages = Mutex<[Message]>([])

  /// Every message so far.
  var received: [Message] { messages.withLock { $0 } }
  /// Every message's text so far.
  var texts: [String] { received.map(\.text) }

  /// Records `text`, now.
  func note(_ text: String) { messages.withLock { $0.append(Message(text: text, at: .now)) } }

  /// Waits (up to a generous limit; it returns as soon as it is there) for a message starting
  /// with `prefix` that arrived after `since`.
  func waitFor(_ prefix: String, after since: ContinuousClock.Instant? = nil) async -> Message? {
    var found: Message?
    _ = await eventually(every: .milliseconds(1)) {
      found = received.first { message in message.text.hasPrefix(prefix) && (since.map { message.at >= $0 } ?? true) }
      return found != nil
    }
    return found
  }
}

/// A presenter that records what it hears, with the time each message arrived.
final class RecordingPresenter: FilePresenter {
  typealias Message = HeardMessages.Message

  private let url: Mutex<URL?>
  private let heard = HeardMessages()
  let unsaved = Mutex<String?>(nil)
  let location: CoordinationLocation
  let answers: Bool

  init(_ url: URL, location: CoordinationLocation, answers: Bool = true) {
    self.url = Mutex(url)
    self.location = location
    self.answers = answers
  }

  var presentedItemURL: URL? { url.withLock { $0 } }
  var texts: [String] { heard.texts }

  private func note(_ text: String) { heard.note(text) }

  func savePresentedItemChanges(completionHandler: @escaping @Sendable ((any Error)?) -> Void) {
    note("save")
    guard answers else { return }
    if let text = unsaved.withLock({ $0 }), let target = presentedItemURL {
      _ = try? FileCoordinator(filePresenter: self, location: location).coordinate(writingItemAt: target) { url in
        try Data(text.utf8).write(to: url)
      }
      unsaved.withLock { $0 = nil }
    }
    completionHandler(nil)
  }

  func relinquishPresentedItem(toReader reader: @escaping @Sendable ((@Sendable () -> Void)?) -> Void) {
    note("relinquish-to-reader")
    guard answers else { return }
    reader { self.note("reacquire") }
  }

  func relinquishPresentedItem(toWriter writer: @escaping @Sendable ((@Sendable () -> Void)?) -> Void) {
    note("relinquish-to-writer")
    guard answers else { return }
    writer { self.note("reacquire") }
  }

  func accommodatePresentedItemDeletion(completionHandler: @escaping @Sendable ((any Error)?) -> Void) {
    note("deleted")
    completionHandler(nil)
  }

  func presentedItemDidMove(to newURL: URL) {
    url.withLock { $0 = newURL }
    note("moved \(newURL.path)")
  }

  func presentedItemDidChange() { note("changed") }
  func presentedSubitemDidChange(at url: URL) { note("subitem \(url.lastPathComponent)") }

  /// ``HeardMessages/waitFor(_:after:)``.
  func waitFor(_ prefix: String, after since: ContinuousClock.Instant? = nil) async -> Message? { await heard.waitFor(prefix, after: since) }
}
