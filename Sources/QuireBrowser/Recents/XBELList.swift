import Foundation
import QuireDocuments
import QuireSystem
import QuireTypes
import SystemPackage

/// `recently-used.xbel` as text: the bookmarks Quire reads, each kept as the exact text it was
/// read as, so that a rewrite leaves every other program's entries and data byte for byte as
/// they were. Quire edits only the attributes and the `bookmark:application` element it owns,
/// and writes new entries as GLib's `GBookmarkFile` does.
struct XBELList {
  struct Bookmark {
    var text: String
    var href: String { XBELList.attribute("href", in: openingTag) ?? "" }
    var added: Date? { XBELList.attribute("added", in: openingTag).flatMap(XBELList.date) }
    var modified: Date? { XBELList.attribute("modified", in: openingTag).flatMap(XBELList.date) }
    var visited: Date? { XBELList.attribute("visited", in: openingTag).flatMap(XBELList.date) }
    var mimeType: String? {
      guard let range = text.range(of: "<mime:mime-type") else { return nil }
      let tag = text[range.lowerBound...].prefix { $0 != ">" }
      return XBELList.attribute("type", in: tag)
    }
    var applications: [String] {
      var names: [String] = []
      var rest = text[...]
      while let range = rest.range(of: "<bookmark:application ") {
        let tag = rest[range.lowerBound...].prefix { $0 != ">" }
        if let name = XBELList.attribute("name", in: tag) { names.append(name) }
        rest = rest[range.upperBound...]
      }
      return names
    }
    var openingTag: Substring { text.prefix { $0 != ">" } }
  }

  var header: String
  var bookmarks: [Bookmark]
  var trailer: String

  static let emptyHeader = """
    <?xml version="1.0" encoding="UTF-8"?>
    <xbel version="1.0"
          xmlns:bookmark="http://www.freedesktop.org/standards/desktop-bookmarks"
          xmlns:mime="http://www.freedesktop.org/standards/shared-mime-info"
    >
    """

  /// Reads the list; a missing or empty file is an empty list.
  static func read(_ url: URL) throws -> XBELList {
    let data: Data
    do {
      data = try SearchIndex.readRegularFile(url)
    } catch {
      if case .failure(.noSuchFileOrDirectory) = SystemCalls.lstat(PathCarrier.filePath(url)) {
        return XBELList(header: emptyHeader, bookmarks: [], trailer: "</xbel>")
      }
      throw QuireError(.permissionDenied, "Cannot read the recent documents list \(QuireError.name(url)).", url: url, cause: error)
    }
    let text = String(decoding: data, as: UTF8.self)
    if text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
      return XBELList(header: emptyHeader, bookmarks: [], trailer: "</xbel>")
    }
    guard let xbel = text.range(of: "<xbel"), let end = text.range(of: "</xbel>", options: .backwards), xbel.upperBound <= end.lowerBound else {
      throw QuireError(
        .invalidContent,
        "The recent documents list \(QuireError.name(url)) is not an XBEL file; Quire leaves it alone. Move it away to start a new list.", url: url)
    }
    let headerEnd = text[xbel.upperBound...].firstIndex(of: ">").map { text.index(after: $0) } ?? xbel.upperBound
    var bookmarks: [Bookmark] = []
    var cursor = headerEnd
    while let start = nextBookmark(in: text, from: cursor, before: end.lowerBound) {
      guard let close = text.range(of: "</bookmark>", range: start..<end.lowerBound) else { break }
      bookmarks.append(Bookmark(text: String(text[start..<close.upperBound])))
      cursor = close.upperBound
    }
    return XBELList(header: String(text[..<headerEnd]), bookmarks: bookmarks, trailer: String(text[end.lowerBound...]))
  }

  /// The start of the next `<bookmark` element (not `<bookmark:…>`).
  private static func nextBookmark(in text: String, from: String.Index, before end: String.Index) -> String.Index? {
    var cursor = from
    while let range = text.range(of: "<bookmark", range: cursor..<end) {
      if range.upperBound < end, text[range.upperBound].isWhitespace { return range.lowerBound }
      cursor = range.upperBound
    }
    return nil
  }

  func write(to url: URL) throws {
    var text = header.trimmingTrailingWhitespace + "\n"
    for bookmark in bookmarks { text += "  " + bookmark.text + "\n" }
    text += trailer.trimmingCharacters(in: .whitespacesAndNewlines) + "\n"
    try? FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    do {
      try FileSaver.write(Data(text.utf8), to: url, options: .privateState)
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
    guard let tagEnd = text.firstIndex(of: ">") else { return text }
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
  var trimmingTrailingWhitespace: String {
    var text = self
    while let last = text.last, last.isWhitespace { text.removeLast() }
    return text
  }
}
