import Foundation
import QuireCore
import QuireTestSupport
import Testing

/// SHA-256 through OpenSSL, checked against the standard's test vectors and against coreutils'
/// `sha256sum` on bytes given in uneven pieces.
@Suite("ContentDigest")
struct ContentDigestTests {
  @Test func knownAnswers() {
    // FIPS 180-2's examples.
    #expect(ContentDigest.sha256(Data()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    #expect(ContentDigest.sha256(Data("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    #expect(
      ContentDigest.sha256(Data("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
        == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
  }

  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sha256sum"), "coreutils' sha256sum is not installed"))
  func piecesGiveWhatSha256sumGives() throws {
    var generator = SystemRandomNumberGenerator()
    let bytes = Data((0..<(3 << 20) + 12345).map { _ in UInt8.random(in: 0...255, using: &generator) })
    let digest = ContentDigest()
    var offset = 0
    var size = 1
    while offset < bytes.count {
      let end = min(bytes.count, offset + size)
      bytes[offset..<end].withUnsafeBytes { digest.update($0) }
      offset = end
      size = size * 3 + 1  // 1, 4, 13, … bytes: pieces of every alignment
    }
    let result = try ChildProcess.runBlocking(URL(fileURLWithPath: "/usr/bin/sha256sum"), [], input: bytes)
    let expected = String(decoding: result.outputData, as: UTF8.self).prefix(64)
    #expect(expected.count == 64)
    #expect(digest.finalize() == String(expected))
    // Finalizing again gives the same digest; nothing more is added.
    digest.update(Data("more".utf8))
    #expect(digest.finalize() == String(expected))
  }
}
