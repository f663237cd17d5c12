import Foundation
import QuireTestSupport
@_spi(Testing) import QuireTransfer
import QuireTypes
import Testing

/// 1 GB representations go through files (kept sparse) and sockets in chunks; these tests
/// check that peak memory stays far below the size. They run one after another so their
/// peaks do not add up.
@Suite("Hostile input: huge and mislabelled representations", .serialized)
final class HostileInputTests: FolderSuite {
  static let gigabyte: Int64 = 1 << 30
  /// Far below 1 GB, well above what the test process needs anyway.
  static let memoryCeiling = 400 << 20

  init() throws { try super.init() }

  func expectPeakMemoryStayedLow(sourceLocation: SourceLocation = #_sourceLocation) throws {
    let peak = try #require(peakResidentBytes(), "/proc/self/status has no VmHWM line", sourceLocation: sourceLocation)
    print("peak resident memory: \(peak >> 20) MiB")
    #expect(peak < Self.memoryCeiling, "peak resident memory was \(peak >> 20) MiB", sourceLocation: sourceLocation)
  }

  @Test func aGigabyteFileRepresentationIsStreamedThroughAFile() async throws {
    let big = folder.file("big.bin")
    try makeSparseFile(big, size: Self.gigabyte)
    resetPeakResidentBytes()
    let provider = ItemProvider(suggestedName: "big")
    provider.registerFileRepresentation(for: .data, fileURL: big)
    let (size, head, tail) = try await provider.loadFileRepresentation(for: .data) { url in
      let size = try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int64
      let (head, tail) = try markers(of: url)
      return (size, head, tail)
    }
    #expect(size == Self.gigabyte)
    #expect(head == "HEAD")
    #expect(tail == "TAIL")
    // Into memory it is refused, with the way out named.
    await expectQuireError(.limitExceeded, reasonContains: "as a file") {
      try await provider.loadDataRepresentation(for: .data)
    }
    try expectPeakMemoryStayedLow()
  }

  @Test func aGigabytePromiseIsStreamedThroughTheSocketAndMaterializedAsAFile() async throws {
    let big = folder.file("big.bin")
    try makeSparseFile(big, size: Self.gigabyte)
    let root = folder.file("pasteboards")
    let provider = ItemProvider(suggestedName: "big")
    provider.registerFileRepresentation(for: .data, fileURL: big)
    try Pasteboard(name: "general", rootFolder: root).setItemProviders([provider])
    resetPeakResidentBytes()

    // Another process's view: fetched from the live owner over the socket.
    let remote = try #require(try Pasteboard(name: "general", rootFolder: root, usesLocalItems: false).itemProviders.first)
    let fetched = folder.file("fetched.bin")
    try await remote.writeRepresentation(for: .data, to: fetched)
    #expect(try FileManager.default.attributesOfItem(atPath: fetched.path)[.size] as? Int64 == Self.gigabyte)
    #expect(try markers(of: fetched) == ("HEAD", "TAIL"))
    try FileManager.default.removeItem(at: fetched)

    // Materialised into the pasteboard folder, then read from there.
    try await Pasteboard(name: "general", rootFolder: root).materializePromises()
    let stored = try #require(try Pasteboard(name: "general", rootFolder: root, usesLocalItems: false).itemProviders.first)
    let pasted = folder.file("pasted.bin")
    try await stored.writeRepresentation(for: .data, to: pasted)
    #expect(try markers(of: pasted) == ("HEAD", "TAIL"))
    try expectPeakMemoryStayedLow()
  }

  @Test func aRepresentationWhoseBytesDoNotMatchItsTypeIsReportedAcrossThePasteboard() async throws {
    let root = folder.file("pasteboards")
    let liar = ItemProvider(suggestedName: "not really a picture")
    liar.registerDataRepresentation(for: .png) { Data("GIF89a, or text, but surely not PNG".utf8) }
    try Pasteboard(name: "general", rootFolder: root).setItemProviders([liar])
    let remote = try #require(try Pasteboard(name: "general", rootFolder: root, usesLocalItems: false).itemProviders.first)
    #expect(remote.canLoadObject(ofClass: PNGImage.self))
    await expectQuireError(.invalidContent, reasonContains: "PNG signature") {
      try await remote.loadObject(ofClass: PNGImage.self)
    }
  }
}
