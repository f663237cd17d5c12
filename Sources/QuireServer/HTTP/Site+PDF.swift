import Foundation
import Hummingbird
import QuireDocuments
import QuireFormats
import QuirePDF
import QuireTypes

/// The PDFs the page shows drawn (PDFKit's `PDFView` and `PDFThumbnailView`, as a web page):
/// each a ``PDFFileDocument`` opened through a ``DocumentController``, so a highlight or note
/// added from the page is one undoable change of the document, saved by its safe save as an
/// incremental update, with versions and conflicts as for the REPL's `w`.
@MainActor
final class PDFRoom {
  private let controller: DocumentController
  private var documents: [URL: PDFFileDocument] = [:]

  init(controller: DocumentController) {
    self.controller = controller
  }

  /// The open document of `url`, opened on first use; one whose file changed on disk while
  /// clean is read again.
  func document(_ url: URL) async throws -> PDFFileDocument {
    let url = url.standardizedFileURL
    if let open = documents[url] {
      if !open.hasUnsavedChanges { _ = try? await open.checkForChangesOnDisk() }
      return open
    }
    guard let document = try await controller.openDocument(at: url) as? PDFFileDocument else {
      throw QuireError(.unsupportedType, "\(QuireError.name(url)) is not a PDF the page can draw.", url: url)
    }
    documents[url] = document
    return document
  }

  /// Closes every document (the server is stopping).
  func closeAll() async {
    for document in documents.values { try? await document.close() }
    documents = [:]
  }
}

/// What the page's PDF view asks for.
struct PDFInfoReply: Encodable, Sendable {
  struct Page: Encodable, Sendable {
    var width: Double
    var height: Double
  }
  struct Entry: Encodable, Sendable {
    var label: String
    var page: Int?
    var children: [Entry]
  }
  var name: String
  var pages: [Page]
  var outline: [Entry]
  var annotations: Int
  var edited: Bool
  /// The undo button's title ("Undo Add Highlight"), nil when there is nothing to undo.
  var undo: String?
  /// The redo button's title, nil when there is nothing to redo.
  var redo: String?
}

/// What the page's undo and redo send: the document.
struct PDFDocumentRequest: Decodable {
  var doc: String
}

struct PDFBoxReply: Encodable, Sendable {
  var x: Double, y: Double, w: Double, h: Double
  init(_ rect: PDFRect) { (x, y, w, h) = (rect.x, rect.y, rect.width, rect.height) }
}

struct PDFWordReply: Encodable, Sendable {
  var text: String
  var x: Double, y: Double, w: Double, h: Double
}

struct PDFHitReply: Encodable, Sendable {
  var page: Int
  var rects: [PDFBoxReply]
}

struct PDFAnnotateRequest: Decodable {
  var doc: String
  /// "highlight" or "note".
  var kind: String
  /// 0-based.
  var page: Int
  /// For a highlight: the selected words' areas, in points from the top left.
  var rects: [[Double]]?
  /// For a note: where, in points from the top left.
  var x: Double?
  var y: Double?
  var text: String?
}

extension Site {
  /// The PDF view's routes: `GET /api/pdf/info`, `/api/pdf/page` (a PNG), `/api/pdf/words`,
  /// `/api/pdf/find`, `POST /api/pdf/annotate` (adds a highlight or note and saves), and
  /// `POST /api/pdf/undo` and `/api/pdf/redo` (the document's undo and redo, then a save).
  func pdfRoute(_ request: inout Request, path: String) async throws -> Response? {
    guard path.hasPrefix("/api/pdf/") else { return nil }
    let query = request.uri.queryParameters
    func number(_ name: String, in range: ClosedRange<Int>) throws -> Int {
      guard let value = Int(try query.required(name)), range.contains(value) else {
        throw QuireError(.invalidArgument, "'\(name)' must be a number from \(range.lowerBound) to \(range.upperBound).")
      }
      return value
    }
    let room = pdfRoom
    switch (request.method, path) {
    case (.get, "/api/pdf/info"):
      let url = try locations.url(forReference: query.required("doc"))
      let info = try await room.info(url)
      return Reply.json(info)
    case (.get, "/api/pdf/page"):
      let url = try locations.url(forReference: query.required("doc"))
      let (page, width) = (try number("page", in: 0...100_000), try number("width", in: 16...4096))
      let png = try await room.png(url, page: page, width: width)
      var response = Reply.bytes(png, contentType: "image/png")
      response.headers[.cacheControl] = "no-store"
      return response
    case (.get, "/api/pdf/words"):
      let url = try locations.url(forReference: query.required("doc"))
      let page = try number("page", in: 0...100_000)
      return Reply.json(try await room.words(url, page: page))
    case (.get, "/api/pdf/find"):
      let url = try locations.url(forReference: query.required("doc"))
      let text = try query.required("text")
      guard !text.isEmpty, text.count <= 1_000 else { throw QuireError(.invalidArgument, "Find takes 1 to 1,000 characters.") }
      return Reply.json(try await room.find(url, text: text))
    case (.post, "/api/pdf/annotate"):
      let body = try await Self.decode(PDFAnnotateRequest.self, from: &request)
      let url = try locations.url(forReference: body.doc)
      return Reply.json(try await room.annotate(url, body))
    case (.post, "/api/pdf/undo"), (.post, "/api/pdf/redo"):
      let body = try await Self.decode(PDFDocumentRequest.self, from: &request)
      let url = try locations.url(forReference: body.doc)
      return Reply.json(try await room.undo(url, redoing: path == "/api/pdf/redo"))
    default:
      return Reply.json(["error": "There is nothing at \(ServedLocations.shown(path))."], status: .notFound)
    }
  }
}

