import Foundation
import QuireFormats
import QuirePreviews
import QuireTestSupport
import QuireTypes
import SystemPackage
import Testing

/// Files whose names are not UTF-8 (no `URL` holds them): previewed and drawn by their bytes.
@Suite("Previews and thumbnails of names that are not UTF-8")
final class NonUTF8NamePreviewTests: FolderSuite {

  /// Makes `non\xFF<suffix>` holding `text`; returns its path.
  func make(_ text: String, suffix: String) throws -> FilePath {
    let raw = try folder.write(text, toNameBytes: Array("non".utf8) + [0xFF] + Array(suffix.utf8))
    return (raw + [0]).withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { FilePath(platformString: $0.baseAddress!) } }
  }

  @Test func previewReadsTheFileItsBytesName() throws {
    let path = try make("# Kept title\n\nbody <script>x</script>\n", suffix: "utf.md")
    let page = try PreviewGenerator().preview(of: path, format: .html)
    #expect(page.contains("Kept title"))
    #expect(!page.contains("<script>x"))
    // The title shows the byte escaped, not a replacement character.
    #expect(page.contains("<title>non\\xFFutf.md</title>"), "\(page.prefix(400))")
    #expect(!page.contains("\u{FFFD}"))
    #expect(try PreviewGenerator().preview(of: path, format: .text).contains("Kept title"))
  }

  @Test func previewOfAUTF8PathIsTheURLPreview() throws {
    let url = try folder.write("plain words\n", to: "plain.txt")
    #expect(try PreviewGenerator().preview(of: FilePath(url.path), format: .html) == PreviewGenerator().preview(of: url, format: .html))
  }

  @Test func previewRefusesBadContentNamingTheFileEscaped() throws {
    let path = try make("\u{0}binary", suffix: "x.md")
    let error = try #require(throws: QuireError.self) { try PreviewGenerator().preview(of: path, format: .html) }
    #expect(error.reason.contains("non\\xFFx.md"), "\(error.reason)")
    let missing = FilePath(folder.url.path).appending("gone.md")
    #expect(throws: QuireError.self) { try PreviewGenerator().preview(of: missing, format: .html) }
  }

  @Test func theTypeAndTheThumbnailComeFromTheBytesName() throws {
    let path = try make("# Title\n\nSome text to draw.\n", suffix: "utf.md")
    let generator = ThumbnailGenerator()
    let type = try generator.contentType(of: path)
    #expect(type.conforms(to: .markdown))
    let bitmap = try generator.generateBestRepresentation(for: ThumbnailRequest(filePath: path, contentType: type, maximumSize: 64))
    #expect(max(bitmap.width, bitmap.height) == 64)
    let text = try make("plain text\n", suffix: "t.txt")
    #expect(try generator.contentType(of: text).conforms(to: .plainText))
  }

  /// A PDF under such a name is opened by its bytes (poppler gets the descriptor), for its
  /// thumbnail, its preview and its text; a decoy under the lossy reading of the name, where a
  /// `URL` would lead, is never read in its place.
  @Test func aPDFIsDrawnPreviewedAndReadByItsBytesName() throws {
    let path = try make("", suffix: "doc.pdf")
    let made = try writePDF(to: folder.file("made.pdf"), pages: ["Quarterly invoice", "Second page"], width: 300, height: 400)
    #expect(path.withPlatformString { rename(made.path, $0) } == 0)
    try writePDF(to: folder.file("non\u{FFFD}doc.pdf"), pages: ["Decoy"], width: 300, height: 400)
    let pdf = try PDFFile(filePath: path)
    #expect(pdf.pageCount == 2)
    #expect(try pdf.text(ofPage: 0).contains("Quarterly invoice"))
    let generator = ThumbnailGenerator()
    let type = try generator.contentType(of: path)
    #expect(type.conforms(to: .pdf))
    let bitmap = try generator.generateBestRepresentation(for: ThumbnailRequest(filePath: path, contentType: type, maximumSize: 64))
    #expect(max(bitmap.width, bitmap.height) == 64)
    let preview = try PreviewGenerator().preview(of: path, format: .text)
    #expect(preview.contains("Pages: 2") && preview.contains("Quarterly invoice") && !preview.contains("Decoy"), "\(preview)")
    #expect(try PreviewGenerator().preview(of: path, format: .html).contains("<title>non\\xFFdoc.pdf</title>"))
  }

  /// A FIFO, a folder or an empty file given as a PDF: a clear error, and nothing waits on a
  /// writer that never comes.
  @Test func aPDFThatIsNotARegularFileIsRefusedWithoutWaiting() throws {
    let fifo = folder.file("pipe.pdf")
    #expect(mkfifo(fifo.path, 0o600) == 0)
    let error = try #require(throws: QuireError.self) { try PDFFile(contentsOf: fifo) }
    #expect(error.reason.contains("'pipe.pdf'") && error.reason.contains("not a regular file"), "\(error.reason)")
    try FileManager.default.createDirectory(at: folder.file("dir.pdf"), withIntermediateDirectories: false)
    #expect(throws: QuireError.self) { try PDFFile(contentsOf: folder.file("dir.pdf")) }
    try Data().write(to: folder.file("empty.pdf"))
    let empty = try #require(throws: QuireError.self) { try PDFFile(contentsOf: folder.file("empty.pdf")) }
    #expect(empty.reason.contains("empty"), "\(empty.reason)")
  }

  @Test func theCacheSourceEscapesTheByteInItsURIAsGLibDoes() throws {
    let path = try make("x\n", suffix: "utf.md")
    let source = try ThumbnailCache.source(for: path)
    #expect(source.uri == "file://" + folder.url.path + "/non%FFutf.md")
    #expect(FreedesktopNames.filePath(forFileURI: source.uri) == path)
    #expect(try FreedesktopNames.fileURI(for: path) == source.uri)
    #expect(source.size == 2)
  }

  @Test func theBatchWalksAndDrawsSuchNamesByTheirBytes() throws {
    let quire = try builtQuire()  // the batch's worker is the quire program built beside the tests
    try FileManager.default.createDirectory(at: folder.file("docs"), withIntermediateDirectories: true)
    try folder.write("# in a folder\n", toNameBytes: Array("docs/in".utf8) + [0xFF] + Array(".md".utf8))
    let given = try make("# given\n", suffix: "given.md")
    let missing = FilePath(folder.url.path).appending("gone.md")
    let output = folder.file("out")
    var results: [ThumbnailBatch.Result] = []
    let summary = ThumbnailBatch(
      options: .init(size: 64, destination: .folder(output), jobs: 1, timeLimit: 60, workerExecutable: quire, version: "test")
    ).run([FilePath(folder.file("docs").path), given, missing], onResult: { results.append($0) })
    #expect(summary.made == 2 && summary.failed == 1, "\(results)")
    // Results carry the bytes (PathText); shown escaped.
    let shown = Set(results.filter { $0.status == .made }.map { DisplayName.escaping($0.file) })
    #expect(shown == [folder.url.path + "/docs/in\\xFF.md", folder.url.path + "/non\\xFFgiven.md"])
    #expect(FileManager.default.fileExists(atPath: output.appendingPathComponent("in\\xFF.md.png").path))
    #expect(FileManager.default.fileExists(atPath: output.appendingPathComponent("non\\xFFgiven.md.png").path))
    #expect(results.first { $0.status == .failed }?.message?.contains("gone.md") == true)
  }
}
