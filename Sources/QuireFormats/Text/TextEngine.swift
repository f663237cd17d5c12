internal import CPango
internal import CPoppler
import Foundation
import QuireSystem
import Synchronization
import SystemPackage

/// A face ready to shape and draw: HarfBuzz's font (OpenType metrics, no hinting, the same
/// layout at every scale) and cairo's FreeType font face with fontconfig's rendering settings.
/// Made once per process for each face used, and kept for the process's life.
final class LoadedFace: @unchecked Sendable {
  // Both handles are only read after `init`: HarfBuzz fonts may shape on any thread, and
  // cairo locks the FreeType face it opens from the file itself.
  let font: OpaquePointer
  let cairoFace: OpaquePointer
  let unitsPerEm: Double
  /// Metrics as fractions of the font size: ascender up, descender down, underline and
  /// strikeout offsets from the baseline (underline down, strikeout up), and their thickness.
  let ascender, descender, underlineOffset, underlineThickness, strikeoutOffset, strikeoutThickness: Double

  private init?(_ chosen: ChosenFace) {
    // Only a regular file (a cache edited to name a FIFO would otherwise block the read).
    guard case .success(let info) = SystemCalls.stat(FilePath(chosen.file)), info.st_mode & S_IFMT == S_IFREG,
      let blob = hb_blob_create_from_file_or_fail(chosen.file)
    else { return nil }
    let face = hb_face_create(blob, UInt32(max(0, chosen.index)))
    hb_blob_destroy(blob)
    defer { hb_face_destroy(face) }
    let upem = hb_face_get_upem(face)
    guard hb_face_get_glyph_count(face) > 0, upem > 0, let font = hb_font_create(face) else { return nil }
    let pattern = FcPatternCreate()!
    defer { FcPatternDestroy(pattern) }
    FontChoice.addString(pattern, FC_FILE, chosen.file)
    FcPatternAddInteger(pattern, FC_INDEX, chosen.index)
    FcPatternAddBool(pattern, FC_ANTIALIAS, chosen.antialias ? 1 : 0)
    FcPatternAddBool(pattern, FC_HINTING, chosen.hinting ? 1 : 0)
    FcPatternAddInteger(pattern, FC_HINT_STYLE, chosen.hintStyle)
    FcPatternAddBool(pattern, FC_AUTOHINT, chosen.autohint ? 1 : 0)
    FcPatternAddInteger(pattern, FC_LCD_FILTER, chosen.lcdFilter)
    guard let cairoFace = cairo_ft_font_face_create_for_pattern(pattern), cairo_font_face_status(cairoFace) == CAIRO_STATUS_SUCCESS else {
      hb_font_destroy(font)
      return nil
    }
    if chosen.embolden { cairo_ft_font_face_set_synthesize(cairoFace, CAIRO_FT_SYNTHESIZE_BOLD.rawValue) }
    self.font = font
    self.cairoFace = cairoFace
    unitsPerEm = Double(upem)
    var extents = hb_font_extents_t()
    hb_font_get_h_extents(font, &extents)
    let em = Double(upem)
    ascender = Double(extents.ascender) / em
    descender = -Double(extents.descender) / em
    func metric(_ tag: hb_ot_metrics_tag_t, _ fallback: Double) -> Double {
      var position: hb_position_t = 0
      return hb_ot_metrics_get_position(font, tag, &position) != 0 && position != 0 ? Double(position) / em : fallback
    }
    underlineOffset = -metric(HB_OT_METRICS_TAG_UNDERLINE_OFFSET, -0.1)
    underlineThickness = abs(metric(HB_OT_METRICS_TAG_UNDERLINE_SIZE, 0.05))
    strikeoutOffset = metric(HB_OT_METRICS_TAG_STRIKEOUT_OFFSET, 0.3)
    strikeoutThickness = abs(metric(HB_OT_METRICS_TAG_STRIKEOUT_SIZE, 0.05))
  }

  /// Whether the face has a glyph for `scalar` (its character map; no shaping).
  func covers(_ scalar: Unicode.Scalar) -> Bool {
    var glyph: hb_codepoint_t = 0
    return hb_font_get_nominal_glyph(font, scalar.value, &glyph) != 0
  }

  private static let faces = Mutex<[ChosenFace: LoadedFace?]>([:])

