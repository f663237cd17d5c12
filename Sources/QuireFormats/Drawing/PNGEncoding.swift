internal import CPNG
internal import CPoppler
public import Foundation
import QuireTypes

/// How ``Bitmap/pngData(text:options:)`` compresses.
///
/// Thumbnails are written far more often than they are stored for long, so the default is
/// the fast end: zlib level 1 and the `Sub` filter only (`png_set_compression_level`,
/// `png_set_filter(PNG_FILTER_SUB)`). Measured on 256 px PDF thumbnails this encodes several
/// times faster than libpng's defaults (level 6, adaptive filtering) for files about a third
/// larger; see Benchmarks/RESULTS.md (thumbnails).
public struct PNGOptions: Sendable, Hashable {
  /// The row filter libpng applies before compression (`PNG_FILTER_*`).
  public enum Filter: Sendable, Hashable {
    /// `PNG_FILTER_NONE`.
    case none
    /// `PNG_FILTER_SUB`: each byte minus the one to its left; cheap and good on flat pages.
    case sub
    /// `PNG_ALL_FILTERS`: libpng picks per row (smallest files, slowest).
    case adaptive
  }

  /// The zlib level, 0 (store) to 9 (smallest).
  public var compressionLevel: Int
  /// The row filter.
  public var filter: Filter

  /// Makes options; `compressionLevel` is clamped to 0…9.
  public init(compressionLevel: Int = 1, filter: Filter = .sub) {
    self.compressionLevel = min(9, max(0, compressionLevel))
    self.filter = filter
  }

  /// zlib level 1 with the `Sub` filter: what thumbnails use.
  public static let fast = PNGOptions()
  /// zlib level 6 with adaptive filters: libpng's defaults, for files kept long.
  public static let small = PNGOptions(compressionLevel: 6, filter: .adaptive)

  var filterMask: Int32 {
    switch filter {
    case .none: return Int32(PNG_FILTER_NONE)
    case .sub: return Int32(PNG_FILTER_SUB)
    case .adaptive: return Int32(PNG_FILTER_NONE | PNG_FILTER_SUB | PNG_FILTER_UP | PNG_FILTER_AVG | PNG_FILTER_PAETH)
    }
  }
}

extension Bitmap {
  /// The image encoded as PNG by libpng, with `text` as `tEXt` chunks.
  ///
  /// Opaque bitmaps (every thumbnail: they are drawn on white) are written as 8-bit RGB
  /// straight from cairo's rows; bitmaps with transparency as RGBA, un-premultiplied.
  ///
  /// - Parameters:
  ///   - text: Keyword/value pairs, in order, e.g. `("Thumb::URI", "file:///…")`. Keywords are
  ///     1 to 79 Latin-1 characters; values are written as UTF-8 bytes (URIs and numbers are
  ///     ASCII, which is what the thumbnail standard stores).
  ///   - options: Compression level and filter; ``PNGOptions/fast`` by default.
  /// - Throws: ``QuireError`` (`.invalidArgument`) for a bad keyword or a value with a NUL
  ///   byte, `.libraryFailure` when libpng fails.
  public func pngData(text: [(key: String, value: String)], options: PNGOptions = .fast) throws -> Data {
    for (key, value) in text {
      guard (1...79).contains(key.utf8.count), key.unicodeScalars.allSatisfy({ $0.value >= 32 && $0.value < 127 }),
        !key.hasPrefix(" "), !key.hasSuffix(" ")
      else {
        throw QuireError(.invalidArgument, "Cannot write the PNG text keyword '\(key)': keywords are 1 to 79 printable ASCII characters.")
      }
      guard !value.utf8.contains(0) else {
        throw QuireError(.invalidArgument, "Cannot write the PNG text '\(key)': its value contains a NUL byte.")
      }
    }
    final class Sink { var data = Data() }
    let sink = Sink()
    sink.data.reserveCapacity(width * height / 2 + 1024)
    cairo_surface_flush(surface)
    guard let pixels = cairo_image_surface_get_data(surface) else {
      throw QuireError(.libraryFailure, "cairo has no pixels for a \(width)×\(height) image.")
    }
    let stride = cairo_image_surface_get_stride(surface)
    let opaque = isOpaque
    // strdup'd copies keep the C strings alive for the whole call.
    let keys = text.map { strdup($0.key) }
    let values = text.map { strdup($0.value) }
    defer {
      for pointer in keys + values { free(pointer) }
    }
    let status: Int32 = keys.map { UnsafePointer($0) }.withUnsafeBufferPointer { keyPointers in
      values.map { UnsafePointer($0) }.withUnsafeBufferPointer { valuePointers in
        withExtendedLifetime(sink) {
          cpng_encode_argb32(
            pixels, Int32(width), Int32(height), stride, opaque ? 1 : 0,
            keyPointers.baseAddress, valuePointers.baseAddress, Int32(text.count),
            Int32(options.compressionLevel), options.filterMask,
            { context, bytes, length in
              guard let context, let bytes else { return 1 }
              Unmanaged<Sink>.fromOpaque(context).takeUnretainedValue().data.append(bytes, count: length)
              return 0
            }, Unmanaged.passUnretained(sink).toOpaque())
        }
      }
    }
    guard status == 0 else {
      throw QuireError(.libraryFailure, "libpng could not encode a \(width)×\(height) PNG.")
    }
    return sink.data
  }

