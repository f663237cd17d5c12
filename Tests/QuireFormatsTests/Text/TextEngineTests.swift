import Foundation
import QuireFormats
import QuireTestSupport
import QuireTypes
import Testing

@Suite("HarfBuzz text engine: Quire's markup laid out as pango lays it out, fonts chosen once")
final class TextEngineTests: FolderSuite {
  func heights(_ markup: String, width: Double, style: TextStyle = TextStyle(), maximumHeight: Double? = nil) throws -> (harfBuzz: Double?, pango: Double) {
    (
      try TextLayout.layoutHeight(markup: markup, width: width, style: style, maximumHeight: maximumHeight, engine: .harfBuzz),
      try #require(try TextLayout.layoutHeight(markup: markup, width: width, style: style, maximumHeight: maximumHeight, engine: .pango))
    )
  }

  static let quireMarkup = [
    "Some <b>bold</b>, <i>slanted</i> and <b><i>both</i></b>",
    "<span font_family=\"monospace\" size=\"90%\" background=\"#eff1f3\">let x = 1</span> and <s>struck</s>",
    "A link: <span foreground=\"#0969da\" underline=\"single\">example</span><span foreground=\"#0969da\"><sup>1</sup></span>",
    "<span foreground=\"#6e7781\" background=\"#eef0f2\">▣ a picture</span> • ☑ ☐ &amp; &lt;tag&gt; &#39;q&#39; &#x2026;",
    "これは<b>日本語</b>の文章です。「括弧」、句読点。한국어 문장. 中文字。",
    "Ελληνικά, кириллица, Ünïcödé with combining e\u{301}",
    "func main() {\n\tprint(1)\n}",
    "",
  ]

  @Test(arguments: quireMarkup)
  func takesTheMarkupQuireWrites(_ markup: String) throws {
    #expect(try heights(markup, width: 300).harfBuzz != nil)
  }

  static let pangosText = [
    "مرحبا بالعالم", "שלום", "नमस्ते दुनिया", "สวัสดี", "a face 😀", "family 👨\u{200D}👩", "zero\u{200B}width",
    "<span font_family=\"Serif\">serif</span>", "<span size=\"12pt\">absolute</span>", "<a href=\"x\">link</a>",
    "<span foreground=\"red\">named colour</span>", "&nbsp;", "<b>unclosed", "control \u{7}",
  ]

  @Test(arguments: pangosText)
  func leavesOtherScriptsAndMarkupToPango(_ markup: String) throws {
    #expect(try TextLayout.layoutHeight(markup: markup, width: 300, engine: .harfBuzz) == nil)
  }

  @Test func otherFontDescriptionsAreLeftToPango() throws {
    #expect(try TextLayout.layoutHeight(markup: "x", width: 100, style: TextStyle(font: "Serif 10"), engine: .harfBuzz) == nil)
    #expect(try TextLayout.layoutHeight(markup: "x", width: 100, style: TextStyle(font: "Sans"), engine: .harfBuzz) == nil)
    #expect(try TextLayout.layoutHeight(markup: "x", width: 100, style: TextStyle(font: "Monospace Bold Italic 8"), engine: .harfBuzz) != nil)
  }

  static let paragraph =
    "Quire builds Apple's document model on real Linux parts, and a thumbnailer draws the top of each page in a few milliseconds."

  @Test(arguments: [
    (paragraph, 300.0, "Sans 9.5"), (paragraph, 120.0, "Sans 9.5"), ("# One line", 300.0, "Sans Bold 17"),
    ("日本語の文章は単語の間に空白がないので、どの文字の間でも行を折り返せます。", 120.0, "Sans 9.5"),
    ("line one\nline two\n\nline four", 300.0, "Sans 9.5"), ("for i in 0..&lt;3 {\n\tprint(i)\n}", 200.0, "Monospace 8"),
    ("", 100.0, "Sans 7.5"), ("Supercalifragilisticexpialidocious", 40.0, "Sans 9.5"),
  ])
  func linesAndHeightsAreThoseOfPango(_ markup: String, _ width: Double, _ font: String) throws {
    let style = TextStyle(font: font, lineSpacing: 1.5)
    let (harfBuzz, pango) = try heights(markup, width: width, style: style)
    let height = try #require(harfBuzz)
    // The same lines, each as high as pango makes it (metrics rounded up to whole units).
    #expect(abs(height - pango) < 0.1, "\(markup) at \(width): \(height) against pango's \(pango)")
  }

  static let japaneseParagraph = "Quire は「文書」を扱うライブラリです。日本語の文章は単語の間に空白がないので、句読点の前では折り返さず、括弧の後でも折り返しません。"

