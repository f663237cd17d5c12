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
    // By the path's bytes: a name that is not UTF-8 is opened as it is.
    let pdf = try PDFFile(filePath: request.filePath)
    guard pdf.pageCount > 0 else {
      throw QuireError(
        .invalidContent, "Cannot draw \(QuireError.name(request.filePath)): the PDF has no pages.", url: pdf.url)
    }
    return try pdf.render(page: 0, longestSide: request.pixelSize)
  }
}
