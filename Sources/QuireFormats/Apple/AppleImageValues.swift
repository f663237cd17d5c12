// The colour and image values that PDFKit's own API hands out: UIKit's `UIColor` and
// `UIImage` (AppKit's `NSColor` and `NSImage` are the same types here) and CoreGraphics'
// `CGImage`. They are values to pass, compare and encode, not views: nothing here draws on a
// screen. Compatibility surface: see the "Porting from Apple's frameworks" article.
public import Foundation
import QuireCore
import QuireTypes

/// UIKit's `UIColor` (AppKit's `NSColor`): a colour as red, green, blue and alpha components,
/// as PDFKit's `PDFSelection.color` holds it.
///
/// The components are sRGB, usually 0…1; values outside that range are kept as given, as
/// UIKit's extended sRGB does. Two colours are equal when their components are. Quire draws
/// with ``Color``, which ``quireColor`` gives.
open class UIColor: NSObject, @unchecked Sendable {
  // Immutable after init: the class is Sendable as UIKit's is.
  private let components: Color

  /// A colour of the given sRGB components (UIKit's `init(red:green:blue:alpha:)`).
  public init(red: CGFloat, green: CGFloat, blue: CGFloat, alpha: CGFloat) {
    components = Color(red: Double(red), green: Double(green), blue: Double(blue), alpha: Double(alpha))
  }

  /// A grey of brightness `white` (0 black, 1 white) (UIKit's `init(white:alpha:)`).
  public convenience init(white: CGFloat, alpha: CGFloat) {
    self.init(red: white, green: white, blue: white, alpha: alpha)
  }

  /// A colour of the given hue, saturation and brightness, each 0…1 (UIKit's
  /// `init(hue:saturation:brightness:alpha:)`); a hue of 1 is red again.
  public convenience init(hue: CGFloat, saturation: CGFloat, brightness: CGFloat, alpha: CGFloat) {
    let sector = (Double(hue) - Double(hue).rounded(.down)) * 6
    let chroma = Double(brightness) * Double(saturation)
    let x = chroma * (1 - abs(sector.truncatingRemainder(dividingBy: 2) - 1))
    let (r, g, b): (Double, Double, Double)
    switch Int(sector) {
    case 0: (r, g, b) = (chroma, x, 0)
    case 1: (r, g, b) = (x, chroma, 0)
    case 2: (r, g, b) = (0, chroma, x)
    case 3: (r, g, b) = (0, x, chroma)
    case 4: (r, g, b) = (x, 0, chroma)
    default: (r, g, b) = (chroma, 0, x)
    }
    let m = Double(brightness) - chroma
    self.init(red: CGFloat(r + m), green: CGFloat(g + m), blue: CGFloat(b + m), alpha: alpha)
  }

  /// AppKit's `NSColor(srgbRed:green:blue:alpha:)`: the same as ``init(red:green:blue:alpha:)``.
  public convenience init(srgbRed red: CGFloat, green: CGFloat, blue: CGFloat, alpha: CGFloat) {
    self.init(red: red, green: green, blue: blue, alpha: alpha)
  }

  /// AppKit's `NSColor(calibratedRed:green:blue:alpha:)`; Quire has no colour management, so
  /// the components are taken as sRGB.
  public convenience init(calibratedRed red: CGFloat, green: CGFloat, blue: CGFloat, alpha: CGFloat) {
    self.init(red: red, green: green, blue: blue, alpha: alpha)
  }

  /// Quire's colour from `color`'s components.
  public convenience init(_ color: Color) {
    self.init(red: CGFloat(color.red), green: CGFloat(color.green), blue: CGFloat(color.blue), alpha: CGFloat(color.alpha))
  }

  /// The colour for drawing with Quire's renderers (``Bitmap``).
  public var quireColor: Color { components }