  /// Unscaled, and at the scales of 512 and 256 pixel thumbnails (pango rounds glyph
  /// positions only in the first).
  @Test(arguments: [1.0, 0.608, 0.304])
  func paragraphsBreakWherePangoBreaksThemAtEveryWidth(_ scale: Double) throws {
    for width in stride(from: 40.0, through: 300.0, by: 13.0) {
      for markup in [
        Self.paragraph, Self.japaneseParagraph,
        "Some <b>bold words</b> and <i>slanted ones</i>, <span font_family=\"monospace\" size=\"90%\">code()</span> too.",
      ] {
        let style = TextStyle(font: "Sans 9.5", lineSpacing: 1.5)
        let harfBuzz = try TextLayout.layoutHeight(markup: markup, width: width, style: style, scale: scale, engine: .harfBuzz) ?? -1
        let pango = try TextLayout.layoutHeight(markup: markup, width: width, style: style, scale: scale, engine: .pango) ?? -1
        #expect(abs(harfBuzz - pango) < 0.5, "\(markup.prefix(20)) at \(width), scale \(scale): \(harfBuzz) against pango's \(pango)")
      }
    }
  }

  @Test func wordsWrapAtSpacesAndAWordTooLongBreaksBetweenCharacters() throws {
    let one = try #require(try heights("word", width: 200).harfBuzz)
    #expect(try heights("word word", width: 200).harfBuzz == one)
    let two = try #require(try heights("word word", width: 45).harfBuzz)
    #expect(two > one * 1.8 && two < one * 2.2)
    let long = try #require(try heights(String(repeating: "w", count: 60), width: 60).harfBuzz)
    #expect(long > one * 4)
  }

  @Test func aMaximumHeightKeepsTheLinesThatFit() throws {
    let full = try #require(try heights(Self.paragraph, width: 80).harfBuzz)
    let cut = try #require(try heights(Self.paragraph, width: 80, maximumHeight: 40).harfBuzz)
    // As pango: the last line may reach below the maximum, by less than a line.
    #expect(cut < 40 + 15 && cut > 10 && cut < full)
    // At least one line, however small the room.
    #expect(try heights(Self.paragraph, width: 80, maximumHeight: 1).harfBuzz ?? 0 > 5)
    // The cut text still draws, ending in an ellipsis within the width.
    let bitmap = try Bitmap(width: 100, height: 60, background: .white)
    try bitmap.draw { canvas in try canvas.text(markup: Self.paragraph, x: 0, y: 0, width: 80, maximumHeight: 40) }
    var rightmostInk = 0
    for y in 0..<60 { for x in 0..<100 where bitmap.pixel(x: x, y: y).red < 128 { rightmostInk = max(rightmostInk, x) } }
    #expect(rightmostInk > 40 && rightmostInk <= 81)
  }

  @Test(arguments: [1.0, 20.0, 35.0, 50.0, 80.0, 113.0, 170.0, 260.0])
  func aMaximumHeightKeepsTheLinesPangoKeeps(_ maximumHeight: Double) throws {
    let lines = (1...20).map { "line \($0) of a code block" }.joined(separator: "\n")
    for markup in [lines, Self.paragraph, Self.japaneseParagraph] {
      let style = TextStyle(font: "Sans 9.5", lineSpacing: 1.5)
      let (harfBuzz, pango) = try heights(markup, width: 120, style: style, maximumHeight: maximumHeight)
      #expect(abs((harfBuzz ?? -1) - pango) < 0.5, "\(markup.prefix(12)) in \(maximumHeight): \(harfBuzz ?? -1) against pango's \(pango)")
    }
  }

  @Test func alignmentMovesLinesWithinTheWidth() throws {
    func firstInk(_ alignment: TextAlignment) throws -> Int {
      let bitmap = try Bitmap(width: 200, height: 30, background: .white)
      try TextLayout.draw(markup: "centre", in: bitmap, x: 0, y: 0, width: 200, style: TextStyle(alignment: alignment))
      for x in 0..<200 { for y in 0..<30 where bitmap.pixel(x: x, y: y).red < 128 { return x } }
      return -1
    }
    let leading = try firstInk(.leading)
    let center = try firstInk(.center)
    let trailing = try firstInk(.trailing)
    #expect(leading >= 0 && leading < 4)
    #expect(center > leading + 50 && trailing > center + 50)
  }

  // MARK: The cached font choice

  func environment(cache: URL) -> [String: String] {
    var environment = ProcessInfo.processInfo.environment
    environment["XDG_CACHE_HOME"] = cache.path
    return environment
  }

  func mode(_ url: URL) throws -> Int {
    (try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int) ?? -1
  }

