import Foundation
import QuireSystem
import QuireTestSupport
import QuireTransfer
import QuireTypes
import Synchronization
import Testing

/// A headless Wayland compositor started for one test and stopped after it: Debian's `sway`
/// (wlroots, with `zwlr_data_control_manager_v1`), or `weston` (no data-control at all), and
/// the real clipboard tools (`wl-copy`, `wl-paste`) pointed at it.
///
/// sway refuses to run as root, so under root (CI) both compositors run as the unprivileged
/// `nobody`, through `setpriv`, in a runtime folder of nobody's below /tmp; clients (quire,
/// wl-copy, wl-paste) reach its socket by absolute path in `WAYLAND_DISPLAY`, which root may
/// open. A user that is not root runs them as itself.
final class HeadlessCompositor: Sendable {
  enum Kind: Sendable {
    /// sway with the headless wlroots backend and the pixman renderer, `xwayland disable`.
    case sway
    /// weston's headless backend: a compositor without data-control.
    case weston
  }
  static let sway = "/usr/bin/sway"
  static let weston = "/usr/bin/weston"
  static let wlCopy = "/usr/bin/wl-copy"
  static let wlPaste = "/usr/bin/wl-paste"
  static let setpriv = "/usr/bin/setpriv"
  static let isAvailable = [sway, weston, wlCopy, wlPaste, setpriv].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
  static let missing = "sway, weston, wl-clipboard or setpriv is not installed: scripts/setup installs sway, weston and wl-clipboard"
  /// The unprivileged user the compositors run as under root.
  static let user: (uid: UInt32, gid: UInt32) = (65534, 65534)  // nobody, nogroup

  /// The compositor's runtime folder (its `XDG_RUNTIME_DIR`, holding its socket).
  let runtime: URL
  /// `WAYLAND_DISPLAY` for clients: the socket's absolute path.
  let socket: String
  /// A folder for the tools' HOME and runtime folder.
  let scratch: TemporaryFolder
  private let server: RunningProcess
  private let stopped = Atomic<Bool>(false)
  private static let next = Atomic<Int>(0)

  init(_ kind: Kind) async throws {
    scratch = try TemporaryFolder(prefix: "quire-wayland-tools")
    let number = Self.next.add(1, ordering: .relaxed).oldValue
    runtime = URL(fileURLWithPath: "/tmp/quire-wayland-\(getpid())-\(number)")
    try? FileManager.default.removeItem(at: runtime)
    try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
    let asRoot = geteuid() == 0
    var environment = ["PATH": "/usr/bin:/bin", "HOME": runtime.path, "XDG_RUNTIME_DIR": runtime.path]
    var command: [String]
    let socketName: String?
    switch kind {
    case .sway:
      let config = runtime.appendingPathComponent("config")
      try Data("xwayland disable\n".utf8).write(to: config)
      environment["WLR_BACKENDS"] = "headless"
      environment["WLR_RENDERER"] = "pixman"
      environment["WLR_LIBINPUT_NO_DEVICES"] = "1"
      command = [Self.sway, "-c", config.path]
      socketName = nil  // sway takes the first free wayland-N
      if asRoot { chown(config.path, Self.user.uid, Self.user.gid) }
    case .weston:
      command = [Self.weston, "--backend=headless-backend.so", "--socket=quire-weston", "--idle-time=0"]
      socketName = "quire-weston"
    }
    if asRoot {
      chown(runtime.path, Self.user.uid, Self.user.gid)
      command = [Self.setpriv, "--reuid=\(Self.user.uid)", "--regid=\(Self.user.gid)", "--clear-groups", "--"] + command
    }
    server = try ChildProcess.start(URL(fileURLWithPath: command[0]), Array(command.dropFirst()), environment: environment, discardingErrors: true)
    let runtime = runtime
    let found = Mutex<String?>(nil)
    let listening = await eventually(every: .milliseconds(20)) {
      let names = (try? FileManager.default.contentsOfDirectory(atPath: runtime.path)) ?? []
      let name = socketName.flatMap { names.contains($0) ? $0 : nil } ?? names.first { $0.hasPrefix("wayland-") && !$0.hasSuffix(".lock") }
      found.withLock { $0 = name }
      return name != nil
    }
    guard listening, let name = found.withLock({ $0 }) else {
      await server.killAndAwaitExit()
      try? FileManager.default.removeItem(at: runtime)
      scratch.remove()
      throw TestFailure("the headless \(kind) never made its socket in \(runtime.path)")
    }
    socket = runtime.appendingPathComponent(name).path
  }

