// Written from UIKit's documentation of UIPasteboard's value(forPasteboardType:) and
// setValue(_:forPasteboardType:), and MobileCoreServices' kUTType constants as older code
// passes them; the pasteboard is a private one in a temporary folder.
import Foundation
import QuireTestSupport
import QuireTypes
import Testing

@testable import QuireTransfer

@Suite("Apple's documentation: UIPasteboard values and kUTType constants")
final class UIPasteboardValueTests: FolderSuite {
  let board: UIPasteboard
  init() throws {
    let folder = try TemporaryFolder(prefix: "quire-uipasteboard-value")
    board = UIPasteboard(try Pasteboard(name: "values", rootFolder: folder.url))
    super.init(folder: folder)
  }

  /// Runs UIKit's synchronous calls on a thread of their own: they wait for the item to load,
  /// which must not hold one of the few threads Swift's concurrency runs tests on.
  private func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in Thread { continuation.resume(returning: body()) }.start() }
  }

  @Test func aValueComesBackAsItsKind() async throws {
    let board = self.board
    let text = await onOwnThread { () -> String? in
      board.setValue("hello", forPasteboardType: kUTTypeUTF8PlainText as String)
      return board.value(forPasteboardType: kUTTypeUTF8PlainText as String) as? String
    }
    #expect(text == "hello")
    #expect(await onOwnThread { board.string } == "hello")

    let address = try #require(URL(string: "https://example.org/page"))
    let url = await onOwnThread { () -> URL? in
      board.setValue(address, forPasteboardType: String(kUTTypeURL))
      return board.value(forPasteboardType: String(kUTTypeURL)) as? URL
    }
    #expect(url == address)

    let bytes = Data([0x89, 0x50, 0x4E, 0x47])
    let (png, jpeg) = await onOwnThread { () -> (Data?, Bool) in
      board.setData(bytes, forPasteboardType: kUTTypePNG as String)
      // A type the item does not have gives nil.
      return (board.value(forPasteboardType: kUTTypePNG as String) as? Data, board.value(forPasteboardType: kUTTypeJPEG as String) == nil)
    }
    #expect(png == bytes)
    #expect(jpeg)
  }

  @Test func theConstantsAreTheTypesIdentifiers() {
    #expect(UTType(kUTTypeJPEG as String) == .jpeg)
    #expect(UTType(kUTTypePlainText) == .plainText)
    #expect(UTType(kUTTypePDF) == .pdf)
    #expect(UTType(kUTTypeFolder) == .folder)
    #expect(UTType(kUTTypeURL)?.conforms(to: .data) == true)
    #expect(String(kUTTypeText) == UTType.text.identifier)
  }
}
