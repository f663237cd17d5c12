public import Foundation
public import QuireCoordination
import QuireSystem
import QuireTypes
import Synchronization
public import SystemPackage

/// What a test presenter heard, in order, with the time each message arrived.
public final class HeardMessages: Sendable {
  /// One message, as a line of text, and when it came.
  public struct Message: Sendable {
    public var text: String
    public var at: ContinuousClock.Instant
  }

  private let messages = Mutex<[Message]>([])

  public init() {}

  /// Every message so far.
  public var received: [Message] { messages.withLock { $0 } }
  /// Every message's text so far.
  public var texts: [String] { received.map(\.text) }

  /// Records `text`, now.
  public func note(_ text: String) { messages.withLock { $0.append(Message(text: text, at: .now)) } }

  /// Waits (up to a generous limit; it returns as soon as it is there) for a message starting
  /// with `prefix` that arrived after `since`.
  public func waitFor(_ prefix: String, after since: ContinuousClock.Instant? = nil) async -> Message? {
    var found: Message?
    _ = await eventually(every: .milliseconds(1)) {
      found = received.first { message in message.text.hasPrefix(prefix) && (since.map { message.at >= $0 } ?? true) }
      return found != nil
    }
    return found
  }
}

/// What a recording presenter keeps besides its item: what it heard, whether it answers, and
/// the text it holds unsaved.
public final class PresenterRecording: Sendable {
  /// Every message it heard.
  public let heard = HeardMessages()
  /// Where its own coordinated save meets other processes.
  public let location: CoordinationLocation
  /// Whether it answers the messages that wait for an answer (save, relinquish); one that does
  /// not stands for a hung or slow program.
  public let answers: Bool
  private let unsaved: Mutex<String?>
  private let echo: (@Sendable (String) -> Void)?

  init(location: CoordinationLocation, answers: Bool, unsavedText: String?, echo: (@Sendable (String) -> Void)?) {
    self.location = location
    self.answers = answers
    unsaved = Mutex(unsavedText)
    self.echo = echo
  }

  /// Records `text` and passes it to the echo, if any.
  func note(_ text: String) {
    heard.note(text)
    echo?(text)
  }

  /// The unsaved text, if any.
  var unsavedText: String? { unsaved.withLock { $0 } }

  /// Forgets the unsaved text: it was saved.
  func markSaved() { unsaved.withLock { $0 = nil } }
}

/// A test presenter that says each message it hears as one line of text: `save`, `saved` (or
/// `save-failed` and the error), `relinquish-to-reader`, `relinquish-to-writer`, `reacquire`,
/// `deleted`, `changed`, `moved` and the new path, `subitem` and the subitem's path. The lines
/// are recorded in its ``PresenterRecording/heard`` messages and, when the presenter has an
/// echo, passed to it (`quire-coordination-helper` prints them).
///
/// ``RecordingPresenter`` presents a URL and hears of moves and subitems by URL;
/// ``RecordingPathPresenter`` presents a path of any bytes and hears of them by path. The two
/// are separate types because which form a presenter implements is part of what a test
/// checks: the URL forms are reached through `FilePresenter`'s default path forms.
public protocol RecordingFilePresenter: FilePresenter {
  /// What it heard, whether it answers, its unsaved text.
  var recording: PresenterRecording { get }
}

extension RecordingFilePresenter {
  /// Every message's text so far.
  public var texts: [String] { recording.heard.texts }

  /// ``HeardMessages/waitFor(_:after:)``.
  public func waitFor(_ prefix: String, after since: ContinuousClock.Instant? = nil) async -> HeardMessages.Message? {
    await recording.heard.waitFor(prefix, after: since)
  }

  /// Writes its unsaved text, if any, in place through a coordinated write of its item, then
  /// answers (unless it does not answer).
  public func savePresentedItemChanges(completionHandler: @escaping @Sendable ((any Error)?) -> Void) {
    recording.note("save")
    guard recording.answers else { return }
    guard let text = recording.unsavedText else { return completionHandler(nil) }
    do {
      let coordinator = FileCoordinator(filePresenter: self, location: recording.location)
      if let path = presentedItemPath {
        try coordinator.coordinate(writingItemAt: path) { try writeInPlace(Data(text.utf8), to: $0) }
      } else if let url = presentedItemURL {
        try coordinator.coordinate(writingItemAt: url) { try writeInPlace(Data(text.utf8), to: $0) }
      }
      recording.markSaved()
      recording.note("saved")
      completionHandler(nil)
    } catch {
      recording.note("save-failed \(error)")
      completionHandler(error)
    }
  }

