import Foundation
import QuireCoordination
import QuireTestSupport
import QuireTransfer
import QuireTypes
import Testing

@Suite("Item provider: loading, coercion, cancellation, timeouts")
final class LoadingTests: FolderSuite {

  // MARK: Data ↔ file

  @Test func dataAskedForAsAFileIsWrittenToATemporaryFileRemovedAfterTheHandler() async throws {
    let provider = ItemProvider(suggestedName: "greeting")
    provider.registerDataRepresentation(for: .plainText) { Data("hello".utf8) }
    let seen = try await provider.loadFileRepresentation(for: .plainText) { url in
      (url, try String(contentsOf: url, encoding: .utf8), FileManager.default.fileExists(atPath: url.path))
    }
    #expect(seen.1 == "hello")
    #expect(seen.2)
    #expect(!FileManager.default.fileExists(atPath: seen.0.path), "the temporary copy outlived the handler")
    #expect(!FileManager.default.fileExists(atPath: seen.0.deletingLastPathComponent().path))
  }

  @Test func aFileAskedForAsDataIsRead() async throws {
    let file = try folder.write("# from a file", to: "notes.md")
    let provider = ItemProvider(contentsOf: file)
    #expect(try await provider.loadDataRepresentation(for: .markdown) == Data("# from a file".utf8))
  }

  @Test func aFileAskedForAsAFileIsACopyNotTheOriginal() async throws {
    let file = try folder.write("original", to: "notes.txt")
    let provider = ItemProvider(contentsOf: file)
    let copy = try await provider.loadFileRepresentation(for: .plainText) { url in
      try Data("scribbled".utf8).write(to: url)  // the receiver may change its copy
      return url
    }
    #expect(copy != file)
    #expect(try String(contentsOf: file, encoding: .utf8) == "original")
  }

  @Test func inPlaceLoadingHandsTheOriginalOnlyWhenRegisteredOpenInPlace() async throws {
    let file = try folder.write("in place", to: "doc.md")
    let inPlace = ItemProvider(contentsOf: file, openInPlace: true)
    let (url, isInPlace) = try await inPlace.loadInPlaceFileRepresentation(for: .markdown) { ($0, $1) }
    #expect(isInPlace)
    #expect(url == file)

    let copied = ItemProvider(contentsOf: file, openInPlace: false)
    let (copy, copyIsInPlace) = try await copied.loadInPlaceFileRepresentation(for: .markdown) { ($0, $1) }
    #expect(!copyIsInPlace)
    #expect(copy != file)
    #expect(!FileManager.default.fileExists(atPath: copy.path))

    let data = ItemProvider()
    data.registerDataRepresentation(for: .markdown) { Data("x".utf8) }
    let (_, dataIsInPlace) = try await data.loadInPlaceFileRepresentation(for: .markdown) { ($0, $1) }
    #expect(!dataIsInPlace)
    #expect(FileManager.default.fileExists(atPath: file.path), "in-place loading must not remove the original")
  }

  @Test func aMissingFileRepresentationIsAClearError() async {
    let provider = ItemProvider(contentsOf: folder.file("gone.txt"))
    await expectQuireError(.fileMissing, reasonContains: "gone.txt") {
      try await provider.loadDataRepresentation(for: .plainText)
    }
  }

  @Test func fileReadsWaitForAnotherProcesssCoordinatedWrite() async throws {
    let file = try folder.write("before\n", to: "busy.txt")
    // Another process holds a coordinated write of the file (at the default location, which
    // the provider's default coordinator uses too), with half its new contents written.
    let holder = try startCoordinationHelper(["hold-write-until-input", file.path])
    defer {
      holder.closeInput()
      holder.kill(SIGTERM)
    }
    #expect(await holder.waitForLine(startingWith: "holding") == "holding")
    let provider = ItemProvider(contentsOf: file)
    let result = Box<Data?>(nil)
    provider.loadDataRepresentation(for: .plainText) { data, _ in result.set(data) }
    // The load waits in the lock's queue: a probe reader finds an access queued ahead of it.
    let queued = await eventually { await FileCoordinator().findsAccessQueuedAhead(ofReading: file) }
    #expect(queued, "the load did not wait for the writer")
    #expect(result.current == nil, "the load read while another process was writing")
    holder.send("finish")
    #expect(await eventually { result.current != nil })
    #expect(result.current == Data("complete\n".utf8))
  }

  @Test func aPluggedInCoordinatorIsUsedForFileReads() async throws {
    struct CountingCoordinator: FileReadCoordinating {
      let count = Box(0)
      func coordinateReading<Result>(itemAt url: URL, timeout: Duration, _ body: (URL) throws -> Result) throws -> Result {
        count.update { $0 += 1 }
        return try body(url)
      }
    }
    let coordinator = CountingCoordinator()
    let file = try folder.write("x", to: "a.txt")
    let provider = ItemProvider(fileReadCoordinator: coordinator)
    provider.registerFileRepresentation(for: .plainText, fileURL: file)
    _ = try await provider.loadDataRepresentation(for: .plainText)
    _ = try await provider.loadFileRepresentation(for: .plainText) { _ in true }
    #expect(coordinator.count.current == 2)
  }

