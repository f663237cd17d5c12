import Foundation

/// The content rules (`magic`) of shared-mime-info, parsed from the generated binary
/// `magic` files, and a matcher that says which rule decided.
///
/// We match in Swift rather than through GIO's `g_content_type_guess`: GIO keeps one global
/// database per process (chosen by the environment at first use), so a registry built for
/// other data folders (tests, an app's private `mime` folder) could not sniff with its own
/// rules, and GIO does not tell which rule matched or its priority, which identification must
/// report. `bench-types` measures both on the corpus, beside `file`.
struct MagicDatabase: Sendable {
  struct Matchlet: Sendable {
    var indent: Int
    var offset: Int
    var rangeLength: Int
    var value: [UInt8]
    var mask: [UInt8]?
    /// Index of the next matchlet of the same section (or `matchlets.count`).
    var next: Int = 0
  }
  struct Section: Sendable {
    var priority: Int
    var mimeType: String
    var matchlets: [Matchlet]
    var order: Int
  }
  /// A successful match: the section and the top-level matchlet that matched.
  struct Match: Sendable {
    var priority: Int
    var mimeType: String
    var offset: Int
    var rangeLength: Int
    var value: [UInt8]
    var nested: Int
  }

  private(set) var sections: [Section] = []
  /// How many leading bytes any rule can look at.
  private(set) var maximumExtent = 0

  init(folders: [URL]) {
    var order = 0
    for folder in folders {
      guard let bytes = SharedMIMEDatabase.contents(of: folder.appendingPathComponent("magic")) else { continue }
      let parsed = Self.parse(bytes, order: &order)
      sections += parsed
    }
    sections.sort { $0.priority != $1.priority ? $0.priority > $1.priority : $0.order < $1.order }
    for section in sections {
      for matchlet in section.matchlets {
        maximumExtent = max(maximumExtent, matchlet.offset + matchlet.rangeLength + matchlet.value.count - 1)
      }
    }
  }

