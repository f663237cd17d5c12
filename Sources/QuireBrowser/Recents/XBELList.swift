import Foundation
import QuireDocuments
import QuireSystem
import QuireTypes
import SystemPackage

/// `recently-used.xbel` as bytes: the bookmarks Quire reads, each kept as the exact bytes it
/// was read as (with what came before it: spaces, comments), so that a rewrite leaves every
/// other program's entries and data byte for byte as they were, bytes that are not UTF-8
/// included. Quire edits only the attributes and the `bookmark:application` element it owns
/// in its own entries, and writes new entries as GLib's `GBookmarkFile` does.
///
/// The file is read as XML by a streaming scan (``Scanner``): comments, CDATA sections,
/// processing instructions and the document type are skipped, so a `<bookmark>` inside a
/// comment is not one; elements are counted, so only the `xbel` root's `bookmark` children
/// are. Its size is not limited below 1 GiB.
struct XBELList {
  struct Bookmark {
    /// The element's bytes, `<bookmark …>` to `</bookmark>`.
    var bytes: [UInt8]
    /// What came before it since the previous element (spaces, line breaks, comments).
    var leading: [UInt8] = Array("\n  ".utf8)
    /// The bytes as text (bytes that are not UTF-8 read as U+FFFD): for reading attributes,
    /// and for editing Quire's own entries.
    var text: String {
      get { String(decoding: bytes, as: UTF8.self) }
      set { bytes = Array(newValue.utf8) }
    }
    init(text: String) { self.bytes = Array(text.utf8) }
    init(bytes: [UInt8], leading: [UInt8]) { (self.bytes, self.leading) = (bytes, leading) }
    var href: String { XBELList.attribute("href", in: openingTag) ?? "" }
    var added: Date? { XBELList.attribute("added", in: openingTag).flatMap(XBELList.date) }
    var modified: Date? { XBELList.attribute("modified", in: openingTag).flatMap(XBELList.date) }
    var visited: Date? { XBELList.attribute("visited", in: openingTag).flatMap(XBELList.date) }
    var mimeType: String? {
      let text = self.text
      guard let range = text.range(of: "<mime:mime-type") else { return nil }
      let tag = text[range.lowerBound...].prefix { $0 != ">" }
      return XBELList.attribute("type", in: tag)
    }
    var applications: [String] {
      var names: [String] = []
      let text = self.text
      var rest = text[...]
      while let range = rest.range(of: "<bookmark:application ") {
        let tag = rest[range.lowerBound...].prefix { $0 != ">" }
        if let name = XBELList.attribute("name", in: tag) { names.append(name) }
        rest = rest[range.upperBound...]
      }
      return names
    }
    var openingTag: Substring { Substring(String(decoding: bytes.prefix { $0 != UInt8(ascii: ">") }, as: UTF8.self)) }
  }

  /// Everything up to the end of the `<xbel …>` tag.
  var header: [UInt8]
  var bookmarks: [Bookmark]
  /// Everything after the last bookmark: what follows it inside `xbel` (spaces, comments,
  /// other elements), `</xbel>` and what comes after.
  var trailer: [UInt8]

  static let emptyHeader = Array(
    """
    <?xml version="1.0" encoding="UTF-8"?>
    <xbel version="1.0"
          xmlns:bookmark="http://www.freedesktop.org/standards/desktop-bookmarks"
          xmlns:mime="http://www.freedesktop.org/standards/shared-mime-info"
    >
    """.utf8)

  static var empty: XBELList { XBELList(header: emptyHeader, bookmarks: [], trailer: Array("\n</xbel>\n".utf8)) }

  /// The most of a list that is read (GLib has no limit; 1 GiB keeps a runaway file out).
  static let sizeLimit = 1 << 30

