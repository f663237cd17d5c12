internal import CPango
internal import CPoppler
import Foundation
import QuireTypes

/// How text is drawn: its font, colour, line spacing and alignment.
///
/// Text is shaped by HarfBuzz and fontconfig picks a font for each character, so Japanese and
/// other CJK text gets real glyphs from whichever installed font covers it (Noto CJK on
/// Debian). The layout accepts Pango markup (`<b>`, `<i>`, `<span font_family="monospace">`).
public struct TextStyle: Sendable, Hashable {
  /// A Pango font description, e.g. "Sans 11", "Monospace Bold 9".
  public var font: String
  /// Text colour.
  public var color: Color
  /// Extra space between lines, in points.
  public var lineSpacing: Double
  /// How lines sit in the width they are wrapped at (`pango_layout_set_alignment`).
  public var alignment: TextAlignment
  public init(font: String = "Sans 11", color: Color = .black, lineSpacing: Double = 0, alignment: TextAlignment = .leading) {
    self.font = font
    self.color = color
    self.lineSpacing = lineSpacing
    self.alignment = alignment
  }
}

/// Where lines of text sit in their width: `PANGO_ALIGN_LEFT`, `_CENTER`, `_RIGHT`.
public enum TextAlignment: Sendable, Hashable { case leading, center, trailing }

/// Draws text into bitmaps and PDF pages.
///
/// In a bitmap, the markup and scripts Quire's own pages use are laid out by a HarfBuzz
/// engine from fonts fontconfig chose once and the user's cache keeps
/// (`$XDG_CACHE_HOME/quire/font-choice`), with pango's line heights, breaks and glyph
/// positions; other text (right to left and complex scripts, emoji, other markup) and PDF
/// pages are laid out by pango.
/// `QUIRE_TEXT_ENGINE=pango` has pango lay out everything.
public enum TextLayout {
  /// Escapes `&`, `<`, `>`, quotes so that `text` can be placed inside Pango markup.
  public static func escapeMarkup(_ text: String) -> String {
    var out = ""
    out.reserveCapacity(text.utf8.count)
    for ch in text {
      switch ch {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\"": out += "&quot;"
      case "'": out += "&#39;"
      default: out.append(ch)
      }
    }
    return out
  }

  /// Draws Pango `markup` at (`x`, `y`), wrapped at `width` points, on `bitmap`.
  ///
  /// - Returns: The height the text took, in the bitmap's units.
  /// - Throws: ``QuireError`` when `markup` is not valid Pango markup.
  @discardableResult
  public static func draw(
    markup: String, in bitmap: Bitmap, x: Double, y: Double, width: Double, style: TextStyle = TextStyle()
  ) throws -> Double {
    try bitmap.withContext { cr in
      try draw(markup: markup, cairo: cr, x: x, y: y, width: width, style: style)
    }
  }

