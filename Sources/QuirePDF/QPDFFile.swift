internal import CQPDF
import Foundation
import QuireTypes

/// One PDF opened with libqpdf's C API, for reading page dictionaries and writing page edits.
///
/// libqpdf (the library behind qpdf and used by pdftk's successors) rewrites a PDF
/// object-for-object: whatever a page operation does not touch (fonts, images, links, forms,
/// outline, metadata, encryption) is written as it was, and nothing is re-rendered. The
/// handle is owned by one ``PDFDocument`` and used by one task at a time.
final class QPDFFile {
  /// The only holder of the `qpdf_data`.
  private var raw: qpdf_data?
  /// The file as the user knows it, for messages (qpdf may read a private snapshot of it).
  let url: URL
  /// The file qpdf reads (a private snapshot), which its messages name.
  private let path: String

  /// Opens `path` (a snapshot of `url`); qpdf parses lazily, so this reads little more than
  /// the trailer and the cross-reference table.
  init(path: String, url: URL, password: String?) throws {
    guard let handle = qpdf_init() else {
      throw QuireError(.libraryFailure, "Cannot open \(QuireError.name(url)) with libqpdf: it could not start.", url: url)
    }
    raw = handle
    self.url = url
    self.path = path
    // Errors and warnings come back through qpdf_get_error, not stderr.
    qpdf_silence_errors(handle)
    qpdf_set_suppress_warnings(handle, 1)
    let status = qpdf_read(handle, path, password)
    if status & 2 != 0 {  // QPDF_ERRORS
      let detail = lastError() ?? "unknown error"
      throw QuireError(
        .invalidContent,
        "Cannot open \(QuireError.name(url)) for page edits: libqpdf could not read it (\(detail)). The file may be damaged or need a password.",
        url: url)
    }
    // A file qpdf had to repair (a broken cross-reference table) warns; an incremental update
    // appended to it would point into the damage, so such a file is rewritten whole.
    wasRepaired = qpdf_more_warnings(handle) != 0
  }

  /// Whether qpdf warned while reading the file (it repaired something).
  private(set) var wasRepaired = false

  deinit {
    if raw != nil { qpdf_cleanup(&raw) }
  }

  var handle: qpdf_data { raw! }  // set in init, cleared only in deinit

  /// The last error's text, clearing it.
  func lastError() -> String? {
    guard qpdf_has_error(handle) != 0, let error = qpdf_get_error(handle),
      let text = qpdf_get_error_full_text(handle, error)
    else { return nil }
    // qpdf names the private snapshot it read; the user knows the file.
    return String(cString: text).replacingOccurrences(of: path, with: url.lastPathComponent)
  }

  func check(_ step: String) throws {
    if let detail = lastError() {
      throw QuireError(.libraryFailure, "Cannot edit the pages of \(QuireError.name(url)): libqpdf failed while \(step) (\(detail)).", url: url)
    }
  }

  var isEncrypted: Bool { qpdf_is_encrypted(handle) != 0 }
  var allowsAssembly: Bool { qpdf_allow_modify_assembly(handle) != 0 }

  var pageCount: Int { max(0, Int(qpdf_get_num_pages(handle))) }

  /// The `/Rotate` of page `index`, inherited from the page tree when the page has none,
  /// normalised to 0, 90, 180 or 270.
  func rotation(ofPage index: Int) throws -> Int {
    guard index >= 0, index < pageCount else { return 0 }
    let page = qpdf_get_page_n(handle, index)
    try check("reading page \(index + 1)")
    var node = page
    for _ in 0..<64 {  // /Parent chains of a hostile file are bounded
      let rotate = qpdf_oh_get_key(handle, node, "/Rotate")
      if qpdf_oh_is_integer(handle, rotate) != 0 {
        return Self.normalized(Int(qpdf_oh_get_int_value(handle, rotate)))
      }
      let parent = qpdf_oh_get_key(handle, node, "/Parent")
      guard qpdf_oh_is_dictionary(handle, parent) != 0 else { break }
      node = parent
    }
    return 0
  }

  static func normalized(_ degrees: Int) -> Int { ((degrees % 360) + 360) % 360 / 90 * 90 }

