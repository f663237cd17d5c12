// Written from UIKit's documentation of UIColor and UIImage (and AppKit's of NSColor and
// NSImage), not from Quire's own API: the components UIKit documents for its named colours,
// getRed's pointers, UIImage's empty image, pngData() and init?(data:).
import Foundation
import QuireFormats
import Testing

@Suite("UIColor and UIImage, as UIKit documents them")
struct AppleImageValuesTests {
  /// The components `color` reports through getRed(_:green:blue:alpha:).
  func rgba(_ color: UIColor) -> [CGFloat] {
    var red: CGFloat = -1
    var green: CGFloat = -1
    var blue: CGFloat = -1
    var alpha: CGFloat = -1
    #expect(color.getRed(&red, green: &green, blue: &blue, alpha: &alpha))
    return [red, green, blue, alpha]
  }

  @Test func namedColoursHaveTheComponentsUIKitDocuments() {
    #expect(rgba(.red) == [1, 0, 0, 1])
    #expect(rgba(.green) == [0, 1, 0, 1])
    #expect(rgba(.blue) == [0, 0, 1, 1])
    #expect(rgba(.orange) == [1, 0.5, 0, 1])
    #expect(rgba(.purple) == [0.5, 0, 0.5, 1])
    #expect(rgba(.brown) == [0.6, 0.4, 0.2, 1])
    #expect(rgba(.cyan) == [0, 1, 1, 1])
    #expect(rgba(.yellow) == [1, 1, 0, 1])
    #expect(rgba(.magenta) == [1, 0, 1, 1])
    let third: CGFloat = 1.0 / 3.0
    let twoThirds: CGFloat = 2.0 / 3.0
    #expect(rgba(.darkGray) == [third, third, third, 1])
    #expect(rgba(.lightGray) == [twoThirds, twoThirds, twoThirds, 1])
    #expect(rgba(.gray) == [0.5, 0.5, 0.5, 1])
    #expect(rgba(.black) == [0, 0, 0, 1])
    #expect(rgba(.white) == [1, 1, 1, 1])
    #expect(rgba(.clear)[3] == 0)
  }

  @Test func getRedFillsOnlyThePointersGiven() {
    var red: CGFloat = -1
    #expect(UIColor(red: 0.25, green: 0.5, blue: 0.75, alpha: 0.4).getRed(&red, green: nil, blue: nil, alpha: nil))
    #expect(red == 0.25)
  }

  @Test func initialisersAndAlpha() {
    #expect(rgba(UIColor(white: 0.2, alpha: 0.6)) == [0.2, 0.2, 0.2, 0.6])
    #expect(rgba(UIColor.red.withAlphaComponent(0.3)) == [1, 0, 0, 0.3])
    // Hue, saturation and brightness (each 0…1): 0 red, 1/3 green, 2/3 blue; saturation 0 is a grey.
    #expect(rgba(UIColor(hue: 0, saturation: 1, brightness: 1, alpha: 1)) == [1, 0, 0, 1])
    #expect(rgba(UIColor(hue: 1, saturation: 1, brightness: 1, alpha: 1)) == [1, 0, 0, 1])
    let green = rgba(UIColor(hue: 1.0 / 3.0, saturation: 1, brightness: 1, alpha: 1))
    #expect(abs(green[0]) < 1e-9 && green[1] == 1 && abs(green[2]) < 1e-9)
    let blue = rgba(UIColor(hue: 2.0 / 3.0, saturation: 1, brightness: 0.5, alpha: 1))
    #expect(abs(blue[0]) < 1e-9 && abs(blue[1]) < 1e-9 && blue[2] == 0.5)
    #expect(rgba(UIColor(hue: 0.7, saturation: 0, brightness: 0.4, alpha: 1)) == [0.4, 0.4, 0.4, 1])
    // Extended sRGB keeps components outside 0…1.
    #expect(rgba(UIColor(red: 1.2, green: -0.1, blue: 0, alpha: 1)) == [1.2, -0.1, 0, 1])
  }

