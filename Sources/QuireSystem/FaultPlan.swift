import Synchronization
package import SystemPackage

/// What a system call does, as a ``FaultPlan`` names it. Several C calls share one operation
/// (`open`, `openat`: ``open``), and one C call can serve two (`fsync` of a file is ``flush``,
/// of its folder ``folderFlush``), so a test names the step it means, not the call.
package enum SystemStep: String, Sendable, CaseIterable, CustomStringConvertible {
  /// Opening an existing file (`open(2)`, `openat(2)` without `O_CREAT`).
  case open
  /// Opening a folder to work inside it (`O_DIRECTORY`).
  case openFolder
  /// Creating a file (`O_CREAT`).
  case create
  /// Reading bytes (`read`, `pread`, `recv`).
  case read
  /// Writing bytes (`write`, `pwrite`, `send`, in-kernel copies).
  case write
  /// Reading metadata (`stat`, `lstat`, `fstat`, `fstatat`, `faccessat`, `statfs`).
  case inspect
  /// Cutting a file to a length (`ftruncate`).
  case truncate
  /// Flushing a file to the disk (`fsync`).
  case flush
  /// Flushing a folder so a rename in it is on disk (`fsync` of the folder).
  case folderFlush
  /// Setting permission bits or times (`fchmod`, `futimens`).
  case keepMode
  /// Setting owner and group (`fchown`).
  case keepOwner
  /// Closing a written file (`close`, which can report a deferred write error).
  case close
  /// Renaming (`rename`, `renameat`, `renameat2`).
  case rename
  /// Removing a name (`unlink`, `unlinkat`, `rmdir`).
  case remove
  /// Making a folder (`mkdir`, `mkdirat`).
  case makeFolder
  /// Making a hard or symbolic link (`linkat`, `symlinkat`).
  case link
  /// Taking a lock (`fcntl` record locks, `flock`).
  case lock
  /// Making, binding or connecting a socket.
  case connect
  /// Watching a path for changes (`inotify_add_watch`).
  case watch

  package var description: String { rawValue }
}

