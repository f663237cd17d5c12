import Foundation
import QuireCoordination
import QuireTestSupport
import QuireTypes
import Synchronization
import Testing

/// Reader/writer exclusion, hierarchy, fairness, ordering, deadlines and cancellation. Each
/// access is its own open file description, so threads of one process contend as processes do.
@Suite("FileCoordinator locking")
final class LockingTests: CoordinationSuite {
  /// Runs `body` on a new thread, returning at once.
  func onThread(_ body: @escaping @Sendable () -> Void) { Thread.detachNewThread(body) }

  enum Access {
    case reading, writing

    /// Takes this access to `url` with `coordinator` (waiting at most `timeout`) and runs
    /// `body` inside it.
    func coordinate<T>(_ url: URL, with coordinator: FileCoordinator, timeout: Duration? = nil, _ body: (URL) throws -> T) throws -> T {
      switch self {
      case .reading: try coordinator.coordinate(readingItemAt: url, timeout: timeout, byAccessor: body)
      case .writing: try coordinator.coordinate(writingItemAt: url, timeout: timeout, byAccessor: body)
      }
    }
  }

  /// Holds a coordinated access to `url` on a thread of its own and returns, once it is held,
  /// the semaphore that ends it.
  func holding(_ access: Access, _ url: URL) -> DispatchSemaphore {
    let (inside, release) = startHolding(access, url)
    inside.wait()
    return release
  }

  /// ``holding(_:_:)`` from async code: waits for the access off the cooperative pool.
  func holding(_ access: Access, _ url: URL) async -> DispatchSemaphore {
    let (inside, release) = startHolding(access, url)
    await waitOffPool(inside)
    return release
  }

  private func startHolding(_ access: Access, _ url: URL) -> (inside: DispatchSemaphore, release: DispatchSemaphore) {
    let inside = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    let coordinator = FileCoordinator(location: location)
    onThread {
      try? access.coordinate(url, with: coordinator) { _ in
        inside.signal()
        release.wait()
      }
    }
    return (inside, release)
  }

