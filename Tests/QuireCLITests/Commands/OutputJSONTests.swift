import Foundation
import Testing

@testable import QuireCLI

/// The one JSON encoder of the commands' output: the same value prints the same bytes from
/// every command (keys sorted, ISO 8601 dates, slashes as they are), checked against golden
/// text.
@Suite("OutputJSON: the commands' one JSON encoder")
struct OutputJSONTests {
  struct Sample: Encodable {
    var zebra = "last"
    var path = "/home/user/Documents/a.md"
    var modified = Date(timeIntervalSince1970: 1_795_000_000)
    var nested = ["b": 2, "a": 1]
    var alpha: String? = nil
  }

  @Test func aDocumentIsIndentedWithSortedKeysISODatesAndPlainSlashes() throws {
    let golden = """
      {
        "modified" : "2026-11-18T11:06:40Z",
        "nested" : {
          "a" : 1,
          "b" : 2
        },
        "path" : "/home/user/Documents/a.md",
        "zebra" : "last"
      }
      """
    #expect(try OutputJSON.encode(Sample()) == golden)
  }

  @Test func aStreamValueIsOneLineWithTheSameRules() throws {
    #expect(
      try OutputJSON.encodeLine(Sample())
        == #"{"modified":"2026-11-18T11:06:40Z","nested":{"a":1,"b":2},"path":"/home/user/Documents/a.md","zebra":"last"}"#)
  }

  @Test func theBrowserCommandsPrintThroughIt() throws {
    #expect(try BrowserJSON.encode(Sample()) == OutputJSON.encode(Sample()))
    #expect(try BrowserJSON.encodeLine(Sample()) == OutputJSON.encodeLine(Sample()))
    #expect(try TypeCommand.encode(Sample()) == OutputJSON.encode(Sample()))
  }
}
