internal import CPoppler
public import Foundation
import QuireTypes

/// A PDF's document information: the Info dictionary (and XMP) as poppler reads it.
public struct PDFMetadata: Sendable, Hashable, Codable {
  public var title: String?
  public var author: String?
  public var subject: String?
  public var keywords: String?
  public var creator: String?
  public var producer: String?
  public var creationDate: Date?
  public var modificationDate: Date?
  /// The PDF version, e.g. "PDF-1.7".
  public var version: String?
  /// The number of pages.
  public var pageCount: Int = 0
  public init() {}
}

/// What the PDF's security handler allows, as poppler reports it (all allowed when the PDF
/// is not encrypted, or was opened with the owner password).
public struct PDFPermissions: OptionSet, Sendable, Hashable {
  public let rawValue: Int
  public init(rawValue: Int) { self.rawValue = rawValue }
  public static let print = PDFPermissions(rawValue: 1 << 0)
  public static let modify = PDFPermissions(rawValue: 1 << 1)
  public static let copy = PDFPermissions(rawValue: 1 << 2)
  public static let addNotes = PDFPermissions(rawValue: 1 << 3)
  public static let fillForm = PDFPermissions(rawValue: 1 << 4)
  public static let extractContents = PDFPermissions(rawValue: 1 << 5)
  public static let assemble = PDFPermissions(rawValue: 1 << 6)
  public static let printHighResolution = PDFPermissions(rawValue: 1 << 7)
  public static let all: PDFPermissions = [.print, .modify, .copy, .addNotes, .fillForm, .extractContents, .assemble, .printHighResolution]
}

/// One entry of a PDF's outline (bookmarks), with its children.
public struct PDFOutlineItem: Sendable, Hashable, Codable {
  /// The entry's title.
  public var label: String
  /// The 0-based page it goes to, when it goes to a page of this PDF.
  public var pageIndex: Int?
  /// Whether the entry is shown expanded.
  public var isOpen: Bool
  /// The nested entries.
  public var children: [PDFOutlineItem]
  public init(label: String, pageIndex: Int?, isOpen: Bool = false, children: [PDFOutlineItem] = []) {
    self.label = label
    self.pageIndex = pageIndex
    self.isOpen = isOpen
    self.children = children
  }
}

/// A rectangle on a page, in points, origin at the top left of the page as displayed.
public struct PDFRect: Sendable, Equatable {
  public var x: Double, y: Double, width: Double, height: Double

  /// A rectangle at `x`, `y` (points from the top left of the page) of `width` × `height`.
  public init(x: Double, y: Double, width: Double, height: Double) {
    self.x = x
    self.y = y
    self.width = width
    self.height = height
  }
}

extension PDFFile {
  /// The document information: title, author, subject, keywords, creator, producer, dates, version.
  public var metadata: PDFMetadata {
    func string(_ raw: UnsafeMutablePointer<gchar>?) -> String? {
      guard let raw else { return nil }
      defer { cpoppler_free(raw) }
      let value = String(cString: raw)
      return value.isEmpty ? nil : value
    }
    func date(_ raw: OpaquePointer?) -> Date? {
      guard let raw else { return nil }
      defer { g_date_time_unref(raw) }
      return Date(timeIntervalSince1970: Double(g_date_time_to_unix(raw)))
    }
    var metadata = PDFMetadata()
    metadata.title = string(poppler_document_get_title(document))
    metadata.author = string(poppler_document_get_author(document))
    metadata.subject = string(poppler_document_get_subject(document))
    metadata.keywords = string(poppler_document_get_keywords(document))
    metadata.creator = string(poppler_document_get_creator(document))
    metadata.producer = string(poppler_document_get_producer(document))
    metadata.creationDate = date(poppler_document_get_creation_date_time(document))
    metadata.modificationDate = date(poppler_document_get_modification_date_time(document))
    metadata.version = string(poppler_document_get_pdf_version_string(document))
    metadata.pageCount = pageCount
    return metadata
  }

  /// What the document's security handler allows.
  public var permissions: PDFPermissions {
    let raw = poppler_document_get_permissions(document).rawValue
    var result: PDFPermissions = []
    let pairs: [(PopplerPermissions, PDFPermissions)] = [
      (POPPLER_PERMISSIONS_OK_TO_PRINT, .print), (POPPLER_PERMISSIONS_OK_TO_MODIFY, .modify),
      (POPPLER_PERMISSIONS_OK_TO_COPY, .copy), (POPPLER_PERMISSIONS_OK_TO_ADD_NOTES, .addNotes),
      (POPPLER_PERMISSIONS_OK_TO_FILL_FORM, .fillForm),
      (POPPLER_PERMISSIONS_OK_TO_EXTRACT_CONTENTS, .extractContents),
      (POPPLER_PERMISSIONS_OK_TO_ASSEMBLE, .assemble),
      (POPPLER_PERMISSIONS_OK_TO_PRINT_HIGH_RESOLUTION, .printHighResolution),
    ]
    for (flag, permission) in pairs where raw & flag.rawValue != 0 { result.insert(permission) }
    return result
  }

