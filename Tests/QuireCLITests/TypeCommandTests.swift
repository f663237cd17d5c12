import Foundation
import QuireTestSupport
import QuireTypes
import SystemPackage
import Testing

@testable import QuireCLI

@Suite("quire type and quire types")
final class TypeCommandTests {
  let folder: TemporaryFolder
  init() throws { folder = try TemporaryFolder() }
  deinit { folder.remove() }

  @Test func identifyingFilesSucceeds() async throws {
    let md = try folder.write("# hi\n", to: "a.md")
    #expect(await QuireCommand.run(arguments: ["type", md.path]) == ExitStatus.success)
    #expect(await QuireCommand.run(arguments: ["type", "--json", md.path, folder.url.path]) == ExitStatus.success)
  }

  @Test func aMissingFileFailsButTheOthersAreDone() async throws {
    let md = try folder.write("# hi\n", to: "a.md")
    #expect(await QuireCommand.run(arguments: ["type", md.path, folder.file("missing").path]) == ExitStatus.failure)
  }

  @Test func tagLookups() async {
    #expect(await QuireCommand.run(arguments: ["type", "--extension", "md"]) == ExitStatus.success)
    #expect(await QuireCommand.run(arguments: ["type", "--mime", "text/x-nobody-declares-this", "--json"]) == ExitStatus.success)
  }

  @Test func usageErrorsExitWithTwo() async {
    #expect(await QuireCommand.run(arguments: ["type"]) == ExitStatus.usage)
    #expect(await QuireCommand.run(arguments: ["type", "--extension", "md", "--mime", "text/plain"]) == ExitStatus.usage)
    #expect(await QuireCommand.run(arguments: ["types", "--conforming-to", "com.example.nothing"]) == ExitStatus.usage)
  }

  @Test func registryListings() async {
    #expect(await QuireCommand.run(arguments: ["types", "--tree", "--conforming-to", "public.text"]) == ExitStatus.success)
    #expect(await QuireCommand.run(arguments: ["types", "--conforming-to", "public.image"]) == ExitStatus.success)
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
