import Foundation
@_spi(Testing) import QuireDocuments
import QuireSystem
import QuireTestSupport
import QuireTypes
import SystemPackage
import Testing

@Suite("FileWrapper")
final class FileWrapperTests: FolderSuite {
  /// A small package: text, an assets folder with two files, a symbolic link.
  func makePackage(text: String = "# Hello\n") -> FileWrapper {
    let root = FileWrapper(directoryWithFileWrappers: [:])
    root.addRegularFile(withContents: Data(text.utf8), preferredFilename: "text.md")
    let assets = FileWrapper(directoryWithFileWrappers: [
      "a.png": FileWrapper(regularFileWithContents: Data([0x89, 0x50, 0x4E, 0x47])),
      "b.txt": FileWrapper(regularFileWithContents: Data("bee".utf8)),
    ])
    assets.preferredFilename = "assets"
    root.addFileWrapper(assets)
    let link = FileWrapper(symbolicLinkWithDestinationURL: URL(fileURLWithPath: "assets/a.png", relativeTo: nil))
    link.preferredFilename = "cover"
    root.addFileWrapper(link)
    return root
  }

  func entries(of url: URL) -> [String] {
    (try? FileManager.default.contentsOfDirectory(atPath: url.path))?.sorted() ?? []
  }

  @Test func writtenPackageReadsBackEqual() throws {
    let url = folder.file("Notes.textbundle")
    let package = makePackage()
    try package.write(to: url, options: .atomic)
    #expect(package.matchesContents(of: url))
    let read = try FileWrapper(url: url)
    #expect(read.isDirectory)
    #expect(Set(read.fileWrappers?.keys ?? [:].keys) == ["text.md", "assets", "cover"])
    #expect(read.fileWrappers?["text.md"]?.regularFileContents == Data("# Hello\n".utf8))
    #expect(read.fileWrappers?["cover"]?.isSymbolicLink == true)
    #expect(read.fileWrappers?["cover"]?.symbolicLinkDestination == "assets/a.png")
    #expect(!makePackage(text: "other").matchesContents(of: url))
    #expect(entries(of: folder.url) == ["Notes.textbundle"])
  }

