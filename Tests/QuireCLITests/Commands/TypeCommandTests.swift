import Foundation
import QuireTestSupport
import QuireTypes
import SystemPackage
import Testing

@testable import QuireCLI

@Suite("quire type and quire types")
final class TypeCommandTests: FolderSuite, RunsQuire {

  // Golden files hold the whole output of `type --json`, `type --extension`, `types` and the
  // usage errors (GoldenOutputTests); these check the lines that matter here.

  @Test func identifyingFilesSucceeds() async throws {
    let md = try folder.write("# hi\n", to: "a.md")
    let plain = try await quire(["type", md.path])
    #expect(plain.status == 0, "\(plain.error)")
    #expect(plain.output.hasPrefix("\(md.path): net.daringfireball.markdown"), "\(plain.output)")
    let json = try await quire(["type", "--json", md.path, folder.url.path])
    #expect(json.status == 0, "\(json.error)")
    let reports = try #require(try JSONSerialization.jsonObject(with: json.outputData) as? [[String: Any]])
    #expect(reports.map { $0["identifier"] as? String } == ["net.daringfireball.markdown", "public.folder"])
  }

  @Test func aMissingFileFailsButTheOthersAreDone() async throws {
    let md = try folder.write("# hi\n", to: "a.md")
    let result = try await quire(["type", md.path, folder.file("missing").path])
    #expect(result.status == 1)
    #expect(result.output.contains("net.daringfireball.markdown"), "\(result.output)")
    #expect(result.error.contains("missing"), "\(result.error)")
  }