  @Test func appKitSpellingsAreTheSameColour() {
    let color = NSColor(srgbRed: 0.1, green: 0.2, blue: 0.3, alpha: 1)
    #expect([color.redComponent, color.greenComponent, color.blueComponent, color.alphaComponent] == [0.1, 0.2, 0.3, 1])
    #expect(NSColor(calibratedRed: 0.1, green: 0.2, blue: 0.3, alpha: 1) == color)
    #expect(color.quireColor == Color(red: 0.1, green: 0.2, blue: 0.3))
  }

  @Test func coloursAreEqualByComponents() {
    #expect(UIColor.red == UIColor(red: 1, green: 0, blue: 0, alpha: 1))
    #expect(UIColor.red.hash == UIColor(red: 1, green: 0, blue: 0, alpha: 1).hash)
    #expect(UIColor.red != UIColor.red.withAlphaComponent(0.5))
    #expect(!UIColor.red.isEqual("red"))
    #expect(Set([UIColor.red, .red, .blue]).count == 2)
  }

  @Test func anEmptyImageHasNoPixelsNoSizeAndNoPNG() {
    let image = UIImage()
    #expect(image.cgImage == nil)
    #expect(image.size == .zero)
    #expect(image.pngData() == nil)
  }

  @Test func pngDataRoundTripsThePixels() throws {
    let bitmap = try Bitmap(width: 6, height: 4, background: Color(red: 1, green: 0, blue: 0))
    let image = UIImage(cgImage: try CGImage(bitmap))
    #expect(image.size == CGSize(width: 6, height: 4))
    #expect(image.scale == 1)
    #expect(image.cgImage?.bytesPerRow == 24)
    let png = try #require(image.pngData())
    let decoded = try Bitmap(pngData: png)
    #expect(decoded.width == 6 && decoded.height == 4)
    #expect(decoded.pixel(x: 3, y: 2) == (255, 0, 0, 255))
    let again = try #require(UIImage(data: png))
    #expect(again.size == CGSize(width: 6, height: 4))
    #expect(again == image)
  }

