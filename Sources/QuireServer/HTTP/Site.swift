import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import QuireBrowser
import QuireDocuments
import QuirePDF
import QuirePreviews
import QuireTypes
import SystemPackage

/// The server's one responder: access control first, then the route.
///
/// Routing is by the raw path, split on `/` here (not by a router that might decode or
/// normalise it first), so ``ServedLocations`` sees every segment exactly as sent.
final class Site: Sendable {
  let locations: ServedLocations
  let access: AccessControl
  let events: EventHub
  let room: EditingRoom
  let previews = PreviewGenerator()
  let work: BackgroundWork
  let browser: DocumentBrowser
  let pdfRoom: PDFRoom
  /// Folder listings shared by the requests that ask for the same one at once.
  let listings = SharedRuns<ListingKey, Data>()

  private init(
    locations: ServedLocations, access: AccessControl, events: EventHub, room: EditingRoom, work: BackgroundWork, browser: DocumentBrowser,
    pdfRoom: PDFRoom
  ) {
    self.locations = locations
    self.access = access
    self.events = events
    self.room = room
    self.work = work
    self.browser = browser
    self.pdfRoom = pdfRoom
  }

  static func make(server: DocumentServer) async throws -> Site {
    let locations = server.locations
    let configuration = server.configuration
    let (room, pdfRoom) = await MainActor.run {
      let controller = DocumentController(stateFolder: configuration.stateFolder, templatesFolder: configuration.templatesFolder)
      controller.registerPDFDocuments()
      return (EditingRoom(controller: controller, events: server.events, reference: { locations.reference(for: $0) }), PDFRoom(controller: controller))
    }
    let browser = DocumentBrowser(
      configuration: DocumentBrowser.Configuration(
        locations: locations.folders, templatesFolder: configuration.templatesFolder, pdfTextWorkers: configuration.pdfTextWorkers))
    let site = Site(
      locations: locations, access: server.access, events: server.events, room: room, work: BackgroundWork(), browser: browser, pdfRoom: pdfRoom)
    try site.startLiveWork()
    return site
  }

  /// Stops background work, ends the event streams and closes the open documents.
  func close() async {
    browser.stopWatching()
    work.cancelAll()
    events.finish()
    await room.closeAll()
    await pdfRoom.closeAll()
  }

