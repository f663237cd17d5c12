// Written from Apple's documentation of NSItemProvider, not from Quire's own API.
import Foundation
import QuireTestSupport
import QuireTransfer
import QuireTypes
import Testing

@Suite("Apple's documentation: NSItemProvider")
final class AppleItemProviderTests {
  let folder: TemporaryFolder
  init() throws { folder = try TemporaryFolder(prefix: "quire-apple-transfer") }
  deinit { folder.remove() }

  @Test func loadingAnItemAsAppleShows() async throws {
    let provider = NSItemProvider(item: Data("hello".utf8), typeIdentifier: UTType.plainText.identifier)
    #expect(provider.hasItemConformingToTypeIdentifier(UTType.plainText.identifier))
    #expect(provider.registeredTypeIdentifiers == [UTType.plainText.identifier])
    #expect(provider.canLoadObject(ofClass: String.self))
    let item: String? = await withCheckedContinuation { continuation in
      provider.loadItem(forTypeIdentifier: UTType.plainText.identifier, options: nil) { item, error in
        continuation.resume(returning: (item as? NSString).map { String($0) })
      }
    }
    #expect(item == "hello")
    let string: String? = await withCheckedContinuation { continuation in
      _ = provider.loadObject(ofClass: String.self) { string, error in continuation.resume(returning: string) }
    }
    #expect(string == "hello")
  }

  @Test func aFileItemLoadsAsAFileRepresentation() async throws {
    let url = try folder.write("# Notes\n", to: "notes.md")
    let provider = NSItemProvider(item: url, typeIdentifier: UTType.markdown.identifier)
    let text: String? = await withCheckedContinuation { continuation in
      provider.loadFileRepresentation(forTypeIdentifier: UTType.markdown.identifier) { url, error in
        continuation.resume(returning: url.flatMap { try? String(contentsOf: $0, encoding: .utf8) })
      }
    }
    #expect(text == "# Notes\n")
    let address: URL? = await withCheckedContinuation { continuation in
      provider.loadItem(forTypeIdentifier: UTType.fileURL.identifier, options: nil) { item, _ in
        continuation.resume(returning: (item as? NSURL).map { $0 as URL })
      }
    }
    #expect(address?.path == url.path)
  }

  // "In your image handler block, return an NSURL object that specifies a file, or return an
  // NSData object" (previewImageHandler); loadPreviewImage(options:completionHandler:) runs it
  // with the options and the expected class (NSData, NSURL, UIImage or NSImage).
  @Test func aPreviewImageComesFromThePreviewImageHandler() async throws {
    let provider = NSItemProvider(item: Data("hello".utf8), typeIdentifier: UTType.plainText.identifier)
    let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    provider.previewImageHandler = { completionHandler, expectedValueClass, options in
      // Checked here, reported through the result (an expectation on this thread would not
      // belong to the test).
      guard expectedValueClass == NSData.self, options?["size"] as? Int == 64 else {
        return completionHandler?(nil, CocoaError(.coderValueNotFound)) ?? ()
      }
      completionHandler?(NSData(data: png), nil)
    }
    let preview: Data? = await withCheckedContinuation { continuation in
      provider.loadPreviewImage(options: ["size": 64]) { item, error in
        continuation.resume(returning: (item as? NSData).map { Data($0) })
      }
    }
    #expect(preview == png)
  }

  @Test func anItemWithNoPreviewHandlerCompletesWithAnError() async throws {
    let provider = NSItemProvider(item: Data("hello".utf8), typeIdentifier: UTType.plainText.identifier)
    #expect(provider.previewImageHandler == nil)
    let outcome: (Bool, String?) = await withCheckedContinuation { continuation in
      provider.loadPreviewImage(options: nil) { item, error in
        continuation.resume(returning: (item == nil, error.map { "\($0)" }))
      }
    }
    #expect(outcome.0)
    #expect(outcome.1?.contains("has no preview image") == true)
  }
}
