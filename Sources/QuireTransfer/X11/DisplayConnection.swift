import Foundation
import QuireSystem
import QuireTypes
import Synchronization
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// The selections a ``Pasteboard`` can be on an X display.
enum DisplaySelection: String, Sendable, CaseIterable {
  /// `CLIPBOARD`: what Copy and Paste use.
  case clipboard = "CLIPBOARD"
  /// `PRIMARY`: the last text selected, pasted with the middle button.
  case primary = "PRIMARY"
}

/// Who holds a selection, as seen by this process.
enum SelectionOwnership: Sendable {
  /// Nobody: the selection is empty.
  case none
  /// This process, with these items.
  case this([ItemProvider])
  /// Another program.
  case other
}

/// One X display connection, for every pasteboard of the process on that display.
///
/// libxcb's connection is used by one thread only, the connection's own (``SelectionLoop``
/// runs on it): other threads hand it closures through ``perform(_:)`` and ``post(_:)``, and
/// read the little state it publishes (change counts, the items this process owns) under a
/// mutex. Nothing of C crosses threads.
final class DisplayConnection: Sendable {
  /// The display name, e.g. `:0`.
  let display: String

  /// What the loop publishes for other threads.
  let published = SelectionPublisher()

  private let inbox: WorkInbox<SelectionLoop>
  /// The read end of the inbox's wake pipe, which the loop polls beside the X socket.
  var wakeDescriptor: Int32 { inbox.wakeDescriptor }

  /// The connections of this process, by display name.
  private static let connections = Mutex<[String: DisplayConnection]>([:])

  /// The connection to `display`, opened on first use (and again after the server went away).
  ///
  /// - Throws: ``QuireError`` `.fileMissing` naming the display when no X server answers.
  static func to(_ display: String) throws -> DisplayConnection {
    let existing = connections.withLock { $0[display] }
    if let existing, existing.published.failure == nil { return existing }
    let made = try DisplayConnection(display: display)
    return connections.withLock { all in
      if let other = all[display], other !== existing, other.published.failure == nil { return other }
      all[display] = made
      return made
    }
  }

  /// Every open connection (for handing items over at exit).
  static var all: [DisplayConnection] { connections.withLock { Array($0.values) } }

  private init(display: String) throws {
    self.display = display
    inbox = try WorkInbox(for: display)
    let opened = Mutex<Result<Void, QuireError>?>(nil)
    let ready = DispatchSemaphore(value: 0)
    DedicatedThread.start(named: "quire X11 \(display)") { [self] in
      let loop: SelectionLoop
      do {
        loop = try SelectionLoop(connection: self)
      } catch {
        opened.withLock { $0 = .failure(error as? QuireError ?? QuireError(.libraryFailure, "\(error)")) }
        ready.signal()
        return
      }
      opened.withLock { $0 = .success(()) }
      ready.signal()
      loop.run()
    }
    if ready.wait(timeout: .now() + 30) == .timedOut {
      throw QuireError(.timedOut, "The X display '\(display)' did not answer within 30 s. Check DISPLAY, or unset it to use Quire's own pasteboard.")
    }
    if case .failure(let error) = opened.withLock({ $0 }) {
      inbox.close()
      throw error
    }
  }

  // MARK: Talking to the loop

  /// Runs `work` on the connection's thread, soon.
  func post(_ work: @escaping @Sendable (SelectionLoop) -> Void) { inbox.post(work) }

  /// The closures posted so far, taken out (the loop calls this).
  func takeWork() -> [@Sendable (SelectionLoop) -> Void] { inbox.take() }

  /// Runs `work` on the connection's thread and waits for its result (at most `timeout`).
  /// Used for quick round trips to the server, never for waiting on other programs.
  func perform<Value: Sendable>(timeout: Duration = .seconds(30), _ work: @escaping @Sendable (SelectionLoop) throws -> Value) throws -> Value {
    try inbox.perform(failure: published.failure, description: "the X display '\(display)'", timeout: timeout, work)
  }

  // MARK: Selections

  /// Takes `selection` with `providers` (or gives it up when empty); the change count goes up.
  func own(_ selection: DisplaySelection, providers: [ItemProvider]) throws {
    try perform { try $0.own(selection, providers: providers) }
  }

  /// Who holds `selection` now (after the server's pending news is read).
  func ownership(of selection: DisplaySelection) throws -> SelectionOwnership {
    try perform { try $0.ownership(of: selection) }
  }

  /// The number of ownership changes of `selection` seen by this process, up to date with
  /// the server (one round trip).
  func changeCount(of selection: DisplaySelection) throws -> Int {
    try perform { loop in
      try loop.synchronize()
      return loop.connection.published.changeCount(selection)
    }
  }

  /// Returns when this process no longer holds `selection` (at once when it does not).
  func waitUntilLost(_ selection: DisplaySelection) async { await published.waitUntilLost(selection) }

  /// Reads `target` of `selection` from its owner into `file` (made new), following INCR.
  ///
  /// - Parameter stallTimeout: How long the owner may stay silent before the read fails.
  /// - Returns: The X type of the answer (`INCR` transfers report the type of their chunks).
  func read(
    _ selection: DisplaySelection, target: String, into file: URL?, stallTimeout: Duration
  ) async throws -> (type: String, data: Data) {
    try await withCheckedThrowingContinuation { continuation in
      startRead(selection, target: target, into: file, stallTimeout: stallTimeout) { continuation.resume(with: $0) }
    }
  }

  /// ``read(_:target:into:stallTimeout:)`` with a completion, called once on the connection's thread.
  func startRead(
    _ selection: DisplaySelection, target: String, into file: URL?, stallTimeout: Duration,
    complete: @escaping @Sendable (Result<(type: String, data: Data), any Error>) -> Void
  ) {
    if let failure = published.failure { return complete(.failure(failure)) }
    post { loop in
      loop.enqueueRead(SelectionLoop.ReadRequest(selection: selection, target: target, file: file, stallTimeout: stallTimeout, complete: complete))
    }
  }

  /// Hands `selection`'s items to the clipboard manager (`SAVE_TARGETS` on
  /// `CLIPBOARD_MANAGER`) when one runs and this process still owns the selection.
  /// - Returns: Whether a manager took them.
  func handOverToClipboardManager(_ selection: DisplaySelection, timeout: Duration) async -> Bool {
    guard published.failure == nil, published.owned(selection) != nil else { return false }
    return await withCheckedContinuation { continuation in
      post { loop in loop.saveTargets(selection, timeout: timeout) { continuation.resume(returning: $0) } }
    }
  }

  // MARK: Published state (the loop calls these)

  func publishOwnership(_ selection: DisplaySelection, providers: [ItemProvider]?, countsAsChange: Bool) {
    published.publishOwnership(selection, providers: providers, countsAsChange: countsAsChange)
  }

  func publishChange(_ selection: DisplaySelection) { published.publishChange(selection) }

  func publishFailure(_ error: QuireError) { published.publishFailure(error) }
}
