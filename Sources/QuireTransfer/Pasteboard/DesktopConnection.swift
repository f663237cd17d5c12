import Foundation
import QuireTypes
import Synchronization

/// A connection to the desktop's clipboard, the one thing a ``Pasteboard`` on a desktop talks
/// to: an X display (``DisplayConnection``) or a Wayland compositor with data-control
/// (``WaylandConnection``). Both keep their C state on one thread of their own and give the
/// same answers: who holds a selection, the items this process set, another program's items
/// as providers read when loaded.
protocol DesktopConnection: AnyObject, Sendable {
  /// The display's name as the environment gives it (`:0`, `wayland-1`, or a socket's path).
  var display: String { get }
  /// What the pasteboard is, for messages: "the X display ':0'", "the Wayland compositor 'wayland-1'".
  var description: String { get }
  /// Takes `selection` with `providers` (or gives it up when empty); the change count goes up.
  func own(_ selection: DisplaySelection, providers: [ItemProvider]) throws
  /// Who holds `selection` now, up to date with the server.
  func ownership(of selection: DisplaySelection) throws -> SelectionOwnership
  /// The number of changes of `selection` seen by this process, up to date with the server.
  func changeCount(of selection: DisplaySelection) throws -> Int
  /// Returns when this process no longer holds `selection` (at once when it does not).
  func waitUntilLost(_ selection: DisplaySelection) async
  /// The items this process holds `selection` with, without asking the server.
  func ownedProviders(of selection: DisplaySelection) -> [ItemProvider]?
  /// Another program's `selection`, as one provider whose representations are read when loaded.
  func otherItemProviders(of selection: DisplaySelection) throws -> [ItemProvider]
  /// Hands `selection`'s items to a clipboard manager at exit; whether one took them.
  func handOverToClipboardManager(_ selection: DisplaySelection, timeout: Duration) async -> Bool
}

extension DisplayConnection: DesktopConnection {
  var description: String { "the X display '\(display)'" }

  func ownedProviders(of selection: DisplaySelection) -> [ItemProvider]? {
    published.owned(selection)
  }

  func otherItemProviders(of selection: DisplaySelection) throws -> [ItemProvider] {
    try SelectionReader(connection: self, selection: selection).itemProviders()
  }
}

/// What a desktop connection's thread publishes for other threads: change counts, the items
/// this process holds each selection with, who waits for losing one, and the failure that
/// ended the connection. Shared by the X11 and the Wayland connection.
final class SelectionPublisher: Sendable {
  private struct State: Sendable {
    var changeCounts: [DisplaySelection: Int] = [:]
    var owned: [DisplaySelection: [ItemProvider]] = [:]
    var lostWaiters: [DisplaySelection: [CheckedContinuation<Void, Never>]] = [:]
    var failure: QuireError?
  }
  private let state = Mutex(State())

  /// Set when the connection broke (the server went away): every later use fails with it.
  var failure: QuireError? { state.withLock { $0.failure } }

  /// The items this process holds `selection` with.
  func owned(_ selection: DisplaySelection) -> [ItemProvider]? { state.withLock { $0.owned[selection] } }

  /// The changes of `selection` counted so far.
  func changeCount(_ selection: DisplaySelection) -> Int { state.withLock { $0.changeCounts[selection] ?? 0 } }

  /// Returns when this process no longer holds `selection` (at once when it does not).
  func waitUntilLost(_ selection: DisplaySelection) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let resumeNow = state.withLock { state -> Bool in
        guard state.owned[selection] != nil, state.failure == nil else { return true }
        state.lostWaiters[selection, default: []].append(continuation)
        return false
      }
      if resumeNow { continuation.resume() }
    }
  }

  /// This process now holds `selection` with `providers`, or (nil) no longer holds it.
  func publishOwnership(_ selection: DisplaySelection, providers: [ItemProvider]?, countsAsChange: Bool) {
    let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
      if countsAsChange { state.changeCounts[selection, default: 0] += 1 }
      state.owned[selection] = providers
      guard providers == nil else { return [] }
      return state.lostWaiters.removeValue(forKey: selection) ?? []
    }
    for waiter in waiters { waiter.resume() }
  }

  /// Another program changed `selection`.
  func publishChange(_ selection: DisplaySelection) {
    state.withLock { $0.changeCounts[selection, default: 0] += 1 }
  }

  /// The connection broke: nothing is held any more, and every later use fails with `error`.
  func publishFailure(_ error: QuireError) {
    let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
      state.failure = error
      state.owned = [:]
      defer { state.lostWaiters = [:] }
      return state.lostWaiters.values.flatMap { $0 }
    }
    for waiter in waiters { waiter.resume() }
  }
}
