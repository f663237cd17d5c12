internal import CPango
internal import CPoppler
import Foundation
import QuireTypes

/// A rectangle in a canvas's current units.
public struct Rect: Sendable, Hashable {
  public var x, y, width, height: Double
  public init(x: Double, y: Double, width: Double, height: Double) {
    self.x = x
    self.y = y
    self.width = width
    self.height = height
  }
}

/// Drawing on a ``Bitmap`` through one cairo context: shapes and Pango text.
///
/// A canvas lives only inside ``Bitmap/draw(_:)``; it is neither `Sendable` nor escapable
/// in practice (its context is destroyed when the closure returns).
public struct Canvas: ~Copyable {
  /// The cairo context, owned by ``Bitmap/draw(_:)``.
  let cr: OpaquePointer

  /// Scales every later drawing by `factor` in both directions (`cairo_scale`).
  public func scale(by factor: Double) { cairo_scale(cr, factor, factor) }

  /// Fills `rect` with `color`.
  public func fill(_ rect: Rect, color: Color) {
    cairo_set_source_rgba(cr, color.red, color.green, color.blue, color.alpha)
    cairo_rectangle(cr, rect.x, rect.y, rect.width, rect.height)
    cairo_fill(cr)
  }

  /// Strokes the outline of `rect` with a line `lineWidth` wide.
  public func stroke(_ rect: Rect, color: Color, lineWidth: Double = 1) {
    cairo_set_source_rgba(cr, color.red, color.green, color.blue, color.alpha)
    cairo_set_line_width(cr, lineWidth)
    cairo_rectangle(cr, rect.x, rect.y, rect.width, rect.height)
    cairo_stroke(cr)
  }

  /// Draws a straight line from (`x0`, `y0`) to (`x1`, `y1`).
  public func line(fromX x0: Double, y y0: Double, toX x1: Double, y y1: Double, color: Color, lineWidth: Double = 1) {
    cairo_set_source_rgba(cr, color.red, color.green, color.blue, color.alpha)
    cairo_set_line_width(cr, lineWidth)
    cairo_move_to(cr, x0, y0)
    cairo_line_to(cr, x1, y1)
    cairo_stroke(cr)
  }

  /// Draws Pango `markup` with its top-left corner at (`x`, `y`), wrapped at `width`.
  ///
  /// - Parameter maximumHeight: When given, the text ends where it reaches about
  ///   `y + maximumHeight` (pango's rule: the last line may reach below it by less than a
  ///   line), its last line ending in "…" when its paragraph goes on; the rest is not laid
  ///   out, which keeps long paragraphs cheap on a small page.
  /// - Returns: The height the text took.
  /// - Throws: ``QuireError`` when `markup` is not valid Pango markup.
  @discardableResult
  public func text(
    markup: String, x: Double, y: Double, width: Double, style: TextStyle = TextStyle(), maximumHeight: Double? = nil
  ) throws -> Double {
    try TextLayout.draw(markup: markup, cairo: cr, x: x, y: y, width: width, style: style, maximumHeight: maximumHeight)
  }

  /// The height `markup` would take when drawn at `width`, without drawing it.
  public func measure(markup: String, width: Double, style: TextStyle = TextStyle(), maximumHeight: Double? = nil) throws -> Double {
    try TextLayout.draw(markup: markup, cairo: cr, x: 0, y: 0, width: width, style: style, maximumHeight: maximumHeight, show: false)
  }
}

extension Bitmap {
  /// Runs `body` with a canvas on this bitmap; the canvas's cairo context is destroyed after.
  public func draw<R>(_ body: (borrowing Canvas) throws -> R) rethrows -> R {
    try withContext { cr in try body(Canvas(cr: cr)) }
  }
}
