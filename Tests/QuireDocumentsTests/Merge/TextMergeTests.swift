import Foundation
import QuireTypes
import Testing

@testable import QuireDocuments

/// `TextMerge`, the three-way merge behind document conflicts (libgit2's `git_merge_file`).
@Suite("TextMerge")
struct TextMergeTests {
  @Test func editsOfDifferentLinesAreCombined() throws {
    let merged = try TextMerge.merge(base: "one\ntwo\nthree\nfour\n", mine: "ONE\ntwo\nthree\nfour\n", theirs: "one\ntwo\nthree\nFOUR\n")
    #expect(merged == TextMerge.Result(text: "ONE\ntwo\nthree\nFOUR\n", conflicts: 0))
  }

  @Test func theSameEditOnBothSidesIsNoConflict() throws {
    let merged = try TextMerge.merge(base: "a\nb\n", mine: "a\nB\n", theirs: "a\nB\n")
    #expect(merged == TextMerge.Result(text: "a\nB\n", conflicts: 0))
  }

  @Test func oneSideUnchangedTakesTheOther() throws {
    #expect(try TextMerge.merge(base: "a\nb\n", mine: "a\nb\n", theirs: "x\n") == TextMerge.Result(text: "x\n", conflicts: 0))
    #expect(try TextMerge.merge(base: "a\nb\n", mine: "", theirs: "a\nb\n") == TextMerge.Result(text: "", conflicts: 0))
  }

  @Test func conflictingEditsKeepBothBetweenMarkers() throws {
    let merged = try TextMerge.merge(base: "title\nbody\nend\n", mine: "title\nmy body\nend\n", theirs: "title\ntheir body\nend\n")
    #expect(merged.conflicts == 1)
    #expect(merged.text == "title\n<<<<<<< mine\nmy body\n=======\ntheir body\n>>>>>>> theirs (on disk)\nend\n")
  }

  @Test func eachSeparateConflictIsCounted() throws {
    let base = (1...30).map { "line \($0)\n" }.joined()
    func edited(_ word: String) -> String {
      (1...30).map { [5, 15, 25].contains($0) ? "\(word) \($0)\n" : "line \($0)\n" }.joined()
    }
    let merged = try TextMerge.merge(base: base, mine: edited("mine"), theirs: edited("theirs"))
    #expect(merged.conflicts == 3)
    #expect(merged.text.components(separatedBy: ">>>>>>> theirs (on disk)\n").count == 4)
  }

  @Test func labelsNameTheSides() throws {
    let merged = try TextMerge.merge(base: "x\n", mine: "1\n", theirs: "2\n", mineLabel: "this Mac", theirsLabel: "other editor")
    #expect(merged.text == "<<<<<<< this Mac\n1\n=======\n2\n>>>>>>> other editor\n")
    #expect(merged.conflicts == 1)
  }

  @Test func emptyInputsMergeToEmpty() throws {
    #expect(try TextMerge.merge(base: "", mine: "", theirs: "") == TextMerge.Result(text: "", conflicts: 0))
  }

  @Test func bothAddingToAnEmptyBaseConflicts() throws {
    let merged = try TextMerge.merge(base: "", mine: "mine\n", theirs: "theirs\n")
    #expect(merged.conflicts == 1)
    #expect(merged.text.contains("mine\n=======\ntheirs\n"))
  }

  @Test func aMissingFinalNewlineIsKept() throws {
    #expect(try TextMerge.merge(base: "a\nb", mine: "A\nb", theirs: "a\nb") == TextMerge.Result(text: "A\nb", conflicts: 0))
  }

  @Test func unicodeAndRepairedBytesSurvive() throws {
    // A Swift String holds valid UTF-8 only: bytes that were not (read with repair) arrive as U+FFFD.
    let repaired = String(decoding: [0x61, 0xFF, 0x0A, 0x62, 0x0A], as: UTF8.self)
    let merged = try TextMerge.merge(base: repaired, mine: "日本語\n" + repaired, theirs: repaired + "émoji 👍\n")
    #expect(merged == TextMerge.Result(text: "日本語\na\u{FFFD}\nb\némoji 👍\n", conflicts: 0))
  }

  @Test func textWithNULBytesIsNeverMergedSilently() throws {
    // xdiff takes text with a NUL for binary and merges nothing: both sides are kept whole,
    // as one conflict (it gave back empty text with no conflict, losing both).
    let merged = try TextMerge.merge(base: "a\u{0}\n", mine: "b\u{0}\n", theirs: "c\u{0}")
    #expect(merged == TextMerge.Result(text: "<<<<<<< mine\nb\u{0}\n=======\nc\u{0}\n>>>>>>> theirs (on disk)\n", conflicts: 1))
  }

  @Test func largeDocumentsMergeEditsAtBothEnds() throws {
    let lines = (0..<100_000).map { "line \($0) of a long document\n" }
    let base = lines.joined()
    var mine = lines
    mine[0] = "the first line, edited here\n"
    var theirs = lines
    theirs[99_999] = "the last line, edited there\n"
    let merged = try TextMerge.merge(base: base, mine: mine.joined(), theirs: theirs.joined())
    #expect(merged.conflicts == 0)
    var expected = lines
    expected[0] = mine[0]
    expected[99_999] = theirs[99_999]
    #expect(merged.text == expected.joined())
  }
}
