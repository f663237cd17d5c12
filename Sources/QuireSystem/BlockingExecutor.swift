internal import CQuireSystem
internal import Foundation

/// A kind of blocking work, with the most threads it may hold at once.
///
/// Each lane is a FIFO queue of its own; ``BlockingExecutor`` serves the lanes that have work
/// in turn, so one kind of work (500 folder listings) never keeps another (a file read) waiting
/// for a thread.
package struct BlockingLane: Sendable, Hashable, CustomStringConvertible {
  /// The lane's name, as the executor's threads carry it while they run its work.
  package let name: String
  /// The most of this lane's work that runs at once; more waits in the lane, in order.
  package let limit: Int

  package init(_ name: String, limit: Int) {
    self.name = name
    self.limit = max(1, limit)
  }

  package var description: String { "\(name) (at most \(limit))" }

  /// Blocking calls with no lane of their own: a command's work moved off the cooperative pool.
  package static let general = BlockingLane("quire.blocking", limit: 16)
}

/// The one executor for work that blocks (file reads, coordination waits, socket round trips,
/// waits on other processes): every module runs such work here, never on a raw `Thread` nor on
/// Dispatch's global queues, and never on a thread of Swift's cooperative pool.
///
/// Why not the others: Dispatch's global queues run about one thread per core on Linux, so a
/// few blocked calls hold up everything queued behind them; a thread per piece of work grows
/// without bound under load (one per connection, one per load); the cooperative pool is as wide
/// as the machine has cores, and the work the blocked code waits for needs those threads.
///
/// ## Size
///
/// Work is submitted to a ``BlockingLane``. A lane runs at most ``BlockingLane/limit`` pieces
/// of work at once; threads start as work arrives, are shared by all lanes, and end after
/// ``idleLifetime`` without work. So the executor never has more threads than the limits of
/// the lanes in use add up to (plus threads about to end), and a quiet process has none.
///
/// ## Starvation rules
///
/// - A lane's work never waits for another lane's: when a lane is under its limit and has work,
///   a thread runs it (an idle one, or a new one).
/// - Within a lane, work starts in the order it was submitted.
/// - Free threads serve the lanes with work in turn (round robin), one piece at a time, so a
///   lane with a long queue does not keep a newly busy lane waiting for a thread.
/// - Work that waits for other work (a coordination wait for a presenter's answer) must not
///   share a lane with it: a lane full of waiters would wait for itself.
package final class BlockingExecutor: Sendable {
  /// The process's executor.
  package static let shared = BlockingExecutor()

  /// How long a thread with nothing to do stays before it ends.
  package let idleLifetime: Duration

  private struct Lane {
    var queue: [@Sendable () -> Void] = []
    var running = 0
  }

  private struct State {
    var lanes: [BlockingLane: Lane] = [:]
    /// The lanes in the order free threads serve them; the first is served next.
    var turn: [BlockingLane] = []
    var threads = 0
    /// Threads running a piece of work; the others are idle or about to look for work.
    var busy = 0

    /// How many pieces of work could start now (queued, within their lanes' limits).
    var startable: Int {
      lanes.reduce(0) { sum, entry in sum + min(entry.value.queue.count, max(0, entry.key.limit - entry.value.running)) }
    }

    /// The next piece of work a free thread takes, by the lanes' turns; `nil` when every lane
    /// is empty or at its limit.
    mutating func next() -> (BlockingLane, @Sendable () -> Void)? {
      for (index, lane) in turn.enumerated() {
        guard var state = lanes[lane], !state.queue.isEmpty, state.running < lane.limit else { continue }
        let work = state.queue.removeFirst()
        state.running += 1
        busy += 1
        lanes[lane] = state
        // This lane goes to the back of the turn; the others keep their order.
        turn.remove(at: index)
        turn.append(lane)
        return (lane, work)
      }
      return nil
    }
  }

  private let condition = NSCondition()
  // Guarded by `condition` (NSCondition is the lock and the wait in one).
  nonisolated(unsafe) private var state = State()

  package init(idleLifetime: Duration = .seconds(30)) {
    self.idleLifetime = idleLifetime
  }

  /// How many threads the executor has now.
  package var threadCount: Int {
    condition.lock()
    defer { condition.unlock() }
    return state.threads
  }

  /// Runs `work` on one of the executor's threads, in `lane`'s turn.
  package func submit(in lane: BlockingLane = .general, _ work: @escaping @Sendable () -> Void) {
    condition.lock()
    defer { condition.unlock() }
    if state.lanes[lane] == nil {
      state.lanes[lane] = Lane()
      state.turn.append(lane)
    }
    state.lanes[lane]?.queue.append(work)
    // Threads not running work (idle, or started and not yet looking) take what can start.
    if state.threads - state.busy >= state.startable {
      condition.signal()
    } else {
      state.threads += 1
      DedicatedThread.start(named: "quire.blocking") { [self] in serve() }
    }
  }

  /// Runs blocking `body` on one of the executor's threads, in `lane`'s turn, and returns what
  /// it returns or throws. The awaiting task holds no thread meanwhile.
  package func run<T: Sendable>(in lane: BlockingLane = .general, _ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
      submit(in: lane) { continuation.resume(with: Result { try body() }) }
    }
  }

  /// Runs `work` in `lane` once `delay` has passed (a timer: no thread waits meanwhile).
  package func submit(in lane: BlockingLane = .general, after delay: Duration, _ work: @escaping @Sendable () -> Void) {
    Task {
      try? await Task.sleep(for: delay)
      submit(in: lane, work)
    }
  }

  /// A thread's loop: take the next piece of work by the lanes' turns, run it, and end after
  /// ``idleLifetime`` with nothing to do.
  private func serve() {
    condition.lock()
    while true {
      if let next = state.next() {
        let (lane, work) = next
        condition.unlock()
        Thread.current.name = DedicatedThread.kernelName(lane.name)
        work()
        condition.lock()
        state.lanes[lane]?.running -= 1
        state.busy -= 1
        continue
      }
      let seconds = Double(idleLifetime.components.seconds) + Double(idleLifetime.components.attoseconds) / 1e18
      let woken = condition.wait(until: Date(timeIntervalSinceNow: seconds))
      if !woken && state.startable == 0 {
        state.threads -= 1
        condition.unlock()
        return
      }
    }
  }
}

