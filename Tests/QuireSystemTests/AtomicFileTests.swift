import Foundation
import QuireSystem
import QuireTestSupport
import Synchronization
import SystemPackage
import Testing

@Suite("AtomicFile: the one atomic writer")
final class AtomicFileTests: FolderSuite {
  func names() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted() }

  @Test func writesANewFileWithTheModeAsked() throws {
    let target = folder.file("new.json")
    try AtomicFile.write(Data("{}".utf8), to: target.path, mode: 0o600).get()
    #expect(try Data(contentsOf: target) == Data("{}".utf8))
    let attributes = try FileManager.default.attributesOfItem(atPath: target.path)
    #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
    #expect(try names() == ["new.json"])
  }

  @Test func replacesAnExistingFileAndItsSymbolicLinkNotTheLinksTarget() throws {
    let target = try folder.write("old", to: "state.json")
    try AtomicFile.write(Data("new".utf8), to: target.path).get()
    #expect(try String(contentsOf: target, encoding: .utf8) == "new")
    let elsewhere = try folder.write("keep", to: "elsewhere")
    let link = folder.file("link")
    try FileManager.default.createSymbolicLink(at: link, withDestinationURL: elsewhere)
    try AtomicFile.write(Data("mine".utf8), to: link.path, durable: false).get()
    #expect(try String(contentsOf: elsewhere, encoding: .utf8) == "keep")
    // The link itself was replaced by the new file.
    #expect(try FileManager.default.attributesOfItem(atPath: link.path)[.type] as? FileAttributeType == .typeRegular)
    #expect(try String(contentsOf: link, encoding: .utf8) == "mine")
  }

  @Test func neverReplacesAFolderOrAFIFO() throws {
    let fifo = folder.file("pipe")
    #expect(mkfifo(fifo.path, 0o600) == 0)
    #expect(throws: SyscallFailure.self) { try AtomicFile.write(Data("x".utf8), to: fifo.path).get() }
    let attributes = try FileManager.default.attributesOfItem(atPath: fifo.path)
    #expect(attributes[.type] as? FileAttributeType != .typeRegular)
    let sub = folder.file("sub")
    try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: false)
    #expect(AtomicFile.write(Data("x".utf8), to: sub.path).failure?.errno == .isDirectory)
    #expect(try names() == ["pipe", "sub"])
  }

  /// Every step of the writer fails in turn: the old file stays whole, nothing is left beside it.
  @Test(arguments: [SystemStep.create, .write, .keepMode, .flush, .close, .rename])
  func aFailedStepLeavesTheOldFile(_ step: SystemStep) throws {
    let target = try folder.write("old", to: "data")
    let plan = FaultPlan(failing: step, with: .noSpace, under: folder.url.path)
    #expect(plan.run { AtomicFile.write(Data("new".utf8), to: target.path) }.failure?.errno == .noSpace)
    #expect(plan.calls.contains(step))
    #expect(try String(contentsOf: target, encoding: .utf8) == "old")
    #expect(try names() == ["data"])
  }

  @Test func aProducerWritesIntoTheTemporaryFileAndItTakesTheNameWhole() throws {
    let target = try folder.write("old", to: "stream.txt")
    try AtomicFile.write(to: target.path, mode: 0o640) { fd in
      for chunk in ["one ", "two ", "three"] { try SystemCalls.writeAll(fd, Array(chunk.utf8)).get() }
      // Until the producer returns, the name still holds the old file.
      #expect(try String(contentsOf: target, encoding: .utf8) == "old")
    }
    #expect(try String(contentsOf: target, encoding: .utf8) == "one two three")
    #expect((try FileManager.default.attributesOfItem(atPath: target.path)[.posixPermissions] as? NSNumber)?.intValue == 0o640)
    #expect(try names() == ["stream.txt"])
  }

  @Test func aProducerThatThrowsLeavesTheOldFileAndNothingBesideIt() throws {
    struct Stop: Error {}
    let target = try folder.write("old", to: "data")
    #expect(throws: Stop.self) {
      try AtomicFile.write(to: target.path) { fd in
        try SystemCalls.writeAll(fd, Array("half".utf8)).get()
        throw Stop()
      }
    }
    #expect(try String(contentsOf: target, encoding: .utf8) == "old")
    #expect(try names() == ["data"])
  }

  @Test func aProducerCanWriteByNameThroughProcSelfFD() throws {
    let target = folder.file("by-name.txt")
    try AtomicFile.write(to: target.path) { fd in
      try Data("written by name".utf8).write(to: URL(fileURLWithPath: "/proc/self/fd/\(fd.rawValue)"))
    }
    #expect(try String(contentsOf: target, encoding: .utf8) == "written by name")
    #expect(try names() == ["by-name.txt"])
  }

  @Test func aPackageIsWrittenWholeAndReplacesTheOldOneInOneStep() throws {
    let folderFD = try SystemCalls.open(FilePath(folder.url.path), O_RDONLY | O_DIRECTORY).get()
    defer { SystemCalls.release(folderFD) }
    func fill(_ text: String) -> (FileDescriptor) throws -> Void {
      { bundle in try AtomicFile.write(Array(text.utf8), named: "text.md", in: bundle).get() }
    }
    try AtomicFile.writePackage(named: "doc.textbundle", in: folderFD, producing: fill("first"))
    #expect(try String(contentsOf: folder.file("doc.textbundle/text.md"), encoding: .utf8) == "first")
    try AtomicFile.writePackage(named: "doc.textbundle", in: folderFD, producing: fill("second"))
    #expect(try String(contentsOf: folder.file("doc.textbundle/text.md"), encoding: .utf8) == "second")
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.file("doc.textbundle").path) == ["text.md"])
    #expect(try names() == ["doc.textbundle"])
    // A producer that fails leaves the package as it was, and nothing beside it.
    struct Stop: Error {}
    #expect(throws: Stop.self) { try AtomicFile.writePackage(named: "doc.textbundle", in: folderFD) { _ in throw Stop() } }
    #expect(try String(contentsOf: folder.file("doc.textbundle/text.md"), encoding: .utf8) == "second")
    #expect(try names() == ["doc.textbundle"])
    // A file at the name is refused, never replaced.
    let file = try folder.write("keep", to: "plain")
    #expect(throws: SyscallFailure.self) { try AtomicFile.writePackage(named: "plain", in: folderFD, producing: fill("x")) }
    #expect(try String(contentsOf: file, encoding: .utf8) == "keep")
  }
}

