import Foundation

/// An appearance stream (/AP /N) as Quire writes it: a form XObject's box, content and
/// resources.
///
/// **Why by hand.** Viewers that draw only what the file says (pdf.js, Chrome, many mobile
/// readers) draw nothing for an annotation without an appearance stream, and a filled form
/// field shows its old appearance until clicked. poppler-glib generates appearances only in
/// memory while drawing, and libqpdf generates them only for some field kinds; so Quire
/// writes each one as a short content stream: a few path operators and, for text, the
/// standard Helvetica (which every reader has, no font embedded).
struct Appearance {
  /// /BBox, in the same space as the annotation's /Rect (the form's matrix is the identity).
  var box: [Double]
  /// The content stream.
  var content: String
  /// The /Resources dictionary, in PDF syntax (direct objects only).
  var resources: String
  /// A font of the form's /DR to put in the resources under this name, instead of Helvetica.
  var formFont: String?

  static let helvetica = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"
  private static let multiply = "<< /ExtGState << /GS0 << /Type /ExtGState /BM /Multiply /CA 1 /ca 1 >> >> >>"

  /// The appearance of a new annotation `data`, or nil for a kind Quire does not draw
  /// (widgets take theirs from ``field(_:value:width:height:defaultAppearance:)``).
  static func make(for data: AnnotationData) -> Appearance? {
    let rect = data.rect
    guard rect.count == 4 else { return nil }
    let color = colorOperands(data.color ?? defaultColor(data.subtype))
    let width = data.borderWidth ?? 1
    switch data.subtype {
    case "Highlight":
      var content = "q /GS0 gs \(color) rg\n"
      for quad in quads(data) {
        content += "\(n(quad[0])) \(n(quad[1])) m \(n(quad[2])) \(n(quad[3])) l \(n(quad[6])) \(n(quad[7])) l \(n(quad[4])) \(n(quad[5])) l h f\n"
      }
      return Appearance(box: rect, content: content + "Q\n", resources: multiply)
    case "Underline", "StrikeOut", "Squiggly":
      return textLines(data, rect: rect, color: color)
    case "Text":
      // A note: a folded sheet in the note's colour with three lines on it (Acrobat's "Note").
      let (x, y, w, h) = (rect[0], rect[1], rect[2] - rect[0], rect[3] - rect[1])
      var content = "q \(color) rg 0 0 0 RG 1 w\n"
      content += "\(n(x + 1)) \(n(y + 1)) m \(n(x + w - 1)) \(n(y + 1)) l \(n(x + w - 1)) \(n(y + h * 0.7)) l "
      content += "\(n(x + w * 0.7)) \(n(y + h - 1)) l \(n(x + 1)) \(n(y + h - 1)) l h B\n"
      for line in 1...3 {
        let ly = y + h * (0.75 - Double(line) * 0.18)
        content += "\(n(x + w * 0.2)) \(n(ly)) m \(n(x + w * 0.8)) \(n(ly)) l S\n"
      }
      return Appearance(box: rect, content: content + "Q\n", resources: "<< >>")
    case "FreeText":
      let size = data.fontSize ?? 12
      let (x, y, w, h) = (rect[0], rect[1], rect[2] - rect[0], rect[3] - rect[1])
      var content = "q \(n(x)) \(n(y)) \(n(w)) \(n(h)) re W n\n"
      if data.borderWidth ?? 1 > 0 { content += "\(color) RG \(n(width)) w \(n(x + width / 2)) \(n(y + width / 2)) \(n(w - width)) \(n(h - width)) re S\n" }
      content += "BT /Helv \(n(size)) Tf 0 g\n"
      var baseline = y + h - 2 - size
      for line in wrap(data.contents ?? "", width: w - 4, size: size) {
        content += "1 0 0 1 \(n(x + 2)) \(n(baseline)) Tm (\(pdfString(line))) Tj\n"
        baseline -= size * 1.15
      }
      return Appearance(box: rect, content: content + "ET Q\n", resources: "<< /Font << /Helv \(helvetica) >> >>")
    case "Ink":
      var content = "q \(color) RG \(n(max(width, 0.5))) w 1 J 1 j\n"
      for stroke in data.inkList ?? [] where stroke.count >= 2 {
        content += "\(n(stroke[0])) \(n(stroke[1])) m "
        var index = 2
        while index + 1 < stroke.count {
          content += "\(n(stroke[index])) \(n(stroke[index + 1])) l "
          index += 2
        }
        if stroke.count == 2 { content += "\(n(stroke[0] + 0.01)) \(n(stroke[1])) l " }  // a dot
        content += "S\n"
      }
      return Appearance(box: rect, content: content + "Q\n", resources: "<< >>")
    case "Line":
      guard let points = data.linePoints, points.count == 4 else { return nil }
      let content = "q \(color) RG \(n(width)) w 1 J \(n(points[0])) \(n(points[1])) m \(n(points[2])) \(n(points[3])) l S Q\n"
      return Appearance(box: rect, content: content, resources: "<< >>")
    case "Square", "Circle":
      return shape(data, rect: rect, color: color, width: width)
    case "Stamp":
      let (x, y, w, h) = (rect[0], rect[1], rect[2] - rect[0], rect[3] - rect[1])
      let label = (data.iconName ?? "Draft").uppercased()
      let size = max(4, min(h * 0.55, (w - 8) / max(1, Double(label.count) * 0.62)))
      var content = "q \(color) RG \(color) rg 2 w \(n(x + 1)) \(n(y + 1)) \(n(w - 2)) \(n(h - 2)) re S\n"
      content += "BT /Helv \(n(size)) Tf \(n(x + 4)) \(n(y + (h - size * 0.7) / 2)) Td (\(pdfString(label))) Tj ET Q\n"
      return Appearance(box: rect, content: content, resources: "<< /Font << /Helv \(helvetica) >> >>")
    case "Link":
      // Links draw nothing; an empty appearance keeps the rule that every annotation Quire
      // writes has one.
      return Appearance(box: rect, content: "", resources: "<< >>")
    default:
      return nil
    }
  }

