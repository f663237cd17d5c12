import Foundation
import QuireTestSupport
import Testing

/// One edit script, run through `ed -s t.txt` and through quire on identical folders.
struct EdScript: CustomTestStringConvertible, Sendable {
  var name: String
  var script: String
  /// Whether quire runs it as a drop-in ed (`quire -s t.txt`: the same bytes on both outputs,
  /// errors included) rather than in its own mode (`quire t.txt`, for a script that succeeds).
  var dropIn = false
  var testDescription: String { name }
  init(_ name: String, _ script: String) {
    self.name = name
    self.script = script
  }

  /// A script quire runs as a drop-in ed.
  static func dropIn(_ name: String, _ script: String) -> EdScript {
    var script = EdScript(name, script)
    script.dropIn = true
    return script
  }
}

/// The fixture both programs start from: `t.txt` is edited; the others are read or written.
let fixtureFiles: [String: String] = [
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

/// Scripts run through `ed -s FILE` and `quire -s FILE` (quire as a drop-in ed): standard output,
/// standard error, exit status and the files must all be the same, errors and `H` messages
/// included. A piped script goes on after an error, as ed's does.
let edModeScripts: [EdScript] = [
  .dropIn("H prints ed's messages", "H\n9p\n,s/zzz/y/\nkA\n3,2p\nX\nu\nw\nq"),
  .dropIn("h prints the last error", "9p\nh\n2p"),
  .dropIn("errors go on in a piped script, and the status says so", "1d\n9p\n2p\nw\nq"),
  .dropIn("q warns once", "H\n1d\nq\n2p\nq\nq"),
  .dropIn("end of input with unsaved changes", "H\n1d"),
  .dropIn("end of input after q warned", "1d\nq"),
  .dropIn("P shows the prompt", "P\n2p\nP\n3p"),
  .dropIn("y and x", "2,3y\n$x\n.=\n0x\n,p\nw\nq"),
  .dropIn("d c j fill the cut buffer", "2d\n$x\n1,2j\n0x\n3c\nC\n.\nx\n,p\nQ"),
  .dropIn("z scrolls", "1z2\nz\n.=\n2z\n$z\n.="),
  .dropIn("comments and blank suffixes", "2# note\n.=\n2p \n"),
  .dropIn("shell escape", "!echo hello\n!!\n2p"),
  .dropIn("shell escape with the file name", "!wc -l %\n!echo \\%"),
  .dropIn("read a command's output", "0r !echo first; echo second\n.=\n,p\nQ"),
  .dropIn("write to a command", "2,3w !tr a-z A-Z\nw !wc -l\nQ"),
  .dropIn("edit a command's output", "e !printf 'x\\ny\\n'\n,p\nf\nQ"),
  .dropIn("a shell command reads the script's next lines", "!read one; echo got $one\nthe line it reads\n2p"),
  .dropIn("l escapes dollars and backslashes", "1s/$/ $5 \\\\x/\n1l\n1n\nQ"),
  .dropIn("s suffixes in any order", "1s/o/0/pn\n2s/t/T/gl\n3s/e/E/2p\n,s/o/O/Ig\n,p\nQ"),
  .dropIn("bare s flags", "1s/o/0/\n3s\n4sp\n5sg\n,p\nQ"),
  .dropIn("case-insensitive search", "/FOUR/I=\n?ONE?I=\ng/T/Is/$/!/\n,p\nQ"),
  .dropIn("G runs a command per line", "G/o/\np\n\ns/o/0/\n&\n,p\nQ"),
  .dropIn("V runs a command per line", "V/o/n\nd\n,p\nQ"),
  .dropIn("q inside g", "g/t/p\\\nq"),
  .dropIn("wq and wQ", "1d\nwQ"),
  .dropIn("bad suffixes", "H\nppp\n2pp\n1s/o/0/gg\n1s/o/0/3g\nw\nq"),
  .dropIn("u and undo toggle", "2d\nu\nu\nu\n,p\nw\nq"),
  .dropIn("word commands that are ed commands are ed's", "1c\nrad\n.\nstatus\n2c\nsave me \n.\nsave as x\n,p\nQ"),
  .dropIn("files that cannot be read or written are named on stderr", "H\nr nosuch.txt\nw nodir/x.txt\nW nodir/y.txt\n2p\ne nosuch.txt\n,p\nf\nq"),
]

/// The same scripts through GNU ed and quire: what they print, how they end and the files they
/// leave.
@Suite("ed parity: the same scripts through GNU ed -s and quire", .enabled(if: ProcessRunner.ed != nil, "GNU ed is not installed (apt-get install ed)"))
struct EdParityTests {
  /// quire in its own mode (the script succeeds in ed) or as a drop-in ed prints, ends and
  /// writes exactly as ed does.
  @Test(arguments: edScripts + edModeScripts)
  func scriptMatchesEd(_ script: EdScript) async throws {
    let run = try await ParityRun(script.script + "\n", ed: ["-s", "t.txt"], quire: script.dropIn ? nil : ["t.txt"])
    if !script.dropIn { #expect(run.ed.status == 0, "ed itself failed on \(script.name): \(run.ed.output)") }
    run.expectSame(script.name)
  }

  @Test(arguments: failingEdScripts)
  func failingScriptFailsLikeEd(_ script: EdScript) async throws {
    let run = try await ParityRun(script.script + "\n", ed: ["-s", "t.txt"], quire: ["t.txt"])
    #expect(run.ed.status != 0)
    #expect(run.quire.status != 0)
    // ed prints a bare "?" on standard output; quire prints one line naming the failure on
    // standard error. Everything else printed before the failure is the same.
    let edOutput = run.ed.output.split(separator: "\n", omittingEmptySubsequences: false).filter { $0 != "?" }
    #expect(run.quire.output.split(separator: "\n", omittingEmptySubsequences: false) == edOutput)
    let errorLines = run.quire.error.split(separator: "\n")
    #expect(errorLines.count == 1, "expected one error line, got: \(run.quire.error)")
    #expect(errorLines.first?.hasPrefix("quire: ") == true)
    #expect(run.quireFiles == run.edFiles)
  }

  @Test func failureNamesTheLine() async throws {
    let run = try await ParityRun("1p\n2p\n40p\n3p\n", ed: ["-s", "t.txt"], quire: ["t.txt"])
    #expect(run.quire.status == 1)
    #expect(run.quire.output == "one\ntwo\n")
    #expect(run.quire.error == "quire: line 3: invalid address: line 40 is past the end (5 lines)\n")
  }

  /// Files of 4 MiB or more are read into the document layer's mapped scratch copy, which the
  /// buffer shares, and written from their chunks: a text, a binary one without a final
  /// newline (its last line stays unended until changed), a binary one with, edited, read into
  /// and written as ed does.
  @Test func largeFilesMatchEd() async throws {
    var text = ""
    var line = 0
    while text.utf8.count < 5 << 20 {
      line += 1
      text += "\(line): the quick brown fox\n"
    }
    let files: [String: Data] = [
      "plain.txt": Data(text.utf8),
      "binary.bin": Data((text + "nul \u{0} here").utf8),
      "ended.bin": Data(("nul \u{0}\n" + text).utf8),
    ]
    let scripts: [(String, String)] = [
      ("plain.txt", "$=\n$p\n1000s/fox/cat/\n,s/brown/red/g\nw\nr binary.bin\n$=\nw both.txt\nq"),
      ("binary.bin", "$=\n2d\nw\n$l\n$s/here/there/\nw again.bin\nu\nw\nq"),
      ("binary.bin", "g/9:/d\nw\nu\nw undone.bin\nq"),
      ("ended.bin", "1l\n$a\nadded\n.\nw\nr plain.txt\nw\nq"),
    ]
    for (file, script) in scripts {
      try await ParityRun(script + "\n", ed: ["-s", file], files: files).expectSame("\(file): \(script)")
    }
  }

  /// GNU ed's words and bytes when a last line has no newline: "Newline appended" (with `-s`
  /// too, on standard output) when a file's or a command's unended last line gets one, "Newline
  /// inserted" when lines are read after a binary buffer's unended last line, ed's byte counts
  /// (without `-s`), and a binary buffer (one that ever held a NUL, ended or not) keeping a read
  /// text's unended last line unended at its end.
  @Test func unendedLastLinesAndBinaryBuffersMatchEd() async throws {
    let files: [String: Data] = [
      "nonl.txt": Data("a\nb".utf8),
      "bin.bin": Data([0x78, 0x00, 0x79, 0x0A, 0x7A]),
      "binnl.bin": Data([0x78, 0x00, 0x79, 0x0A, 0x7A, 0x0A]),
      "empty.txt": Data(),
    ]
    let scripts: [(String, String)] = [
      ("nonl.txt", ",p\nw\nq"),
      ("nonl.txt", "w\nq"),
      ("t.txt", "r nonl.txt\n0r nonl.txt\n2r nonl.txt\n,p\nw\nq"),
      ("t.txt", "e nonl.txt\n,l\nw\nq"),
      ("empty.txt", "r nonl.txt\nw\nq"),
      ("bin.bin", "r nonl.txt\n,l\nw\nq"),
      ("bin.bin", "0r nonl.txt\n1r nonl.txt\n,l\nw\nq"),
      ("binnl.bin", "r nonl.txt\n,l\nw\nq"),
      ("binnl.bin", "1r nonl.txt\nw\nq"),
      ("binnl.bin", "1d\nr nonl.txt\nw\nq"),
      ("t.txt", "r binnl.bin\nr nonl.txt\nw\nq"),
      ("t.txt", "r bin.bin\nr nonl.txt\nw\nq"),
      ("nonl.txt", "r bin.bin\nw\nq"),
      ("bin.bin", "r bin.bin\nw\nq"),
      ("t.txt", "r !printf x\n0r !printf 'y\\nz'\n,p\nw\nq"),
      ("t.txt", "e !printf 'x\\ny'\n,p\nQ"),
    ]
    for options in [["-s"], ["-l"]] {
      for (file, script) in scripts {
        try await ParityRun(script + "\n", ed: options + [file], files: files).expectSame("\(options) \(file): \(script)")
      }
    }
  }

  @Test func optionsAndFileArgumentsMatchEd() async throws {
    let cases: [(ed: [String], quire: [String], script: String)] = [
      (["-p", "> ", "t.txt"], ["-p", "> ", "t.txt"], "2p\nw\nq"),  // byte counts without -s
      (["-s", "missing.txt"], ["-s", "missing.txt"], "a\nnew\n.\nw\nq"),
      (["-sq", "missing.txt"], ["-sq", "missing.txt"], "p\nq"),
      (["-sl", "t.txt"], ["-sl", "t.txt"], "9p\nq"),
      (["-s", "-p:", "t.txt"], ["-s", "-p:", "t.txt"], "2p\nq"),
      (["-sp:", "t.txt"], ["-sp:", "t.txt"], "1p\nq"),
      (["-v", "-s", "t.txt"], ["-v", "-s", "t.txt"], "9p\nq"),
      (["-r", "-s", "t.txt"], ["-r", "-s", "t.txt"], "H\n!echo no\nr /etc/hostname\nw ../x\nq"),
      (["-E", "-s", "t.txt"], ["-E", "-s", "t.txt"], "1s/(o)(n)/\\2\\1/p\n,s/e+/E/gp\nQ"),
      (["-G", "-s", "t.txt"], ["-G", "-s", "t.txt"], "H\n1l\n2m\n2t\n!!\nQ"),
      (["-s", "--", "-dash.txt"], ["-s", "--", "-dash.txt"], ",p\nq"),
      (["-s", "!cat t.txt"], ["-s", "!cat t.txt"], ",p\nf\nQ"),
      (["-s", "--strip-trailing-cr", "crlf.txt"], ["-s", "--strip-trailing-cr", "crlf.txt"], ",l\nr crlf.txt\n,l\nw\nq"),
      (["-s", "crlf.txt"], ["-s", "crlf.txt"], ",l\nQ"),
    ]
    let files = ["-dash.txt": Data("dash\n".utf8), "crlf.txt": Data("one\r\ntwo\r\n".utf8)]
    for (edArguments, quireArguments, script) in cases {
      try await ParityRun(script + "\n", ed: edArguments, quire: quireArguments, files: files).expectSame("\(quireArguments)")
    }
  }
}
