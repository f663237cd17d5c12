/// How a run of text looks: what Pango markup's tags and `<span>` attributes said.
struct RunStyle: Hashable, Sendable {
  var family: FontFamily
  var bold: Bool
  var italic: Bool
  /// The size as a multiple of the layout's font size (`size="90%"`, `<small>`, `<big>`).
  var scale = 1.0
  /// The colour, when markup gave one; the style's colour otherwise.
  var foreground: Color? = nil
  var background: Color? = nil
  var underline = false
  var strikethrough = false
  /// Superscript levels (`<sup>` +1, `<sub>` −1).
  var rise = 0

  /// What this run asks fontconfig for.
  var fontKey: FontKey { FontKey(family: family, bold: bold, italic: italic) }
}

/// Text in paragraphs of Unicode scalars, each scalar with the index of its run's style:
/// what ``TextEngine`` lays out. Made from the part of Pango markup Quire's own drawing
/// writes (`<b>`, `<i>`, `<s>`, `<u>`, `<tt>`, `<sup>`, `<sub>`, `<small>`, `<big>`, `<span>`
/// with `font_family`, `size`, `foreground`, `background`, `underline`, `strikethrough`,
/// `weight` and `style`, the five XML entities and character references); anything else
/// makes ``init(markup:font:)`` return `nil`, and pango lays the text out instead.
struct StyledText {
  struct Paragraph {
    var scalars: [Unicode.Scalar] = []
    var styles: [Int] = []
  }
  var paragraphs: [Paragraph]
  var styles: [RunStyle]
  /// The layout's font size in points.
  var pointSize: Double
  var base: RunStyle

  /// A Pango font description Quire uses ("Sans 9.5", "Sans Bold Italic 8", "Monospace 8"),
  /// read as family, weight, slant and size; `nil` for any other.
  static func font(_ description: String) -> (RunStyle, Double)? {
    var words = description.split(separator: " ").map { $0.lowercased() }
    guard let last = words.popLast(), let size = Double(last), size > 0, size < 1000 else { return nil }
    var family: FontFamily? = nil
    var bold = false
    var italic = false
    for word in words {
      switch word {
      case "sans", "sans-serif": family = .sans
      case "monospace", "mono": family = .monospace
      case "bold": bold = true
      case "italic", "oblique": italic = true
      case "normal", "regular", "book", "roman": break
      default: return nil
      }
    }
    guard let family else { return nil }
    return (RunStyle(family: family, bold: bold, italic: italic), size)
  }

  init?(markup: String, font: String) {
    guard let (base, size) = Self.font(font) else { return nil }
    self.base = base
    pointSize = size
    styles = [base]
    paragraphs = [Paragraph()]
    var stack: [(name: String, style: RunStyle)] = [("", base)]
    let scalars = Array(markup.unicodeScalars)
    var index = 0
    var current = 0
    var previousWasCR = false
    while index < scalars.count {
      let scalar = scalars[index]
      switch scalar {
      case "<":
        guard let close = scalars[index...].firstIndex(of: ">") else { return nil }
        let tag = String(String.UnicodeScalarView(scalars[(index + 1)..<close]))
        index = close + 1
        if tag.hasPrefix("/") {
          guard stack.count > 1, Substring(stack.last!.name) == Self.trimmed(tag.dropFirst()) else { return nil }
          stack.removeLast()
        } else {
          guard let (name, style) = Self.open(tag, in: stack.last!.style) else { return nil }
          stack.append((name, style))
        }
        // A handful of styles: found by looking through them.
        let style = stack.last!.style
        if let known = styles.firstIndex(of: style) {
          current = known
        } else {
          current = styles.count
          styles.append(style)
        }
        previousWasCR = false
        continue
      case "&":
        guard let end = scalars[index...].prefix(12).firstIndex(of: ";"),
          let decoded = Self.entity(String(String.UnicodeScalarView(scalars[(index + 1)..<end])))
        else { return nil }
        index = end + 1
        append(decoded, style: current, previousWasCR: &previousWasCR)
        continue
      default:
        append(scalar, style: current, previousWasCR: &previousWasCR)
        index += 1
      }
    }
    guard stack.count == 1 else { return nil }
  }

  private mutating func append(_ scalar: Unicode.Scalar, style: Int, previousWasCR: inout Bool) {
    switch scalar {
    case "\n" where previousWasCR:
      previousWasCR = false
    case "\n", "\r", "\u{2029}":
      paragraphs.append(Paragraph())
      previousWasCR = scalar == "\r"
    default:
      paragraphs[paragraphs.count - 1].scalars.append(scalar)
      paragraphs[paragraphs.count - 1].styles.append(style)
      previousWasCR = false
    }
  }

