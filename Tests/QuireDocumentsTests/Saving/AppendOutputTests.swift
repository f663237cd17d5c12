import Foundation
import QuireDocuments
import QuireTestSupport
import QuireTypes
import Testing

/// `FileSaver.appendOutput`: ed's `W`, a shell's `>>`, by the output-path rule.
@Suite("Appending output")
final class AppendOutputTests: FolderSuite {

  @Test func appendsToAFileAndCreatesAMissingOne() throws {
    let file = try folder.write("one\n", to: "log.txt")
    try FileSaver.appendOutput(Data("two\n".utf8), to: file)
    #expect(try String(contentsOf: file, encoding: .utf8) == "one\ntwo\n")
    let missing = folder.file("new.txt")
    try FileSaver.appendOutput(Data("first\n".utf8), to: missing)
    try FileSaver.appendOutput(Data(), to: missing)
    #expect(try String(contentsOf: missing, encoding: .utf8) == "first\n")
  }

  @Test func appendsThroughASymbolicLinkWhichStaysALink() throws {
    let target = try folder.write("a\n", to: "target.txt")
    let link = folder.file("link.txt")
    try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
    try FileSaver.appendOutput(Data("b\n".utf8), to: link)
    #expect(try String(contentsOf: target, encoding: .utf8) == "a\nb\n")
    #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: link.path)) != nil)
  }

  @Test func aDeviceIsWrittenThroughAndStaysADevice() throws {
    try FileSaver.appendOutput(Data("discarded\n".utf8), to: URL(fileURLWithPath: "/dev/null"))
    var info = stat()
    #expect(stat("/dev/null", &info) == 0 && (info.st_mode & S_IFMT) == S_IFCHR)
  }

  @Test func aFolderAMissingFolderAndAFIFOWithoutAReaderAreClearErrors() throws {
    #expect(throws: QuireError.self) { try FileSaver.appendOutput(Data("x".utf8), to: self.folder.url) }
    #expect(throws: QuireError.self) { try FileSaver.appendOutput(Data("x".utf8), to: self.folder.file("no/such/file")) }
    let fifo = folder.file("pipe")
    #expect(mkfifo(fifo.path, 0o600) == 0)
    let error = #expect(throws: QuireError.self) { try FileSaver.appendOutput(Data("x".utf8), to: fifo) }
    #expect(error?.reason.contains("no process is reading it") == true)
  }
}