/// A thread of its own for a loop that lives as long as what it serves: an accept loop, a
/// display connection's event loop, the inotify owner, a reader of a stream that blocks in
/// `read(2)`, the REPL's terminal reader. Not for short work: that goes to
/// ``BlockingExecutor``, which bounds and shares its threads.
package enum DedicatedThread {
  /// Starts `body` on a new thread named `name` (as `ps -L`, `top -H` and debuggers show it:
  /// the first 15 bytes, the kernel's limit).
  ///
  /// - Parameter stackSize: The thread's stack in bytes (8 MiB, the main thread's usual size,
  ///   unless asked: deep recursion in a regular expression or a parser must not overflow).
  package static func start(named name: String, stackSize: Int = 8 << 20, _ body: @escaping @Sendable () -> Void) {
    let shown = kernelName(name)
    let thread = Thread {
      Thread.current.name = shown
      // Foundation passes a name to the kernel only once it holds the thread's handle, which
      // the starting thread may not have stored yet; the thread would keep its creator's name
      // (a Dispatch worker's). Set it from the thread itself.
      _ = cquire_set_current_thread_name(shown)
      body()
    }
    thread.name = shown
    thread.stackSize = stackSize
    thread.start()
  }

  /// `name` as the kernel keeps a thread's name: its first 15 bytes (`pthread_setname_np`
  /// refuses a longer one, and the thread would keep its creator's name).
  package static func kernelName(_ name: String) -> String {
    var bytes = Array(name.utf8.prefix(15))
    // Never half a character.
    while !bytes.isEmpty, String(validating: bytes, as: UTF8.self) == nil { bytes.removeLast() }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Runs blocking `body` on a thread of its own and awaits its result (a REPL session waiting
  /// for the terminal, which may wait for as long as the user likes).
  package static func run<T: Sendable>(named name: String, stackSize: Int = 8 << 20, _ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
      start(named: name, stackSize: stackSize) { continuation.resume(with: Result { try body() }) }
    }
  }
}
