public import Foundation
import QuireTypes
internal import CPoppler

/// A PDF's document information, as poppler reads it from the Info dictionary and XMP.
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
  public var pageCount: Int
}

/// One entry of a PDF's outline (its bookmarks).
public struct PDFOutlineItem: Sendable, Hashable, Codable {
  public var title: String
  /// The 1-based page the entry points to, when it points into this document.
  public var page: Int?
  public var children: [PDFOutlineItem]
  public init(title: String, page: Int?, children: [PDFOutlineItem] = []) {
    self.title = title
    self.page = page
    self.children = children
  }
}

extension PDFFile {
  /// The document information: title, author, dates, producer, version, page count.
  public var metadata: PDFMetadata {
    func string(_ raw: UnsafeMutablePointer<gchar>?) -> String? {
      guard let raw else { return nil }
      defer { cpoppler_free(raw) }
      let text = String(cString: raw)
      return text.isEmpty ? nil : text
    }
    func date(_ value: time_t) -> Date? { value <= 0 ? nil : Date(timeIntervalSince1970: TimeInterval(value)) }
    return withDocument { document in
      PDFMetadata(
        title: string(poppler_document_get_title(document)),
        author: string(poppler_document_get_author(document)),
        subject: string(poppler_document_get_subject(document)),
        keywords: string(poppler_document_get_keywords(document)),
        creator: string(poppler_document_get_creator(document)),
        producer: string(poppler_document_get_producer(document)),
        creationDate: date(poppler_document_get_creation_date(document)),
        modificationDate: date(poppler_document_get_modification_date(document)),
        version: string(poppler_document_get_pdf_version_string(document)),
        pageCount: Int(poppler_document_get_n_pages(document)))
    }
  }

  /// The outline (bookmarks), empty when the PDF has none.
  ///
  /// Hostile outlines are bounded: at most `maximumItems` entries and 64 levels, so a cycle
  /// or a huge outline ends the walk instead of hanging it.
  public func outline(maximumItems: Int = 10_000) -> [PDFOutlineItem] {
    withDocument { document in
      guard let root = poppler_index_iter_new(document) else { return [] }
      defer { poppler_index_iter_free(root) }
      var budget = maximumItems
      return Self.walk(root, document: document, depth: 0, budget: &budget)
    }
  }

  private static func walk(_ iterator: OpaquePointer, document: OpaquePointer, depth: Int, budget: inout Int) -> [PDFOutlineItem] {
    var items: [PDFOutlineItem] = []
    repeat {
      guard budget > 0 else { break }
      budget -= 1
      var item = PDFOutlineItem(title: "", page: nil)
      if let action = poppler_index_iter_get_action(iterator) {
        if let title = action.pointee.any.title { item.title = String(cString: title) }
        if action.pointee.type == POPPLER_ACTION_GOTO_DEST, let dest = action.pointee.goto_dest.dest {
          if dest.pointee.type == POPPLER_DEST_NAMED, let name = dest.pointee.named_dest,
            let found = poppler_document_find_dest(document, name)
          {
            item.page = found.pointee.page_num > 0 ? Int(found.pointee.page_num) : nil
            poppler_dest_free(found)
          } else if dest.pointee.page_num > 0 {
            item.page = Int(dest.pointee.page_num)
          }
        }
        poppler_action_free(action)
      }
      if depth < 64, let child = poppler_index_iter_get_child(iterator) {
        item.children = walk(child, document: document, depth: depth + 1, budget: &budget)
        poppler_index_iter_free(child)
      }
      items.append(item)
    } while poppler_index_iter_next(iterator) != 0
    return items
  }

  /// Renders page `index` (0-based) straight into a `width` × `height` pixel bitmap on white.
  ///
  /// The page (crop box, with its /Rotate applied, as poppler displays it) is scaled to fill
  /// the bitmap exactly; poppler draws at that scale, so nothing is rendered large and shrunk.
  /// - Throws: ``QuireError`` for a missing page or a size cairo cannot allocate.
  public func render(page index: Int, width: Int, height: Int) throws -> Bitmap {
    try withPageHandle(index) { page in try draw(page, index: index) { _, _ in (width, height) } }
  }

  /// Renders page `index` so that its longer side is exactly `longestSide` pixels.
  public func render(page index: Int, longestSide: Int) throws -> Bitmap {
    try withPageHandle(index) { page in
      try draw(page, index: index) { w, h in Self.fit(width: w, height: h, longestSide: longestSide) }
    }
  }

  /// Measures `page` (one poppler page lookup for size and drawing), asks `size` for the
  /// pixel size, and draws the page scaled to fill it on white.
  private func draw(_ page: OpaquePointer, index: Int, size: (Double, Double) -> (width: Int, height: Int)) throws -> Bitmap {
    var pageWidth = 0.0, pageHeight = 0.0
    poppler_page_get_size(page, &pageWidth, &pageHeight)
    guard pageWidth > 0, pageHeight > 0, pageWidth.isFinite, pageHeight.isFinite else {
      throw QuireError(.invalidContent, "Cannot render page \(index + 1) of \(QuireError.name(url)): the page has no area.", url: url)
    }
    let (width, height) = size(pageWidth, pageHeight)
    let bitmap = try Bitmap(width: width, height: height, background: .white)
    bitmap.withContext { cr in
      cairo_scale(cr, Double(width) / pageWidth, Double(height) / pageHeight)
      poppler_page_render(page, cr)
    }
    return bitmap
  }

  /// The pixel size of a `width` × `height` box scaled so its longer side is `longestSide`.
  public static func fit(width: Double, height: Double, longestSide: Int) -> (width: Int, height: Int) {
    let side = max(1, longestSide)
    if width >= height {
      return (side, min(side, max(1, Int((height * Double(side) / width).rounded()))))
    }
    return (min(side, max(1, Int((width * Double(side) / height).rounded()))), side)
  }
}
