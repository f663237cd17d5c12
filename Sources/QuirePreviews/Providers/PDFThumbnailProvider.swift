import Foundation
public import QuireFormats
import QuireTypes

/// Draws page 1 of a PDF through poppler-glib, straight at the target size on white.
///
/// The page's crop box and /Rotate are honoured (poppler displays the page that way). PDFs
/// that are encrypted but open without a password work; ones that need a password fail with
/// `.passwordRequired`.
public struct PDFThumbnailProvider: ThumbnailProvider {
  public init() {}

  public func makeThumbnail(for request: ThumbnailRequest) throws -> Bitmap {
    guard request.nameFitsURL else {
      // poppler is given the file through its URL, which cannot hold such a name.
      throw QuireError(
        .unsupportedType,
        "Cannot draw \(QuireError.name(request.filePath)): PDFs whose names are not UTF-8 cannot be opened yet. Rename it to UTF-8.")
    }
    let pdf = try PDFFile(contentsOf: request.fileURL)
    guard pdf.pageCount > 0 else {
      throw QuireError(
        .invalidContent, "Cannot draw \(QuireError.name(request.fileURL)): the PDF has no pages.", url: request.fileURL)
    }
    return try pdf.render(page: 0, longestSide: request.pixelSize)
  }
}
