import Foundation
import QuireDocuments
import QuireTestSupport
import Testing

@Suite("Markdown document")
@MainActor
final class MarkdownDocumentTests: MainActorFolderSuite {

  @Test func outlinesHeadingsAndCountsWordsWithoutMarkup() async throws {
    let url = try folder.write("# Title\n\nSome *emphasised* words, don't split.\n\n## 日本語\n\n- one\n- two-part\n", to: "a.md")
    let document = try await openQuietly(MarkdownDocument(fileURL: url))
    #expect(try document.outline().headings.map(\.title) == ["Title", "日本語"])
    // Title, Some, emphasised, words, don't, split, 日, 本, 語, one, two-part
    #expect(try document.wordCount() == 11)
    try document.insertLines(["## Added", ""], at: 2)
    #expect(try document.outline().headings.map(\.line) == [1, 3, 7])
  }
}