  /// Stops the compositor; its clients (background `wl-copy`s and `quire`s) then end.
  func stop() {
    guard !stopped.exchange(true, ordering: .relaxed) else { return }
    server.kill(SIGTERM)
    server.finish()
    try? FileManager.default.removeItem(at: runtime)
    scratch.remove()
  }

  struct Outcome: Sendable {
    var status: Int32
    var output: Data
    var error: String
    var text: String { String(decoding: output, as: UTF8.self) }
  }

  /// The environment a clipboard tool runs in against this compositor.
  var toolEnvironment: [String: String] {
    ["WAYLAND_DISPLAY": socket, "PATH": "/usr/bin:/bin", "HOME": scratch.url.path, "XDG_RUNTIME_DIR": scratch.url.path]
  }

  /// Runs `tool` against this compositor with `input` on standard input, to its end (output
  /// through a file, so the `wl-copy` server it leaves behind cannot hold the test). Killed
  /// after `timeout`, so a hang fails the test instead of stopping the suite.
  func run(_ tool: String, _ arguments: [String], input: Data = Data(), timeout: TimeInterval = 60) async throws -> Outcome {
    let result = try await ChildProcess.run(
      URL(fileURLWithPath: tool), arguments, environment: toolEnvironment, input: input, timeLimit: .seconds(timeout))
    return Outcome(status: result.status, output: result.outputData, error: result.error)
  }

  /// The MIME types the clipboard's (or primary selection's) owner offers (`wl-paste -l`); empty when none.
  func types(primary: Bool = false) async throws -> [String] {
    let outcome = try await run(Self.wlPaste, ["-l"] + (primary ? ["--primary"] : []))
    return outcome.status == 0 ? outcome.text.split(separator: "\n").map(String.init) : []
  }

  /// Waits (polling; it returns as soon as it is there) until the owner offers `type`.
  func waitForType(_ type: String, primary: Bool = false) async throws -> Bool {
    try await eventually(every: .milliseconds(20)) { try await types(primary: primary).contains(type) }
  }

  /// `wl-paste -n -t TYPE`: the bytes the owner gives for `type`.
  func paste(_ type: String, primary: Bool = false) async throws -> Outcome {
    try await run(Self.wlPaste, ["-n", "-t", type] + (primary ? ["--primary"] : []))
  }
}

@Suite(
  "Pasteboard on a Wayland compositor: data-control under a headless sway, with wl-copy and wl-paste",
  .enabled(if: HeadlessCompositor.isAvailable, Comment(rawValue: HeadlessCompositor.missing)))
final class WaylandPasteboardTests: FolderSuite {
  let compositor: HeadlessCompositor
  var runtime: URL { folder.file("runtime") }
  var root: URL { folder.file("pasteboards") }

  init() async throws {
    compositor = try await HeadlessCompositor(.sway)
    try super.init()
    try folder.privateFolder("runtime")
  }
  deinit {
    compositor.stop()
  }

