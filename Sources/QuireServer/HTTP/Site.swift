import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import QuireBrowser
import QuireDocuments
import QuirePreviews
import QuireTypes

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

  private init(locations: ServedLocations, access: AccessControl, events: EventHub, room: EditingRoom, work: BackgroundWork, browser: DocumentBrowser) {
    self.locations = locations
    self.access = access
    self.events = events
    self.room = room
    self.work = work
    self.browser = browser
  }

  static func make(server: DocumentServer) async throws -> Site {
    let locations = server.locations
    let configuration = server.configuration
    let room = await MainActor.run {
      let controller = DocumentController(stateFolder: configuration.stateFolder, templatesFolder: configuration.templatesFolder)
      return EditingRoom(controller: controller, events: server.events, reference: { locations.reference(for: $0) })
    }
    let browser = DocumentBrowser(
      configuration: DocumentBrowser.Configuration(locations: locations.folders, templatesFolder: configuration.templatesFolder))
    let site = Site(locations: locations, access: server.access, events: server.events, room: room, work: BackgroundWork(), browser: browser)
    try site.startLiveWork()
    return site
  }

  /// Stops background work, ends the event streams and closes the open documents.
  func close() async {
    browser.stopWatching()
    work.cancelAll()
    events.finish()
    await room.closeAll()
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
    func parameter(_ name: String) throws -> String {
      guard let value = query[name[...]] else { throw QuireError(.invalidArgument, "The request needs a '\(name)' parameter.") }
      return String(value)
    }
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
      return try await preview(of: locations.url(forReference: parameter("doc")))
    case (.post, _) where path.hasPrefix("/api/editor/"):
      return try await editor(String(path.dropFirst("/api/editor/".count)), Self.decode(EditorRequest.self, from: &request))
    default:
      break
    }
    if request.method == .get, segments.first == "files" {
      return try await rawFile(locations.url(forPathSegments: Array(segments.dropFirst())))
    }
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
  /// form, no connection) plus `sandbox`, and framed only by this server's page.
  private func preview(of url: URL) async throws -> Response {
    let previews = self.previews
    let html = try await BackgroundWork.run { try previews.preview(of: url, format: .html) }
    var extra = HTTPFields()
    extra[.contentSecurityPolicy] = MarkdownPreview.contentSecurityPolicy + "; frame-ancestors 'self'; sandbox"
    return Reply.bytes(Data(html.utf8), contentType: "text/html; charset=utf-8", extra: extra)
  }

  /// The file's bytes, as an opaque download: `sandbox` and `nosniff` keep an HTML or SVG
  /// file from running anything in this server's origin.
  private func rawFile(_ url: URL) async throws -> Response {
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), !isFolder.boolValue else {
      throw QuireError(.unsupportedType, "\(QuireError.name(url)) is a folder (a package); open its preview instead.", url: url)
    }
    let data = try await BackgroundWork.run { () throws -> Data in
      let handle = try FileHandle(forReadingFrom: url)
      defer { try? handle.close() }
      return try handle.readToEnd() ?? Data()
    }
    let type = (try? ThumbnailGenerator.contentType(of: url))?.preferredMIMEType ?? "application/octet-stream"
    let safe = type == "application/pdf" || type.hasPrefix("text/plain") || type.hasPrefix("image/png") || type.hasPrefix("image/jpeg")
    var extra = HTTPFields()
    extra[.contentSecurityPolicy] = "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; sandbox"
    if !safe { extra[.contentDisposition] = "attachment" }
    return Reply.bytes(data, contentType: safe ? type : "application/octet-stream", extra: extra)
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
