import Foundation
import QuireDocuments
import QuireFormats
import QuirePDF
import QuireTestSupport
import Testing

/// Opens a plain-text document on `text` written to `name` in `folder`, with autosave off and
/// recovery files in the test's own folder.
@MainActor
func openTextDocument(
  _ text: String, name: String = "notes.txt", in folder: TemporaryFolder,
  sourceLocation: SourceLocation = #_sourceLocation
) async throws -> PlainTextDocument {
  let url = try folder.write(text, to: name)
  let document = PlainTextDocument(fileURL: url)
  document.autosavePolicy = nil
  document.recoveryStore = RecoveryStore(folder: folder.file("state/recovery"))
  try await document.open()
  return document
}

/// The bytes of the file at `url` (empty when unreadable).
func bytes(_ url: URL) -> [UInt8] {
  (try? [UInt8](Data(contentsOf: url))) ?? []
}

/// The names in `folder`, sorted.
func names(in folder: URL) -> [String] {
  ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
}

/// The permission bits and owner of `url`.
func mode(_ url: URL) -> (mode: UInt32, uid: UInt32, links: Int) {
  var info = stat()
  lstat(url.path, &info)
  return (UInt32(info.st_mode & 0o7777), info.st_uid, Int(info.st_nlink))
}

/// Runs a system tool (poppler-utils, qpdf, zip, python3: scripts/setup installs them) with an
/// argument array, in `folder` when given (zip stores paths as given), and waits for it.
/// - Returns: Its exit status and output; `nil`, recording an issue, when it is not installed.
func runTool(_ name: String, _ arguments: [String], in folder: URL? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws
  -> ProcessResult?
{
  guard let tool = Programs.system(name) else {
    Issue.record("\(name) is not installed: scripts/setup installs it", sourceLocation: sourceLocation)
    return nil
  }
  return try ChildProcess.runBlocking(tool, arguments, in: folder)
}

/// `quire-documents-test-helper` (built beside the test binary) as a child process, through
/// QuireTestSupport's one process runner.
enum TestHelper {
  /// Starts the helper with `arguments`; its output is read line by line.
  static func start(_ arguments: [String]) throws -> RunningProcess {
    try ChildProcess.startBuilt("quire-documents-test-helper", arguments, discardingErrors: true)
  }

  /// Runs the helper to its end, or kills it after `timeLimit` seconds of CPU time
  /// (``ChildProcess/finish(_:cpuSeconds:)``).
  static func run(_ arguments: [String], timeLimit: Double) throws -> (status: Int32?, output: String) {
    ChildProcess.finish(try start(arguments), cpuSeconds: timeLimit)
  }
}

/// `document` as most tests want it, not yet opened: no autosave and no recovery files. For a
/// test that opens it its own way (from contents it read, as a new file, expecting a failure).
@MainActor
@discardableResult
func quiet<D: Document>(_ document: D) -> D {
  document.autosavePolicy = nil
  document.recoveryStore = nil
  return document
}

/// Opens `document` the way most tests want it (``quiet(_:)``), with `configure` run first for
/// the reading options a test is about (`readsBytesExactly`, ...).
@MainActor
@discardableResult
func openQuietly<D: Document>(_ document: D, configure: (D) -> Void = { _ in }) async throws -> D {
  configure(quiet(document))
  try await document.open()
  return document
}

/// A document controller as most tests want it: its state in `folder`'s `state`, autosave off.
@MainActor
func quietController(in folder: TemporaryFolder) -> DocumentController {
  let controller = DocumentController(stateFolder: folder.file("state"))
  controller.autosavePolicy = nil
  controller.registerPDFDocuments()
  return controller
}

/// The first PDF (by name) of the shared corpus's `pdf` folder with 4–40 pages, text on the
/// first four, no password, and page edits allowed: what the round-trip tests edit. Read with
/// its scratch files in `scratch`; throws when the corpus has none (callers skip without it).
func editableCorpusPDF(scratch: TemporaryFolder) throws -> (url: URL, document: PDFDocument) {
  let corpus = try #require(sharedCorpus("pdf"))
  let names = try FileManager.default.contentsOfDirectory(atPath: corpus.path).filter { $0.hasSuffix(".pdf") }.sorted()
  for name in names {
    let url = corpus.appendingPathComponent(name)
    guard let document = try? PDFDocument(contentsOf: url, temporaryFolder: scratch.url), (4...40).contains(document.pageCount),
      document.allowsDocumentAssembly, !document.isEncrypted,
      (try? (0..<4).allSatisfy { !(try document.text(ofPage: $0)).trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }) == true
    else { continue }
    return (url, document)
  }
  throw TestFailure("no PDF in \(corpus.path) has 4–40 pages of text and allows page edits")
}
