import Dispatch
import Foundation
import QuireTestSupport
import QuireTransfer
import QuireTypes
import Synchronization
import Testing

/// Many loads at once: all of them deliver, and the process's thread count stays bounded (a
/// queue or a thread per load made one thread each).
@Suite("Item provider: many loads, bounded threads")
struct BoundedLoadTests {
  /// The number of threads of this process (`/proc/self/task`).
  static func threads() -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
  }

  @Test func twoHundredBlockedLoadsDeliverWithoutAThreadEach() async throws {
    let release = DispatchSemaphore(value: 0)
    let started = Atomic<Int>(0)
    let delivered = Atomic<Int>(0)
    let before = Self.threads()
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
    #expect(await eventually { started.load(ordering: .relaxed) >= 32 })
    let during = Self.threads()
    // The pools use at most 40 (32 handlers, 8 deliveries); the rest of the margin is for the
    // threads other suites of this process start meanwhile. A thread per load made 199.
    #expect(during - before <= 100, "\(during - before) threads for 200 blocked loads")
    for _ in 0..<200 { release.signal() }
    #expect(await eventually(timeout: .seconds(60)) { delivered.load(ordering: .relaxed) == 200 })
    #expect(progresses.allSatisfy { $0.completedUnitCount == $0.totalUnitCount })
  }
}