  /// Parses one `magic` file; a malformed section is skipped, the rest kept.
  static func parse(_ bytes: [UInt8], order: inout Int) -> [Section] {
    let header = Array("MIME-Magic\0\n".utf8)
    guard bytes.count >= header.count, Array(bytes[0..<header.count]) == header else { return [] }
    var index = header.count
    var sections: [Section] = []
    var current: Section?

    func number(_ index: inout Int) -> Int? {
      var value = 0
      var digits = 0
      while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39, digits < 10 {
        value = value * 10 + Int(bytes[index] - 0x30)
        index += 1
        digits += 1
      }
      return digits > 0 ? value : nil
    }
    func skipLine(_ index: inout Int) {
      while index < bytes.count, bytes[index] != 0x0A { index += 1 }
      index += 1
    }
    func finish() {
      if let section = current, !section.matchlets.isEmpty { sections.append(linked(section)) }
      current = nil
    }

    while index < bytes.count {
      if bytes[index] == UInt8(ascii: "[") {
        finish()
        index += 1
        guard let priority = number(&index), index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
          skipLine(&index)
          continue
        }
        index += 1
        let start = index
        while index < bytes.count, bytes[index] != UInt8(ascii: "]"), bytes[index] != 0x0A { index += 1 }
        guard index < bytes.count, bytes[index] == UInt8(ascii: "]") else {
          skipLine(&index)
          continue
        }
        let mime = String(decoding: bytes[start..<index], as: UTF8.self)
        current = Section(priority: priority, mimeType: mime, matchlets: [], order: order)
        order += 1
        skipLine(&index)
        continue
      }
      // [indent]>offset=LL value [&mask] [~word] [+range] \n
      let indent = number(&index) ?? 0
      guard index < bytes.count, bytes[index] == UInt8(ascii: ">") else {
        skipLine(&index)
        continue
      }
      index += 1
      guard let offset = number(&index), index + 2 < bytes.count, bytes[index] == UInt8(ascii: "=") else {
        skipLine(&index)
        continue
      }
      index += 1
      let length = Int(bytes[index]) << 8 | Int(bytes[index + 1])
      index += 2
      guard index + length <= bytes.count else { break }
      var value = Array(bytes[index..<index + length])
      index += length
      var mask: [UInt8]?
      if index < bytes.count, bytes[index] == UInt8(ascii: "&") {
        index += 1
        guard index + length <= bytes.count else { break }
        mask = Array(bytes[index..<index + length])
        index += length
      }
      var wordSize = 1
      if index < bytes.count, bytes[index] == UInt8(ascii: "~") {
        index += 1
        wordSize = number(&index) ?? 1
      }
      var range = 1
      if index < bytes.count, bytes[index] == UInt8(ascii: "+") {
        index += 1
        range = number(&index) ?? 1
      }
      guard index < bytes.count, bytes[index] == 0x0A else {
        // An unknown extension to the format: ignore this rule, as the spec asks.
        skipLine(&index)
        continue
      }
      index += 1
      swapWords(&value, &mask, wordSize: wordSize)
      current?.matchlets.append(Matchlet(indent: indent, offset: offset, rangeLength: max(1, range), value: value, mask: mask))
    }
    finish()
    return sections
  }

  /// `section` with each matchlet's `next`: the index of the first matchlet after it that is
  /// not nested below it.
  static func linked(_ section: Section) -> Section {
    var section = section
    for i in section.matchlets.indices {
      var j = i + 1
      while j < section.matchlets.count, section.matchlets[j].indent > section.matchlets[i].indent { j += 1 }
      section.matchlets[i].next = j
    }
    return section
  }

  /// Values with a word size are big-endian in the file: swaps them (and their mask) for this
  /// little-endian host.
  static func swapWords(_ value: inout [UInt8], _ mask: inout [UInt8]?, wordSize: Int) {
    let length = value.count
    guard wordSize == 2 || wordSize == 4, length % wordSize == 0 else { return }
    for start in stride(from: 0, to: length, by: wordSize) {
      value[start..<start + wordSize].reverse()
      mask?[start..<start + wordSize].reverse()
    }
  }

  /// The highest-priority rule that matches `data`, as xdgmime picks it.
  func match(_ data: UnsafeRawBufferPointer) -> Match? {
    let bytes = data.bindMemory(to: UInt8.self)
    for section in sections {
      if let (top, depth) = matchLevel(section.matchlets, from: 0, to: section.matchlets.count, indent: 0, bytes) {
        let m = section.matchlets[top]
        return Match(priority: section.priority, mimeType: section.mimeType, offset: m.offset, rangeLength: m.rangeLength, value: m.value, nested: depth)
      }
    }
    return nil
  }

  /// Matches the matchlets of `indent` between `from` and `to`; a matchlet matches when its
  /// bytes match and it has no children or one of its children matches.
  private func matchLevel(
    _ matchlets: [Matchlet], from: Int, to: Int, indent: Int, _ data: UnsafeBufferPointer<UInt8>
  ) -> (Int, Int)? {
    var i = from
    while i < to {
      let matchlet = matchlets[i]
      if matchlet.indent == indent, compare(matchlet, data) {
        if matchlet.next == i + 1 { return (i, 0) }
        if let (_, depth) = matchLevel(matchlets, from: i + 1, to: matchlet.next, indent: indent + 1, data) {
          return (i, depth + 1)
        }
      }
      i = matchlet.next
    }
    return nil
  }

  private func compare(_ matchlet: Matchlet, _ data: UnsafeBufferPointer<UInt8>) -> Bool {
    let count = matchlet.value.count
    guard count > 0 else { return false }
    return matchlet.value.withUnsafeBufferPointer { value in
      let last = matchlet.offset + matchlet.rangeLength
      var start = matchlet.offset
      if let mask = matchlet.mask {
        return mask.withUnsafeBufferPointer { mask in
          while start < last {
            if start + count > data.count { return false }
            var ok = true
            for j in 0..<count where (mask[j] & value[j]) != (data[start + j] & mask[j]) {
              ok = false
              break
            }
            if ok { return true }
            start += 1
          }
          return false
        }
      }
      let first = value[0]
      while start < last {
        if start + count > data.count { return false }
        if data[start] == first {
          var ok = true
          var j = 1
          while j < count {
            if value[j] != data[start + j] {
              ok = false
              break
            }
            j += 1
          }
          if ok { return true }
        }
        start += 1
      }
      return false
    }
  }
}
