import Foundation
import QuireTestSupport
import Testing

/// One edit script, run through `ed -s FILE` and `quire FILE` on identical folders.
struct EdScript: CustomTestStringConvertible, Sendable {
  var name: String
  var script: String
  var testDescription: String { name }
  init(_ name: String, _ script: String) {
    self.name = name
    self.script = script
  }
}

/// The fixture both programs start from: `t.txt` is edited; the others are read or written.
private let fixtureFiles: [String: String] = [
  "t.txt": "one\ntwo\nthree\nfour\nfive\n",
  "other.txt": "alpha\nbeta\n",
  "mixed.txt": "tab\there\u{1}\u{7f}\\back\nlong \(String(repeating: "x", count: 150)) end\nü日本 café\n\n# heading\nlast line\n",
]

/// Scripts covering every ed command quire lists: addresses, p n l = a i c d j m t s g v w q Q e r k u.
let edScripts: [EdScript] = [
  // Addresses
  EdScript("print all with comma", ",p"),
  EdScript("print range and numbers", "2,4n"),
  EdScript("semicolon sets the current line", "2;+1p"),
  EdScript("relative addresses", "3\n-,+p"),
  EdScript("plus and minus alone", "3\n++=\n--="),
  EdScript("dollar arithmetic", "$-2,$-1p"),
  EdScript("forward search", "/t/="),
  EdScript("backward search", "?o?p"),
  EdScript("search with offset", "/o/+1="),
  EdScript("search repeats the last pattern", "/t\n//"),
  EdScript("blank-separated numbers add", "2 2="),
  EdScript("three addresses use the last two", "2,3,4p"),
  EdScript("comma forms", ",5p\n2,p"),
  EdScript("semicolon alone", "2\n;p"),
  EdScript("an address alone prints the line", "2\n"),
  EdScript("newline prints the next line", "1\n\n\n"),
  EdScript("marks", "2ka\n'a,$p\n4kb\n'a,'bn"),
  EdScript("marks follow moved lines", "2ka\n3,4m0\n'a=\nQ"),
  // = p n l
  EdScript("equals", "=\n2=\n.=\n0="),
  EdScript("list escapes and wraps long lines", "e mixed.txt\n,l\n2ln\n,n\nq"),
  EdScript("suffixes combine", "2pln"),
  // a i c d j
  EdScript("append at end", "$a\nsix\nseven\n.\nw\nq"),
  EdScript("insert at top", "0i\nzero\n.\n,n\nw\nq"),
  EdScript("insert before a line", "3i\nbefore three\n.\n.=\nw\nq"),
  EdScript("change lines", "2,3c\nTWO\nTHREE\n.\n.=\n,p\nw\nq"),
  EdScript("change with nothing", "2c\n.\n.=\nw\nq"),
  EdScript("delete range", "2,3d\n.=\nw\nq"),
  EdScript("delete last line", "$d\n.=\nw\nq"),
  EdScript("join", "1,3j\n,p\nw\nq"),
  EdScript("join default pair", "2\nj\np\nw\nq"),
  EdScript("join one address does nothing", "2j\n.=\nw\nq"),
  // m t
  EdScript("move to end", "1m$\n.=\nw\nq"),
  EdScript("move range down", "1,2m3\n.=\n,p\nw\nq"),
  EdScript("move in place", "2,3m3\n.=\nw\nq"),
  EdScript("copy to top", "1t0\n.=\n,p\nw\nq"),
  EdScript("copy range to end", "1,2t$\n.=\nw\nq"),
  // s
  EdScript("substitute global on all lines", ",s/o/0/g\nw\nq"),
  EdScript("substitute groups and ampersand", "1s/\\(o\\)\\(n\\)/[\\2\\1&\\&]/p\nw\nq"),
  EdScript("substitute nth occurrence", "3s/e/E/2p\n,s/e/E/1\nw\nq"),
  EdScript("substitute splits a line", "1s/n/\\\nN/\n,p\n.=\nw\nq"),
  EdScript("substitute empty pattern reuses", "1s/o/0/\n2s//%/p\nw\nq"),
  EdScript("substitute percent reuses replacement", "1s/o/Q/\n2s/t/%/p\nw\nq"),
  EdScript("bare s repeats", "1s/o/O/\n2,4s\n,p\nw\nq"),
  EdScript("open delimiter prints", "1s/o/x\nw\nq"),
  EdScript("other delimiter", "1s,o,x,p\nw\nq"),
  EdScript("empty match without g", "1s/x*/-/p\n3s/e*$/X/p\nw\nq"),
  EdScript("bracket holds the delimiter", "1s/[/o]/x/\nw\nq"),
  EdScript("character classes and UTF-8", "e mixed.txt\n3s/[[:alpha:]]/X/gp\n3s/./Y/p\nw\nq"),
  EdScript("swap pairs", ",s/\\(.\\)\\(.\\)/\\2\\1/g\n,p\nw\nq"),
  EdScript("substitute doubles", "1,3s/o/&&/gp\nw\nq"),
  // g v
  EdScript("g default prints", "g/o/"),
  EdScript("g with n", "g/o/n"),
  EdScript("g substitutes and prints", "g/o/s/o/0/p\nw\nq"),
  EdScript("g command list", "g/o/s//0/\\\np\nw\nq"),
  EdScript("g appends text", "g/e/a\\\nadded\n,p\nw\nq"),
  EdScript("g text ends with dot", "g/e/a\\\nadded\\\n.\\\n.=\n,p\nw\nq"),
  EdScript("g reverses with m0", "g/^/m0\nw\nq"),
  EdScript("g copies", "g/o/t$\nw\nq"),
  EdScript("g on a range", "2,4g/./s/$/!/\nw\nq"),
  EdScript("g deletes", "g/o/d\nw\nq"),
  EdScript("g no match", "g/zzz/d\nw\nq"),
  EdScript("v deletes others", "v/o/d\nw\nq"),
  EdScript("g deletes lines it has still to visit", "g/t/+1d\n,p\nw\nq"),
  EdScript("g moves lines to the end", "g/o/m$\n,p\nw\nq"),
  EdScript("g splits lines with s", "g/./s/$/\\\nX/\n,p\nw\nq"),
  EdScript("g splits and prints", "g/o/s/o/\\\n/\\\np\nw\nq"),
  EdScript("v inserts", "v/x/i\\\n--\n,p\nw\nq"),
  EdScript("v substitutes", "v/e/s/.*/[&]/\nw\nq"),
  // u
  EdScript("undo restores lines and current line", "2d\nu\n.=\n,p\nq"),
  EdScript("undo a g as one step", "g/o/d\nu\n,p\n.=\nq"),
  EdScript("undo after two edits", "2d\n1d\nu\n.=\n,p\nw\nq"),
  EdScript("u twice redoes, and the current line goes back", "2d\n4\nu\n.=\nu\n.=\n,p\nw\nq"),
  EdScript("u after a g undoes the whole g", "g/e/s//E/g\n1\nu\n.=\nu\n.=\n,p\nw\nq"),
  EdScript("u after u after u", "$d\nu\nu\nu\n,p\nw\nq"),
  // w W r e f q Q
  EdScript("write to another file", "2,3w part.txt\nw\nq"),
  EdScript("write whole buffer elsewhere counts as saved", "1d\nw copy.txt\nq"),
  EdScript("wq", "1d\nwq"),
  EdScript("append with W", "1,3W other.txt\nq"),
  EdScript("read a file at the end", "r other.txt\n.=\nw\nq"),
  EdScript("read a file at the top", "0r other.txt\n.=\nw\nq"),
  EdScript("read the current file again", "r\n.=\nw\nq"),
  EdScript("edit another file", "e other.txt\n,p\n.=\nq"),
  EdScript("E discards without asking", "2d\nE other.txt\n,p\nq"),
  EdScript("file name", "f\nf renamed.txt\nf\nw\nq"),
  EdScript("q twice quits without saving", "1d\nQ"),
  EdScript("comments", "# a comment\n2p"),
  EdScript("h after no error", "h\n2p"),
]