  /// Lays out the pages of this file as `pages` says and writes the result to `path`.
  ///
  /// - Parameter pages: For each page of the result, the file it comes from (`self` or a
  ///   file to copy it from), its 0-based index there and the rotation to add.
  /// - Parameter info: Entries of the document information dictionary to set (`/Title`,
  ///   `/Author`, …, with their values as text); the other entries stay as they were.
  /// The passwords a written copy is encrypted with (AES-256, revision 6, everything allowed).
  struct Encryption: Equatable {
    var userPassword: String
    var ownerPassword: String
  }

  func write(
    pages: [(file: QPDFFile, index: Int, addedRotation: Int)], info: [String: String] = [:], outline: [PDFOutlineShape]? = nil,
    encryption: Encryption? = nil, to path: String
  ) throws {
    // Inherited attributes (/Rotate, /MediaBox, /Resources on /Pages) move onto each page,
    // so a page keeps them wherever it goes.
    for file in Set(pages.map { ObjectIdentifier($0.file) }).compactMap({ id in pages.first { ObjectIdentifier($0.file) == id }?.file }) {
      _ = qpdf_push_inherited_attributes_to_page(file.handle)
      try file.check("preparing the pages")
    }
    let ownCount = pageCount
    let identity = pages.count == ownCount && pages.enumerated().allSatisfy { $0.element.file === self && $0.element.index == $0.offset }
    if !identity {
      let ownPages = (0..<ownCount).map { qpdf_get_page_n(handle, $0) }
      let sourcePages = pages.map { qpdf_get_page_n($0.file.handle, $0.index) }
      try check("reading the pages")
      for page in ownPages {
        _ = qpdf_remove_page(handle, page)
      }
      try check("removing the pages")
      // Pages of this file keep their objects (so outline entries and links to them still
      // apply); pages of other files are copied in with what they use.
      for (entry, page) in zip(pages, sourcePages) {
        _ = qpdf_add_page(handle, entry.file.handle, page, 0)
      }
      try check("adding the pages")
      // A removed page must not stay in the file through an outline entry, link or named
      // destination that still refers to it (its content would be kept, unseen): like
      // `qpdf --pages`, replace the page object with null, so those references dangle
      // harmlessly and the page is not written.
      let kept = Set(pages.filter { $0.file === self }.map(\.index))
      for (index, page) in ownPages.enumerated() where !kept.contains(index) {
        let id = qpdf_oh_get_object_id(handle, page)
        let generation = qpdf_oh_get_generation(handle, page)
        if id > 0 { qpdf_replace_object(handle, id, generation, qpdf_oh_new_null(handle)) }
      }
      try check("dropping the removed pages")
    }
    for (index, entry) in pages.enumerated() where Self.normalized(entry.addedRotation) != 0 {
      let page = qpdf_get_page_n(handle, index)
      let current = qpdf_oh_get_key(handle, page, "/Rotate")
      let base = qpdf_oh_is_integer(handle, current) != 0 ? Int(qpdf_oh_get_int_value(handle, current)) : 0
      let value = qpdf_oh_new_integer(handle, Int64(Self.normalized(base + entry.addedRotation)))
      qpdf_oh_replace_key(handle, page, "/Rotate", value)
      try check("rotating page \(index + 1)")
    }
    if !info.isEmpty {
      let trailer = qpdf_get_trailer(handle)
      var dictionary = qpdf_oh_get_key(handle, trailer, "/Info")
      if qpdf_oh_is_dictionary(handle, dictionary) == 0 {
        dictionary = qpdf_make_indirect_object(handle, qpdf_oh_parse(handle, "<< >>"))
        qpdf_oh_replace_key(handle, trailer, "/Info", dictionary)
      }
      for (key, value) in info.sorted(by: { $0.key < $1.key }) {
        qpdf_oh_replace_key(handle, dictionary, "/" + key, qpdf_oh_new_unicode_string(handle, value))
      }
      try check("setting the document information")
    }
    if let outline {
      let root = qpdf_get_root(handle)
      if outline.isEmpty {
        qpdf_oh_remove_key(handle, root, "/Outlines")
      } else {
        let outlines = qpdf_make_indirect_object(handle, qpdf_oh_parse(handle, "<< /Type /Outlines >>"))
        let visible = writeOutline(outline, under: outlines, pageCount: pages.count)
        qpdf_oh_replace_key(handle, outlines, "/Count", qpdf_oh_new_integer(handle, Int64(visible)))
        qpdf_oh_replace_key(handle, root, "/Outlines", outlines)
      }
      try check("writing the outline")
    }
    var status = qpdf_init_write(handle, path)
    if status & 2 == 0 {
      // Streams are copied exactly as they were: no filter decoded and re-encoded, no
      // uncompressed stream compressed (write parameters follow qpdf_init_write).
      qpdf_set_decode_level(handle, qpdf_dl_none)
      qpdf_set_compress_streams(handle, 0)
      if let encryption {
        qpdf_set_r6_encryption_parameters2(
          handle, encryption.userPassword, encryption.ownerPassword, 1, 1, 1, 1, 1, 1, qpdf_r3p_full, 1)
      }
      status = qpdf_write(handle)
    }
    if status & 2 != 0 {
      let detail = lastError() ?? "unknown error"
      throw QuireError(.libraryFailure, "Cannot write the pages of \(QuireError.name(url)): libqpdf failed (\(detail)).", url: url)
    }
  }
}

