import Foundation
import Quire
import QuireTestSupport
import Testing

@testable import QuireCLI

/// A special file a command is told to write to.
enum SpecialTarget: String, CaseIterable, CustomTestStringConvertible, Sendable {
  /// A FIFO with a reader.
  case fifo
  /// A character device like `/dev/null` (made with `mknod`, which needs root).
  case device
  /// A symbolic link to such a device.
  case linkToDevice

  var testDescription: String { rawValue }

  /// Whether this machine can make it (device nodes need root).
  var canBeMade: Bool { self == .fifo || geteuid() == 0 }

  /// Makes the special file at `url`; a FIFO gets a reader, whose descriptor is returned.
  func make(at url: URL) throws -> Int32? {
    switch self {
    case .fifo:
      guard mkfifo(url.path, 0o600) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
      // A reader that never blocks: the command's open then finds one (else it is refused).
      return open(url.path, O_RDONLY | O_NONBLOCK)
    case .device:
      guard mknod(url.path, S_IFCHR | 0o666, dev_t((1 << 8) | 3)) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
      return nil
    case .linkToDevice:
      let device = url.deletingLastPathComponent().appendingPathComponent(url.lastPathComponent + ".device")
      guard mknod(device.path, S_IFCHR | 0o666, dev_t((1 << 8) | 3)) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
      try FileManager.default.createSymbolicLink(at: url, withDestinationURL: device)
      return nil
    }
  }

  /// Whether `url` is still this kind of special file.
  func isIntact(at url: URL) -> Bool {
    var info = stat()
    guard lstat(url.path, &info) == 0 else { return false }
    switch self {
    case .fifo: return info.st_mode & S_IFMT == S_IFIFO
    case .device: return info.st_mode & S_IFMT == S_IFCHR
    case .linkToDevice:
      var target = stat()
      return info.st_mode & S_IFMT == S_IFLNK && stat(url.path, &target) == 0 && target.st_mode & S_IFMT == S_IFCHR
    }
  }
}

/// Every command that writes a file, as arguments and a script, given where the output goes.
enum WritingCommand: String, CaseIterable, CustomTestStringConvertible, Sendable {
  case previewOutput, pasteOutput, thumbnailer, thumbnailBatchOutput, demoOutput, replW, replAppend, replWritePDF, installThumbnailer

  var testDescription: String { rawValue }

  /// The arguments and standard input, and the path inside `folder` that must be the special file.
  func invocation(in folder: URL) -> (arguments: [String], input: String, target: String) {
    switch self {
    case .previewOutput: return (["preview", "notes.md", "--output", "target"], "", "target")
    case .pasteOutput: return (["paste", "--output", "target"], "", "target")
    case .thumbnailer: return (["thumbnail", "-s", "64", "notes.md", "target"], "", "target")
    case .thumbnailBatchOutput: return (["thumbnail", "--jobs", "1", "--output", "out", "notes.md"], "", "out/notes.md.png")
    case .demoOutput: return (["demo", "docs", "--output", "out"], "", "out/notes.html")
    case .replW: return (["notes.md"], "w target\nq\n", "target")
    case .replAppend: return (["notes.md"], "W target\nq\n", "target")
    case .replWritePDF: return (["doc.pdf"], "w target\nq\n", "target")
    case .installThumbnailer: return (["thumbnail", "--install", "--data-dir", "data"], "", "data/thumbnailers/quire.thumbnailer")
    }
  }
}

/// What the hostile-path suites start from: a temporary folder holding a private `.runtime`
/// folder, which ``environment`` names as `XDG_RUNTIME_DIR`; removed when the suite is done.
class HostileFolderTestCase: FolderSuite, RunsQuire {
  init() throws {
    try super.init()
    try folder.privateFolder(".runtime")
  }

  var environment: [String: String] { ["XDG_RUNTIME_DIR": folder.file(".runtime").path] }
}

@Suite("Hostile paths and bad input")
final class HostilePathTests: HostileFolderTestCase {

  // MARK: 1, acceptance 3: output paths never replace special files

  @Test(arguments: WritingCommand.allCases)
  func writingToAFIFOWritesThroughIt(_ command: WritingCommand) async throws {
    try await expectWritesThrough(command, .fifo)
  }

  @Test(
    .enabled(if: geteuid() == 0, "device nodes are made with mknod, which needs root"), arguments: WritingCommand.allCases,
    [SpecialTarget.device, .linkToDevice])
  func writingToADeviceOrALinkToOneWritesThroughIt(_ command: WritingCommand, _ special: SpecialTarget) async throws {
    try await expectWritesThrough(command, special)
  }

  func expectWritesThrough(_ command: WritingCommand, _ special: SpecialTarget) async throws {
    try folder.write("# Notes\n\nSome *text*.\n", to: "notes.md")
    try FileManager.default.createDirectory(at: folder.file("docs"), withIntermediateDirectories: true)
    try folder.write("# Notes\n", to: "docs/notes.md")
    for sub in ["out", "data/thumbnailers"] {
      try FileManager.default.createDirectory(at: folder.file(sub), withIntermediateDirectories: true)
    }
    if command == .replWritePDF { _ = try writePDF(to: folder.file("doc.pdf"), pages: ["one", "two"]) }
    if command == .pasteOutput {
      let copied = try await quire(["copy", "--text", "pasted text"])
      #expect(copied.status == 0, "\(copied.error)")
    }
    let (arguments, input, targetName) = command.invocation(in: folder.url)
    let target = folder.file(targetName)
    let reader = try special.make(at: target)
    defer { if let reader { close(reader) } }
    let result = try await quire(arguments, input: input)
    #expect(result.status == 0, "\(command) to \(special): \(result.error)")
    #expect(special.isIntact(at: target), "\(command) replaced the \(special) at \(targetName)")
    if let reader {
      var buffer = [UInt8](repeating: 0, count: 1 << 20)
      let got = read(reader, &buffer, buffer.count)
      #expect(got > 0, "the FIFO's reader got what \(command) wrote")
    }
  }

