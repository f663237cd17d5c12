internal import CJPEG
internal import CPoppler
public import Foundation
import QuireTypes

extension Bitmap {
  /// The bitmap as a baseline JPEG (libjpeg-turbo), as UIKit's `jpegData(compressionQuality:)`
  /// makes one: `quality` from 0 (smallest) to 1 (best). JPEG has no alpha: transparent
  /// parts come out black, as in a JPEG UIKit writes of a transparent image.
  ///
  /// - Throws: ``QuireError`` (`.libraryFailure`) when libjpeg fails.
  public func jpegData(quality: Double) throws -> Data {
    cairo_surface_flush(surface)
    guard let pixels = cairo_image_surface_get_data(surface) else {
      throw QuireError(.libraryFailure, "cairo has no pixels for a \(width)×\(height) image.")
    }
    let level = Int32((min(max(quality.isNaN ? 0.75 : quality, 0), 1) * 99).rounded()) + 1
    var bytes: UnsafeMutablePointer<UInt8>?
    var count: UInt = 0
    let status = cjpeg_encode_argb32(pixels, Int32(width), Int32(height), cairo_image_surface_get_stride(surface), level, &bytes, &count)
    defer { free(bytes) }
    guard status == 0, let bytes else {
      throw QuireError(.libraryFailure, "libjpeg could not encode a \(width)×\(height) JPEG.")
    }
    return Data(bytes: bytes, count: Int(count))
  }
}
