internal import CPoppler
public import Foundation
import QuireTypes

/// Writes a PDF with cairo's PDF surface: pages of text and an outline (bookmarks).
///
/// Used to make the sample documents and test fixtures, so the project ships no PDF it did
/// not make. Not `Sendable`: one task writes a PDF.
public final class PDFWriter {
  /// The only holder of the cairo PDF surface.
  private let surface: OpaquePointer
  private let url: URL
  private let pageWidth: Double
  private let pageHeight: Double
  private var pagesWritten = 0
  private var isFinished = false

  /// Starts a PDF at `url` with pages of `width` × `height` points (A4 by default).
  /// - Throws: ``QuireError`` naming `url` when cairo cannot create the file.
  public init(url: URL, width: Double = 595.28, height: Double = 841.89) throws {
    guard let surface = cairo_pdf_surface_create(url.path, width, height),
      cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS
    else {
      throw QuireError(
        .libraryFailure, "Cannot write \(QuireError.name(url)): cairo could not create a PDF there. Check that the folder exists and is writable.", url: url)
    }
    self.surface = surface
    self.url = url
    self.pageWidth = width
    self.pageHeight = height
  }

  deinit {
    if !isFinished { cairo_surface_finish(surface) }
    cairo_surface_destroy(surface)
  }

  /// Sets the document's title metadata.
  public func setTitle(_ title: String) {
    cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_TITLE, title)
  }

  /// Adds a page with Pango `markup` laid out inside `margin`-point margins.
  /// - Returns: The page's 1-based number, for outline entries.
  @discardableResult
  public func addPage(markup: String, style: TextStyle = TextStyle(), margin: Double = 56) throws -> Int {
    let cr = cairo_create(surface)!
    defer { cairo_destroy(cr) }
    cairo_set_source_rgb(cr, 1, 1, 1)
    cairo_paint(cr)
    _ = try TextLayout.draw(markup: markup, cairo: cr, x: margin, y: margin, width: pageWidth - 2 * margin, style: style)
    cairo_show_page(cr)
    pagesWritten += 1
    return pagesWritten
  }

  /// Adds an outline entry pointing at `page` (1-based) under `parent` (0 for the top level).
  /// - Returns: The entry's id, to use as a parent of nested entries.
  @discardableResult
  public func addOutlineEntry(_ title: String, page: Int, parent: Int = 0) -> Int {
    Int(cairo_pdf_surface_add_outline(surface, Int32(parent), title, "page=\(page)", CAIRO_PDF_OUTLINE_FLAG_OPEN))
  }

  /// Writes the file out. The writer cannot be used after.
  /// - Throws: ``QuireError`` when cairo reports an error (for example, the disk is full).
  public func finish() throws {
    guard !isFinished else { return }
    isFinished = true
    cairo_surface_finish(surface)
    let status = cairo_surface_status(surface)
    guard status == CAIRO_STATUS_SUCCESS else {
      throw QuireError(
        .libraryFailure, "Cannot write \(QuireError.name(url)): cairo failed with '\(String(cString: cairo_status_to_string(status)))'.", url: url)
    }
  }
}
