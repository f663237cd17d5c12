import Foundation
import QuireTestSupport
import Testing

/// Issue 29: ed's `-r` (restricted mode) confines files to the current folder. A name there
/// that is a symbolic link (leading anywhere) or a FIFO is refused, by the same confined
/// opener the server uses; the files it does read are read from the descriptor it opened.
@Suite("Restricted mode")
final class RestrictedModeTests: FolderSuite, RunsQuire {
  let elsewhere: TemporaryFolder

  init() throws {
    elsewhere = try TemporaryFolder(prefix: "quire-restricted-elsewhere")
    try super.init()
    try folder.write("inside\n", to: "t.txt")
    try elsewhere.write("elsewhere\n", to: "target.txt")
    try FileManager.default.createSymbolicLink(atPath: folder.file("link.txt").path, withDestinationPath: elsewhere.file("target.txt").path)
    guard mkfifo(folder.file("fifo").path, 0o600) == 0 else { throw TestFailure("mkfifo failed") }
  }

  deinit { elsewhere.remove() }

  @Test func linksAndFIFOsInTheCurrentFolderAreRefused() async throws {
    let opened = try await quire(["-r", "-s", "link.txt"], input: ",p\nq\n")
    #expect(!opened.output.contains("elsewhere"), "-r read a file outside the folder through a link: \(opened.output)")
    #expect(opened.error.contains("restricted"), "\(opened.error)")
    for command in ["r link.txt", "r fifo", "w link.txt", "e link.txt"] {
      let result = try await quire(["-r", "-s", "t.txt"], input: "H\n\(command)\n,p\nq\n")
      #expect(!result.output.contains("elsewhere"), "\(command) reached the file outside: \(result.output)")
      #expect((result.output + result.error).contains("restricted"), "\(command): \(result.output) \(result.error)")
    }
    #expect(try String(contentsOf: elsewhere.file("target.txt"), encoding: .utf8) == "elsewhere\n", "a write went through the link")
    // A regular file in the folder is read as before.
    let plain = try await quire(["-r", "-s", "t.txt"], input: ",p\nq\n")
    #expect(plain.output == "inside\n" && plain.status == 0, "\(plain.output) \(plain.error)")
  }
}