  /// Reads the list; a missing or empty file is an empty list.
  static func read(_ url: URL) throws -> XBELList {
    let data: Data
    do {
      data = try SearchIndex.readRegularFile(url, limit: sizeLimit)
    } catch {
      if case .failure(.noSuchFileOrDirectory) = SystemCalls.lstat(PathCarrier.filePath(url)) { return empty }
      throw QuireError(.permissionDenied, "Cannot read the recent documents list \(QuireError.name(url)).", url: url, cause: error)
    }
    if data.count > sizeLimit {
      throw QuireError(.limitExceeded, "The recent documents list \(QuireError.name(url)) is larger than 1 GiB; Quire leaves it alone.", url: url)
    }
    if data.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return empty }
    guard let list = parse(Array(data)) else {
      throw QuireError(
        .invalidContent,
        "The recent documents list \(QuireError.name(url)) is not an XBEL file; Quire leaves it alone. Move it away to start a new list.", url: url)
    }
    return list
  }

  /// The list in `bytes`, or `nil` when they are not an XBEL document (no `xbel` root, or
  /// unbalanced, unterminated markup).
  static func parse(_ bytes: [UInt8]) -> XBELList? {
    var scanner = Scanner(bytes: bytes)
    var depth = 0
    var headerEnd: Int? = nil
    var bookmarks: [Bookmark] = []
    var bookmarkStart: Int? = nil
    var afterLast = 0  // where the bytes after the last bookmark (or the header) begin
    while let token = scanner.next() {
      switch token {
      case .failure: return nil
      case .start(let name, let range, let selfClosing):
        if depth == 0 {
          guard name == "xbel", headerEnd == nil else { return nil }
          headerEnd = range.upperBound
          afterLast = range.upperBound
        } else if depth == 1, name == "bookmark" {
          if selfClosing {
            bookmarks.append(Bookmark(bytes: Array(bytes[range]), leading: Array(bytes[afterLast..<range.lowerBound])))
            afterLast = range.upperBound
          } else {
            bookmarkStart = range.lowerBound
          }
        }
        if !selfClosing { depth += 1 }
      case .end(let name, let range):
        depth -= 1
        if depth < 0 { return nil }
        if depth == 1, name == "bookmark", let start = bookmarkStart {
          bookmarks.append(Bookmark(bytes: Array(bytes[start..<range.upperBound]), leading: Array(bytes[afterLast..<start])))
          afterLast = range.upperBound
          bookmarkStart = nil
        }
        if depth == 0 {
          guard name == "xbel", let headerEnd else { return nil }
          return XBELList(header: Array(bytes[..<headerEnd]), bookmarks: bookmarks, trailer: Array(bytes[afterLast...]))
        }
      }
    }
    return nil
  }

  /// A streaming scan of XML markup: start and end tags with their byte ranges; comments,
  /// CDATA, processing instructions and declarations skipped; text skipped.
  struct Scanner {
    enum Token {
      case start(name: String, range: Range<Int>, selfClosing: Bool)
      case end(name: String, range: Range<Int>)
      case failure
    }

    let bytes: [UInt8]
    var index = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    private func starts(with prefix: String, at position: Int) -> Bool {
      let utf8 = Array(prefix.utf8)
      return position + utf8.count <= bytes.count && bytes[position..<position + utf8.count].elementsEqual(utf8)
    }

    private func find(_ needle: String, from position: Int) -> Int? {
      let utf8 = Array(needle.utf8)
      var at = position
      while at + utf8.count <= bytes.count {
        if bytes[at] == utf8[0], bytes[at..<at + utf8.count].elementsEqual(utf8) { return at }
        at += 1
      }
      return nil
    }

    private func name(at position: Int) -> String {
      var end = position
      while end < bytes.count, !" \t\r\n/>".utf8.contains(bytes[end]) { end += 1 }
      return String(decoding: bytes[position..<end], as: UTF8.self)
    }

    /// The end of a tag that starts at `position` (the index after its `>`), quotes respected.
    private func tagEnd(from position: Int) -> Int? {
      var quote: UInt8? = nil
      var at = position
      while at < bytes.count {
        let byte = bytes[at]
        if let open = quote {
          if byte == open { quote = nil }
        } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
          quote = byte
        } else if byte == UInt8(ascii: ">") {
          return at + 1
        } else if byte == UInt8(ascii: "<") {
          return nil
        }
        at += 1
      }
      return nil
    }

    mutating func next() -> Token? {
      while index < bytes.count {
        guard bytes[index] == UInt8(ascii: "<") else {
          index += 1
          continue
        }
        let start = index
        if starts(with: "<!--", at: start) {
          guard let close = find("-->", from: start + 4) else { return .failure }
          index = close + 3
        } else if starts(with: "<![CDATA[", at: start) {
          guard let close = find("]]>", from: start + 9) else { return .failure }
          index = close + 3
        } else if starts(with: "<?", at: start) {
          guard let close = find("?>", from: start + 2) else { return .failure }
          index = close + 2
        } else if starts(with: "<!", at: start) {
          // A declaration (DOCTYPE), with an internal subset in brackets.
          var at = start + 2
          var brackets = 0
          while at < bytes.count, !(bytes[at] == UInt8(ascii: ">") && brackets == 0) {
            if bytes[at] == UInt8(ascii: "[") { brackets += 1 }
            if bytes[at] == UInt8(ascii: "]") { brackets -= 1 }
            at += 1
          }
          guard at < bytes.count else { return .failure }
          index = at + 1
        } else if starts(with: "</", at: start) {
          guard let end = tagEnd(from: start + 2) else { return .failure }
          index = end
          return .end(name: name(at: start + 2), range: start..<end)
        } else {
          guard let end = tagEnd(from: start + 1) else { return .failure }
          index = end
          let name = name(at: start + 1)
          if name.isEmpty { return .failure }
          return .start(name: name, range: start..<end, selfClosing: bytes[end - 2] == UInt8(ascii: "/"))
        }
      }
      return nil
    }
  }

  /// The list's bytes: what was read, with Quire's changes.
  var bytes: [UInt8] {
    var out = header
    for bookmark in bookmarks { out += bookmark.leading + bookmark.bytes }
    out += trailer
    return out
  }

  func write(to url: URL) throws {
    try? FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    do {
      try FileSaver.write(Data(bytes), to: url, options: .privateState)
    } catch {
      throw QuireError(.systemCallFailed, "Cannot write the recent documents list \(QuireError.name(url)); it is as it was.", url: url, cause: error)
    }
  }

  // MARK: Editing

  /// Adds `href` or marks it used again by `application`.
  mutating func touch(href: String, mimeType: String, application: String, exec: String, now: Date) {
    let stamp = Self.stamp(now)
    guard let index = bookmarks.firstIndex(where: { $0.href == href }) else {
      bookmarks.append(
        Bookmark(
          text: """
            <bookmark href="\(Self.escape(href))" added="\(stamp)" modified="\(stamp)" visited="\(stamp)">
                <info>
                  <metadata owner="http://freedesktop.org">
                    <mime:mime-type type="\(Self.escape(mimeType))"/>
                    <bookmark:applications>
                      \(Self.applicationElement(application, exec: exec, stamp: stamp, count: 1))
                    </bookmark:applications>
                  </metadata>
                </info>
              </bookmark>
            """))
      return
    }
    var text = bookmarks[index].text
    if let tagEnd = text.firstIndex(of: ">"), tagEnd > text.startIndex, text[text.index(before: tagEnd)] == "/" {
      // A self-closing entry (another program's, without metadata) becomes an element that
      // holds the metadata Quire records.
      text =
        String(text[..<text.index(before: tagEnd)]).trimmingTrailingWhitespace() + """
          >
                <info>
                  <metadata owner="http://freedesktop.org">
                    <mime:mime-type type="\(Self.escape(mimeType))"/>
                    <bookmark:applications>
                    </bookmark:applications>
                  </metadata>
                </info>
              </bookmark>
          """
    }
    for name in ["modified", "visited"] { text = Self.setting(name, to: stamp, inOpeningTagOf: text) }
    let marker = "<bookmark:application name=\"\(Self.escape(application))\""
    if let range = text.range(of: marker), let close = text[range.lowerBound...].range(of: "/>") {
      let old = text[range.lowerBound..<close.upperBound]
      let count = (Self.attribute("count", in: old).flatMap { Int($0) } ?? 0) + 1
      let oldExec = Self.attribute("exec", in: old) ?? exec
      text.replaceSubrange(range.lowerBound..<close.upperBound, with: Self.applicationElement(application, exec: oldExec, stamp: stamp, count: count))
    } else if let close = text.range(of: "</bookmark:applications>") {
      text.insert(contentsOf: "  " + Self.applicationElement(application, exec: exec, stamp: stamp, count: 1) + "\n          ", at: close.lowerBound)
    }
    bookmarks[index].text = text
  }

  mutating func remove(href: String) {
    bookmarks.removeAll { $0.href == href }
  }

  mutating func rename(href: String, to newHref: String) {
    for index in bookmarks.indices where bookmarks[index].href == href {
      bookmarks[index].text = Self.setting("href", to: newHref, inOpeningTagOf: bookmarks[index].text)
      bookmarks[index].text = Self.setting("modified", to: Self.stamp(Date()), inOpeningTagOf: bookmarks[index].text)
    }
  }

  /// Drops the least recently visited entries beyond `count`.
  mutating func trim(to count: Int) {
    guard bookmarks.count > count else { return }
    // Each date is parsed once (a parse makes ISO 8601 formatters: parsing in the comparison
    // took seconds for 500 entries, on every REPL open).
    let visited = bookmarks.map { $0.visited ?? .distantPast }
    let keep = Set(bookmarks.indices.sorted { visited[$0] > visited[$1] }.prefix(count))
    bookmarks = bookmarks.indices.filter { keep.contains($0) }.map { bookmarks[$0] }
  }

  // MARK: Text

  static func applicationElement(_ name: String, exec: String, stamp: String, count: Int) -> String {
    "<bookmark:application name=\"\(escape(name))\" exec=\"\(escape(exec))\" modified=\"\(stamp)\" count=\"\(count)\"/>"
  }

  static func setting(_ name: String, to value: String, inOpeningTagOf text: String) -> String {
    var text = text
    guard var tagEnd = text.firstIndex(of: ">") else { return text }
    // In a self-closing tag the attribute goes before its "/".
    if tagEnd > text.startIndex, text[text.index(before: tagEnd)] == "/" { tagEnd = text.index(before: tagEnd) }
    let escaped = escape(value)
    if let range = text.range(of: " \(name)=\"", range: text.startIndex..<tagEnd), let close = text[range.upperBound..<tagEnd].firstIndex(of: "\"") {
      text.replaceSubrange(range.upperBound..<close, with: escaped)
    } else {
      text.insert(contentsOf: " \(name)=\"\(escaped)\"", at: tagEnd)
    }
    return text
  }

  static func attribute(_ name: String, in tag: Substring) -> String? {
    var rest = tag
    while let range = rest.range(of: "\(name)=\"") {
      let before = rest[..<range.lowerBound].last
      if before == nil || before!.isWhitespace {
        let value = rest[range.upperBound...].prefix { $0 != "\"" }
        return unescape(String(value))
      }
      rest = rest[range.upperBound...]
    }
    return nil
  }

  static func escape(_ text: String) -> String {
    text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
      .replacingOccurrences(of: "\"", with: "&quot;").replacingOccurrences(of: "'", with: "&apos;")
  }

  static func unescape(_ text: String) -> String {
    text.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&quot;", with: "\"")
      .replacingOccurrences(of: "&apos;", with: "'").replacingOccurrences(of: "&amp;", with: "&")
  }

  /// GLib's ISO 8601 form with microseconds, in UTC: `2026-11-24T13:11:31.123456Z`.
  static func stamp(_ date: Date) -> String {
    let seconds = date.timeIntervalSince1970.rounded(.down)
    let micro = Int(((date.timeIntervalSince1970 - seconds) * 1_000_000).rounded(.down))
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withFullDate, .withTime, .withColonSeparatorInTime, .withDashSeparatorInDate]
    formatter.timeZone = TimeZone(identifier: "UTC")
    return formatter.string(from: Date(timeIntervalSince1970: seconds)) + String(format: ".%06dZ", micro)
  }

  static func date(_ text: String) -> Date? {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    if let date = formatter.date(from: text) { return date }
    formatter.formatOptions = [.withInternetDateTime]
    if let date = formatter.date(from: text) { return date }
    // More than three fraction digits (GLib writes six): drop the fraction.
    if let dot = text.firstIndex(of: "."), let zone = text[dot...].firstIndex(where: { $0 == "Z" || $0 == "+" || $0 == "-" }) {
      let base = formatter.date(from: String(text[..<dot]) + String(text[zone...]))
      let fraction = Double("0" + text[dot..<zone]) ?? 0
      return base.map { $0.addingTimeInterval(fraction) }
    }
    return nil
  }
}

extension String {
  /// The string without the spaces, tabs and line ends it ends with.
  fileprivate func trimmingTrailingWhitespace() -> String {
    var end = endIndex
    while end > startIndex, self[index(before: end)].isWhitespace { end = index(before: end) }
    return String(self[..<end])
  }
}
