import Foundation
import QuireSystem
import Testing

@testable import QuireCLI

/// The ed command parser on its own: a line becomes an ``EdCommand`` value with its addresses
/// as typed, with no document, file or terminal involved.
@Suite("ed command parser: lines to commands, without I/O")
struct EdCommandParserTests {
  @Test func addressesStayAsTypedForTheInterpreter() throws {
    let command = try EdCommand.parse("1,$p")
    #expect(command.addresses == [.number(1), .separator(UInt8(ascii: ",")), .last])
    #expect(command.action == .print(.print))
    let searched = try EdCommand.parse("/fox/I;+2n")
    #expect(
      searched.addresses == [
        .search(Array("fox".utf8), forward: true, ignoresCase: true), .separator(UInt8(ascii: ";")), .offset(2),
      ])
    #expect(searched.action == .print(.numbered))
    #expect(try EdCommand.parse("'a,.-d").addresses == [.mark(UInt8(ascii: "a")), .separator(UInt8(ascii: ",")), .current, .offset(-1)])
  }

  @Test func anAddressAloneOrNothingPrintsTheNextLine() throws {
    #expect(try EdCommand.parse("") == EdCommand(addresses: [], action: .printNext))
    #expect(try EdCommand.parse("7") == EdCommand(addresses: [.number(7)], action: .printNext))
  }

  @Test func commandsCarryTheirArguments() throws {
    #expect(try EdCommand.parse("kx").action == .mark(UInt8(ascii: "x")))
    #expect(try EdCommand.parse("1,2t$").action == .copy(destination: [.last], []))
    #expect(try EdCommand.parse("m0p").action == .move(destination: [.number(0)], .print))
    #expect(try EdCommand.parse("z5n").action == .scroll(lines: 5, .numbered))
    #expect(try EdCommand.parse("wq out.txt").action == .write(.file("out.txt"), appending: false, then: .quit))
    #expect(try EdCommand.parse("W log").action == .write(.file("log"), appending: true, then: nil))
    #expect(try EdCommand.parse("r !ls %").action == .read(.shell(Array("ls %".utf8))))
    #expect(try EdCommand.parse("!!").action == .shell(Array("!".utf8)))
    #expect(try EdCommand.parse("E").action == .edit(nil, unconditionally: true))
    #expect(try EdCommand.parse("# a comment").action == .comment)
  }

  @Test func substitutionsParseWithTheirFlags() throws {
    var expected = EdCommand.NewSubstitution(pattern: Array("a\\(b\\)".utf8))
    expected.replacement = Array("[\\1]".utf8)
    expected.isGlobal = true
    expected.suffixes = .print
    #expect(try EdCommand.parse("s/a\\(b\\)/[\\1]/gp").action == .substitute(.new(expected)))
    // % is the last replacement, which only the interpreter knows; a missing delimiter prints.
    guard case .substitute(.new(let percent)) = try EdCommand.parse("s/x/%").action else {
      Issue.record("s/x/% is a substitution")
      return
    }
    #expect(percent.replacement == nil && percent.printsImplicitly)
    #expect(try EdCommand.parse("s3r").action == .substitute(.repeatLast(.init(occurrence: 3, usesLastSearch: true))))
    #expect(try EdCommand.parse("sgp").action == .substitute(.repeatLast(.init(togglesGlobal: true, togglesPrinting: true))))
  }

  @Test func continuationLinesComeFromTheGivenSupplyOnly() throws {
    var supply = ["second\\", "third"]
    let command = try EdCommand.parse("g/re/s/x/first\\") { supply.isEmpty ? nil : supply.removeFirst() }
    guard case .global(let global) = command.action else {
      Issue.record("g is a global command")
      return
    }
    #expect(global.matching && !global.isInteractive)
    #expect(global.commands == ["s/x/first\\", "second\\", "third"])
    #expect(
      try EdCommand.parse("v/re/").action
        == .global(.init(matching: false, isInteractive: false, pattern: Array("re".utf8), ignoresCase: false, commands: ["p"], flags: [])))
  }

  @Test(arguments: [
    ("5.", "cannot follow another address"), ("kX", "a mark is one lower-case letter"), ("s/a/b/gg", "unexpected suffix after s"),
    ("pq", "only p, l or n may follow"), ("efile", "put a space between the command"), ("Y", "unknown command 'Y'"),
    ("s a b ", "s needs a delimiter"), ("g", "g and v need a regular expression"), ("/[a/p", "unbalanced brackets"),
    ("s/a/b\\", "ends with a backslash and no line follows"), ("1'a", "a mark cannot follow another address"),
  ])
  func badCommandsFailNamingWhatIsWrong(_ line: String, _ message: String) {
    #expect {
      _ = try EdCommand.parse(line)
    } throws: { error in
      (error as? EdError)?.message.contains(message) == true
    }
  }

  @Test func hugeNumbersAndBytesThatAreNotUTF8ParseWithoutTrapping() throws {
    #expect(try EdCommand.parse(String(repeating: "9", count: 400) + "p").addresses == [.number(Int.max / 2)])
    let name = PathText.string(bytes: [0x77, 0x20, 0x6E, 0xFF, 0x2E, 0x6D, 0x64])
    #expect(try EdCommand.parse(name).action == .write(.file(PathText.string(bytes: [0x6E, 0xFF, 0x2E, 0x6D, 0x64])), appending: false, then: nil))
    let long = String(repeating: "x", count: 1 << 20)
    guard case .substitute(.new(let substitution)) = try EdCommand.parse("s/\(long)/y/").action else {
      Issue.record("a long pattern is a substitution")
      return
    }
    #expect(substitution.pattern.count == 1 << 20)
  }
}