  /// Draws Pango markup on any cairo context (an image or a PDF surface).
  static func draw(
    markup: String, cairo cr: OpaquePointer, x: Double, y: Double, width: Double, style: TextStyle,
    maximumHeight: Double? = nil, show: Bool = true, engine: Engine = .harfBuzz
  ) throws -> Double {
    // Bitmaps get the text engine that needs no pango or fontconfig start-up when it can lay
    // the text out; PDF pages, and text it does not take, get pango.
    if engine == .harfBuzz, cairo_surface_get_type(cairo_get_target(cr)) == CAIRO_SURFACE_TYPE_IMAGE,
      let height = TextEngine.draw(markup: markup, cairo: cr, x: x, y: y, width: width, style: style, maximumHeight: maximumHeight, show: show)
    {
      return height
    }
    guard pango_parse_markup(markup, -1, 0, nil, nil, nil, nil) != 0 else {
      throw QuireError(.invalidArgument, "The text to draw is not valid Pango markup; escape it with TextLayout.escapeMarkup.")
    }
    guard let layout = pango_cairo_create_layout(cr) else {
      throw QuireError(.libraryFailure, "pango could not make a text layout.")
    }
    defer { cpango_object_release(UnsafeMutableRawPointer(layout)) }
    guard let font = pango_font_description_from_string(style.font) else {
      throw QuireError(.libraryFailure, "pango could not read the font description '\(style.font)'.")
    }
    defer { pango_font_description_free(font) }
    pango_layout_set_font_description(layout, font)
    pango_layout_set_width(layout, Int32(width * Double(PANGO_SCALE)))
    pango_layout_set_wrap(layout, PANGO_WRAP_WORD_CHAR)
    pango_layout_set_spacing(layout, Int32(style.lineSpacing * Double(PANGO_SCALE)))
    switch style.alignment {
    case .leading: pango_layout_set_alignment(layout, PANGO_ALIGN_LEFT)
    case .center: pango_layout_set_alignment(layout, PANGO_ALIGN_CENTER)
    case .trailing: pango_layout_set_alignment(layout, PANGO_ALIGN_RIGHT)
    }
    if let maximumHeight {
      pango_layout_set_height(layout, Int32(max(1, maximumHeight) * Double(PANGO_SCALE)))
      pango_layout_set_ellipsize(layout, PANGO_ELLIPSIZE_END)
    }
    pango_layout_set_markup(layout, markup, -1)
    cairo_set_source_rgba(cr, style.color.red, style.color.green, style.color.blue, style.color.alpha)
    if show {
      cairo_move_to(cr, x, y)
      pango_cairo_show_layout(cr, layout)
    }
    var logical = PangoRectangle()
    pango_layout_get_extents(layout, nil, &logical)
    return Double(logical.height) / Double(PANGO_SCALE)
  }

  /// How many characters of `markup` no installed font has a glyph for (they would show as
  /// boxes); 0 when fontconfig found fonts for every script in it.
  /// - Throws: ``QuireError`` when `markup` is not valid Pango markup.
  public static func unknownGlyphCount(markup: String, style: TextStyle = TextStyle()) throws -> Int {
    guard pango_parse_markup(markup, -1, 0, nil, nil, nil, nil) != 0 else {
      throw QuireError(.invalidArgument, "The text to measure is not valid Pango markup; escape it with TextLayout.escapeMarkup.")
    }
    let bitmap = try Bitmap(width: 1, height: 1)
    return try bitmap.withContext { cr in
      guard let layout = pango_cairo_create_layout(cr) else {
        throw QuireError(.libraryFailure, "pango could not make a text layout.")
      }
      defer { cpango_object_release(UnsafeMutableRawPointer(layout)) }
      if let font = pango_font_description_from_string(style.font) {
        pango_layout_set_font_description(layout, font)
        pango_font_description_free(font)
      }
      pango_layout_set_markup(layout, markup, -1)
      return Int(pango_layout_get_unknown_glyphs_count(layout))
    }
  }

  /// Reads the font choice (``FontChoice``, asking fontconfig only when the cached one is
  /// stale) and opens the body face, so that the first text drawn later in the process finds
  /// them ready. `quire thumbnail` calls it while it parses its arguments (`StartupPrefetch`).
  package static func prepareFonts() {
    TextEngine.prepare()
  }

  /// Which text engine lays text out for ``layoutHeight(markup:width:style:maximumHeight:engine:)``.
  package enum Engine: Sendable { case harfBuzz, pango }

  /// The height `markup` takes at `width` in a bitmap drawn at `scale` when laid out by
  /// `engine`; `nil` when the HarfBuzz engine does not take this text (then bitmaps get
  /// pango's layout).
  package static func layoutHeight(
    markup: String, width: Double, style: TextStyle = TextStyle(), maximumHeight: Double? = nil, scale: Double = 1, engine: Engine
  ) throws -> Double? {
    let bitmap = try Bitmap(width: 1, height: 1)
    return try bitmap.withContext { cr in
      cairo_scale(cr, scale, scale)
      switch engine {
      case .harfBuzz:
        return TextEngine.draw(markup: markup, cairo: cr, x: 0, y: 0, width: width, style: style, maximumHeight: maximumHeight, show: false)
      case .pango:
        return try draw(
          markup: markup, cairo: cr, x: 0, y: 0, width: width, style: style, maximumHeight: maximumHeight, show: false, engine: .pango)
      }
    }
  }

  /// The version of the linked pango, e.g. "1.50.12".
  public static var libraryVersion: String { String(cString: pango_version_string()) }
}