  func board(_ name: String = Pasteboard.generalName) throws -> Pasteboard {
    try Pasteboard(name: name, rootFolder: root, waylandDisplay: compositor.socket)
  }
  func quire(sourceLocation: SourceLocation = #_sourceLocation) throws -> QuireExecutable {
    var quire = try #require(
      QuireExecutable(runtime: runtime), "the quire executable is not built beside the tests (run 'swift build --build-tests')",
      sourceLocation: sourceLocation)
    quire.environment["WAYLAND_DISPLAY"] = compositor.socket
    return quire
  }
  /// What `quire` processes keep in the folder store: nothing while the compositor carries everything.
  var folderStore: [String] {
    let all = (try? FileManager.default.subpathsOfDirectory(atPath: runtime.appendingPathComponent("quire/pasteboards").path)) ?? []
    return all.filter { $0 != "general" && $0 != "general/lock" && $0 != "primary" && $0 != "primary/lock" }
  }

  // Acceptance 1: quire copy note.md → wl-paste reads HTML, plain text and the type list.
  @Test func quireCopyOfMarkdownIsPastedByWlPasteAsHTMLPlainTextAndMarkdown() async throws {
    let note = try folder.write("# Plans\n\nShip the *clipboard*.\n", to: "note.md")
    let copied = try await quire().run(["copy", note.path])
    #expect(copied.status == 0, "\(copied.error)")
    #expect(copied.error.isEmpty, "a compositor with data-control needs no note: \(copied.error)")
    let types = try await compositor.types()
    #expect(Array(types.prefix(3)) == ["text/markdown", "text/html", "text/plain"])
    for type in ["text/plain;charset=utf-8", "UTF8_STRING", "TEXT", "STRING", "text/uri-list"] {
      #expect(types.contains(type), "\(type) is not offered: \(types)")
    }
    #expect(!types.contains("TARGETS"), "an X11 meta target is offered: \(types)")
    let html = try await compositor.paste("text/html")
    #expect(html.status == 0, "\(html.error)")
    #expect(html.text == "<h1>Plans</h1>\n<p>Ship the <em>clipboard</em>.</p>\n")
    #expect(try await compositor.paste("text/plain").text == "Plans\n\nShip the clipboard.")
    #expect(try await compositor.paste("text/plain;charset=utf-8").text == "Plans\n\nShip the clipboard.")
    #expect(try await compositor.paste("UTF8_STRING").text == "Plans\n\nShip the clipboard.")
    #expect(try await compositor.paste("text/markdown").text == "# Plans\n\nShip the *clipboard*.\n")
    #expect(try await compositor.paste("text/uri-list").text == "\(note.absoluteString)\r\n")
    #expect(folderStore.isEmpty, "the copy went through the folder: \(folderStore)")
  }

  // Acceptance 1: wl-copy -t application/octet-stream < 20 MB → quire paste --type public.data.
  @Test func twentyMegabytesCopiedByWlCopyArePastedByQuireByteForByte() async throws {
    let size = 20 << 20
    var big = Data(count: size)
    big.withUnsafeMutableBytes { (buffer: UnsafeMutableRawBufferPointer) in
      for index in stride(from: 0, to: size, by: 997) { buffer[index] = UInt8(truncatingIfNeeded: index >> 10) }
    }
    big.replaceSubrange(0..<4, with: Data("HEAD".utf8))
    big.replaceSubrange((size - 4)..<size, with: Data("TAIL".utf8))
    #expect(try await compositor.run(HeadlessCompositor.wlCopy, ["-t", "application/octet-stream"], input: big).status == 0)
    #expect(try await compositor.waitForType("application/octet-stream"))
    let output = folder.file("pasted.bin")
    let pasted = try await quire().run(["paste", "--type", "public.data", "--output", output.path])
    #expect(pasted.status == 0, "\(pasted.error)")
    let written = try Data(contentsOf: output)
    #expect(written.count == size)
    #expect(written == big)
  }

  // The other way: 20 MB that Quire holds, streamed through wl-paste's pipe.
  @Test func twentyMegabytesQuireHoldsAreStreamedToWlPaste() async throws {
    let size = 20 << 20
    let file = folder.file("big.png")
    var big = pngHeader()
    big.append(Data((0..<(size - big.count)).map { UInt8(truncatingIfNeeded: $0 &* 7) }))
    try big.write(to: file)
    let provider = ItemProvider()
    provider.registerFileRepresentation(for: .png, fileURL: file)
    try board().setItemProviders([provider])
    let read = try await compositor.paste("image/png")
    #expect(read.status == 0, "\(read.error)")
    #expect(read.output.count == size)
    #expect(read.output == big)
  }

  // Acceptance 1: wl-copy --primary → quire paste --pasteboard primary, and back.
  @Test func thePrimaryPasteboardIsThePrimarySelection() async throws {
    #expect(try await compositor.run(HeadlessCompositor.wlCopy, ["--primary"], input: Data("selected text".utf8)).status == 0)
    #expect(try await compositor.waitForType("text/plain", primary: true))
    let pasted = try await quire().run(["paste", "--pasteboard", "primary"])
    #expect(pasted.status == 0, "\(pasted.error)")
    #expect(pasted.output == "selected text")
    #expect(try await compositor.types().isEmpty, "the clipboard got the primary selection's text")

    let copied = try await quire().run(["copy", "--pasteboard", "primary", "--text", "from quire"])
    #expect(copied.status == 0, "\(copied.error)")
    #expect(try await compositor.paste("text/plain", primary: true).text == "from quire")
  }

  // Acceptance 3: only what a client asks for is loaded.
  @Test func theOwnerLoadsOnlyWhatIsAskedFor() async throws {
    let counter = LoadCounter()
    let provider = counter.provider([
      (.markdown, Data("# Hi".utf8)), (.html, Data("<h1>Hi</h1>".utf8)), (.plainText, Data("Hi".utf8)), (.png, pngHeader()),
    ])
    try board().setItemProviders([provider])
    let types = try await compositor.types()
    #expect(types.contains("image/png"))
    #expect(counter.count(UTType.markdown.identifier) == 0, "listing the types loaded a representation")
    #expect(try await compositor.paste("text/html").text == "<h1>Hi</h1>")
    #expect(try await compositor.paste("UTF8_STRING").text == "Hi")
    #expect(counter.count(UTType.html.identifier) == 1)
    #expect(counter.count(UTType.plainText.identifier) == 1)
    #expect(counter.count(UTType.markdown.identifier) == 0)
    #expect(counter.count(UTType.png.identifier) == 0)
    // A representation whose handler fails gives an empty answer, and the owner keeps serving.
    let failing = ItemProvider()
    failing.registerDataRepresentation(for: .html) { throw QuireError(.fileMissing, "gone") }
    failing.registerDataRepresentation(for: .plainText) { Data("still here".utf8) }
    try board().setItemProviders([failing])
    #expect(try await compositor.paste("text/html").output.isEmpty)
    #expect(try await compositor.paste("text/plain").text == "still here")
  }

  // The background server: `quire copy` returns, its server serves until another copy.
  @Test func quireCopyServesInTheBackgroundUntilAnotherProgramCopies() async throws {
    let quire = try quire()
    try await quire.expectCopiedTextIsPasted("from one quire to another ✓")
    #expect(folderStore.isEmpty, "the copy went through the folder: \(folderStore)")
    #expect(try await compositor.paste("text/plain").text == "from one quire to another ✓")
    #expect(try await compositor.run(HeadlessCompositor.wlCopy, [], input: Data("taken".utf8)).status == 0)
    #expect(try await eventually(every: .milliseconds(20)) { try await quire.run(["paste"]).output == "taken" })
  }

  @Test func losingTheSelectionIsNoticedAndChangesTheCount() async throws {
    let pasteboard = try board()
    #expect(pasteboard.backend == .wayland)
    #expect(pasteboard.displayName == compositor.socket)
    let start = try pasteboard.changeCount
    try pasteboard.setString("mine")
    #expect(try pasteboard.changeCount == start + 1)
    #expect(try await pasteboard.string() == "mine")
    #expect(try await compositor.run(HeadlessCompositor.wlCopy, [], input: Data("theirs".utf8)).status == 0)
    await pasteboard.waitUntilItemsAreReplaced()
    #expect(try await eventually { try pasteboard.changeCount == start + 2 })
    #expect(try await pasteboard.string() == "theirs")
  }

  @Test func typesOfAnotherProgramBecomeTypesUnknownOnesDynamic() async throws {
    #expect(try await compositor.run(HeadlessCompositor.wlCopy, ["-t", "application/x-quire-test-custom"], input: Data([1, 2, 3])).status == 0)
    #expect(try await compositor.waitForType("application/x-quire-test-custom"))
    let provider = try #require(try board().itemProviders.first)
    let identifier = try #require(provider.registeredTypeIdentifiers.first)
    #expect(identifier.hasPrefix("dyn."))
    let type = try #require(UTType(identifier))
    #expect(try await provider.loadDataRepresentation(for: type) == Data([1, 2, 3]))
  }

  @Test func theREPLsCopyIsServedWhileItRuns() async throws {
    let quire = try quire()
    let note = try folder.write("alpha\nbeta\n", to: "lines.txt")
    let repl = try ChildProcess.start(quire.url, [note.path], environment: quire.environment, discardingErrors: true)
    defer { repl.kill() }
    repl.send("copy 2")
    #expect(try await compositor.waitForType("text/plain"))
    #expect(try await compositor.paste("text/plain").text == "beta\n")
    repl.send("q")
    #expect(await repl.waitForExit() == 0)
  }

  @Test func aForcedBackendIsUsedAndABadOneIsRefused() async throws {
    var quire = try quire()
    quire.environment["QUIRE_PASTEBOARD"] = "quire"
    #expect(try await quire.run(["copy", "--text", "kept by quire"]).status == 0)
    #expect(try await compositor.types().isEmpty, "QUIRE_PASTEBOARD=quire still went to the compositor")
    #expect(try await quire.run(["paste"]).output == "kept by quire")
    // The option wins over the variable.
    #expect(try await quire.run(["copy", "--backend", "wayland", "--text", "on wayland"]).status == 0)
    #expect(try await compositor.paste("text/plain").text == "on wayland")
    quire.environment["QUIRE_PASTEBOARD"] = "gnome"
    let refused = try await quire.run(["paste"])
    #expect(refused.status == 1)
    #expect(refused.error.contains("QUIRE_PASTEBOARD is 'gnome'"))
    quire.environment["QUIRE_PASTEBOARD"] = nil
    let x11 = try await quire.run(["paste", "--backend", "x11"])
    #expect(x11.status == 1)
    #expect(x11.error.contains("DISPLAY is not set"))
  }
}

