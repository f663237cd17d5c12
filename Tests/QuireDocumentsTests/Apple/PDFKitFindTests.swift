// Written from PDFKit's documentation of PDFDocument's find (beginFindString(_:withOptions:),
// beginFindStrings, cancelFindString, isFinding, PDFDocumentDelegate and the PDFDocumentDid…
// notifications), not from Quire's own API.
import Foundation
import QuireDocuments
import QuireFormats
import QuirePDF
import QuireTestSupport
import Testing

/// A delegate as an app's view controller is one: main-actor isolated, implementing only some
/// of the optional methods.
@MainActor
final class FindRecorder: @preconcurrency PDFDocumentDelegate {
  var events: [String] = []
  var matches: [PDFSelection] = []
  private var ends = 0
  private var waiter: CheckedContinuation<Void, Never>?
  /// Called at the end of each page with its index (to cancel from inside a find).
  var onPageEnd: ((Int) -> Void)?

  func documentDidBeginDocumentFind(_ notification: Notification) { events.append("begin") }
  func documentDidEndDocumentFind(_ notification: Notification) {
    events.append("end")
    ends += 1
    waiter?.resume()
    waiter = nil
  }
  func documentDidBeginPageFind(_ notification: Notification) {
    events.append("page \(Self.page(notification))")
  }
  func documentDidEndPageFind(_ notification: Notification) {
    let page = Self.page(notification)
    events.append("page \(page) done")
    onPageEnd?(page)
  }
  func didMatchString(_ instance: PDFSelection) {
    events.append("match \(instance.pageIndex)")
    matches.append(instance)
  }

  static func page(_ notification: Notification) -> Int {
    (notification.userInfo?[PDFDocumentPageIndexKey] as? NSNumber)?.intValue ?? -1
  }

  /// Waits until `count` finds have ended.
  func waitForEnds(_ count: Int) async {
    while ends < count { await withCheckedContinuation { waiter = $0 } }
  }
}

/// Notifications received on `NotificationCenter.default`, in order (posted on the main actor).
final class PostedNotifications: @unchecked Sendable {  // touched on the main actor only
  var names: [Notification.Name] = []
  var selections: [PDFSelection] = []
  var fromDocument: [Bool] = []
}

@Suite("PDFKit's asynchronous find, as Apple documents it")
@MainActor
final class PDFKitFindTests: MainActorFolderSuite {
  /// A PDF whose pages hold `texts`.
  private func pdf(_ name: String, _ texts: [String]) throws -> PDFDocument {
    try #require(PDFDocument(url: writePDF(to: folder.file(name), pages: texts)))
  }

  /// A new recorder, made `document`'s delegate (held weakly: the test keeps the recorder).
  private func delegateRecorder(of document: PDFDocument) -> FindRecorder {
    let recorder = FindRecorder()
    document.delegate = recorder
    return recorder
  }

  /// Runs one asynchronous find of `string` in `document` to its end and returns what the
  /// delegate heard.
  private func find(_ string: String, in document: PDFDocument, options: NSString.CompareOptions = []) async -> FindRecorder {
    let recorder = delegateRecorder(of: document)
    document.beginFindString(string, withOptions: options)
    await recorder.waitForEnds(1)
    return recorder
  }

