import Foundation
import Quire
import QuireSession
import QuireSystem
import SystemPackage

/// A JSON object as JSONSerialization reads and writes it.
typealias JSONObject = [String: Any]

/// A JSON-RPC 2.0 error: a code, a message, and Quire's error code and file as `data`.
struct RPCError: Error {
  var code: Int
  var message: String
  /// Quire's error code (`quireCode`) and the file (`file`), when known.
  var data: [String: String]?
  /// The document's current version, for a stale edit.
  var version: Int?

  static let parseError = -32700
  static let invalidRequest = -32600
  static let methodNotFound = -32601
  static let invalidParams = -32602
  static let internalError = -32603
  /// LSP's ContentModified: an edit named a version that is not the current one.
  static let contentModified = -32801
  /// LSP's RequestFailed: a valid request that failed (a conflict, a missing file).
  static let requestFailed = -32803

  init(_ code: Int, _ message: String, data: [String: String]? = nil) {
    self.code = code
    self.message = message
    self.data = data
  }

  /// A Quire error as the client sees it: version mismatches are ContentModified, usage
  /// errors bad params, the rest RequestFailed; `data` names Quire's code and the file.
  init(_ error: QuireError, code: Int? = nil) {
    var data: [String: String] = ["quireCode": error.code.description]
    if let url = error.url { data["file"] = url.path }
    let chosen = code ?? (error.code == .invalidArgument ? Self.invalidParams : Self.requestFailed)
    self.init(chosen, error.reason, data: data)
  }
}

/// `quire rpc`'s session: reads requests, answers them in order of arrival, and sends the
/// notifications of the documents it has open.
@MainActor
final class RPCServer {
  private let session = DocumentSession(controller: DocumentController())
  private var encoding = PositionEncoding.utf16
  private var open: [String: OpenDocument] = [:]
  private var shutDown = false
  private let registry = TypeRegistry.shared
  /// The search indexes this session keeps current once it has searched (until it ends).
  private let keptSearchIndexes = KeptSearchIndexes()

  private final class OpenDocument {
    let uri: String
    let document: SessionDocument
    var subscription: SessionSubscription?
    init(uri: String, document: SessionDocument) {
      self.uri = uri
      self.document = document
    }
  }

  static let methods = [
    "initialize", "shutdown", "document/open", "document/close", "document/text", "document/lines", "document/edit", "document/undo",
    "document/redo", "document/save", "document/merge", "document/revert", "document/keep", "document/recover", "type/identify",
    "thumbnail/make", "preview/html", "search", "pasteboard/copy", "pasteboard/paste",
  ]
  static let notifications = ["document/didChange", "document/didConflict", "document/didMove", "document/didSave", "document/didDelete"]

