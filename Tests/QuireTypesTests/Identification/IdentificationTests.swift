import Foundation
import QuireSystem
import QuireTestSupport
import SystemPackage
import Testing

@testable import QuireTypes

/// Whether shared-mime-info's compiled database is installed (Debian's `shared-mime-info`).
let hasSystemMIMEDatabase = FileManager.default.fileExists(atPath: "/usr/share/mime/magic")

@Suite("File identification")
final class IdentificationTests: FolderSuite {

  var registry: TypeRegistry { .shared }

  @Test func markdownByNameWithContentAgreeing() throws {
    let text = "# Title\n\nSome *text*.\n"
    let url = try folder.write(text, to: "notes.md")
    let result = try registry.identifyFile(at: url)
    #expect(result.type == .markdown)
    #expect(result.source == .fileName)
    #expect(result.disagreement == nil)
    #expect(result.bytesRead == text.utf8.count)
  }

  @Test(.enabled(if: hasSystemMIMEDatabase, "no shared-mime-info")) func contentDecidesWithoutAName() throws {
    let url = folder.file("no-extension")
    try Data("%PDF-1.7\n%âãÏÓ\n1 0 obj\n".utf8).write(to: url)
    let result = try registry.identifyFile(at: url)
    #expect(result.type == .pdf)
    #expect(result.source == .content)
    #expect(result.evidence.first?.kind == .magic)
  }

