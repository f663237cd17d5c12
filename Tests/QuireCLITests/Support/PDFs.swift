import Foundation
import Quire
import QuireTestSupport

/// A PDF in `folder` with one page per entry of `pages`, each showing that text.
func makePDF(_ name: String, pages: [String], in folder: TemporaryFolder) throws -> URL {
  let url = folder.file(name)
  let writer = try PDFWriter(url: url, width: 300, height: 400)
  for page in pages { try writer.addPage(markup: page) }
  try writer.finish()
  return url
}
