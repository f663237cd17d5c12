// Written from UIKit's documentation of UIPasteboard's setItems(_:options:), addItems(_:),
// image and color, and Foundation's loadObject(ofClass:) with NSString and NSURL; the
// pasteboard is a private one in a temporary folder.
import Foundation
import QuireFormats
import QuireTestSupport
import QuireTypes
import Testing

@testable import QuireTransfer

@Suite("Apple's documentation: UIPasteboard items, images, colours; NSString and NSURL")
final class UIPasteboardItemsTests: FolderSuite {
  let board: UIPasteboard
  init() throws {
    let folder = try TemporaryFolder(prefix: "quire-uipasteboard-items")
    board = UIPasteboard(try Pasteboard(name: "items", rootFolder: folder.url))
    super.init(folder: folder)
  }

  /// UIKit's synchronous calls wait for items to load: they run on a thread of their own.
  private func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in Thread { continuation.resume(returning: body()) }.start() }
  }

  @Test func setItemsWithOptionsThenAddItems() async {
    let board = self.board
    let (count, text, expired) = await onOwnThread { () -> (Int, String?, Bool) in
      board.setItems([[UTType.plainText.identifier: "first"]], options: [.localOnly: true, .expirationDate: Date().addingTimeInterval(3600)])
      board.addItems([[UTType.plainText.identifier: "second"]])
      return (board.numberOfItems, board.strings?.joined(separator: ","), board.numberOfItems == 0)
    }
    #expect(count == 2)
    #expect(text == "first,second")
    #expect(!expired)
  }

  @Test func aColourAndAnImageComeBackAsTheyWent() async throws {
    let board = self.board
    let colour = await onOwnThread { () -> UIColor? in
      board.color = UIColor(red: 0.25, green: 0.5, blue: 0.75, alpha: 1)
      return board.color
    }
    #expect(colour == UIColor(red: 0.25, green: 0.5, blue: 0.75, alpha: 1))
    #expect(await onOwnThread { board.hasColors })
    let bitmap = try Bitmap(width: 3, height: 2)
    let image = UIImage(cgImage: try CGImage(bitmap))
    let back = await onOwnThread { () -> CGSize? in
      board.image = image
      return board.image?.size
    }
    #expect(back == CGSize(width: 3, height: 2))
    #expect(await onOwnThread { board.hasImages && !board.hasColors })
  }

  @Test func nsStringAndNSURLLoadAsApplesCodeAsksForThem() async throws {
    let provider = NSItemProvider(object: "hello" as String)
    let text: String? = await withCheckedContinuation { done in
      _ = provider.loadObject(ofClass: NSString.self) { string, _ in done.resume(returning: string?.description) }
    }
    #expect(text == "hello")
    let address = try #require(URL(string: "https://example.org/a"))
    let link = NSItemProvider(object: address)
    let loaded: String? = await withCheckedContinuation { done in
      _ = link.loadObject(ofClass: NSURL.self) { url, _ in done.resume(returning: url?.absoluteString) }
    }
    #expect(loaded == "https://example.org/a")
  }

  /// Apple's drag-and-drop code makes providers of `text as NSString` and `url as NSURL`
  /// (Swift's `String` and `URL` are not `NSItemProviderWriting` there).
  @Test func providersOfNSStringAndNSURLOfferTheTextAndTheURL() async throws {
    let provider = NSItemProvider(object: "hello" as NSString)
    #expect(provider.registeredTypeIdentifiers == [UTType.plainText.identifier])
    let text: String? = await withCheckedContinuation { done in
      _ = provider.loadObject(ofClass: NSString.self) { string, _ in done.resume(returning: string?.description) }
    }
    #expect(text == "hello")
    let address = try #require(URL(string: "https://example.org/a"))
    let link = NSItemProvider(object: address as NSURL)
    #expect(link.registeredTypeIdentifiers == NSItemProvider(object: address).registeredTypeIdentifiers)
    let loaded: String? = await withCheckedContinuation { done in
      _ = link.loadObject(ofClass: NSURL.self) { url, _ in done.resume(returning: url?.absoluteString) }
    }
    #expect(loaded == "https://example.org/a")
  }

  @Test func anExtensionItemCarriesItsAttachments() {
    let item = NSExtensionItem()
    item.attachments = [NSItemProvider(object: "note" as String)]
    #expect(item.attachments?.first?.hasItemConformingToTypeIdentifier(UTType.plainText.identifier) == true)
  }
}
