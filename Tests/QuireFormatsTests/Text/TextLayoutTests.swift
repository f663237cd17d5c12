import Foundation
import QuireFormats
import QuireTestSupport
import QuireTypes
import Testing

@Suite("pango: text laid out into PNGs")
final class TextLayoutTests: FolderSuite {

  /// How many pixels in the bitmap are darker than mid-grey.
  func inkedPixels(_ bitmap: Bitmap) -> Int {
    var count = 0
    for y in 0..<bitmap.height { for x in 0..<bitmap.width where bitmap.pixel(x: x, y: y).red < 128 { count += 1 } }
    return count
  }

  @Test func drawsLatinTextIntoAPNG() throws {
    let bitmap = try Bitmap(width: 200, height: 60)
    #expect(inkedPixels(bitmap) == 0)
    let height = try TextLayout.draw(markup: "<b>Hello</b>, pango", in: bitmap, x: 4, y: 4, width: 190)
    #expect(height > 8)
    #expect(inkedPixels(bitmap) > 50)
    let png = try bitmap.pngData()
    try png.write(to: folder.file("latin.png"))
    #expect(png.count > 100)
  }

  @Test func drawsJapaneseWithRealGlyphs() throws {
    // Real glyphs differ from one another; a missing-glyph box draws the same shape for each.
    func ink(_ text: String) throws -> Int {
      let bitmap = try Bitmap(width: 120, height: 60)
      try TextLayout.draw(markup: text, in: bitmap, x: 4, y: 4, width: 110, style: TextStyle(font: "Sans 28"))
      return inkedPixels(bitmap)
    }
    let one = try ink("一")
    let many = try ink("驚")
    #expect(one > 10)
    #expect(many > one * 2)
  }

  @Test func invalidMarkupIsAnError() throws {
    let bitmap = try Bitmap(width: 20, height: 20)
    expectQuireError(.invalidArgument) { try TextLayout.draw(markup: "<b>unclosed", in: bitmap, x: 0, y: 0, width: 20) }
    #expect(TextLayout.escapeMarkup("<b>&") == "&lt;b&gt;&amp;")
  }

  @Test func badSizesAreRefused() {
    expectQuireError(.invalidArgument) { try Bitmap(width: 0, height: 10) }
    expectQuireError(.invalidArgument) { try Bitmap(width: 10, height: 100_000) }
  }
}
