import Foundation
import QuireTestSupport
import Testing

@Suite("REPL browser words")
final class REPLBrowserWordsTests: FolderSuite, RunsQuire {
  init() throws {
    try super.init()
    try FileManager.default.createDirectory(at: folder.file("Documents"), withIntermediateDirectories: true)
    let templates = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../Templates").standardizedFileURL
    try FileManager.default.copyItem(at: templates, to: folder.file("Templates"))
  }

  func session(_ script: String) async throws -> ProcessResult {
    try await quire([], input: script, environment: ["XDG_DATA_HOME": folder.file(".data").path])
  }

  @Test func browseTagSearchOpenAndTrash() async throws {
    try folder.write("# Zoo\n\nfirst\nthe walrus sleeps\n", to: "Documents/zoo.md")
    try folder.write("plain\n", to: "Documents/old.txt")
    let result = try await session(
      """
      browse
      tag Documents/zoo.md +animals
      tag Documents/zoo.md
      browse --tag animals
      search walrus
      search --open 1
      .=
      trash Documents/old.txt
      browse
      recent
      """)
    #expect(result.status == 0, "\(result.error)")
    let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    #expect(lines[0].hasPrefix("  old.txt  plain text") && lines[1].hasPrefix("  zoo.md  Markdown text"))
    #expect(lines[2] == "#animals" && lines[3] == "#animals")
    #expect(lines[4].hasPrefix("  zoo.md  ") && lines[4].hasSuffix("#animals"))
    #expect(lines[5].hasPrefix("  1  zoo.md:4  ") && lines[5].contains("[walrus]"))
    #expect(lines[6] == "the walrus sleeps" && lines[7] == "4")
    #expect(lines[8].hasPrefix("  zoo.md  "))
    #expect(lines[9] == "  1  \(folder.file("Documents/zoo.md").path)")
    #expect(!FileManager.default.fileExists(atPath: folder.file("Documents/old.txt").path))
  }

  /// After its first `search` the session keeps the index current until it ends: a `quire
  /// search` of the same folder run from inside the session (a shell command) answers from
  /// the index, saying which process keeps it; once the session has ended, one walks again.
  @Test func aSessionThatSearchedKeepsTheIndexCurrentUntilItEnds() async throws {
    let program = try #require(Programs.quire)
    try folder.write("# Zoo\n\nthe walrus sleeps\n", to: "Documents/zoo.md")
    let result = try await session(
      """
      search walrus
      !'\(program.path)' search --in Documents walrus
      """)
    #expect(result.status == 0, "\(result.error)")
    #expect(result.output.hasPrefix("  1  zoo.md:3  "), "\(result.output)")
    #expect(result.output.contains(folder.file("Documents/zoo.md").path + ": line 3"), "\(result.output)")
    #expect(result.error.contains("quire: answered from the index that process "), "\(result.error)")
    let after = try await quire(["search", "--in", "Documents", "walrus"], environment: ["XDG_DATA_HOME": folder.file(".data").path])
    #expect(after.status == 0 && after.output.contains("zoo.md: line 3"), "\(after.error)")
    #expect(!after.error.contains("answered from the index"), "\(after.error)")
  }

  @Test func newFromTemplateCreatesTheFileThroughTheBrowser() async throws {
    let result = try await session(
      """
      new --template blank-note Documents/idea.md
      a
      more
      .
      w
      new --template blank-note Documents/idea.md
      """)
    #expect(result.status == 1)
    #expect(result.error.contains("line 6: ") && result.error.contains("'idea.md'") && result.error.contains("already"))
    let template = try String(contentsOf: folder.file("Templates/blank-note.md"), encoding: .utf8)
    #expect(try String(contentsOf: folder.file("Documents/idea.md"), encoding: .utf8) == template + "more\n")
  }

  @Test func badWordsSayWhy() async throws {
    for (script, message) in [
      ("search", "search for what?"), ("search --open 3", "there is no hit 3"), ("recent 9", "there is no recent document 9"),
      ("tag nothing.md", "'nothing.md'"), ("trash", "trash what?"), ("browse --sort colour", "sort by name, date, size or kind"),
    ] {
      let result = try await session(script + "\n")
      #expect(result.status == 1, "\(script)")
      #expect(result.error.contains(message), "\(script): \(result.error)")
    }
  }
}