  /// The desktop's recent documents list (`recently-used.xbel`, shared with GTK) is a file
  /// `quire recent --add` rewrites: a FIFO or a symbolic link planted there is refused, named,
  /// without waiting on the FIFO, and stays what it is.
  @Test(arguments: ["fifo", "link"])
  func recentRefusesASpecialFileAtTheRecentList(_ kind: String) async throws {
    try folder.write("# a\n", to: "a.md")
    let data = folder.file(".data")
    try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
    let list = data.appendingPathComponent("recently-used.xbel")
    if kind == "fifo" {
      #expect(mkfifo(list.path, 0o600) == 0)
    } else {
      try FileManager.default.createSymbolicLink(atPath: list.path, withDestinationPath: folder.file("elsewhere.xbel").path)
    }
    let result = try await quire(["recent", "--add", "a.md"], environment: ["XDG_DATA_HOME": data.path, "XDG_STATE_HOME": folder.file(".state").path])
    #expect(result.status == 1)
    #expect(result.error.contains("'recently-used.xbel'"), "\(result.error)")
    var info = stat()
    #expect(lstat(list.path, &info) == 0)
    #expect(info.st_mode & S_IFMT == (kind == "fifo" ? S_IFIFO : S_IFLNK))
    #expect(!FileManager.default.fileExists(atPath: folder.file("elsewhere.xbel").path))
  }

  @Test func aFIFOWithoutAReaderIsRefusedNotWaitedOn() async throws {
    try folder.write("# Notes\n", to: "notes.md")
    #expect(mkfifo(folder.file("fifo").path, 0o600) == 0)
    let preview = try await quire(["preview", "notes.md", "--output", "fifo"])
    #expect(preview.status == 1)
    #expect(preview.error.contains("no process is reading it"))
    let append = try await quire(["notes.md"], input: "W fifo\nq\n")
    #expect(append.status == 1)
    #expect(append.error.contains("FIFO"))
    #expect(SpecialTarget.fifo.isIntact(at: folder.file("fifo")))
  }

  // MARK: 2: Ctrl-C stops a runaway regular expression

  @Test(.timeLimit(.minutes(2))) func interruptStopsARunawayMatchInScriptMode() async throws {
    let quire = try #require(ProcessRunner.quire)
    try folder.write(String(repeating: "a", count: 400) + "\n", to: "a.txt")
    let process = try ChildProcess.start(
      quire, ["a.txt"], environment: ["PATH": "/usr/bin:/bin", "HOME": folder.url.path, "XDG_STATE_HOME": folder.file(".state").path] + environment,
      in: folder.url)
    process.write("s/\\(a*\\)*\\1b/x/\np\n")
    // Wait until the handler is installed (SigCgt has SIGINT), then interrupt until it stops:
    // the match alone runs for minutes.
    #expect(await eventually { !process.isRunning || Self.catchesInterrupt(process.pid) })
    while process.isRunning {
      process.kill(SIGINT)
      try await Task.sleep(for: .milliseconds(200))
    }
    process.closeInput()
    #expect(process.endedBySignal == false)
    #expect(process.terminationStatus == 1)
    #expect(await eventually { process.errors.finished })
    #expect(process.errors.text.contains("line 1: interrupted"), "\(process.errors.text)")
  }

  static func catchesInterrupt(_ pid: Int32) -> Bool {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
      let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigCgt:") }),
      let mask = UInt64(line.dropFirst("SigCgt:".count).trimmingCharacters(in: .whitespaces), radix: 16)
    else { return false }
    return mask & (1 << (UInt64(SIGINT) - 1)) != 0
  }

  // MARK: 3, 8: input that is not a regular file

  @Test func copyRefusesAFIFOAndADeviceInsteadOfHanging() async throws {
    #expect(mkfifo(folder.file("fifo").path, 0o600) == 0)
    let fifo = try await quire(["copy", "fifo"])
    #expect(fifo.status == 1)
    #expect(fifo.error.contains("FIFO"))
    let zero = try await quire(["copy", "/dev/zero"])
    #expect(zero.status == 1)
    #expect(zero.error.contains("character device"))
  }

  @Test func aProcFileWhoseSizeReadsZeroIsReadToTheEnd() async throws {
    let result = try await quire(["preview", "/proc/cpuinfo", "--format", "text"])
    #expect(result.status == 0, "\(result.error)")
    #expect(result.output.utf8.count > 100)
    #expect(result.output.contains("processor"))
  }

  // MARK: 5: the version store's folders

  @Test func aSymbolicLinkPlantedAtTheStateFolderIsNotFollowed() async throws {
    let elsewhere = folder.file("elsewhere")
    try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
    let state = folder.file("state")
    try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(at: state.appendingPathComponent("quire"), withDestinationURL: elsewhere)
    try folder.write("one\n", to: "notes.txt")
    let result = try await quire(["notes.txt"], input: "a\ntwo\n.\nw\nq\n", environment: ["XDG_STATE_HOME": state.path])
    #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path).isEmpty, "nothing was written through the planted link")
    #expect(result.error.contains("symbolic link"), "\(result.error)")
  }

  // MARK: 7: names that begin with '-'