  @Test func beginFindStringCallsTheDelegateAndPostsTheNotifications() async throws {
    let document = try pdf("find.pdf", ["nothing here", "iPhone and iPad, then IPHONE again", "an iphone"])
    let recorder = delegateRecorder(of: document)
    let posted = PostedNotifications()
    let names: [Notification.Name] = [
      .PDFDocumentDidBeginFind, .PDFDocumentDidBeginPageFind, .PDFDocumentDidFindMatch, .PDFDocumentDidEndPageFind, .PDFDocumentDidEndFind,
    ]
    let documentID = ObjectIdentifier(document)
    let observers = names.map { name in
      NotificationCenter.default.addObserver(forName: name, object: document, queue: nil) { notification in
        let name = notification.name
        let fromDocument = (notification.object as AnyObject?).map(ObjectIdentifier.init) == documentID
        let selection = notification.userInfo?[PDFDocumentFoundSelectionKey] as? PDFSelection
        MainActor.assumeIsolated {
          posted.names.append(name)
          posted.fromDocument.append(fromDocument)
          if let selection { posted.selections.append(selection) }
        }
      }
    }
    defer { observers.forEach(NotificationCenter.default.removeObserver) }

    #expect(!document.isFinding)
    document.beginFindString("iphone", withOptions: .caseInsensitive)
    // It returns at once: the find has begun but no page has been searched yet.
    #expect(document.isFinding)
    #expect(recorder.events == ["begin"])
    await recorder.waitForEnds(1)
    #expect(!document.isFinding)
    #expect(
      recorder.events == [
        "begin", "page 0", "page 0 done", "page 1", "match 1", "match 1", "page 1 done", "page 2", "match 2", "page 2 done", "end",
      ])
    // One selection per match, each with its text and one area.
    #expect(recorder.matches.count == 3)
    #expect(recorder.matches.allSatisfy { $0.bounds.count == 1 && $0.attributedString?.string == "iphone" })
    #expect(posted.selections == recorder.matches)
    #expect(posted.names.first == .PDFDocumentDidBeginFind && posted.names.last == .PDFDocumentDidEndFind)
    #expect(posted.names.filter { $0 == .PDFDocumentDidFindMatch }.count == 3)
    #expect(posted.fromDocument.count == posted.names.count && posted.fromDocument.allSatisfy { $0 })
  }

  @Test func caseMattersWithoutCaseInsensitive() async throws {
    let document = try pdf("case.pdf", ["iPhone and IPHONE and iphone"])
    let recorder = await find("IPHONE", in: document)
    #expect(recorder.matches.count == 1)
  }

  @Test func beginFindStringsFindsEachStringPageByPage() async throws {
    let document = try pdf("strings.pdf", ["alpha", "beta gamma alpha"])
    let recorder = delegateRecorder(of: document)
    document.beginFindStrings(["alpha", "beta"], withOptions: .caseInsensitive)
    await recorder.waitForEnds(1)
    #expect(recorder.matches.map { "\($0.pageIndex) \($0.string ?? "")" } == ["0 alpha", "1 alpha", "1 beta"])
  }

  @Test func cancelFindStringStopsBetweenPagesAndAnnouncesTheEnd() async throws {
    let document = try pdf("long.pdf", (1...12).map { "page \($0) needle" })
    let recorder = delegateRecorder(of: document)
    recorder.onPageEnd = { page in
      if page == 2 { document.cancelFindString() }
    }
    document.beginFindString("needle")
    await recorder.waitForEnds(1)
    #expect(!document.isFinding)
    #expect(recorder.events.last == "end")
    #expect(recorder.matches.map(\.pageIndex) == [0, 1, 2])
    // A second find runs to its end; the cancelled one never searches another page, though it
    // would have had turns meanwhile.
    recorder.onPageEnd = nil
    recorder.matches = []
    document.beginFindString("page 7")
    await recorder.waitForEnds(2)
    #expect(recorder.matches.map(\.pageIndex) == [6])
    #expect(recorder.events.filter { $0 == "end" }.count == 2)
    #expect(recorder.events.filter { $0 == "page 3 done" }.count == 1)  // only the second find's
  }

  @Test func aNewFindCancelsTheOneUnderWay() async throws {
    let document = try pdf("twice.pdf", ["one two", "two one"])
    let recorder = delegateRecorder(of: document)
    document.beginFindString("one")
    document.beginFindString("two")
    await recorder.waitForEnds(2)
    // The first find ended before it searched a page; all matches are the second's.
    #expect(recorder.events.prefix(3) == ["begin", "end", "begin"])
    #expect(recorder.matches.allSatisfy { $0.string == "two" })
    #expect(recorder.matches.count == 2)
    // Cancelling with no find under way does nothing.
    document.cancelFindString()
    #expect(recorder.events.filter { $0 == "end" }.count == 2)
  }

  @Test func emptyStringsAndEmptyDocumentsBeginAndEnd() async throws {
    let document = try pdf("empty-string.pdf", ["text"])
    let recorder = await find("", in: document)
    #expect(recorder.matches.isEmpty)

    let empty = PDFDocument()
    let other = await find("anything", in: empty)
    #expect(other.events == ["begin", "end"])
    #expect(!empty.isFinding)
  }

  @Test func theSynchronousFindAnnouncesItselfToo() throws {
    let document = try pdf("sync.pdf", ["needle and needle", "hay"])
    let recorder = delegateRecorder(of: document)
    let found = document.findString("NEEDLE", withOptions: .caseInsensitive)
    #expect(found.count == 2)
    #expect(found.allSatisfy { $0.pageIndex == 0 })
    #expect(recorder.events == ["begin", "page 0", "match 0", "match 0", "page 0 done", "page 1", "page 1 done", "end"])
  }

  @Test func theDelegateIsHeldWeakly() async throws {
    let document = try pdf("weak.pdf", ["text"])
    do {
      let recorder = FindRecorder()
      document.delegate = recorder
      #expect(document.delegate != nil)
    }
    #expect(document.delegate == nil)
  }
}