extension QPDFFile {
  /// A destination array (PDF 32000 12.3.2.2): `target` (a page, or a page number in another
  /// file) at `point` (x, y in its page space: `/XYZ x y null`), or the whole page (`/Fit`).
  func destination(to target: qpdf_oh, at point: [Double]?) -> qpdf_oh {
    let destination = qpdf_oh_new_array(handle)
    qpdf_oh_append_item(handle, destination, target)
    if let point, point.count == 2 {
      qpdf_oh_append_item(handle, destination, qpdf_oh_new_name(handle, "/XYZ"))
      for value in point { qpdf_oh_append_item(handle, destination, qpdf_oh_new_real_from_double(handle, value, 2)) }
      qpdf_oh_append_item(handle, destination, qpdf_oh_new_null(handle))
    } else {
      qpdf_oh_append_item(handle, destination, qpdf_oh_new_name(handle, "/Fit"))
    }
    return destination
  }

  /// Writes `entries` as the children of the outline item (or outline dictionary) `parent`:
  /// titles, links between siblings, destinations (`/XYZ` at a point, else `/Fit`, on pages of
  /// the written order) and counts. Returns how many entries show when `parent` is open (the
  /// entries, and below each open one its own).
  private func writeOutline(_ entries: [PDFOutlineShape], under parent: qpdf_oh, pageCount: Int) -> Int {
    guard !entries.isEmpty else { return 0 }
    let items = entries.map { _ in qpdf_make_indirect_object(handle, qpdf_oh_new_dictionary(handle)) }
    var visible = 0
    for (position, (entry, item)) in zip(entries, items).enumerated() {
      qpdf_oh_replace_key(handle, item, "/Title", qpdf_oh_new_unicode_string(handle, entry.label))
      qpdf_oh_replace_key(handle, item, "/Parent", parent)
      if position > 0 { qpdf_oh_replace_key(handle, item, "/Prev", items[position - 1]) }
      if position < items.count - 1 { qpdf_oh_replace_key(handle, item, "/Next", items[position + 1]) }
      if let page = entry.pageIndex, page < pageCount {
        qpdf_oh_replace_key(handle, item, "/Dest", destination(to: qpdf_get_page_n(handle, page), at: entry.point))
      }
      let below = writeOutline(entry.children, under: item, pageCount: pageCount)
      if !entry.children.isEmpty { qpdf_oh_replace_key(handle, item, "/Count", qpdf_oh_new_integer(handle, Int64(entry.isOpen ? below : -below))) }
      visible += 1 + (entry.isOpen ? below : 0)
    }
    qpdf_oh_replace_key(handle, parent, "/First", items[0])
    qpdf_oh_replace_key(handle, parent, "/Last", items[items.count - 1])
    return visible
  }
}

@available(*, unavailable)
extension QPDFFile: Sendable {}
