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
  struct Published: Sendable {
    var changeCounts: [DisplaySelection: Int] = [:]
    var owned: [DisplaySelection: [ItemProvider]] = [:]
    var lostWaiters: [DisplaySelection: [CheckedContinuation<Void, Never>]] = [:]
    /// Set when the connection broke (the X server went away): every later use fails with it.
    var failure: QuireError?
  }
  let published = Mutex(Published())

  private let inbox = Mutex<[@Sendable (SelectionLoop) -> Void]>([])
  /// A pipe whose read end the loop polls beside the X socket; a byte is written to it when
  /// the inbox gets work.
  let wakeDescriptor: Int32
  private let wakeWriter: Int32

  /// The connections of this process, by display name.
  private static let connections = Mutex<[String: DisplayConnection]>([:])

  /// The connection to `display`, opened on first use (and again after the server went away).
  ///
  /// - Throws: ``QuireError`` `.fileMissing` naming the display when no X server answers.
  static func to(_ display: String) throws -> DisplayConnection {
    let existing = connections.withLock { $0[display] }
    if let existing, existing.published.withLock({ $0.failure }) == nil { return existing }
    let made = try DisplayConnection(display: display)
    return connections.withLock { all in
      if let other = all[display], other !== existing, other.published.withLock({ $0.failure }) == nil { return other }
      all[display] = made
      return made
    }
  }

  /// Every open connection (for handing items over at exit).
  static var all: [DisplayConnection] { connections.withLock { Array($0.values) } }

  private init(display: String) throws {
    self.display = display
    let ends: (read: FileDescriptor, write: FileDescriptor)
    switch SystemCalls.pipe(nonBlocking: true) {
    case .success(let made): ends = made
    case .failure(let failure):
      throw QuireError(
        QuireError.Code(failure.errno), "Cannot watch the X display '\(display)': no wake pipe could be made (\(failure.errno)).", cause: failure)
    }
    wakeDescriptor = ends.read.rawValue
    wakeWriter = ends.write.rawValue
    let opened = Mutex<Result<Void, QuireError>?>(nil)
    let ready = DispatchSemaphore(value: 0)
    let thread = Thread { [self] in
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
    thread.name = "quire X11 \(display)"
    thread.start()
    if ready.wait(timeout: .now() + 30) == .timedOut {
      throw QuireError(.timedOut, "The X display '\(display)' did not answer within 30 s. Check DISPLAY, or unset it to use Quire's own pasteboard.")
    }
    if case .failure(let error) = opened.withLock({ $0 }) {
      SystemCalls.release(ends.read)
      SystemCalls.release(ends.write)
      throw error
    }
  }

  // MARK: Talking to the loop

  /// Runs `work` on the connection's thread, soon.
  func post(_ work: @escaping @Sendable (SelectionLoop) -> Void) {
    inbox.withLock { $0.append(work) }
    _ = SystemCalls.writeAll(FileDescriptor(rawValue: wakeWriter), [UInt8(1)])  // a full pipe already wakes the loop
  }

  /// The closures posted so far, taken out (the loop calls this).
  func takeWork() -> [@Sendable (SelectionLoop) -> Void] {
    var drained = [UInt8](repeating: 0, count: 256)
    while case .success(let count) = drained.withUnsafeMutableBytes({ SystemCalls.read(FileDescriptor(rawValue: wakeDescriptor), into: $0) }), count > 0 {}
    return inbox.withLock { work in
      defer { work = [] }
      return work
    }
  }

  /// Runs `work` on the connection's thread and waits for its result (at most `timeout`).
  /// Used for quick round trips to the server, never for waiting on other programs.
  func perform<Value: Sendable>(timeout: Duration = .seconds(30), _ work: @escaping @Sendable (SelectionLoop) throws -> Value) throws -> Value {
    if let failure = published.withLock({ $0.failure }) { throw failure }
    let result = Mutex<Result<Value, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    post { loop in
      result.withLock { $0 = Result { try work(loop) } }
      done.signal()
    }
    if done.wait(timeout: .now() + timeout.timeInterval) == .timedOut {
      throw QuireError(.timedOut, "The X display '\(display)' did not answer within \(timeout).")
    }
    guard let outcome = result.withLock({ $0 }) else { throw QuireError(.libraryFailure, "The X connection lost a request.") }
    return try outcome.get()
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
      return loop.connection.published.withLock { $0.changeCounts[selection] ?? 0 }
    }
  }

  /// Returns when this process no longer holds `selection` (at once when it does not).
  func waitUntilLost(_ selection: DisplaySelection) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let resumeNow = published.withLock { state -> Bool in
        guard state.owned[selection] != nil, state.failure == nil else { return true }
        state.lostWaiters[selection, default: []].append(continuation)
        return false
      }
      if resumeNow { continuation.resume() }
    }
  }

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
    if let failure = published.withLock({ $0.failure }) { return complete(.failure(failure)) }
    post { loop in
      loop.enqueueRead(SelectionLoop.ReadRequest(selection: selection, target: target, file: file, stallTimeout: stallTimeout, complete: complete))
    }
  }

  /// Hands `selection`'s items to the clipboard manager (`SAVE_TARGETS` on
  /// `CLIPBOARD_MANAGER`) when one runs and this process still owns the selection.
  /// - Returns: Whether a manager took them.
  func handOverToClipboardManager(_ selection: DisplaySelection, timeout: Duration) async -> Bool {
    guard published.withLock({ $0.failure == nil && $0.owned[selection] != nil }) else { return false }
    return await withCheckedContinuation { continuation in
      post { loop in loop.saveTargets(selection, timeout: timeout) { continuation.resume(returning: $0) } }
    }
  }

  // MARK: Published state (the loop calls these)

  func publishOwnership(_ selection: DisplaySelection, providers: [ItemProvider]?, countsAsChange: Bool) {
    let waiters = published.withLock { state -> [CheckedContinuation<Void, Never>] in
      if countsAsChange { state.changeCounts[selection, default: 0] += 1 }
      state.owned[selection] = providers
      guard providers == nil else { return [] }
      return state.lostWaiters.removeValue(forKey: selection) ?? []
    }
    for waiter in waiters { waiter.resume() }
  }

  func publishChange(_ selection: DisplaySelection) {
    published.withLock { $0.changeCounts[selection, default: 0] += 1 }
  }

  func publishFailure(_ error: QuireError) {
    let waiters = published.withLock { state -> [CheckedContinuation<Void, Never>] in
      state.failure = error
      state.owned = [:]
      defer { state.lostWaiters = [:] }
      return state.lostWaiters.values.flatMap { $0 }
    }
    for waiter in waiters { waiter.resume() }
  }
}
