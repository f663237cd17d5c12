import Foundation
import QuireTestSupport
import Testing

/// Runs the real `quire` executable, built next to the test bundle, with argument arrays.
struct QuireExecutable {
  let url: URL
  var environment: [String: String]

  /// `quire` beside the test bundle, with `XDG_RUNTIME_DIR` set to `runtime`, no
  /// `WAYLAND_DISPLAY` or `QUIRE_PASTEBOARD`, and, unless `display` is given, no `DISPLAY`: a
  /// desktop the tests run in must not turn these pasteboards into its clipboard.
  init?(runtime: URL, display: String? = nil) {
    guard let quire = Programs.quire else { return nil }
    url = quire
    var environment = ProcessInfo.processInfo.environment
    environment["XDG_RUNTIME_DIR"] = runtime.path
    environment["DISPLAY"] = display
    environment["WAYLAND_DISPLAY"] = nil
    environment["QUIRE_PASTEBOARD"] = nil
    self.environment = environment
  }

  /// Runs to the end (killed after `timeLimit`, so a hang fails the test) and returns status and output.
  func run(_ arguments: [String], timeLimit: Duration = .seconds(60)) async throws -> ProcessResult {
    try await ChildProcess.run(url, arguments, environment: environment, timeLimit: timeLimit)
  }

  /// Copies `text` with one `quire copy --text` and pastes it with another `quire paste`,
  /// expecting both to succeed and the paste to give back the text.
  func expectCopiedTextIsPasted(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    let copied = try await run(["copy", "--text", text])
    #expect(copied.status == 0, "\(copied.error)", sourceLocation: sourceLocation)
    let pasted = try await run(["paste"])
    #expect(pasted.status == 0, "\(pasted.error)", sourceLocation: sourceLocation)
    #expect(pasted.output == text, sourceLocation: sourceLocation)
  }

  /// Starts `quire ARGUMENTS --promise`, which serves its promises until its input closes, and
  /// waits (up to 30 s) until it says "ready": the items are on the pasteboard and being served.
  func startPromising(_ arguments: [String]) async throws -> RunningProcess {
    let process = try ChildProcess.start(url, arguments + ["--promise"], environment: environment, discardingErrors: true)
    guard await process.waitForLine(startingWith: "ready") != nil else {
      process.kill()
      throw TestFailure("quire \(arguments) --promise never said ready: \(process.lines)")
    }
    return process
  }
}

@Suite("quire copy and quire paste across processes")
final class CopyPasteProcessTests: FolderSuite {
  init() throws {
    try super.init()
    try folder.privateFolder("runtime")
  }

  var runtime: URL { folder.file("runtime") }
  var quire: QuireExecutable? { QuireExecutable(runtime: runtime) }

  var general: URL { runtime.appendingPathComponent("quire/pasteboards/general") }
  /// The files holding representations in the pasteboard folder (none while all are promised).
  func storedRepresentations() throws -> [String] {
    try FileManager.default.subpathsOfDirectory(atPath: general.path).filter { $0.contains("/") }
  }
  func executable(sourceLocation: SourceLocation = #_sourceLocation) throws -> QuireExecutable {
    try #require(quire, "the quire executable is not built beside the tests (run 'swift build --build-tests')", sourceLocation: sourceLocation)
  }

  @Test func textCopiedInOneProcessIsPastedInAnother() async throws {
    try await executable().expectCopiedTextIsPasted("hello from one process ✓")
  }

  @Test func markdownTextIsOfferedAsMarkdownHTMLAndPlainText() async throws {
    let quire = try executable()
    let copied = try await quire.run(["copy", "--text", "# Title\n\n**bold**", "--type", "net.daringfireball.markdown"])
    #expect(copied.status == 0, "\(copied.error)")
    #expect(try await quire.run(["paste", "--type", "public.html"]).output == "<h1>Title</h1>\n<p><strong>bold</strong></p>\n")
    #expect(try await quire.run(["paste", "--type", "public.plain-text"]).output == "Title\n\nbold")
    #expect(try await quire.run(["paste"]).output == "# Title\n\n**bold**")  // the first text: Markdown
    #expect(try await quire.run(["copy", "--text", "x", "--type", "public.png"]).status == 2)
  }

  @Test func aMissingRuntimeFolderIsAClearError() async throws {
    guard let quire = QuireExecutable(runtime: folder.file("no-such-runtime")) else {
      Issue.record("the quire executable is not built beside the tests")
      return
    }
    let outcome = try await quire.run(["paste"])
    #expect(outcome.status == 1)
    #expect(outcome.error.contains("XDG_RUNTIME_DIR"))
  }

