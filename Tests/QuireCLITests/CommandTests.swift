import Foundation
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
}
