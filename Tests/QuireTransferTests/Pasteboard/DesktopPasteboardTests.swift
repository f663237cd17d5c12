import Foundation
import QuireSystem
import QuireTestSupport
import QuireTransfer
import QuireTypes
import Synchronization
import Testing

/// An `Xvfb` X server on a display of its own, started for one test and stopped after it,
/// and the real clipboard tools (`xclip`, `xsel`) pointed at it.
final class VirtualDisplay: Sendable {
  static let xvfb = "/usr/bin/Xvfb"
  static let xclip = "/usr/bin/xclip"
  static let xsel = "/usr/bin/xsel"
  static let isAvailable = [xvfb, xclip, xsel].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
  static let missing = "Xvfb, xclip or xsel is not installed: scripts/setup installs xvfb, xclip and xsel"

  let name: String
  let number: Int
  private let server: RunningProcess
  /// A folder for the tools' HOME (xsel writes a log there) and their output.
  let scratch: TemporaryFolder
  private static let nextNumber = Atomic<Int>(0)
  private let stopped = Atomic<Bool>(false)

  /// Starts `Xvfb` on the first free display number of a range this test process keeps to
  /// itself, and returns once it accepts clients (it writes its number to `-displayfd` then).
  init() async throws {
    scratch = try TemporaryFolder(prefix: "quire-x11")
    let base = 300 + Int(getpid() % 500) * 40
    for _ in 0..<40 {
      let number = base + Self.nextNumber.add(1, ordering: .relaxed).oldValue % 40
      if FileManager.default.fileExists(atPath: "/tmp/.X\(number)-lock") { continue }
      let process = try ChildProcess.start(
        URL(fileURLWithPath: Self.xvfb), [":\(number)", "-displayfd", "1", "-nolisten", "tcp", "-screen", "0", "320x200x24"], environment: [:],
        discardingErrors: true)
      // Its number on a line of its own once it accepts clients; the end of its output when
      // it could not start (the display was taken meanwhile).
      if await process.output.waitForLine(within: .seconds(30), { $1 == "\(number)" }) != nil {
        self.number = number
        name = ":\(number)"
        server = process
        return
      }
      await process.killAndAwaitExit()
    }
    scratch.remove()
    throw CocoaError(.executableLoad)
  }

  /// Stops the server; every client of it (background `xclip`s and `quire`s) then ends.
  func stop() {
    guard !stopped.exchange(true, ordering: .relaxed) else { return }
    // SIGTERM, not SIGKILL: the server removes its /tmp/.X*-lock on the way out.
    server.kill(SIGTERM)
    server.finish()
    scratch.remove()
  }

  struct Outcome: Sendable {
    var status: Int32
    var output: Data
    var text: String { String(decoding: output, as: UTF8.self) }
  }

  /// The environment a clipboard tool runs in against this display.
  var toolEnvironment: [String: String] { ["DISPLAY": name, "PATH": "/usr/bin:/bin", "HOME": scratch.url.path] }

  /// Runs `tool` against this display with `input` (a file) on standard input, to its end
  /// (its output goes through a file, so an `xclip` server it leaves behind cannot hold the
  /// test). Killed after `timeout`, so a hang fails the test instead of stopping the suite.
  func run(_ tool: String, _ arguments: [String], input: URL? = nil, timeout: TimeInterval = 60) async throws -> Outcome {
    let result = try await ChildProcess.run(
      URL(fileURLWithPath: tool), arguments, environment: toolEnvironment, input: try input.map { try Data(contentsOf: $0) } ?? Data(),
      timeLimit: .seconds(timeout))
    return Outcome(status: result.status, output: result.outputData)
  }

  /// The targets the clipboard's owner lists (`xclip -o -t TARGETS`), empty when none.
  func targets(selection: String = "clipboard") async throws -> [String] {
    let outcome = try await run(Self.xclip, ["-o", "-selection", selection, "-t", "TARGETS"])
    return outcome.status == 0 ? outcome.text.split(separator: "\n").map(String.init) : []
  }

