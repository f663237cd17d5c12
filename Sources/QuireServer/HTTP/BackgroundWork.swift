import Dispatch
import Synchronization

/// Work the server does beside answering requests: blocking calls moved off Swift's
/// cooperative pool, and long tasks (thumbnailing, indexing) that stop with the server.
final class BackgroundWork: Sendable {
  private let tasks = Mutex<[Int: Task<Void, Never>]>([:])
  private let counter = Mutex(0)

  /// Starts `body` as a task that ``cancelAll()`` cancels.
  func start(_ body: @escaping @Sendable () async -> Void) {
    let id = counter.withLock { value in
      value += 1
      return value
    }
    let task = Task { [weak self] in
      await body()
      _ = self?.tasks.withLock { $0.removeValue(forKey: id) }
    }
    tasks.withLock { $0[id] = task }
  }

  /// Cancels every task started with ``start(_:)``.
  func cancelAll() {
    let running = tasks.withLock { tasks in
      defer { tasks.removeAll() }
      return Array(tasks.values)
    }
    for task in running { task.cancel() }
  }

  /// Runs blocking `body` (file reads, coordination waits, rendering) on a Dispatch worker
  /// thread, never on a thread of the cooperative pool, and returns its result.
  static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
      DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
    }
  }

  /// A flag one task sets and blocking work polls (a cancellation).
  final class Flag: Sendable {
    private let value = Atomic(false)
    var isSet: Bool { value.load(ordering: .relaxed) }
    func set() { value.store(true, ordering: .relaxed) }
  }
}
