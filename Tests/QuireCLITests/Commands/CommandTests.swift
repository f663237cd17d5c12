import Foundation
import Quire
import QuireTestSupport
import Testing

@testable import QuireCLI

@Suite("quire command line")
final class CommandTests: FolderSuite, RunsQuire {
  // Usage errors (exit status 2, reason and usage on standard error) and help are golden files:
  // GoldenOutputTests.usageErrors and helpOfEachSubcommand.

  @Test func versionPrintsTheVersionAlone() async throws {
    let version = try await quire(["--version"])
    #expect(version.status == 0)
    #expect(version.output.wholeMatch(of: /[0-9]+\.[0-9]+\.[0-9]+\n/) != nil, "\(version.output)")
    #expect(version.error.isEmpty)
  }

  @Test func argumentParsersOwnOptionsDescribeTheRootCommand() throws {
    // generate-manual reads --experimental-dump-help: it must describe quire, not the REPL.
    for option in ["--experimental-dump-help", "--generate-completion-script"] {
      #expect(try EdArguments.normalized([option], subcommands: QuireCommand.subcommandNames) == [option])
    }
    #expect(try EdArguments.normalized(["-s", "notes.md"], subcommands: QuireCommand.subcommandNames).first == "repl")
  }

  // Every command says a failure as `quire: REASON` and exits with the status ExitStatus's
  // table gives the error's code.
  @Test func aFailureExitsWithItsCodesStatusAndSaysItsReasonOnce() async throws {
    try folder.write("# Notes\n", to: "notes.md")
    // /dev/full answers every write with ENOSPC: .diskFull, status 3.
    let full = try await quire(["preview", "notes.md", "--output", "/dev/full"])
    #expect(full.status == ExitStatus.diskFull && full.status == 3, "\(full.error)")
    #expect(full.error == "quire: Cannot write to '/dev/full' (a character device): the write failed (the disk is full). Nothing else was changed.\n")
    // A missing file: status 1, one line naming it, no code name in front of the reason.
    let missing = try await quire(["tag", "gone.md"])
    #expect(missing.status == ExitStatus.failure, "\(missing.error)")
    #expect(missing.error.hasPrefix("quire: Cannot read 'gone.md'") && missing.error.split(separator: "\n").count == 1, "\(missing.error)")
    #expect(!missing.error.contains("file missing:"))
  }

  @Test func theExitStatusTableGivesEachCodeOneStatus() {
    #expect(ExitStatus.status(for: .diskFull) == 3)
    #expect(ExitStatus.status(for: .inUse) == 4 && ExitStatus.status(for: .fileChangedOnDisk) == 4)
    #expect(ExitStatus.status(for: .timedOut) == 5)
    #expect(ExitStatus.status(for: .cancelled) == 130)
    for code in [QuireError.Code.fileMissing, .permissionDenied, .invalidContent, .invalidArgument, .systemCallFailed] {
      #expect(ExitStatus.status(for: code) == ExitStatus.failure, "\(code)")
    }
    // quire help documents every status the table can give.
    for status in [0, 1, 2, 3, 4, 5, 6, 130] { #expect(ExitStatus.documentation.contains(" \(status) "), "\(status)") }
  }
}

@Suite("quire thumbnail and quire preview")
final class ThumbnailCommandTests: FolderSuite, RunsQuire {
  @Test func thumbnailerFormWritesAPNGFromAPathOrAFileURI() async throws {
    let input = try folder.write("# Hello\n", to: "a b.md")
    let output = folder.file("out.png")
    let uri = "file://" + input.path.replacingOccurrences(of: " ", with: "%20")
    let made = try await quire(["thumbnail", "-s", "128", uri, output.path])
    #expect(made.status == 0 && made.output.isEmpty && made.error.isEmpty, "\(made.error)")
    let png = try Data(contentsOf: output)
    #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
    #expect(png.count > 200)
    let missing = folder.file("missing.md").path
    let failed = try await quire(["thumbnail", "-s", "128", missing, output.path + "2"])
    #expect(failed.status == 1)
    #expect(failed.error.contains("Cannot read '\(missing)': there is no such file."), "\(failed.error)")
    #expect(!FileManager.default.fileExists(atPath: output.path + "2"))
  }

