import QuireDocuments
import Testing

@Suite("Markdown outline")
struct MarkdownOutlineTests {
  @Test func listsHeadingsWithLevelsAndLines() throws {
    let outline = try MarkdownOutline(markdown: "# A\n\ntext\n\n## B *b*\n\n# 日本語\n")
    #expect(outline.headings.map(\.title) == ["A", "B b", "日本語"])
    #expect(outline.headings.map(\.level) == [1, 2, 1])
    #expect(outline.headings.map(\.line) == [1, 5, 7])
  }

  @Test func noHeadingsGivesAnEmptyOutline() throws {
    #expect(try MarkdownOutline(markdown: "just text\n").headings.isEmpty)
    #expect(try MarkdownOutline(markdown: "").headings.isEmpty)
  }
}
