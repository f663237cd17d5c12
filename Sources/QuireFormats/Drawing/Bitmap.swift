internal import CPoppler
public import Foundation
import QuireTypes

/// An ARGB image in memory, drawn by cairo: what renderers produce and PNG encoders take.
///
/// A `Bitmap` is the only owner of its cairo image surface. It is not `Sendable`: use it
/// from one task at a time, and hand ``pngData()`` (plain bytes) across tasks instead.
public final class Bitmap {
  /// The only holder of the cairo surface pointer.
  let surface: OpaquePointer
  /// Width in pixels.
  public let width: Int
  /// Height in pixels.
  public let height: Int

  /// Makes a bitmap of `width` × `height` pixels filled with `background`.
  /// - Throws: ``QuireError`` for sizes outside 1…32767 or when cairo cannot allocate.
  public init(width: Int, height: Int, background: Color = .white) throws {
    guard (1...32767).contains(width), (1...32767).contains(height) else {
      throw QuireError(.invalidArgument, "Cannot make a \(width)×\(height) image: each side must be 1 to 32767 pixels.")
    }
    guard let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(width), Int32(height)),
      cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS
    else {
      throw QuireError(.libraryFailure, "cairo could not allocate a \(width)×\(height) image.")
    }
    self.surface = surface
    self.width = width
    self.height = height
    withContext { cr in
      cairo_set_source_rgba(cr, background.red, background.green, background.blue, background.alpha)
      cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE)
      cairo_paint(cr)
    }
  }

  /// Takes ownership of a cairo image surface that is known to be valid.
  init(adopting surface: OpaquePointer) {
    self.surface = surface
    self.width = Int(cairo_image_surface_get_width(surface))
    self.height = Int(cairo_image_surface_get_height(surface))
  }

  deinit { cairo_surface_destroy(surface) }

  /// Runs `body` with a fresh cairo context on this bitmap; the context is destroyed after.
  func withContext<R>(_ body: (OpaquePointer) throws -> R) rethrows -> R {
    let cr = cairo_create(surface)!
    defer { cairo_destroy(cr) }
    return try body(cr)
  }

  /// The pixel at (`x`, `y`) as straight (not premultiplied) RGBA, each 0…255.
  public func pixel(x: Int, y: Int) -> (red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8) {
    precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel outside the bitmap")
    cairo_surface_flush(surface)
    let stride = Int(cairo_image_surface_get_stride(surface))
    let base = cairo_image_surface_get_data(surface)!
    let word = (base + y * stride + x * 4).withMemoryRebound(to: UInt32.self, capacity: 1) { $0.pointee }
    let opaqueFormat = cairo_image_surface_get_format(surface) == CAIRO_FORMAT_RGB24
    let a = opaqueFormat ? 255 : UInt8(word >> 24)
    let r = UInt8((word >> 16) & 0xff)
    let g = UInt8((word >> 8) & 0xff)
    let b = UInt8(word & 0xff)
    guard a != 0 else { return (0, 0, 0, 0) }
    func straight(_ c: UInt8) -> UInt8 { UInt8(min(255, Int(c) * 255 / Int(a))) }
    return (straight(r), straight(g), straight(b), a)
  }

  /// The image encoded as PNG by cairo.
  /// - Throws: ``QuireError`` when cairo's encoder fails.
  public func pngData() throws -> Data {
    final class Sink { var data = Data() }
    let sink = Sink()
    let status = withExtendedLifetime(sink) {
      cairo_surface_write_to_png_stream(
        surface,
        { closure, bytes, length in
          guard let closure, let bytes else { return CAIRO_STATUS_WRITE_ERROR }
          Unmanaged<Sink>.fromOpaque(closure).takeUnretainedValue().data.append(bytes, count: Int(length))
          return CAIRO_STATUS_SUCCESS
        }, Unmanaged.passUnretained(sink).toOpaque())
    }
    guard status == CAIRO_STATUS_SUCCESS else {
      throw QuireError(.libraryFailure, "cairo could not encode a \(width)×\(height) PNG: \(String(cString: cairo_status_to_string(status))).")
    }
    return sink.data
  }
}

/// A colour with components 0…1.
public struct Color: Sendable, Hashable {
  public var red, green, blue, alpha: Double
  public init(red: Double, green: Double, blue: Double, alpha: Double = 1) {
    self.red = red
    self.green = green
    self.blue = blue
    self.alpha = alpha
  }
  public static let white = Color(red: 1, green: 1, blue: 1)
  public static let black = Color(red: 0, green: 0, blue: 0)
  public static let clear = Color(red: 0, green: 0, blue: 0, alpha: 0)
}