  /// The form file managers call is read without the argument parser; every other spelling
  /// still goes through it, with its checks and messages.
  @Test func theThumbnailerFormIsReadOnlyWhenItIsExactlyThatForm() {
    let form = ThumbnailCommand.ThumbnailerForm(arguments: ["thumbnail", "-s", "256", "in.md", "out.png"])
    #expect(form?.size == 256 && form?.input == "in.md" && form?.output == "out.png")
    #expect(ThumbnailCommand.ThumbnailerForm(arguments: ["thumbnail", "-s", "4096", "file:///a%20b.md", "o.png"])?.size == 4096)
    let others: [[String]] = [
      ["thumbnail", "-s", "0", "in.md", "out.png"],  // the parser says the size must be 1 to 4096
      ["thumbnail", "-s", "4097", "in.md", "out.png"],
      ["thumbnail", "-s", "+12", "in.md", "out.png"],
      ["thumbnail", "-s", "12x", "in.md", "out.png"],
      ["thumbnail", "-s", "", "in.md", "out.png"],
      ["thumbnail", "-s256", "in.md", "out.png"],
      ["thumbnail", "--size", "256", "in.md", "out.png"],
      ["thumbnail", "-s", "256", "--json", "out.png"],
      ["thumbnail", "-s", "256", "in.md", "--help"],
      ["thumbnail", "-s", "256", "in.md"],
      ["thumbnail", "-s", "256", "in.md", "out.png", "extra"],
      ["preview", "-s", "256", "in.md", "out.png"],
    ]
    for arguments in others { #expect(ThumbnailCommand.ThumbnailerForm(arguments: arguments) == nil, "\(arguments)") }
  }

  /// `quire search WORD…` with its common options is read without the parser; a line with
  /// any other option or spelling, or words that hold nothing to search for, goes to the parser.
  @Test func theDirectSearchFormIsReadOnlyWithItsCommonOptions() {
    #expect(SearchCommand.Request(directForm: ["search", "budget"])?.query == ["budget"])
    #expect(SearchCommand.Request(directForm: ["search", "\"a phrase\"", "budg*"])?.query == ["\"a phrase\"", "budg*"])
    let plain = SearchCommand.Request(directForm: ["search", "x"])
    #expect(plain?.limit == 20 && plain?.folders == [] && plain?.types == [] && plain?.json == false && plain?.rebuild == false && plain?.watch == false)
    let options = SearchCommand.Request(directForm: ["search", "--in", "a", "budget", "--in=b c", "--type", "md", "--limit=5", "--json", "x"])
    #expect(options?.query == ["budget", "x"] && options?.folders == ["a", "b c"] && options?.types == ["md"])
    #expect(options?.limit == 5 && options?.json == true && options?.rebuild == false && options?.watch == false)
    let others: [[String]] = [
      ["search"], ["search", "--in", "a"], ["search", "x", "-h"], ["search", "--", "x"], ["search", "-"],
      ["search", "x", "--in"], ["search", "--in", "--json", "x"], ["search", "--in=", "x"], ["search", "--in", "-a", "x"],
      ["search", "--limit", "5", "--limit", "6", "x"], ["search", "--limit", "five", "x"], ["search", "--limit", "-1", "x"],
      ["search", "--limit=", "x"], ["search", "--json", "--json", "x"], ["search", "--json=yes", "x"], ["search", "--rebuild", "x"],
      ["search", "--watch"], ["search", "--inn", "a", "x"], ["search", "--type", "no-such-type-anywhere", "x"], ["search", "*"],
      ["search", "\"\""], ["browse", "x"],
    ]
    for arguments in others { #expect(SearchCommand.Request(directForm: arguments) == nil, "\(arguments)") }
  }

  /// The form read without the parser writes the same PNG, byte for byte, as the same request
  /// spelled so that the parser reads it, and fails the same way.
  @Test func theThumbnailerFormMakesWhatTheParsedCommandMakes() async throws {
    try folder.write("# Title\n\nSome *text* and `code`.\n\n- one\n- two\n", to: "note.md")
    let direct = try await quire(["thumbnail", "-s", "96", "note.md", "direct.png"])
    let parsed = try await quire(["thumbnail", "-s", "96", "--time-limit", "10", "note.md", "parsed.png"])
    #expect(direct.status == 0 && direct.error.isEmpty && parsed.status == 0 && parsed.error.isEmpty, "\(direct.error) \(parsed.error)")
    #expect(try Data(contentsOf: folder.file("direct.png")) == Data(contentsOf: folder.file("parsed.png")))
    let directFailure = try await quire(["thumbnail", "-s", "96", "gone.md", "a.png"])
    let parsedFailure = try await quire(["thumbnail", "-s", "96", "--time-limit", "10", "gone.md", "a.png"])
    #expect(directFailure.status == 1 && directFailure.status == parsedFailure.status)
    #expect(directFailure.error == parsedFailure.error && directFailure.error.contains("gone.md"), "\(directFailure.error)")
  }

  /// A person at a shell names files relative to the current folder; a PDF's page is drawn
  /// and read from such a name as from a full path.
  @Test func relativeNamesOfPDFsAreThumbnailedAndPreviewed() async throws {
    try writePDF(to: folder.file("doc.pdf"), pages: ["page one"])
    let made = try await quire(["thumbnail", "-s", "64", "doc.pdf", "doc.png"])
    #expect(made.status == 0 && made.error.isEmpty, "\(made.error)")
    #expect(try Data(contentsOf: folder.file("doc.png")).starts(with: [0x89, 0x50, 0x4E, 0x47]))
    let text = try await quire(["preview", "--format", "text", "doc.pdf"])
    #expect(text.status == 0 && text.output.contains("page one"), "\(text.error)")
  }

  @Test func installWritesAThumbnailerEntry() async throws {
    let installed = try await quire(["thumbnail", "--install", "--data-dir", folder.url.path])
    #expect(installed.status == 0, "\(installed.error)")
    #expect(installed.output.contains("thumbnailers/quire.thumbnailer") || installed.error.contains("thumbnailers/quire.thumbnailer"), "\(installed)")
    let entry = try String(contentsOf: folder.file("thumbnailers/quire.thumbnailer"), encoding: .utf8)
    #expect(entry.hasPrefix("[Thumbnailer Entry]\n"))
    #expect(entry.contains(" thumbnail -s %s %u %o\n"))
    #expect(entry.contains("MimeType=text/markdown;"))
    #expect(entry.contains("TryExec=/"))
  }

  @Test func batchExitsZeroWhenAllSucceedAndOneWhenSomeFail() async throws {
    let good = try folder.write("# Good\n", to: "good.md")
    let out = folder.file("out").path
    let allMade = try await quire(["thumbnail", "--json", "--output", out, good.path])
    #expect(allMade.status == 0, "\(allMade.error)")
    #expect(allMade.output.contains("\"status\":\"made\""), "\(allMade.output)")
    #expect(FileManager.default.fileExists(atPath: out + "/good.md.png"))
    let bad = try folder.write("%PDF-1.4 junk", to: "bad.pdf")
    let someFailed = try await quire(["thumbnail", "--json", "--output", out, good.path, bad.path])
    #expect(someFailed.status == 1)
    let statuses = someFailed.output.split(separator: "\n").map { line in
      (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]).flatMap { $0["status"] as? String }
    }
    #expect(statuses.sorted { ($0 ?? "") < ($1 ?? "") } == ["failed", "made"], "\(someFailed.output)")
  }

  @Test func previewWritesHTMLAndText() async throws {
    let input = try folder.write("# Title\n\n<script>x</script>\n", to: "p.md")
    let html = folder.file("p.html")
    let wrote = try await quire(["preview", input.path, "--output", html.path])
    #expect(wrote.status == 0 && wrote.output.isEmpty, "\(wrote.error)")
    let page = try String(contentsOf: html, encoding: .utf8)
    #expect(page.contains("<h1>Title</h1>") && !page.contains("<script>"))
    let text = folder.file("p.txt")
    #expect(try await quire(["preview", input.path, "--format", "text", "--output", text.path]).status == 0)
    #expect(try String(contentsOf: text, encoding: .utf8) == "Title")
    let missing = try await quire(["preview", folder.file("none.md").path])
    #expect(missing.status == 1 && missing.output.isEmpty)
    #expect(missing.error.contains("none.md': there is no such file."), "\(missing.error)")
  }
}

@Suite("quire demo")
final class DemoCommandTests: FolderSuite, RunsQuire {
  @Test func toursAFolderAndWritesPrivatePreviewsAndThumbnails() async throws {
    let input = folder.file("in")
    let output = folder.file("out")
    try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
    try Data("# Hello\n\n日本語\n".utf8).write(to: input.appendingPathComponent("note.md"))
    try writePDF(to: input.appendingPathComponent("doc.pdf"), pages: ["page one"])
    let toured = try await quire(["demo", input.path, "--output", output.path])
    #expect(toured.status == 0, "\(toured.error)")
    #expect(toured.output.contains("note.md") && toured.output.contains("doc.pdf"), "\(toured.output)")
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
    let toured = try await quire(["demo", input.path, "--output", output.path])
    #expect(toured.status == 1)
    #expect((toured.output + toured.error).contains("broken.pdf"), "\(toured.output)\(toured.error)")
    #expect(FileManager.default.fileExists(atPath: output.appendingPathComponent("a.png").path))
  }

  @Test func aMissingFolderIsAClearFailure() async throws {
    let toured = try await quire(["demo", folder.file("absent").path, "--output", folder.file("o").path])
    #expect(toured.status == 1)
    #expect(toured.error.contains("absent"), "\(toured.error)")
  }
}
