import Foundation
import QuireTestSupport
import Testing

/// Random scripts (from a fixed seed, so every run is the same) through `ed -s` and `quire -s`:
/// the mix of commands finds what single-command checks miss (the undo record after a command
/// that changed nothing, the cut buffer after s, marks on replaced lines, moves inside g).
@Suite("ed parity: random scripts through ed -s and quire -s")
struct EdRandomScriptTests {
  /// ed commands, and text for a, i and c. No text is a word command's name ("new"): when a
  /// command fails, its text lines run as commands, and a word command is quire's.
  static let commands = [
    "p", ",p", "1,3p", "2d", "$d", "1,2j", "j", "2t0", "1m$", "3m0", "2,3y", "$x", "0x", "x", "u", "=", ".=", "2z2", "1l", ",n",
    "s/o/0/", "s/e/E/g", ",s/t/T/2", "s", "sg", "sp", "g/o/p", "v/e/d", "g/t/s/t/X/g", "g/./m0", "2ka", "'a,$p", "/f/", "?o?",
    "//", "+1p", "2;+1p", "1c\nneu\n.", "a\nadd\n.", "0a\ntop\n.", "i\nins\n.", "3", "", "h", "1,$s/$/!/", "s/^/#/g", "m.", "2,4m1",
    "w out.txt", "r out.txt", "e out.txt", "f", "g/x/d", "100p", "G/o/\np\n\n&", "V/o/n\nd", "q", "2,$j", "g/e/t0", "s/x*/-/",
  ]

  /// A linear congruential generator: the same scripts on every machine.
  struct Scripts: Sequence, IteratorProtocol {
    var state: UInt64
    var left: Int
    mutating func next() -> String? {
      guard left > 0 else { return nil }
      left -= 1
      func draw(_ bound: Int) -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((state >> 33) % UInt64(bound))
      }
      let count = 3 + draw(10)
      return (0..<count).map { _ in EdRandomScriptTests.commands[draw(EdRandomScriptTests.commands.count)] }.joined(separator: "\n") + "\nQ\n"
    }
  }

  @Test(.enabled(if: ProcessRunner.ed != nil, "GNU ed is not installed (apt-get install ed)"), arguments: [1, 2, 3, 4] as [UInt64])
  func randomScriptsMatchEd(seed: UInt64) async throws {
    for script in Scripts(state: seed, left: 15) {
      try await ParityRun(script, ed: ["-s", "t.txt"]).expectSame("script:\n\(script)")
    }
  }
}