  /// An underline, strike-out or squiggly line under (or through) each of the markup's
  /// quadrilaterals, along the quadrilateral's bottom edge: text on a turned page (or turned
  /// text) runs along its quadrilateral, not along the x axis.
  private static func textLines(_ data: AnnotationData, rect: [Double], color: String) -> Appearance {
    var content = "q \(color) RG\n"
    for quad in quads(data) {
      // The bottom edge (x3, y3)–(x4, y4) and the way up, from the bottom left to the top left.
      let (x1, y1, x2, y2) = (quad[4], quad[5], quad[6], quad[7])
      let (upX, upY) = (quad[0] - x1, quad[1] - y1)
      let height = (upX * upX + upY * upY).squareRoot()
      guard height > 0 else { continue }
      let (unitX, unitY) = (upX / height, upY / height)
      let stroke = max(0.5, height / 14)
      // Raised a little off the bottom; for a strike-out, to the middle.
      let lift = data.subtype == "StrikeOut" ? height * 0.42 : height * 0.08
      let (startX, startY) = (x1 + unitX * lift, y1 + unitY * lift)
      let (endX, endY) = (x2 + unitX * lift, y2 + unitY * lift)
      content += "\(n(stroke)) w \(n(startX)) \(n(startY)) m "
      if data.subtype == "Squiggly" {
        let length = ((endX - startX) * (endX - startX) + (endY - startY) * (endY - startY)).squareRoot()
        let step = max(1.5, height / 8)
        var along = step
        var up = true
        while along < length {
          let (x, y) = (startX + (endX - startX) * along / length, startY + (endY - startY) * along / length)
          content += "\(n(x + (up ? unitX * step : 0))) \(n(y + (up ? unitY * step : 0))) l "
          up.toggle()
          along += step
        }
        content += "S\n"
      } else {
        content += "\(n(endX)) \(n(endY)) l S\n"
      }
    }
    return Appearance(box: rect, content: content + "Q\n", resources: "<< >>")
  }