@Suite(
  "Pasteboard on a Wayland compositor without data-control: headless weston",
  .enabled(if: HeadlessCompositor.isAvailable, Comment(rawValue: HeadlessCompositor.missing)))
final class WaylandFallbackTests: FolderSuite {
  let compositor: HeadlessCompositor
  var runtime: URL { folder.file("runtime") }

  init() async throws {
    compositor = try await HeadlessCompositor(.weston)
    try super.init()
    try folder.privateFolder("runtime")
  }
  deinit {
    compositor.stop()
  }

  func quire(waylandDisplay: String) throws -> QuireExecutable {
    var quire = try #require(QuireExecutable(runtime: runtime), "the quire executable is not built beside the tests (run 'swift build --build-tests')")
    quire.environment["WAYLAND_DISPLAY"] = waylandDisplay
    return quire
  }

  // Acceptance 2: no data-control → one line naming the fallback, and both commands end.
  @Test func copyAndPasteFallBackToQuiresStoreWithOneLineSayingSo() async throws {
    let quire = try quire(waylandDisplay: compositor.socket)
    let copied = try await quire.run(["copy", "--text", "no data-control here"], timeLimit: .seconds(30))
    #expect(!copied.killed, "quire copy hung on a compositor without data-control")
    #expect(copied.status == 0, "\(copied.error)")
    let lines = copied.error.split(separator: "\n")
    #expect(lines.count == 1, "\(copied.error)")
    #expect(copied.error.contains("offers no data-control protocol"))
    #expect(copied.error.contains("Using Quire's own pasteboard instead"))
    let pasted = try await quire.run(["paste"], timeLimit: .seconds(30))
    #expect(!pasted.killed, "quire paste hung on a compositor without data-control")
    #expect(pasted.status == 0, "\(pasted.error)")
    #expect(pasted.output == "no data-control here")
    #expect(pasted.error.contains("Using Quire's own pasteboard instead"))
    // Forcing Wayland there is an error that says why.
    let forced = try await quire.run(["paste", "--backend", "wayland"], timeLimit: .seconds(30))
    #expect(forced.status == 1)
    #expect(forced.error.contains("offers no data-control protocol"))
  }