  /// Whether every pixel has full alpha.
  public var isOpaque: Bool {
    cairo_surface_flush(surface)
    if cairo_image_surface_get_format(surface) == CAIRO_FORMAT_RGB24 { return true }
    guard let base = cairo_image_surface_get_data(surface) else { return false }
    let stride = Int(cairo_image_surface_get_stride(surface))
    for y in 0..<height {
      let row = UnsafeRawPointer(base + y * stride)
      for x in 0..<width where row.load(fromByteOffset: x * 4, as: UInt32.self) >> 24 != 0xff {
        return false
      }
    }
    return true
  }

  /// Decodes PNG bytes into a bitmap (through cairo's PNG reader).
  /// - Throws: ``QuireError`` (`.invalidContent`) when `data` is not a PNG cairo can read.
  public convenience init(pngData data: Data) throws {
    final class Source {
      let data: Data
      var offset = 0
      init(_ data: Data) { self.data = data }
    }
    let source = Source(data)
    let surface = withExtendedLifetime(source) {
      cairo_image_surface_create_from_png_stream(
        { closure, buffer, length in
          guard let closure, let buffer else { return CAIRO_STATUS_READ_ERROR }
          let source = Unmanaged<Source>.fromOpaque(closure).takeUnretainedValue()
          let count = Int(length)
          guard source.offset + count <= source.data.count else { return CAIRO_STATUS_READ_ERROR }
          source.data.withUnsafeBytes { raw in
            buffer.update(from: raw.baseAddress!.assumingMemoryBound(to: UInt8.self) + source.offset, count: count)
          }
          source.offset += count
          return CAIRO_STATUS_SUCCESS
        }, Unmanaged.passUnretained(source).toOpaque())
    }
    guard let surface, cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS else {
      if let surface { cairo_surface_destroy(surface) }
      throw QuireError(.invalidContent, "The data is not a PNG image cairo can read.")
    }
    self.init(adopting: surface)
  }

  /// The version of the linked libpng, e.g. "1.6.39".
  public static var pngLibraryVersion: String { String(cString: cpng_version()) }
}

/// Reads the `tEXt` chunks of a PNG without decoding its pixels.
public enum PNGText {
  /// The `tEXt` keyword/value pairs of `data`, in file order; values are decoded as UTF-8
  /// when valid, else as Latin-1.
  ///
  /// Reading stops at `IDAT` when `stopAtImageData` is true (the thumbnail standard puts its
  /// keys before the image data), which keeps up-to-date checks cheap.
  /// - Throws: ``QuireError`` (`.invalidContent`) when `data` is not a PNG.
  public static func chunks(in data: Data, stopAtImageData: Bool = false) throws -> [(key: String, value: String)] {
    let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    let bytes = [UInt8](data)
    guard bytes.count >= 8, Array(bytes[0..<8]) == signature else {
      throw QuireError(.invalidContent, "The data is not a PNG: it lacks the PNG signature.")
    }
    var result: [(String, String)] = []
    var offset = 8
    while offset + 8 <= bytes.count {
      let length = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
      let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
      let start = offset + 8
      guard length >= 0, start + length <= bytes.count else { break }
      if type == "tEXt", let nul = bytes[start..<(start + length)].firstIndex(of: 0) {
        let key = String(decoding: bytes[start..<nul], as: UTF8.self)
        let raw = Array(bytes[(nul + 1)..<(start + length)])
        let value = String(validating: raw, as: UTF8.self) ?? String(raw.map { Character(Unicode.Scalar($0)) })
        result.append((key, value))
      }
      if type == "IEND" || (stopAtImageData && type == "IDAT") { break }
      offset = start + length + 4
    }
    return result
  }
}
