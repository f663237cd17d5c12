import Foundation
import QuireTestSupport
import SnapshotTesting
import Testing

/// Golden files of what `quire` prints: help, `--json`, type listings and HTML previews, run as
/// the executable people use, compared with `__Snapshots__/GoldenOutputTests/*.txt`.
///
/// Deterministic by construction: the test's folder is printed as `$FOLDER`, timings as `…`,
/// the type registry reads no system MIME database (`XDG_DATA_DIRS` points into the test
/// folder), and help is not wrapped to a terminal. A missing golden file is written and the
/// test fails once; `SNAPSHOT_TESTING_RECORD=all swift test --filter GoldenOutputTests` rewrites
/// them all after an intended change (review the diff).
@Suite("Golden output of quire's commands")
final class GoldenOutputTests: FolderSuite, RunsQuire {
  /// Runs `quire ARGUMENTS` in the test folder and returns its status, output and errors as one
  /// text, normalised.
  func transcript(_ arguments: [String], input: String = "", sortingOutput: Bool = false) async throws -> String {
    let result = try await quire(
      arguments, input: input, environment: ["XDG_DATA_HOME": folder.file(".data").path, "XDG_DATA_DIRS": folder.file(".no-system-data").path])
    var output = normalised(result.output)
    if sortingOutput { output = output.split(separator: "\n").sorted().joined(separator: "\n") + (output.isEmpty ? "" : "\n") }
    return
      "$ quire \(arguments.map(normalised).joined(separator: " "))\nexit status \(result.status)\n--- standard output\n\(lines(output))--- standard error\n\(lines(normalised(result.error)))"
  }

  /// Checks the transcript of `quire ARGUMENTS` against its golden file (`name` tells apart
  /// several in one test).
  func expectGolden(
    _ arguments: [String], named name: String? = nil, sortingOutput: Bool = false, fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    testName: String = #function, line: UInt = #line, column: UInt = #column
  ) async throws {
    let text = try await transcript(arguments, sortingOutput: sortingOutput)
    assertSnapshot(of: text, as: .lines, named: name, fileID: fileID, file: filePath, testName: testName, line: line, column: column)
  }

  /// `text` as whole lines: a last line without its newline is marked so.
  func lines(_ text: String) -> String {
    text.isEmpty || text.hasSuffix("\n") ? text : text + "\n[no newline at the end]\n"
  }

  /// The text with the test folder as `$FOLDER` and measured times as `…`.
  func normalised(_ text: String) -> String {
    var text = text.replacingOccurrences(of: folder.url.path, with: "$FOLDER")
    for (pattern, replacement) in [(#""milliseconds":[0-9.]+"#, #""milliseconds":…"#), (#" in [0-9.]+ s\b"#, " in … s")] {
      text = text.replacingOccurrences(of: pattern, with: replacement, options: .regularExpression)
    }
    return text
  }

  /// Small documents: Markdown in English and Japanese, hostile Markdown, plain text.
  func makeFixtures() throws {
    try FileManager.default.createDirectory(at: folder.file("docs"), withIntermediateDirectories: true)
    try folder.write("# Hello\n\nSome *emphasis*, a [link](https://example.org) and `code`.\n\n- one\n- two\n", to: "docs/hello.md")
    try folder.write("# 日本語の見出し\n\n吾輩は猫である。名前はまだ無い。\n\n- 一つ目\n- 二つ目\n", to: "docs/japanese.md")
    try folder.write(
      "# Hostile\n\n<script>alert(1)</script>\n\n<img src=x onerror=alert(1)>\n\n[click](javascript:alert(1)) and <a href=\"javascript:alert(2)\">raw</a>\n\n<iframe src=\"https://example.org\"></iframe>\n",
      to: "docs/hostile.md")
    try folder.write("plain text\n  indented <b>not bold</b>\n", to: "docs/notes.txt")
  }

  // MARK: Help

  static let subcommands = [
    "repl", "demo", "thumbnail", "preview", "type", "types", "watch", "copy", "paste", "serve", "rpc", "browse", "recent", "tag", "trash", "search",
  ]

  @Test func topLevelHelp() async throws {
    try await expectGolden(["--help"])
  }

  @Test(arguments: subcommands)
  func helpOfEachSubcommand(_ name: String) async throws {
    try await expectGolden(["help", name], named: name)
  }

  // MARK: Usage errors: exit status 2, the reason and the usage line on standard error

  static let usageErrors: [[String]] = [
    ["--no-such-option"],
    // A command given nothing but an unknown option names the option, not the missing input.
    ["search"],
    ["search", "--bogus"],
    ["type", "--bogus"],
    ["thumbnail", "--bogus"],
    ["preview"],
    ["preview", "x.md", "--format", "pdf"],
    ["thumbnail"],
    ["thumbnail", "--size", "0", "x.md"],
    ["thumbnail", "--size", "5000", "x.md"],
    ["thumbnail", "--jobs", "0", "x.md"],
    ["thumbnail", "--output", "/tmp", "--cache", "x.md"],
    ["thumbnail", "-s", "128", "only-one"],
    ["thumbnail", "--time-limit", "0", "x.md"],
    ["type"],
    ["type", "--extension", "md", "--mime", "text/plain"],
    ["types", "--conforming-to", "com.example.nothing"],
    ["watch"],
    ["watch", "--bogus"],
  ]

  @Test(arguments: usageErrors)
  func usageErrors(_ arguments: [String]) async throws {
    try await expectGolden(arguments, named: arguments.joined(separator: " "))
  }

  // MARK: Types

  @Test func typesListsTheBuiltInRegistry() async throws {
    try await expectGolden(["types"])
  }

  @Test func typesTreeOfText() async throws {
    try await expectGolden(["types", "--tree", "--conforming-to", "public.text"])
  }

  @Test func typeJSONOfFixtures() async throws {
    try makeFixtures()
    try PDFFixtures.onePage(content: "0 g 0 0 10 10 re f").write(to: folder.file("docs/page.pdf"))
    try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]).write(to: folder.file("docs/named-wrongly.txt"))
    let names = ["hello.md", "japanese.md", "notes.txt", "page.pdf", "named-wrongly.txt"].map { "docs/" + $0 }
    try await expectGolden(["type", "--json"] + names + ["docs", "missing.md"])
  }

  @Test func typeLookupsByExtensionAndMIMEType() async throws {
    try await expectGolden(["type", "--extension", "md"], named: "extension")
    try await expectGolden(["type", "--mime", "text/x-nobody-declares-this", "--json"], named: "unknown-mime")
  }

  // MARK: Thumbnails and previews

  @Test func thumbnailJSONOfAFixtureFolder() async throws {
    try makeFixtures()
    try Data("%PDF-1.4 broken".utf8).write(to: folder.file("docs/broken.pdf"))
    try await expectGolden(["thumbnail", "--json", "--size", "64", "--output", "thumbnails", "docs"], sortingOutput: true)
  }

  @Test(arguments: ["hello.md", "japanese.md", "hostile.md", "notes.txt"])
  func previewHTML(_ name: String) async throws {
    try makeFixtures()
    try await expectGolden(["preview", "docs/\(name)"], named: name)
  }

  @Test func previewText() async throws {
    try makeFixtures()
    try await expectGolden(["preview", "docs/japanese.md", "--format", "text"])
  }
}
