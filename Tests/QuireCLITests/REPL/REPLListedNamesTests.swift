import Foundation
import QuireTestSupport
import Testing

@testable import QuireCLI

/// What the REPL lists is what `open` takes: the names `quire` prints for Documents/, `browse`
/// and `search` open those very files.
@Suite("REPL: listed names open the listed files")
final class REPLListedNamesTests: FolderSuite, RunsQuire {
  init() throws {
    try super.init()
    try FileManager.default.createDirectory(at: folder.file("Documents"), withIntermediateDirectories: true)
    try folder.write("Welcome to quire\n", to: "Documents/welcome.md")
  }

  func session(_ script: String) async throws -> ProcessResult {
    try await quire([], input: script, environment: ["XDG_DATA_HOME": folder.file(".data").path, "XDG_CACHE_HOME": folder.file(".cache").path])
  }

  @Test func aListedNameOpensTheListedFileNotANewOneHere() async throws {
    let result = try await session(
      """
      search quire
      open welcome.md
      ,p
      a
      second
      .
      w
      """)
    #expect(result.status == 0, "\(result.error)")
    let lines = result.output.split(separator: "\n").map(String.init)
    #expect(lines.first?.hasPrefix("  1  welcome.md:1  ") == true, "\(lines)")
    #expect(lines.contains("Welcome to quire"))
    #expect(!FileManager.default.fileExists(atPath: folder.file("welcome.md").path), "no new welcome.md beside the listed one")
    #expect(try String(contentsOf: folder.file("Documents/welcome.md"), encoding: .utf8) == "Welcome to quire\nsecond\n")
  }

  @Test func aNameShadowedByAFileHereIsListedWithItsFolder() async throws {
    try folder.write("mine\n", to: "welcome.md")
    let result = try await session(
      """
      browse
      search quire
      open Documents/welcome.md
      ,p
      open welcome.md
      ,p
      """)
    #expect(result.status == 0, "\(result.error)")
    let lines = result.output.split(separator: "\n").map(String.init)
    #expect(lines[0].hasPrefix("  Documents/welcome.md  "), "\(lines)")
    #expect(lines[1].hasPrefix("  1  Documents/welcome.md:1  "), "\(lines)")
    #expect(lines[2] == "Welcome to quire" && lines[3] == "mine")
  }

  @Test func aNameInNeitherFolderIsANewFileHere() async throws {
    let result = try await session(
      """
      open fresh.md
      a
      new
      .
      w
      """)
    #expect(result.status == 0, "\(result.error)")
    #expect(try String(contentsOf: folder.file("fresh.md"), encoding: .utf8) == "new\n")
    #expect(!FileManager.default.fileExists(atPath: folder.file("Documents/fresh.md").path))
  }

  @MainActor
  @Test func openSaysWhichFileItOpened() async throws {
    // A name that is not in the test process's working folder, only in the listed one.
    let name = "listed-\(UUID().uuidString).md"
    try folder.write("listed\n", to: "Documents/\(name)")
    let transcript = Transcript()
    var configuration = REPLSession.Configuration(
      isInteractive: true, documentsFolder: folder.file("Documents"), templatesFolder: nil, cacheHome: folder.file(".cache"))
    configuration.autosave = nil
    let session = REPLSession(
      configuration: configuration, source: ArrayLineSource(["open \(name)", ",p", "q"]), output: { transcript.output.append($0) },
      errorOutput: { transcript.errors.append($0) })
    #expect(await session.run(opening: []) == 0)
    #expect(transcript.output.contains { $0.contains("'\(name)' is not in the current folder; opening '\(folder.file("Documents/\(name)").path)'") })
    #expect(transcript.output.contains("listed"))
  }
}