  /// A command the REPL starts (`!cmd`, `r !cmd`) gets no blocked signal: Foundation's Process
  /// passes the starting thread's mask on, and the REPL's threads block nearly all signals, so
  /// Ctrl-C and `kill` could not stop what it runs.
  @Test func shellCommandsOfTheREPLStartWithNoSignalBlocked() async throws {
    let file = try folder.write("x\n", to: "x.txt")
    let result = try await quire(["x.txt"], input: "r !grep '^SigBlk:' /proc/self/status\n,p\nQ\n")
    #expect(result.status == 0, "\(result.error)")
    #expect(result.output.contains("SigBlk:\t0000000000000000"), "\(result.output)")
    #expect(!result.output.contains("SigBlk:\tf"), "\(result.output)")
    _ = file
  }

  @Test func aFileNameBeginningWithADashIsNotTakenForOptions() async throws {
    try folder.write("dash\n", to: "-dash.md")
    let refused = try await quire(["copy", "-dash.md"])
    #expect(refused.status == 2)
    #expect(refused.error.contains("./-dash.md"))
    let copied = try await quire(["copy", "--", "-dash.md"])
    #expect(copied.status == 0, "\(copied.error)")
    let pasted = try await quire(["paste"])
    #expect(pasted.output == "dash\n")
    let repl = try await quire(["-dash.md"], input: "p\n")
    #expect(repl.status == 2)
    let edited = try await quire(["--", "-dash.md"], input: "p\n")
    #expect(edited.status == 0, "\(edited.error)")
    #expect(edited.output.contains("dash"))
  }

  // MARK: 9: binary and invalid UTF-8 are refused by preview and thumbnail

  @Test func previewAndThumbnailRefuseTextThatIsNotUTF8() async throws {
    try Data([0x61, 0xFF, 0x62, 0x0A]).write(to: folder.file("latin1.md"))
    try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]).write(to: folder.file("image.md"))
    for name in ["latin1.md", "image.md"] {
      let preview = try await quire(["preview", name])
      #expect(preview.status == 1, "\(name)")
      #expect(preview.error.contains(name))
      let thumbnail = try await quire(["thumbnail", "-s", "64", name, "out.png"])
      #expect(thumbnail.status == 1, "\(name)")
      #expect(!FileManager.default.fileExists(atPath: folder.file("out.png").path))
    }
  }

  // MARK: 11: messages that name the file and what to do

  @Test func messagesNameTheFileAndWhatFailed() async throws {
    try folder.write("# Notes\n", to: "notes.md")
    let toFolder = try await quire(["preview", "notes.md", "--output", folder.url.path])
    #expect(toFolder.status == 1)
    #expect(toFolder.error.contains("it is a folder"))
    #expect(!toFolder.error.contains("512"))

    _ = try await quire(["copy", "--text", "x"])
    let missingFolder = try await quire(["paste", "--output", "/nonexistent/x"])
    #expect(missingFolder.status == 1)
    #expect(missingFolder.error.contains("'/nonexistent' does not exist"))
    #expect(!missingFolder.error.contains(".quire-"))

    try FileManager.default.createSymbolicLink(atPath: folder.file("loop1").path, withDestinationPath: "loop2")
    try FileManager.default.createSymbolicLink(atPath: folder.file("loop2").path, withDestinationPath: "loop1")
    for arguments in [["preview", "loop1"], ["watch", "--seconds", "1", "loop1"], ["copy", "loop1"]] {
      let loop = try await quire(arguments)
      #expect(loop.status == 1, "\(arguments)")
      #expect(loop.error.contains("symbolic links form a loop"), "\(arguments): \(loop.error)")
    }
    try FileManager.default.createSymbolicLink(atPath: folder.file("dangling.pdf").path, withDestinationPath: "gone.pdf")
    let dangling = try await quire(["thumbnail", "-s", "64", "dangling.pdf", "out.png"])
    #expect(dangling.error.contains("symbolic link to 'gone.pdf', which does not exist"), "\(dangling.error)")

    try FileManager.default.createDirectory(at: folder.file("docs"), withIntermediateDirectories: true)
    try Data([0x23, 0x20, 0xFF, 0x0A]).write(to: folder.file("docs/bad.md"))
    let demo = try await quire(["demo", "docs", "--output", "out"])
    #expect(demo.status == 1)
    #expect(!demo.output.contains("NSCocoaErrorDomain"))
    #expect(demo.output.contains("'") && demo.output.contains("bad.md") && demo.output.contains("not UTF-8"), "\(demo.output)")
  }

  // MARK: 12: names are escaped on the terminal

  @Test func controlCharactersInNamesAreEscapedInThumbnailLines() async throws {
    try folder.write("# one\n", to: "\u{1B}[31mred.md")
    try folder.write("# two\n", to: "two\nlines.md")
    let result = try await quire(["thumbnail", "--jobs", "1", "--output", "out", "\u{1B}[31mred.md", "two\nlines.md"])
    #expect(result.status == 0, "\(result.error)")
    #expect(!result.output.contains("\u{1B}"))
    #expect(result.output.contains("\\x1B[31mred.md"))
    #expect(result.output.contains("two\\nlines.md"))
    // One line per file, then the summary.
    #expect(result.output.split(separator: "\n").count == 3)
  }

  // MARK: 13: quire watch leaves nothing behind

  @Test(.timeLimit(.minutes(2)), arguments: [SIGINT, SIGTERM])
  func watchRemovesItsPresenterFilesWhenStopped(_ signal: Int32) async throws {
    let quire = try #require(ProcessRunner.quire)
    let watched = try folder.write("text\n", to: "watched.txt")
    let runtime = folder.file("runtime")
    let process = try ChildProcess.start(quire, ["watch", "--runtime-folder", runtime.path, watched.path])
    let presenters = runtime.appendingPathComponent("quire/presenters")
    func entries() -> [String] {
      ((try? FileManager.default.contentsOfDirectory(atPath: presenters.path)) ?? []).filter { $0.hasPrefix("\(process.pid).") }
    }
    #expect(await eventually { !process.isRunning || (entries().contains("\(process.pid).json") && Self.catchesInterrupt(process.pid)) })
    #expect(entries().count == 2, "PID.sock and PID.json while watching: \(entries())")
    process.kill(signal)
    #expect(await process.waitForExit(within: patience) != nil)
    #expect(process.endedBySignal == false)
    #expect(entries().isEmpty, "left behind: \(entries())")
  }
}

