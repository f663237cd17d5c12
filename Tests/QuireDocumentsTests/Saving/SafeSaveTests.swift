import Foundation
@_spi(Testing) import QuireDocuments
import QuireSystem
import QuireTestSupport
import QuireTypes
import SystemPackage
import Testing

@Suite("Safe save")
@MainActor
final class SafeSaveTests: MainActorFolderSuite {

  @Test func replacingKeepsModeAndLeavesNoTemporaryFiles() async throws {
    let document = try await openTextDocument("old\n", in: folder)
    chmod(document.fileURL.path, 0o640)
    let inodeBefore = try FileFingerprint.read(at: document.fileURL).fingerprint.inode
    try document.replaceText(with: "new\n")
    try await document.save()
    #expect(bytes(document.fileURL) == Array("new\n".utf8))
    #expect(mode(document.fileURL).mode == 0o640)
    #expect(names(in: folder.url) == ["notes.txt"])
    // A new file replaced the old one (the rename path, not an in-place write).
    #expect(try FileFingerprint.read(at: document.fileURL).fingerprint.inode != inodeBefore)
  }

  @Test(.enabled(if: isRunningAsRoot, "changing a file's owner needs root")) func keepsTheOwnerWhenRoot() async throws {
    let document = try await openTextDocument("old\n", in: folder)
    chown(document.fileURL.path, 4321, 4322)
    try document.replaceText(with: "new\n")
    try await document.save()
    var info = stat()
    stat(document.fileURL.path, &info)
    #expect(info.st_uid == 4321 && info.st_gid == 4322)
  }

  @Test func aSymlinkIsSavedThroughToItsTarget() async throws {
    let target = try folder.write("old\n", to: "real.txt")
    let link = folder.file("link.txt")
    try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
    let document = try await openQuietly(PlainTextDocument(fileURL: link))
    try document.replaceText(with: "new\n")
    try await document.save()
    #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == target.path)
    #expect(bytes(target) == Array("new\n".utf8))
    #expect(document.fileURL == link)
  }

  @Test func hardLinksKeepSharingTheFile() async throws {
    let document = try await openTextDocument("old\n", in: folder)
    let other = folder.file("other-name.txt")
    link(document.fileURL.path, other.path)
    try document.replaceText(with: "new and longer\n")
    try await document.save()
    #expect(bytes(other) == Array("new and longer\n".utf8))
    #expect(mode(document.fileURL).links == 2)
    #expect(names(in: folder.url) == ["notes.txt", "other-name.txt"])
    try document.replaceText(with: "x\n")
    try await document.save()
    #expect(bytes(other) == Array("x\n".utf8))
  }

  @Test func aReadOnlyFileIsNotReplaced() async throws {
    let document = try await openTextDocument("old\n", in: folder)
    chmod(document.fileURL.path, 0o444)
    try document.replaceText(with: "new\n")
    await expectQuireError(.permissionDenied, reasonContains: "read-only") { try await document.save() }
    #expect(bytes(document.fileURL) == Array("old\n".utf8))
    #expect(mode(document.fileURL).mode == 0o444)
    #expect(document.hasUnsavedChanges)
    #expect(document.documentState.contains(.savingError))
    // Save as elsewhere still works.
    try await document.save(to: folder.file("copy.txt"), for: .saveAs)
    #expect(bytes(folder.file("copy.txt")) == Array("new\n".utf8))
  }

  @Test(.enabled(if: !isRunningAsRoot, "root writes into read-only folders (the syscall seam covers EACCES at create)")) func aReadOnlyFolderIsAClearError()
    async throws
  {
    let document = try await openTextDocument("old\n", in: folder)
    try document.replaceText(with: "new\n")
    chmod(folder.url.path, 0o555)
    defer { chmod(folder.url.path, 0o755) }
    await #expect(throws: QuireError.self) { try await document.save() }
    #expect(bytes(document.fileURL) == Array("old\n".utf8))
    #expect(document.hasUnsavedChanges)
  }