  @Test(.enabled(if: hasSystemMIMEDatabase, "no shared-mime-info")) func extensionAndContentDisagreement() throws {
    let url = folder.file("really-a-png.pdf")
    try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8)).write(to: url)
    let result = try registry.identifyFile(at: url)
    #expect(result.type == .pdf)
    #expect(result.disagreement?.contentType == .png)
  }

  @Test func foldersPackagesAndLinks() throws {
    let plain = folder.file("Plain")
    try FileManager.default.createDirectory(at: plain, withIntermediateDirectories: false)
    #expect(try registry.identifyFile(at: plain).type == .folder)
    let bundle = folder.file("Notes.textbundle")
    try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: false)
    let bundleResult = try registry.identifyFile(at: bundle)
    #expect(bundleResult.type == .textBundle)
    #expect(bundleResult.source == .fileSystem)
    // A plain file with a package's extension is not a package.
    let fake = try folder.write("not a folder", to: "Fake.textbundle")
    #expect(try registry.identifyFile(at: fake).type != .textBundle)
    let target = try folder.write("# x\n", to: "target.md")
    let link = folder.file("link-to-md")
    try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
    #expect(try registry.identifyFile(at: link).type == .markdown)
    #expect(try registry.identifyFile(at: link, options: .init(followsSymbolicLinks: false)).type == .symbolicLink)
    let dangling = folder.file("dangling")
    try FileManager.default.createSymbolicLink(atPath: dangling.path, withDestinationPath: folder.file("nowhere").path)
    let danglingResult = try registry.identifyFile(at: dangling)
    #expect(danglingResult.type == .symbolicLink)
    #expect(danglingResult.evidence.first?.detail.contains("cannot be reached") == true)
  }

  @Test func emptyFile() throws {
    let url = try folder.write("", to: "empty")
    let result = try registry.identifyFile(at: url)
    #expect(result.bytesRead == 0)
    #expect(result.evidence.contains { $0.kind == .empty })
    let named = try registry.identifyFile(at: try folder.write("", to: "empty.md"))
    #expect(named.type == .markdown)
  }

  @Test func missingFileThrowsNamingIt() throws {
    let error = try #require(throws: QuireError.self) { try self.registry.identifyFile(at: self.folder.file("gone.md")) }
    #expect(error.code == .fileMissing)
    #expect(error.reason.contains("gone.md"))
  }

  @Test func unreadableFileIsJudgedByName() throws {
    let url = try folder.write("secret", to: "locked.md")
    // CI runs as root, where chmod 000 does not stop reads: force EACCES through the hook.
    let result = try FaultPlan(failing: .open, with: .permissionDenied, under: url.path).run { try registry.identifyFile(at: url) }
    #expect(result.type == .markdown)
    #expect(result.bytesRead == 0)
    #expect(result.evidence.contains { $0.kind == .note && $0.detail.contains("could not be read") })
    if !isRunningAsRoot {
      let real = try folder.write("secret", to: "really-locked.md")
      chmod(real.path, 0)
      #expect(try registry.identifyFile(at: real).type == .markdown)
    } else {
      print("note: running as root; the real chmod 000 check is skipped (the hook covers EACCES)")
    }
  }

  @Test func fifoIsNeverReadNorBlocksEvenWithAWriter() throws {
    let url = folder.file("pipe")
    #expect(mkfifo(url.path, 0o600) == 0)
    // A writer holding the FIFO open (O_RDWR never blocks on Linux) and filling its buffer.
    let writer = open(url.path, O_RDWR | O_NONBLOCK)
    #expect(writer >= 0)
    defer { close(writer) }
    let chunk = [UInt8](repeating: 0x41, count: 1 << 20)
    let written = chunk.withUnsafeBytes { write(writer, $0.baseAddress, $0.count) }
    #expect(written > 0)
    let result = try registry.identifyFile(at: url)
    #expect(result.source == .fileSystem)
    #expect(result.bytesRead == 0)
    // Everything written is still in the pipe: identification read nothing.
    var back = [UInt8](repeating: 0, count: written)
    let readBack = back.withUnsafeMutableBytes { read(writer, $0.baseAddress, $0.count) }
    #expect(readBack == written)
  }

  @Test func devicesAreAnsweredWithoutOpening() throws {
    let result = try registry.identifyFile(at: URL(fileURLWithPath: "/dev/zero"))
    #expect(result.source == .fileSystem)
    #expect(result.bytesRead == 0)
    #expect(result.mimeType == "inode/chardevice")
  }

  @Test func endlessAndHugeFilesReadOnlyTheBound() throws {
    // A 2 GB sparse file: only the bound is read.
    let url = folder.file("huge.bin")
    let fd = open(url.path, O_CREAT | O_WRONLY | O_TRUNC, 0o600)
    #expect(fd >= 0)
    #expect(ftruncate(fd, 2 << 30) == 0)
    close(fd)
    let result = try registry.identifyFile(at: url)
    #expect(result.bytesRead == registry.defaultReadBound)
    #expect(result.bytesRead <= 65536)
    // An explicit bound is honoured exactly.
    #expect(try registry.identifyFile(at: url, options: .init(maximumBytesRead: 100)).bytesRead == 100)
    // /proc files say size 0 but have content: the bound still holds.
    let proc = try registry.identifyFile(at: URL(fileURLWithPath: "/proc/self/maps"), options: .init(maximumBytesRead: 64))
    #expect(proc.bytesRead <= 64)
  }

  @Test func namesWithNewlinesAndInvalidUTF8() throws {
    let newline = folder.file("two\nlines.md")
    try Data("# hi\n".utf8).write(to: newline)
    #expect(try registry.identifyFile(at: newline).type == .markdown)
    // A name with bytes that are not UTF-8, made with open(2).
    var raw = Array(folder.url.path.utf8) + Array("/bad-\u{1}".utf8) + [0xFF, 0xFE] + Array(".md".utf8)
    raw.append(0)
    let path = raw.withUnsafeBufferPointer { buffer in
      buffer.withMemoryRebound(to: CChar.self) { FilePath(platformString: $0.baseAddress!) }
    }
    let fd = path.withPlatformString { open($0, O_CREAT | O_WRONLY, 0o600) }
    #expect(fd >= 0)
    _ = write(fd, "text\n", 5)
    close(fd)
    let result = try registry.identifyFile(at: path)
    #expect(result.type == .markdown)
    #expect(result.bytesRead == 5)
  }
}

@Suite("Identification on the shared corpus")
struct CorpusIdentificationTests {
  @Test func filesWithExtensionsGetTheExpectedAppleIdentifier() throws {
    guard let common = sharedCorpus("types/common") else { return }
    let table = try String(contentsOf: common.appendingPathComponent("expected.tsv"), encoding: .utf8)
    var checked = 0
    for line in table.split(separator: "\n").dropFirst() where !line.hasPrefix("#") {
      let fields = line.split(separator: "\t").map(String.init)
      guard fields.count >= 4, fields[3] == "yes" else { continue }
      let result = try TypeRegistry.shared.identifyFile(at: common.appendingPathComponent(fields[0]))
      #expect(result.type.identifier == fields[2], "\(fields[0])")
      #expect(result.disagreement == nil, "\(fields[0]): \(result)")
      checked += 1
    }
    #expect(checked >= 14)
  }
}
