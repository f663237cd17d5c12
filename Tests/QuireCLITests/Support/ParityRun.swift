import Foundation
import QuireTestSupport
import Testing

/// One script run through GNU ed and through quire, each in a fresh folder holding the ed
/// fixture files (``fixtureFiles``) and `files`: what each printed, how it ended, and the files
/// it left.
struct ParityRun {
  /// What GNU ed printed and how it ended.
  let ed: ProcessResult
  /// What quire printed and how it ended.
  let quire: ProcessResult
  /// The files in ed's folder afterwards (``ProcessRunner/snapshot(_:)``).
  let edFiles: [String: Data]
  /// The files in quire's folder afterwards.
  let quireFiles: [String: Data]

  /// Runs `input` through `ed edArguments` and `quire quireArguments` (the same arguments when
  /// `quireArguments` is `nil`); fails the test when either program is missing.
  init(_ input: String, ed edArguments: [String], quire quireArguments: [String]? = nil, files: [String: Data] = [:]) async throws {
    let edProgram = try #require(ProcessRunner.ed, "GNU ed is not installed (apt-get install ed)")
    let quireProgram = try #require(ProcessRunner.quire, "the quire executable is not built; run 'swift build' first")
    let edFolder = try Self.fixture(files)
    defer { edFolder.remove() }
    let quireFolder = try Self.fixture(files)
    defer { quireFolder.remove() }
    ed = try await ProcessRunner.run(edProgram, edArguments, in: edFolder.url, input: input)
    quire = try await ProcessRunner.run(quireProgram, quireArguments ?? edArguments, in: quireFolder.url, input: input)
    edFiles = ProcessRunner.snapshot(edFolder.url)
    quireFiles = ProcessRunner.snapshot(quireFolder.url)
  }

  private static func fixture(_ files: [String: Data]) throws -> TemporaryFolder {
    let folder = try TemporaryFolder(prefix: "quire-ed")
    for (name, text) in fixtureFiles { try folder.write(text, to: name) }
    for (name, data) in files { try data.write(to: folder.file(name)) }
    return folder
  }

  /// Expects quire to have printed, ended and written exactly as ed did; `label` says which
  /// case failed.
  func expectSame(_ label: String = "", sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(quire.output == ed.output, "\(label)", sourceLocation: sourceLocation)
    #expect(quire.error == ed.error, "\(label)", sourceLocation: sourceLocation)
    #expect(quire.status == ed.status, "\(label)", sourceLocation: sourceLocation)
    #expect(quireFiles == edFiles, "\(label)", sourceLocation: sourceLocation)
  }
}
