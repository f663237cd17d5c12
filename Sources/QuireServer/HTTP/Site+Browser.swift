import Foundation
import HTTPTypes
import Hummingbird
import QuireBrowser
import QuirePreviews
import QuireTypes

/// The page's listing, search, recents and actions: each one a call of `DocumentBrowser`, so
/// the page and `quire browse` show the same documents and every change is coordinated.
extension Site {
  /// A document as the page shows it.
  struct ItemReply: Encodable, Sendable {
    var doc: String
    var name: String
    /// The folder it is in, relative to its served folder ("" at the top).
    var folder: String
    var type: String
    var typeName: String
    var mime: String?
    var size: Int64
    var modified: Date
    var tags: [String]
    var thumbnail: String
    var raw: String
    var editable: Bool
    var isPackage: Bool
    var gone: Bool
  }

  struct ListReply: Encodable, Sendable {
    struct TypeEntry: Encodable, Sendable {
      var id: String
      var name: String
    }
    struct FolderEntry: Encodable, Sendable {
      var index: Int
      var name: String
      var path: String
    }
    var items: [ItemReply]
    var types: [TypeEntry]?
    var tags: [String]?
    var folders: [FolderEntry]?
  }

  struct HitReply: Encodable, Sendable {
    struct Segment: Encodable, Sendable {
      var text: String
      var hit: Bool
    }
    var item: ItemReply
    var snippet: [Segment]
    var line: Int?
    var page: Int?
  }

  struct ActionRequest: Decodable, Sendable {
    var doc: String?
    var name: String?
    var folder: String?
    var template: String?
    var tags: [String]?
  }

  /// The browser's routes: reads of the listing, recents, search, thumbnails and templates
  /// (GET), and the changes the page asks for (POST).
  func browserRoute(_ request: inout Request, path: String) async throws -> Response? {
    switch request.method {
    case .get: return try await browserReadRoute(request, path: path)
    case .post: return try await browserActionRoute(&request, path: path)
    default: return nil
    }
  }

  /// A folder listing's key: requests with the same key at once share one listing.
  struct ListingKey: Hashable, Sendable {
    var order: BrowserSortOrder
    var tag: String?
    /// The type filter's identifier.
    var type: String?
  }

  private func browserReadRoute(_ request: Request, path: String) async throws -> Response? {
    let query = request.uri.queryParameters
    let browser = self.browser
    switch path {
    case "/api/documents":
      return try await documentList(
        order: query["sort"].flatMap { BrowserSortOrder(parsing: String($0)) } ?? .name,
        tag: query["tag"].map(String.init).flatMap { $0.isEmpty ? nil : $0 },
        type: query["type"].map(String.init).flatMap { $0.isEmpty ? nil : UTType($0) })
    case "/api/recents":
      return try await recentList()
    case "/api/search":
      return try await searchHits(query["q"].map(String.init) ?? "")
    case "/api/thumbnail":
      return try await thumbnail(reference: query["doc"].map(String.init) ?? "")

    case "/api/templates":
      struct Template: Encodable, Sendable {
        var name: String
        var summary: String
      }
      let templates = (try? await BackgroundWork.run(in: BackgroundWork.Lane.changes) { try browser.templates() }) ?? []
      return Reply.json(["templates": templates.map { Template(name: $0.name, summary: $0.summary) }])
    default:
      return nil
    }
  }

  /// The folder listing (`/api/documents`). The listing runs in the listings' lane, shared by
  /// every request for the same order and tag that arrives while one is under way: a burst of
  /// requests costs about two listings, and a request that comes during the burst is answered
  /// with them rather than after them.
  /// The shared run makes the reply's JSON too, so each request of a burst costs no more
  /// than its HTTP exchange.
  private func documentList(order: BrowserSortOrder, tag: String?, type: UTType?) async throws -> Response {
    let json = try await listings.value(for: ListingKey(order: order, tag: tag, type: type?.identifier)) {
      try await BackgroundWork.run(in: BackgroundWork.Lane.listings) { try self.listingJSON(order: order, tag: tag, type: type) }
    }
    return Reply.bytes(json, contentType: "application/json; charset=utf-8")
  }

  /// The folder listing as `/api/documents` answers it, encoded. The folders are walked once
  /// for both the items and every tag used (the tag filter's choices).
  private func listingJSON(order: BrowserSortOrder, tag: String?, type: UTType?) throws -> Data {
    let all = try browser.items(sortedBy: order)
    let listed = tag.map { DocumentBrowser.items(all, taggedWith: $0) } ?? all
    let tags = DocumentBrowser.tagCounts(in: all).map(\.tag)
    var seen: [String: String] = [:]
    for item in listed { seen[item.contentTypeIdentifier] = DocumentBrowser.kindName(of: item) }
    let shown = type.map { type in listed.filter { $0.contentType.conforms(to: type) } } ?? listed
    let folders = locations.folders.enumerated().map { ListReply.FolderEntry(index: $0.offset, name: $0.element.lastPathComponent, path: $0.element.path) }
    let reply = ListReply(
      items: shown.compactMap(reply(for:)), types: seen.map { .init(id: $0.key, name: $0.value) }.sorted { $0.name < $1.name }, tags: tags, folders: folders)
    return try Reply.encoder.encode(reply)
  }