/// Scripts that fail in both: quire must fail at the same line and leave the files as ed does.
let failingEdScripts: [EdScript] = [
  EdScript("address past the end", "2p\n9p\nw"),
  EdScript("address zero for p", "0p"),
  EdScript("backwards range", "3,2p"),
  EdScript("no match", "1p\n/zzz/p"),
  EdScript("bad regex", "1s/\\(/x/"),
  EdScript("unknown command", "X"),
  EdScript("nothing to put", "x"),
  EdScript("bad mark", "2kA"),
  EdScript("unset mark", "'zp"),
  EdScript("nothing to undo", "u"),
  EdScript("move into itself", "2,3m2"),
  EdScript("missing file", "e nonexistent.txt"),
  EdScript("missing delimiter", "1s/o"),
  EdScript("no previous substitution", "1s"),
  EdScript("no previous pattern", "//p"),
  EdScript("nested global", "g/o/g/x/p"),
  EdScript("infinite substitution", "1s/x*/-/g"),
  EdScript("q with unsaved changes", "1d\nq"),
  EdScript("end of script with unsaved changes", "1d"),
]

@Suite("ed parity: the same scripts through GNU ed -s and quire")
struct EdParityTests {
  @Test(arguments: edScripts)
  func scriptMatchesEd(_ script: EdScript) async throws {
    guard let (ed, quire) = try tools() else { return }
    let edRun = try Fixture(script)
    defer { edRun.folder.remove() }
    let quireRun = try Fixture(script)
    defer { quireRun.folder.remove() }
    let edResult = try await ProcessRunner.run(ed, ["-s", "t.txt"], in: edRun.folder.url, input: script.script + "\n")
    let quireResult = try await ProcessRunner.run(quire, ["t.txt"], in: quireRun.folder.url, input: script.script + "\n")
    #expect(edResult.status == 0, "ed itself failed on \(script.name): \(edResult.output)")
    #expect(quireResult.status == 0, "quire failed: \(quireResult.error)")
    #expect(quireResult.output == edResult.output)
    #expect(quireResult.error.isEmpty)
    #expect(ProcessRunner.snapshot(quireRun.folder.url) == ProcessRunner.snapshot(edRun.folder.url))
  }