@Suite("FaultPlan: the one fault-injection hook")
final class FaultPlanTests: FolderSuite {
  @Test func failsTheNthMatchingCallOnlyAndRecordsTheSteps() throws {
    let file = try folder.write("x", to: "f")
    let plan = FaultPlan(failing: .open, with: .permissionDenied, occurrence: 2, under: folder.url.path)
    let results = plan.run { (0..<3).map { _ in SystemCalls.open(FilePath(file.path), O_RDONLY) } }
    #expect(results.map { (try? $0.get()) == nil } == [false, true, false])
    for case .success(let fd) in results { SystemCalls.release(fd) }
    #expect(plan.callCounts[.open] == 3)
  }

  @Test func callsOutsideTheScopeAreNeitherFailedNorCounted() throws {
    let file = try folder.write("x", to: "f")
    let plan = FaultPlan(failing: nil, with: .ioError, occurrence: nil, under: folder.file("other").path)
    let opened = plan.run { SystemCalls.open(FilePath(file.path), O_RDONLY) }
    if case .success(let fd) = opened { SystemCalls.release(fd) } else { Issue.record("a call outside the scope failed") }
    #expect(plan.calls.isEmpty)
  }

  @Test func aCallInsideAnOpenFolderIsMatchedByItsFullPath() throws {
    let sub = folder.file("sub")
    try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: false)
    let folderFD = try SystemCalls.open(FilePath(sub.path), O_RDONLY | O_DIRECTORY).get()
    defer { SystemCalls.release(folderFD) }
    let plan = FaultPlan(failing: .makeFolder, with: .noSpace, under: sub.path + "/made")
    let made = plan.run { SystemCalls.makeFolder("made", in: folderFD) }
    #expect(throws: SyscallFailure(call: "mkdirat", errno: .noSpace, path: "made")) { try made.get() }
  }

  @Test func theCurrentPlanTravelsToAQueueThroughCarry() async throws {
    let file = try folder.write("x", to: "f")
    let plan = FaultPlan(failing: .open, with: .permissionDenied, occurrence: nil, under: folder.url.path)
    let failed: Bool = await plan.run {
      await withCheckedContinuation { continuation in
        DispatchQueue(label: "test").async(
          execute: FaultPlan.carry {
            continuation.resume(returning: (try? SystemCalls.open(FilePath(file.path), O_RDONLY).get()) == nil)
          })
      }
    }
    #expect(failed)
  }

  @Test func aHeldStepRunsTheHoldBeforeTheCallAndDoesNotFailIt() throws {
    let file = try folder.write("x", to: "f")
    let held = Mutex<[Int]>([])
    let plan = FaultPlan(
      [FaultPlan.Fault(holding: .open, under: folder.url.path, occurrence: 2) { held.withLock { $0.append($0.count + 1) } }],
      scope: folder.url.path)
    let results = plan.run { (0..<3).map { _ in SystemCalls.open(FilePath(file.path), O_RDONLY) } }
    #expect(results.allSatisfy { (try? $0.get()) != nil })
    for case .success(let fd) in results { SystemCalls.release(fd) }
    #expect(held.withLock { $0 } == [1])
  }

  @Test func aFailureMatchesAnErrnoPattern() {
    let result: Result<Void, SyscallFailure> = .failure(SyscallFailure(call: "openat", errno: .noSuchFileOrDirectory))
    if case .failure(.noSuchFileOrDirectory) = result {} else { Issue.record("the errno pattern did not match") }
    if case .failure(.permissionDenied) = result { Issue.record("another errno matched") }
  }
}