extension PDFRoom {
  func info(_ url: URL) async throws -> PDFInfoReply {
    let document = try await document(url)
    func entries(_ items: [PDFOutlineItem], depth: Int) -> [PDFInfoReply.Entry] {
      guard depth < 16 else { return [] }
      return items.prefix(2_000).map { PDFInfoReply.Entry(label: $0.label, page: $0.pageIndex, children: entries($0.children, depth: depth + 1)) }
    }
    var pages: [PDFInfoReply.Page] = []
    var annotations = 0
    for index in 0..<min(document.pageCount, 10_000) {
      let size = (try? document.pageSize(at: index)) ?? (width: 0, height: 0)
      pages.append(PDFInfoReply.Page(width: size.width, height: size.height))
      annotations += (try? document.annotations(onPage: index).filter { $0.type != "Widget" }.count) ?? 0
    }
    let undo = document.undoManager
    return PDFInfoReply(
      name: url.lastPathComponent, pages: pages, outline: entries(document.outline, depth: 0), annotations: annotations, edited: document.hasUnsavedChanges,
      undo: undo.flatMap { $0.canUndo ? $0.undoMenuItemTitle : nil }, redo: undo.flatMap { $0.canRedo ? $0.redoMenuItemTitle : nil })
  }

  /// Undoes (or redoes) the document's last change made from the page, a highlight or note,
  /// and saves: the file gets another incremental update without (or with) it, as the REPL's
  /// `u` and `w` do.
  func undo(_ url: URL, redoing: Bool) async throws -> PDFInfoReply {
    let document = try await document(url)
    guard let undo = document.undoManager, redoing ? undo.canRedo : undo.canUndo else {
      throw QuireError(.invalidArgument, "There is nothing to \(redoing ? "redo" : "undo") in \(QuireError.name(url)).", url: url)
    }
    if redoing { undo.redo() } else { undo.undo() }
    try await document.save()
    return try await info(url)
  }

  func png(_ url: URL, page: Int, width: Int) async throws -> Data {
    try await document(url).pngData(ofPage: page, width: width)
  }

  func words(_ url: URL, page: Int) async throws -> [PDFWordReply] {
    try await document(url).words(ofPage: page).map { PDFWordReply(text: $0.word, x: $0.rect.x, y: $0.rect.y, w: $0.rect.width, h: $0.rect.height) }
  }

  func find(_ url: URL, text: String) async throws -> [PDFHitReply] {
    let document = try await document(url)
    var hits: [PDFHitReply] = []
    for index in 0..<document.pageCount {
      let rects = (try? document.matches(of: text, onPage: index)) ?? []
      if !rects.isEmpty { hits.append(PDFHitReply(page: index, rects: rects.map(PDFBoxReply.init))) }
    }
    return hits
  }

  /// Adds the highlight or note and saves the document (an incremental update).
  func annotate(_ url: URL, _ request: PDFAnnotateRequest) async throws -> PDFInfoReply {
    let document = try await document(url)
    guard request.page >= 0, request.page < document.pageCount else {
      throw QuireError(.invalidArgument, "\(QuireError.name(url)) has no page \(request.page + 1).", url: url)
    }
    switch request.kind {
    case "highlight":
      let rects = (request.rects ?? []).filter { $0.count == 4 && $0.allSatisfy(\.isFinite) }.map { PDFRect(x: $0[0], y: $0[1], width: $0[2], height: $0[3]) }
      try document.highlight(rects, onPage: request.page, text: request.text)
    case "note":
      guard let x = request.x, let y = request.y, x.isFinite, y.isFinite else {
        throw QuireError(.invalidArgument, "A note needs the place 'x' and 'y' on the page.")
      }
      try document.addNote(request.text ?? "", at: (x, y), onPage: request.page)
    default:
      throw QuireError(.invalidArgument, "The page adds highlights and notes, not '\(ServedLocations.shown(request.kind))'.")
    }
    try await document.save()
    return try await info(url)
  }
}
