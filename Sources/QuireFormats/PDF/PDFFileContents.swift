internal import CPoppler
import Foundation
import QuireTypes

extension PDFFile {
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
    var pageWidth = 0.0
    var pageHeight = 0.0
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

  /// Renders page `index` (0-based) turned clockwise by `rotation` degrees (a multiple of 90,
  /// added to the page's own /Rotate), scaled to fit inside `width` × `height` pixels with its
  /// proportions kept and centred: the page is drawn on white, the margins left transparent.
  /// For PDFKit's `PDFPage.thumbnail(of:for:)`, whose image has the size asked for.
  /// - Throws: ``QuireError`` for a missing or damaged page, a page without area, or a size
  ///   cairo cannot allocate (each side 1 to 32767 pixels).
  package func render(page index: Int, rotation: Int, fittingIn width: Int, height: Int) throws -> Bitmap {
    let bitmap = try Bitmap(width: width, height: height, background: .clear)
    try withPageHandle(index) { page in
      var pageWidth = 0.0
      var pageHeight = 0.0
      poppler_page_get_size(page, &pageWidth, &pageHeight)
      guard pageWidth > 0, pageHeight > 0, pageWidth.isFinite, pageHeight.isFinite else {
        throw QuireError(.invalidContent, "Cannot render page \(index + 1) of \(QuireError.name(url)): the page has no area.", url: url)
      }
      let quarter = ((rotation / 90) % 4 + 4) % 4
      let (turnedWidth, turnedHeight) = quarter % 2 == 0 ? (pageWidth, pageHeight) : (pageHeight, pageWidth)
      let scale = min(Double(width) / turnedWidth, Double(height) / turnedHeight)
      let (drawnWidth, drawnHeight) = (turnedWidth * scale, turnedHeight * scale)
      bitmap.withContext { cr in
        cairo_translate(cr, (Double(width) - drawnWidth) / 2, (Double(height) - drawnHeight) / 2)
        cairo_rectangle(cr, 0, 0, drawnWidth, drawnHeight)
        cairo_set_source_rgb(cr, 1, 1, 1)
        cairo_fill(cr)
        cairo_scale(cr, scale, scale)
        // Turn the page about its corner so that it lands in the turned box's (0, 0).
        switch quarter {
        case 1: cairo_translate(cr, pageHeight, 0)
        case 2: cairo_translate(cr, pageWidth, pageHeight)
        case 3: cairo_translate(cr, 0, pageWidth)
        default: break
        }
        cairo_rotate(cr, Double(quarter) * Double.pi / 2)
        poppler_page_render(page, cr)
      }
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