  /// Waits (up to 30 s) until some access holds the turnstile of a lock file (byte 0 of a
  /// file in `<runtime>/quire/locks`, see ItemLocks): an acquirer met a conflict and now
  /// waits, keeping later arrivals behind it. A fixed 50 ms pause stood in for this, and a
  /// loaded machine could start the waiting thread after the pause.
  func waitForAQueuedAcquirer() async -> Bool {
    let locks = location.runtimeFolder.appendingPathComponent("quire/locks")
    let offsetGetLock: Int32 = 36  // F_OFD_GETLK, which Swift's Glibc module does not declare
    return await eventually(every: .milliseconds(2)) {
      for name in (try? FileManager.default.contentsOfDirectory(atPath: locks.path)) ?? [] where name.hasSuffix(".lock") {
        let fd = open(locks.appendingPathComponent(name).path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { continue }
        defer { close(fd) }
        var region = flock()
        region.l_type = Int16(F_WRLCK)
        region.l_whence = Int16(SEEK_SET)
        region.l_start = 0
        region.l_len = 1
        if fcntl(fd, offsetGetLock, &region) == 0, region.l_type != Int16(F_UNLCK) { return true }
      }
      return false
    }
  }

  @Test func readersShareAnItem() throws {
    let file = try folder.write("x\n", to: "shared.txt")
    let release = holding(.reading, file)
    defer { release.signal() }
    let read = try FileCoordinator(location: location).coordinate(readingItemAt: file, timeout: .milliseconds(500)) { _ in true }
    #expect(read)
  }

  @Test(arguments: [(Access.writing, Access.reading), (.reading, .writing), (.writing, .writing)])
  func aWriterExcludesReadersAndWriters(holder: Access, waiter: Access) throws {
    let file = try folder.write("x\n", to: "item.txt")
    let release = holding(holder, file)
    let coordinator = FileCoordinator(location: location)
    expectQuireError(.timedOut, reasonContains: "process \(getpid())") {
      try waiter.coordinate(file, with: coordinator, timeout: .milliseconds(100)) { _ in }
    }
    release.signal()
    let done = try coordinator.coordinate(writingItemAt: file, timeout: .seconds(5)) { _ in true }
    #expect(done)
  }

  @Test func writingAFolderExcludesReadingAFileInsideIt() throws {
    let inner = folder.file("project")
    try FileManager.default.createDirectory(at: inner, withIntermediateDirectories: false)
    let file = try folder.write("x\n", to: "project/notes.md")
    let release = holding(.writing, inner)
    expectQuireError(.timedOut) {
      try FileCoordinator(location: location).coordinate(readingItemAt: file, timeout: .milliseconds(100)) { _ in }
    }
    // A file beside the folder is not affected.
    let beside = try folder.write("y\n", to: "beside.md")
    #expect(try FileCoordinator(location: location).coordinate(writingItemAt: beside, timeout: .milliseconds(500)) { _ in true })
    release.signal()
  }

  @Test func readingAFileExcludesWritingItsFolder() throws {
    let inner = folder.file("project")
    try FileManager.default.createDirectory(at: inner, withIntermediateDirectories: false)
    let file = try folder.write("x\n", to: "project/notes.md")
    let release = holding(.reading, file)
    expectQuireError(.timedOut, reasonContains: "notes.md") {
      try FileCoordinator(location: location).coordinate(writingItemAt: inner, timeout: .milliseconds(100)) { _ in }
    }
    // Reading the folder is fine alongside.
    #expect(try FileCoordinator(location: location).coordinate(readingItemAt: inner, timeout: .milliseconds(500)) { _ in true })
    release.signal()
  }

  @Test func aWaitingWriterIsNotOvertakenByLaterReaders() async throws {
    let file = try folder.write("x\n", to: "busy.txt")
    let location = self.location
    let stop = Atomic<Bool>(false)
    let reads = Atomic<Int>(0)
    // Readers that overlap one another keep the file read-locked at every instant.
    for _ in 0..<4 {
      onThread {
        let coordinator = FileCoordinator(location: location)
        while !stop.load(ordering: .relaxed) {
          _ = try? coordinator.coordinate(readingItemAt: file) { _ in
            reads.add(1, ordering: .relaxed)
            usleep(3000)
          }
        }
      }
    }
    // The writer comes once every reader is reading.
    #expect(await eventually { reads.load(ordering: .relaxed) >= 4 })
    let wrote = try await FileCoordinator(location: location).coordinate(writingItemAt: file, timeout: .seconds(5)) { url in
      try Data("written\n".utf8).write(to: url)
      return true
    }
    stop.store(true, ordering: .relaxed)
    #expect(wrote)
  }

  @Test func aReaderArrivingAfterAWaitingWriterQueuesBehindIt() async throws {
    let file = try folder.write("x\n", to: "queue.txt")
    let location = self.location
    let releaseFirst = await holding(.reading, file)
    let writerDone = DispatchSemaphore(value: 0)
    onThread {
      _ = try? FileCoordinator(location: location).coordinate(writingItemAt: file, timeout: .seconds(10)) { url in
        try Data("w\n".utf8).write(to: url)
      }
      writerDone.signal()
    }
    #expect(await waitForAQueuedAcquirer(), "the writer never queued for the file")  // it waits, holding the turnstile
    // A second reader is compatible with the first, but must not overtake the waiting writer.
    expectQuireError(.timedOut) {
      try FileCoordinator(location: location).coordinate(readingItemAt: file, timeout: .milliseconds(100)) { _ in }
    }
    releaseFirst.signal()
    await waitOffPool(writerDone)
    let text = try await FileCoordinator(location: location).coordinate(readingItemAt: file, timeout: .seconds(5)) { url in
      try String(contentsOf: url, encoding: .utf8)
    }
    #expect(text == "w\n")
  }

  @Test func aNestedReadDoesNotQueueBehindAWriterWaitingForTheOuterRead() async throws {
    let box = folder.file("box")
    try FileManager.default.createDirectory(at: box, withIntermediateDirectories: false)
    let first = try folder.write("1\n", to: "box/first.txt")
    let second = try folder.write("2\n", to: "box/second.txt")
    let location = self.location
    let reading = DispatchSemaphore(value: 0)
    let writerWaits = DispatchSemaphore(value: 0)
    let done = DispatchSemaphore(value: 0)
    let outcome = Mutex<String?>(nil)
    onThread {
      let result = Result {
        try FileCoordinator(location: location).coordinate(readingItemAt: first) { _ in
          reading.signal()
          writerWaits.wait()
          // The writer of `box` now waits for this read, holding box's turnstile. Reading
          // another file in `box` needs box's intention lock again: it must not queue.
          return try FileCoordinator(location: location).coordinate(readingItemAt: second, timeout: .seconds(2)) { url in
            try String(contentsOf: url, encoding: .utf8)
          }
        }
      }
      outcome.withLock { $0 = (try? result.get()) ?? "failed: \(result)" }
      done.signal()
    }
    await waitOffPool(reading)
    onThread {
      _ = try? FileCoordinator(location: location).coordinate(writingItemAt: box, timeout: .seconds(10)) { _ in }
    }
    #expect(await waitForAQueuedAcquirer(), "the writer of the folder never queued")
    writerWaits.signal()
    await waitOffPool(done)
    #expect(outcome.withLock { $0 } == "2\n")
  }

  @Test func nestedAccessesCoveredByTheOuterOneRunAtOnce() async throws {
    let inner = folder.file("project")
    try FileManager.default.createDirectory(at: inner, withIntermediateDirectories: false)
    let file = try folder.write("x\n", to: "project/a.md")
    let coordinator = FileCoordinator(location: location)
    #expect(try nestedBlocking(coordinator, folder: inner, file: file) == "nested\n")
    let asyncText = try await coordinator.coordinate(readingItemAt: file, timeout: .seconds(1)) { url in
      try await coordinator.coordinate(readingItemAt: url, timeout: .milliseconds(200)) { url in
        try String(contentsOf: url, encoding: .utf8)
      }
    }
    #expect(asyncText == "nested\n")
    // A write inside a read is not covered: it waits for the outer read until its timeout.
    await expectQuireError(.timedOut) {
      try await coordinator.coordinate(readingItemAt: file) { url in
        try await coordinator.coordinate(writingItemAt: url, timeout: .milliseconds(100)) { _ in }
      }
    }
  }

  /// Blocking nested accesses: a write and a read of a file inside a folder being written.
  func nestedBlocking(_ coordinator: FileCoordinator, folder: URL, file: URL) throws -> String {
    try coordinator.coordinate(writingItemAt: folder, timeout: .seconds(1)) { _ in
      try coordinator.coordinate(writingItemAt: file, timeout: .milliseconds(200)) { url in
        try Data("nested\n".utf8).write(to: url)
      }
      return try coordinator.coordinate(readingItemAt: file, timeout: .milliseconds(200)) { url in
        try String(contentsOf: url, encoding: .utf8)
      }
    }
  }

  @Test func multiItemRequestsInOppositeOrdersDoNotDeadlock() async throws {
    let finished = DispatchSemaphore(value: 0)
    let a = try folder.write("a\n", to: "a.txt")
    let b = try folder.write("b\n", to: "b.txt")
    let location = self.location
    let failures = Atomic<Int>(0)
    for index in 0..<4 {
      onThread {
        defer { finished.signal() }
        let coordinator = FileCoordinator(location: location)
        for _ in 0..<100 {
          do {
            if index % 2 == 0 {
              try coordinator.coordinate(writingItemAt: a, writingItemAt: b, timeout: .seconds(10)) { _, _ in }
            } else {
              try coordinator.coordinate(readingItemAt: b, writingItemAt: a, timeout: .seconds(10)) { _, _ in }
            }
          } catch {
            failures.add(1, ordering: .relaxed)
          }
        }
      }
    }
    for _ in 0..<4 { await waitOffPool(finished) }
    #expect(failures.load(ordering: .relaxed) == 0)
  }

  @Test func cancelStopsAWaitingAccess() throws {
    let file = try folder.write("x\n", to: "held.txt")
    let release = holding(.writing, file)
    defer { release.signal() }
    let coordinator = FileCoordinator(location: location)
    DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) { coordinator.cancel() }
    expectQuireError(.cancelled) {
      try coordinator.coordinate(readingItemAt: file, timeout: .seconds(10)) { _ in }
    }
  }