  /// Runs until `exit`, the end of input, or SIGTERM/SIGINT; returns the exit status (1 for
  /// an `exit` without `shutdown`, as LSP).
  func run() async -> Int32 {
    let signals = AsyncStream<Int32>.makeStream()
    var sources: [any DispatchSourceSignal] = []
    for number in [SIGTERM, SIGINT, SIGHUP] {
      signal(number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
      source.setEventHandler { signals.continuation.yield(number) }
      source.resume()
      sources.append(source)
    }
    defer { for source in sources { source.cancel() } }
    let frames = RPCFrameReader.frames(from: .standardInput)
    // Input and signals through one stream, so a signal is heard while waiting for input.
    let (events, sink) = AsyncStream<RPCInput?>.makeStream()
    let reading = Task {
      for await frame in frames { sink.yield(frame) }
    }
    let signalling = Task {
      for await _ in signals.stream {
        sink.yield(nil)
        break
      }
    }
    defer {
      reading.cancel()
      signalling.cancel()
    }
    for await event in events {
      switch event {
      case nil, .end?:
        // Stopped, or the client went away: keep every unsaved change in recovery.
        await closeAll()
        return 0
      case .oversized(let length)?:
        send(
          error: RPCError(
            RPCError.invalidRequest, "The frame of \(length) bytes is over the \(RPCFrameReader.maximumBodySize >> 20) MiB limit; it was not read."),
          id: NSNull())
      case .badHeader(let why)?:
        send(
          error: RPCError(RPCError.parseError, "Not a frame: \(why). Send 'Content-Length: N', a blank line (\\r\\n\\r\\n), then N bytes of JSON."),
          id: NSNull())
      case .message(let body)?:
        if let status = await handle(body) {
          await closeAll()
          return status
        }
      }
    }
    await closeAll()
    return 0
  }

  private func closeAll() async {
    keptSearchIndexes.stopAll()
    for error in await session.closeAll() {
      FileHandle.standardError.write(Data("quire rpc: \(error.reason)\n".utf8))
    }
    open = [:]
  }

  /// Handles one message; returns an exit status when it was `exit`.
  private func handle(_ body: Data) async -> Int32? {
    let parsed: Any
    do { parsed = try JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]) } catch {
      send(error: RPCError(RPCError.parseError, "The frame's body is not JSON."), id: NSNull())
      return nil
    }
    guard let message = parsed as? [String: Any] else {
      send(error: RPCError(RPCError.invalidRequest, "A request is a JSON object (batches are not supported)."), id: NSNull())
      return nil
    }
    let id = message["id"]
    if let id, !(id is String || id is NSNumber || id is NSNull) {
      send(error: RPCError(RPCError.invalidRequest, "A request's id is a number, a string or null."), id: NSNull())
      return nil
    }
    guard message["jsonrpc"] as? String == "2.0", let method = message["method"] as? String else {
      send(error: RPCError(RPCError.invalidRequest, "A request has \"jsonrpc\": \"2.0\" and a \"method\" string."), id: id ?? NSNull())
      return nil
    }
    let params = message["params"] ?? [String: Any]()
    guard let params = params as? [String: Any] else {
      if let id { send(error: RPCError(RPCError.invalidParams, "'params' must be an object."), id: id) }
      return nil
    }
    if id == nil {
      // A notification: no answer, whatever happens.
      if method == "exit" { return shutDown ? 0 : 1 }
      return nil
    }
    do {
      let result = try await call(method, Params(params))
      send(result: result, id: id ?? NSNull())
    } catch let error as RPCError {
      send(error: error, id: id ?? NSNull())
    } catch let error as QuireError {
      send(error: RPCError(error), id: id ?? NSNull())
    } catch {
      send(error: RPCError(RPCError.internalError, "\(error)"), id: id ?? NSNull())
    }
    return nil
  }

  // MARK: Methods

  private func call(_ method: String, _ params: Params) async throws -> Any {
    switch method {
    case "initialize": return initialize(params)
    case "shutdown":
      await closeAll()
      shutDown = true
      return NSNull()
    case "document/open": return try await openDocument(params)
    case "document/close":
      let entry = try document(params)
      try await session.close(entry.document)
      entry.subscription?.cancel()
      open.removeValue(forKey: entry.uri)
      return NSNull()
    case "document/text":
      let entry = try document(params)
      return ["version": entry.document.version, "text": entry.document.text] as JSONObject
    case "document/lines":
      let entry = try document(params)
      let start = try params.int("start")
      let end = try params.int("end")
      guard start >= 0, end >= start else { throw RPCError(RPCError.invalidParams, "'start' and 'end' are lines from 0 with start ≤ end.") }
      return ["version": entry.document.version, "lines": entry.document.lines(in: start..<end)] as JSONObject
    case "document/edit": return try edit(params)
    case "document/undo":
      let entry = try document(params)
      return ["version": entry.document.undo(by: entry.subscription?.id)]
    case "document/redo":
      let entry = try document(params)
      return ["version": entry.document.redo(by: entry.subscription?.id)]
    case "document/save":
      let entry = try document(params)
      try await entry.document.save()
      return ["version": entry.document.version]
    case "document/merge", "document/revert", "document/keep":
      let entry = try document(params)
      guard entry.document.isInConflict else {
        throw RPCError(
          RPCError.requestFailed, "\(QuireError.name(entry.document.fileURL)) is not in conflict: there is nothing to \(method.dropFirst("document/".count)).",
          data: ["file": entry.document.fileURL.path])
      }
      let resolution: Document.ConflictResolution = method == "document/merge" ? .merge : method == "document/revert" ? .takeTheirs : .keepMine
      let outcome = try await entry.document.resolve(resolution, by: entry.subscription?.id)
      var result: JSONObject = ["version": entry.document.version]
      if method == "document/merge" { result["conflicts"] = outcome.mergeConflicts }
      return result
    case "document/recover":
      let entry = try document(params)
      try entry.document.recover(discarding: params.bool("discard") ?? false, by: entry.subscription?.id)
      return ["version": entry.document.version]
    case "type/identify": return try identify(params)
    case "thumbnail/make": return try thumbnail(params)
    case "preview/html":
      let path = try params.path("path")
      return ["html": try PreviewGenerator().preview(of: path, format: .html)]
    case "search": return try search(params)
    case "pasteboard/copy": return try copy(params)
    case "pasteboard/paste": return try await paste(params)
    default:
      throw RPCError(RPCError.methodNotFound, "There is no method '\(method)'. The methods are: \(Self.methods.joined(separator: ", ")).")
    }
  }

  private func initialize(_ params: Params) -> Any {
    // LSP 3.17: the client lists the encodings it takes, most wanted first; the first one
    // Quire has wins, else UTF-16.
    var offered: [String] = []
    if let capabilities = params.raw["capabilities"] as? [String: Any], let general = capabilities["general"] as? [String: Any],
      let encodings = general["positionEncodings"] as? [String]
    {
      offered = encodings
    }
    if let chosen = params.raw["positionEncoding"] as? String { offered.insert(chosen, at: 0) }
    encoding = offered.lazy.compactMap(PositionEncoding.init(rawValue:)).first ?? .utf16
    return [
      "serverInfo": ["name": "quire", "version": quireVersion],
      "capabilities": ["positionEncoding": encoding.rawValue, "methods": Self.methods, "notifications": Self.notifications] as JSONObject,
      "positionEncodings": PositionEncoding.allCases.map(\.rawValue),
      "positionEncoding": encoding.rawValue,
    ] as JSONObject
  }

  private func openDocument(_ params: Params) async throws -> Any {
    let url = URL(fileURLWithPath: try params.path("path").string).standardizedFileURL
    let document = try await session.open(url)
    let entry: OpenDocument
    if let existing = open.values.first(where: { $0.document === document }) {
      entry = existing
    } else {
      entry = OpenDocument(uri: url.absoluteString, document: document)
      entry.subscription = document.subscribe { [weak self, weak entry] event in
        guard let self, let entry else { return }
        self.notify(event, entry)
      }
      open[entry.uri] = entry
    }
    var result: [String: Any] = [
      "uri": entry.uri, "version": document.version, "lineCount": document.lineCount, "path": document.fileURL.path,
      "type": document.document.contentType?.identifier ?? NSNull(),
    ]
    if let recovered = document.recoveredVersion { result["recovered"] = ["date": recovered.date.formatted(.iso8601), "path": recovered.url.path] }
    return result
  }

  private func document(_ params: Params) throws -> OpenDocument {
    let uri = try params.string("uri")
    guard let entry = open[uri] else {
      throw RPCError(RPCError.invalidParams, "'\(uri)' is not open; open it with document/open first.")
    }
    return entry
  }

  private func edit(_ params: Params) throws -> Any {
    let entry = try document(params)
    let version = try params.int("version")
    guard let edits = params.raw["edits"] as? [[String: Any]] else {
      throw RPCError(RPCError.invalidParams, "'edits' is a list of {range: {start, end}, text}.")
    }
    var replacements: [TextReplacement] = []
    for edit in edits {
      let one = Params(edit)
      guard let range = edit["range"] as? [String: Any], let start = range["start"] as? [String: Any], let end = range["end"] as? [String: Any] else {
        throw RPCError(RPCError.invalidParams, "An edit has a 'range' with 'start' and 'end' positions.")
      }
      let text = try one.string("text")
      let from = try entry.document.utf8Offset(of: try Params(start).position(), in: encoding)
      let to = try entry.document.utf8Offset(of: try Params(end).position(), in: encoding)
      guard from <= to else { throw RPCError(RPCError.invalidParams, "An edit's range ends before it starts.") }
      replacements.append(TextReplacement(range: from..<to, text: text))
    }
    do {
      return ["version": try entry.document.edit(replacements, atVersion: version, by: entry.subscription?.id)]
    } catch let error as QuireError where error.code == .fileChangedOnDisk {
      var refusal = RPCError(error, code: RPCError.contentModified)
      refusal.version = entry.document.version
      throw refusal
    }
  }

  // MARK: Capabilities

  private func identify(_ params: Params) throws -> Any {
    let path = try params.path("path")
    let identification = try registry.identifyFile(at: path, options: IdentificationOptions(readsContent: true, followsSymbolicLinks: true))
    return try Self.object(FileReport(path: DisplayName.escaping(path), identification: identification, registry: registry))
  }

  private func thumbnail(_ params: Params) throws -> Any {
    let input = try params.path("path")
    let size = params.optionalInt("size") ?? 256
    guard (16...2048).contains(size) else { throw RPCError(RPCError.invalidParams, "'size' is 16…2048 pixels.") }
    let generator = ThumbnailGenerator()
    let type = try generator.contentType(of: input)
    let bitmap = try generator.generateBestRepresentation(for: ThumbnailRequest(filePath: input, contentType: type, maximumSize: size))
    let source = try ThumbnailCache.source(for: input)
    let png = try bitmap.pngData(text: ThumbnailOutput.textChunks(for: source, type: type, software: "Quire \(quireVersion)"))
    let output: FilePath
    if let given = params.raw["output"] as? String {
      output = QuireCommand.outputPath(given)
    } else {
      // Beside the session's other per-user files: $XDG_CACHE_HOME/quire/rpc (0700).
      let folder = XDGBaseDirectory.cacheHome.url().appendingPathComponent("quire/rpc", isDirectory: true)
      try StateFolder.prepare(folder)
      output = FilePath(folder.appendingPathComponent("thumbnail-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString.prefix(8)).png").path)
    }
    try ThumbnailOutput.write(png, to: output)
    return ["path": output.string, "width": bitmap.width, "height": bitmap.height] as JSONObject
  }

  private func search(_ params: Params) throws -> Any {
    let query = try params.string("query")
    let folder = params.raw["folder"] as? String ?? FileManager.default.currentDirectoryPath
    let browser = BrowserLocationOptions.makeBrowser(folders: [folder])
    let hits = try keptSearchIndexes.search(SearchQuery(query, limit: params.optionalInt("limit") ?? 50), in: browser)
    return ["hits": try JSONSerialization.jsonObject(with: Data(try BrowserJSON.encode(hits).utf8), options: [.fragmentsAllowed])]
  }

  private func copy(_ params: Params) throws -> Any {
    let board = try Pasteboard(name: params.raw["pasteboard"] as? String ?? Pasteboard.generalName)
    let provider: ItemProvider
    if let text = params.raw["text"] as? String {
      provider = TextTransfer.itemProvider(forText: text, documentType: .plainText, suggestedName: nil)
    } else {
      let path = try params.path("path")
      try InputFile.check(path, for: "copy")
      let type = path.extension.flatMap { UTType(filenameExtension: $0) } ?? .data
      provider = ItemProvider(suggestedName: path.stem)
      provider.registerFileRepresentation(for: type, filePath: path)
    }
    try board.setItemProviders([provider])
    return ["pasteboard": board.name]
  }

  private func paste(_ params: Params) async throws -> Any {
    let name = params.raw["pasteboard"] as? String ?? Pasteboard.generalName
    let board = try Pasteboard(name: name)
    let wanted = (params.raw["type"] as? String).flatMap(UTType.init) ?? .plainText
    let configuration = PasteConfiguration(acceptableTypes: [wanted])
    guard let pasted = try await configuration.loadBestRepresentations(from: try board.itemProviders).first else {
      throw RPCError(
        RPCError.requestFailed, "The pasteboard '\(name)' has no \(wanted.identifier).", data: ["quireCode": QuireError.Code.fileMissing.description])
    }
    var result: [String: Any] = ["type": pasted.typeIdentifier]
    if let text = String(data: pasted.data, encoding: .utf8) { result["text"] = text } else { result["base64"] = pasted.data.base64EncodedString() }
    return result
  }

  private static func object(_ value: some Encodable) throws -> Any {
    try JSONSerialization.jsonObject(with: try OutputJSON.encoder(pretty: false).encode(value), options: [.fragmentsAllowed])
  }

  // MARK: Notifications

  private func notify(_ event: SessionEvent, _ entry: OpenDocument) {
    switch event {
    case .changed(let version, let changes, let cause, let origin):
      // The client's own edits it already knows; everything else (undo, redo, a reload, a
      // merge, a recovery) it hears with the edits that make the new version.
      if cause == .edit && origin == entry.subscription?.id { return }
      let encoding = self.encoding
      let edits: [JSONObject] = changes.map { change -> JSONObject in
        [
          "range": ["start": Self.position(change.start, encoding), "end": Self.position(change.end, encoding)],
          "text": change.text,
        ]
      }
      send(notification: "document/didChange", ["uri": entry.uri, "version": version, "edits": edits, "cause": cause.rawValue])
    case .conflict:
      var params: [String: Any] = ["uri": entry.uri, "version": entry.document.version]
      if let theirs = entry.document.document.conflictVersion { params["theirs"] = String(decoding: theirs.contents, as: UTF8.self) }
      send(notification: "document/didConflict", params)
    case .moved(_, let to):
      send(notification: "document/didMove", ["uri": entry.uri, "path": to.path, "newUri": to.absoluteString])
    case .deleted:
      send(notification: "document/didDelete", ["uri": entry.uri])
    case .saved(let version):
      send(notification: "document/didSave", ["uri": entry.uri, "version": version])
    case .stateChanged, .closed:
      break
    }
  }

  private static func position(_ point: TextPoint, _ encoding: PositionEncoding) -> [String: Int] {
    let position = point.position(in: encoding)
    return ["line": position.line, "character": position.character]
  }

  // MARK: Output

  private func send(result: Any, id: Any) {
    write(["jsonrpc": "2.0", "id": id, "result": result])
  }

  private func send(error: RPCError, id: Any) {
    var body: [String: Any] = ["code": error.code, "message": error.message]
    var data: [String: Any] = error.data ?? [:]
    if let version = error.version { data["version"] = version }
    if !data.isEmpty { body["data"] = data }
    write(["jsonrpc": "2.0", "id": id, "error": body])
  }

  private func send(notification method: String, _ params: [String: Any]) {
    write(["jsonrpc": "2.0", "method": method, "params": params])
  }

  private func write(_ message: [String: Any]) {
    guard let body = try? JSONSerialization.data(withJSONObject: message, options: [.withoutEscapingSlashes]) else {
      FileHandle.standardError.write(Data("quire rpc: could not encode an answer\n".utf8))
      return
    }
    RPCFrameWriter.write(body)
  }
}