  /// The loaded face for `chosen`, made on first use; `nil` when its file cannot be read
  /// as a font (remembered, so it is tried once).
  static func face(_ chosen: ChosenFace) -> LoadedFace? {
    faces.withLock { faces in
      if let known = faces[chosen] { return known }
      let made = LoadedFace(chosen)
      faces[chosen] = made
      return made
    }
  }
}

/// Lays text out with HarfBuzz and draws it with cairo, from fonts fontconfig chose once
/// (``FontChoice``): the text Quire draws into bitmaps (thumbnails), without pango's and
/// fontconfig's start-up in every process.
///
/// It takes the Pango markup Quire writes (``StyledText``), in scripts written left to
/// right whose shaping needs no more than one font per character: Latin, Greek, Cyrillic,
/// Armenian, CJK (kana, Han, Hangul), punctuation and symbols. Each character gets the
/// first face of fontconfig's sorted list for its style that has a glyph for it, as pango
/// picks them (whose language is the C locale's; fontconfig adds the environment's). Lines
/// break after spaces and between CJK characters (not before closing punctuation or small
/// kana, not after opening brackets), inside a word only when it alone is wider than the
/// line; a layout given a maximum height ends with "…" when text is left over.
/// For anything else (right-to-left or complex scripts, emoji, other markup, a character no
/// chosen face has), ``draw(markup:cairo:x:y:width:style:maximumHeight:show:)`` returns
/// `nil` and ``TextLayout`` uses pango.
enum TextEngine {
  /// pango-cairo's resolution: a point is 96/72 of cairo's units.
  static let pointsToUnits = 96.0 / 72.0
  /// False when `QUIRE_TEXT_ENGINE=pango` asks for pango everywhere (to compare the two, or
  /// when a font set-up draws something wrongly here).
  static let isEnabled = FontChoice.environment(["QUIRE_TEXT_ENGINE"])["QUIRE_TEXT_ENGINE"] != "pango"

  /// Lays out (and when `show`, draws at (`x`, `y`)) `markup` wrapped at `width`, and
  /// returns its height; `nil` when this engine does not handle the text.
  static func draw(
    markup: String, cairo cr: OpaquePointer, x: Double, y: Double, width: Double, style: TextStyle, maximumHeight: Double?, show: Bool
  ) -> Double? {
    guard isEnabled, let text = StyledText(markup: markup, font: style.font) else { return nil }
    guard
      let layout = Layout(
        text, choice: FontChoice.current, width: width, spacing: style.lineSpacing, maximumHeight: maximumHeight, deviceScale: deviceScale(cr))
    else { return nil }
    if show { layout.draw(cairo: cr, x: x, y: y, width: width, alignment: style.alignment, color: style.color) }
    return layout.height
  }

  /// Device pixels per user unit along x in `cr`'s transformation.
  static func deviceScale(_ cr: OpaquePointer) -> Double {
    var matrix = cairo_matrix_t()
    cairo_get_matrix(cr, &matrix)
    return abs(matrix.xx) > 0 ? abs(matrix.xx) : 1
  }

  /// Starts what the first text needs (the font choice and the body face) without drawing.
  static func prepare() {
    guard isEnabled else { return }
    let body = FontChoice.current.chain(FontKey(family: .sans, bold: false, italic: false))
    if let face = body.first { _ = LoadedFace.face(face) }
  }

  // MARK: Characters

  /// A character this engine draws: one that takes a face of its own, or a combining mark,
  /// which takes the face of the character before it.
  enum CharacterKind { case base, mark }

  /// What kind of character `scalar` is, or `nil` when this engine does not draw it: scripts
  /// written left to right that need no more than one face per character (Latin, Greek,
  /// Cyrillic, Armenian, CJK ideographs, kana, Hangul), punctuation, symbols, spaces and tabs;
  /// not controls, joiners, bidirectional marks, variation selectors, emoji, or other scripts.
  static func kind(_ scalar: Unicode.Scalar) -> CharacterKind? {
    switch scalar.value {
    case 0x09, 0x20...0x7E, 0xA0...0x2FF, 0x370...0x58F, 0x1100...0x11FF, 0x1D00...0x1DBF, 0x1E00...0x1FFF: return .base
    case 0x2000...0x200A, 0x2010...0x2027, 0x202F...0x205E, 0x2070...0x20CF, 0x2100...0x2BFF: return .base
    case 0x2E80...0x2FDF, 0x3000...0x312F, 0x3130...0x318F, 0x31A0...0x31BF, 0x31F0...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF: return .base
    case 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF01...0xFFDC, 0xFFE0...0xFFEE, 0x20000...0x3FFFF: return .base
    case 0x300...0x36F, 0x1AB0...0x1AFF, 0x1DC0...0x1DFF, 0x20D0...0x20FF, 0xFE20...0xFE2F: return .mark
    default: return nil
    }
  }

