// Written from Apple's documentation of NSFileCoordinator and NSFilePresenter, not from
// Quire's own API.
import Foundation
import QuireCoordination
import QuireTestSupport
import QuireTypes
import Synchronization
import Testing

/// A presenter as Apple's "File System Programming Guide" shows one: an NSObject subclass
/// with a URL, an operation queue, and the optional methods it cares about.
final class NotesPresenter: NSObject, NSFilePresenter, @unchecked Sendable {
  // @unchecked: `presentedItemURL` is set before registration; counts are behind a Mutex.
  var presentedItemURL: URL?
  var presentedItemOperationQueue: OperationQueue? = OperationQueue()
  let changes = Mutex(0)

  init(url: URL) {
    presentedItemURL = url
    super.init()
    presentedItemOperationQueue?.maxConcurrentOperationCount = 1
  }

  func presentedItemDidChange() { changes.withLock { $0 += 1 } }
}

@Suite("Apple's documentation: NSFileCoordinator and NSFilePresenter")
final class AppleCoordinationTests: FolderSuite {
  init() throws { try super.init(prefix: "quire-apple-coordination") }

  @Test func coordinatedWriteAndReadWithAnErrorPointer() async throws {
    let url = try folder.write("old\n", to: "notes.txt")
    let presenter = NotesPresenter(url: url)
    NSFileCoordinator.addFilePresenter(presenter)
    defer { NSFileCoordinator.removeFilePresenter(presenter) }

    let coordinator = NSFileCoordinator(filePresenter: nil)
    var error: NSError?
    coordinator.coordinate(writingItemAt: url, options: .forReplacing, error: &error) { newURL in
      try? Data("new\n".utf8).write(to: newURL, options: .atomic)
    }
    #expect(error == nil)
    var text: String?
    coordinator.coordinate(readingItemAt: url, options: [], error: &error) { newURL in
      text = try? String(contentsOf: newURL, encoding: .utf8)
    }
    #expect(error == nil)
    #expect(text == "new\n")
    // The presenter heard of the write.
    #expect(await eventually { presenter.changes.withLock { $0 } > 0 })

    // A missing item: the accessor is not called and the error says why.
    var called = false
    coordinator.coordinate(readingItemAt: folder.file("missing.txt"), options: .withoutChanges, error: &error) { _ in called = true }
    #expect(!called)
    #expect(error?.localizedDescription.contains("missing.txt") == true)
  }

  @Test func intentsRunTheAccessorOnTheQueue() async throws {
    let source = try folder.write("source\n", to: "source.txt")
    let target = folder.file("target.txt")
    let coordinator = NSFileCoordinator()
    let queue = OperationQueue()
    let copied: Bool = await withCheckedContinuation { continuation in
      let read = NSFileAccessIntent.readingIntent(with: source, options: [])
      let write = NSFileAccessIntent.writingIntent(with: target, options: .forReplacing)
      coordinator.coordinate(with: [read, write], queue: queue) { error in
        guard error == nil else { return continuation.resume(returning: false) }
        let ok = (try? FileManager.default.copyItem(at: read.url, to: write.url)) != nil
        continuation.resume(returning: ok)
      }
    }
    #expect(copied)
    #expect(try String(contentsOf: target, encoding: .utf8) == "source\n")
  }
}
