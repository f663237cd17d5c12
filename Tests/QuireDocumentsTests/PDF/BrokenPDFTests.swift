import Foundation
import QuireDocuments
import QuirePDF
import QuireTestSupport
import QuireTypes
import Testing

/// Every file of the shared broken-PDF corpus opens with a clear error or opens correctly,
/// and nothing crashes or hangs.
@Suite("Broken PDFs")
struct BrokenPDFTests {
  func files() throws -> [URL]? {
    guard let corpus = sharedCorpus("broken-pdf") else { return nil }
    return try FileManager.default.contentsOfDirectory(atPath: corpus.path).sorted().map { corpus.appendingPathComponent($0) }
  }

  /// Opening parses structure only, so it is done in this process: it must return or throw
  /// a QuireError naming the file.
  @Test func openingGivesAClearErrorOrADocument() throws {
    guard let files = try files() else { return }
    let temporary = try TemporaryFolder(prefix: "quire-broken")
    defer { temporary.remove() }
    var opened = 0
    var refused = 0
    for url in files {
      do {
        let document = try PDFDocument(contentsOf: url, temporaryFolder: temporary.url)
        _ = document.metadata
        opened += 1
      } catch let error as QuireError {
        refused += 1
        #expect(error.reason.contains(url.lastPathComponent), "\(url.lastPathComponent): \(error)")
        #expect([.invalidContent, .passwordRequired].contains(error.code), "\(url.lastPathComponent): \(error)")
      }
    }
    print("broken-pdf: \(opened) opened, \(refused) refused with a clear error, of \(files.count)")
    #expect(opened + refused == files.count)
    #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.url.path).isEmpty)  // snapshots removed
  }

  /// Reading everything but pixels (pages, text of page 1 and its character geometry, outline,
  /// rotation) runs in a child process per file with a time limit: none may crash or exceed it.
  @Test func readingNeverCrashesOrHangs() throws {
    guard let files = try files() else { return }
    var slow: [String] = []
    for url in files {
      let result = try TestHelper.run(["probe-pdf", url.path], timeLimit: 20)
      #expect(result.status != nil, "\(url.lastPathComponent) took more than 20 s of CPU time")
      if result.status == nil { slow.append(url.lastPathComponent) }
      #expect(result.status == 0 || result.status == 1, "\(url.lastPathComponent) ended with \(String(describing: result.status)): \(result.output)")
      if result.status == 1 {
        let error = result.output.split(separator: "\n").last { $0.hasPrefix("error ") }
        #expect(error != nil, "\(url.lastPathComponent)")
        #expect(error?.contains("has no page 1: it has 1") != true, "\(url.lastPathComponent): \(result.output)")
      }
      if result.status == 0 { #expect(result.output.hasPrefix("pages "), "\(url.lastPathComponent)") }
    }
    if !slow.isEmpty { print("broken-pdf: over the time limit: \(slow)") }
  }
}