  // MARK: Progress, cancellation, failures, timeouts

  @Test func progressCompletesWithTheLoad() async throws {
    let provider = ItemProvider()
    provider.registerDataRepresentation(for: .plainText) { Data("x".utf8) }
    let progress = Box<Progress?>(nil)
    let data = await awaitCompletion { (done: @escaping @Sendable (Data?) -> Void) in
      progress.set(provider.loadDataRepresentation(for: .plainText) { data, _ in done(data) })
    }
    #expect(data == Data("x".utf8))
    #expect(await eventually { progress.current?.fractionCompleted == 1 })
  }

  @Test func cancellingStopsAnAsyncHandlerAndCompletesWithCancelled() async throws {
    let started = Box(false)
    let stopped = Box(false)
    let provider = ItemProvider(suggestedName: "slow")
    provider.registerDataRepresentation(for: .plainText) {
      started.set(true)
      do {
        for _ in 0..<1_000 { try await Task.sleep(for: .milliseconds(10)) }
      } catch {
        stopped.set(true)  // the handler saw the cancellation and stopped its work
        throw error
      }
      return Data("too late".utf8)
    }
    let outcome = Box<(any Error)?>(nil)
    let progress = provider.loadDataRepresentation(for: .plainText) { _, error in outcome.set(error) }
    #expect(await eventually { started.current })
    progress.cancel()
    #expect(await eventually { outcome.current != nil })
    expectQuireError(.cancelled, in: outcome.current)
    #expect(await eventually { stopped.current }, "the handler kept working after cancellation")
  }

  @Test func cancellingStopsACompletionHandlerThroughItsProgress() async throws {
    let iterations = Box(0)
    let stopped = Box(false)
    let provider = ItemProvider()
    provider.registerDataRepresentation(for: .plainText) { completion in
      let progress = Progress(totalUnitCount: 100)
      Thread {
        for _ in 0..<1_000 {
          if progress.isCancelled {
            stopped.set(true)
            return completion(nil, CocoaError(.userCancelled))
          }
          iterations.update { $0 += 1 }
          usleep(5_000)
        }
        completion(Data("done".utf8), nil)
      }.start()
      return progress
    }
    let outcome = Box<(any Error)?>(nil)
    let progress = provider.loadDataRepresentation(for: .plainText) { _, error in outcome.set(error) }
    #expect(await eventually { iterations.current > 2 })
    progress.cancel()
    // The handler saw the cancellation and returned (its loop ends there: nothing to wait for).
    #expect(await eventually { stopped.current }, "the handler's progress was not cancelled")
    expectQuireError(.cancelled, in: outcome.current)
  }

  @Test func cancellingTheTaskCancelsAnAsyncLoad() async throws {
    let started = Box(false)
    let stopped = Box(false)
    let provider = ItemProvider()
    provider.registerDataRepresentation(for: .plainText) {
      started.set(true)
      do { try await Task.sleep(for: .seconds(20)) } catch {
        stopped.set(true)
        throw error
      }
      return Data()
    }
    let task = Task { try await provider.loadDataRepresentation(for: .plainText) }
    #expect(await eventually { started.current })
    task.cancel()
    await expectQuireError(.cancelled) { try await task.value }
    #expect(await eventually { stopped.current })
  }

  @Test func aHandlerThatNeverCallsBackTimesOut() async throws {
    let provider = ItemProvider(suggestedName: "stuck")
    provider.loadTimeout = .milliseconds(150)
    provider.registerDataRepresentation(for: .plainText) { _ in nil }  // never completes
    await expectQuireError(.timedOut, reasonContains: "'stuck'") {
      try await provider.loadDataRepresentation(for: .plainText)
    }
  }

  @Test func handlersThatBlockTheirThreadsDoNotDelayTimeouts() async throws {
    // More blocked handlers than Dispatch has global threads on this machine. They stay
    // blocked until every timeout has been reported: had a timeout waited for its handler's
    // thread, it could never come, so the order alone shows it (no clock involved).
    let release = DispatchSemaphore(value: 0)
    let providers = (0..<max(8, ProcessInfo.processInfo.activeProcessorCount * 3)).map { _ in
      let provider = ItemProvider()
      provider.loadTimeout = .milliseconds(200)
      provider.registerDataRepresentation(for: .plainText) { _ in
        release.wait()  // blocks its thread and never calls back
        return nil
      }
      return provider
    }
    let failures = Box(0)
    for provider in providers {
      provider.loadDataRepresentation(for: .plainText) { _, error in
        if isQuireError(error, .timedOut) { failures.update { $0 += 1 } }
      }
    }
    let allTimedOut = await eventually { failures.current == providers.count }
    for _ in providers { release.signal() }
    #expect(allTimedOut, "\(failures.current) of \(providers.count) timeouts came while the handlers blocked")
  }