/// The one fault-injection hook of the package: a plan of failures that the system calls made
/// inside one task (and the work it hands on, see ``carry(_:)``) consult before calling.
///
/// A test binds a plan with ``run(_:)`` and every call in the ``SystemCalls`` layer first asks
/// it whether to fail. Faults are chosen by operation (or any), by path prefix (or any path)
/// and by occurrence (the n-th matching call, or every one). The plan also records the
/// operations that were called, so a test can first record a clean run and then fail each
/// step in turn. Being task-local, plans of tests that run in parallel never meet. Release
/// builds never consult it.
package final class FaultPlan: Sendable {
  /// One planned failure.
  package struct Fault: Sendable {
    /// The operation that fails; nil for any.
    package var operation: SystemStep?
    /// The error it fails with.
    package var errno: Errno
    /// Only calls on paths that start with this string count; nil for every call.
    package var pathPrefix: String?
    /// The matching call that fails (1 = the first); nil for every one.
    package var occurrence: Int?
    /// When set, the matching call does not fail: it runs this first (which may never return,
    /// to hold a process at an exact step for a test that kills it there), then goes on.
    package var hold: (@Sendable () -> Void)?

    package init(_ operation: SystemStep?, _ errno: Errno, under pathPrefix: String? = nil, occurrence: Int? = 1) {
      self.operation = operation
      self.errno = errno
      self.pathPrefix = pathPrefix
      self.occurrence = occurrence
    }

    /// A step that is held rather than failed: the `occurrence`-th call of `operation` runs
    /// `hold` before it is made.
    package init(holding operation: SystemStep?, under pathPrefix: String? = nil, occurrence: Int = 1, with hold: @escaping @Sendable () -> Void) {
      self.init(operation, .ioError, under: pathPrefix, occurrence: occurrence)
      self.hold = hold
    }

    func matches(_ operation: SystemStep, _ path: String?) -> Bool {
      if let wanted = self.operation, wanted != operation { return false }
      if let pathPrefix {
        guard let path, path.hasPrefix(pathPrefix) else { return false }
      }
      return true
    }
  }

  private struct State {
    var calls: [SystemStep] = []
    var matched: [Int] = []
  }

  private let faults: [Fault]
  private let scope: String?
  private let state: Mutex<State>

  /// A plan that fails the given calls (none: it only records).
  ///
  /// - Parameter scope: When given, only calls on paths under it are seen at all (recorded,
  ///   counted, failed): a test scopes its plan to its own folder, so that the calls other
  ///   layers make elsewhere (lock files, caches) neither fail nor shift the counts.
  package init(_ faults: [Fault] = [], scope: String? = nil) {
    self.faults = faults
    self.scope = scope
    state = Mutex(State(matched: Array(repeating: 0, count: faults.count)))
  }

  /// A plan with one failure: the `occurrence`-th call of `operation` (every one when nil),
  /// only on paths under `pathPrefix` when one is given (which then also scopes the plan).
  package convenience init(failing operation: SystemStep?, with errno: Errno, occurrence: Int? = 1, under pathPrefix: String? = nil) {
    self.init([Fault(operation, errno, under: pathPrefix, occurrence: occurrence)], scope: pathPrefix)
  }

  /// The operations called under this plan, in order.
  package var calls: [SystemStep] { state.withLock { $0.calls } }

  /// How many calls of each operation were made under this plan.
  package var callCounts: [SystemStep: Int] {
    state.withLock { state in state.calls.reduce(into: [:]) { $0[$1, default: 0] += 1 } }
  }

  /// The plan bound to the current task, if any.
  @TaskLocal package static var current: FaultPlan?

  /// Runs `body` with this plan bound.
  package func run<R>(_ body: () throws -> R) rethrows -> R {
    try Self.$current.withValue(self, operation: body)
  }

  /// Runs the async `body` with this plan bound (child tasks and `Task {}` inherit it).
  package func run<R>(isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> R) async rethrows -> R {
    try await Self.$current.withValue(self, operation: body, isolation: isolation)
  }

  /// Wraps `body` so that it runs under the current task's plan wherever it runs: for work
  /// handed to a thread or a dispatch queue, which task-local values do not reach.
  package static func carry<R>(_ body: @escaping @Sendable () -> R) -> @Sendable () -> R {
    #if DEBUG
      guard let plan = current else { return body }
      return { plan.run(body) }
    #else
      return body
    #endif
  }

  /// The error that the current plan makes `operation` on `path` fail with, if any. A
  /// relative `path` is taken inside `folder` (an open folder's descriptor); with no `path`,
  /// the call is on the item `folder` names (a file's descriptor). Every call in the plan's
  /// scope is recorded.
  package static func failure(_ operation: SystemStep, path: String? = nil, in folder: FileDescriptor? = nil) -> Errno? {
    #if DEBUG
      guard let plan = current else { return nil }
      var path = path
      if let folder, plan.needsPaths, path.map({ !$0.hasPrefix("/") }) ?? true,
        let folderPath = SystemCalls.readLink("/proc/self/fd/\(folder.rawValue)")
      {
        path = path.map { folderPath + "/" + $0 } ?? folderPath
      }
      return plan.check(operation, path)
    #else
      return nil
    #endif
  }

  private var needsPaths: Bool { scope != nil || faults.contains { $0.pathPrefix != nil } }

  private func check(_ operation: SystemStep, _ path: String?) -> Errno? {
    if let scope {
      guard let path, path.hasPrefix(scope) else { return nil }
    }
    let (failure, holds) = state.withLock { state in
      state.calls.append(operation)
      var failure: Errno?
      var holds: [@Sendable () -> Void] = []
      for (index, fault) in faults.enumerated() where fault.matches(operation, path) {
        state.matched[index] += 1
        guard fault.occurrence == nil || fault.occurrence == state.matched[index] else { continue }
        if let hold = fault.hold {
          holds.append(hold)
        } else if failure == nil {
          failure = fault.errno
        }
      }
      return (failure, holds)
    }
    for hold in holds { hold() }
    return failure
  }
}