  @Test func newFilesGetTheUmaskAndPrivateStateGets0600() throws {
    let plain = folder.file("new.txt")
    let result = try FileSaver.write(Data("a".utf8), to: plain)
    #expect(result.method == .created)
    // The umask as /proc shows it: reading it with umask(2) would change it for a moment
    // under the other tests running in this process.
    let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
    let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("Umask:") })
    let mask = try #require(UInt32(line.dropFirst("Umask:".count).trimmingCharacters(in: .whitespaces), radix: 8))
    #expect(mode(plain).mode == 0o666 & ~mask)
    let secret = folder.file("secret")
    try FileSaver.write(Data("a".utf8), to: secret, options: .privateState)
    #expect(mode(secret).mode == 0o600)
    #expect(throws: QuireError.self) {
      try FileSaver.write(Data("b".utf8), to: secret, options: SaveOptions(requiresNewFile: true))
    }
    #expect(bytes(secret) == [0x61])
  }

  @Test func aFolderOrAMissingFolderIsRefused() throws {
    try FileManager.default.createDirectory(at: folder.file("dir"), withIntermediateDirectories: false)
    #expect(throws: QuireError.self) { try FileSaver.write(Data(), to: folder.file("dir")) }
    do {
      try FileSaver.write(Data(), to: folder.file("gone/file.txt"))
      Issue.record("wrote into a missing folder")
    } catch {
      #expect(error.code == .fileMissing)
      #expect(error.reason.contains("'file.txt'"))
    }
  }

  // MARK: Fault injection (acceptance 2)

  nonisolated static let steps: [SystemStep] = [.create, .write, .flush, .keepMode, .close, .rename, .folderFlush]
  nonisolated static let errnos: [Errno] = [.noSpace, .ioError, .permissionDenied]

  /// Each step of a save fails in turn: the file stays byte-identical, the document keeps its
  /// edits, stays dirty, reports `savingError`, and no temporary file is left behind.
  @Test(arguments: steps, errnos)
  func aFailedStepLeavesTheFileAsItWas(_ step: SystemStep, _ errno: Errno) async throws {
    let original = "line one\r\nline two\r\n"
    let document = try await openTextDocument(original, in: folder)
    chmod(document.fileURL.path, 0o640)
    try document.replaceLines(in: 1..<2, with: ["edited"])
    let plan = FaultPlan(failing: step, with: errno, under: folder.url.path)
    let code: QuireError.Code = errno == .noSpace ? .diskFull : errno == .permissionDenied ? .permissionDenied : .systemCallFailed
    let error = await expectQuireError(code, reasonContains: "'notes.txt'") { try await plan.run { try await document.save() } }
    #expect(error?.url == document.fileURL)
    #expect((error?.cause as? SyscallFailure)?.errno == errno)
    #expect(plan.calls.contains(step))
    #expect(bytes(document.fileURL) == Array(original.utf8))
    #expect(mode(document.fileURL).mode == 0o640)
    #expect(document.text == "line one\r\nedited\r\n")
    #expect(document.hasUnsavedChanges)
    #expect(document.documentState.contains(.savingError))
    #expect(document.lastSaveError != nil)
    #expect(names(in: folder.url) == ["notes.txt"])
    // Nothing was lost: the next save works and clears the error.
    try await document.save()
    #expect(bytes(document.fileURL) == Array("line one\r\nedited\r\n".utf8))
    #expect(!document.documentState.contains(.savingError))
    #expect(!document.hasUnsavedChanges)
  }

  /// The in-place path for hard-linked files: failing the backup or the in-place write
  /// leaves both names with the old bytes. (Occurrences count from the start of `save()`,
  /// whose check for changes on disk opens the file once: the in-place write opens it third;
  /// the backup is the first write, create and flush.)
  @Test(arguments: [
    (SystemStep.create, 1), (.write, 1), (.flush, 1), (.folderFlush, 1), (.open, 3), (.write, 2), (.truncate, 1), (.flush, 2),
  ])
  func aFailedInPlaceSaveRestoresTheOldBytes(_ step: SystemStep, _ occurrence: Int) async throws {
    let original = "a fairly long original line\n"
    let document = try await openTextDocument(original, in: folder)
    let other = folder.file("other.txt")
    link(document.fileURL.path, other.path)
    try document.replaceText(with: "short\n")
    // Opens count only those of the file itself: coordination also looks for other editors'
    // lock files (`.notes.txt.swp`) in the folder.
    let only = step == .open ? document.fileURL.path : nil
    let plan = FaultPlan([.init(step, .noSpace, under: only, occurrence: occurrence)], scope: folder.url.path)
    await #expect(throws: QuireError.self) { try await plan.run { try await document.save() } }
    #expect(bytes(document.fileURL) == Array(original.utf8))
    #expect(bytes(other) == Array(original.utf8))
    #expect(document.hasUnsavedChanges)
    #expect(names(in: folder.url) == ["notes.txt", "other.txt"])
  }

  @Test func aFailedReadRefusesToOpenAndSaysWhy() async throws {
    let url = try folder.write("text\n", to: "locked.txt")
    let document = quiet(PlainTextDocument(fileURL: url))
    await expectQuireError(.permissionDenied, reasonContains: "'locked.txt'") {
      try await FaultPlan(failing: .open, with: .permissionDenied, occurrence: nil, under: folder.url.path).run { try await document.open() }
    }
    #expect(document.documentState == .closed)
  }
}