  @Test func aFileHandlerThatNeverCallsBackTimesOutToo() async throws {
    let provider = ItemProvider()
    provider.loadTimeout = .milliseconds(100)
    provider.registerFileRepresentation(for: .png) { _ in nil }
    await expectQuireError(.timedOut) { try await provider.loadFileRepresentation(for: .png) { _ in 1 } }
  }

  @Test func aThrowingHandlerFailsTheLoadWithItsError() async throws {
    struct Broken: Error {}
    let provider = ItemProvider()
    provider.registerDataRepresentation(for: .plainText) { throw Broken() }
    await #expect(throws: Broken.self) { try await provider.loadDataRepresentation(for: .plainText) }
    await #expect(throws: Broken.self) { try await provider.loadFileRepresentation(for: .plainText) { _ in 1 } }
  }

  @Test func aLateCompletionAfterATimeoutIsIgnored() async throws {
    // The handler must have started before the timeout fires (a load whose timeout comes first
    // never starts its handler, rightly); on a loaded machine that can take a few tries.
    var checked = false
    for _ in 0..<10 where !checked {
      let calls = Box(0)
      let provider = ItemProvider()
      provider.loadTimeout = .milliseconds(200)
      // The handler keeps its completion; the test calls it once the timeout was delivered.
      let pending = Box<(@Sendable (Data?, (any Error)?) -> Void)?>(nil)
      provider.registerDataRepresentation(for: .plainText) { completion in
        pending.set(completion)
        return nil
      }
      let outcome = Box<(any Error)?>(nil)
      provider.loadDataRepresentation(for: .plainText) { _, error in
        calls.update { $0 += 1 }
        outcome.set(error)
      }
      #expect(await eventually { calls.current > 0 })
      expectQuireError(.timedOut, in: outcome.current)
      // A handler that started before the timeout has set `pending` by now or very soon.
      guard await eventually(timeout: .seconds(2), { pending.current != nil }), let lateCompletion = pending.current else { continue }
      // A failure is delivered within the completion call: had the gate let it through, the
      // completion would have run again before the call returns.
      struct Late: Error {}
      lateCompletion(nil, Late())
      #expect(calls.current == 1)
      checked = true
    }
    #expect(checked, "in 10 tries the handler never started before its 200 ms timeout")
  }

  @Test func dataLoadsRefuseFilesLargerThanTheLimit() async throws {
    let file = folder.file("big.bin")
    try makeSparseFile(file, size: 4 << 20)
    let provider = ItemProvider()
    provider.maximumDataSize = 1 << 20
    provider.registerFileRepresentation(for: .data, fileURL: file)
    await expectQuireError(.limitExceeded) { try await provider.loadDataRepresentation(for: .data) }
    // As a file it still works.
    let size = try await provider.loadFileRepresentation(for: .data) { url in
      try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int
    }
    #expect(size == 4 << 20)
  }
}

/// A representation written over a file replaces it atomically and keeps its permissions, as
/// a save does: a pasted script stays executable, a private file stays private.
@Suite("Item provider: writing a representation over a file")
final class WritingOverAFileTests: FolderSuite {
  func permissions(_ url: URL) throws -> Int {
    try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int)
  }

  @Test(arguments: [0o755, 0o600, 0o640])
  func theReplacedFileKeepsItsPermissions(_ mode: Int) async throws {
    let target = try folder.write("#!/bin/sh\necho old\n", to: "run.sh")
    try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: target.path)
    let provider = ItemProvider(suggestedName: "run")
    provider.registerDataRepresentation(for: .plainText) { Data("#!/bin/sh\necho new\n".utf8) }
    try await provider.writeRepresentation(for: .plainText, to: target)
    #expect(try String(contentsOf: target, encoding: .utf8) == "#!/bin/sh\necho new\n")
    #expect(try permissions(target) == mode)
  }

  @Test func aNewFileGetsTheUmasksMode() async throws {
    let target = folder.file("new.txt")
    let provider = ItemProvider(suggestedName: "new")
    provider.registerDataRepresentation(for: .plainText) { Data("text\n".utf8) }
    try await provider.writeRepresentation(for: .plainText, to: target)
    // The umask as the kernel reports it (setting it to read it would race other tests).
    let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
    let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("Umask:") })
    let mask = try #require(Int(line.dropFirst("Umask:".count).trimmingCharacters(in: .whitespaces), radix: 8))
    #expect(try permissions(target) == 0o666 & ~mask)
  }
}