  /// Writes the components to the pointers that are not nil and returns true (UIKit's
  /// `getRed(_:green:blue:alpha:)`; every colour here is RGB, so it never fails).
  public func getRed(
    _ red: UnsafeMutablePointer<CGFloat>?, green: UnsafeMutablePointer<CGFloat>?, blue: UnsafeMutablePointer<CGFloat>?,
    alpha: UnsafeMutablePointer<CGFloat>?
  ) -> Bool {
    red?.pointee = CGFloat(components.red)
    green?.pointee = CGFloat(components.green)
    blue?.pointee = CGFloat(components.blue)
    alpha?.pointee = CGFloat(components.alpha)
    return true
  }

  /// The same colour with opacity `alpha` (UIKit's `withAlphaComponent(_:)`).
  public func withAlphaComponent(_ alpha: CGFloat) -> UIColor {
    UIColor(red: redComponent, green: greenComponent, blue: blueComponent, alpha: alpha)
  }

  /// The red component (AppKit's `redComponent`).
  public var redComponent: CGFloat { CGFloat(components.red) }
  /// The green component (AppKit's `greenComponent`).
  public var greenComponent: CGFloat { CGFloat(components.green) }
  /// The blue component (AppKit's `blueComponent`).
  public var blueComponent: CGFloat { CGFloat(components.blue) }
  /// The opacity (AppKit's `alphaComponent`).
  public var alphaComponent: CGFloat { CGFloat(components.alpha) }

  /// Whether `object` is a colour with the same components.
  open override func isEqual(_ object: Any?) -> Bool {
    guard let other = object as? UIColor else { return false }
    return components == other.components
  }

  /// A hash of the components, consistent with ``isEqual(_:)``.
  open override var hash: Int { components.hashValue }

  /// The components, as UIKit describes a colour ("UIExtendedSRGBColorSpace 1 0 0 1").
  open override var description: String {
    "UIExtendedSRGBColorSpace \(components.red) \(components.green) \(components.blue) \(components.alpha)"
  }

  // UIKit's named colours, with the components UIKit documents for each.
  /// Grey 0, opaque.
  open class var black: UIColor { UIColor(white: 0, alpha: 1) }
  /// Grey 1/3, opaque.
  open class var darkGray: UIColor { UIColor(white: 1.0 / 3.0, alpha: 1) }
  /// Grey 2/3, opaque.
  open class var lightGray: UIColor { UIColor(white: 2.0 / 3.0, alpha: 1) }
  /// Grey 1, opaque.
  open class var white: UIColor { UIColor(white: 1, alpha: 1) }
  /// Grey 0.5, opaque.
  open class var gray: UIColor { UIColor(white: 0.5, alpha: 1) }
  /// RGB 1, 0, 0, opaque.
  open class var red: UIColor { UIColor(red: 1, green: 0, blue: 0, alpha: 1) }
  /// RGB 0, 1, 0, opaque.
  open class var green: UIColor { UIColor(red: 0, green: 1, blue: 0, alpha: 1) }
  /// RGB 0, 0, 1, opaque.
  open class var blue: UIColor { UIColor(red: 0, green: 0, blue: 1, alpha: 1) }
  /// RGB 0, 1, 1, opaque.
  open class var cyan: UIColor { UIColor(red: 0, green: 1, blue: 1, alpha: 1) }
  /// RGB 1, 1, 0, opaque.
  open class var yellow: UIColor { UIColor(red: 1, green: 1, blue: 0, alpha: 1) }
  /// RGB 1, 0, 1, opaque.
  open class var magenta: UIColor { UIColor(red: 1, green: 0, blue: 1, alpha: 1) }
  /// RGB 1, 0.5, 0, opaque.
  open class var orange: UIColor { UIColor(red: 1, green: 0.5, blue: 0, alpha: 1) }
  /// RGB 0.5, 0, 0.5, opaque.
  open class var purple: UIColor { UIColor(red: 0.5, green: 0, blue: 0.5, alpha: 1) }
  /// RGB 0.6, 0.4, 0.2, opaque.
  open class var brown: UIColor { UIColor(red: 0.6, green: 0.4, blue: 0.2, alpha: 1) }
  /// Grey 0 with opacity 0.
  open class var clear: UIColor { UIColor(white: 0, alpha: 0) }

