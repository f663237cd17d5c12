import Dispatch
import Foundation
import QuireTestSupport
import Synchronization
import Testing

@testable import QuireSystem

/// `BlockingExecutor`: one bounded executor for blocking work, lane by lane, each lane within
/// its limit, in order, and no lane kept waiting by another's queue.
@Suite("BlockingExecutor")
struct BlockingExecutorTests {
  @Test func manyBlockingJobsInOneLaneRunAtMostItsLimitAtOnce() async {
    let executor = BlockingExecutor()
    let lane = BlockingLane("test.bounded", limit: 4)
    let release = DispatchSemaphore(value: 0)
    let running = Atomic<Int>(0)
    let done = Atomic<Int>(0)
    let most = Atomic<Int>(0)
    for _ in 0..<200 {
      executor.submit(in: lane) {
        let now = running.add(1, ordering: .relaxed).newValue
        most.max(now, ordering: .relaxed)
        release.wait()
        running.subtract(1, ordering: .relaxed)
        done.add(1, ordering: .relaxed)
      }
    }
    #expect(await eventually { running.load(ordering: .relaxed) == 4 })
    #expect(executor.threadCount == 4)
    for _ in 0..<200 { release.signal() }
    #expect(await eventually { done.load(ordering: .relaxed) == 200 })
    #expect(most.load(ordering: .relaxed) == 4)
    #expect(executor.threadCount <= 4)
  }

  @Test func aLaneOfOneRunsItsWorkInOrder() async {
    let executor = BlockingExecutor()
    let lane = BlockingLane("test.serial", limit: 1)
    let order = Mutex<[Int]>([])
    for index in 0..<100 { executor.submit(in: lane) { order.withLock { $0.append(index) } } }
    #expect(await eventually { order.withLock { $0.count } == 100 })
    #expect(order.withLock { $0 } == Array(0..<100))
  }

  @Test func aLaneWithAFullQueueDoesNotKeepAnotherLaneWaiting() async throws {
    let executor = BlockingExecutor()
    let busy = BlockingLane("test.busy", limit: 2)
    let other = BlockingLane("test.other", limit: 1)
    let release = DispatchSemaphore(value: 0)
    let started = Atomic<Int>(0)
    for _ in 0..<500 {
      executor.submit(in: busy) {
        started.add(1, ordering: .relaxed)
        release.wait()
      }
    }
    #expect(await eventually { started.load(ordering: .relaxed) == 2 })
    // The busy lane is at its limit with 498 waiting; the other lane's work runs meanwhile.
    let answer = try await executor.run(in: other) { 42 }
    #expect(answer == 42)
    #expect(started.load(ordering: .relaxed) == 2, "the busy lane went past its limit")
    for _ in 0..<500 { release.signal() }
    #expect(await eventually { started.load(ordering: .relaxed) == 500 })
  }

  @Test func runReturnsTheResultAndRethrowsTheError() async throws {
    let executor = BlockingExecutor()
    #expect(try await executor.run { "done" } == "done")
    struct Failure: Error {}
    await #expect(throws: Failure.self) { try await executor.run { () throws -> Int in throw Failure() } }
  }

  @Test func idleThreadsEndAfterTheirLifetime() async {
    let executor = BlockingExecutor(idleLifetime: .milliseconds(50))
    let done = Atomic<Int>(0)
    for _ in 0..<8 { executor.submit(in: BlockingLane("test.idle", limit: 8)) { done.add(1, ordering: .relaxed) } }
    #expect(await eventually { done.load(ordering: .relaxed) == 8 })
    #expect(await eventually { executor.threadCount == 0 })
  }

  @Test func workSubmittedAfterADelayRuns() async {
    let executor = BlockingExecutor()
    let ran = Atomic(false)
    executor.submit(after: .milliseconds(20)) { ran.store(true, ordering: .relaxed) }
    #expect(await eventually { ran.load(ordering: .relaxed) })
  }

  @Test func aLimitBelowOneIsOne() {
    #expect(BlockingLane("test.zero", limit: 0).limit == 1)
  }

  @Test func aDedicatedThreadCarriesItsName() async throws {
    // The kernel's name, as `ps -L` and `top -H` show it (15 bytes at most).
    let name = try await DedicatedThread.run(named: "quire.test.dedicated") {
      try String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }
    #expect(name == "quire.test.dedi")
  }
}