extension Dictionary where Key == String, Value == String {
  static func + (lhs: Self, rhs: Self) -> Self { lhs.merging(rhs) { $1 } }
}

/// Finding 4: names that are not UTF-8 (bytes no Swift String holds) reach quire through a shell.
@Suite("Hostile paths: names that are not UTF-8")
final class NonUTF8NameTests: HostileFolderTestCase {

  /// The name's bytes: `non\xFFutf.md` (the byte 0xFF is not UTF-8).
  let nameBytes = Array("non".utf8) + [0xFF] + Array("utf.md".utf8)

  /// Makes the file `non\xFFutf.md`, holding `# kept`, in the test's folder or in `subfolder`
  /// of it (made if missing).
  func makeFile(in subfolder: String? = nil) throws {
    if let subfolder { try FileManager.default.createDirectory(at: folder.file(subfolder), withIntermediateDirectories: true) }
    try folder.write("# kept\n", toNameBytes: (subfolder.map { Array("\($0)/".utf8) } ?? []) + nameBytes)
  }

  /// Runs quire through `sh`, whose `printf` makes the byte: `$0` is quire, `NAME` in the
  /// command stands for the name.
  func quire(_ command: String, input: String = "", environment: [String: String] = [:]) async throws -> ProcessResult {
    let quire = try #require(ProcessRunner.quire)
    let script = "name=$(printf 'non\\377utf.md'); exec \"$0\" " + command.replacingOccurrences(of: "NAME", with: "\"$name\"")
    return try await ProcessRunner.run(
      URL(fileURLWithPath: "/bin/sh"), ["-c", script, quire.path], in: folder.url, input: input,
      environment: self.environment + environment)
  }

  /// Runs `command` in `sh` in the test's folder with `$name` set to the name's bytes.
  func shell(_ command: String, environment: [String: String] = [:]) async throws -> ProcessResult {
    try await ProcessRunner.run(
      URL(fileURLWithPath: "/bin/sh"), ["-c", "name=$(printf 'non\\377utf.md'); " + command], in: folder.url, input: "", environment: environment)
  }

  /// Per-user data (the Trash, the recent documents) inside the test's folder.
  var dataHome: [String: String] { ["XDG_DATA_HOME": folder.file(".data").path, "XDG_STATE_HOME": folder.file(".state").path] }

  /// Whether `non\xFFutf.md` is in the test's folder.
  var fileExists: Bool {
    var info = stat()
    return folder.path(nameBytes: nameBytes).withPlatformString { lstat($0, &info) } == 0
  }

  @Test(.enabled(if: Programs.isInstalled("/usr/bin/getfattr"), "needs getfattr (Debian attr)"))
  func tagSetsTheVeryFilesTagsAndGetfattrReadsThem() async throws {
    try makeFile()
    let set = try await quire("tag NAME +work +urgent")
    #expect(set.status == 0, "\(set.error)")
    #expect(set.output == "work\nurgent\n")
    let get = try await shell("exec /usr/bin/getfattr --only-values -n user.xdg.tags \"$name\"")
    #expect(get.output == "work,urgent", "\(get.error)")
    let json = try await quire("tag --json NAME")
    #expect(json.output.contains("\"path\" : \"\(folder.url.path)/non\\\\xFFutf.md\""), "\(json.output)")
    let bad = try await quire("tag NAME +$name")
    #expect(bad.status == 2)
    #expect(bad.error.contains("non\\xFFutf.md"), "\(bad.error)")
  }

  @Test(.enabled(if: Programs.isInstalled("/usr/bin/gio") && Programs.isInstalled("/usr/bin/dbus-run-session"), "needs gio and dbus-run-session"))
  func trashMovesTheVeryFileAndGioSeesIt() async throws {
    try makeFile()
    let trashed = try await quire("trash --json NAME", environment: dataHome)
    #expect(trashed.status == 0, "\(trashed.error)")
    // JSON names the very file: the file:// URI of its bytes, as GLib writes it.
    #expect(trashed.output.contains("\"originalURL\" : \"file://\(folder.url.path)/non%FFutf.md\""), "\(trashed.output)")
    #expect(!fileExists)
    let list = try await shell("exec /usr/bin/dbus-run-session -- /usr/bin/gio trash --list", environment: dataHome)
    #expect(list.output.hasPrefix("trash:///non%FFutf.md\t"), "\(list.output) \(list.error)")
    let listed = try await quire("trash --list", environment: dataHome)
    #expect(listed.output.hasPrefix("\(folder.url.path)/non\\xFFutf.md\t"), "\(listed.output)")
    let restored = try await quire("trash --restore NAME", environment: dataHome)
    #expect(restored.status == 0, "\(restored.error)")
    #expect(restored.output == "\(folder.url.path)/non\\xFFutf.md\n")
    #expect(fileExists)
  }

  @Test func recentAddsTheVeryFileAndListsItEscaped() async throws {
    try makeFile()
    let added = try await quire("recent --add NAME", environment: dataHome)
    #expect(added.status == 0, "\(added.error)")
    let xbel = try String(contentsOf: folder.file(".data/recently-used.xbel"), encoding: .utf8)
    #expect(xbel.contains("href=\"file://\(folder.url.path)/non%FFutf.md\""), "\(xbel)")
    let listed = try await quire("recent", environment: dataHome)
    #expect(listed.output == "\(folder.url.path)/non\\xFFutf.md\n", "\(listed.output) \(listed.error)")
    let json = try await quire("recent --json", environment: dataHome)
    #expect(json.output.contains("\"url\" : \"file://\(folder.url.path)/non%FFutf.md\""), "\(json.output)")
    let removed = try await quire("recent --remove NAME", environment: dataHome)
    #expect(removed.status == 0, "\(removed.error)")
    #expect(try await quire("recent", environment: dataHome).output.isEmpty)
  }