extension AtomicFileTests {
  // MARK: Putting a finished file in place

  /// The test folder, open.
  func openFolder() throws -> FileDescriptor { try SystemCalls.open(FilePath(folder.url.path), O_RDONLY | O_DIRECTORY).get() }

  @Test func replacingExchangesAndKeepsTheReplacedFileUnderTheTemporaryName() throws {
    try folder.write("old", to: "doc")
    try folder.write("new", to: ".doc.tmp")
    let fd = try openFolder()
    defer { SystemCalls.release(fd) }
    #expect(try AtomicFile.replace("doc", withFinished: ".doc.tmp", in: fd).get() == .exchanged)
    #expect(try String(contentsOf: folder.file("doc"), encoding: .utf8) == "new")
    #expect(try String(contentsOf: folder.file(".doc.tmp"), encoding: .utf8) == "old")
    // A failed folder flush afterwards puts the old one back.
    try AtomicFile.swapBack("doc", replaced: ".doc.tmp", in: fd).get()
    #expect(try String(contentsOf: folder.file("doc"), encoding: .utf8) == "old")
    #expect(try String(contentsOf: folder.file(".doc.tmp"), encoding: .utf8) == "new")
  }

  @Test func withoutExchangeTheCallerCopiesFirstThenARenameReplaces() throws {
    try folder.write("old", to: "doc")
    try folder.write("new", to: ".doc.tmp")
    let fd = try openFolder()
    defer { SystemCalls.release(fd) }
    // The file system has no RENAME_EXCHANGE (EINVAL from the exchange).
    let noExchange = FaultPlan(failing: .rename, with: .invalidArgument, under: folder.url.path)
    #expect(noExchange.run { AtomicFile.replace("doc", withFinished: ".doc.tmp", in: fd) }.failure?.errno == .invalidArgument)
    #expect(try String(contentsOf: folder.file("doc"), encoding: .utf8) == "old")
    var copied: String?
    let fallback = FaultPlan(failing: .rename, with: .invalidArgument, under: folder.url.path)
    let replaced = try fallback.run {
      try AtomicFile.replace("doc", withFinished: ".doc.tmp", in: fd) { copied = try? String(contentsOf: self.folder.file("doc"), encoding: .utf8) }.get()
    }
    #expect(replaced == .renamed)
    #expect(copied == "old")
    #expect(try String(contentsOf: folder.file("doc"), encoding: .utf8) == "new")
    #expect(try names() == ["doc"])
  }

  @Test func placingNeverReplacesWhatCameMeanwhile() throws {
    try folder.write("theirs", to: "doc")
    try folder.write("mine", to: ".doc.tmp")
    let fd = try openFolder()
    defer { SystemCalls.release(fd) }
    #expect(AtomicFile.place(".doc.tmp", as: "doc", in: fd).failure?.errno == .fileExists)
    #expect(try String(contentsOf: folder.file("doc"), encoding: .utf8) == "theirs")
    try AtomicFile.place(".doc.tmp", as: "fresh", in: fd).get()
    #expect(try names() == ["doc", "fresh"])
    // Where the file system cannot refuse to replace, `orRenaming` renames.
    try folder.write("again", to: ".other.tmp")
    let noNoReplace = FaultPlan(failing: .rename, with: .notSupported, under: folder.url.path)
    try noNoReplace.run { try AtomicFile.place(".other.tmp", as: "other", in: fd, orRenaming: true).get() }
    #expect(try String(contentsOf: folder.file("other"), encoding: .utf8) == "again")
  }

  @Test func aFinishedFileMovesIntoAnotherFolderByNameOrPath() throws {
    try folder.write("object", to: "pending")
    try FileManager.default.createDirectory(at: folder.file("objects"), withIntermediateDirectories: false)
    let fd = try openFolder()
    defer { SystemCalls.release(fd) }
    let objects = try SystemCalls.open(FilePath(folder.file("objects").path), O_RDONLY | O_DIRECTORY).get()
    defer { SystemCalls.release(objects) }
    try AtomicFile.move(finished: "pending", in: fd, to: "ab12", in: objects).get()
    #expect(try String(contentsOf: folder.file("objects/ab12"), encoding: .utf8) == "object")
    try folder.write("staged", to: "staging")
    try AtomicFile.move(finished: folder.file("staging").path, to: folder.file("objects/0-0").path).get()
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.file("objects").path).sorted() == ["0-0", "ab12"])
    #expect(AtomicFile.move(finished: folder.file("missing").path, to: folder.file("objects/x").path).failure?.errno == .noSuchFileOrDirectory)
  }
}
