import Foundation
import QuireTestSupport
import Testing

/// Issue 29: ed's `-r` (restricted mode) confines files to the current folder. A name there
/// that is a symbolic link (leading anywhere) or a FIFO is refused, by the same confined
/// opener the server uses; the files it does read are read from the descriptor it opened.
@Suite("Restricted mode")
final class RestrictedModeTests: FolderSuite, RunsQuire {
  init() throws {
    try super.init()
    try folder.write("inside\n", to: "t.txt")
    try FileManager.default.createSymbolicLink(atPath: folder.file("link.txt").path, withDestinationPath: "/etc/passwd")
    guard mkfifo(folder.file("fifo").path, 0o600) == 0 else { throw TestFailure("mkfifo failed") }
  }

  @Test func linksAndFIFOsInTheCurrentFolderAreRefused() async throws {
    let opened = try await quire(["-r", "-s", "link.txt"], input: "p\nq\n")
    #expect(!opened.output.contains("root:"), "-r read /etc/passwd through a link: \(opened.output)")
    #expect(opened.error.contains("symbolic link"), "\(opened.error)")
    let read = try await quire(["-r", "-s", "t.txt"], input: "r link.txt\nr fifo\n,p\nq\n")
    #expect(read.output == "inside\n", "\(read.output) \(read.error)")
    #expect(read.error.contains("symbolic link") && read.error.contains("FIFO"), "\(read.error)")
    // Writing through the link is refused too; the file it leads to is untouched.
    let written = try await quire(["-r", "-s", "t.txt"], input: "w link.txt\nq\n")
    #expect(written.error.contains("symbolic link"), "\(written.error)")
  }
}
