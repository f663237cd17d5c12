import Dispatch
import Foundation
import Synchronization

/// A fixed-size pool of threads for work that blocks (a load handler waiting on its source, a
/// socket read with a timeout): threads start as work arrives, up to `limit`, and then stay;
/// more work waits its turn in order.
///
/// Not Dispatch's global queues, which stop at one thread per core on Linux, so a few blocked
/// handlers would hold up everything else; not a thread or a queue per piece of work, which
/// grows without bound under load (one per connection, one per load).
package final class ThreadPool: Sendable {
  private struct State {
    var queue: [@Sendable () -> Void] = []
    var threads = 0
    var idle = 0
  }
  private let state = Mutex(State())
  private let available = DispatchSemaphore(value: 0)
  /// The threads' name, as `top -H` and debuggers show it.
  package let name: String
  /// The most threads the pool runs.
  package let limit: Int

  package init(name: String, limit: Int) {
    self.name = name
    self.limit = max(1, limit)
  }

  /// How many threads the pool has started (never more than ``limit``).
  package var threadCount: Int { state.withLock { $0.threads } }

  /// Runs `work` on one of the pool's threads, after the work submitted before it has started.
  package func submit(_ work: @escaping @Sendable () -> Void) {
    let startsThread = state.withLock { state -> Bool in
      state.queue.append(work)
      guard state.threads < limit, state.idle < state.queue.count else { return false }
      state.threads += 1
      return true
    }
    if startsThread {
      let thread = Thread { [self] in run() }
      thread.name = name
      thread.start()
    }
    available.signal()
  }

  private func run() {
    while true {
      state.withLock { $0.idle += 1 }
      available.wait()
      let work = state.withLock { state in
        state.idle -= 1
        return state.queue.removeFirst()
      }
      work()
    }
  }
}
