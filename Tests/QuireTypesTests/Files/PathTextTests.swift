import Foundation
import QuireTestSupport
import SystemPackage
import Testing

@testable import QuireCore
@testable import QuireTypes

/// Names that are not UTF-8 (Linux names are bytes): carried in a String without loss, shown
/// escaped, and opened by their bytes.
@Suite("File names as bytes")
final class PathTextTests: FolderSuite {

  static func path(_ bytes: [UInt8]) -> FilePath {
    (bytes + [0]).withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { FilePath(platformString: $0.baseAddress!) } }
  }

  static func bytes(_ path: FilePath) -> [UInt8] {
    path.withPlatformString { Array(UnsafeRawBufferPointer(start: $0, count: strlen($0))) }
  }

  @Test(arguments: [
    Array("plain.md".utf8),
    Array("non".utf8) + [0xFF] + Array("utf.md".utf8),
    [0xC3, 0x28, 0xE2, 0x82, 0x80, 0xF0, 0x9F],  // a bad continuation, a cut sequence, a cut 4-byte one
    Array("ünïcode – 日本".utf8),
    // A private-use scalar from the block that stands for bytes (U+10FF41), valid UTF-8 itself.
    [0x61, 0xF4, 0x8F, 0xBD, 0x81, 0x62],
    [0xED, 0xA0, 0x80],  // an encoded surrogate: not UTF-8
  ])
  func bytesSurviveTheRoundTrip(_ bytes: [UInt8]) {
    let text = PathText.string(bytes: bytes)
    #expect(PathText.bytes(text) == bytes)
    #expect(Self.bytes(PathText.path(text)) == bytes)
    #expect(PathText.string(Self.path(bytes)) == text)
  }

  @Test func validNamesAreLeftAsTheyAre() {
    #expect(PathText.string(bytes: Array("notes – ü.md".utf8)) == "notes – ü.md")
    #expect(!PathText.holdsNonUTF8Bytes("notes – ü.md"))
    #expect(PathText.holdsNonUTF8Bytes(PathText.string(bytes: [0x61, 0xFF])))
  }

  @Test func differentBytesGiveDifferentTextAndDisplayNames() {
    let a = PathText.string(bytes: Array("x".utf8) + [0xFF])
    let b = PathText.string(bytes: Array("x".utf8) + [0xFE])
    let lossy = "x\u{FFFD}"
    #expect(Set([a, b, lossy]).count == 3)
    #expect(DisplayName.escaping(a) == "x\\xFF")
    #expect(DisplayName.escaping(b) == "x\\xFE")
    #expect(DisplayName.escaping(bytes: Array("x".utf8) + [0xFF]) == "x\\xFF")
    #expect(DisplayName.escaping(Self.path(Array("non".utf8) + [0xFF] + Array("utf.md".utf8))) == "non\\xFFutf.md")
  }

  @Test func inputFileReadsAFileByItsBytes() throws {
    let raw = try folder.write("# kept\n", toNameBytes: Array("non".utf8) + [0xFF] + Array("utf.md".utf8))
    let path = Self.path(raw)
    #expect(try InputFile.readText(path, for: "read", limit: 1024) == "# kept\n")
    #expect(try InputFile.read(path, for: "read", limit: 1024) == Array("# kept\n".utf8))
    try InputFile.check(path, for: "read")
    // The lossy name is another file, which is not there.
    #expect(throws: QuireError.self) { try InputFile.check(FilePath(path.string), for: "read") }
  }

  @Test func errorsNameTheFileEscaped() throws {
    let missing = Self.path(Array(folder.url.path.utf8) + Array("/gone".utf8) + [0xFF])
    let error = try #require(throws: QuireError.self) { try InputFile.readText(missing, for: "preview", limit: 10) }
    #expect(error.code == .fileMissing)
    #expect(error.reason.contains("gone\\xFF"), "\(error.reason)")
    #expect(QuireError.name(missing) == "'gone\\xFF'")
    let dangling = Self.path(Array(folder.url.path.utf8) + Array("/link".utf8) + [0xFE])
    _ = dangling.withPlatformString { symlink("/nonexistent/\u{1B}x", $0) }
    let linkError = InputFile.missingError(dangling, for: "read")
    #expect(linkError.reason.contains("link\\xFE"), "\(linkError.reason)")
    #expect(linkError.reason.contains("/nonexistent/\\x1Bx"), "\(linkError.reason)")
  }
}