  // UIKit's adaptable system colours, with their light-appearance components (Apple's Human
  // Interface Guidelines, "Color"); Quire has no dark appearance to adapt to.
  /// RGB 255, 59, 48.
  open class var systemRed: UIColor { UIColor(red: 1, green: 59 / 255, blue: 48 / 255, alpha: 1) }
  /// RGB 255, 149, 0.
  open class var systemOrange: UIColor { UIColor(red: 1, green: 149 / 255, blue: 0, alpha: 1) }
  /// RGB 255, 204, 0.
  open class var systemYellow: UIColor { UIColor(red: 1, green: 204 / 255, blue: 0, alpha: 1) }
  /// RGB 52, 199, 89.
  open class var systemGreen: UIColor { UIColor(red: 52 / 255, green: 199 / 255, blue: 89 / 255, alpha: 1) }
  /// RGB 0, 199, 190.
  open class var systemMint: UIColor { UIColor(red: 0, green: 199 / 255, blue: 190 / 255, alpha: 1) }
  /// RGB 48, 176, 199.
  open class var systemTeal: UIColor { UIColor(red: 48 / 255, green: 176 / 255, blue: 199 / 255, alpha: 1) }
  /// RGB 50, 173, 230.
  open class var systemCyan: UIColor { UIColor(red: 50 / 255, green: 173 / 255, blue: 230 / 255, alpha: 1) }
  /// RGB 0, 122, 255.
  open class var systemBlue: UIColor { UIColor(red: 0, green: 122 / 255, blue: 1, alpha: 1) }
  /// RGB 88, 86, 214.
  open class var systemIndigo: UIColor { UIColor(red: 88 / 255, green: 86 / 255, blue: 214 / 255, alpha: 1) }
  /// RGB 175, 82, 222.
  open class var systemPurple: UIColor { UIColor(red: 175 / 255, green: 82 / 255, blue: 222 / 255, alpha: 1) }
  /// RGB 255, 45, 85.
  open class var systemPink: UIColor { UIColor(red: 1, green: 45 / 255, blue: 85 / 255, alpha: 1) }
  /// RGB 162, 132, 94.
  open class var systemBrown: UIColor { UIColor(red: 162 / 255, green: 132 / 255, blue: 94 / 255, alpha: 1) }
  /// RGB 142, 142, 147.
  open class var systemGray: UIColor { UIColor(red: 142 / 255, green: 142 / 255, blue: 147 / 255, alpha: 1) }
  /// RGB 174, 174, 178.
  open class var systemGray2: UIColor { UIColor(red: 174 / 255, green: 174 / 255, blue: 178 / 255, alpha: 1) }
  /// RGB 199, 199, 204.
  open class var systemGray3: UIColor { UIColor(red: 199 / 255, green: 199 / 255, blue: 204 / 255, alpha: 1) }
  /// RGB 209, 209, 214.
  open class var systemGray4: UIColor { UIColor(red: 209 / 255, green: 209 / 255, blue: 214 / 255, alpha: 1) }
  /// RGB 229, 229, 234.
  open class var systemGray5: UIColor { UIColor(red: 229 / 255, green: 229 / 255, blue: 234 / 255, alpha: 1) }
  /// RGB 242, 242, 247.
  open class var systemGray6: UIColor { UIColor(red: 242 / 255, green: 242 / 255, blue: 247 / 255, alpha: 1) }
  /// White: the light appearance's background.
  open class var systemBackground: UIColor { UIColor(white: 1, alpha: 1) }
  /// Black: the light appearance's text.
  open class var label: UIColor { UIColor(white: 0, alpha: 1) }
  /// RGB 60, 60, 67 at 60 %: secondary text.
  open class var secondaryLabel: UIColor { UIColor(red: 60 / 255, green: 60 / 255, blue: 67 / 255, alpha: 0.6) }
}

/// AppKit's `NSColor`: the same type as ``UIColor`` here, with AppKit's initialisers and
/// component accessors on it.
public typealias NSColor = UIColor

