import Foundation
import QuireTypes

/// How item providers' representations become X11 selection targets, and targets become
/// representations: the type registry maps UTIs to MIME types and back, and a few X atoms
/// stand for text and files.
///
/// Pure values, so the mapping is tested without a display.
enum SelectionTargets {
  /// Where the bytes of an offered target come from.
  enum Source: Sendable, Equatable {
    /// The representation with this identifier, bytes as they are.
    case representation(String)
    /// The representation with this identifier (UTF-8 text), converted to Latin-1 (`STRING`).
    case latin1(String)
    /// Every item's `public.file-url`, one URI a line (`text/uri-list`, lines end in CR LF).
    case uriList
    /// An X answer made by the owner itself (`TARGETS`, `TIMESTAMP`, `MULTIPLE`, `SAVE_TARGETS`).
    case meta
  }

  /// One target an owner offers.
  struct Offered: Sendable, Equatable {
    let name: String
    /// The X type of the property holding the answer (`UTF8_STRING`, `STRING`, or the target).
    let type: String
    let source: Source
  }

  /// The targets every owner answers itself.
  static let metaTargets = ["TARGETS", "TIMESTAMP", "MULTIPLE", "SAVE_TARGETS"]
  static let utf8Text = "text/plain;charset=utf-8"

  /// The targets offered for `providers`: the first item's representations by MIME type in
  /// its order, then the text atoms (from its best plain text), `text/uri-list` (from every
  /// item's file URL), then the targets the owner answers itself. Representations visible
  /// to this process only are left out; so are types without a MIME type.
  static func offered(for providers: [ItemProvider]) -> [Offered] {
    var result: [Offered] = []
    var names: Set<String> = []
    func add(_ name: String, type: String? = nil, _ source: Source) {
      guard names.insert(name).inserted else { return }
      result.append(Offered(name: name, type: type ?? name, source: source))
    }
    guard let first = providers.first else { return [] }
    let visible = first.representations.filter { $0.visibility == .all }
    let fileURLs = providers.contains { provider in
      provider.representations.contains { $0.visibility == .all && $0.typeIdentifier == UTType.fileURL.identifier }
    }
    for representation in visible {
      if representation.typeIdentifier == UTType.fileURL.identifier || representation.typeIdentifier == UTType.url.identifier {
        continue  // offered as text/uri-list below
      }
      guard let mime = representation.contentType?.preferredMIMEType?.lowercased() else { continue }
      add(mime, .representation(representation.typeIdentifier))
    }
    // Text: the exact plain text when there is one (not the Markdown that conforms to it).
    let plainTypes = [UTType.utf8PlainText.identifier, UTType.plainText.identifier]
    let plain =
      visible.first { plainTypes.contains($0.typeIdentifier) }
      ?? visible.first { $0.contentType?.conforms(to: .plainText) == true }
    if let plain {
      add(utf8Text, .representation(plain.typeIdentifier))
      add("UTF8_STRING", .representation(plain.typeIdentifier))
      add("TEXT", type: "UTF8_STRING", .representation(plain.typeIdentifier))
      add("STRING", .latin1(plain.typeIdentifier))
      add("text/plain", .representation(plain.typeIdentifier))
    }
    if fileURLs { add("text/uri-list", .uriList) }
    for meta in metaTargets { add(meta, .meta) }
    return result
  }

  /// One representation of another program's selection: its type and the target it is read as.
  struct Readable: Sendable, Equatable {
    let typeIdentifier: String
    let target: String
    /// Whether the target's bytes are Latin-1 (`STRING`) and become UTF-8.
    let isLatin1: Bool
  }

  /// The representations another owner's `targets` give, in its order: MIME types through the
  /// registry (an unknown one becomes a `dyn.` type), `UTF8_STRING` and
  /// `text/plain;charset=utf-8` as UTF-8 plain text, `STRING` only when there is no UTF-8,
  /// `text/uri-list` as `public.file-url`. X atoms that are no data (`TARGETS`, `PIXMAP`, …)
  /// are left out; when two targets give one type, the first wins.
  static func readable(fromTargets targets: [String]) -> [Readable] {
    var result: [Readable] = []
    var seen: Set<String> = []
    let hasUTF8 = targets.contains { $0 == "UTF8_STRING" || $0.lowercased().replacingOccurrences(of: " ", with: "") == utf8Text }
    for target in targets {
      let lowered = target.lowercased().replacingOccurrences(of: " ", with: "")
      var identifier: String?
      var latin1 = false
      if target == "UTF8_STRING" || lowered == utf8Text {
        identifier = UTType.utf8PlainText.identifier
      } else if target == "STRING" {
        if !hasUTF8 {
          identifier = UTType.plainText.identifier
          latin1 = true
        }
      } else if lowered == "text/uri-list" {
        identifier = UTType.fileURL.identifier
      } else if lowered.contains("/"), !lowered.hasPrefix("/"), !lowered.hasSuffix("/") {
        // Parameters other than UTF-8 text (charset=utf-16, …) are another type altogether.
        identifier = UTType(mimeType: lowered.contains(";") ? target : lowered)?.identifier
      }
      guard let identifier, seen.insert(identifier).inserted else { continue }
      result.append(Readable(typeIdentifier: identifier, target: target, isLatin1: latin1))
    }
    return result
  }

  /// `text` as Latin-1, characters outside it as `?` (what `STRING` can carry).
  static func latin1(_ utf8: Data) -> Data {
    Data(String(decoding: utf8, as: UTF8.self).unicodeScalars.map { $0.value < 256 ? UInt8($0.value) : UInt8(ascii: "?") })
  }

  /// Latin-1 bytes as UTF-8.
  static func utf8(fromLatin1 data: Data) -> Data {
    Data(String(data.map { Character(Unicode.Scalar($0)) }).utf8)
  }

  /// The first URI of a `text/uri-list` (comments and blank lines skipped), as a file URL's bytes.
  static func firstURI(ofURIList data: Data) -> Data {
    let text = String(decoding: data, as: UTF8.self)
    let line = text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
      .map { $0.trimmingCharacters(in: .whitespaces) }
      .first { !$0.isEmpty && !$0.hasPrefix("#") }
    return Data((line ?? "").utf8)
  }
}
