import Foundation
import QuireSystem
import QuireTestSupport
import SystemPackage
import Testing

@Suite("SystemCalls: unnamed files, in-kernel copies, mappings, descriptors")
final class MappingsTests: FolderSuite {
  @Test func anUnnamedFileHasNoNameAndIsOwnerOnly() throws {
    let fd = try SystemCalls.makeUnnamedFile(in: folder.url.path).get()
    defer { SystemCalls.release(fd) }
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).isEmpty)
    let info = try SystemCalls.fstat(fd).get()
    #expect(info.st_nlink == 0)
    #expect(info.st_mode & 0o777 == 0o600)
  }

  @Test func anUnnamedFileInAMissingFolderOrOnAFullDiskIsRefused() throws {
    #expect(SystemCalls.makeUnnamedFile(in: folder.file("missing").path).failure?.errno == .noSuchFileOrDirectory)
    let full = FaultPlan(failing: .create, with: .noSpace, under: folder.url.path).run { SystemCalls.makeUnnamedFile(in: folder.url.path) }
    #expect(full.failure?.errno == .noSpace)
  }

  @Test func theRestOfAFileIsCopiedFromWhereItStandsAndMappedBack() throws {
    let source = try SystemCalls.open(FilePath(try folder.write("header:the body\n", to: "source").path), O_RDONLY).get()
    defer { SystemCalls.release(source) }
    _ = try SystemCalls.seek(source, to: 7).get()
    let scratch = try SystemCalls.makeUnnamedFile(in: folder.url.path).get()
    defer { SystemCalls.release(scratch) }
    let copied = try SystemCalls.copyRest(of: source, to: scratch).get()
    #expect(copied == 9)
    let base = try SystemCalls.mapReadOnly(scratch, count: copied).get()
    defer { SystemCalls.unmap(base, count: copied) }
    #expect(Array(UnsafeRawBufferPointer(start: base, count: copied)) == Array("the body\n".utf8))
    // Pages let go are read back from the file: nothing is lost.
    SystemCalls.dropPages(base, count: copied)
    #expect(Array(UnsafeRawBufferPointer(start: base, count: copied)) == Array("the body\n".utf8))
  }

  @Test func aFailedCopyOrMappingSaysWhichCall() throws {
    let source = try SystemCalls.open(FilePath(try folder.write("x", to: "source").path), O_RDONLY).get()
    defer { SystemCalls.release(source) }
    // A descriptor open only for reading cannot be the copy's destination.
    let copy = SystemCalls.copyRest(of: source, to: source)
    #expect(copy.failure?.call == "sendfile")
    let write = try SystemCalls.open(FilePath(folder.file("written-only").path), O_WRONLY | O_CREAT).get()
    defer { SystemCalls.release(write) }
    let map = SystemCalls.mapReadOnly(write, count: 1)
    #expect(map.failure?.call == "mmap" && map.failure?.errno == .permissionDenied)
  }

  @Test(arguments: ["file", "folder", "fifo", "device"])
  func onlyARegularFileIsOne(_ kind: String) throws {
    let path: String
    switch kind {
    case "file": path = try folder.write("x", to: "file").path
    case "folder": path = folder.url.path
    case "fifo":
      path = folder.file("fifo").path
      #expect(mkfifo(path, 0o600) == 0)
    default: path = "/dev/null"
    }
    // O_NONBLOCK: a FIFO without a writer opens at once for reading.
    let fd = try SystemCalls.open(FilePath(path), O_RDONLY | O_NONBLOCK).get()
    defer { SystemCalls.release(fd) }
    #expect(SystemCalls.isRegularFile(fd) == (kind == "file"))
  }

  @Test func aDiscardedDescriptorWritesToNothingAndEndsItsPipe() throws {
    let pipe = try SystemCalls.pipe().get()
    defer { SystemCalls.release(pipe.read) }
    SystemCalls.discard(pipe.write)
    defer { SystemCalls.release(pipe.write) }
    // The pipe's only writing end is gone: its reader sees the end at once.
    var byte: UInt8 = 0
    #expect(try withUnsafeMutableBytes(of: &byte) { try SystemCalls.read(pipe.read, into: $0).get() } == 0)
    // The descriptor is /dev/null now: what is written there is taken and dropped.
    let null = try SystemCalls.stat(FilePath("/dev/null")).get()
    let now = try SystemCalls.fstat(pipe.write).get()
    #expect(now.st_rdev == null.st_rdev && now.st_mode & S_IFMT == S_IFCHR)
    #expect(SystemCalls.writeAll(pipe.write, Array("dropped".utf8)).failure == nil)
  }
}