  @Test func theChoiceIsKeptPrivatelyAndUsedAgain() throws {
    let cache = folder.file("cache")
    let environment = environment(cache: cache)
    let first = FontChoice.load(environment: environment)
    let chains = try #require(first.chains)
    #expect(FontChoice.allKeys.allSatisfy { chains[$0]?.isEmpty == false })
    let file = cache.appendingPathComponent("quire/\(FontChoice.fileName)")
    #expect(try mode(file) == 0o600)
    #expect(try mode(file.deletingLastPathComponent()) == 0o700)
    let text = try String(contentsOf: file, encoding: .utf8)
    #expect(FontChoice.parse(text, environment: environment)?.chains == chains)
    #expect(FontChoice.load(environment: environment).chains == chains)
  }

  @Test func aChangedStampOrEnvironmentIsNotTrusted() throws {
    let cache = folder.file("cache")
    let environment = environment(cache: cache)
    _ = FontChoice.load(environment: environment)
    let text = try String(contentsOf: cache.appendingPathComponent("quire/\(FontChoice.fileName)"), encoding: .utf8)
    #expect(FontChoice.parse(text, environment: environment) != nil)
    // A configuration file or font folder that changed since.
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    let stamp = try #require(lines.firstIndex { $0.hasPrefix("stamp\t") && !$0.hasSuffix("\t-") })
    var changed = lines
    changed[stamp] = changed[stamp].split(separator: "\t").dropLast().joined(separator: "\t") + "\t1.0 1 1 1"
    #expect(FontChoice.parse(changed.joined(separator: "\n"), environment: environment) == nil)
    // fontconfig's variables.
    var other = environment
    other["FONTCONFIG_PATH"] = folder.url.path
    #expect(FontChoice.parse(text, environment: other) == nil)
    // Cut short, another version, or not this format at all.
    #expect(FontChoice.parse(String(text.prefix(text.count / 2)), environment: environment) == nil)
    #expect(FontChoice.parse(text.replacingOccurrences(of: "quire-font-choice\t4", with: "quire-font-choice\t5"), environment: environment) == nil)
    #expect(FontChoice.parse("", environment: environment) == nil)
    #expect(FontChoice.parse("\u{FFFD}\t\t\n", environment: environment) == nil)
  }

  @Test func aLinkFIFOOrGarbageAtTheCacheIsReplacedNotFollowed() throws {
    let cache = folder.file("cache")
    let environment = environment(cache: cache)
    let quire = cache.appendingPathComponent("quire")
    try FileManager.default.createDirectory(at: quire, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    let file = quire.appendingPathComponent(FontChoice.fileName)
    let target = try folder.write("someone else's file\n", to: "target")
    let fileManager = FileManager.default

    try fileManager.createSymbolicLink(at: file, withDestinationURL: target)
    #expect(FontChoice.load(environment: environment).chains != nil)
    #expect(try String(contentsOf: target, encoding: .utf8) == "someone else's file\n")
    #expect(try fileManager.destinationOfSymbolicLinkOrNil(file) == nil)

    try fileManager.removeItem(at: file)
    #expect(mkfifo(file.path, 0o600) == 0)
    #expect(FontChoice.load(environment: environment).chains != nil)
    #expect(FontChoice.parse(try String(contentsOf: file, encoding: .utf8), environment: environment) != nil)

    try Data([0xFF, 0xFE, 0, 1, 2]).write(to: file)
    #expect(FontChoice.load(environment: environment).chains != nil)
    #expect(FontChoice.parse(try String(contentsOf: file, encoding: .utf8), environment: environment) != nil)
  }

  @Test func withoutACacheFolderEachKeyIsAskedWhenNeeded() throws {
    // The cache home is a file: no folder can be made in it (a sandbox without a home).
    let blocked = try folder.write("not a folder", to: "cache")
    let choice = FontChoice.load(environment: environment(cache: blocked))
    #expect(choice.chains == nil)
    #expect(!choice.chain(FontKey(family: .monospace, bold: true, italic: false)).isEmpty)
    #expect(try String(contentsOf: blocked, encoding: .utf8) == "not a folder")
  }

  @Test func theLocaleIsPartOfTheStamp() throws {
    // fontconfig chooses by the environment's language: a choice made under one locale is
    // not used under another.
    let cache = folder.file("cache")
    var environment = environment(cache: cache)
    environment["LANG"] = "C.UTF-8"
    _ = FontChoice.load(environment: environment)
    let text = try String(contentsOf: cache.appendingPathComponent("quire/\(FontChoice.fileName)"), encoding: .utf8)
    #expect(FontChoice.parse(text, environment: environment) != nil)
    environment["LANG"] = "ja_JP.UTF-8"
    #expect(FontChoice.parse(text, environment: environment) == nil)
  }
}

extension FileManager {
  /// The link's target, or `nil` when `url` is not a symbolic link.
  func destinationOfSymbolicLinkOrNil(_ url: URL) throws -> String? {
    guard (try? attributesOfItem(atPath: url.path)[.type] as? FileAttributeType) == .typeSymbolicLink else { return nil }
    return try destinationOfSymbolicLink(atPath: url.path)
  }
}