  /// Waits (polling, up to ``patience``; it returns as soon as it is there) until the
  /// selection's owner lists `target`.
  func waitForTarget(_ target: String, selection: String = "clipboard") async throws -> Bool {
    try await eventually(every: .milliseconds(20)) { try await targets(selection: selection).contains(target) }
  }
}

/// Counts each representation's loads, so tests see what was loaded and what never was.
final class LoadCounter: Sendable {
  private let counts = Mutex<[String: Int]>([:])
  func count(_ identifier: String) -> Int { counts.withLock { $0[identifier] ?? 0 } }
  func provider(_ representations: [(UTType, Data)]) -> ItemProvider {
    let provider = ItemProvider(suggestedName: "counted")
    for (type, data) in representations {
      provider.registerDataRepresentation(for: type) {
        self.counts.withLock { $0[type.identifier, default: 0] += 1 }
        return data
      }
    }
    return provider
  }
}

@Suite(
  "Pasteboard on an X display: the desktop clipboard, with Xvfb, xclip and xsel",
  .enabled(if: VirtualDisplay.isAvailable, Comment(rawValue: VirtualDisplay.missing)))
final class DesktopPasteboardTests: FolderSuite {
  let display: VirtualDisplay
  var runtime: URL { folder.file("runtime") }
  var root: URL { folder.file("pasteboards") }

  init() async throws {
    display = try await VirtualDisplay()
    try super.init()
    try folder.privateFolder("runtime")
  }
  deinit {
    display.stop()
  }

