/// How long a test waits for a condition before it calls it failed.
///
/// Generous because it only matters on a loaded machine, and a condition that holds early
/// returns at once: a whole test target runs for over two minutes under two busy loops
/// (`scripts/stress`), and a test may wait its turn on the main actor or the cooperative pool
/// for tens of seconds of that, while the tests beside it run.
public let patience: Duration = .seconds(120)

/// Polls `condition` until it holds or `timeout` passes, and returns whether it held.
///
/// Tests wait for conditions, never for fixed pauses. The condition is looked at once more
/// after the deadline, since the task may have slept past it. It runs on the caller's actor,
/// so a main-actor test can look at main-actor state.
public func eventually(
  isolation: isolated (any Actor)? = #isolation,
  timeout: Duration = patience, every interval: Duration = .milliseconds(5), _ condition: () throws -> Bool
) async rethrows -> Bool {
  let deadline = ContinuousClock.now + timeout
  while true {
    let late = ContinuousClock.now >= deadline
    if try condition() { return true }
    if late { return false }
    try? await Task.sleep(for: interval)
  }
}

/// ``eventually(isolation:timeout:every:_:)`` for a condition that must suspend to be looked
/// at (it asks another process, or takes a lock with a timeout).
public func eventually(
  isolation: isolated (any Actor)? = #isolation,
  timeout: Duration = patience, every interval: Duration = .milliseconds(5), _ condition: () async throws -> Bool
) async rethrows -> Bool {
  let deadline = ContinuousClock.now + timeout
  while true {
    let late = ContinuousClock.now >= deadline
    if try await condition() { return true }
    if late { return false }
    try? await Task.sleep(for: interval)
  }
}
