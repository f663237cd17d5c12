import QuireTestSupport
import QuireTypes
import Testing

/// The test suite's check of an error's code and words (`expectQuireError`) must fail where it should:
/// each case here is a known issue, and Swift Testing fails the test if one is not recorded.
@Suite("expectQuireError: the check of an error's code and words")
struct ExpectingErrorsTests {
  let missing = QuireError(.fileMissing, "Cannot open 'a.md': it does not exist.")

  @Test func theRightCodeAndWordsPassAndGiveTheError() {
    let error = expectQuireError(.fileMissing, reasonContains: "'a.md'", "does not exist") { throw missing }
    #expect(error?.reason == missing.reason)
  }

  @Test func anotherCodeFails() {
    withKnownIssue { expectQuireError(.diskFull) { throw missing } }
  }

  @Test func wordsTheReasonDoesNotSayFail() {
    withKnownIssue { expectQuireError(.fileMissing, reasonContains: "'b.md'") { throw missing } }
  }

  @Test func noErrorFails() {
    withKnownIssue { #expect(expectQuireError(.fileMissing) { 42 } == nil) }
  }

  @Test func anErrorOfAnotherTypeFails() async {
    struct Other: Error {}
    await withKnownIssue { await expectQuireError(.fileMissing) { () async throws in throw Other() } }
  }
}
