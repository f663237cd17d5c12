import ArgumentParser
import Foundation
import Quire

/// `assets`: the files of a TextBundle's `assets/` folder, and adding one with its reference.
struct AssetsWord: SessionCommand {
  static let configuration = CommandConfiguration(
    commandName: "assets",
    abstract: "List the TextBundle's assets; 'assets add FILE [NAME]' copies FILE into assets/ and puts its reference after the current line.")
  @Argument(help: "Nothing to list; 'add FILE [NAME]' to add a file.") var words: [String] = []

  /// The largest file `assets add` copies in (a bundle is held in memory while it is edited).
  static let maximumAssetSize = 256 << 20

  @MainActor func run(in session: REPLSession) async throws {
    let document = try session.requireDocument()
    guard let bundle = document.textBundle else {
      throw EdError("'\(document.displayName)' is not a TextBundle: assets belong to .textbundle and .textpack documents ('new NAME.textbundle' makes one)")
    }
    switch words.first {
    case nil:
      list(bundle, of: document, in: session)
    case "add" where (2...3).contains(words.count):
      try await add(URL(fileURLWithPath: words[1]), named: words.count == 3 ? words[2] : nil, to: bundle, of: document, in: session)
    default:
      throw EdError("write 'assets' to list them, or 'assets add FILE [NAME]'")
    }
  }

  @MainActor private func list(_ bundle: TextBundleDocument, of document: EdDocument, in session: REPLSession) {
    let names = bundle.assetNames
    if names.isEmpty { session.print("no assets in '\(document.displayName)'; 'assets add FILE' adds one") }
    let text = bundle.text
    for name in names {
      let size = bundle.asset(named: name)?.count ?? 0
      var line = "  assets/\(name)  \(size) bytes"
      if !text.contains("assets/\(name)") && !text.contains("assets/\(name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? name)") {
        line += "  (not referenced in the text)"
      }
      session.print(line)
    }
  }

  @MainActor private func add(_ url: URL, named name: String?, to bundle: TextBundleDocument, of document: EdDocument, in session: REPLSession) async throws {
    let name = name ?? url.lastPathComponent
    guard !name.isEmpty, name != ".", name != "..", !name.contains("/"), !name.contains("\0"), name.utf8.count <= 255 else {
      throw EdError("'\(name)' is not a file name for an asset: give a plain name such as photo.png")
    }
    let data = try Self.read(url)
    let line = document.currentLine
    var reference: TextBundle.AssetReference?
    // The document's own undoable step: the asset and its reference line, taken back by one u.
    try await document.buffer.editDocument(named: "add asset", cursor: line) { _ in reference = try bundle.addAsset(data, named: name, asLineAt: line) }
    document.currentLine = line + 1
    session.say("added 'assets/\(reference?.name ?? name)' (\(data.count) bytes) and its reference as line \(line + 1); u takes both back, w saves")
  }

  /// The bytes of the file to add, read by the document layer (a regular file only, never
  /// blocking on a FIFO or device), or an error naming it.
  static func read(_ url: URL) throws -> Data {
    let data: Data
    do {
      data = try FileFingerprint.read(at: url).contents
    } catch {
      throw EdError("cannot add \(QuireError.name(url)): \(REPLSession.message(for: error))", cause: error)
    }
    guard data.count <= maximumAssetSize else {
      throw EdError(
        "cannot add \(QuireError.name(url)): it is \(data.count >> 20) MB; assets of a TextBundle edited here are at most \(maximumAssetSize >> 20) MB")
    }
    return data
  }
}
