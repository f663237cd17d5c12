import Foundation
import QuireDocuments
import Testing

/// `ContentHash`, the 128-bit hash in every `FileFingerprint`: stable, sensitive to every bit
/// and to the length, the same however the bytes are held.
@Suite("ContentHash")
struct ContentHashTests {
  /// Pinned values: the hash is stored (recovery file names) and compared across runs, so it must
  /// never change by accident.
  @Test(arguments: [
    ("", "af0549847bf6617947f4a7825bb71ff3"),
    ("abc", "912e3376462b9b5ce0105261c9461efd"),
    ("The quick brown fox jumps over the lazy dog", "c16055fc1f7e9b83271da0546555db5a"),
  ])
  func knownValuesAreStable(_ text: String, _ expected: String) {
    #expect(ContentHash(Data(text.utf8)).description == expected)
  }

  @Test func theDescriptionIs32HexDigits() {
    for length in [0, 1, 7, 8, 16, 100] {
      let text = ContentHash(Data(repeating: 0xAB, count: length)).description
      #expect(text.count == 32 && text.allSatisfy(\.isHexDigit), "\(text)")
    }
    #expect(ContentHash(high: 1, low: 2).description == "00000000000000010000000000000002")
  }

  @Test func everyLengthOfZerosHashesDifferently() {
    // Zero bytes add nothing to the lanes: only the length tells these apart.
    let hashes = (0...80).map { ContentHash(Data(count: $0)) }
    #expect(Set(hashes).count == hashes.count)
  }

  @Test func flippingAnyBitChangesTheHash() {
    // 41 bytes: two full 16-byte blocks, a full 8-byte tail word and a partial one.
    let original = Data((0..<41).map { UInt8(truncatingIfNeeded: $0 &* 37) })
    let hash = ContentHash(original)
    var seen: [ContentHash: String] = [hash: "original"]
    for byte in 0..<original.count {
      for bit in 0..<8 {
        var changed = original
        changed[byte] ^= 1 << bit
        let other = ContentHash(changed)
        #expect(other != hash, "byte \(byte) bit \(bit)")
        if let earlier = seen[other] { Issue.record("byte \(byte) bit \(bit) collides with \(earlier)") }
        seen[other] = "byte \(byte) bit \(bit)"
      }
    }
    #expect(seen.count == 1 + 41 * 8)
  }

  @Test func twoOneCharacterEditsSixteenBytesApartAreSeen() {
    // Before the multiply was folded, bit 62 of one word and bit 27 of the word 16 bytes
    // later cancelled out: these two edits gave the original's hash.
    let original = Data("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa".utf8)
    var edited = original
    edited[7] = UInt8(ascii: "!")  // 0x61 -> 0x21: bit 6 of byte 7
    edited[19] = UInt8(ascii: "i")  // 0x61 -> 0x69: bit 3 of byte 19
    #expect(ContentHash(edited) != ContentHash(original))
  }

  @Test func everyPairOfBitFlipsHashesDifferently() {
    let original = Data((0..<24).map { UInt8(truncatingIfNeeded: $0 &* 53) })
    var hashes: Set<ContentHash> = [ContentHash(original)]
    var count = 1
    for first in 0..<(original.count * 8) {
      for second in first..<(original.count * 8) {
        var changed = original
        changed[first / 8] ^= 1 << (first % 8)
        if second != first { changed[second / 8] ^= 1 << (second % 8) }
        hashes.insert(ContentHash(changed))
        count += 1
      }
    }
    #expect(hashes.count == count)
  }

  @Test func swappedWordsHashDifferently() {
    let a = Data("AAAAAAAABBBBBBBB".utf8)
    let b = Data("BBBBBBBBAAAAAAAA".utf8)
    #expect(ContentHash(a) != ContentHash(b))
  }

  @Test func theSameBytesHashTheSameHoweverTheyAreHeld() {
    let bytes = (0..<1000).map { UInt8(truncatingIfNeeded: $0 * 7) }
    let whole = Data(bytes)
    // A slice whose indices do not start at zero, and bytes at an odd (unaligned) address.
    let slice = Data([0xFF, 0xFF, 0xFF] + bytes).dropFirst(3)
    #expect(slice.startIndex == 3)
    #expect(ContentHash(slice) == ContentHash(whole))
    let unaligned = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count + 1, alignment: 8)
    defer { unaligned.deallocate() }
    let view = UnsafeMutableRawBufferPointer(rebasing: unaligned[1...])
    view.copyBytes(from: bytes)
    #expect(ContentHash(UnsafeRawBufferPointer(view)) == ContentHash(whole))
  }

  @Test func largeInputsHashAndDifferInTheirLastByte() {
    var big = Data(repeating: 0x5A, count: 16 << 20)
    let first = ContentHash(big)
    big[big.count - 1] = 0x5B
    #expect(ContentHash(big) != first)
    #expect(ContentHash(big) == ContentHash(big))
  }
}
