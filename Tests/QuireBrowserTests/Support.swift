import Foundation
import QuireBrowser
import QuireTestSupport

/// Runs a program (an argument array, never a shell) with `environment` added to the test
/// process's, feeding `input`, and waits for it.
func runTool(_ path: String, _ arguments: [String], environment extra: [String: String] = [:], input: String? = nil) throws -> ProcessResult {
  try ChildProcess.runBlocking(
    URL(fileURLWithPath: path), arguments, environment: ProcessInfo.processInfo.environment.merging(extra) { $1 }, input: Data((input ?? "").utf8))
}

/// What most browser suites start from: a temporary folder, browsed by a `DocumentBrowser`
/// whose XDG folders are inside it (``testEnvironment(_:)``), removed when the suite is done.
/// Suites inherit it (`final class SearchTests: BrowserTestCase`).
class BrowserTestCase: FolderSuite {
  let browser: DocumentBrowser
  var environment: [String: String] { testEnvironment(folder) }

  /// - Parameter templates: The browser's templates folder, for suites that make documents from them.
  init(templates: URL? = nil) throws {
    let folder = try TemporaryFolder()
    browser = DocumentBrowser(configuration: .init(locations: [folder.url], environment: testEnvironment(folder), templatesFolder: templates))
    super.init(folder: folder)
  }

  convenience init() throws { try self.init(templates: nil) }
}
