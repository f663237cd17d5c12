import Testing

@testable import QuireCoordination

/// `LockWait`: the one deadline-and-backoff rule of both lock acquires.
@Suite("LockWait: deadline and backoff of lock waits")
struct LockWaitTests {
  @Test func pausesDoubleFromTheFirstUpToTheLongest() {
    var wait = LockWait(timeout: nil)
    var pauses: [Duration] = []
    for _ in 0..<8 {
      guard case .pause(let pause) = wait.next(cancelled: false) else { break }
      pauses.append(pause)
    }
    #expect(pauses == [20, 40, 80, 160, 320, 400, 400, 400].map { Duration.microseconds($0) })
  }

  @Test func aCancelledWaitStopsAtOnce() {
    var wait = LockWait(timeout: .seconds(60))
    #expect(wait.next(cancelled: true) == .cancelled)
  }

  @Test func aWaitStopsOnceItsDeadlineHasPassed() async {
    var wait = LockWait(timeout: .zero)
    #expect(wait.next(cancelled: false) == .timedOut)
    var later = LockWait(timeout: .milliseconds(20))
    // Before the deadline it pauses; once past it (waited for, not assumed), it stops.
    var stopped = false
    for _ in 0..<100_000 {
      if later.next(cancelled: false) == .timedOut {
        stopped = true
        break
      }
      try? await Task.sleep(for: .milliseconds(1))
    }
    #expect(stopped)
  }

  @Test func withoutADeadlineItNeverTimesOut() {
    var wait = LockWait(timeout: nil)
    for _ in 0..<1000 { #expect(wait.next(cancelled: false) != .timedOut) }
  }
}