  /// The page's crop box before rotation, in points (`poppler_page_get_crop_box`).
  public func cropBox(ofPage index: Int) throws -> PDFRect {
    try withPage(index) { page in
      var rect = PopplerRectangle()
      poppler_page_get_crop_box(page, &rect)
      return PDFRect(x: rect.x1, y: rect.y1, width: rect.x2 - rect.x1, height: rect.y2 - rect.y1)
    }
  }

  /// Where `text` occurs on page `index` (0-based), as rectangles in points from the top left.
  /// - Parameter caseSensitive: Whether case must match (poppler ignores it by default).
  public func find(_ text: String, onPage index: Int, caseSensitive: Bool = false) throws -> [PDFRect] {
    guard !text.isEmpty else { return [] }
    return try withPage(index) { page in
      var height = 0.0
      var width = 0.0
      poppler_page_get_size(page, &width, &height)
      let flags = caseSensitive ? POPPLER_FIND_CASE_SENSITIVE : POPPLER_FIND_DEFAULT
      guard let list = poppler_page_find_text_with_options(page, text, flags) else { return [] }
      // Each rectangle comes from poppler_rectangle_new and goes back with poppler_rectangle_free.
      defer { g_list_free_full(list) { poppler_rectangle_free($0?.assumingMemoryBound(to: PopplerRectangle.self)) } }
      var rects: [PDFRect] = []
      var node: UnsafeMutablePointer<GList>? = list
      while let current = node {
        if let data = current.pointee.data {
          let rect = data.assumingMemoryBound(to: PopplerRectangle.self).pointee
          // poppler gives PDF coordinates (origin bottom left); flip to the displayed page.
          rects.append(PDFRect(x: rect.x1, y: height - rect.y2, width: rect.x2 - rect.x1, height: rect.y2 - rect.y1))
        }
        node = current.pointee.next
      }
      return rects
    }
  }

  /// The areas of page `index`'s lines of text, in points from the top left of the page,
  /// top to bottom as poppler lays the text out (poppler's text layout: one rectangle per
  /// Unicode scalar, united per line).
  public func lineRects(ofPage index: Int) throws -> [PDFRect] {
    try withTextLayout(ofPage: index) { text, rectangles in
      var lines: [PDFRect] = []
      var current: (x1: Double, y1: Double, x2: Double, y2: Double)?
      // poppler gives one rectangle per Unicode scalar (a combining mark has its own).
      for (position, scalar) in zip(rectangles.indices, text.unicodeScalars) {
        let isBreak = Self.isLineBreak(scalar)
        let rect = rectangles[position]
        if !isBreak {
          current =
            current.map { (min($0.x1, rect.x1), min($0.y1, rect.y1), max($0.x2, rect.x2), max($0.y2, rect.y2)) }
            ?? (rect.x1, rect.y1, rect.x2, rect.y2)
        }
        if isBreak, let line = current {
          lines.append(PDFRect(x: line.x1, y: line.y1, width: line.x2 - line.x1, height: line.y2 - line.y1))
          current = nil
        }
      }
      if let line = current { lines.append(PDFRect(x: line.x1, y: line.y1, width: line.x2 - line.x1, height: line.y2 - line.y1)) }
      return lines
    } ?? []
  }

  /// Page `index`'s text (as ``text(ofPage:)`` gives it) and, for each of its Unicode
  /// scalars in order, the area poppler lays it out in, in points from the top left of the
  /// page. When poppler gives fewer areas than scalars (a page it could not lay out), the
  /// scalars without one have an empty area at the origin.
  public func characterLayout(ofPage index: Int) throws -> (text: String, areas: [PDFRect]) {
    try withTextLayout(ofPage: index) { text, rectangles in
      let count = text.unicodeScalars.count
      var areas = rectangles.prefix(count).map { PDFRect(x: $0.x1, y: $0.y1, width: $0.x2 - $0.x1, height: $0.y2 - $0.y1) }
      areas += repeatElement(PDFRect(x: 0, y: 0, width: 0, height: 0), count: count - areas.count)
      return (text, areas)
    } ?? ("", [])
  }

