import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The freedesktop shared-mime-info database of one machine, read from the files that
/// `update-mime-database` generates in each `$XDG_DATA_DIRS/mime` folder: `types`,
/// `aliases`, `subclasses`, `globs2` and (lazily, see ``MagicDatabase``) `magic`.
///
/// We read the generated files rather than `packages/*.xml`: they hold the same facts
/// already merged across packages, need no XML parser, and load in about a millisecond
/// (`bench-types` measures both).
struct SharedMIMEDatabase: Sendable {
  /// Canonical MIME types, in the order of the `types` files.
  var types: [String] = []
  /// The same, as a set.
  var typeSet: Set<String> = []
  /// Alias → canonical MIME type.
  var aliases: [String: String] = [:]
  /// MIME type → direct parents (`sub-class-of`).
  var parents: [String: [String]] = [:]
  /// Every glob, for matching file names.
  var globs = GlobTable()
  /// The `mime` folders read, most important first.
  var folders: [URL] = []

  /// The `mime` folders under `dataDirectories` that exist.
  static func mimeFolders(in dataDirectories: [URL]) -> [URL] {
    dataDirectories.map { $0.appendingPathComponent("mime", isDirectory: true) }
      .filter {
        FileManager.default.fileExists(atPath: $0.appendingPathComponent("types").path)
          || FileManager.default.fileExists(atPath: $0.appendingPathComponent("globs2").path)
      }
  }

  /// Loads the database from `folders`, most important first. Missing or unreadable
  /// files count as empty.
  init(folders: [URL]) {
    self.folders = folders
    var seen: Set<String> = []
    var globbedTypes: Set<String> = []
    var order = 0
    for folder in folders {
      for line in Self.lines(of: folder.appendingPathComponent("types")) where !line.isEmpty {
        let type = String(line)
        if seen.insert(type).inserted { types.append(type) }
      }
      for line in Self.lines(of: folder.appendingPathComponent("aliases")) {
        let parts = Self.fields(line, " ")
        guard parts.count == 2 else { continue }
        if aliases[String(parts[0])] == nil { aliases[String(parts[0])] = String(parts[1]) }
      }
      for line in Self.lines(of: folder.appendingPathComponent("subclasses")) {
        let parts = Self.fields(line, " ")
        guard parts.count == 2 else { continue }
        let child = String(parts[0])
        let parent = String(parts[1])
        if !(parents[child]?.contains(parent) ?? false) { parents[child, default: []].append(parent) }
      }
      // A type's globs come from the most important folder that has any (spec: "globs").
      var globbedHere: Set<String> = []
      for line in Self.lines(of: folder.appendingPathComponent("globs2")) where line.utf8.first != UInt8(ascii: "#") {
        let fields = Self.fields(line, ":", maxSplits: 3)
        guard fields.count >= 3, let weight = Int(fields[0]) else { continue }
        let type = String(fields[1])
        let pattern = String(fields[2])
        if globbedTypes.contains(type) { continue }
        globbedHere.insert(type)
        if pattern == "__NOGLOBS__" { continue }
        let flags = fields.count > 3 ? Self.fields(fields[3], ",") : []
        globs.add(Glob(weight: weight, mimeType: type, pattern: pattern, caseSensitive: flags.contains("cs"), order: order))
        order += 1
        if !seen.contains(type) {
          seen.insert(type)
          types.append(type)
        }
      }
      globbedTypes.formUnion(globbedHere)
    }
    typeSet = seen
  }

  /// The canonical name of `mimeType` (resolving aliases), lower-cased.
  func canonical(_ mimeType: String) -> String {
    let lower = mimeType.asciiLowercased()
    return aliases[lower] ?? lower
  }

  /// Whether `type` is `ancestor` or inherits from it, with the spec's implicit rules:
  /// every `text/*` is a `text/plain`, every non-`inode/` type an `application/octet-stream`.
  func isSubclass(_ type: String, of ancestor: String) -> Bool {
    let type = canonical(type)
    let ancestor = canonical(ancestor)
    if type == ancestor { return true }
    if ancestor == "text/plain" && type.hasPrefix("text/") { return true }
    if ancestor == "application/octet-stream" && !type.hasPrefix("inode/") { return true }
    var stack = parents[type] ?? []
    var seen: Set<String> = []
    while let next = stack.popLast() {
      let next = canonical(next)
      if next == ancestor { return true }
      if seen.insert(next).inserted { stack.append(contentsOf: parents[next] ?? []) }
    }
    return false
  }

  /// The `<comment>` of `mimeType` from its generated `MEDIA/SUBTYPE.xml` file.
  func comment(for mimeType: String) -> String? {
    for folder in folders {
      let url = folder.appendingPathComponent(mimeType + ".xml")
      guard let bytes = Self.contents(of: url), let text = String(validating: bytes, as: UTF8.self) else { continue }
      guard let start = text.range(of: "<comment>"), let end = text.range(of: "</comment>", range: start.upperBound..<text.endIndex)
      else { continue }
      return String(text[start.upperBound..<end.lowerBound])
        .replacingOccurrences(of: "&amp;", with: "&").replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
    }
    return nil
  }