  /// A square's or circle's outline (filled with its interior colour when it has one),
  /// inside its box by half the border width.
  private static func shape(_ data: AnnotationData, rect: [Double], color: String, width: Double) -> Appearance {
    let inset = width / 2
    let (x, y, w, h) = (rect[0] + inset, rect[1] + inset, rect[2] - rect[0] - width, rect[3] - rect[1] - width)
    var content = "q \(color) RG \(n(width)) w "
    let paint: String
    if let interior = data.interiorColor {
      content += "\(colorOperands(interior)) rg "
      paint = "B"
    } else {
      paint = "S"
    }
    if data.subtype == "Square" {
      content += "\(n(x)) \(n(y)) \(n(w)) \(n(h)) re \(paint) Q\n"
    } else {
      // Four Bézier quarters (kappa = 0.5523) around the box's centre.
      let (cx, cy, rx, ry, k) = (x + w / 2, y + h / 2, w / 2, h / 2, 0.5523)
      content += "\(n(cx + rx)) \(n(cy)) m "
      content += "\(n(cx + rx)) \(n(cy + ry * k)) \(n(cx + rx * k)) \(n(cy + ry)) \(n(cx)) \(n(cy + ry)) c "
      content += "\(n(cx - rx * k)) \(n(cy + ry)) \(n(cx - rx)) \(n(cy + ry * k)) \(n(cx - rx)) \(n(cy)) c "
      content += "\(n(cx - rx)) \(n(cy - ry * k)) \(n(cx - rx * k)) \(n(cy - ry)) \(n(cx)) \(n(cy - ry)) c "
      content += "\(n(cx + rx * k)) \(n(cy - ry)) \(n(cx + rx)) \(n(cy - ry * k)) \(n(cx + rx)) \(n(cy)) c h \(paint) Q\n"
    }
    return Appearance(box: rect, content: content, resources: "<< >>")
  }

  /// The appearance of a text or choice field's widget showing `value`, in the widget's own
  /// box (0, 0, `width`, `height`), with the field's /DA (font, size, colour).
  ///
  /// The widget's /MK background and border colours are drawn first, as viewers draw an
  /// empty field.
  static func field(
    value: String, width: Double, height: Double, defaultAppearance: String?, isMultiline: Bool = false, background: [Double]? = nil,
    borderColor: [Double]? = nil, borderWidth: Double = 1
  ) -> Appearance {
    let parsed = parse(defaultAppearance ?? "/Helv 0 Tf 0 g")
    let size = parsed.size > 0 ? parsed.size : max(4, min(12, height * 0.7))
    var content = ""
    if let fill = background.flatMap({ colorOperator($0, stroke: false) }) {
      content += "q \(fill) 0 0 \(n(width)) \(n(height)) re f Q\n"
    }
    if let stroke = borderColor.flatMap({ colorOperator($0, stroke: true) }), borderWidth > 0 {
      content += "q \(stroke) \(n(borderWidth)) w \(n(borderWidth / 2)) \(n(borderWidth / 2)) \(n(width - borderWidth)) \(n(height - borderWidth)) re S Q\n"
    }
    content += "/Tx BMC\nq 1 1 \(n(max(0, width - 2))) \(n(max(0, height - 2))) re W n\nBT /\(parsed.font) \(n(size)) Tf \(parsed.color)\n"
    if isMultiline {
      var baseline = height - 2 - size
      for line in wrap(value, width: width - 4, size: size) {
        content += "1 0 0 1 \(n(2 + max(0, borderWidth))) \(n(baseline)) Tm (\(pdfString(line))) Tj\n"
        baseline -= size * 1.15
      }
    } else {
      let baseline = max(1, (height - size * 0.78) / 2)
      content += "\(n(2 + max(0, borderWidth))) \(n(baseline)) Td (\(pdfString(value.replacingOccurrences(of: "\n", with: " ")))) Tj\n"
    }
    content += "ET\nQ\nEMC\n"
    return Appearance(box: [0, 0, width, height], content: content, resources: "<< >>", formFont: parsed.font)
  }

