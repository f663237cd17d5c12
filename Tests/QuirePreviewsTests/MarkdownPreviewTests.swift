import QuirePreviews
import Testing

@Suite("Markdown preview pages")
struct MarkdownPreviewTests {
  @Test func makesACompletePage() throws {
    let page = try MarkdownPreview.htmlPage(markdown: "# Hi\n", title: "a<b>.md")
    #expect(page.hasPrefix("<!DOCTYPE html>"))
    #expect(page.contains("<title>a&lt;b&gt;.md</title>"))
    #expect(page.contains("<h1>Hi</h1>"))
    #expect(page.contains("Noto Sans CJK JP"))
  }

  @Test(arguments: [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "[click](javascript:alert(1))",
    "<a href=\"javascript:alert(1)\">x</a>",
    "![x](vbscript:msgbox)",
  ])
  func safeModeKeepsNoScript(_ hostile: String) throws {
    let page = try MarkdownPreview.htmlPage(markdown: hostile + "\n", title: "t")
    #expect(!page.contains("<script"))
    #expect(!page.contains("onerror"))
    #expect(!page.contains("javascript:"))
    #expect(!page.contains("vbscript:"))
    #expect(page.contains("Content-Security-Policy"))
  }
}