  /// The desktop's recently used documents that this server serves (`/api/recents`).
  private func recentList() async throws -> Response {
    let browser = self.browser
    let recents = try await BackgroundWork.run(in: BackgroundWork.Lane.recents) { try browser.recentItems() }
    var items: [ItemReply] = []
    for recent in recents {
      guard let doc = locations.reference(for: recent.url) else { continue }  // only what this server serves
      if recent.status != .missing, let item = try? await BackgroundWork.run(in: BackgroundWork.Lane.listings, { try browser.item(at: recent.url) }),
        let reply = reply(for: item)
      {
        items.append(reply)
      } else {
        items.append(
          ItemReply(
            doc: doc, name: recent.name, folder: "", type: "", typeName: "gone", mime: recent.mimeType, size: 0, modified: recent.modified ?? Date(),
            tags: [], thumbnail: "/api/thumbnail?doc=missing", raw: "#", editable: false, isPackage: false, gone: true))
      }
    }
    return Reply.json(ListReply(items: items))
  }

  /// The hits of a full-text search (`/api/search`), with a deadline (10 s) and cancellation:
  /// the search stops when this request's task is cancelled.
  private func searchHits(_ text: String) async throws -> Response {
    let browser = self.browser
    let cancelled = BackgroundWork.Flag()
    let hits = try await withTaskCancellationHandler {
      try await BackgroundWork.run(in: BackgroundWork.Lane.searches) {
        try browser.search(SearchQuery(text, timeLimit: .seconds(10)), isCancelled: { cancelled.isSet })
      }
    } onCancel: {
      cancelled.set()
    }
    var replies: [HitReply] = []
    for hit in hits {
      guard let item = try? await BackgroundWork.run(in: BackgroundWork.Lane.listings, { try browser.item(at: hit.url) }), let reply = reply(for: item) else {
        continue
      }
      replies.append(
        HitReply(item: reply, snippet: hit.snippet.segments.map { .init(text: $0.text, hit: $0.isMatch) }, line: hit.line, page: hit.page))
    }
    return Reply.json(["hits": replies])
  }

  private func browserActionRoute(_ request: inout Request, path: String) async throws -> Response? {
    let browser = self.browser
    switch path {
    case "/api/create":
      let body = try await Self.decode(ActionRequest.self, from: &request)
      let name = try acceptableName(body.name)
      let folder = try folderURL(body.folder ?? "0")
      let template = body.template.flatMap { $0.isEmpty ? nil : $0 }
      let item = try await BackgroundWork.run(in: BackgroundWork.Lane.changes) { try browser.createDocument(named: name, in: folder, fromTemplate: template) }
      return try itemReply(item)

    case "/api/rename":
      let body = try await Self.decode(ActionRequest.self, from: &request)
      let url = try locations.url(forReference: body.doc ?? "")
      let name = try acceptableName(body.name)
      // A name typed with an extension is taken as it is; one without keeps the old extension.
      let keepsExtension = (name as NSString).pathExtension.isEmpty
      let renamed = try await BackgroundWork.run(in: BackgroundWork.Lane.changes) {
        try browser.item(at: browser.renameItem(at: url, to: name, keepingExtension: keepsExtension))
      }
      return try itemReply(renamed)

    case "/api/move":
      let body = try await Self.decode(ActionRequest.self, from: &request)
      let url = try locations.url(forReference: body.doc ?? "")
      let folder = try folderURL(body.folder ?? "")
      let moved = try await BackgroundWork.run(in: BackgroundWork.Lane.changes) { try browser.item(at: browser.moveItem(at: url, into: folder)) }
      return try itemReply(moved)

    case "/api/duplicate":
      let body = try await Self.decode(ActionRequest.self, from: &request)
      let url = try locations.url(forReference: body.doc ?? "")
      let copy = try await BackgroundWork.run(in: BackgroundWork.Lane.changes) { try browser.item(at: browser.duplicateItem(at: url)) }
      return try itemReply(copy)

    case "/api/trash":
      let body = try await Self.decode(ActionRequest.self, from: &request)
      let url = try locations.url(forReference: body.doc ?? "")
      _ = try await BackgroundWork.run(in: BackgroundWork.Lane.changes) { try browser.trashItem(at: url) }
      return Reply.json(["trashed": url.lastPathComponent])

    case "/api/tags":
      let body = try await Self.decode(ActionRequest.self, from: &request)
      let url = try locations.url(forReference: body.doc ?? "")
      let tags = (body.tags ?? []).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
      let now = try await BackgroundWork.run(in: BackgroundWork.Lane.changes) { () throws -> [String] in
        try browser.setTags(tags, of: url)
        return try browser.tags(of: url)
      }
      return Reply.json(["tags": now])

    default:
      return nil
    }
  }

