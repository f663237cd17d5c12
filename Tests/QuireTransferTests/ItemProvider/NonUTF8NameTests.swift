import Foundation
import QuireTestSupport
import QuireTransfer
import QuireTypes
import SystemPackage
import Testing

/// A file whose name is not UTF-8 (no `URL` holds it) registered by its `FilePath`.
@Suite("Item provider: files whose names are not UTF-8")
final class NonUTF8FileRepresentationTests: FolderSuite {

  func make(_ text: String, name: [UInt8]) throws -> FilePath {
    let raw = try folder.write(text, toNameBytes: name)
    return (raw + [0]).withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { FilePath(platformString: $0.baseAddress!) } }
  }

  @Test func loadsGiveACopyOfTheVeryFileUnderTheEscapedName() async throws {
    let path = try make("# the very file\n", name: Array("non".utf8) + [0xFF] + Array("utf.md".utf8))
    let provider = ItemProvider(suggestedName: "non\\xFFutf")
    provider.registerFileRepresentation(for: .markdown, filePath: path)
    let seen = try await provider.loadFileRepresentation(for: .markdown) { url in
      (url, try String(contentsOf: url, encoding: .utf8))
    }
    #expect(seen.1 == "# the very file\n")
    #expect(seen.0.lastPathComponent == "non\\xFFutf.md")
    #expect(!FileManager.default.fileExists(atPath: seen.0.path), "the copy outlived the handler")
    #expect(try await provider.loadDataRepresentation(for: .markdown) == Data("# the very file\n".utf8))
  }

  @Test func aUTF8PathIsHandedOutAsTheFileItself() async throws {
    let url = try folder.write("in place\n", to: "doc.md")
    let provider = ItemProvider()
    provider.registerFileRepresentation(for: .markdown, filePath: FilePath(url.path))
    #expect(try await provider.loadDataRepresentation(for: .markdown) == Data("in place\n".utf8))
  }

  @Test func aMissingOrSpecialFileIsAnErrorNamingItEscaped() async throws {
    let missing = FilePath(folder.url.path).appending("gone").appending("x")
    let gone = (Array(folder.url.path.utf8) + Array("/gone".utf8) + [0xFE, 0]).withUnsafeBufferPointer {
      $0.withMemoryRebound(to: CChar.self) { FilePath(platformString: $0.baseAddress!) }
    }
    for path in [gone, missing] {
      let provider = ItemProvider()
      provider.registerFileRepresentation(for: .plainText, filePath: path)
      await #expect(throws: (any Error).self) { _ = try await provider.loadDataRepresentation(for: .plainText) }
    }
    let provider = ItemProvider()
    provider.registerFileRepresentation(for: .plainText, filePath: gone)
    do {
      _ = try await provider.loadDataRepresentation(for: .plainText)
    } catch {
      #expect("\(error)".contains("gone\\xFE"), "\(error)")
    }
  }
}