  /// The lines of a file, split on bytes (the generated files are ASCII; splitting by
  /// `Character` costs several milliseconds at startup).
  static func lines(of url: URL) -> [Substring] {
    guard let bytes = contents(of: url) else { return [] }
    let text = String(decoding: bytes, as: UTF8.self)
    return text.utf8.split(separator: 0x0A).map { Substring($0) }
  }

  /// A database file's bytes, through the one input opener (a regular file, read to its end,
  /// at most 64 MiB; Foundation's `Data(contentsOf:)` leaked its buffer for empty files).
  static func contents(of url: URL) -> [UInt8]? {
    try? InputFile.read(url, for: "read", limit: 64 << 20)
  }

  /// `line` split on an ASCII separator, by bytes.
  static func fields(_ line: Substring, _ separator: Unicode.Scalar, maxSplits: Int = .max) -> [Substring] {
    line.utf8.split(separator: UInt8(separator.value), maxSplits: maxSplits, omittingEmptySubsequences: false).map { Substring($0) }
  }
}

/// One `globs2` line.
struct Glob: Sendable, Hashable {
  var weight: Int
  var mimeType: String
  var pattern: String
  var caseSensitive: Bool
  /// Position in the files, to keep ties stable.
  var order: Int

  /// For `*.ext` globs, the extension they stand for.
  var filenameExtension: String? {
    guard pattern.hasPrefix("*."), !GlobTable.hasWildcards(pattern.dropFirst()) else { return nil }
    let ext = String(pattern.dropFirst(2))
    return ext.isEmpty ? nil : ext
  }
}

/// Globs arranged the way xdgmime looks them up: literal names first, then the longest
/// matching `*suffix`, then full `fnmatch(3)` patterns; results sorted by weight.
struct GlobTable: Sendable {
  private var literal: [String: [Glob]] = [:]
  private var literalFolded: [String: [Glob]] = [:]
  private var suffix: [String: [Glob]] = [:]
  private var suffixCaseSensitive: [String: [Glob]] = [:]
  private var longestSuffix = 0
  private var full: [Glob] = []
  private(set) var all: [Glob] = []

  static func hasWildcards<S: StringProtocol>(_ text: S) -> Bool {
    text.utf8.contains { $0 == 0x2A || $0 == 0x3F || $0 == 0x5B }
  }

  mutating func add(_ glob: Glob) {
    all.append(glob)
    let pattern = glob.pattern
    if !Self.hasWildcards(pattern) {
      if glob.caseSensitive { literal[pattern, default: []].append(glob) } else { literalFolded[pattern.asciiLowercased(), default: []].append(glob) }
    } else if pattern.hasPrefix("*"), !Self.hasWildcards(pattern.dropFirst()) {
      let key = String(pattern.dropFirst())
      if glob.caseSensitive { suffixCaseSensitive[key, default: []].append(glob) } else { suffix[key.asciiLowercased(), default: []].append(glob) }
      longestSuffix = max(longestSuffix, key.utf8.count)
    } else {
      full.append(glob)
    }
  }

  /// The globs that match `name` (a file name without folders), best first.
  func match(_ name: String) -> [Glob] {
    if let hits = literal[name] { return hits }
    let folded = name.asciiLowercased()
    if let hits = literalFolded[folded] { return hits }
    var hits = longestSuffixMatch(folded, in: suffix)
    if hits.count < 2 { hits += longestSuffixMatch(name, in: suffixCaseSensitive) }
    if hits.count < 2 {
      for glob in full where fnmatch(glob.pattern, glob.caseSensitive ? name : folded, 0) == 0 {
        hits.append(glob)
      }
    }
    if hits.count > 1 {
      hits.sort { $0.weight != $1.weight ? $0.weight > $1.weight : $0.order < $1.order }
    }
    return hits
  }

  private func longestSuffixMatch(_ name: String, in table: [String: [Glob]]) -> [Glob] {
    guard !table.isEmpty else { return [] }
    let utf8 = Array(name.utf8)
    let start = max(0, utf8.count - longestSuffix)
    for index in start..<utf8.count {
      // Keys are whole characters; a cut inside a UTF-8 sequence matches nothing.
      if utf8[index] & 0xC0 == 0x80 { continue }
      let key = String(decoding: utf8[index...], as: UTF8.self)
      if let hits = table[key] { return hits }
    }
    return []
  }
}

extension StringProtocol {
  /// Lower-cased the fast way when the text is ASCII (MIME types, globs and most names),
  /// the Unicode way otherwise. xdgmime folds ASCII only, too.
  func asciiLowercased() -> String {
    // Most MIME types, globs and identifiers are lower-case already: no new buffer then.
    if !utf8.contains(where: { ($0 >= 0x41 && $0 <= 0x5A) || $0 >= 0x80 }) { return String(self) }
    var bytes = [UInt8]()
    bytes.reserveCapacity(utf8.count)
    for byte in utf8 {
      if byte >= 0x80 { return lowercased() }
      bytes.append(byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte)
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}