  @Test func debugDescriptionPrintsTheTree() throws {
    let url = folder.file("Notes.textbundle")
    try makePackage().write(to: url, options: .atomic)
    let read = try FileWrapper(url: url)
    #expect(
      read.debugDescription == """
        Notes.textbundle/ (folder)
        ├─ assets/ (folder)
        │  ├─ a.png (file, 4 bytes)
        │  └─ b.txt (file, 3 bytes)
        ├─ cover -> assets/a.png (symbolic link)
        └─ text.md (file, 8 bytes)
        """)
  }

  @Test func collidingNamesGetNumbered() {
    let root = FileWrapper(directoryWithFileWrappers: [:])
    #expect(root.addRegularFile(withContents: Data(), preferredFilename: "image.png") == "image.png")
    #expect(root.addRegularFile(withContents: Data(), preferredFilename: "image.png") == "image 2.png")
    #expect(root.addRegularFile(withContents: Data(), preferredFilename: "image.png") == "image 3.png")
    #expect(root.addRegularFile(withContents: Data(), preferredFilename: "README") == "README")
    #expect(root.addRegularFile(withContents: Data(), preferredFilename: "README") == "README 2")
    #expect(root.addRegularFile(withContents: Data(), preferredFilename: ".hidden") == ".hidden")
    #expect(root.addRegularFile(withContents: Data(), preferredFilename: ".hidden") == ".hidden 2")
    let child = root.fileWrappers?["image 2.png"]
    #expect(child.flatMap { root.keyForFileWrapper($0) } == "image 2.png")
    if let child { root.removeFileWrapper(child) }
    #expect(root.fileWrappers?["image 2.png"] == nil)
    #expect(root.addRegularFile(withContents: Data(), preferredFilename: "image.png") == "image 2.png")
  }

  @Test(arguments: ["../escape", "/etc/passwd", "", ".", "..", "a\0b"])
  func hostileNamesStayInsideThePackage(_ name: String) throws {
    let root = FileWrapper(directoryWithFileWrappers: [:])
    let key = root.addRegularFile(withContents: Data("x".utf8), preferredFilename: name)
    #expect(!key.contains("/") && key != "." && key != ".." && !key.isEmpty && !key.contains("\0"))
    let url = folder.file("pkg")
    try root.write(to: url, options: .atomic)
    #expect(entries(of: url) == [key])
    #expect(entries(of: folder.url) == ["pkg"])
  }

  @Test func attributesAreWrittenAndReadBack() throws {
    let file = FileWrapper(regularFileWithContents: Data("x".utf8))
    let date = Date(timeIntervalSince1970: 1_600_000_000.5)
    file.fileAttributes = .init(posixPermissions: 0o640, modificationDate: date)
    let root = FileWrapper(directoryWithFileWrappers: ["f": file])
    root.fileAttributes.posixPermissions = 0o750
    let url = folder.file("pkg")
    try root.write(to: url, options: .atomic)
    let read = try FileWrapper(url: url)
    #expect(read.fileAttributes.posixPermissions == 0o750)
    let readFile = try #require(read.fileWrappers?["f"])
    #expect(readFile.fileAttributes.posixPermissions == 0o640)
    let readDate = try #require(readFile.fileAttributes.modificationDate)
    #expect(abs(readDate.timeIntervalSince(date)) < 0.001)
  }

  @Test func contentsAreReadLazilyUnlessImmediate() throws {
    let url = folder.file("pkg")
    try makePackage().write(to: url, options: .atomic)
    let lazy = try FileWrapper(url: url)
    let eager = try FileWrapper(url: url, options: [.immediate, .withoutMapping])
    // Change a file in place after both were read.
    try Data("changed".utf8).write(to: url.appendingPathComponent("text.md"))
    #expect(eager.fileWrappers?["text.md"]?.regularFileContents == Data("# Hello\n".utf8))
    let lazyText = try #require(lazy.fileWrappers?["text.md"])
    #expect(lazyText.regularFileContents == nil)
    let error = #expect(throws: QuireError.self) { try lazyText.contents() }
    #expect(error?.reason.contains("changed on disk") == true)
  }

  @Test func rewritingReusesUnchangedChildrenByHardLink() throws {
    let url = folder.file("pkg")
    let root = FileWrapper(directoryWithFileWrappers: [:])
    for index in 0..<10 {
      root.addRegularFile(withContents: Data(repeating: UInt8(index), count: 4096), preferredFilename: "f\(index)")
    }
    try root.write(to: url, options: .atomic)
    let inodeBefore = try inode(url.appendingPathComponent("f3"))
    // A document reads its package, changes one file, saves.
    let read = try FileWrapper(url: url)
    if let old = read.fileWrappers?["f0"] { read.removeFileWrapper(old) }
    read.addRegularFile(withContents: Data("new".utf8), preferredFilename: "f0")
    try read.write(to: url, options: .atomic, originalContentsURL: url)
    #expect(read.lastWriteReuse[.hardLink] == 9)
    #expect(try inode(url.appendingPathComponent("f3")) == inodeBefore)
    #expect(try Data(contentsOf: url.appendingPathComponent("f0")) == Data("new".utf8))
    #expect(try Data(contentsOf: url.appendingPathComponent("f3")) == Data(repeating: 3, count: 4096))
    // The wrapper still reads its lazy children after the swap, and saves again.
    #expect(read.fileWrappers?["f5"]?.regularFileContents == Data(repeating: 5, count: 4096))
    try read.write(to: url, options: .atomic, originalContentsURL: url)
    #expect(read.lastWriteReuse[.hardLink] == 10)
    #expect(entries(of: folder.url) == ["pkg"])
  }

  @Test func childrenFromElsewhereAreCopiedNotLinked() throws {
    let source = folder.file("source")
    try makePackage().write(to: source, options: .atomic)
    let read = try FileWrapper(url: source)
    let copy = folder.file("copy")
    try read.write(to: copy, options: .atomic, originalContentsURL: copy)
    #expect(read.lastWriteReuse[.hardLink] == nil)
    let copies: Int = read.lastWriteReuse.values.reduce(0, +)
    #expect(copies == 3)
    #expect(try inode(copy.appendingPathComponent("text.md")) != inode(source.appendingPathComponent("text.md")))
    #expect(makePackage().matchesContents(of: copy))
  }

  @Test func atomicWriteReplacesAFileWithAPackageAndBack() throws {
    let url = folder.file("doc")
    try FileWrapper(regularFileWithContents: Data("flat".utf8)).write(to: url, options: .atomic)
    try makePackage().write(to: url, options: .atomic)
    #expect(makePackage().matchesContents(of: url))
    try FileWrapper(regularFileWithContents: Data("flat again".utf8)).write(to: url, options: .atomic)
    #expect(try Data(contentsOf: url) == Data("flat again".utf8))
    #expect(entries(of: folder.url) == ["doc"])
  }

  @Test func atomicWriteOfAFileKeepsTheExistingMode() throws {
    let url = folder.file("notes.md")
    try Data("a".utf8).write(to: url)
    chmod(url.path, 0o640)
    try FileWrapper(regularFileWithContents: Data("b".utf8)).write(to: url, options: .atomic)
    #expect(try FileWrapper(url: url).fileAttributes.posixPermissions == 0o640)
  }

  @Test func readingMissingItemFails() {
    let error = #expect(throws: QuireError.self) { try FileWrapper(url: self.folder.file("missing")) }
    #expect(error?.code == .fileMissing)
    #expect(error?.reason.contains("missing") == true)
  }

  @Test func readingAPipeFails() throws {
    let path = folder.file("fifo").path
    #expect(mkfifo(path, 0o600) == 0)
    let error = #expect(throws: QuireError.self) { try FileWrapper(url: URL(fileURLWithPath: path)) }
    #expect(error?.code == .unsupportedType)
  }

  @Test func symbolicLinksAreNeverFollowed() throws {
    let url = folder.file("pkg")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
    #expect(symlink("/etc/passwd", url.appendingPathComponent("passwd").path) == 0)
    let read = try FileWrapper(url: url)
    #expect(read.fileWrappers?["passwd"]?.isSymbolicLink == true)
    #expect(read.fileWrappers?["passwd"]?.regularFileContents == nil)
  }

  @Test func writingIntoAMissingFolderFails() {
    let url = folder.file("gone/pkg")
    let error = #expect(throws: QuireError.self) { try self.makePackage().write(to: url, options: .atomic) }
    #expect(error?.code == .fileMissing)
  }

  @Test func writingWithoutPermissionFailsAndKeepsTheOld() throws {
    guard !isRunningAsRoot else {
      print("note: running as root, where a 0500 folder is still writable; EACCES is covered by the injected-failure test")
      return
    }
    let parent = folder.file("locked")
    try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: false)
    let url = parent.appendingPathComponent("pkg")
    try makePackage().write(to: url, options: .atomic)
    chmod(parent.path, 0o500)
    defer { chmod(parent.path, 0o700) }
    let error = #expect(throws: QuireError.self) { try self.makePackage(text: "new").write(to: url, options: .atomic) }
    #expect(error?.code == .permissionDenied)
    #expect(makePackage().matchesContents(of: url))
  }

  /// Fails every system call of a package save in turn: the package on disk is the old or
  /// the new one, whole, and nothing is left beside it when the save fails.
  @Test(arguments: [Errno.noSpace, Errno.ioError, Errno.permissionDenied])
  func injectedFailureAtEveryStepLeavesOldOrNew(_ errno: Errno) throws {
    let url = folder.file("pkg")
    let old = makePackage(text: "old")
    try old.write(to: url, options: .atomic)
    let recorder = FaultPlan(scope: folder.url.path)
    let scratch = folder.file("scratch")
    try old.write(to: scratch, options: .atomic)
    try recorder.run {
      try FileWrapper(url: scratch).write(to: scratch, options: .atomic, originalContentsURL: scratch)
    }
    try FileManager.default.removeItem(at: scratch)
    var failures = 0
    for (operation, count) in recorder.callCounts {
      for occurrence in 1...count {
        let current = try FileWrapper(url: url)  // a document's package, read from disk
        current.removeFileWrapper(current.fileWrappers?["text.md"] ?? current)
        current.addRegularFile(withContents: Data("new".utf8), preferredFilename: "text.md")
        let faults = FaultPlan(failing: operation, with: errno, occurrence: occurrence, under: folder.url.path)
        do {
          try faults.run { try current.write(to: url, options: .atomic, originalContentsURL: url) }
          // Steps after the swap (removing the old tree) may fail without failing the save.
          #expect(makePackage(text: "new").matchesContents(of: url), "\(operation) #\(occurrence)")
          try makePackage(text: "old").write(to: url, options: .atomic)
        } catch let error as QuireError {
          failures += 1
          let isOld = makePackage(text: "old").matchesContents(of: url)
          let isNew = makePackage(text: "new").matchesContents(of: url)
          #expect(isOld || isNew, "\(operation) #\(occurrence): \(error)")
          if isNew { try makePackage(text: "old").write(to: url, options: .atomic) }
          if errno == .noSpace { #expect(error.reason.contains("disk is full")) }
        }
        #expect(entries(of: folder.url) == ["pkg"], "\(operation) #\(occurrence) left something behind")
      }
    }
    #expect(failures > 10)
  }

  /// Kills a process inside a save of a package, held at a chosen step (the first, a middle
  /// and the last file's write, the swap, the folder flush): what is on disk is always one
  /// generation, whole, and the killed save's temporary folder is all that is left.
  @Test func killDuringSaveLeavesOldOrNewWhole() async throws {
    let url = folder.file("pkg")
    let files = 40
    let size = 16 * 1024
    let holds: [(SystemStep, Int)] = [(.write, 1), (.write, files / 2), (.write, files + 1), (.rename, 1), (.flush, files + 2)]
    for (step, occurrence) in holds {
      let helper = try TestHelper.start(["write-generations", url.path, "\(files)", "\(size)", step.rawValue, "\(occurrence)"])
      #expect(await helper.waitForLine(startingWith: "holding") != nil, "the helper never reached \(step) #\(occurrence)")
      await helper.killAndAwaitExit()
      let read = try FileWrapper(url: url, options: .immediate)
      let text = try #require(read.fileWrappers?["text.md"]?.regularFileContents)
      let generation: UInt8 = text == Data("generation 1\n".utf8) ? 1 : 2
      #expect(text == Data("generation \(generation)\n".utf8), "killed at \(step) #\(occurrence)")
      let assets = try #require(read.fileWrappers?["assets"]?.fileWrappers)
      #expect(assets.count == files)
      for (name, file) in assets {
        #expect(file.regularFileContents == Data(repeating: generation, count: size), "\(name), killed at \(step) #\(occurrence)")
      }
      // Only the package and the killed save's hidden temporary folder remain.
      #expect(entries(of: folder.url).filter { !$0.hasPrefix(".pkg.quire-") } == ["pkg"])
      #expect(!FileWrapper.removeLeftovers(besides: url).isEmpty, "killed at \(step) #\(occurrence), yet no save was under way")
      #expect(entries(of: folder.url) == ["pkg"])
    }
  }

  func inode(_ url: URL) throws -> UInt64 {
    var info = stat()
    guard lstat(url.path, &info) == 0 else { throw Errno(rawValue: errno) }
    return UInt64(info.st_ino)
  }
}
