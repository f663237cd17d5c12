import Foundation
import QuireCoordination
import QuireTestSupport
import QuireTypes
import SystemPackage
import Testing

/// Coordinated access to items whose names are not UTF-8 (no `URL` holds them), by `FilePath`.
@Suite("FileCoordinator with paths that are not UTF-8")
final class NonUTF8PathTests: CoordinationSuite {
  /// Makes `non\xFFutf.md` holding `text`; returns its path.
  func makeFile(_ text: String = "x\n") throws -> FilePath {
    let bytes = try folder.write(text, toNameBytes: Array("non".utf8) + [0xFF] + Array("utf.md".utf8))
    return (bytes + [0]).withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { FilePath(platformString: $0.baseAddress!) } }
  }

  /// The whole file at `path`, read by its bytes.
  func contents(of path: FilePath) throws -> String {
    let fd = try FileDescriptor.open(path, .readOnly)
    return try fd.closeAfter {
      var buffer = [UInt8](repeating: 0, count: 256)
      let count = try buffer.withUnsafeMutableBytes { try fd.read(into: $0) }
      return String(decoding: buffer.prefix(count), as: UTF8.self)
    }
  }

  @Test func theVeryFileIsReadAndWrittenByItsBytes() throws {
    let path = try makeFile()
    let coordinator = FileCoordinator(location: location)
    let read = try coordinator.coordinate(readingItemAt: path, timeout: .seconds(5)) { given in
      #expect(given == path)
      return try contents(of: given)
    }
    #expect(read == "x\n")
    try coordinator.coordinate(writingItemAt: path, timeout: .seconds(5)) { given in
      let fd = try FileDescriptor.open(given, .writeOnly, options: [.truncate])
      _ = try fd.closeAfter { try fd.writeAll("y\n".utf8) }
    }
    #expect(try contents(of: path) == "y\n")
  }

  @Test func aRelativePathIsTakenFromTheCurrentFolderAndNormalized() throws {
    let path = try makeFile()
    let here = FileManager.default.currentDirectoryPath
    #expect(FileManager.default.changeCurrentDirectoryPath(folder.url.path))
    defer { _ = FileManager.default.changeCurrentDirectoryPath(here) }
    let relative = FilePath("./sub/..").appending(path.lastComponent!)
    try FileManager.default.createDirectory(at: folder.file("sub"), withIntermediateDirectories: false)
    let given = try FileCoordinator(location: location).coordinate(readingItemAt: relative, timeout: .seconds(5)) { $0 }
    #expect(given == path)
  }

  /// A writer holding the item, on another thread, until `release` is signalled.
  func holdWriting(_ body: @escaping @Sendable (FileCoordinator, () -> Void) -> Void) {
    let inside = DispatchSemaphore(value: 0)
    let location = self.location
    Thread.detachNewThread {
      body(FileCoordinator(location: location)) { inside.signal() }
    }
    inside.wait()
  }

  @Test func aWriterOfSuchAPathExcludesAReaderAndTheMessageNamesItEscaped() throws {
    let path = try makeFile()
    let release = DispatchSemaphore(value: 0)
    holdWriting { coordinator, entered in
      try? coordinator.coordinate(writingItemAt: path) { _ in
        entered()
        release.wait()
      }
    }
    let coordinator = FileCoordinator(location: location)
    let error = try #require(throws: QuireError.self) {
      try coordinator.coordinate(readingItemAt: path, timeout: .milliseconds(100)) { _ in }
    }
    #expect(error.code == .timedOut)
    #expect(error.reason.contains("'non\\xFFutf.md'"), "\(error.reason)")
    #expect(error.reason.contains("process \(getpid())"), "\(error.reason)")
    release.signal()
    #expect(try coordinator.coordinate(readingItemAt: path, timeout: .seconds(5)) { _ in true })
  }

  @Test func theURLAndThePathOfAUTF8NameLockTheSameItem() throws {
    let file = try folder.write("x\n", to: "plain.md")
    let release = DispatchSemaphore(value: 0)
    holdWriting { coordinator, entered in
      try? coordinator.coordinate(writingItemAt: file) { _ in
        entered()
        release.wait()
      }
    }
    let error = try #require(throws: QuireError.self) {
      try FileCoordinator(location: location).coordinate(readingItemAt: FilePath(file.path), timeout: .milliseconds(100)) { _ in }
    }
    #expect(error.code == .timedOut)
    release.signal()
  }

  @Test func aMissingItemIsAClearErrorNamingItEscaped() throws {
    let path = FilePath(folder.url.path).appending(try makeName())
    let error = try #require(throws: QuireError.self) {
      try FileCoordinator(location: location).coordinate(readingItemAt: path, timeout: .seconds(5)) { _ in }
    }
    #expect(error.code == .fileMissing)
    #expect(error.reason.contains("'gone\\xFE'"), "\(error.reason)")
  }

  /// `gone\xFE` as a path component.
  func makeName() throws -> FilePath.Component {
    let bytes = Array("gone".utf8) + [0xFE, 0]
    let path = bytes.withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { FilePath(platformString: $0.baseAddress!) } }
    return try #require(path.lastComponent)
  }
}
