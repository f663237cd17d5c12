import QuireSystem
import Synchronization

/// Work the server does beside answering requests: blocking calls moved off Swift's
/// cooperative pool, and long tasks (thumbnailing, indexing) that stop with the server.
///
/// Blocking calls run on the process's one ``BlockingExecutor``, in a lane per kind of work
/// (``Lane``), so that one kind cannot take every thread from the others: 500 folder listings
/// wait in the listings' lane while a file read or a preview goes ahead in its own.
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

  /// The kinds of the server's blocking work, each a lane of the blocking executor with the
  /// most threads it may hold at once.
  enum Lane {
    /// Folder listings, tags and single items (`/api/documents`, `/api/recents`).
    static let listings = BlockingLane("quire.serve.listings", limit: 4)
    /// Reads of served files (`/files/…`, a chunk at a time).
    static let files = BlockingLane("quire.serve.files", limit: 8)
    /// Previews of documents.
    static let previews = BlockingLane("quire.serve.previews", limit: 4)
    /// Full-text searches (each bounded by its own deadline).
    static let searches = BlockingLane("quire.serve.searches", limit: 2)
    /// Changes the page asks for: create, rename, move, duplicate, trash, tags, templates.
    static let changes = BlockingLane("quire.serve.changes", limit: 4)
    /// Thumbnails and the background indexing.
    static let thumbnails = BlockingLane("quire.serve.thumbnails", limit: 2)
    /// The desktop's recently used list.
    static let recents = BlockingLane("quire.serve.recents", limit: 2)
  }

  /// Runs blocking `body` (file reads, coordination waits, rendering) in `lane` of the
  /// blocking executor, never on a thread of the cooperative pool, and returns its result.
  static func run<T: Sendable>(in lane: BlockingLane, _ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await BlockingExecutor.shared.run(in: lane, body)
  }

  /// A flag one task sets and blocking work polls (a cancellation).
  final class Flag: Sendable {
    private let value = Atomic(false)
    var isSet: Bool { value.load(ordering: .relaxed) }
    func set() { value.store(true, ordering: .relaxed) }
  }
}

/// Runs of one computation shared by the requests that ask for it at once: 500 requests for
/// the same folder listing cost about two listings, not 500.
///
/// A request never gets a result computed before it arrived: one that comes while a run is
/// under way waits for the next run, which starts when that one ends and serves every request
/// that came meanwhile.
actor SharedRuns<Key: Hashable & Sendable, Value: Sendable> {
  private struct Run {
    let id: Int
    let task: Task<Value, any Error>
  }
  /// The run under way for each key.
  private var running: [Key: Run] = [:]
  /// The run that starts when the one under way ends (shared by the requests that wait for it).
  private var waiting: [Key: Run] = [:]
  private var nextID = 0

  /// The value for `key`, from a run of `compute` that started after this call.
  func value(for key: Key, _ compute: @escaping @Sendable () async throws -> Value) async throws -> Value {
    let run: Run
    if let next = waiting[key] {
      run = next
    } else if let current = running[key] {
      nextID += 1
      let id = nextID
      run = Run(
        id: id,
        task: Task {
          _ = await current.task.result
          self.begin(key, id)
          return try await compute()
        })
      waiting[key] = run
    } else {
      nextID += 1
      run = Run(id: nextID, task: Task { try await compute() })
      running[key] = run
    }
    let result = await run.task.result
    end(key, run.id)
    return try result.get()
  }

  /// The waiting run `id` starts: it is now the one under way.
  private func begin(_ key: Key, _ id: Int) {
    guard let next = waiting[key], next.id == id else { return }
    waiting[key] = nil
    running[key] = next
  }

  /// Run `id` ended (every request that shared it says so; the first one clears it).
  private func end(_ key: Key, _ id: Int) {
    if running[key]?.id == id { running[key] = nil }
  }
}
