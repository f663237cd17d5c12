import Foundation
import QuireFormats
import QuireMarkdown
import Testing

@Suite("libcmark: Markdown to HTML and trees")
struct CommonMarkTests {
  @Test func rendersMarkdownToHTML() throws {
    let html = try CommonMark.html(from: "# Title\n\nSome *emphasis* and `code`.\n")
    #expect(html == "<h1>Title</h1>\n<p>Some <em>emphasis</em> and <code>code</code>.</p>\n")
  }

  @Test func safeModeDropsRawHTMLAndScriptLinks() throws {
    let html = try CommonMark.html(from: "<script>alert(1)</script>\n\n[x](javascript:alert(1))\n")
    #expect(!html.contains("<script"))
    #expect(!html.contains("javascript:"))
    let unsafe = try CommonMark.html(from: "<b>raw</b>\n", options: .unsafe)
    #expect(unsafe.contains("<b>raw</b>"))
  }

  @Test func rendersJapaneseText() throws {
    let html = try CommonMark.html(from: "# 見出し\n\n日本語の段落です。\n")
    #expect(html == "<h1>見出し</h1>\n<p>日本語の段落です。</p>\n")
  }

  @Test func parsesIntoSwiftValues() throws {
    let root = try CommonMark.parse("# One\n\n- a\n- b\n\n## Two *x*\n")
    #expect(root.kind == .document)
    #expect(root.children.count == 3)
    #expect(root.children[0].kind == .heading(level: 1))
    #expect(root.children[0].plainText == "One")
    #expect(root.children[1].kind == .list(ordered: false, start: 0, tight: true))
    #expect(root.children[1].children.count == 2)
    #expect(root.children[2].plainText == "Two x")
    #expect(root.children[2].startLine == 6)
  }

  @Test func deeplyNestedInputDoesNotOverflowTheStack() throws {
    let markdown = String(repeating: ">", count: 20_000) + " deep\n"
    let root = try CommonMark.parse(markdown)
    #expect(root.plainText == "deep")
  }

  @Test func emptyInputGivesAnEmptyDocument() throws {
    #expect(try CommonMark.html(from: "") == "")
    #expect(try CommonMark.parse("").children.isEmpty)
  }
}
