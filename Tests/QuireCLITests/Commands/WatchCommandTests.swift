import Foundation
import QuireTestSupport
import SystemPackage
import Testing

@testable import QuireCLI

@Suite("quire watch")
final class WatchCommandTests: FolderSuite, RunsQuire {

  @Test func aMissingPathFailsWithOne() async throws {
    let result = try await quire(["watch", "--runtime-folder", folder.url.path, folder.file("absent.md").path])
    #expect(result.status == 1)
    #expect(result.error.contains("absent.md"), "\(result.error)")
  }

  // No path at all is a usage error: GoldenOutputTests.usageErrors.

  @Test(arguments: ["0", "-1", "nan", "inf", "100000", "soon"])
  func aPollIntervalOutOfRangeIsAUsageError(_ value: String) async throws {
    let file = try folder.write("one\n", to: "watched.txt")
    let result = try await quire(["watch", "--poll-interval", value, "--runtime-folder", folder.url.path, file.path])
    #expect(result.status == 2, "\(result.error)")
    #expect(result.error.contains("poll-interval"), "\(result.error)")
  }

  @Test func aLocalFileIsNotPolledAndNothingIsSaidOfPolling() async throws {
    let file = try folder.write("one\n", to: "local.txt")
    let result = try await quire(["watch", "--seconds", "0.5", "--runtime-folder", folder.url.path, file.path])
    #expect(result.status == 0, "\(result.error)")
    #expect(!result.error.contains("polling"), "\(result.error)")
  }

  // The time limit only guards against a hang: with `--seconds 3600`, returning at all means
  // the command stopped on the message.
  @Test(.timeLimit(.minutes(5))) func stopsAfterTheAskedNumberOfMessages() async throws {
    let file = try folder.write("one\n", to: "watched.txt")
    let writer = keepAppending(to: FilePath(file.path))
    defer { writer.cancel() }
    let result = try await quire(["watch", "--count", "1", "--seconds", "3600", "--runtime-folder", folder.url.path, file.path])
    #expect(result.status == 0, "\(result.error)")
    let lines = result.output.split(separator: "\n")
    #expect(lines.count == 1 && lines.first?.contains("watched.txt") == true, "\(result.output)")
  }
}