  func board(_ name: String = Pasteboard.generalName) throws -> Pasteboard {
    try Pasteboard(name: name, rootFolder: root, display: display.name)
  }
  func quire(sourceLocation: SourceLocation = #_sourceLocation) throws -> QuireExecutable {
    try #require(
      QuireExecutable(runtime: runtime, display: display.name),
      "the quire executable is not built beside the tests (run 'swift build --build-tests')", sourceLocation: sourceLocation)
  }
  /// What `quire` processes keep in the folder store: no state, socket or data while the X
  /// server carries everything (the empty folder and its lock file are made on first use).
  var folderStore: [String] {
    let all = (try? FileManager.default.subpathsOfDirectory(atPath: runtime.appendingPathComponent("quire/pasteboards").path)) ?? []
    return all.filter { $0 != "general" && $0 != "general/lock" }
  }

  // Acceptance 1: quire copy note.md → xclip reads HTML, plain text and the target list.
  @Test func quireCopyOfMarkdownIsPastedByXclipAsHTMLPlainTextAndMarkdown() async throws {
    let note = try folder.write("# Plans\n\nShip the *clipboard*.\n", to: "note.md")
    let copied = try await quire().run(["copy", note.path])
    #expect(copied.status == 0, "\(copied.error)")
    let targets = try await display.targets()
    #expect(Array(targets.prefix(3)) == ["text/markdown", "text/html", "text/plain"])
    for target in ["UTF8_STRING", "STRING", "TEXT", "text/plain;charset=utf-8", "text/uri-list", "TIMESTAMP", "MULTIPLE", "SAVE_TARGETS"] {
      #expect(targets.contains(target), "\(target) is not offered: \(targets)")
    }
    let html = try await display.run(VirtualDisplay.xclip, ["-o", "-selection", "clipboard", "-t", "text/html"])
    #expect(html.status == 0)
    #expect(html.text == "<h1>Plans</h1>\n<p>Ship the <em>clipboard</em>.</p>\n")
    #expect(try await display.run(VirtualDisplay.xclip, ["-o", "-selection", "clipboard", "-t", "text/plain"]).text == "Plans\n\nShip the clipboard.")
    #expect(try await display.run(VirtualDisplay.xclip, ["-o", "-selection", "clipboard", "-t", "text/markdown"]).text == "# Plans\n\nShip the *clipboard*.\n")
    #expect(try await display.run(VirtualDisplay.xsel, ["--clipboard", "--output"]).text == "Plans\n\nShip the clipboard.")
    #expect(try await display.run(VirtualDisplay.xclip, ["-o", "-selection", "clipboard", "-t", "text/uri-list"]).text == "\(note.absoluteString)\r\n")
    #expect(folderStore.isEmpty, "the copy went through the folder: \(folderStore)")
  }

  // Acceptance 2: xclip copies a PNG, quire paste writes the same bytes.
  @Test func anImageCopiedByXclipIsPastedByQuireByteForByte() async throws {
    var bytes = pngHeader()
    bytes.append(Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }))
    let picture = folder.file("pic.png")
    try bytes.write(to: picture)
    #expect(try await display.run(VirtualDisplay.xclip, ["-i", "-selection", "clipboard", "-t", "image/png", picture.path]).status == 0)
    #expect(try await display.waitForTarget("image/png"))
    let output = folder.file("pasted.png")
    let pasted = try await quire().run(["paste", "--type", "public.png", "--output", output.path])
    #expect(pasted.status == 0, "\(pasted.error)")
    #expect(try Data(contentsOf: output) == bytes)
  }

  // Acceptance 2: 50 MB cross in both directions in INCR chunks.
  @Test func fiftyMegabytesCrossInBothDirections() async throws {
    let size = 50 << 20
    var big = Data(count: size)
    big.withUnsafeMutableBytes { (buffer: UnsafeMutableRawBufferPointer) in
      for index in stride(from: 0, to: size, by: 4096) { buffer[index] = UInt8(truncatingIfNeeded: index >> 12) }
    }
    big.replaceSubrange(0..<4, with: Data("HEAD".utf8))
    big.replaceSubrange((size - 4)..<size, with: Data("TAIL".utf8))

    // Out: Quire owns the selection, xclip reads it.
    let counter = LoadCounter()
    try board().setItemProviders([counter.provider([(.png, big)])])
    let read = try await display.run(VirtualDisplay.xclip, ["-o", "-selection", "clipboard", "-t", "image/png"])
    #expect(read.status == 0)
    #expect(read.output.count == size)
    #expect(read.output == big)

    // In: xclip owns it, Quire reads it.
    let file = folder.file("big.png")
    try big.write(to: file)
    #expect(try await display.run(VirtualDisplay.xclip, ["-i", "-selection", "clipboard", "-t", "image/png", file.path]).status == 0)
    #expect(try await display.waitForTarget("image/png"))
    let provider = try #require(try board().itemProviders.first)
    #expect(provider.registeredTypeIdentifiers == ["public.png"])
    let pasted = try await provider.loadDataRepresentation(for: .png)
    #expect(pasted.count == size)
    #expect(pasted == big)
  }

  // Acceptance 3: only what a client asks for is loaded; an unknown target is refused at once.
  @Test func theOwnerLoadsOnlyWhatIsAskedForAndRefusesWhatItCannotMake() async throws {
    let counter = LoadCounter()
    let provider = counter.provider([
      (.markdown, Data("# Hi".utf8)), (.html, Data("<h1>Hi</h1>".utf8)), (.plainText, Data("Hi".utf8)), (.png, pngHeader()),
    ])
    try board().setItemProviders([provider])
    #expect(try await display.targets().contains("image/png"))
    let html = try await display.run(VirtualDisplay.xclip, ["-o", "-selection", "clipboard", "-t", "text/html"])
    #expect(html.text == "<h1>Hi</h1>")
    let text = try await display.run(VirtualDisplay.xsel, ["--clipboard", "--output"])
    #expect(text.text == "Hi")
    #expect(counter.count(UTType.html.identifier) == 1)
    #expect(counter.count(UTType.plainText.identifier) == 1)
    #expect(counter.count(UTType.markdown.identifier) == 0)
    #expect(counter.count(UTType.png.identifier) == 0)

    let refused = try await display.run(VirtualDisplay.xclip, ["-o", "-selection", "clipboard", "-t", "application/x-never-offered"], timeout: 30)
    #expect(refused.status != 0)
    #expect(refused.output.isEmpty)
    // A representation whose handler fails is refused too, and the owner keeps serving.
    let failing = ItemProvider()
    failing.registerDataRepresentation(for: .html) { throw QuireError(.fileMissing, "gone") }
    failing.registerDataRepresentation(for: .plainText) { Data("still here".utf8) }
    try board().setItemProviders([failing])
    #expect(try await display.run(VirtualDisplay.xclip, ["-o", "-selection", "clipboard", "-t", "text/html"], timeout: 30).status != 0)
    #expect(try await display.run(VirtualDisplay.xclip, ["-o", "-selection", "clipboard", "-t", "UTF8_STRING"]).text == "still here")
  }

  // Acceptance 4: one quire copies, another pastes, through the X server.
  @Test func twoQuireProcessesGoThroughTheXServerNotTheFolder() async throws {
    let quire = try quire()
    try await quire.expectCopiedTextIsPasted("from one quire to another ✓")
    #expect(folderStore.isEmpty, "the copy went through the folder: \(folderStore)")
    // xclip sees the same clipboard.
    #expect(try await display.run(VirtualDisplay.xclip, ["-o", "-selection", "clipboard"]).text == "from one quire to another ✓")
    // The background server ends once another program takes the clipboard.
    #expect(try await display.run(VirtualDisplay.xclip, ["-i", "-selection", "clipboard"], input: try folder.write("taken", to: "taken.txt")).status == 0)
    let after = try await quire.run(["paste"])
    #expect(after.output == "taken")
  }

  /// Issue 29: the background server that holds the clipboard gets `--text` through a pipe,
  /// so the text is in no process's arguments (`ps`, /proc/PID/cmdline) while it serves.
  @Test func copiedTextIsInNoProcessArguments() async throws {
    let quire = try quire()
    let secret = "s3cret-\(UUID().uuidString)"
    let copied = try await quire.run(["copy", "--text", secret])
    #expect(copied.status == 0, "\(copied.error)")
    #expect(try await display.run(VirtualDisplay.xclip, ["-o", "-selection", "clipboard"]).text == secret)
    var holders: [String] = []
    for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] where Int(entry) != nil {
      guard let arguments = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline") else { continue }
      if String(decoding: arguments, as: UTF8.self).contains(secret) { holders.append(entry) }
    }
    #expect(holders.isEmpty, "processes \(holders) show the copied text in their arguments")
  }

  @Test func losingTheSelectionIsNoticedAndChangesTheCount() async throws {
    let pasteboard = try board()
    let start = try pasteboard.changeCount
    try pasteboard.setString("mine")
    #expect(try pasteboard.changeCount == start + 1)
    #expect(try await pasteboard.string() == "mine")
    #expect(try await display.run(VirtualDisplay.xsel, ["--clipboard", "--input"], input: try folder.write("theirs", to: "theirs.txt")).status == 0)
    await pasteboard.waitUntilItemsAreReplaced()
    #expect(try pasteboard.changeCount == start + 2)
    #expect(try await pasteboard.string() == "theirs")
    // xsel offers STRING and TEXT, not UTF8_STRING: Latin-1 plain text.
    #expect(try pasteboard.types == ["public.plain-text"])
  }

  @Test func targetsOfAnotherProgramBecomeTypesUnknownOnesDynamic() async throws {
    let data = folder.file("custom.bin")
    try Data([1, 2, 3]).write(to: data)
    #expect(try await display.run(VirtualDisplay.xclip, ["-i", "-selection", "clipboard", "-t", "application/x-quire-test-custom", data.path]).status == 0)
    #expect(try await display.waitForTarget("application/x-quire-test-custom"))
    let provider = try #require(try board().itemProviders.first)
    let identifier = try #require(provider.registeredTypeIdentifiers.first)
    #expect(identifier.hasPrefix("dyn."))
    let type = try #require(UTType(identifier))
    #expect(type.preferredMIMEType == "application/x-quire-test-custom")
    #expect(try await provider.loadDataRepresentation(for: type) == Data([1, 2, 3]))
  }

  @Test func thePrimaryPasteboardIsThePrimarySelection() async throws {
    try board(Pasteboard.primaryName).setString("selected text")
    #expect(try await display.run(VirtualDisplay.xsel, ["--primary", "--output"]).text == "selected text")
    #expect(try await display.run(VirtualDisplay.xclip, ["-o", "-selection", "clipboard"]).status != 0, "CLIPBOARD got the PRIMARY text")
    #expect(try board().displayName == display.name)
    #expect(try board("notes").displayName == nil)
  }

  @Test func aCopyServerStoppedWithoutAClipboardManagerLeavesItsItemsForQuire() async throws {
    let quire = try quire()
    let server = try ChildProcess.start(quire.url, ["copy", "--text", "kept for quire", "--foreground"], environment: quire.environment)
    #expect(try await display.waitForTarget("UTF8_STRING"))
    server.kill(SIGTERM)  // hand over, then exit
    #expect(await server.waitForExit() == 0)
    #expect(try await display.targets().isEmpty, "the selection outlived its owner")
    let pasted = try await quire.run(["paste"])
    #expect(pasted.status == 0, "\(pasted.error)")
    #expect(pasted.output == "kept for quire")
  }

  @Test func anOwnerThatStopsAnsweringEndsTheReadWithATimeoutNotAHang() async throws {
    // A real xclip holding the clipboard in the foreground, then stopped: it owns the
    // selection but answers nothing.
    // Quire is not involved until xclip owns the clipboard: an xclip that did not come to own
    // it (seen once in a loaded full run) is replaced, up to three times, before the test fails.
    var owner: RunningProcess?
    var owns = false
    for _ in 0..<3 where !owns {
      await owner?.killAndAwaitExit()
      let started = try ChildProcess.start(
        URL(fileURLWithPath: VirtualDisplay.xclip), ["-quiet", "-i", "-selection", "clipboard"], environment: display.toolEnvironment,
        discardingErrors: true)
      started.write("frozen")
      started.closeInput()
      owner = started
      owns = try await display.waitForTarget("UTF8_STRING")
    }
    let stopped = try #require(owner)
    defer { stopped.kill() }
    try #require(owns, "xclip never came to own the clipboard")
    stopped.kill(SIGSTOP)
    let pasteboard = try board()
    expectQuireError(.timedOut, reasonContains: "CLIPBOARD") { try pasteboard.itemProviders }
    // The connection keeps working for other selections.
    try board(Pasteboard.primaryName).setString("still serving")
    #expect(try await display.run(VirtualDisplay.xsel, ["--primary", "--output"]).text == "still serving")
  }

  @Test func anXServerThatGoesAwayMakesLaterUsesFailClearly() async throws {
    let pasteboard = try board()
    try pasteboard.setString("before the server went away")
    display.stop()
    // The connection's thread notices the closed socket; every later use fails, none hangs.
    let failed = await eventually { (try? pasteboard.changeCount) == nil }
    #expect(failed)
    expectQuireError(.fileMissing, reasonContains: "X display", "was lost") { try pasteboard.setString("after") }
    await pasteboard.waitUntilItemsAreReplaced()  // returns: nothing is held any more
  }

  @Test func aDisplayWithoutAServerIsAClearError() async throws {
    var quire = try quire()
    quire.environment["DISPLAY"] = ":\(Int(display.name.dropFirst()) ?? 0)9"  // nothing listens there
    let outcome = try await quire.run(["paste"])
    #expect(outcome.status == 1)
    #expect(outcome.error.contains("no X server answers"))
    #expect(outcome.error.contains("unset DISPLAY"))
  }
}

@Suite("Pasteboard without a display")
struct PasteboardWithoutDisplayTests {
  @Test func withoutDISPLAYOrWithARootFolderThePasteboardIsQuiresOwn() throws {
    #expect(Pasteboard.environmentDisplay([:]) == nil)
    #expect(Pasteboard.environmentDisplay(["DISPLAY": ""]) == nil)
    #expect(Pasteboard.environmentDisplay(["DISPLAY": ":3"]) == ":3")
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    // A root folder given means a Quire-only pasteboard, even on a desktop.
    #expect(try Pasteboard.general(rootFolder: folder.url).displayName == nil)
    #expect(try Pasteboard(name: "general", rootFolder: folder.url, display: nil).selectionName == nil)
  }
}