  static func isCJK(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x2E80...0x9FFF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF01...0xFF60, 0xFF61...0xFFDC, 0x20000...0x3FFFF: return true
    default: return false
    }
  }

  /// Characters a line does not start with (closing punctuation, small kana, iteration
  /// marks) and ones it does not end with (opening brackets), as sorted scalar values.
  static let noBreakBefore = "!%),.:;?]}¢°’”‰′″›»、。，．・：；？！ー‐〜～…‥）」』】〕〉》〙〗｝］｠〟ゝゞヽヾぁぃぅぇぉっゃゅょゎゕゖァィゥェォッャュョヮヵヶ々〻"
    .unicodeScalars.map(\.value).sorted()
  static let noBreakAfter = "([{‘“‹«（「『【〔〈《〘〖｛［｟〝".unicodeScalars.map(\.value).sorted()

  static func isSpace(_ scalar: Unicode.Scalar) -> Bool { scalar == " " || scalar == "\u{3000}" || scalar == "\t" }
  static func isLetter(_ scalar: Unicode.Scalar) -> Bool { scalar.properties.isAlphabetic }

  // MARK: Layout

  struct Item {
    var face: LoadedFace
    var style: Int
    var size: Double
    var rise: Double
    var range: Range<Int>
    /// The face's ascent and descent at this size, rounded up to whole units as pango's
    /// metrics are.
    var ascent: Double { (size * face.ascender).rounded(.up) }
    var descent: Double { (size * face.descender).rounded(.up) }
    /// Device pixels per unit: glyph positions are rounded to whole pixels, as pango rounds
    /// them (`pango_context_set_round_glyph_positions`) in the device's space.
    var deviceScale: Double
    func position(_ value: Double) -> Double { (value * deviceScale).rounded() / deviceScale }
  }

  struct Cluster {
    var scalars: Range<Int>
    /// The item, or −1 for a tab.
    var item: Int
    var glyphs: Range<Int>
    var width: Double
    var isSpace: Bool
  }

  struct Paragraph {
    var scalars: [Unicode.Scalar]
    var items: [Item] = []
    var glyphs: [(id: UInt32, advance: Double, dx: Double, dy: Double)] = []
    var clusters: [Cluster] = []
  }

  /// Glyphs drawn after a line's clusters (a hyphen or "…"), with the item whose face and
  /// size they take.
  typealias Ending = (item: Item, glyphs: [(id: UInt32, advance: Double)])

  struct Line {
    var paragraph: Int
    var clusters: Range<Int>
    var ascent: Double
    var descent: Double
    var top = 0.0
    /// What is drawn after the line's clusters: the hyphen of a word broken inside, or the
    /// "…" that ends a layout cut at its maximum height; its face, size and glyphs.
    var ending: Ending? = nil
  }

  struct Layout {
    var paragraphs: [Paragraph] = []
    var lines: [Line] = []
    var height = 0.0
    var styles: [RunStyle]
    var tabWidth: Double
    var baseSize: Double

    init?(_ text: StyledText, choice: FontChoice, width: Double, spacing: Double, maximumHeight: Double?, deviceScale: Double) {
      styles = text.styles
      baseSize = text.pointSize * TextEngine.pointsToUnits
      func faces(_ style: RunStyle) -> [ChosenFace] { choice.chain(style.fontKey) }
      guard let baseFace = faces(text.base).lazy.compactMap(LoadedFace.face).first else { return nil }
      var space: hb_codepoint_t = 0
      var spaceAdvance = 0.5 * baseFace.unitsPerEm
      if hb_font_get_nominal_glyph(baseFace.font, 0x20, &space) != 0 { spaceAdvance = Double(hb_font_get_glyph_h_advance(baseFace.font, space)) }
      let spaceWidth = spaceAdvance / baseFace.unitsPerEm * baseSize
      tabWidth = 8 * (spaceWidth * deviceScale).rounded() / deviceScale
      let baseItem = Item(face: baseFace, style: 0, size: baseSize, rise: 0, range: 0..<0, deviceScale: deviceScale)

      let buffer = hb_buffer_create()
      defer { hb_buffer_destroy(buffer) }
      // With a maximum height, lines follow pango's rule (`should_ellipsize_current_line`):
      // a line is the last when twice the height of the line before it (of the layout's font,
      // for the first) exceeds the room left, so the last may reach a little below the
      // maximum; it ends in "…" when its paragraph goes on. A paragraph starts only where a
      // line as high as the last one fits. Paragraphs below are not shaped.
      var room = maximumHeight
      var estimate = baseItem.ascent + baseItem.descent
      var bottom = 0.0
      shaping: for source in text.paragraphs {
        if let left = room, !lines.isEmpty, left < estimate { break }
        guard let paragraph = Self.shape(source, styles: styles, baseSize: baseSize, faces: faces, buffer: buffer, deviceScale: deviceScale)
        else { return nil }
        let index = paragraphs.count
        paragraphs.append(paragraph)
        let ranges = breakLines(index, width: width)
        for (number, (range, hyphen)) in ranges.enumerated() {
          var line = Line(paragraph: index, clusters: range, ascent: 0, descent: 0)
          line.ending = hyphen
          line.top = lines.isEmpty ? 0 : bottom + spacing
          if let left = room, estimate * 2 > left {
            if number + 1 < ranges.count { ellipsize(&line, width: width, fallback: baseItem, faces: faces(text.base)) }
            measure(&line, base: baseItem)
            lines.append(line)
            bottom = line.top + line.ascent + line.descent
            break shaping
          }
          measure(&line, base: baseItem)
          bottom = line.top + line.ascent + line.descent
          lines.append(line)
          if let left = room {
            room = left - (line.ascent + line.descent + spacing)
          }
          estimate = line.ascent + line.descent
        }
      }
      height = bottom
    }

    /// Items (runs of one style and face), their glyphs, and grapheme clusters.
    static func shape(
      _ source: StyledText.Paragraph, styles: [RunStyle], baseSize: Double, faces: (RunStyle) -> [ChosenFace], buffer: OpaquePointer?,
      deviceScale: Double
    ) -> Paragraph? {
      var paragraph = Paragraph(scalars: source.scalars)
      var previousFace: LoadedFace? = nil
      var tabs = Set<Int>()
      for (index, scalar) in source.scalars.enumerated() {
        if scalar == "\t" {
          tabs.insert(index)
          continue
        }
        guard let kind = TextEngine.kind(scalar) else { return nil }
        let style = styles[source.styles[index]]
        let face: LoadedFace
        if kind == .mark {
          guard let previous = previousFace, previous.covers(scalar) else { return nil }
          face = previous
        } else {
          guard let found = faces(style).lazy.compactMap(LoadedFace.face).first(where: { $0.covers(scalar) }) else { return nil }
          face = found
        }
        previousFace = face
        if let last = paragraph.items.last, last.range.upperBound == index, last.style == source.styles[index], last.face === face {
          paragraph.items[paragraph.items.count - 1].range = last.range.lowerBound..<(index + 1)
        } else {
          let levels = Double(abs(style.rise))
          let size = baseSize * style.scale * pow(1 / 1.2, levels)
          // pango's `<sup>`: a smaller face raised by 0.4 of the surrounding size.
          let rise = Double(style.rise) * 0.4 * size * pow(1.2, min(1, levels))
          paragraph.items.append(
            Item(
              face: face, style: source.styles[index], size: size, rise: rise, range: index..<(index + 1),
              deviceScale: deviceScale))
        }
      }

      let codepoints = source.scalars.map(\.value)
      for (itemIndex, item) in paragraph.items.enumerated() {
        hb_buffer_clear_contents(buffer)
        hb_buffer_add_codepoints(buffer, codepoints, Int32(codepoints.count), UInt32(item.range.lowerBound), Int32(item.range.count))
        hb_buffer_set_direction(buffer, HB_DIRECTION_LTR)
        hb_buffer_guess_segment_properties(buffer)
        hb_shape(item.face.font, buffer, nil, 0)
        var count: UInt32 = 0
        guard let infos = hb_buffer_get_glyph_infos(buffer, &count), let positions = hb_buffer_get_glyph_positions(buffer, &count) else {
          continue
        }
        let scale = item.size / item.face.unitsPerEm
        for glyph in 0..<Int(count) {
          let cluster = Int(infos[glyph].cluster)
          // Whole units, as pango rounds glyph positions (`pango_context_set_round_glyph_positions`).
          let advance = item.position(Double(positions[glyph].x_advance) * scale)
          paragraph.glyphs.append(
            (
              infos[glyph].codepoint, advance, item.position(Double(positions[glyph].x_offset) * scale),
              item.position(Double(positions[glyph].y_offset) * scale)
            ))
          let glyphIndex = paragraph.glyphs.count - 1
          if let last = paragraph.clusters.last, last.item == itemIndex, last.scalars.lowerBound == cluster || cluster < last.scalars.lowerBound {
            paragraph.clusters[paragraph.clusters.count - 1].glyphs = last.glyphs.lowerBound..<(glyphIndex + 1)
            paragraph.clusters[paragraph.clusters.count - 1].width += advance
          } else {
            paragraph.clusters.append(
              Cluster(scalars: cluster..<(cluster + 1), item: itemIndex, glyphs: glyphIndex..<(glyphIndex + 1), width: advance, isSpace: false))
          }
        }
      }
      for tab in tabs {
        paragraph.clusters.append(Cluster(scalars: tab..<(tab + 1), item: -1, glyphs: 0..<0, width: 0, isSpace: true))
      }
      // Clusters in text order, each reaching to the next one's first scalar.
      paragraph.clusters.sort { $0.scalars.lowerBound < $1.scalars.lowerBound }
      for index in paragraph.clusters.indices {
        let end = index + 1 < paragraph.clusters.count ? paragraph.clusters[index + 1].scalars.lowerBound : source.scalars.count
        paragraph.clusters[index].scalars = paragraph.clusters[index].scalars.lowerBound..<max(end, paragraph.clusters[index].scalars.lowerBound + 1)
        let first = source.scalars[paragraph.clusters[index].scalars.lowerBound]
        paragraph.clusters[index].isSpace = TextEngine.isSpace(first)
      }
      return paragraph
    }

    /// Whether a line may start at cluster `index` of `paragraph`.
    func canBreak(before index: Int, in paragraph: Paragraph) -> Bool {
      let scalars = paragraph.scalars
      let current = scalars[paragraph.clusters[index].scalars.lowerBound]
      let previousRange = paragraph.clusters[index - 1].scalars
      let previous = scalars[previousRange.upperBound - 1]
      if TextEngine.isSpace(current) { return false }
      if TextEngine.isSpace(previous) { return true }
      if TextEngine.noBreakBefore.contains(current.value) || TextEngine.noBreakAfter.contains(previous.value) { return false }
      if TextEngine.isCJK(current) || TextEngine.isCJK(previous) { return true }
      if previous == "-" || previous == "\u{2010}" || previous == "\u{2013}" || previous == "/" {
        return previousRange.lowerBound > 0 && TextEngine.isLetter(scalars[previousRange.lowerBound - 1]) && TextEngine.isLetter(current)
      }
      return false
    }

    func advance(of cluster: Cluster, at x: Double) -> Double {
      guard cluster.item < 0 else { return cluster.width }
      let next = (x / tabWidth).rounded(.down) * tabWidth + tabWidth
      return next - x < 0.001 ? tabWidth : next - x
    }

    /// The paragraph's lines as ranges of its clusters: greedy, at the last break opportunity
    /// that fits, or, when a word alone is wider than the line, inside it before the cluster
    /// that overflows, with a hyphen when letters are on both sides (as pango inserts one).
    func breakLines(_ index: Int, width: Double) -> [(Range<Int>, hyphen: Ending?)] {
      let paragraph = paragraphs[index]
      var lines: [(Range<Int>, hyphen: Ending?)] = []
      var start = 0
      var x = 0.0
      var lastBreak: Int? = nil
      var cluster = 0
      while cluster < paragraph.clusters.count {
        if cluster > start, canBreak(before: cluster, in: paragraph) { lastBreak = cluster }
        let advance = advance(of: paragraph.clusters[cluster], at: x)
        if !paragraph.clusters[cluster].isSpace, x + advance > width + 0.001, cluster > start {
          var end = lastBreak ?? cluster
          var hyphen: Ending? = nil
          if lastBreak == nil, let made = self.hyphen(before: end, in: paragraph) {
            // Room for the hyphen: clusters go to the next line until it fits.
            let hyphenWidth = made.glyphs.reduce(0) { $0 + $1.advance }
            var lineWidth = x
            while end > start + 1, lineWidth + hyphenWidth > width + 0.001 {
              end -= 1
              lineWidth -= paragraph.clusters[end].width
            }
            hyphen = made
          }
          lines.append((start..<end, hyphen))
          start = end
          cluster = end
          x = 0
          lastBreak = nil
          continue
        }
        x += advance
        cluster += 1
      }
      lines.append((start..<paragraph.clusters.count, nil))
      return lines
    }

    /// The hyphen for a break inside a word before cluster `index`, in the face and size of
    /// the cluster before it; `nil` when the break is not between two letters.
    func hyphen(before index: Int, in paragraph: Paragraph) -> Ending? {
      let before = paragraph.clusters[index - 1]
      guard before.item >= 0, TextEngine.isLetter(paragraph.scalars[before.scalars.upperBound - 1]),
        TextEngine.isLetter(paragraph.scalars[paragraph.clusters[index].scalars.lowerBound])
      else { return nil }
      let item = paragraph.items[before.item]
      guard let glyphs = Self.glyphs("\u{2010}", item: item) ?? Self.glyphs("-", item: item) else { return nil }
      return (item, glyphs)
    }

    /// The width of a line's clusters from its start, trailing spaces left out.
    func width(of line: Line) -> Double {
      let clusters = paragraphs[line.paragraph].clusters
      var x = 0.0
      var inked = 0.0
      for cluster in clusters[line.clusters] {
        x += advance(of: cluster, at: x)
        if !cluster.isSpace { inked = x }
      }
      return inked + (line.ending?.glyphs.reduce(0) { $0 + $1.advance } ?? 0)
    }

    /// Sets `line`'s ascent and descent: the largest of its items' (raised or lowered), or
    /// the layout font's for a line of nothing but tabs or no text.
    func measure(_ line: inout Line, base: Item) {
      let paragraph = paragraphs[line.paragraph]
      var seen: [Int] = []
      line.ascent = 0
      line.descent = 0
      for cluster in paragraph.clusters[line.clusters] where cluster.item >= 0 && !seen.contains(cluster.item) {
        seen.append(cluster.item)
        let item = paragraph.items[cluster.item]
        line.ascent = max(line.ascent, item.ascent + item.rise)
        line.descent = max(line.descent, item.descent - item.rise)
      }
      if seen.isEmpty {
        line.ascent = base.ascent
        line.descent = base.descent
      }
    }

    /// Ends `line` with "…": the rest of its paragraph joins it, cut where the ellipsis fits.
    func ellipsize(_ line: inout Line, width available: Double, fallback: Item, faces: [ChosenFace]) {
      let paragraph = paragraphs[line.paragraph]
      var item = fallback
      if let last = paragraph.clusters[line.clusters].last(where: { $0.item >= 0 }) { item = paragraph.items[last.item] }
      var glyphs = Self.glyphs("\u{2026}", item: item)
      if glyphs == nil, let face = faces.lazy.compactMap(LoadedFace.face).first(where: { $0.covers("\u{2026}") }) {
        item.face = face
        glyphs = Self.glyphs("\u{2026}", item: item)
      }
      if glyphs == nil {
        item = fallback
        glyphs = Self.glyphs("...", item: item)
      }
      let ellipsis = glyphs ?? []
      let ellipsisWidth = ellipsis.reduce(0) { $0 + $1.advance }
      // As pango: the rest of the paragraph joins the line, which is cut where the ellipsis
      // still fits (inside a word too), without the spaces before the cut.
      let clusters = paragraph.clusters
      var x = 0.0
      var end = line.clusters.lowerBound
      var cut = end
      while end < clusters.count {
        let advance = advance(of: clusters[end], at: x)
        if x + advance + ellipsisWidth > available + 0.001 { break }
        x += advance
        end += 1
        if !clusters[end - 1].isSpace { cut = end }
      }
      line.clusters = line.clusters.lowerBound..<cut
      line.ending = (item, ellipsis)
    }

    /// `text` shaped alone in `item`'s face and size; `nil` when the face lacks a character.
    static func glyphs(_ text: String, item: Item) -> [(id: UInt32, advance: Double)]? {
      guard text.unicodeScalars.allSatisfy(item.face.covers) else { return nil }
      let buffer = hb_buffer_create()
      defer { hb_buffer_destroy(buffer) }
      let codepoints = text.unicodeScalars.map(\.value)
      hb_buffer_add_codepoints(buffer, codepoints, Int32(codepoints.count), 0, Int32(codepoints.count))
      hb_buffer_guess_segment_properties(buffer)
      hb_shape(item.face.font, buffer, nil, 0)
      var count: UInt32 = 0
      guard let infos = hb_buffer_get_glyph_infos(buffer, &count), let positions = hb_buffer_get_glyph_positions(buffer, &count) else { return nil }
      let scale = item.size / item.face.unitsPerEm
      return (0..<Int(count)).map { (infos[$0].codepoint, item.position(Double(positions[$0].x_advance) * scale)) }
    }

    // MARK: Drawing

    func draw(cairo cr: OpaquePointer, x: Double, y: Double, width: Double, alignment: TextAlignment, color: Color) {
      cairo_save(cr)
      defer { cairo_restore(cr) }
      let options = cairo_font_options_create()
      defer { cairo_font_options_destroy(options) }
      // Positions are HarfBuzz's, unhinted, as pango lays text out.
      cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF)
      cairo_set_font_options(cr, options)
      for line in lines {
        let paragraph = paragraphs[line.paragraph]
        let lineWidth = self.width(of: line)
        let left: Double
        switch alignment {
        case .leading: left = x
        case .center: left = x + (width - lineWidth) / 2
        case .trailing: left = x + width - lineWidth
        }
        let baseline = y + line.top + line.ascent
        var pen = 0.0
        var start = line.clusters.lowerBound
        while start < line.clusters.upperBound {
          let first = paragraph.clusters[start]
          guard first.item >= 0 else {
            pen += advance(of: first, at: pen)
            start += 1
            continue
          }
          var end = start + 1
          while end < line.clusters.upperBound, paragraph.clusters[end].item == first.item { end += 1 }
          let item = paragraph.items[first.item]
          let glyphRange = first.glyphs.lowerBound..<paragraph.clusters[end - 1].glyphs.upperBound
          let segmentWidth = paragraph.clusters[start..<end].reduce(0) { $0 + $1.width }
          draw(
            item: item, glyphs: paragraph.glyphs[glyphRange].map { ($0.id, $0.advance, $0.dx, $0.dy) }, cairo: cr,
            x: left + pen, baseline: baseline, width: segmentWidth, color: color)
          pen += segmentWidth
          start = end
        }
        if let ending = line.ending {
          let width = ending.glyphs.reduce(0) { $0 + $1.advance }
          draw(
            item: ending.item, glyphs: ending.glyphs.map { ($0.id, $0.advance, 0, 0) }, cairo: cr, x: left + pen, baseline: baseline,
            width: width, color: color)
        }
      }
    }

    /// One run of glyphs of one item: its background, the glyphs, then its lines.
    func draw(
      item: Item, glyphs: [(id: UInt32, advance: Double, dx: Double, dy: Double)], cairo cr: OpaquePointer, x: Double, baseline: Double,
      width: Double, color: Color
    ) {
      let style = styles[item.style]
      let base = baseline - item.rise
      let face = item.face
      if let background = style.background {
        cairo_set_source_rgba(cr, background.red, background.green, background.blue, background.alpha)
        cairo_rectangle(cr, x, base - item.ascent, width, item.ascent + item.descent)
        cairo_fill(cr)
      }
      let ink = style.foreground ?? color
      cairo_set_source_rgba(cr, ink.red, ink.green, ink.blue, ink.alpha)
      var pen = x
      var placed = glyphs.map { glyph -> cairo_glyph_t in
        defer { pen += glyph.advance }
        return cairo_glyph_t(index: UInt(glyph.id), x: pen + glyph.dx, y: base - glyph.dy)
      }
      cairo_set_font_face(cr, face.cairoFace)
      cairo_set_font_size(cr, item.size)
      cairo_show_glyphs(cr, &placed, Int32(placed.count))
      if style.underline {
        cairo_rectangle(cr, x, base + item.size * face.underlineOffset, width, max(0.5, item.size * face.underlineThickness))
        cairo_fill(cr)
      }
      if style.strikethrough {
        let thickness = max(0.5, item.size * face.strikeoutThickness)
        cairo_rectangle(cr, x, base - item.size * face.strikeoutOffset - thickness / 2, width, thickness)
        cairo_fill(cr)
      }
    }
  }
}
