public import Foundation
public import QuireFormats

/// Hand-written PDFs for tests that need what cairo's PDF surface cannot make (page rotation,
/// crop boxes, hostile structure). Offsets in the cross-reference table are computed, so
/// poppler reads them without repair.
public enum PDFFixtures {
  /// A one-page PDF whose page dictionary has `pageEntries` (e.g. "/Rotate 90") and whose
  /// content stream is `content`.
  public static func onePage(mediaBox: String = "[0 0 200 100]", pageEntries: String = "", content: String) -> Data {
    let objects = [
      "<< /Type /Catalog /Pages 2 0 R >>",
      "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
      "<< /Type /Page /Parent 2 0 R /MediaBox \(mediaBox) \(pageEntries) /Contents 4 0 R /Resources << >> >>",
      "<< /Length \(content.utf8.count) >>\nstream\n\(content)\nendstream",
    ]
    var out = "%PDF-1.4\n"
    var offsets: [Int] = []
    for (index, object) in objects.enumerated() {
      offsets.append(out.utf8.count)
      out += "\(index + 1) 0 obj\n\(object)\nendobj\n"
    }
    let xref = out.utf8.count
    out += "xref\n0 \(objects.count + 1)\n0000000000 65535 f \n"
    for offset in offsets { out += String(format: "%010d 00000 n \n", offset) }
    out += "trailer\n<< /Size \(objects.count + 1) /Root 1 0 R >>\nstartxref\n\(xref)\n%%EOF\n"
    return Data(out.utf8)
  }
}

/// Writes a PDF with cairo (``PDFWriter``) to `url`: one page for each entry of `pages` (Pango
/// markup), a title, and one outline entry for each entry of `outline` (the first names page 1,
/// the next page 2, …). `decorate` runs before the file is finished, for what else a test
/// needs (nested outline entries). Returns `url`.
@discardableResult
public func writePDF(
  to url: URL, pages: [String], width: Double = 595.28, height: Double = 841.89, title: String? = nil,
  outline: [String] = [], decorate: (PDFWriter) throws -> Void = { _ in }
) throws -> URL {
  let writer = try PDFWriter(url: url, width: width, height: height)
  if let title { writer.setTitle(title) }
  for page in pages { try writer.addPage(markup: page) }
  for (index, entry) in outline.enumerated() { writer.addOutlineEntry(entry, page: index + 1) }
  try decorate(writer)
  try writer.finish()
  return url
}
