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

  static let readme = """
    ---
    title: "Quire <notes>"
    version: 2
    ---
    # Quire

    | Part | State |
    | --- | :---: |
    | tables | done |

    - [x] tables
    - [ ] more

    ~~old~~ see https://example.org and the note.[^why]

    [^why]: Because people write GitHub Markdown.

    """

  @Test func gitHubMarkdownPreviewsWithTablesCheckboxesAndFootnotes() throws {
    let page = try MarkdownPreview.htmlPage(markdown: Self.readme, title: "README.md")
    #expect(page.contains("<table>") && page.contains("<th>Part</th>") && page.contains("<td align=\"center\">done</td>"))
    #expect(page.contains("<input type=\"checkbox\" checked=\"\" disabled=\"\" /> tables"))
    #expect(page.contains("<del>old</del>"))
    #expect(page.contains("<a href=\"https://example.org\">https://example.org</a>"))
    #expect(page.contains("<section class=\"footnotes\"") && page.contains("Because people write GitHub Markdown."))
    // Front matter is a metadata block, escaped, not a rule and a heading.
    #expect(page.contains("<dl class=\"front-matter\">\n<dt>title</dt><dd>Quire &lt;notes&gt;</dd>\n<dt>version</dt><dd>2</dd>\n</dl>"))
    #expect(!page.contains("<hr />"))
    #expect(!page.contains("<h2>version"))
    #expect(page.contains("default-src 'none'"))
  }

  @Test func gitHubMarkdownAsText() throws {
    let text = try MarkdownPreview.text(markdown: Self.readme)
    #expect(text.hasPrefix("title: Quire <notes>\nversion: 2\n\nQuire"))
    #expect(text.contains("| Part | State |\n| tables | done |"))
    #expect(text.contains("- [x] tables\n- [ ] more"))
    #expect(text.contains("[1] Because people write GitHub Markdown."))
  }
}
