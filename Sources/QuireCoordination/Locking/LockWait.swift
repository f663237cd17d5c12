/// The one deadline-and-backoff rule of lock waits: after each failed look at a busy lock, the
/// waiter pauses for a time that doubles from 20 µs to ``longestPause``, and stops when it is
/// cancelled or its deadline has passed.
///
/// Waiting polls (`F_OFD_SETLK`, then a pause) rather than blocking in `F_OFD_SETLKW`, because
/// a blocked `fcntl` cannot honour a deadline or a cancellation without signals; the longest
/// pause bounds how late a waiter notices that the lock is free.
///
/// The blocking acquire and the asynchronous one both follow it and differ only in how they
/// pause (`usleep` or `Task.sleep`). The blocking one does not wait on the asynchronous one:
/// a thread blocked until a task has run can starve the cooperative pool it would run on.
struct LockWait {
  /// The longest pause between two looks at a busy lock.
  static let longestPause = Duration.microseconds(400)
  /// The first pause.
  static let firstPause = Duration.microseconds(20)

  /// What the waiter does next.
  enum Next: Equatable {
    /// Pause this long, then look again.
    case pause(Duration)
    /// Stop: the wait was cancelled.
    case cancelled
    /// Stop: the deadline has passed.
    case timedOut
  }

  private let clock = ContinuousClock()
  private let deadline: ContinuousClock.Instant?
  private var pause = firstPause

  /// A wait that gives up after `timeout` (never, when `nil`).
  init(timeout: Duration?) {
    let start = ContinuousClock.now
    deadline = timeout.map { start + $0 }
  }

  /// After a look that found the lock busy: what to do next.
  mutating func next(cancelled: Bool) -> Next {
    if cancelled { return .cancelled }
    if let deadline, clock.now >= deadline { return .timedOut }
    defer { pause = min(pause * 2, Self.longestPause) }
    return .pause(pause)
  }
}