  public func relinquishPresentedItem(toReader reader: @escaping @Sendable ((@Sendable () -> Void)?) -> Void) {
    recording.note("relinquish-to-reader")
    guard recording.answers else { return }
    reader { self.recording.note("reacquire") }
  }

  public func relinquishPresentedItem(toWriter writer: @escaping @Sendable ((@Sendable () -> Void)?) -> Void) {
    recording.note("relinquish-to-writer")
    guard recording.answers else { return }
    writer { self.recording.note("reacquire") }
  }

  public func accommodatePresentedItemDeletion(completionHandler: @escaping @Sendable ((any Error)?) -> Void) {
    recording.note("deleted")
    completionHandler(nil)
  }

  public func presentedItemDidChange() { recording.note("changed") }
}

/// A ``RecordingFilePresenter`` of a URL: it follows moves (`moved` and the new path) and, for
/// a folder, hears of subitems (`subitem` and the subitem's path) through the URL forms.
public final class RecordingPresenter: RecordingFilePresenter {
  public let recording: PresenterRecording
  private let url: Mutex<URL>

  /// A presenter of `url`.
  /// - Parameters:
  ///   - location: Where its own coordinated save meets other processes.
  ///   - answers: Whether it answers save and relinquish messages.
  ///   - unsavedText: Text it writes in place when asked to save.
  ///   - echo: Gets each message's line as it is heard, besides the record.
  public init(
    _ url: URL, location: CoordinationLocation, answers: Bool = true, unsavedText: String? = nil, echo: (@Sendable (String) -> Void)? = nil
  ) {
    self.url = Mutex(url)
    recording = PresenterRecording(location: location, answers: answers, unsavedText: unsavedText, echo: echo)
  }

  public var presentedItemURL: URL? { url.withLock { $0 } }

  public func presentedItemDidMove(to newURL: URL) {
    url.withLock { $0 = newURL }
    recording.note("moved \(newURL.path)")
  }

  public func presentedSubitemDidChange(at url: URL) { recording.note("subitem \(url.path)") }
}

/// A ``RecordingFilePresenter`` of a path of any bytes (a name that is not UTF-8 included): it
/// hears of moves and subitems with their bytes, and says their paths escaped (`\xFF` for a
/// byte that is not UTF-8), as Quire's messages name them.
public final class RecordingPathPresenter: RecordingFilePresenter {
  public let recording: PresenterRecording
  private let item: Mutex<FilePath>
  private let subitemPaths = Mutex<[FilePath]>([])

  /// A presenter of `path`; see ``RecordingPresenter/init(_:location:answers:unsavedText:echo:)``.
  public init(_ path: FilePath, location: CoordinationLocation, answers: Bool = true) {
    item = Mutex(path)
    recording = PresenterRecording(location: location, answers: answers, unsavedText: nil, echo: nil)
  }

  public var presentedItemPath: FilePath? { item.withLock { $0 } }
  public var presentedItemURL: URL? { nil }

  /// The presented path now (it follows moves).
  public var path: FilePath { item.withLock { $0 } }
  /// Every subitem it heard of, by its bytes.
  public var subitems: [FilePath] { subitemPaths.withLock { $0 } }

  public func presentedItemDidMove(toPath newPath: FilePath) {
    item.withLock { $0 = newPath }
    recording.note("moved \(DisplayName.escaping(newPath))")
  }

  public func presentedSubitemDidChange(atPath subitem: FilePath) {
    subitemPaths.withLock { $0.append(subitem) }
    recording.note("subitem \(DisplayName.escaping(subitem))")
  }
}

/// Writes `data` to the file at `path` in place, through the system layer: truncates it (or
/// makes it, mode 0600), then writes 4 KiB at a time, so that a reader that does not coordinate
/// could see a half-written file, the case coordination prevents.
public func writeInPlace(_ data: Data, to path: FilePath) throws {
  let fd = try SystemCalls.open(path, O_WRONLY | O_CREAT | O_TRUNC, mode: 0o600).get()
  var offset = 0
  while offset < data.count {
    let piece = data[offset..<min(data.count, offset + 4096)]
    if case .failure(let failure) = SystemCalls.writeAll(fd, piece) {
      SystemCalls.release(fd)
      throw failure
    }
    offset += piece.count
  }
  try SystemCalls.close(fd).get()
}

/// ``writeInPlace(_:to:)-(_,FilePath)`` for the file at `url`.
public func writeInPlace(_ data: Data, to url: URL) throws { try writeInPlace(data, to: FilePath(url.path)) }