  /// `quire type FILE…` with its flags is read without the parser (see `DirectForm`); any other
  /// spelling goes to the parser.
  @Test func theDirectFormIsReadOnlyForFilesWithTheirFlags() {
    let plain = TypeCommand.FilesRequest(directForm: ["type", "a.md", "b c.pdf"])
    #expect(plain?.files == ["a.md", "b c.pdf"] && plain?.json == false && plain?.noContent == false && plain?.noFollow == false)
    let flagged = TypeCommand.FilesRequest(directForm: ["type", "--json", "a.md", "--no-content", "--no-follow"])
    #expect(flagged?.files == ["a.md"] && flagged?.json == true && flagged?.noContent == true && flagged?.noFollow == true)
    let others: [[String]] = [
      ["type"], ["type", "--json"], ["type", "--extension", "md"], ["type", "--mime", "text/plain"], ["type", "--", "a.md"],
      ["type", "-dash.md"], ["type", "-", "a.md"], ["type", "--json", "--json", "a.md"], ["type", "--json=true", "a.md"],
      ["type", "a.md", "-h"], ["types", "a.md"],
    ]
    for arguments in others { #expect(TypeCommand.FilesRequest(directForm: arguments) == nil, "\(arguments)") }
  }

  /// The direct form prints what the parsed command prints for the same files (spelled with
  /// `--` before them, which only the parser reads), and fails the same way.
  @Test func theDirectFormAnswersAsTheParsedCommandDoes() async throws {
    let md = try folder.write("# hi\n", to: "a.md")
    for flags in [[], ["--json", "--no-content"], ["--no-follow"]] {
      let direct = try await quire(["type"] + flags + [md.path, folder.url.path])
      let parsed = try await quire(["type"] + flags + ["--", md.path, folder.url.path])
      #expect(direct.status == 0 && parsed.status == 0, "\(direct.error) \(parsed.error)")
      #expect(direct.output == parsed.output && direct.output.contains("net.daringfireball.markdown"), "\(flags): \(direct.output)")
    }
    let directFailure = try await quire(["type", md.path, folder.file("missing").path])
    let parsedFailure = try await quire(["type", "--", md.path, folder.file("missing").path])
    #expect(directFailure.status == 1 && parsedFailure.status == 1)
    #expect(directFailure.output == parsedFailure.output && directFailure.error == parsedFailure.error, "\(directFailure.error)")
  }

  /// The direct form on what is not a regular file: a FIFO with no writer is named, not
  /// opened (no wait), a device is not read, a link is followed (or, with `--no-follow`,
  /// reported), a dangling link says so; each as the parsed command says it.
  @Test func theDirectFormNamesSpecialFilesWithoutOpeningThem() async throws {
    try folder.write("# hi\n", to: "a.md")
    #expect(mkfifo(folder.file("pipe").path, 0o600) == 0)
    try FileManager.default.createSymbolicLink(atPath: folder.file("link").path, withDestinationPath: "a.md")
    try FileManager.default.createSymbolicLink(atPath: folder.file("dangling").path, withDestinationPath: "nowhere")
    let names = [folder.file("pipe").path, "/dev/null", folder.file("link").path, folder.file("dangling").path]
    for flags in [[], ["--no-follow"]] {
      let direct = try await quire(["type"] + flags + names)
      let parsed = try await quire(["type"] + flags + ["--"] + names)
      #expect(direct.status == 0 && direct.output == parsed.output && direct.error == parsed.error, "\(direct.output) \(direct.error)")
      #expect(direct.output.contains("pipe: org.freedesktop.mime.inode.fifo") && direct.output.contains("not opened"), "\(direct.output)")
      #expect(direct.output.contains("/dev/null: org.freedesktop.mime.inode.chardevice"), "\(direct.output)")
      #expect(direct.output.contains("dangling: public.symlink"), "\(direct.output)")
      let linkLine = direct.output.split(separator: "\n").first { $0.hasPrefix(folder.file("link").path + ":") }
      #expect(linkLine?.contains(flags.isEmpty ? "net.daringfireball.markdown" : "public.symlink") == true, "\(direct.output)")
    }
  }

  @Test func tagLookups() async throws {
    let byExtension = try await quire(["type", "--extension", "md"])
    #expect(byExtension.status == 0 && byExtension.output.hasPrefix("net.daringfireball.markdown (text/markdown)"), "\(byExtension.output)")
    let byMIME = try await quire(["type", "--mime", "text/x-nobody-declares-this", "--json"])
    #expect(byMIME.status == 0 && byMIME.output.contains("\"isDynamic\" : true"), "\(byMIME.output)")
  }

  @Test func registryListings() async throws {
    let tree = try await quire(["types", "--tree", "--conforming-to", "public.text"])
    #expect(tree.status == 0 && tree.output.hasPrefix("public.text"), "\(tree.output)")
    #expect(tree.output.contains("net.daringfireball.markdown"))
    let images = try await quire(["types", "--conforming-to", "public.image"])
    #expect(images.status == 0)
    #expect(images.output.split(separator: "\n").contains { $0.hasPrefix("public.png  (.png, image/png)") }, "\(images.output)")
    #expect(!images.output.contains("public.plain-text"))
  }

  @Test func escapesControlCharactersAndInvalidBytes() {
    #expect(DisplayName.escaping(FilePath("two\nlines")) == "two\\nlines")
    let raw: [CChar] = Array("bad-".utf8CString.dropLast()) + [CChar(bitPattern: 0xFF), 0]
    let path = raw.withUnsafeBufferPointer { FilePath(platformString: $0.baseAddress!) }
    #expect(DisplayName.escaping(path) == "bad-\\xFF")
    #expect(DisplayName.escaping(FilePath("ünïcode")) == "ünïcode")
  }
}

@Suite("quire type --json shape")
struct TypeJSONTests {
  @Test func fileReportCarriesTheEvidence() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let url = try folder.write("# Title\n", to: "notes.md")
    let identification = try TypeRegistry.shared.identifyFile(at: url)
    let report = FileReport(path: "notes.md", identification: identification, registry: .shared)
    let json = try TypeCommand.encode([report])
    let parsed = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
    let object = try #require(parsed.first)
    #expect(object["identifier"] as? String == "net.daringfireball.markdown")
    #expect(object["mimeType"] as? String == "text/markdown")
    #expect(object["source"] as? String == "file name")
    #expect((object["conformsTo"] as? [String])?.first == "public.plain-text")
    let evidence = try #require(object["evidence"] as? [[String: Any]])
    #expect(evidence.first?["kind"] as? String == "glob")
    #expect(evidence.first?["rule"] as? String == "*.md")
    #expect(object["error"] == nil)
  }
}