  /// The words of page `index` with their areas, in points from the top left of the page,
  /// in poppler's reading order (its text layout: one rectangle per Unicode scalar, united per
  /// word). At most 100,000 words.
  public func wordRects(ofPage index: Int) throws -> [(word: String, rect: PDFRect)] {
    try withTextLayout(ofPage: index) { pageText, rectangles in
      var words: [(String, PDFRect)] = []
      var text = String.UnicodeScalarView()
      var current: (x1: Double, y1: Double, x2: Double, y2: Double)?
      // poppler gives one rectangle per Unicode scalar (a combining mark has its own).
      for (position, scalar) in zip(rectangles.indices, pageText.unicodeScalars) where words.count < 100_000 {
        let rect = rectangles[position]
        if scalar.properties.isWhitespace {
          if let word = current, !text.isEmpty {
            words.append((String(text), PDFRect(x: word.x1, y: word.y1, width: word.x2 - word.x1, height: word.y2 - word.y1)))
          }
          (text, current) = (String.UnicodeScalarView(), nil)
          continue
        }
        text.append(scalar)
        current =
          current.map { (min($0.x1, rect.x1), min($0.y1, rect.y1), max($0.x2, rect.x2), max($0.y2, rect.y2)) } ?? (rect.x1, rect.y1, rect.x2, rect.y2)
      }
      if let word = current, !text.isEmpty, words.count < 100_000 {
        words.append((String(text), PDFRect(x: word.x1, y: word.y1, width: word.x2 - word.x1, height: word.y2 - word.y1)))
      }
      return words
    } ?? []
  }

  /// Whether `scalar` ends a line of a page's text (as `Character.isNewline` counts them).
  private static func isLineBreak(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x0A...0x0D, 0x85, 0x2028, 0x2029: true
    default: false
    }
  }

  /// Runs `body` on page `index`'s text and poppler's text layout (one rectangle per
  /// Unicode scalar, in the same order; none when poppler cannot lay the page out); nil when the
  /// page has no text.
  private func withTextLayout<T>(
    ofPage index: Int, _ body: (String, UnsafeBufferPointer<PopplerRectangle>) -> T
  ) throws -> T? {
    try withPage(index) { page in
      guard let raw = poppler_page_get_text(page) else { return nil }
      defer { cpoppler_free(raw) }
      let text = String(cString: raw)
      var rectangles: UnsafeMutablePointer<PopplerRectangle>?
      var count: guint = 0
      guard poppler_page_get_text_layout(page, &rectangles, &count) != 0, let rectangles else { return body(text, UnsafeBufferPointer(start: nil, count: 0)) }
      defer { cpoppler_free(rectangles) }
      return body(text, UnsafeBufferPointer(start: rectangles, count: Int(count)))
    }
  }

  /// The outline (bookmarks) as a tree; empty when the PDF has none.
  ///
  /// Depth and entry count are bounded (64 levels, 100,000 entries) so a hostile outline
  /// with cycles or millions of entries cannot hang the caller.
  public var outline: [PDFOutlineItem] {
    guard let iterator = poppler_index_iter_new(document) else { return [] }
    defer { poppler_index_iter_free(iterator) }
    var budget = 100_000
    return outlineItems(iterator, depth: 0, budget: &budget)
  }

  private func outlineItems(_ iterator: OpaquePointer, depth: Int, budget: inout Int) -> [PDFOutlineItem] {
    var items: [PDFOutlineItem] = []
    repeat {
      guard budget > 0 else { break }
      budget -= 1
      var item = PDFOutlineItem(label: "", pageIndex: nil, isOpen: poppler_index_iter_is_open(iterator) != 0)
      if let action = poppler_index_iter_get_action(iterator) {
        if action.pointee.type == POPPLER_ACTION_GOTO_DEST {
          let goto = action.pointee.goto_dest
          if let title = goto.title { item.label = String(cString: title) }
          if let dest = goto.dest { item.pageIndex = pageIndex(of: dest) }
        } else if let title = action.pointee.any.title {
          item.label = String(cString: title)
        }
        poppler_action_free(action)
      }
      if depth < 64, let child = poppler_index_iter_get_child(iterator) {
        item.children = outlineItems(child, depth: depth + 1, budget: &budget)
        poppler_index_iter_free(child)
      }
      items.append(item)
    } while poppler_index_iter_next(iterator) != 0
    return items
  }

  private func pageIndex(of dest: UnsafeMutablePointer<PopplerDest>) -> Int? {
    if dest.pointee.type == POPPLER_DEST_NAMED {
      guard let name = dest.pointee.named_dest, let found = poppler_document_find_dest(document, name) else { return nil }
      defer { poppler_dest_free(found) }
      return found.pointee.page_num > 0 ? Int(found.pointee.page_num) - 1 : nil
    }
    return dest.pointee.page_num > 0 ? Int(dest.pointee.page_num) - 1 : nil
  }
}
