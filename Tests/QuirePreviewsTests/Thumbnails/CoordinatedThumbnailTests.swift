import Foundation
import QuireCoordination
import QuireFormats
import QuirePreviews
import QuireTestSupport
import QuireTypes
import Synchronization
import Testing

/// A provider that records what the file held when it drew.
private final class RecordingProvider: ThumbnailProvider {
  let seen = Mutex<[String]>([])
  func makeThumbnail(for request: ThumbnailRequest) throws -> Bitmap {
    let text = (try? String(contentsOf: request.fileURL, encoding: .utf8)) ?? ""
    seen.withLock { $0.append(text) }
    return try Bitmap(width: request.pixelSize, height: request.pixelSize, background: Color(red: 1, green: 1, blue: 1))
  }
}

/// Stands for a document that has the file open.
private final class OpenDocumentPresenter: FilePresenter {
  let presentedItemURL: URL?
  init(_ url: URL) { presentedItemURL = url }
}

@Suite("Thumbnails of open documents coordinate")
final class CoordinatedThumbnailTests: CoordinationSuite {
  @Test func aThumbnailOfAnOpenDocumentWaitsForItsSave() async throws {
    let url = try folder.write("before\n", to: "open.txt")
    let presenter = OpenDocumentPresenter(url)
    try FileCoordinator.addFilePresenter(presenter, location: location)
    defer { FileCoordinator.removeFilePresenter(presenter) }
    #expect(FileCoordinator.isItemPresented(at: url, location: location))

    // A save holds the file, half written, until told to finish.
    let finish = DispatchSemaphore(value: 0)
    let holding = DispatchSemaphore(value: 0)
    let location = location
    Thread.detachNewThread {
      try? FileCoordinator(location: location).coordinate(writingItemAt: url) { url in
        try Data("half".utf8).write(to: url)
        holding.signal()
        finish.wait()
        try Data("complete\n".utf8).write(to: url)
      }
    }
    holding.wait()
    let provider = RecordingProvider()
    let providers = ThumbnailProviderRegistry()
    providers.register(provider, for: [.plainText])
    var generator = ThumbnailGenerator(providers: providers)
    generator.coordinationLocation = location
    // Past its timeout (10 s) a thumbnail is drawn as the file is; on a loaded machine the
    // probing below can take that long, so the wait here is long enough never to end first.
    generator.coordinationTimeout = .seconds(600)
    let done = Mutex(false)
    Thread.detachNewThread { [generator] in
      _ = try? generator.generateBestRepresentation(for: ThumbnailRequest(fileURL: url, contentType: .plainText, maximumSize: 16))
      done.withLock { $0 = true }
    }
    // The thumbnail waits in the lock's queue: a probe reader finds an access queued ahead.
    let queued = await eventually(every: .zero) { await FileCoordinator(location: location).findsAccessQueuedAhead(ofReading: url) }
    #expect(queued, "the thumbnail did not wait for the save")
    #expect(provider.seen.withLock { $0 }.isEmpty, "the thumbnail was drawn during the save")
    finish.signal()
    #expect(await eventually { done.withLock { $0 } })
    #expect(provider.seen.withLock { $0 } == ["complete\n"])
  }

  @Test func aFileNobodyPresentsIsDrawnWithoutCoordination() throws {
    let url = try folder.write("closed\n", to: "closed.txt")
    #expect(!FileCoordinator.isItemPresented(at: url, location: location))
    let provider = RecordingProvider()
    let providers = ThumbnailProviderRegistry()
    providers.register(provider, for: [.plainText])
    var generator = ThumbnailGenerator(providers: providers)
    generator.coordinationLocation = location
    _ = try generator.generateBestRepresentation(for: ThumbnailRequest(fileURL: url, contentType: .plainText, maximumSize: 16))
    #expect(provider.seen.withLock { $0 } == ["closed\n"])
    // No lock file was made for it.
    let locks = (try? FileManager.default.contentsOfDirectory(atPath: location.runtimeFolder.path + "/quire/locks")) ?? []
    #expect(locks.isEmpty)
  }
}