  @Test func aWaylandDisplayThatIsNoCompositorFallsBackToo() async throws {
    let fifo = folder.file("not-a-socket")
    #expect(mkfifo(fifo.path, 0o600) == 0)
    for display in [folder.file("missing").path, fifo.path, "", "wayland-quire-none"] {
      let quire = try quire(waylandDisplay: display)
      let copied = try await quire.run(["copy", "--text", "still copied"], timeLimit: .seconds(30))
      #expect(!copied.killed, "'\(display)' hung quire copy")
      #expect(copied.status == 0, "'\(display)': \(copied.error)")
      #expect(display.isEmpty ? copied.error.isEmpty : copied.error.contains("no compositor answers"), "'\(display)': \(copied.error)")
      #expect(try await quire.run(["paste"]).output == "still copied")
    }
  }
}

@Suite(
  "Pasteboard on a Wayland compositor without data-control, with XWayland's X11 beside it",
  .enabled(if: HeadlessCompositor.isAvailable && VirtualDisplay.isAvailable, Comment(rawValue: HeadlessCompositor.missing)))
final class WaylandFallbackToX11Tests: FolderSuite {
  let compositor: HeadlessCompositor
  let display: VirtualDisplay

  init() async throws {
    compositor = try await HeadlessCompositor(.weston)
    display = try await VirtualDisplay()
    try super.init()
    try folder.privateFolder("runtime")
  }
  deinit {
    compositor.stop()
    display.stop()
  }

  @Test func withDISPLAYSetTheFallbackIsTheX11Clipboard() async throws {
    var quire = try #require(QuireExecutable(runtime: folder.file("runtime"), display: display.name))
    quire.environment["WAYLAND_DISPLAY"] = compositor.socket
    let copied = try await quire.run(["copy", "--text", "through XWayland"], timeLimit: .seconds(30))
    #expect(copied.status == 0, "\(copied.error)")
    #expect(copied.error.contains("Using the X11 display '\(display.name)'"))
    #expect(try await display.waitForTarget("UTF8_STRING"))
    #expect(try await display.run(VirtualDisplay.xclip, ["-o", "-selection", "clipboard"]).text == "through XWayland")
  }
}