  /// `quire type NAME` (read without the parser) identifies the very file and names it
  /// escaped, as the parsed `quire type -- NAME` does.
  @Test func typeIdentifiesTheVeryFileNamedByItsBytes() async throws {
    try makeFile()
    let direct = try await quire("type NAME")
    let parsed = try await quire("type -- NAME")
    #expect(direct.status == 0 && direct.output.hasPrefix("non\\xFFutf.md: net.daringfireball.markdown"), "\(direct.output) \(direct.error)")
    #expect(direct.output == parsed.output && direct.error == parsed.error)
  }

  /// Commands whose library APIs take only a `URL` (which cannot hold the name) refuse it.
  @Test(arguments: ["recent --in NAME"])
  func aNameThatIsNotUTF8IsRefusedNamingItNeverSwapped(_ command: String) async throws {
    try makeFile()
    try folder.write("# kept\n", to: "kept.md")
    let result = try await quire(command, input: "a\nnew\n.\nw\nq\n")
    #expect(result.status == 1)
    #expect(result.error.contains("non\\xFFutf.md"), "\(result.error)")
    // Nothing was written under another name (the lossy non\u{FFFD}utf.md).
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0.contains("\u{FFFD}") }.count == 1)
    #expect(!FileManager.default.fileExists(atPath: folder.file("non\u{FFFD}utf.md").path))
  }

  /// `thumbnail --output DIR` writes into the very folder named, making it (and a folder in
  /// it) by the name's bytes.
  @Test func thumbnailsGoIntoAnOutputFolderNamedByItsBytes() async throws {
    try folder.write("# kept\n", to: "kept.md")
    let result = try await quire("thumbnail --output NAME.d/sub kept.md")
    #expect(result.status == 0, "\(result.error)")
    let png = try await shell("test -s \"$name.d/sub/kept.md.png\"")
    #expect(png.status == 0, "no kept.md.png in the folder named by the bytes")
    #expect(!FileManager.default.fileExists(atPath: folder.file("non\u{FFFD}utf.md.d").path))
  }

  /// `browse` and `search` take a folder whose name is not UTF-8 by its bytes: they list and
  /// find the documents in that very folder, shown escaped.
  @Test func browseAndSearchTakeAFolderNamedByItsBytes() async throws {
    let made = try await shell("mkdir \"$name.d\" && printf '# a fox here\\n' > \"$name.d/a.md\"")
    try #require(made.status == 0, "\(made.error)")
    let listed = try await quire("browse NAME.d")
    #expect(listed.status == 0, "\(listed.error)")
    #expect(listed.output.hasPrefix("a.md  Markdown text"), "\(listed.output)")
    let found = try await quire("search fox --in NAME.d", environment: ["XDG_CACHE_HOME": folder.file(".cache").path])
    #expect(found.status == 0, "\(found.error)")
    #expect(found.output.hasPrefix("\(folder.url.path)/non\\xFFutf.md.d/a.md: line 1"), "\(found.output)")
  }

  /// The REPL opens the very file, says its name escaped, and `w` saves that file.
  @Test func theREPLOpensTheVeryFileAndSavesIt() async throws {
    try makeFile()
    let result = try await quire("NAME", input: "H\na\nnew\n.\nw\nf\nq\n")
    #expect(result.status == 0, "\(result.error)")
    #expect(result.error.isEmpty, "\(result.error)")
    // quire's own mode shows the name escaped (GNU ed's prints its bytes, tested below).
    #expect(result.output == "non\\xFFutf.md\n", "\(result.output)")
    #expect(folder.contents(ofNameBytes: nameBytes) == Array("# kept\nnew\n".utf8))
    // Nothing was written under another name (the lossy non\u{FFFD}utf.md).
    #expect(!FileManager.default.fileExists(atPath: folder.file("non\u{FFFD}utf.md").path))
  }

  /// As a drop-in ed, quire edits the very file and prints its name's bytes for `f`, as GNU ed
  /// does: both run the same script on a copy each, and print and write the same bytes.
  @Test(.enabled(if: Programs.isInstalled("/usr/bin/ed"), "needs GNU ed (scripts/setup installs it)"))
  func asADropInEdTheVeryFileIsEditedAndNamedAsEdNamesIt() async throws {
    try makeFile()
    let script = ",p\nf\n$a\nmore\n.\nw\nq\n"
    let quire = try await quire("-s NAME", input: script)
    #expect(quire.status == 0, "\(quire.error)")
    let byQuire = folder.contents(ofNameBytes: nameBytes)
    try folder.path(nameBytes: nameBytes).withPlatformString { try #require(unlink($0) == 0) }
    try makeFile()
    let ed = try await shell("printf '\(script.replacingOccurrences(of: "\n", with: "\\n"))' | /usr/bin/ed -s \"$name\"")
    #expect(ed.status == 0, "\(ed.error)")
    #expect(quire.outputData == ed.outputData, "quire printed \(Array(quire.outputData)), ed \(Array(ed.outputData))")
    #expect(Array(quire.outputData) == Array("# kept\n".utf8) + nameBytes + [0x0A])
    #expect(byQuire == folder.contents(ofNameBytes: nameBytes))
    #expect(byQuire == Array("# kept\nmore\n".utf8))
  }

  /// A name typed in the session (`w NAME`, `r NAME`) keeps its bytes: the input line is
  /// bytes, not text that would turn 0xFF into U+FFFD.
  @Test(arguments: ["-s", ""])
  func aNameTypedInTheSessionIsTheVeryName(_ options: String) async throws {
    try makeFile()
    let quire = try #require(ProcessRunner.quire)
    let result = try await shell(
      "printf 'r non\\377utf.md\\na\\ntyped\\n.\\nw non\\377out.md\\nq\\n' | \"\(quire.path)\" \(options)", environment: environment)
    #expect(result.status == 0, "\(result.error)")
    #expect(folder.contents(ofNameBytes: Array("non".utf8) + [0xFF] + Array("out.md".utf8)) == Array("# kept\ntyped\n".utf8))
    #expect(!FileManager.default.fileExists(atPath: folder.file("non\u{FFFD}out.md").path))
  }

  /// Text typed for `a` keeps its bytes. In quire's own mode a document holds UTF-8 text only,
  /// so a line that is not is refused and the file stays as it was (it used to go in, and the
  /// next open refused the file quire had saved); as a drop-in ed (`-s`) it goes in as typed,
  /// as GNU ed writes it.
  @Test(arguments: ["-s", ""])
  func textTypedThatIsNotUTF8IsRefusedInQuiresOwnModeAndKeptAsEdKeepsIt(_ options: String) async throws {
    try folder.write("# kept\n", to: "notes.md")
    let quire = try #require(ProcessRunner.quire)
    let result = try await shell("printf 'a\\ncaf\\351\\n.\\nw\\nq\\n' | \"\(quire.path)\" \(options) notes.md", environment: environment)
    if options == "-s" {
      #expect(result.status == 0, "\(result.error)")
      #expect(folder.contents(ofNameBytes: Array("notes.md".utf8)) == Array("# kept\ncaf".utf8) + [0xE9, 0x0A])
    } else {
      #expect(result.status != 0)
      #expect(result.error.contains("not valid UTF-8") && result.error.contains("left as it was"), "\(result.error)")
      #expect(folder.contents(ofNameBytes: Array("notes.md".utf8)) == Array("# kept\n".utf8))
    }
  }

  // The time limit only guards against a hang: with `--seconds 3600`, returning at all means
  // the command stopped on its second message.
  @Test(.timeLimit(.minutes(5))) func watchReportsChangesOfTheVeryFileNamedEscaped() async throws {
    try makeFile()
    let writer = keepAppending(to: folder.path(nameBytes: nameBytes))
    defer { writer.cancel() }
    let result = try await quire("watch --count 2 --seconds 3600 --runtime-folder .runtime NAME")
    #expect(result.status == 0, "\(result.error)")
    let lines = result.output.split(separator: "\n").map(String.init)
    #expect(lines.count == 2 && lines.allSatisfy { $0 == "changed \(folder.url.path)/non\\xFFutf.md" }, "\(result.output)")
    #expect(!FileManager.default.fileExists(atPath: folder.file("non\u{FFFD}utf.md").path))
  }

  @Test(arguments: ["missing", "dangling link"])
  func watchOfABadNameIsAnErrorNamingItEscaped(_ kind: String) async throws {
    if kind == "dangling link" { _ = try await shell("ln -s /nonexistent/x \"$name\"") }
    let result = try await quire("watch --seconds 3600 --runtime-folder .runtime NAME")
    #expect(result.status == 1)
    #expect(result.error.contains("non\\xFFutf.md"), "\(result.error)")
    #expect(result.error.contains(kind == "missing" ? "no such file" : "symbolic link"), "\(result.error)")
  }

  @Test func previewAndTheThumbnailerWriteTheVeryOutputNameNamed() async throws {
    try folder.write("# kept\n", to: "kept.md")
    let preview = try await quire("preview --output NAME kept.md")
    #expect(preview.status == 0, "\(preview.error)")
    let html = try await shell("cat \"$name\"")
    #expect(html.output.contains("<h1>kept</h1>"), "\(html.output) \(html.error)")
    // Replaced safely a second time, still that name and nothing beside it.
    #expect(try await quire("preview --format text --output NAME kept.md").status == 0)
    #expect(try await shell("cat \"$name\"").output.contains("kept"))
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted() == [".runtime", "kept.md", "non\u{FFFD}utf.md"])
    #expect(!FileManager.default.fileExists(atPath: folder.file("non\u{FFFD}utf.md").path))
    try FileManager.default.removeItem(at: folder.file("kept.md"))
    try folder.write("# kept\n", to: "kept.md")
    _ = try await shell("rm \"$name\"")
    let thumbnail = try await quire("thumbnail -s 32 kept.md NAME")
    #expect(thumbnail.status == 0, "\(thumbnail.error)")
    let png = try await shell("head -c 4 \"$name\" | od -An -tx1")
    #expect(png.output.trimmingCharacters(in: .whitespacesAndNewlines) == "89 50 4e 47", "\(png.output) \(png.error)")
  }

  @Test(arguments: ["fifo", "link"])
  func anOutputNameThatIsNotUTF8WritesThroughAFIFOOrALinkThatStaysOne(_ kind: String) async throws {
    try folder.write("# kept\n", to: "kept.md")
    if kind == "fifo" {
      // A reader (cat) copies what comes through the FIFO into a regular file.
      let result = try await shell(
        "mkfifo \"$name\" && { cat \"$name\" > got.html & } && \"$0\" preview --output \"$name\" kept.md; wait; test -p \"$name\" && echo still-fifo"
          .replacingOccurrences(of: "\"$0\"", with: "'\(try #require(ProcessRunner.quire).path)'"))
      #expect(result.output.contains("still-fifo"), "\(result.output) \(result.error)")
      #expect(try String(contentsOf: folder.file("got.html"), encoding: .utf8).contains("<h1>kept</h1>"))
    } else {
      let result = try await shell(
        "ln -s target.html \"$name\" && '\(try #require(ProcessRunner.quire).path)' preview --output \"$name\" kept.md && test -L \"$name\" && echo still-link")
      #expect(result.output.contains("still-link"), "\(result.output) \(result.error)")
      #expect(try String(contentsOf: folder.file("target.html"), encoding: .utf8).contains("<h1>kept</h1>"))
    }
  }

  @Test func anOutputNameThatIsNotUTF8InAMissingFolderIsAnErrorNamingItEscaped() async throws {
    try folder.write("# kept\n", to: "kept.md")
    let result = try await quire("preview --output gone/NAME kept.md")
    #expect(result.status == 1)
    #expect(result.error.contains("non\\xFFutf.md"), "\(result.error)")
    #expect(result.error.contains("does not exist"), "\(result.error)")
  }

  /// A command given the name (`NAME`) that reads the file, and what it must print.
  struct ReadingCommand: Sendable, CustomTestStringConvertible {
    var command: String
    var outputStart = ""
    var outputContains: [String] = []
    /// A file it makes, inside the test's folder.
    var makes: String?
    var testDescription: String { command }
  }

  static let readingCommands = [
    ReadingCommand(command: "preview NAME", outputContains: ["kept", "<title>non\\xFFutf.md</title>"]),
    ReadingCommand(command: "preview --format text NAME", outputContains: ["kept"]),
    // The type from the name, and its content was read.
    ReadingCommand(command: "type NAME", outputStart: "non\\xFFutf.md: net.daringfireball.markdown", outputContains: [", 7 bytes read"]),
    ReadingCommand(command: "thumbnail --jobs 1 --output out NAME", outputContains: ["non\\xFFutf.md -> "], makes: "out/non\\xFFutf.md.png"),
  ]

  /// Each command reads the very file named and names it escaped.
  @Test(arguments: readingCommands)
  func aCommandReadsTheVeryFileNamed(_ reading: ReadingCommand) async throws {
    try makeFile()
    let result = try await quire(reading.command)
    #expect(result.status == 0, "\(result.output) \(result.error)")
    #expect(result.output.hasPrefix(reading.outputStart), "\(result.output.prefix(300))")
    for part in reading.outputContains { #expect(result.output.contains(part), "\(result.output.prefix(300))") }
    if let made = reading.makes { #expect(FileManager.default.fileExists(atPath: folder.file(made).path), "\(made)") }
  }

  @Test func copyPutsTheVeryFileOnThePasteboard() async throws {
    try makeFile()
    let copied = try await quire("copy NAME")
    #expect(copied.status == 0, "\(copied.error)")
    let pasted = try await quire("paste")
    #expect(pasted.output == "# kept\n", "\(pasted.error)")
    let html = try await quire("paste --type public.html")
    #expect(html.output.contains("<h1>kept</h1>"), "\(html.output) \(html.error)")
    // The file's URL escapes the byte, as GLib does; it names this file, not a lossy one.
    let uri = try await quire("paste --type public.file-url")
    #expect(uri.output.hasSuffix("/non%FFutf.md"), "\(uri.output) \(uri.error)")
    let file = try await quire("paste --type net.daringfireball.markdown --output pasted.md")
    #expect(file.status == 0, "\(file.error)")
    #expect(try String(contentsOf: folder.file("pasted.md"), encoding: .utf8) == "# kept\n")
    // An output name that is not UTF-8 is written as that very name.
    let byName = try await quire("paste --type net.daringfireball.markdown --output \"pasted$(printf '\\377').md\"")
    #expect(byName.status == 0, "\(byName.error)")
    let read = try await shell("cat \"pasted$(printf '\\377').md\"")
    #expect(read.output == "# kept\n", "\(read.output) \(read.error)")
    #expect(!FileManager.default.fileExists(atPath: folder.file("pasted\u{FFFD}.md").path))
  }

  @Test func browseListsSuchANameEscaped() async throws {
    try makeFile(in: "docs")
    try folder.write("# fine\n", to: "docs/fine.md")
    let result = try await quire("browse docs")
    #expect(result.status == 0, "\(result.error)")
    let lines = result.output.split(separator: "\n")
    #expect(lines.count == 2, "\(result.output)")
    #expect(lines.first?.hasPrefix("fine.md  ") == true, "\(result.output)")
    #expect(lines.last?.hasPrefix("non\\xFFutf.md  Markdown text  7 bytes") == true, "\(result.output)")
    let json = try await quire("browse --json docs")
    #expect(json.output.contains("\"name\" : \"non\\\\xFFutf.md\""), "\(json.output)")
  }

  @Test func searchFindsSuchAFileByItsTextAndNamesItEscaped() async throws {
    try makeFile(in: "docs")
    try folder.write("# other\n", to: "docs/other.md")
    let result = try await quire("search --in docs kept", environment: ["XDG_CACHE_HOME": folder.file(".cache").path])
    #expect(result.status == 0, "\(result.error)")
    #expect(result.output.hasPrefix("\(folder.url.path)/docs/non\\xFFutf.md: line 1\n"), "\(result.output)")
    let json = try await quire("search --json --in docs kept", environment: ["XDG_CACHE_HOME": folder.file(".cache").path])
    #expect(json.output.contains("\"url\" : \"file://\(folder.url.path)/docs/non%FFutf.md\""), "\(json.output)")
  }

  @Test func thumbnailerFormDrawsTheVeryFileNamed() async throws {
    try makeFile()
    let result = try await quire("thumbnail -s 64 NAME out.png")
    #expect(result.status == 0, "\(result.error)")
    let png = try Data(contentsOf: folder.file("out.png"))
    #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
    // Thumb::URI is GLib's URI of the bytes: the cache key GNOME computes for this file.
    #expect(String(decoding: png, as: UTF8.self).contains("non%FFutf.md"))
    // The file:// URI form GNOME passes (%u) names the same file.
    let byURI = try await quire("thumbnail -s 32 file://$PWD/non%FFutf.md uri.png")
    #expect(byURI.status == 0, "\(byURI.error)")
    #expect(FileManager.default.fileExists(atPath: folder.file("uri.png").path))
  }

  @Test func thumbnailOfAFolderDrawsSuchANameInsteadOfSkippingIt() async throws {
    try makeFile(in: "docs")
    try folder.write("# fine\n", to: "docs/fine.md")
    let result = try await quire(["thumbnail", "--jobs", "1", "--output", "out", "docs"])
    #expect(result.status == 0, "\(result.output) \(result.error)")
    #expect(result.output.contains("2 made"), "\(result.output)")
    // Shown escaped, and drawn under the escaped name (a URL cannot hold the byte).
    #expect(result.output.contains("/docs/non\\xFFutf.md -> "), "\(result.output)")
    #expect(FileManager.default.fileExists(atPath: folder.file("out/non\\xFFutf.md.png").path))
    // The cache: named by the MD5 of GLib's URI of the bytes, as GNOME names it.
    let cached = try await quire(["thumbnail", "--jobs", "1", "--size", "128", "--cache-dir", "cache", "--settle-time", "0", "docs"])
    #expect(cached.status == 0, "\(cached.output) \(cached.error)")
    let uri = "file://" + folder.url.path + "/docs/non%FFutf.md"
    #expect(FileManager.default.fileExists(atPath: folder.file("cache/normal/\(FreedesktopNames.md5Hex(uri)).png").path), "\(cached.output)")
  }
}

/// Finding 10: a subfolder the user cannot list. Root lists everything, so the batch runs as
/// `nobody` through setpriv(1).
@Suite("Hostile paths: folders that cannot be listed")
final class UnreadableFolderTests: FolderSuite {
  deinit { chmod(folder.file("docs/locked").path, 0o755) }

  static let setpriv = Programs.system("setpriv")

  @Test(.enabled(if: geteuid() == 0 && setpriv != nil, "runs quire as nobody, which needs root and setpriv(1)"))
  func anUnreadableSubfolderIsAFailedEntryNamingIt() async throws {
    let quire = try #require(ProcessRunner.quire)
    let setpriv = try #require(Self.setpriv)
    try FileManager.default.createDirectory(at: folder.file("docs/locked"), withIntermediateDirectories: true)
    try FileManager.default.createDirectory(at: folder.file("out"), withIntermediateDirectories: true)
    try folder.write("# seen\n", to: "docs/seen.md")
    try folder.write("# hidden\n", to: "docs/locked/hidden.md")
    for path in [folder.url.path, folder.file("docs").path, folder.file("out").path] { chmod(path, 0o777) }
    chmod(folder.file("docs/seen.md").path, 0o644)
    chmod(folder.file("docs/locked").path, 0o000)
    // A copy nobody can reach: the build folder may sit below a folder only root may enter
    // (a clone under a 0700 temporary folder).
    let copy = folder.file("bin/quire")
    try FileManager.default.createDirectory(at: copy.deletingLastPathComponent(), withIntermediateDirectories: true)
    try FileManager.default.copyItem(at: quire, to: copy)
    for path in [copy.deletingLastPathComponent().path, copy.path] { chmod(path, 0o755) }
    let result = try await ProcessRunner.run(
      setpriv,
      ["--reuid=65534", "--regid=65534", "--clear-groups", copy.path, "thumbnail", "--jobs", "1", "--output", "out", "docs"],
      in: folder.url, input: "", environment: ["HOME": folder.url.path, "XDG_CACHE_HOME": folder.file("out").path])
    #expect(result.status == 1, "\(result.output)\(result.error)")
    #expect(result.output.contains("locked"), "\(result.output)")
    #expect(result.output.contains("Cannot read the folder"), "\(result.output)")
    #expect(result.output.contains("1 made"), "\(result.output)")
  }
}

/// What fuzz-ed found (docs/fuzzing.md), kept as tests.
@Suite("Fuzzing regressions: ed")
final class FuzzedEdRegressionTests: FolderSuite, RunsQuire {

  /// `s/x*/Y/N` with an empty match that is not the Nth looped forever on the same empty match.
  /// The limit only stops a hang: a whole `scripts/test` on a loaded machine (load 17 on 2 cores)
  /// took these over 1 minute to be scheduled and run; alone they take under a second.
  @Test(
    .enabled(if: ProcessRunner.ed != nil, "GNU ed is not installed (apt-get install ed)"), .timeLimit(.minutes(10)),
    arguments: ["s/x*/Y/2\n,p\nQ\n", "s/x*/Y/3\n,p\nQ\n", "s/x*/Y/9\n,p\nQ\n", "s/b*/Y/2\n,p\nQ\n"])
  func anEmptyMatchThatIsNotTheNthStepsOnAsEdDoes(_ script: String) async throws {
    try await ParityRun(script, ed: ["-s", "f.txt"], files: ["f.txt": Data("abc\n".utf8)]).expectSame()
  }

  /// An address whose offsets overflow Int trapped (the process died) instead of failing.
  @Test func anAddressThatOverflowsIsAnErrorNotACrash() async throws {
    try folder.write("abc\n", to: "f.txt")
    let result = try await quire(["-s", "f.txt"], input: "-4-4-8-4--44333333323333-" + String(repeating: "7", count: 40) + "p\nQ\n")
    #expect(result.status == 1 || result.status == 0)
    #expect(!result.error.contains("Fatal error") && !result.error.contains("overflow"))
  }
}