  /// `jpegData(compressionQuality:)` writes a JPEG that GdkPixbuf (GNOME's image loader)
  /// reads back at the image's size and colour; a lower quality is smaller; an empty image
  /// gives nil.
  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"), "needs Debian's python3 with python3-gi"))
  func jpegDataIsAJPEGOtherProgramsRead() throws {
    let bitmap = try Bitmap(width: 64, height: 48, background: Color(red: 1, green: 0, blue: 0))
    try bitmap.draw { canvas in canvas.fill(Rect(x: 32, y: 0, width: 32, height: 48), color: Color(red: 0, green: 0, blue: 1)) }
    let image = UIImage(cgImage: try CGImage(bitmap))
    let best = try #require(image.jpegData(compressionQuality: 1))
    let small = try #require(image.jpegData(compressionQuality: 0))
    #expect(best.starts(with: [0xFF, 0xD8, 0xFF]) && best.suffix(2) == Data([0xFF, 0xD9]))
    #expect(small.count < best.count)
    #expect(UIImage().jpegData(compressionQuality: 0.8) == nil)
    #expect(UIImage(named: "no-such-image-\(UUID().uuidString)") == nil)
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("quire-jpeg-\(UUID().uuidString).jpg")
    defer { try? FileManager.default.removeItem(at: file) }
    try best.write(to: file)
    let script = """
      import sys, gi
      gi.require_version("GdkPixbuf", "2.0")
      from gi.repository import GdkPixbuf
      p = GdkPixbuf.Pixbuf.new_from_file(sys.argv[1])
      data = p.get_pixels()
      def at(x, y):
          o = y * p.get_rowstride() + x * p.get_n_channels()
          return "%d,%d,%d" % (data[o], data[o + 1], data[o + 2])
      print(p.get_width(), p.get_height(), at(8, 24), at(56, 24))
      """
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
    process.arguments = ["-c", script, file.path]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    let fields = text.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)
    try #require(fields.count == 4, "GdkPixbuf said: \(text)")
    #expect(fields[0] == "64" && fields[1] == "48")
    func channels(_ field: String) -> [Int] { field.split(separator: ",").compactMap { Int($0) } }
    let (red, blue) = (channels(fields[2]), channels(fields[3]))
    #expect(red.count == 3 && red[0] > 230 && red[1] < 25 && red[2] < 25, "\(red)")
    #expect(blue.count == 3 && blue[0] < 25 && blue[1] < 25 && blue[2] > 230, "\(blue)")
  }

  /// A package's own images, as UIKit code finds them: by name in a bundle (with or without
  /// `.png`), or by path, through a symbolic link too; a missing name, a file that is not a
  /// PNG, a folder, a FIFO (not waited on), a device and a dangling link give nil.
  @Test func imagesAreFoundByNameInABundleAndByPath() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("quire-bundle-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let pixels = try CGImage(try Bitmap(width: 12, height: 8, background: Color(red: 0, green: 0.5, blue: 1)))
    try #require(pixels.pngData).write(to: folder.appendingPathComponent("stamp.png"))
    try Data("not an image".utf8).write(to: folder.appendingPathComponent("text.png"))
    try FileManager.default.createDirectory(at: folder.appendingPathComponent("folder.png"), withIntermediateDirectories: false)
    #expect(mkfifo(folder.appendingPathComponent("pipe.png").path, 0o600) == 0)
    try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("alias.png").path, withDestinationPath: "stamp.png")
    try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("gone.png").path, withDestinationPath: "nowhere.png")
    let bundle = try #require(Bundle(path: folder.path))
    let byName = try #require(UIImage(named: "stamp", in: bundle, compatibleWith: nil))
    #expect(byName.size == CGSize(width: 12, height: 8) && byName.pngData() == pixels.pngData)
    #expect(UIImage(named: "stamp.png", in: bundle, compatibleWith: UITraitCollection())?.size == CGSize(width: 12, height: 8))
    #expect(UIImage(named: "stamp", in: bundle, with: UIImage.Configuration())?.pngData() == pixels.pngData)
    #expect(UIImage(contentsOfFile: folder.appendingPathComponent("stamp.png").path)?.size == CGSize(width: 12, height: 8))
    for name in ["missing", "text", "folder", "pipe"] {
      #expect(UIImage(named: name, in: bundle, compatibleWith: nil) == nil, "\(name)")
      #expect(UIImage(contentsOfFile: folder.appendingPathComponent(name + ".png").path) == nil, "\(name)")
    }
    // A link to the image is followed; a dangling one and a device (not read) give nil.
    #expect(UIImage(named: "alias", in: bundle, compatibleWith: nil)?.pngData() == pixels.pngData)
    #expect(UIImage(named: "gone", in: bundle, compatibleWith: nil) == nil)
    #expect(UIImage(contentsOfFile: "/dev/zero") == nil && UIImage(contentsOfFile: "") == nil)
  }

  @Test func scaleDividesThePixelsIntoPoints() throws {
    let pixels = try CGImage(Bitmap(width: 40, height: 20))
    #expect(UIImage(cgImage: pixels, scale: 2).size == CGSize(width: 20, height: 10))
    // AppKit: a zero size uses the pixel dimensions.
    #expect(NSImage(cgImage: pixels, size: .zero).size == CGSize(width: 40, height: 20))
    #expect(NSImage(cgImage: pixels, size: CGSize(width: 10, height: 5)).size == CGSize(width: 10, height: 5))
  }

  @Test func dataThatIsNotAnImageGivesNil() throws {
    #expect(UIImage(data: Data()) == nil)
    #expect(UIImage(data: Data("not a picture".utf8)) == nil)
    #expect(UIImage(data: Data([0xFF, 0xD8, 0xFF, 0xE0])) == nil)  // a JPEG's start: Quire reads PNG only
    // A PNG cut short after its header.
    let png = try Bitmap(width: 8, height: 8).pngData()
    #expect(UIImage(data: png.prefix(40)) == nil)
    #expect(CGImage(pngData: Data(repeating: 0, count: 1 << 20)) == nil)
  }
}
