// Written from QuickLookThumbnailing's documentation (QLThumbnailGenerator), through the
// module of Apple's name.
import Foundation
import QuickLookThumbnailing
import QuireTestSupport
import Testing

@Suite("QuickLookThumbnailing's generator")
final class QuickLookThumbnailingTests: FolderSuite {
  @Test func aMarkdownFileGetsAThumbnailOfTheSizeAskedFor() async throws {
    let url = try folder.write("# Notes\n\nSome *text*.\n", to: "notes.md")
    let request = QLThumbnailGenerator.Request(fileAt: url, size: CGSize(width: 64, height: 64), scale: 2, representationTypes: .thumbnail)
    let representation = try await QLThumbnailGenerator.shared.generateBestRepresentation(for: request)
    #expect(max(representation.cgImage.width, representation.cgImage.height) == 128)
    #expect(representation.uiImage.pngData() != nil)
  }

  @Test func aFileWithoutAProviderFailsThroughTheCompletionHandler() async throws {
    let url = folder.file("blob.bin")
    try Data([0, 1, 2, 3]).write(to: url)
    let request = QLThumbnailGenerator.Request(fileAt: url, size: CGSize(width: 64, height: 64), scale: 1, representationTypes: .all)
    let failed: Bool = await withCheckedContinuation { done in
      QLThumbnailGenerator.shared.generateBestRepresentation(for: request) { representation, error in
        done.resume(returning: representation == nil && error != nil)
      }
    }
    #expect(failed)
  }
}
