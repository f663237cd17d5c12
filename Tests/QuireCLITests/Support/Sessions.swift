import Foundation
import Quire
import QuireTestSupport

@testable import QuireCLI

/// Collects what a session prints.
final class Transcript: @unchecked Sendable {
  // Only the test's own thread touches this (a session runs synchronously).
  var output: [String] = []
  var errors: [String] = []

  /// The interactive session's one-line refusals (`? REASON`), in order.
  var refusals: [String] { output.filter { $0.hasPrefix("? ") } }
}

/// A session over `lines`, in `folder`, interactive or as a script.
@MainActor
func makeSession(
  _ lines: [String], in folder: TemporaryFolder, interactive: Bool = true,
  autosave: AutosaveSettings? = nil, versionStore: VersionStore? = nil
) -> (REPLSession, Transcript) {
  let transcript = Transcript()
  var configuration = REPLSession.Configuration(
    isInteractive: interactive, documentsFolder: nil, templatesFolder: folder.file("Templates"),
    cacheHome: folder.file(".cache"))
  configuration.autosave = autosave
  configuration.versionStore = versionStore
  let session = REPLSession(
    configuration: configuration, source: ArrayLineSource(lines), output: { transcript.output.append($0) },
    errorOutput: { transcript.errors.append($0) })
  return (session, transcript)
}
