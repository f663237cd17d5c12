import Foundation
import Quire
import QuireTestSupport
import Testing

@testable import QuireCLI

@Suite("quire command line")
struct CommandTests {
  @Test func usageErrorsExitWithTwo() async {
    #expect(await QuireCommand.run(arguments: ["--no-such-option"]) == ExitStatus.usage)
    #expect(await QuireCommand.run(arguments: ["preview"]) == ExitStatus.usage)
  }

  @Test func versionAndHelpSucceed() async {
    #expect(await QuireCommand.run(arguments: ["--version"]) == ExitStatus.success)
    #expect(await QuireCommand.run(arguments: ["--help"]) == ExitStatus.success)
  }

  @Test func argumentParsersOwnOptionsDescribeTheRootCommand() throws {
    // generate-manual reads --experimental-dump-help: it must describe quire, not the REPL.
    for option in ["--experimental-dump-help", "--generate-completion-script"] {
      #expect(try EdArguments.normalized([option], subcommands: QuireCommand.subcommandNames) == [option])
    }
    #expect(try EdArguments.normalized(["-s", "notes.md"], subcommands: QuireCommand.subcommandNames).first == "repl")
  }
}

@Suite("quire thumbnail and quire preview")
final class ThumbnailCommandTests {
  let folder: URL
  init() throws {
    folder = FileManager.default.temporaryDirectory.appendingPathComponent("quire-cli-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  }
  deinit { try? FileManager.default.removeItem(at: folder) }

  func write(_ text: String, _ name: String) throws -> URL {
    let url = folder.appendingPathComponent(name)
    try Data(text.utf8).write(to: url)
    return url
  }

  @Test(arguments: [
    ["thumbnail"],
    ["thumbnail", "--size", "0", "x.md"],
    ["thumbnail", "--size", "5000", "x.md"],
    ["thumbnail", "--jobs", "0", "x.md"],
    ["thumbnail", "--output", "/tmp", "--cache", "x.md"],
    ["thumbnail", "-s", "128", "only-one"],
    ["thumbnail", "--time-limit", "0", "x.md"],
    ["preview", "x.md", "--format", "pdf"],
  ])
  func usageErrorsExitWithTwo(_ arguments: [String]) async {
    #expect(await QuireCommand.run(arguments: arguments) == ExitStatus.usage)
  }

  @Test func thumbnailerFormWritesAPNGFromAPathOrAFileURI() async throws {
    let input = try write("# Hello\n", "a b.md")
    let output = folder.appendingPathComponent("out.png")
    let uri = "file://" + input.path.replacingOccurrences(of: " ", with: "%20")
    #expect(await QuireCommand.run(arguments: ["thumbnail", "-s", "128", uri, output.path]) == ExitStatus.success)
    let png = try Data(contentsOf: output)
    #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
    #expect(png.count > 200)
    let missing = folder.appendingPathComponent("missing.md").path
    #expect(await QuireCommand.run(arguments: ["thumbnail", "-s", "128", missing, output.path + "2"]) == ExitStatus.failure)
    #expect(!FileManager.default.fileExists(atPath: output.path + "2"))
  }

  @Test func installWritesAThumbnailerEntry() async throws {
    #expect(await QuireCommand.run(arguments: ["thumbnail", "--install", "--data-dir", folder.path]) == ExitStatus.success)
    let entry = try String(contentsOf: folder.appendingPathComponent("thumbnailers/quire.thumbnailer"), encoding: .utf8)
    #expect(entry.hasPrefix("[Thumbnailer Entry]\n"))
    #expect(entry.contains(" thumbnail -s %s %u %o\n"))
    #expect(entry.contains("MimeType=text/markdown;"))
    #expect(entry.contains("TryExec=/"))
  }

  @Test func batchExitsZeroWhenAllSucceedAndOneWhenSomeFail() async throws {
    guard let quire = Self.builtQuire() else { return }
    let good = try write("# Good\n", "good.md")
    let out = folder.appendingPathComponent("out").path
    #expect(await QuireCommand.run(arguments: ["thumbnail", "--worker", quire, "--output", out, good.path]) == ExitStatus.success)
    #expect(FileManager.default.fileExists(atPath: out + "/good.md.png"))
    let bad = try write("%PDF-1.4 junk", "bad.pdf")
    #expect(await QuireCommand.run(arguments: ["thumbnail", "--worker", quire, "--json", "--output", out, good.path, bad.path]) == ExitStatus.failure)
  }

  @Test func previewWritesHTMLAndText() async throws {
    let input = try write("# Title\n\n<script>x</script>\n", "p.md")
    let html = folder.appendingPathComponent("p.html")
    #expect(await QuireCommand.run(arguments: ["preview", input.path, "--output", html.path]) == ExitStatus.success)
    let page = try String(contentsOf: html, encoding: .utf8)
    #expect(page.contains("<h1>Title</h1>") && !page.contains("<script>"))
    let text = folder.appendingPathComponent("p.txt")
    #expect(await QuireCommand.run(arguments: ["preview", input.path, "--format", "text", "--output", text.path]) == ExitStatus.success)
    #expect(try String(contentsOf: text, encoding: .utf8) == "Title")
    #expect(await QuireCommand.run(arguments: ["preview", folder.appendingPathComponent("none.md").path]) == ExitStatus.failure)
  }

  static func builtQuire() -> String? {
    let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    let candidate = me.deletingLastPathComponent().appendingPathComponent("quire")
    if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate.path }
    print("note: no built 'quire' beside \(me.path); skipping the batch exit-code check")
    return nil
  }
}

@Suite("quire demo")
final class DemoCommandTests {
  let folder: TemporaryFolder
  init() throws { folder = try TemporaryFolder(prefix: "quire-demo") }
  deinit { folder.remove() }

  @Test func toursAFolderAndWritesPrivatePreviewsAndThumbnails() async throws {
    let input = folder.file("in")
    let output = folder.file("out")
    try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
    try Data("# Hello\n\n日本語\n".utf8).write(to: input.appendingPathComponent("note.md"))
    let writer = try PDFWriter(url: input.appendingPathComponent("doc.pdf"), width: 200, height: 300)
    try writer.addPage(markup: "page one")
    try writer.finish()
    #expect(await QuireCommand.run(arguments: ["demo", input.path, "--output", output.path]) == ExitStatus.success)
    for name in ["note.html", "note.png", "doc.html", "doc.png"] {
      let attributes = try FileManager.default.attributesOfItem(atPath: output.appendingPathComponent(name).path)
      #expect((attributes[.posixPermissions] as? Int) == 0o600, "\(name)")
    }
  }

  @Test func aBrokenFileFailsTheRunButTheOthersAreDone() async throws {
    let input = folder.file("in")
    let output = folder.file("out")
    try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
    try Data("not a pdf at all".utf8).write(to: input.appendingPathComponent("broken.pdf"))
    try Data("plain\n".utf8).write(to: input.appendingPathComponent("a.txt"))
    #expect(await QuireCommand.run(arguments: ["demo", input.path, "--output", output.path]) == ExitStatus.failure)
    #expect(FileManager.default.fileExists(atPath: output.appendingPathComponent("a.png").path))
  }

  @Test func aMissingFolderIsAClearFailure() async {
    #expect(await QuireCommand.run(arguments: ["demo", folder.file("absent").path, "--output", folder.file("o").path]) == ExitStatus.failure)
  }
}