  func respond(to request: Request, context: BasicRequestContext) async -> Response {
    let path = request.uri.path
    let token = request.uri.queryParameters["token"].map(String.init)
    switch access.decide(method: request.method, authority: request.head.authority, path: path, token: token, headers: request.headers) {
    case .refused(let status, let reason):
      return Reply.refused(status, reason: reason)
    case .startSession(_, let cookie):
      var headers = Reply.baseHeaders(contentType: "text/plain; charset=utf-8")
      headers[.setCookie] = cookie
      headers[.location] = "/"
      return Response(status: .seeOther, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: "Signed in; go to /\n")))
    case .allowed(let session):
      do {
        return try await route(request, path: path, session: session)
      } catch {
        return Reply.error(error)
      }
    }
  }

  private func route(_ request: Request, path: String, session: AccessControl.Session) async throws -> Response {
    var request = request
    let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
    let query = request.uri.queryParameters
    switch (request.method, path) {
    case (.get, "/"), (.get, "/index.html"):
      return page(csrf: session.csrfToken)
    case (.get, "/app.js"):
      return Reply.bytes(PackageResources.app_js, contentType: "text/javascript; charset=utf-8")
    case (.get, "/app.css"):
      return Reply.bytes(PackageResources.app_css, contentType: "text/css; charset=utf-8")
    case (.get, "/api/events"):
      return eventStream()
    case (.get, "/api/preview"):
      return try await preview(of: locations.open(reference: query.required("doc")))
    case (.post, _) where path.hasPrefix("/api/editor/"):
      return try await editor(String(path.dropFirst("/api/editor/".count)), Self.decode(EditorRequest.self, from: &request))
    default:
      break
    }
    if request.method == .get, segments.first == "files" {
      return try rawFile(locations.open(pathSegments: Array(segments.dropFirst())), range: request.headers[.range])
    }
    if let response = try await pdfRoute(&request, path: path) { return response }
    if let response = try await browserRoute(&request, path: path) { return response }
    return Reply.json(["error": "There is nothing at \(ServedLocations.shown(path))."], status: .notFound)
  }

  /// The request's JSON body (at most 64 MiB: a text document being edited).
  static func decode<T: Decodable>(_ type: T.Type, from request: inout Request) async throws -> T {
    let buffer: ByteBuffer
    do { buffer = try await request.collectBody(upTo: 64 << 20) } catch {
      throw QuireError(.limitExceeded, "The request is larger than 64 MiB; the page sends no such thing.")
    }
    do { return try JSONDecoder().decode(T.self, from: Data(buffer.readableBytesView)) } catch {
      throw QuireError(.invalidArgument, "The request's JSON is not what this address takes: \(error).")
    }
  }

  // MARK: Page

  private func page(csrf: String) -> Response {
    let html = String(decoding: PackageResources.index_html, as: UTF8.self).replacingOccurrences(of: "{{CSRF}}", with: csrf)
    var extra = HTTPFields()
    extra[.contentSecurityPolicy] = Reply.pagePolicy
    extra[HTTPField.Name("X-Frame-Options")!] = "DENY"
    return Reply.bytes(Data(html.utf8), contentType: "text/html; charset=utf-8", extra: extra)
  }

  // MARK: Events

  private func eventStream() -> Response {
    let stream = events.subscribe()
    var headers = Reply.baseHeaders(contentType: "text/event-stream; charset=utf-8")
    headers[HTTPField.Name("X-Accel-Buffering")!] = "no"
    return Response(
      status: .ok, headers: headers,
      body: ResponseBody { writer in
        try await writer.write(ByteBuffer(string: ": quire events\nretry: 1000\n\n"))
        for await event in stream {
          try await writer.write(ByteBuffer(string: event.wireFormat))
        }
        try await writer.finish(nil)
      })
  }

  // MARK: Previews and files

  /// The preview page, served with the preview's own Content-Security-Policy (no script, no
  /// form, no connection) plus `sandbox`, and framed only by this server's page. The preview
  /// reads the file opened beneath the served folder, never its name again.
  private func preview(of file: ServedLocations.OpenedFile) async throws -> Response {
    let previews = self.previews
    let html = try await BackgroundWork.run(in: BackgroundWork.Lane.previews) {
      try previews.preview(of: file.url, readingFrom: URL(fileURLWithPath: file.pinnedPath), format: .html)
    }
    var extra = HTTPFields()
    extra[.contentSecurityPolicy] = Self.previewPolicy
    return Reply.bytes(Data(Self.holdingBackRemoteImages(in: html).utf8), contentType: "text/html; charset=utf-8", extra: extra)
  }

  /// The previews' policy: no script, form or connection, and images from this server or
  /// `data:` only (a remote image would tell another site who reads the document, and when);
  /// framed only by this server's page, in a sandbox. A browser applies it together with the
  /// preview's own `<meta>` policy, so the stricter of the two holds.
  static let previewPolicy =
    "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; form-action 'none'; base-uri 'none'; frame-ancestors 'self'; sandbox"

  /// The preview with each remote image (`http:`, `https:` or `//` source) replaced by a
  /// marker naming it, and a note at the top saying how many were held back.
  static func holdingBackRemoteImages(in html: String) -> String {
    var count = 0
    let replaced = html.replacing(/<img src="((?:https?:)?\/\/[^"]*)"[^>]*>/.ignoresCase()) { match in
      count += 1
      return "<span class=\"held-back\" title=\"\(match.1)\">[remote image held back]</span>"
    }
    guard count > 0, let body = replaced.range(of: "<body>\n") else { return replaced }
    let note =
      "<p class=\"held-back-note\" style=\"border:1px solid #d4a72c;background:#fff8c5;color:#3b2300;padding:0.4em 0.8em;border-radius:6px\">"
      + "\(count == 1 ? "A remote image was" : "\(count) remote images were") held back: previews load nothing from other sites.</p>\n"
    return replaced.replacingCharacters(in: body, with: "<body>\n" + note)
  }

  /// The most one read of a streamed file takes (and so what a response holds at a time).
  static let streamChunk = 256 << 10

  /// The file's bytes, as an opaque download: `sandbox` and `nosniff` keep an HTML or SVG
  /// file from running anything in this server's origin. The bytes are streamed from the
  /// descriptor opened beneath the served folder, a chunk at a time, so a file of any size
  /// costs one chunk of memory; a `Range: bytes=…` request gets that part (206), a range
  /// past the end 416.
  private func rawFile(_ file: ServedLocations.OpenedFile, range: String?) throws -> Response {
    let type =
      (try? ThumbnailGenerator.contentType(of: FilePath(file.url.path), readingFrom: URL(fileURLWithPath: file.pinnedPath)))?
      .preferredMIMEType ?? "application/octet-stream"
    let safe = type == "application/pdf" || type.hasPrefix("text/plain") || type.hasPrefix("image/png") || type.hasPrefix("image/jpeg")
    var headers = Reply.baseHeaders(contentType: safe ? type : "application/octet-stream")
    headers[.contentSecurityPolicy] = "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; sandbox"
    headers[.acceptRanges] = "bytes"
    if !safe { headers[.contentDisposition] = "attachment" }
    let size = file.size
    var status: HTTPResponse.Status = .ok
    var (start, end) = (Int64(0), size)  // end is exclusive
    if let range {
      guard let (first, last) = Self.byteRange(range, size: size) else {
        headers[.contentRange] = "bytes */\(size)"
        return Response(status: .rangeNotSatisfiable, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer()))
      }
      (start, end, status) = (first, last + 1, .partialContent)
      headers[.contentRange] = "bytes \(first)-\(last)/\(size)"
    }
    let (from, to) = (start, end)
    return Response(
      status: status, headers: headers,
      body: ResponseBody(contentLength: Int(to - from)) { writer in
        var offset = from
        while offset < to {
          try Task.checkCancellation()
          let count = Int(min(Int64(Self.streamChunk), to - offset))
          let at = offset
          let bytes = try await BackgroundWork.run(in: BackgroundWork.Lane.files) { try file.read(at: at, count: count) }
          if bytes.isEmpty { break }  // the file shrank: end early; the client sees a short body
          try await writer.write(ByteBuffer(bytes: bytes))
          offset += Int64(bytes.count)
        }
        try await writer.finish(nil)
      })
  }

  /// The one range a `Range` header asks for in a file of `size` bytes (first and last byte,
  /// inclusive), or `nil` when it cannot be satisfied. A list of ranges is refused too (the
  /// page never asks for one).
  static func byteRange(_ header: String, size: Int64) -> (Int64, Int64)? {
    let value = header.trimmingCharacters(in: .whitespaces)
    guard value.hasPrefix("bytes="), !value.contains(",") else { return nil }
    let spec = value.dropFirst("bytes=".count)
    guard let dash = spec.firstIndex(of: "-") else { return nil }
    let (from, to) = (spec[..<dash].trimmingCharacters(in: .whitespaces), spec[spec.index(after: dash)...].trimmingCharacters(in: .whitespaces))
    if from.isEmpty {
      guard let suffix = Int64(to), suffix > 0, size > 0 else { return nil }
      return (max(0, size - suffix), size - 1)
    }
    guard let first = Int64(from), first >= 0, first < size else { return nil }
    if to.isEmpty { return (first, size - 1) }
    guard let last = Int64(to), last >= first else { return nil }
    return (first, min(last, size - 1))
  }

  // MARK: Editor

  struct EditorRequest: Decodable {
    /// For `open`, a document reference (`INDEX/PATH`); for the other commands, the handle
    /// (`id`) `open` answered with.
    var doc: String
    var text: String?
    var revision: Int?
    var choice: String?
  }

  private func editor(_ command: String, _ body: EditorRequest) async throws -> Response {
    let room = self.room
    switch command {
    case "open":
      // Any reference to a served file opens it; an open document is found by its file's
      // identity, and the page names it by the handle (`id`) it gets back from then on.
      let url = try locations.url(forReference: body.doc)
      let state = try await room.open(url)
      noteRecent(url)
      return Reply.json(state)
    case "edit":
      guard let text = body.text, let revision = body.revision else {
        throw QuireError(.invalidArgument, "An edit needs 'text' and 'revision'.")
      }
      return Reply.json(try await room.edit(id: body.doc, text: text, revision: revision))
    case "undo": return Reply.json(try await room.undo(id: body.doc))
    case "redo": return Reply.json(try await room.redo(id: body.doc))
    case "save": return Reply.json(try await room.save(id: body.doc))
    case "resolve": return Reply.json(try await room.resolve(id: body.doc, choice: body.choice ?? ""))
    case "recover": return Reply.json(try await room.recover(id: body.doc, choice: body.choice ?? ""))
    case "state": return Reply.json(try await room.state(of: body.doc))
    case "close":
      try await room.close(id: body.doc)
      return Reply.json(["closed": body.doc])
    default:
      return Reply.json(["error": "There is no editor command '\(ServedLocations.shown(command))'."], status: .notFound)
    }
  }

}