  @Test func cancellingTheTaskStopsAnAsyncWait() async throws {
    let file = try folder.write("x\n", to: "held.txt")
    let release = await holding(.writing, file)
    let location = self.location
    defer { release.signal() }
    let task = Task {
      try await FileCoordinator(location: location).coordinate(readingItemAt: file) { _ in "read" }
    }
    try await Task.sleep(for: .milliseconds(50))
    task.cancel()
    let result = await task.result
    expectQuireError(.cancelled) { try result.get() }
  }

  @Test func asyncAccessesReadAndWrite() async throws {
    let file = try folder.write("1\n", to: "async.txt")
    let coordinator = FileCoordinator(location: location)
    try await coordinator.coordinate(writingItemAt: file) { url in
      try await Task.sleep(for: .milliseconds(1))
      try Data("2\n".utf8).write(to: url)
    }
    let text = try await coordinator.coordinate(readingItemAt: file) { url in try String(contentsOf: url, encoding: .utf8) }
    #expect(text == "2\n")
  }

  @Test func resolvingSymbolicLinksCoordinatesTheTarget() throws {
    let target = try folder.write("t\n", to: "target.txt")
    let link = folder.file("link.txt")
    try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
    let seen = try FileCoordinator(location: location).coordinate(readingItemAt: link, options: .resolvesSymbolicLink) { $0 }
    #expect(seen.path == target.path)
    let unresolved = try FileCoordinator(location: location).coordinate(readingItemAt: link) { $0 }
    #expect(unresolved.path == link.path)
  }

  @Test func anErrorInTheAccessorReleasesTheLock() throws {
    let file = try folder.write("x\n", to: "err.txt")
    let coordinator = FileCoordinator(location: location)
    #expect(throws: CocoaError.self) {
      try coordinator.coordinate(writingItemAt: file) { _ in throw CocoaError(.fileWriteUnknown) }
    }
    #expect(try coordinator.coordinate(writingItemAt: file, timeout: .milliseconds(500)) { _ in true })
  }

  @Test func theDefaultLocationIsTheRuntimeFolderOrASaidFallback() {
    let location = CoordinationLocation.default
    if let runtime = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") {
      #expect(location.runtimeFolder.path == URL(fileURLWithPath: runtime).standardizedFileURL.path)
      #expect(location.fallbackNote == nil)
    } else {
      #expect(location.runtimeFolder.path == "/tmp/quire-runtime-\(getuid())")
      #expect(location.fallbackNote?.contains("XDG_RUNTIME_DIR") == true)
    }
  }
}
