import Foundation
import QuireTypes
import QuireFormats

/// Markdown turned into a complete HTML page for previewing.
///
/// Safe by default: libcmark's safe mode drops raw HTML and `javascript:`/`vbscript:`/`file:`
/// links, and the page carries a Content-Security-Policy that forbids scripts, so a preview
/// of a hostile file runs nothing.
public enum MarkdownPreview {
  /// Whether raw HTML and every link are kept.
  public enum Safety: Sendable { case safe, unsafe }

  /// A complete HTML page for `markdown`, titled `title`.
  public static func htmlPage(markdown: String, title: String, safety: Safety = .safe) throws -> String {
    let body = try CommonMark.html(from: markdown, options: safety == .unsafe ? [.unsafe] : [])
    let csp = safety == .safe
      ? "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src * data:; style-src 'unsafe-inline'\">\n"
      : ""
    return """
      <!DOCTYPE html>
      <html>
      <head>
      <meta charset="utf-8">
      \(csp)<meta name="viewport" content="width=device-width, initial-scale=1">
      <title>\(escapeHTML(title))</title>
      <style>
      body { max-width: 46em; margin: 2em auto; padding: 0 1em; line-height: 1.6; color: #1f2328;
        font-family: system-ui, "Noto Sans", "Noto Sans CJK JP", "DejaVu Sans", sans-serif; }
      pre, code { font-family: "DejaVu Sans Mono", "Noto Sans Mono CJK JP", monospace; background: #f6f8fa; }
      pre { padding: 0.8em; overflow: auto; border-radius: 4px; }
      blockquote { margin: 0; padding: 0 1em; color: #59636e; border-left: 0.25em solid #d1d9e0; }
      a { color: #0969da; }
      img { max-width: 100%; }
      table { border-collapse: collapse; } td, th { border: 1px solid #d1d9e0; padding: 0.3em 0.6em; }
      </style>
      </head>
      <body>
      \(body)</body>
      </html>

      """
  }

  /// Escapes text for an HTML element or attribute.
  public static func escapeHTML(_ text: String) -> String {
    var out = ""
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
}
