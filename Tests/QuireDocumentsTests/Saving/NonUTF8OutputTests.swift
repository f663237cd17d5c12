import Foundation
import QuireDocuments
import QuireTestSupport
import QuireTypes
import SystemPackage
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Output paths whose names are not UTF-8 (finding 4 of issue 16): the output rule and the
/// safe save write the very bytes named, never a lossy `non\u{FFFD}utf` name.
@Suite("Output paths that are not UTF-8")
final class NonUTF8OutputTests: FolderSuite {

  /// `name` in the test's folder, `?` standing for the byte 0xFF.
  func path(_ name: String) -> FilePath { folder.path(nameBytes: Array(name.utf8).map { $0 == UInt8(ascii: "?") ? 0xFF : $0 }) }

  func contents(_ path: FilePath) -> String? { folder.contents(of: path).map { String(decoding: $0, as: UTF8.self) } }

  func kind(_ path: FilePath) -> mode_t? {
    var info = stat()
    return path.withPlatformString { lstat($0, &info) } == 0 ? info.st_mode & S_IFMT : nil
  }

  /// How many entries the folder holds (a write under a lossy name would add one).
  var entryCount: Int { ((try? FileManager.default.contentsOfDirectory(atPath: folder.url.path)) ?? []).count }

  /// Whether a file of the lossy name (`non\u{FFFD}utf.html`, as decoding the bytes gives) is there.
  var lossyFileExists: Bool { FileManager.default.fileExists(atPath: folder.file("non\u{FFFD}utf.html").path) }

  @Test func aNewFileGetsTheVeryBytesNamed() throws {
    let target = path("non?utf.html")
    try FileSaver.writeOutput(Data("<p>one</p>\n".utf8), to: target)
    #expect(contents(target) == "<p>one</p>\n")
    #expect(kind(target) == S_IFREG)
    #expect(entryCount == 1)
    #expect(!lossyFileExists)
  }

  @Test func anExistingFileIsReplacedSafelyKeepingItsMode() throws {
    let target = path("non?utf.html")
    try FileSaver.writeOutput(Data("old\n".utf8), to: target)
    #expect(target.withPlatformString { chmod($0, 0o640) } == 0)
    try FileSaver.writeOutput(Data("new\n".utf8), to: target)
    #expect(contents(target) == "new\n")
    var info = stat()
    #expect(target.withPlatformString { stat($0, &info) } == 0 && info.st_mode & 0o777 == 0o640)
    // No temporary file was left beside it.
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).count == 1)
  }

  @Test func aLinkWhoseNameIsNotUTF8IsWrittenThroughToItsTarget() throws {
    let target = path("target?.html")
    try FileSaver.writeOutput(Data("old\n".utf8), to: target)
    let link = path("link?.html")
    #expect(target.withPlatformString { old in link.withPlatformString { symlink(old, $0) } } == 0)
    try FileSaver.writeOutput(Data("through\n".utf8), to: link)
    #expect(kind(link) == S_IFLNK)
    #expect(contents(target) == "through\n")
  }

  @Test(.timeLimit(.minutes(2))) func aFIFOWhoseNameIsNotUTF8IsWrittenThroughAndStaysAFIFO() async throws {
    let fifo = path("pipe?")
    #expect(fifo.withPlatformString { mkfifo($0, 0o600) } == 0)
    // Nobody reads it: refused at once, naming it escaped, never waited on.
    let error = try #require(throws: QuireError.self) { try FileSaver.writeOutput(Data("x".utf8), to: fifo) }
    #expect(error.reason.contains("pipe\\xFF"), "\(error.reason)")
    #expect(error.reason.contains("no process is reading it"), "\(error.reason)")
    // With a reader: written through.
    let reader = Task.detached { () -> String in
      let fd = fifo.withPlatformString { open($0, O_RDONLY) }
      defer { close(fd) }
      var bytes: [UInt8] = []
      var buffer = [UInt8](repeating: 0, count: 256)
      while true {
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, 256) }
        if count <= 0 { break }
        bytes += buffer.prefix(count)
      }
      return String(decoding: bytes, as: UTF8.self)
    }
    // Refused (no reader) until the reader has opened it, then written through.
    #expect(await eventually(every: .milliseconds(10)) { (try? FileSaver.writeOutput(Data("through the pipe\n".utf8), to: fifo)) != nil })
    #expect(await reader.value == "through the pipe\n")
    #expect(kind(fifo) == S_IFIFO)
  }

  @Test func aMissingFolderIsAClearErrorNamingItEscaped() throws {
    let target = path("gone?/out.html")
    let error = try #require(throws: QuireError.self) { try FileSaver.writeOutput(Data("x".utf8), to: target) }
    #expect(error.code == .fileMissing)
    #expect(error.reason.contains("gone\\xFF"), "\(error.reason)")
    #expect(entryCount == 0)
  }
}

/// A document whose file name is not UTF-8: its `fileURL` carries the bytes (made with
/// `OutputPath.url(carrying:)`, as the CLI makes it from an argument), and opening, saving and
/// the presenter it registers reach that very file.
@Suite("Documents of names that are not UTF-8")
@MainActor
final class NonUTF8DocumentTests: MainActorFolderSuite {

  @Test func aDocumentOpensAndSavesTheVeryFileNamed() async throws {
    let bytes = try folder.write("old\n", toNameBytes: Array("non".utf8) + [0xFF] + Array("utf.txt".utf8))
    let path = (bytes + [0]).withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { FilePath(platformString: $0.baseAddress!) } }
    let document = PlainTextDocument(fileURL: OutputPath.url(carrying: path))
    document.autosavePolicy = nil
    document.recoveryStore = RecoveryStore(folder: folder.file("state/recovery"))
    try await document.open()
    #expect(document.text == "old\n")
    #expect(QuireError.name(document.fileURL) == "'non\\xFFutf.txt'")
    try document.replaceText(with: "new\n")
    try await document.save()
    let fd = try FileDescriptor.open(path, .readOnly)
    let saved = try fd.closeAfter {
      var buffer = [UInt8](repeating: 0, count: 64)
      let count = try buffer.withUnsafeMutableBytes { try fd.read(into: $0) }
      return String(decoding: buffer.prefix(count), as: UTF8.self)
    }
    #expect(saved == "new\n")
    // Nothing was written under another name (the lossy one, or the carrier's own UTF-8).
    #expect(names(in: folder.url).filter { $0 != "state" }.count == 1)
    #expect(!FileManager.default.fileExists(atPath: folder.file("non\u{FFFD}utf.txt").path))
    // A change by another program reaches the document (its presenter watches the bytes).
    let other = try FileDescriptor.open(path, .writeOnly, options: [.truncate])
    _ = try other.closeAfter { try other.writeAll("theirs\n".utf8) }
    #expect(try await document.checkForChangesOnDisk() != .unchanged)
    try await document.close()
  }
}