/// CoreGraphics' `CGImage`: a bitmap image's pixels, as `UIImage.cgImage` gives them.
///
/// Quire's holds the pixels PNG-encoded (8 bits per component, RGBA), so it is immutable and
/// can be passed between tasks; ``pngData`` gives the bytes and ``Bitmap/init(pngData:)``
/// decodes them for drawing.
public final class CGImage: @unchecked Sendable {
  // Immutable after init.
  /// Width in pixels.
  public let width: Int
  /// Height in pixels.
  public let height: Int
  /// The pixels as a PNG file's bytes.
  public let pngData: Data

  /// The image of `bitmap`'s pixels.
  /// - Throws: ``QuireError`` when the pixels cannot be encoded.
  public init(_ bitmap: Bitmap) throws {
    pngData = try bitmap.pngData()
    width = bitmap.width
    height = bitmap.height
  }

  /// The image held in `data`, PNG bytes, or nil when `data` is not a PNG cairo can read.
  public convenience init?(pngData data: Data) {
    guard let bitmap = try? Bitmap(pngData: data), let image = try? CGImage(bitmap) else { return nil }
    self.init(copying: image)
  }

  private init(copying image: CGImage) {
    width = image.width
    height = image.height
    pngData = image.pngData
  }

  /// Bits per colour component: 8.
  public var bitsPerComponent: Int { 8 }
  /// Bits per pixel: 32 (red, green, blue, alpha).
  public var bitsPerPixel: Int { 32 }
  /// Bytes per row of the decoded pixels: 4 per pixel.
  public var bytesPerRow: Int { width * 4 }
}

/// UIKit's `UITraitCollection`, as far as an image look-up takes one
/// (``UIImage/init(named:in:compatibleWith:)``): Linux has no screens or appearances, so
/// there are no traits to choose between and every collection is the same.
open class UITraitCollection: NSObject, @unchecked Sendable {
  /// A collection with no traits.
  public override init() { super.init() }
}

/// UIKit's `UIImage` (AppKit's `NSImage`): an image to pass around and encode, as PDFKit's
/// `PDFPage.thumbnail(of:for:)` returns it.
///
/// It holds a ``CGImage`` (or nothing: ``init()`` makes an empty image, whose ``cgImage``
/// is nil and whose ``pngData()`` is nil, as UIKit's). ``size`` is in points: pixels divided
/// by ``scale``. Displaying it is a view's work, which Linux has no UIKit for; write it with
/// ``pngData()`` or draw its pixels with ``Bitmap/init(pngData:)``.
open class UIImage: NSObject, @unchecked Sendable {
  // Immutable after init.
  /// The pixels, nil for an empty image.
  public let cgImage: CGImage?
  /// Pixels per point (1 unless given).
  public let scale: CGFloat

  /// UIKit's `UIImage.Configuration`, as far as an image look-up takes one
  /// (``init(named:in:with:)``): with no symbol images or traits on Linux, it has no settings.
  open class Configuration: NSObject, @unchecked Sendable {
    /// A configuration with no settings.
    public override init() { super.init() }
  }

  /// An empty image: no pixels, size zero.
  public override init() {
    cgImage = nil
    scale = 1
  }

  /// The image of `cgImage`'s pixels at scale 1 (UIKit's `init(cgImage:)`).
  public init(cgImage: CGImage) {
    self.cgImage = cgImage
    scale = 1
  }

  /// The image of `cgImage`'s pixels, `scale` pixels per point (UIKit's
  /// `init(cgImage:scale:orientation:)` without the orientation, which Quire does not apply).
  public init(cgImage: CGImage, scale: CGFloat) {
    self.cgImage = cgImage
    self.scale = scale > 0 ? scale : 1
  }

  /// AppKit's `NSImage(cgImage:size:)`: the pixels of `cgImage` shown at `size` points
  /// (`.zero`: the pixel size). Quire keeps one scale for both sides: width in pixels over
  /// width in points.
  public convenience init(cgImage: CGImage, size: CGSize) {
    let scale = size.width > 0 ? CGFloat(cgImage.width) / size.width : 1
    self.init(cgImage: cgImage, scale: scale)
  }