/// `s` on one line, as pure functions over its bytes.
@Suite("ed substitution: one line's bytes")
struct EdSubstitutionTests {
  private func apply(_ pattern: String, _ replacement: String, to line: String, global: Bool = false, occurrence: Int = 1) throws -> [String]? {
    let regex = try POSIXRegex(Array(pattern.utf8))
    return try Substitute.apply(to: Array(line.utf8), regex, Array(replacement.utf8), global: global, occurrence: occurrence)?
      .map { String(decoding: $0, as: UTF8.self) }
  }

  @Test func replacesTheFirstTheNthOrEveryMatch() throws {
    #expect(try apply("b", "[&]", to: "abcb") == ["a[b]cb"])
    #expect(try apply("b", "[&]", to: "abcb", occurrence: 2) == ["abc[b]"])
    #expect(try apply("b", "[&]", to: "abcb", global: true) == ["a[b]c[b]"])
    #expect(try apply("z", "y", to: "abc") == nil)
  }

  @Test func expandsGroupsEscapesAndNewlines() throws {
    #expect(try apply("\\(a\\)\\(b\\)", "\\2\\1\\&", to: "abc") == ["ba&c"])
    #expect(try apply("b", "1\\\n2", to: "abc") == ["a1", "2c"])
  }

  @Test func anEmptyMatchIsReplacedOnceWithGAndTwiceIsALoop() throws {
    #expect(try apply("^", "#", to: "abc", global: true) == ["#abc"])
    // As GNU ed, which fails `s/x*/-/g` on "abc".
    #expect {
      _ = try apply("x*", "-", to: "abc", global: true)
    } throws: { error in
      (error as? EdError)?.message.contains("infinite substitution loop") == true
    }
  }

  @Test func listFormatEscapesAndWraps() {
    let listed = EdEngine.listed(Array("a\tb$\\".utf8) + [0x01], prefix: [], columns: 72, traditional: false)
    #expect(String(decoding: listed, as: UTF8.self) == "a\\tb\\$\\\\\\001$")
    let wrapped = EdEngine.listed(Array("abcdef".utf8), prefix: [], columns: 4, traditional: true)
    #expect(String(decoding: wrapped, as: UTF8.self) == "abcd\\\nef")
  }
}