/// A request's parameters, with checked accessors that answer -32602 naming the parameter.
struct Params {
  let raw: [String: Any]
  init(_ raw: [String: Any]) { self.raw = raw }

  func string(_ name: String) throws -> String {
    guard let value = raw[name] as? String else { throw RPCError(RPCError.invalidParams, "'\(name)' is required: a string.") }
    return value
  }

  func int(_ name: String) throws -> Int {
    guard let value = optionalInt(name) else { throw RPCError(RPCError.invalidParams, "'\(name)' is required: a whole number.") }
    return value
  }

  func optionalInt(_ name: String) -> Int? {
    guard let number = raw[name] as? NSNumber else { return nil }
    let double = number.doubleValue
    guard double.rounded() == double, abs(double) < 1e15 else { return nil }
    return Int(double)
  }

  func bool(_ name: String) -> Bool? { raw[name] as? Bool }

  /// A file path, absolute or from the current folder; its bytes must be UTF-8 (JSON text).
  func path(_ name: String) throws -> FilePath {
    let value = try string(name)
    guard !value.isEmpty, !value.contains("\0") else { throw RPCError(RPCError.invalidParams, "'\(name)' is a file path (not empty, no NUL).") }
    let path = FilePath(value)
    return path.isAbsolute ? path.lexicallyNormalized() : FilePath(FileManager.default.currentDirectoryPath).pushing(path).lexicallyNormalized()
  }

  func position() throws -> TextPosition {
    TextPosition(line: try int("line"), character: try int("character"))
  }
}
