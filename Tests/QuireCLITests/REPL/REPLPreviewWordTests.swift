import Foundation
import Quire
import QuireTestSupport
import Testing

@testable import QuireCLI

@MainActor
@Suite("REPL thumbnail and preview words")
final class REPLPreviewWordTests: MainActorFolderSuite {
  @Test func thumbnailOfTheCurrentDocumentIsAPNGOfTheAskedSize() async throws {
    let note = try folder.write("# Title\n\nSome *text*.\n", to: "note.md")
    let out = folder.file("thumbs")
    try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
    let (session, transcript) = makeSession(["thumbnail --size 128 --output \(out.path)", "q"], in: folder)
    #expect(await session.run(opening: [note.path]) == 0)
    let png = try Data(contentsOf: out.appendingPathComponent("note.png"))
    #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
    // IHDR width and height, big-endian, at bytes 16…23: the longest side is exactly 128.
    let width = png[16..<20].reduce(0) { $0 << 8 | Int($1) }
    let height = png[20..<24].reduce(0) { $0 << 8 | Int($1) }
    #expect(max(width, height) == 128)
    #expect(transcript.output.contains { $0.hasPrefix("thumbnail: ") && $0.hasSuffix("note.png (\(width)×\(height))") })
  }

  @Test func thumbnailOfAMissingFileIsOneClearLineAndTheSessionGoesOn() async throws {
    let note = try folder.write("text\n", to: "t.txt")
    let (session, transcript) = makeSession(["thumbnail \(folder.file("absent.pdf").path)", "1p", "q"], in: folder)
    #expect(await session.run(opening: [note.path]) == 0)
    #expect(transcript.output.contains { $0.hasPrefix("? ") && $0.contains("absent.pdf") })
    #expect(transcript.output.contains("text"))
  }

  @Test func previewOfAPDFHasItsTextAndOutline() async throws {
    let pdf = try writePDF(to: folder.file("two-pages.pdf"), pages: ["First page about otters", "Second page about herons"]) {
      $0.addOutlineEntry("Herons", page: 2)
    }
    let target = folder.file("preview.html")
    let (session, _) = makeSession(["preview \(pdf.path) --output \(target.path)", "q"], in: folder)
    #expect(await session.run(opening: []) == 0)
    let html = try String(contentsOf: target, encoding: .utf8)
    #expect(html.contains("otters"))
    #expect(html.contains("herons"))
    #expect(html.contains("Herons"))
  }

  @Test func badSizeIsRefused() async throws {
    let note = try folder.write("x\n", to: "n.md")
    let (session, transcript) = makeSession(["thumbnail --size 5", "q"], in: folder)
    #expect(await session.run(opening: [note.path]) == 0)
    #expect(transcript.output.contains { $0.contains("16 to 2048") })
  }
}