  @Test func aPromiseIsFetchedFromTheLiveProcessThenMaterializedWhenItExits() async throws {
    let quire = try executable()
    let notes = try folder.write("# Plans\n\nShip the *pasteboard*.\n", to: "notes.md")
    let promiser = try await quire.startPromising(["copy", notes.path])
    // Only promises are on disk: the representations come from the live process.
    #expect(try storedRepresentations().isEmpty)
    #expect(try FileManager.default.contentsOfDirectory(atPath: general.path).contains { $0.hasSuffix(".sock") })

    let html = try await quire.run(["paste", "--type", "public.html"])
    #expect(html.status == 0, "\(html.error)")
    #expect(html.output == "<h1>Plans</h1>\n<p>Ship the <em>pasteboard</em>.</p>\n")
    let plain = try await quire.run(["paste", "--type", "public.plain-text"])
    #expect(plain.output == "Plans\n\nShip the pasteboard.")
    #expect(try storedRepresentations().isEmpty, "the paste did not come from the live process")

    promiser.closeInput()
    #expect(await promiser.waitForExit() == 0)
    #expect(try storedRepresentations().count == 5)  // markdown, HTML, plain text, file URL, URL
    #expect(!(try FileManager.default.contentsOfDirectory(atPath: general.path).contains { $0.hasSuffix(".sock") }))
    try FileManager.default.removeItem(at: notes)  // the pasteboard keeps its own copy
    let afterExit = try await quire.run(["paste", "--type", "public.html"])
    #expect(afterExit.output == html.output)
    let output = folder.file("pasted.md")
    let written = try await quire.run(["paste", "--type", "net.daringfireball.markdown", "--output", output.path])
    #expect(written.status == 0, "\(written.error)")
    #expect(try String(contentsOf: output, encoding: .utf8) == "# Plans\n\nShip the *pasteboard*.\n")
  }

  @Test func aPromiserThatDiesWithoutMaterializingGivesAClearError() async throws {
    let quire = try executable()
    let promiser = try await quire.startPromising(["copy", "--text", "gone soon"])
    promiser.kill()
    _ = await promiser.waitForExit()
    let pasted = try await quire.run(["paste"])
    #expect(pasted.status == 1)
    #expect(pasted.error.contains("promised by process \(promiser.pid), which exited"))
  }

  @Test func exitCodes() async throws {
    let quire = try executable()
    let empty = try await quire.run(["paste"])
    #expect(empty.status == 1)
    #expect(empty.error.contains("empty"))
    #expect(try await quire.run(["copy"]).status == 2)
    #expect(try await quire.run(["copy", "a.txt", "--text", "b"]).status == 2)
    #expect(try await quire.run(["paste", "--type", "com.example.no-such-type"]).status == 2)
    let missing = try await quire.run(["copy", folder.file("missing.txt").path])
    #expect(missing.status == 1)
    #expect(missing.error.contains("missing.txt'") && missing.error.contains("no such file"))
    #expect(try await quire.run(["copy", "--text", "x", "--pasteboard", "../escape"]).status == 1)
    #expect(try await quire.run(["copy", "--text", "words"]).status == 0)
    let wrongType = try await quire.run(["paste", "--type", "public.png"])
    #expect(wrongType.status == 1)
    #expect(wrongType.error.contains("public.plain-text"))
  }

  @Test func aPasteboardFolderWithLoosePermissionsIsRefused() async throws {
    let quire = try executable()
    #expect(try await quire.run(["copy", "--text", "x"]).status == 0)
    chmod(general.path, 0o755)
    let refused = try await quire.run(["paste"])
    #expect(refused.status == 1)
    #expect(refused.error.contains("chmod 700"))
  }

  @Test func aGigabyteFileCrossesProcessesWithoutBeingHeldInMemory() async throws {
    let quire = try executable()
    let big = folder.file("big.bin")
    try makeSparseFile(big, size: 1 << 30)
    #expect(try await quire.run(["copy", big.path]).status == 0)
    let pasted = folder.file("pasted.bin")
    let outcome = try await quire.run(["paste", "--type", "public.data", "--output", pasted.path])
    #expect(outcome.status == 0, "\(outcome.error)")
    #expect(try FileManager.default.attributesOfItem(atPath: pasted.path)[.size] as? Int64 == 1 << 30)
    #expect(try markers(of: pasted) == ("HEAD", "TAIL"))
    // The largest child this test process has waited for (every child is a small quire).
    var usage = rusage()
    getrusage(RUSAGE_CHILDREN.rawValue, &usage)
    #expect(usage.ru_maxrss * 1024 < 400 << 20, "a quire process peaked at \(usage.ru_maxrss >> 10) MiB")
  }
}