  /// The font name, size and colour operators of a /DA string ("/Helv 12 Tf 0 g").
  static func parse(_ da: String) -> (font: String, size: Double, color: String) {
    let tokens = da.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" }).map(String.init)
    var font = "Helv"
    var size = 0.0
    var color = "0 g"
    if let tf = tokens.firstIndex(of: "Tf"), tf >= 2 {
      let name = tokens[tf - 2]
      if name.hasPrefix("/"), name.count > 1, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "/" || $0 == "_" || $0 == "-" || $0 == "." }) {
        font = String(name.dropFirst())
      }
      size = Double(tokens[tf - 1]).map { $0.isFinite ? min(max($0, 0), 200) : 0 } ?? 0
    }
    for op in ["rg", "g", "k"] {
      guard let at = tokens.lastIndex(of: op) else { continue }
      let count = op == "rg" ? 3 : op == "g" ? 1 : 4
      guard at >= count else { continue }
      let operands = tokens[(at - count)..<at]
      if operands.allSatisfy({ Double($0) != nil }) {
        color = (operands + [op]).joined(separator: " ")
        break
      }
    }
    return (font, size, color)
  }

  /// A colour array of 1 (grey), 3 (RGB) or 4 (CMYK) components as its fill or stroke
  /// operator; nil for an empty (transparent) one.
  static func colorOperator(_ components: [Double], stroke: Bool) -> String? {
    let values = components.map { n(min(max($0, 0), 1)) }.joined(separator: " ")
    switch components.count {
    case 1: return "\(values) \(stroke ? "G" : "g")"
    case 3: return "\(values) \(stroke ? "RG" : "rg")"
    case 4: return "\(values) \(stroke ? "K" : "k")"
    default: return nil
    }
  }

  static func defaultColor(_ subtype: String) -> [Double] {
    switch subtype {
    case "Highlight", "Text": return [1, 0.92, 0.23]
    case "Underline", "Squiggly": return [0.1, 0.5, 0.1]
    case "StrikeOut", "Stamp": return [0.85, 0.1, 0.1]
    case "Ink", "Line", "Square", "Circle": return [0.1, 0.2, 0.8]
    default: return [0, 0, 0]
    }
  }

  private static func quads(_ data: AnnotationData) -> [[Double]] {
    let points = data.quadPoints ?? []
    var quads = stride(from: 0, to: points.count - points.count % 8, by: 8).map { Array(points[$0..<($0 + 8)]) }
    if quads.isEmpty, data.rect.count == 4 {
      let r = data.rect
      quads = [[r[0], r[3], r[2], r[3], r[0], r[1], r[2], r[1]]]
    }
    return quads
  }

  private static func colorOperands(_ color: [Double]) -> String {
    let parts = color.count >= 3 ? Array(color.prefix(3)) : [0, 0, 0]
    return parts.map { n(min(max($0, 0), 1)) }.joined(separator: " ")
  }

  /// A number as PDF writes it: no exponent, at most 3 decimals.
  static func n(_ value: Double) -> String {
    guard value.isFinite else { return "0" }
    let rounded = (value * 1000).rounded() / 1000
    if rounded == rounded.rounded() && abs(rounded) < 1e15 { return String(Int64(rounded)) }
    return String(format: "%.3f", rounded)
  }

  /// `text` as the inside of a PDF literal string in WinAnsi (Helvetica's encoding): Latin-1
  /// characters as octal escapes, anything else as "?".
  static func pdfString(_ text: String) -> String {
    var out = ""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "(", ")", "\\": out += "\\" + String(scalar)
      case " "..."~": out.unicodeScalars.append(scalar)
      default:
        out += scalar.value >= 0xA0 && scalar.value <= 0xFF ? String(format: "\\%03o", scalar.value) : "?"
      }
    }
    return out
  }

  /// `text` broken into lines that fit `width` at `size` (Helvetica's average advance taken
  /// as half the size), at spaces where it can.
  static func wrap(_ text: String, width: Double, size: Double) -> [String] {
    let perLine = max(1, Int(width / max(1, size * 0.5)))
    var lines: [String] = []
    for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
      var line = ""
      for word in paragraph.split(separator: " ", omittingEmptySubsequences: false) {
        let candidate = line.isEmpty ? String(word) : line + " " + word
        if candidate.count <= perLine || line.isEmpty {
          line = candidate
        } else {
          lines.append(line)
          line = String(word)
        }
        while line.count > perLine {
          lines.append(String(line.prefix(perLine)))
          line = String(line.dropFirst(perLine))
        }
      }
      lines.append(line)
      if lines.count > 500 { break }
    }
    return lines
  }
}
