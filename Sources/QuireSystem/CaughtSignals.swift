internal import CQuireSystem
import Synchronization
import SystemPackage

/// The signals the process's interrupt handler catches (`cquire_install_interrupt_handler`:
/// SIGINT, and SIGTERM for commands that install it), as something a task awaits rather than
/// a flag it polls.
///
/// The handler writes a byte to a pipe; one thread of its own (started the first time a task
/// waits) reads the pipe and resumes every task waiting.
package enum CaughtSignals {
  private struct State {
    var started = false
    var caught = 0
    var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    var nextID = 0
  }
  private static let state = Mutex(State())

  /// How many signals the handler has caught since the first wait began.
  package static var count: Int { state.withLock { $0.caught } }

  /// Makes the pipe and starts its reader now, so that a signal caught from here on wakes a
  /// later ``next(after:)``. Call it once the handler is installed.
  package static func prepare() { _ = startIfNeeded() }

  /// Returns once the handler has caught more than `seen` signals (``count`` read before the
  /// caller last looked at its interrupt flag; by default, as this call begins), or when the
  /// task is cancelled. Returns at once when the pipe cannot be made (the caller then stops
  /// waiting rather than wait for ever).
  package static func next(after seen: Int? = nil) async {
    guard startIfNeeded() else { return }
    let (id, seen) = state.withLock { state -> (Int, Int) in
      state.nextID += 1
      return (state.nextID, seen ?? state.caught)
    }
    await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        let cancelled = state.withLock { state -> Bool in
          // A signal caught between the start of this call and now counts too.
          if Task.isCancelled || state.caught > seen { return true }
          state.waiters[id] = continuation
          return false
        }
        if cancelled { continuation.resume() }
      }
    } onCancel: {
      state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
    }
  }

  /// Makes the pipe and starts the reading thread, once; whether they are there.
  private static func startIfNeeded() -> Bool {
    let starting = state.withLock { state -> Bool in
      defer { state.started = true }
      return !state.started
    }
    if !starting { return wake.withLock { $0 != nil } }
    guard case .success(let ends) = SystemCalls.pipe(nonBlocking: true) else { return false }
    wake.withLock { $0 = ends.write }
    cquire_set_interrupt_wake(ends.write.rawValue)
    DedicatedThread.start(named: "quire.signals") { read(ends.read) }
    return true
  }

  private static let wake = Mutex<FileDescriptor?>(nil)

  private static func read(_ pipe: FileDescriptor) {
    var buffer = [UInt8](repeating: 0, count: 64)
    while true {
      guard SystemCalls.waitReadable([pipe], milliseconds: -1).first == true else { continue }
      // Drain what is there (non-blocking): several signals at once wake the waiters once.
      while case .success(let count) = buffer.withUnsafeMutableBytes({ SystemCalls.read(pipe, into: $0) }), count > 0 {}
      let waiting = state.withLock { state in
        state.caught += 1
        defer { state.waiters.removeAll() }
        return Array(state.waiters.values)
      }
      for waiter in waiting { waiter.resume() }
    }
  }
}