  /// Notes `url` as recently used (the desktop's shared list), in the background.
  func noteRecent(_ url: URL) {
    let browser = self.browser
    work.start { _ = try? await BackgroundWork.run(in: BackgroundWork.Lane.recents) { try browser.noteRecentDocument(at: url) } }
  }

  // MARK: Pieces

  private func reply(for item: BrowserItem) -> ItemReply? {
    guard let doc = locations.reference(for: item.url) else { return nil }
    let relative = doc.split(separator: "/").dropFirst()
    let folder = relative.dropLast().joined(separator: "/")
    let version = Int(item.modificationDate.timeIntervalSince1970 * 1000)
    var thumbnail = URLComponents()
    thumbnail.path = "/api/thumbnail"
    thumbnail.queryItems = [URLQueryItem(name: "doc", value: doc), URLQueryItem(name: "v", value: String(version))]
    let raw =
      "/files/"
      + doc.split(separator: "/").map { $0.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/"])) ?? "" }.joined(separator: "/")
    return ItemReply(
      doc: doc, name: item.name, folder: folder, type: item.contentTypeIdentifier, typeName: DocumentBrowser.kindName(of: item), mime: item.mimeType,
      size: item.size, modified: item.modificationDate, tags: item.tags,
      thumbnail: thumbnail.percentEncodedQuery.map { "/api/thumbnail?\($0.replacingOccurrences(of: "+", with: "%2B"))" } ?? "/api/thumbnail",
      raw: raw, editable: !item.isPackage && item.contentType.conforms(to: .plainText), isPackage: item.isPackage, gone: false)
  }

  private func itemReply(_ item: BrowserItem) throws -> Response {
    guard let reply = reply(for: item) else {
      throw QuireError(.invalidArgument, "\(QuireError.name(item.url)) is outside the served folders.", url: item.url)
    }
    return Reply.json(["item": reply])
  }

  /// The name as typed, spaces at its ends dropped; refused, with the reason, when it cannot
  /// be a file name (control characters, a tab included, and bidirectional overrides too).
  private func acceptableName(_ name: String?) throws -> String {
    let name = (name ?? "").trimmingCharacters(in: [" "])
    if let problem = DocumentBrowser.problem(withName: name) { throw QuireError(.invalidArgument, problem) }
    return name
  }

  /// A served folder (`N`) or a folder inside one (`N/path`).
  private func folderURL(_ reference: String) throws -> URL {
    if let index = Int(reference) { return try locations.folder(at: index) }
    let url = try locations.url(forReference: reference)
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), isFolder.boolValue else {
      throw QuireError(.invalidArgument, "\(QuireError.name(url)) is not a folder.", url: url)
    }
    return url
  }

  /// The item's thumbnail from the freedesktop cache (drawn now when missing); a plain icon
  /// for what has none.
  private func thumbnail(reference: String) async throws -> Response {
    let url = try locations.url(forReference: reference)
    let browser = self.browser
    var extra = HTTPFields()
    extra[.cacheControl] = "private, max-age=3600"
    do {
      let png = try await BackgroundWork.run(in: BackgroundWork.Lane.thumbnails) { () throws -> Data in
        let thumbnail = try browser.thumbnail(for: browser.item(at: url), size: 256)
        return try Data(contentsOf: thumbnail)
      }
      return Reply.bytes(png, contentType: "image/png", extra: extra)
    } catch let error as QuireError where error.code == .fileMissing {
      throw error
    } catch {
      let label = MarkdownPreview.escapeHTML(url.pathExtension.isEmpty ? "?" : url.pathExtension.uppercased())
      let svg = """
        <svg xmlns="http://www.w3.org/2000/svg" width="256" height="256" viewBox="0 0 256 256"><rect x="48" y="24" width="160" height="208" rx="12" \
        fill="#f6f8fa" stroke="#8c959f" stroke-width="4"/><text x="128" y="144" font-family="sans-serif" font-size="36" text-anchor="middle" \
        fill="#59636e">\(label)</text></svg>
        """
      return Reply.bytes(Data(svg.utf8), contentType: "image/svg+xml", extra: extra)
    }
  }
}
