import Foundation
import QuireFormats
import QuireMarkdown
import QuireTestSupport
import Testing

@Suite("cmark-gfm: GitHub Flavored Markdown")
struct GitHubMarkdownTests {
  static let readme = """
    # Project

    | Name | Role | Since |
    | :--- | :--: | ----: |
    | Ada | *lead* | 2021 |
    | Lin | ops | 2023 |

    - [x] write the parser
    - [ ] draw the tables

    ~~old~~ new, see https://example.org and www.example.com.

    A claim.[^1] Another.[^note]

    [^1]: The source.
    [^note]: A longer note.

    """

  /// Each extension renders as GitHub renders it: the HTML holds each of the fragments.
  @Test(arguments: [
    ("tables", ["<table>", "<th align=\"left\">Name</th>", "<th align=\"center\">Role</th>", "<td align=\"right\">2023</td>"]),
    (
      "task lists",
      ["<input type=\"checkbox\" checked=\"\" disabled=\"\" /> write the parser", "<input type=\"checkbox\" disabled=\"\" /> draw the tables"]
    ),
    ("strikethrough", ["<del>old</del>"]),
    (
      "autolinks",
      ["<a href=\"https://example.org\">https://example.org</a>", "<a href=\"http://www.example.com\">www.example.com</a>"]
    ),
    ("footnotes", ["<section class=\"footnotes\"", "href=\"#fn-1\"", "The source."]),
  ])
  func anExtensionRendersAsGitHubRendersIt(_ feature: String, _ fragments: [String]) throws {
    let html = try CommonMark.html(from: Self.readme)
    for fragment in fragments { #expect(html.contains(fragment), "\(feature): \(fragment)") }
  }

  @Test func withoutExtensionsItIsPlainCommonMark() throws {
    let html = try CommonMark.html(from: Self.readme, extensions: [])
    #expect(!html.contains("<table>"))
    #expect(!html.contains("<del>"))
    #expect(!html.contains("checkbox"))
    #expect(html.contains("<li>[x] write the parser</li>"))
  }

  @Test func safeModeKeepsItsRulesWithTheExtensions() throws {
    let hostile = """
      | a | b |
      | - | - |
      | <script>alert(1)</script> | [x](javascript:alert(1)) |

      - [ ] <img src=x onerror=alert(1)>

      [^1]: <iframe src="https://evil.example"></iframe>

      x[^1]

      """
    let html = try CommonMark.html(from: hostile)
    #expect(!html.contains("<script"))
    #expect(!html.contains("javascript:"))
    #expect(!html.contains("onerror"))
    #expect(!html.contains("<iframe"))
    // With raw HTML kept, the tag filter still disarms the tags GitHub filters.
    let unsafe = try CommonMark.html(from: "<script>alert(1)</script>\n", options: .unsafe)
    #expect(unsafe.contains("&lt;script>"))
  }

  @Test func treesCarryTheExtensionNodes() throws {
    let root = try CommonMark.parse(Self.readme)
    let table = try #require(root.children.first { if case .table = $0.kind { return true } else { return false } })
    #expect(table.kind == .table(alignments: [.left, .center, .right]))
    #expect(table.children.count == 3)
    #expect(table.children[0].kind == .tableRow(isHeader: true))
    #expect(table.children[1].kind == .tableRow(isHeader: false))
    #expect(table.children[1].children.map(\.plainText) == ["Ada", "lead", "2021"])
    let list = try #require(root.children.first { if case .list = $0.kind { return true } else { return false } })
    #expect(list.children.map(\.kind) == [.taskItem(isChecked: true), .taskItem(isChecked: false)])
    let definitions = root.children.compactMap { node -> Int? in
      if case .footnoteDefinition(let number) = node.kind { return number } else { return nil }
    }
    #expect(definitions == [1, 2])
    #expect(root.children.last?.plainText == "A longer note.")
    var references: [Int] = []
    var struck = false
    var stack = [root]
    while let node = stack.popLast() {
      if case .footnoteReference(let number) = node.kind { references.append(number) }
      if node.kind == .strikethrough, node.plainText == "old" { struck = true }
      stack += node.children
    }
    #expect(references.sorted() == [1, 2])
    #expect(struck)
  }

  /// cmark-gfm 0.29 keeps an extension's inline characters in one process-wide table that each
  /// parse sets and clears; parses on many threads at once must still all see `~~` and `www.`.
  @Test func parsesOnManyThreadsAtOnceKeepStrikethroughAndAutolinks() async throws {
    let results = try await withThrowingTaskGroup(of: [String].self) { group in
      for _ in 0..<8 {
        group.addTask {
          try (0..<150).map { _ in try CommonMark.html(from: "~~old~~ and www.example.org\n") }
        }
      }
      return try await group.reduce(into: [String]()) { $0 += $1 }
    }
    #expect(results.count == 1200)
    #expect(results.allSatisfy { $0.contains("<del>old</del>") && $0.contains("<a href=\"http://www.example.org\">") })
  }

  /// A parse's memory comes from a region of its thread (a text of a mebibyte or more has it
  /// in blocks mapped from the system, and the nodes have a lane of their own): a document whose output buffer
  /// grows past the region's large-allocation size many times over, parsed on several threads
  /// at once and one after another, renders whole each time, exactly as its small pieces do
  /// one by one, and its tree is whole too.
  @Test func largeDocumentsRenderWholeOnSeveralThreadsOneAfterAnother() async throws {
    let piece = "A *paragraph* with ~~old~~ text.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n"
    let markdown = String(repeating: piece, count: 20_000)
    #expect(markdown.utf8.count > 1 << 20)
    let expected = String(repeating: try CommonMark.html(from: piece), count: 20_000)
    let results = try await withThrowingTaskGroup(of: [Bool].self) { group in
      for _ in 0..<4 {
        group.addTask { try (0..<3).map { _ in try CommonMark.html(from: markdown) == expected } }
      }
      return try await group.reduce(into: [Bool]()) { $0 += $1 }
    }
    #expect(results == Array(repeating: true, count: 12))
    #expect(expected.components(separatedBy: "<del>old</del>").count - 1 == 20_000)
    let tree = try CommonMark.parse(markdown)
    #expect(tree.children.count == 40_000)
  }

  /// A text of a mebibyte or more is rendered in two halves on two cores; the HTML is byte for
  /// byte what one rendering makes, in safe and unsafe mode: footnotes cited in the first half
  /// and defined in it, a link defined at the end and used at the start, tables, task lists,
  /// lists, quotes, code and raw HTML on both sides of the middle. So is the corpus's Markdown,
  /// concatenated, when this checkout has it (in safe mode).
  @Test(arguments: [CommonMark.Options(), .unsafe])
  func largeDocumentsRenderedOnTwoCoresAreTheSameAsRenderedOnce(options: CommonMark.Options) throws {
    let piece = """
      # Part

      A claim.[^n] See [the site][site] and https://example.org, ~~old~~ new.

      | a | b |
      |---|--:|
      | 1 | 2 |

      - [x] done
      - [ ] to do
        > quoted *text*

      ```swift
      let x = 1
      ```

      <div onclick="x()">raw</div>

      1. one
      2. two


      """
    var markdown = ""
    for index in 0..<5_000 { markdown += piece.replacingOccurrences(of: "[^n]", with: "[^\(index % 50)]") }
    for index in 0..<50 { markdown += "[^\(index)]: Note \(index), *emphasised*.\n\n" }
    markdown += "[site]: https://example.com/site \"The site\"\n"
    var texts = [markdown]
    if options.isEmpty, let folder = sharedCorpus("markdown"), let japanese = sharedCorpus("markdown-ja") {
      var corpus = ""
      for url in try [folder, japanese].flatMap({ try FileManager.default.contentsOfDirectory(at: $0, includingPropertiesForKeys: nil) })
      where url.pathExtension == "md" {
        if let text = try? String(contentsOf: url, encoding: .utf8), !text.contains("\0") { corpus += text + "\n\n" }
      }
      texts.append(corpus)
    }
    for text in texts {
      #expect(text.utf8.count >= 1 << 20)
      var parts: [[UInt8]] = []
      try CommonMark.writeHTML(from: text[...], options: options) { parts.append(Array($0)) }
      #expect(parts.count == 2)
      let once = try CommonMark.html(from: text, options: options)
      #expect(String(decoding: parts.joined(), as: UTF8.self) == once)
      if text == markdown { #expect(once.components(separatedBy: "<li id=\"fn-").count - 1 == 50) }
    }
  }

  /// Footnotes are parsed only in a text holding `[^` (every reference and definition begins
  /// so): found wherever it is, its bracket at the very end too, and nothing else changes.
  @Test func footnotesAreFoundWhereverTheirMarkIs() throws {
    #expect(try CommonMark.html(from: "text [") == "<p>text [</p>\n")
    #expect(try CommonMark.html(from: "[") == "<p>[</p>\n")
    let late = String(repeating: "Plain [link](https://example.org) text.\n\n", count: 2_000) + "A claim.[^1]\n\n[^1]: The source.\n"
    let html = try CommonMark.html(from: late)
    #expect(html.contains("<section class=\"footnotes\"") && html.contains("The source."))
    #expect(try CommonMark.html(from: "[^1]: a definition no one cites\n").contains("footnotes") == false)
  }

  @Test func frontMatterIsMetadataNotMarkdown() {
    let (frontMatter, body) = FrontMatter.split("---\ntitle: \"Trip notes\"\ndate: 2026-11-24\ntags: [travel]\n---\n# Day one\n")
    #expect(frontMatter?.fields == [.init(key: "title", value: "Trip notes"), .init(key: "date", value: "2026-11-24"), .init(key: "tags", value: "[travel]")])
    #expect(body == "# Day one\n")
    let nested = FrontMatter.split("---\nauthor:\n  name: Ada\n---\ntext\n")
    #expect(nested.frontMatter?.fields == [])
    #expect(nested.frontMatter?.text == "author:\n  name: Ada")
    #expect(FrontMatter.split("---\nnever closed\n").frontMatter == nil)
    #expect(FrontMatter.split("text\n---\n").frontMatter == nil)
    #expect(FrontMatter.split("").frontMatter == nil)
  }
}

/// The CommonMark spec's examples, rendered by Quire (cmark-gfm, extensions off) and by
/// libcmark (the reference, in the `quire-cmark-reference` helper process).
@Suite("CommonMark conformance against libcmark")
struct CommonMarkConformanceTests {
  struct Example: Decodable {
    var markdown: String
    var html: String
    var example: Int
    var section: String
  }

  /// Examples where cmark-gfm 0.29.0.gfm.6 follows spec 0.29 and libcmark 0.30.2 the rule
  /// spec 0.30 changed; each is a known change of the spec, not a Quire choice.
  static let knownSpecChanges: Set<Int> = [
    28,  // numeric character references: at most 7 digits since 0.30 (`&#87654321;` stays text)
    173,  // `<textarea>` starts an HTML block of type 1 since 0.30
  ]

  static var helper: URL? { Programs.built("quire-cmark-reference") }

  static var examplesFile: URL? { sharedCorpus("commonmark")?.appendingPathComponent("spec-examples.json") }

  @Test(
    .enabled(if: helper != nil, "quire-cmark-reference is not built beside the tests (swift build --build-tests)"),
    .enabled(if: examplesFile != nil, "../shared/corpus/commonmark is absent"))
  func quireRendersTheSpecExamplesAsLibcmarkDoes() throws {
    let examples = try JSONDecoder().decode([Example].self, from: Data(contentsOf: try #require(Self.examplesFile)))
    #expect(examples.count > 600)
    let request = try JSONEncoder().encode(examples.map(\.markdown))
    let result = try ChildProcess.runBlocking(try #require(Self.helper), [], input: request)
    #expect(result.status == 0, "\(result.error)")
    let reply = result.outputData
    let reference = try JSONDecoder().decode([String].self, from: reply)
    #expect(reference.count == examples.count)

    var differing: [Int] = []
    for (example, libcmark) in zip(examples, reference) {
      let quire = try CommonMark.html(from: example.markdown, extensions: [])
      if quire != libcmark { differing.append(example.example) }
    }
    let unexpected = differing.filter { !Self.knownSpecChanges.contains($0) }
    #expect(unexpected.isEmpty, "examples where Quire's HTML differs from libcmark's: \(unexpected)")
    print("CommonMark conformance: \(examples.count - differing.count) of \(examples.count) spec examples render as libcmark does")
  }
}
