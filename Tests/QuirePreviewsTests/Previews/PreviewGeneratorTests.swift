import Foundation
import QuireFormats
import QuirePreviews
import QuireTestSupport
import QuireTypes
import SystemPackage
import Testing

@Suite("Previews: Markdown, text and PDF")
final class PreviewGeneratorTests: FolderSuite {

  /// Hostile Markdown: every way we know to get script, handlers or dangerous URLs through.
  static let hostile = [
    "<script>alert(1)</script>",
    "<SCRIPT SRC=//evil.example/x.js></SCRIPT>",
    "<img src=x onerror=alert(1)>",
    "<svg onload=alert(1)>",
    "<iframe src=\"javascript:alert(1)\"></iframe>",
    "<a href=\"javascript:alert(1)\">x</a>",
    "[click](javascript:alert(1))",
    "[click](JaVaScRiPt:alert(1))",
    "[click](&#106;avascript:alert(1))",
    "[click](<javascript:alert(1)>)",
    "<javascript:alert(1)>",
    "![x](vbscript:msgbox)",
    "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "[x](file:///etc/passwd)",
    "[x](https://example.com \"\\\" onmouseover=\\\"alert(1)\")",
    "<div style=\"background:url(javascript:alert(1))\">x</div>",
    "<!-- --><script>alert(1)</script><!-- -->",
    "<style>body{background:url(javascript:alert(1))}</style>",
    "<object data=\"javascript:alert(1)\"></object>",
    "<details open ontoggle=alert(1)>",
    "```\n</code></pre><script>alert(1)</script>\n```",
    "`<script>alert(1)</script>`",
    "    <script>alert(1)</script>",
    "<form action=javascript:alert(1)><button>x</button></form>",
  ]

  @Test(arguments: hostile)
  func safeHTMLNeverCarriesScript(_ markdown: String) throws {
    let url = try folder.write(markdown + "\n\nafter\n", to: "hostile.md")
    let page = try PreviewGenerator().preview(of: url, format: .html)
    let lower = page.lowercased()
    #expect(!lower.contains("<script"))
    // No URL attribute with a dangerous scheme (the text "javascript:…" as words is harmless).
    #expect(lower.firstMatch(of: #/(href|src|action|data|formaction)\s*=\s*["']?\s*(javascript|vbscript|data:text|file):/#) == nil)
    // No event-handler attribute: a real one is `on…=` followed by a quote or a value, never
    // the escaped `&quot;` of text inside another attribute.
    #expect(lower.firstMatch(of: #/<[^>]*\son[a-z]+\s*=\s*["'a-z]/#) == nil)
    for tag in ["<iframe", "<svg", "<object", "<form", "<style>body", "<div style"] { #expect(!lower.contains(tag)) }
    #expect(page.contains("Content-Security-Policy"))
    #expect(page.contains("default-src 'none'"))
    #expect(page.contains("<p>after</p>"))
    // `quire preview` writes the page in pieces as it is made: the same bytes.
    var streamed: [UInt8] = []
    try PreviewGenerator().writePreview(of: FilePath(url.path), format: .html) { streamed.append(contentsOf: $0) }
    #expect(streamed == Array(page.utf8))
  }

  @Test func aPageWrittenInPiecesIsThePageWithItsFrontMatterAndText() throws {
    let markdown = "---\ntitle: Plan\ntags: a, b\n---\n# Plan\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n- [x] done\n\n日本語\n"
    let url = try folder.write(markdown, to: "plan.md")
    for format in PreviewGenerator.Format.allCases {
      let page = try PreviewGenerator().preview(of: url, format: format)
      var pieces: [[UInt8]] = []
      try PreviewGenerator().writePreview(of: FilePath(url.path), format: format) { pieces.append(Array($0)) }
      #expect(pieces.flatMap { $0 } == Array(page.utf8), "\(format)")
      if format == .html {
        #expect(pieces.count == 3, "head with front matter, cmark-gfm's HTML, end")
        #expect(page.contains("<dt>title</dt><dd>Plan</dd>") && page.contains("<h1>Plan</h1>") && page.contains("<table>"))
        #expect(!page.contains("<hr />"), "the front matter's fences are not a rule")
      }
    }
    expectQuireError(.fileMissing) {
      try PreviewGenerator().writePreview(of: FilePath(self.folder.file("missing.md").path), format: .html) { _ in }
    }
  }

  @Test func unsafeModeKeepsRawHTMLAndDropsTheScriptPolicy() throws {
    let url = try folder.write("<b>raw</b>\n\n[x](javascript:void(0))\n", to: "trusted.md")
    let page = try PreviewGenerator(safety: .unsafe).preview(of: url, format: .html)
    #expect(page.contains("<b>raw</b>"))
    #expect(page.contains("javascript:void(0)"))
    #expect(!page.contains("Content-Security-Policy"))
  }

  @Test func pageIsCompleteWithCSSAndCJKFonts() throws {
    let url = try folder.write("# 見出し\n\n本文です。\n", to: "日本語.md")
    let page = try PreviewGenerator().preview(of: url, format: .html)
    #expect(page.hasPrefix("<!DOCTYPE html>") && page.hasSuffix("</html>\n"))
    #expect(page.contains("<meta charset=\"utf-8\">"))
    #expect(page.contains("<title>日本語.md</title>"))
    #expect(page.contains("<h1>見出し</h1>"))
    #expect(page.contains("Noto Sans CJK JP") && page.contains("<style>"))
  }

  @Test func markdownAsText() throws {
    let markdown = "# Title\n\nSome *emphasis* and [a link](https://x).\n\n- one\n- two\n\n> quoted\n\n```\ncode\n```\n\n<div>raw</div>\n"
    let text = try MarkdownPreview.text(markdown: markdown)
    #expect(text == "Title\n\nSome emphasis and a link.\n\n- one\n- two\n\n> quoted\n\n    code")
  }

  @Test func pdfTextOutlineAndMetadata() throws {
    let url = try writePDF(
      to: folder.file("book.pdf"), pages: ["Text of page 1", "Text of page 2"], width: 300, height: 400, title: "A <Book>",
      outline: ["Chapter 1", "Chapter 2"])
    let text = try PreviewGenerator().preview(of: url, format: .text)
    #expect(text.contains("Title: A <Book>"))
    #expect(text.contains("Pages: 2"))
    #expect(text.contains("  Chapter 2 (page 2)"))
    #expect(text.contains("--- Page 1 ---\nText of page 1"))
    #expect(text.contains("--- Page 2 ---\nText of page 2"))
    let html = try PreviewGenerator().preview(of: url, format: .html)
    #expect(html.contains("<h1>A &lt;Book&gt;</h1>"))
    #expect(html.contains("<a href=\"#page-2\">Chapter 2</a>"))
    #expect(html.components(separatedBy: "src=\"data:image/png;base64,").count == 3)
    #expect(!html.lowercased().contains("<script"))
  }

  @Test func plainTextPreviewEscapesMarkup() throws {
    let url = try folder.write("<script>alert(1)</script>\n", to: "a.txt")
    let html = try PreviewGenerator().preview(of: url, format: .html)
    #expect(html.contains("&lt;script&gt;"))
    #expect(!html.contains("<script"))
    #expect(try PreviewGenerator().preview(of: url, format: .text) == "<script>alert(1)</script>\n")
  }

  @Test func badInputFailsClearly() throws {
    let generator = PreviewGenerator()
    expectQuireError(.fileMissing) { try generator.preview(of: self.folder.file("missing.md"), format: .html) }
    let png = folder.file("x.png")
    try Data([0x89, 0x50, 0x4E, 0x47, 0, 0, 0]).write(to: png)
    expectQuireError(.unsupportedType) { try generator.preview(of: png, format: .html) }
    let broken = folder.file("broken.pdf")
    try Data("%PDF-1.4\ngarbage".utf8).write(to: broken)
    expectQuireError(.invalidContent) { try generator.preview(of: broken, format: .text) }
    let invalid = folder.file("bad.md")
    try Data([0x23, 0x20, 0xFF, 0xFE, 0x0A]).write(to: invalid)
    // Refused, naming the file, as the REPL and copy refuse it (issue 16, finding 9).
    expectQuireError(.invalidContent, reasonContains: "bad.md") { try generator.preview(of: invalid, format: .html) }
  }

  @Test func japaneseCorpusPreviewsKeepTheirText() throws {
    guard let corpus = sharedCorpus("markdown-ja") else { return }
    let files = try FileManager.default.contentsOfDirectory(atPath: corpus.path).filter { $0.hasSuffix(".md") }.sorted().prefix(5)
    for name in files {
      let page = try PreviewGenerator().preview(of: corpus.appendingPathComponent(name), format: .html)
      #expect(page.unicodeScalars.contains { (0x3040...0x30FF).contains($0.value) }, "\(name) keeps its kana")
      #expect(!page.lowercased().contains("<script"))
    }
  }
}
