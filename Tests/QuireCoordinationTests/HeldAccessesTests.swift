import Foundation
import QuireSystem
import QuireTestSupport
import Synchronization
import SystemPackage
import Testing

@testable import QuireCoordination

/// The connections of accesses other processes hold are watched by one thread, however many
/// there are, and each one's end (a line, or the peer gone) runs its work once.
@Suite("Presenters: held accesses watched by one thread")
struct HeldAccessesTests {
  @Test func manyHeldAccessesShareOneThreadAndEachEndsOnce() async throws {
    let watcher = HeldAccesses()
    let ended = Atomic<Int>(0)
    var writers: [FileDescriptor] = []
    for _ in 0..<50 {
      let pipe = try SystemCalls.pipe().get()
      writers.append(pipe.write)
      watcher.watch(pipe.read.rawValue) { ended.add(1, ordering: .relaxed) }
    }
    #expect(watcher.count == 50)
    #expect(watcher.threadsStarted == 1)
    // Half end with "finish", half with their coordinator gone (the connection closed).
    for (index, writer) in writers.enumerated() {
      if index.isMultiple(of: 2) { _ = SystemCalls.writeAll(writer, Array("finish\n".utf8)) }
      SystemCalls.release(writer)
    }
    #expect(await eventually { ended.load(ordering: .relaxed) == 50 })
    #expect(watcher.count == 0)
    // One more after all ended: the same thread takes it.
    let late = try SystemCalls.pipe().get()
    watcher.watch(late.read.rawValue) { ended.add(1, ordering: .relaxed) }
    SystemCalls.release(late.write)
    #expect(await eventually { ended.load(ordering: .relaxed) == 51 })
    #expect(watcher.threadsStarted == 1)
  }
}