  /// The style an opening tag makes of `style`, and the tag's name; `nil` for tags and
  /// attributes this reader does not know.
  static func open(_ tag: String, in style: RunStyle) -> (String, RunStyle)? {
    guard !tag.hasSuffix("/") else { return nil }
    let name = String(tag.prefix(while: { !$0.isWhitespace }))
    var style = style
    switch name {
    case "b": style.bold = true
    case "i": style.italic = true
    case "s": style.strikethrough = true
    case "u": style.underline = true
    case "tt": style.family = .monospace
    case "sup": style.rise += 1
    case "sub": style.rise -= 1
    case "small": style.scale /= 1.2
    case "big": style.scale *= 1.2
    case "span":
      guard let attributes = attributes(tag.dropFirst(name.count)) else { return nil }
      for (key, value) in attributes {
        switch key {
        case "font_family", "face":
          switch value.lowercased() {
          case "sans", "sans-serif": style.family = .sans
          case "monospace", "mono": style.family = .monospace
          default: return nil
          }
        case "size", "font_size":
          guard let scale = sizeScale(value) else { return nil }
          style.scale *= scale
        case "foreground", "fgcolor", "color":
          guard let color = color(value) else { return nil }
          style.foreground = color
        case "background", "bgcolor":
          guard let color = color(value) else { return nil }
          style.background = color
        case "underline":
          switch value {
          case "single", "true", "low": style.underline = true
          case "none", "false": style.underline = false
          default: return nil
          }
        case "strikethrough":
          switch value {
          case "true": style.strikethrough = true
          case "false": style.strikethrough = false
          default: return nil
          }
        case "weight", "font_weight":
          switch value {
          case "bold", "heavy", "ultrabold", "semibold": style.bold = true
          case "normal", "book", "regular": style.bold = false
          default:
            guard let number = Int(value) else { return nil }
            style.bold = number >= 600
          }
        case "style", "font_style":
          switch value {
          case "italic", "oblique": style.italic = true
          case "normal": style.italic = false
          default: return nil
          }
        default: return nil
        }
      }
    default: return nil
    }
    return (name, style)
  }

  /// `key="value"` pairs (either quote), or `nil` when the text is not only such pairs.
  static func attributes(_ text: Substring) -> [(String, String)]? {
    var result: [(String, String)] = []
    var rest = text.drop(while: \.isWhitespace)
    while !rest.isEmpty {
      guard let equals = rest.firstIndex(of: "=") else { return nil }
      let key = String(trimmed(rest[..<equals]))
      rest = rest[rest.index(after: equals)...].drop(while: \.isWhitespace)
      guard let quote = rest.first, quote == "\"" || quote == "'" else { return nil }
      rest = rest.dropFirst()
      guard let end = rest.firstIndex(of: quote), !key.isEmpty else { return nil }
      let value = String(rest[..<end])
      guard !value.contains("&"), !value.contains("<") else { return nil }
      result.append((key, value))
      rest = rest[rest.index(after: end)...].drop(while: \.isWhitespace)
    }
    return result
  }

  /// `text` without the spaces and tabs around it.
  static func trimmed(_ text: Substring) -> Substring {
    let start = text.firstIndex { $0 != " " && $0 != "\t" } ?? text.endIndex
    let end = text.lastIndex { $0 != " " && $0 != "\t" }.map(text.index(after:)) ?? start
    return text[start..<max(start, end)]
  }

  /// A relative size: a percentage or a CSS size word; `nil` for absolute sizes.
  static func sizeScale(_ value: String) -> Double? {
    switch value {
    case "xx-small": return 1 / (1.2 * 1.2 * 1.2)
    case "x-small": return 1 / (1.2 * 1.2)
    case "small", "smaller": return 1 / 1.2
    case "medium": return 1
    case "large", "larger": return 1.2
    case "x-large": return 1.2 * 1.2
    case "xx-large": return 1.2 * 1.2 * 1.2
    default:
      guard value.hasSuffix("%"), let percent = Double(value.dropLast()), percent > 0, percent <= 1000 else { return nil }
      return percent / 100
    }
  }

  /// `#rgb` or `#rrggbb`.
  static func color(_ value: String) -> Color? {
    guard value.hasPrefix("#") else { return nil }
    let digits = value.dropFirst()
    guard digits.count == 3 || digits.count == 6, let number = UInt32(digits, radix: 16) else { return nil }
    if digits.count == 3 {
      func channel(_ shift: UInt32) -> Double { Double((number >> shift) & 0xf) * 17 / 255 }
      return Color(red: channel(8), green: channel(4), blue: channel(0))
    }
    func channel(_ shift: UInt32) -> Double { Double((number >> shift) & 0xff) / 255 }
    return Color(red: channel(16), green: channel(8), blue: channel(0))
  }

  /// The scalar an XML entity or character reference (without `&` and `;`) stands for.
  static func entity(_ name: String) -> Unicode.Scalar? {
    switch name {
    case "amp": return "&"
    case "lt": return "<"
    case "gt": return ">"
    case "quot": return "\""
    case "apos": return "'"
    default:
      guard name.hasPrefix("#") else { return nil }
      let number = name.dropFirst()
      let value = number.hasPrefix("x") || number.hasPrefix("X") ? UInt32(number.dropFirst(), radix: 16) : UInt32(number)
      guard let value, value != 0 else { return nil }
      return Unicode.Scalar(value)
    }
  }
}
