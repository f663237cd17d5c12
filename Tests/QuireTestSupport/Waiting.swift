/// Polls `condition` until it holds or `timeout` passes, and returns whether it held.
///
/// Tests wait for conditions, never for fixed pauses: the deadline is generous because it only
/// matters on a loaded machine, and a condition that holds early returns at once. The condition
/// is looked at once more after the deadline, since the task may have slept past it.
/// It runs on the caller's actor, so a main-actor test can look at main-actor state.
public func eventually(
  isolation: isolated (any Actor)? = #isolation,
  timeout: Duration = .seconds(30), every interval: Duration = .milliseconds(5), _ condition: () throws -> Bool
) async rethrows -> Bool {
  let deadline = ContinuousClock.now + timeout
  while true {
    let late = ContinuousClock.now >= deadline
    if try condition() { return true }
    if late { return false }
    try? await Task.sleep(for: interval)
  }
}