  /// The image in `data`, or nil when `data` is not an image Quire can decode (UIKit's
  /// `init?(data:)`; Quire reads PNG).
  public convenience init?(data: Data) {
    guard let image = CGImage(pngData: data) else { return nil }
    self.init(cgImage: image)
  }

  /// The image named `name` among the main bundle's resources (UIKit's `init?(named:)`):
  /// the file `name`, else `name.png`, read as ``init(contentsOfFile:)`` reads (PNG); nil when
  /// there is no such resource or it is not a PNG. A program run from its build folder has
  /// its package's resources there (`Bundle.main`); asset catalogs do not exist on Linux.
  public convenience init?(named name: String) {
    self.init(named: name, in: nil, compatibleWith: nil)
  }

  /// The image named `name` among `bundle`'s resources, the main bundle's when nil (UIKit's
  /// `init?(named:in:compatibleWith:)`, as a Swift package reaches its own resources:
  /// `UIImage(named: "stamp", in: .module, compatibleWith: nil)`). Linux has no screen traits:
  /// every `traitCollection` picks the same file. See ``init(named:)``.
  public convenience init?(named name: String, in bundle: Bundle?, compatibleWith traitCollection: UITraitCollection?) {
    let bundle = bundle ?? .main
    let candidates = [bundle.url(forResource: name, withExtension: nil), bundle.url(forResource: name, withExtension: "png")]
    guard let url = candidates.compactMap({ $0 }).first else { return nil }
    self.init(contentsOfFile: url.path)
  }

  /// The image named `name` among `bundle`'s resources (UIKit's `init?(named:in:with:)`): as
  /// ``init(named:in:compatibleWith:)``; no configuration changes which file is read.
  public convenience init?(named name: String, in bundle: Bundle?, with configuration: UIImage.Configuration?) {
    self.init(named: name, in: bundle, compatibleWith: nil)
  }

  /// The image in the file at `path` (UIKit's `init?(contentsOfFile:)`), read as
  /// ``init(data:)`` reads (PNG); nil when it is missing, not a regular file (a FIFO or a
  /// device is not waited on), larger than 256 MiB or not a PNG.
  public convenience init?(contentsOfFile path: String) {
    guard let bytes = try? InputFile.read(URL(fileURLWithPath: path), for: "read", limit: 256 << 20) else { return nil }
    self.init(data: Data(bytes))
  }

  /// The size in points: pixels divided by ``scale``; zero for an empty image.
  public var size: CGSize {
    guard let cgImage else { return .zero }
    return CGSize(width: CGFloat(cgImage.width) / scale, height: CGFloat(cgImage.height) / scale)
  }

  /// The image as PNG bytes, nil for an empty image (UIKit's `pngData()`).
  public func pngData() -> Data? { cgImage?.pngData }

  /// The image as JPEG bytes at `compressionQuality` (0 smallest, 1 best), nil for an empty
  /// image or one that cannot be encoded (UIKit's `jpegData(compressionQuality:)`). JPEG has
  /// no alpha: transparent parts come out black.
  public func jpegData(compressionQuality: CGFloat) -> Data? {
    guard let cgImage, let bitmap = try? Bitmap(pngData: cgImage.pngData) else { return nil }
    return try? bitmap.jpegData(quality: Double(compressionQuality))
  }

  /// Whether `object` is an image with the same pixels and scale.
  open override func isEqual(_ object: Any?) -> Bool {
    guard let other = object as? UIImage else { return false }
    return scale == other.scale && cgImage?.pngData == other.cgImage?.pngData
  }

  /// A hash consistent with ``isEqual(_:)``.
  open override var hash: Int { cgImage?.pngData.hashValue ?? 0 }
}

/// AppKit's `NSImage`: the same type as ``UIImage`` here.
public typealias NSImage = UIImage
