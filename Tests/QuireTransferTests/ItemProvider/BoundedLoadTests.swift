import Dispatch
import Foundation
import QuireTestSupport
import QuireTypes
import Synchronization
import Testing

@testable import QuireTransfer

/// Many loads at once: all of them deliver, and they run in the provider's lanes of the blocking
/// executor, within the lane's limit (a queue or a thread per load made one thread each).
@Suite("Item provider: many loads, bounded threads")
struct BoundedLoadTests {

  @Test func twoHundredBlockedLoadsDeliverWithoutAThreadEach() async throws {
    let release = DispatchSemaphore(value: 0)
    let started = Atomic<Int>(0)
    let delivered = Atomic<Int>(0)
    var progresses: [Progress] = []
    for index in 0..<200 {
      let provider = ItemProvider()
      provider.registerDataRepresentation(for: .plainText) { completion in
        started.add(1, ordering: .relaxed)
        release.wait()
        completion(Data("load \(index)".utf8), nil)
        return nil
      }
      progresses.append(
        provider.loadDataRepresentation(for: .plainText) { data, _ in
          if data == Data("load \(index)".utf8) { delivered.add(1, ordering: .relaxed) }
        })
    }
    // The pool's handlers are all busy and waiting: the rest wait their turn, not on new threads.
    #expect(await eventually { started.load(ordering: .relaxed) >= ItemProvider.loads.limit })
    let loads = ItemProvider.loads
    // The loads' lane of the blocking executor runs at most its limit at once (the executor's
    // own thread bounds are BlockingExecutorTests').
    #expect(started.load(ordering: .relaxed) == loads.limit, "no more handlers run than the load lane's limit")
    for _ in 0..<200 { release.signal() }
    #expect(await eventually(timeout: .seconds(60)) { delivered.load(ordering: .relaxed) == 200 })
    #expect(progresses.allSatisfy { $0.completedUnitCount == $0.totalUnitCount })
  }
}
