import Dispatch
import Foundation
import QuireTestSupport
import Synchronization
import Testing

@testable import QuireTypes

/// `ThreadPool`: bounded threads for blocking work; everything submitted runs, in order.
@Suite("ThreadPool")
struct ThreadPoolTests {
  @Test func manyBlockingJobsAllRunOnAtMostLimitThreads() async {
    let pool = ThreadPool(name: "test.pool", limit: 4)
    let release = DispatchSemaphore(value: 0)
    let running = Atomic<Int>(0)
    let done = Atomic<Int>(0)
    let most = Atomic<Int>(0)
    for _ in 0..<200 {
      pool.submit {
        let now = running.add(1, ordering: .relaxed).newValue
        most.max(now, ordering: .relaxed)
        release.wait()
        running.subtract(1, ordering: .relaxed)
        done.add(1, ordering: .relaxed)
      }
    }
    #expect(await eventually { running.load(ordering: .relaxed) == 4 })
    #expect(pool.threadCount == 4)
    for _ in 0..<200 { release.signal() }
    #expect(await eventually { done.load(ordering: .relaxed) == 200 })
    #expect(most.load(ordering: .relaxed) == 4)
    #expect(pool.threadCount == 4)
  }

  @Test func oneThreadRunsJobsInOrder() async {
    let pool = ThreadPool(name: "test.serial", limit: 1)
    let order = Mutex<[Int]>([])
    for index in 0..<100 { pool.submit { order.withLock { $0.append(index) } } }
    #expect(await eventually { order.withLock { $0.count } == 100 })
    #expect(order.withLock { $0 } == Array(0..<100))
    #expect(pool.threadCount == 1)
  }

  @Test func idleThreadsAreReusedRatherThanAdded() async {
    let pool = ThreadPool(name: "test.reuse", limit: 8)
    let done = Atomic<Int>(0)
    for _ in 0..<50 {
      pool.submit { done.add(1, ordering: .relaxed) }
      #expect(await eventually { pool.threadCount >= 1 })
      let before = done.load(ordering: .relaxed)
      #expect(await eventually { done.load(ordering: .relaxed) > before - 1 })
    }
    #expect(await eventually { done.load(ordering: .relaxed) == 50 })
    #expect(pool.threadCount <= 8)
  }

  @Test func aLimitBelowOneIsOne() {
    #expect(ThreadPool(name: "test.zero", limit: 0).limit == 1)
  }
}