  @Test(arguments: failingEdScripts)
  func failingScriptFailsLikeEd(_ script: EdScript) async throws {
    guard let (ed, quire) = try tools() else { return }
    let edRun = try Fixture(script)
    defer { edRun.folder.remove() }
    let quireRun = try Fixture(script)
    defer { quireRun.folder.remove() }
    let edResult = try await ProcessRunner.run(ed, ["-s", "t.txt"], in: edRun.folder.url, input: script.script + "\n")
    let quireResult = try await ProcessRunner.run(quire, ["t.txt"], in: quireRun.folder.url, input: script.script + "\n")
    #expect(edResult.status != 0)
    #expect(quireResult.status != 0)
    // ed prints a bare "?" on standard output; quire prints one line naming the failure on
    // standard error. Everything else printed before the failure is the same.
    let edOutput = edResult.output.split(separator: "\n", omittingEmptySubsequences: false).filter { $0 != "?" }
    #expect(quireResult.output.split(separator: "\n", omittingEmptySubsequences: false) == edOutput)
    let errorLines = quireResult.error.split(separator: "\n")
    #expect(errorLines.count == 1, "expected one error line, got: \(quireResult.error)")
    #expect(errorLines.first?.hasPrefix("quire: ") == true)
    #expect(ProcessRunner.snapshot(quireRun.folder.url) == ProcessRunner.snapshot(edRun.folder.url))
  }

  @Test func failureNamesTheLine() async throws {
    guard let (_, quire) = try tools() else { return }
    let run = try Fixture(EdScript("", ""))
    defer { run.folder.remove() }
    let result = try await ProcessRunner.run(quire, ["t.txt"], in: run.folder.url, input: "1p\n2p\n40p\n3p\n")
    #expect(result.status == 1)
    #expect(result.output == "one\ntwo\n")
    #expect(result.error == "quire: line 3: invalid address: line 40 is past the end (5 lines)\n")
  }

  private func tools() throws -> (URL, URL)? {
    guard let ed = ProcessRunner.ed else {
      print("note: GNU ed is not installed (apt-get install ed); skipping the ed parity checks")
      return nil
    }
    let quire = try #require(ProcessRunner.quire, "the quire executable is not built; run 'swift build' first")
    return (ed, quire)
  }
}

/// A temporary folder holding the fixture files.
struct Fixture {
  let folder: TemporaryFolder
  init(_ script: EdScript) throws {
    folder = try TemporaryFolder(prefix: "quire-ed")
    for (name, text) in fixtureFiles { try folder.write(text, to: name) }
  }
}
