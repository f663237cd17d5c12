import Foundation
import QuireTestSupport
import QuireTypes
import Testing

@testable import QuireDocuments

/// `FileReader`, which every open goes through: the bytes and their fingerprint, and a clear
/// error naming the file for everything that is not a readable regular file, with no hang.
@Suite("FileReader")
final class FileReaderTests: FolderSuite {
  @discardableResult
  func expectError(_ code: QuireError.Code, reading url: URL, saying words: String, sourceLocation: SourceLocation = #_sourceLocation) -> QuireError? {
    expectQuireError(code, reasonContains: url.lastPathComponent, words, sourceLocation: sourceLocation) { try FileReader.read(url) }
  }

  @Test func readsTheBytesWithTheirFingerprint() throws {
    let bytes = Data("line one\nline two\n".utf8)
    let url = folder.file("notes.txt")
    try bytes.write(to: url)
    let (fingerprint, contents) = try FileReader.read(url)
    #expect(contents == bytes)
    #expect(fingerprint.size == bytes.count)
    #expect(fingerprint.contentHash == ContentHash(bytes))
    var info = stat()
    #expect(stat(url.path, &info) == 0)
    #expect(fingerprint.inode == UInt64(info.st_ino) && fingerprint.device == UInt64(info.st_dev))
  }

  @Test func anEmptyFileIsEmpty() throws {
    let url = folder.file("empty.txt")
    try Data().write(to: url)
    let (fingerprint, contents) = try FileReader.read(url)
    #expect(contents.isEmpty && fingerprint.size == 0)
    #expect(fingerprint.contentHash == ContentHash(Data()))
  }

  @Test func invalidUTF8IsReadByteForByte() throws {
    let bytes = Data([0x66, 0x6F, 0xFF, 0xFE, 0xC3, 0x28, 0x00, 0xED, 0xA0, 0x80, 0x0A])
    let url = folder.file("latin1.txt")
    try bytes.write(to: url)
    #expect(try FileReader.read(url).contents == bytes)
  }

  @Test func aLargeFileIsReadWhole() throws {
    var bytes = Data(repeating: 0x61, count: 40 << 20)
    bytes[bytes.count - 1] = 0x0A
    let url = folder.file("large.txt")
    try bytes.write(to: url)
    let (fingerprint, contents) = try FileReader.read(url)
    #expect(contents.count == bytes.count && contents.last == 0x0A)
    #expect(fingerprint.contentHash == ContentHash(bytes))
  }

  @Test func aFileBeyondTheLimitIsRefusedWithoutReadingIt() throws {
    // Sparse: 5 GiB of size, no data blocks.
    let url = folder.file("huge.txt")
    let fd = open(url.path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
    try #require(fd >= 0)
    #expect(ftruncate(fd, off_t(5) << 30) == 0)
    close(fd)
    expectError(.limitExceeded, reading: url, saying: "more than the 4 GiB")
  }

  @Test func aMissingFileSaysSo() {
    expectError(.fileMissing, reading: folder.file("absent.txt"), saying: "does not exist")
    expectError(.fileMissing, reading: folder.file("no-folder/absent.txt"), saying: "does not exist")
  }

  @Test func aFolderIsNotAFile() throws {
    let url = try folder.privateFolder("Folder.txt")
    let error = expectError(.unsupportedType, reading: url, saying: "folder")
    // Its cause is what reading a folder gives, for tools that print the system's reason (ed).
    #expect((error?.cause as? SyscallFailure)?.errno == .isDirectory)
  }

  @Test func aFIFOIsRefusedWithoutWaitingForAWriter() throws {
    let url = folder.file("pipe.txt")
    #expect(mkfifo(url.path, 0o600) == 0)
    // Opening a FIFO for reading blocks until a writer comes: none will.
    expectError(.unsupportedType, reading: url, saying: "not a regular file")
  }

  @Test func aDeviceIsRefused() {
    expectError(.unsupportedType, reading: URL(fileURLWithPath: "/dev/null"), saying: "not a regular file")
  }

  @Test func aSymbolicLinkIsFollowedToItsFile() throws {
    let target = try folder.write("through the link\n", to: "target.txt")
    let link = folder.file("link.txt")
    try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
    #expect(try FileReader.read(link).contents == Data("through the link\n".utf8))
  }

  @Test func aDanglingLinkIsMissing() throws {
    let link = folder.file("dangling.txt")
    try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: folder.file("gone.txt").path)
    expectError(.fileMissing, reading: link, saying: "does not exist")
  }

  @Test func aLinkLoopFailsClearly() throws {
    let first = folder.file("loop-a.txt")
    let second = folder.file("loop-b.txt")
    try FileManager.default.createSymbolicLink(atPath: first.path, withDestinationPath: second.path)
    try FileManager.default.createSymbolicLink(atPath: second.path, withDestinationPath: first.path)
    #expect(throws: QuireError.self) { try FileReader.read(first) }
  }

  @Test(.enabled(if: !isRunningAsRoot, "root reads files whatever their permissions"))
  func anUnreadableFileIsPermissionDenied() throws {
    let url = try folder.write("secret\n", to: "secret.txt")
    #expect(chmod(url.path, 0) == 0)
    expectError(.permissionDenied, reading: url, saying: "permission was denied")
  }
}
