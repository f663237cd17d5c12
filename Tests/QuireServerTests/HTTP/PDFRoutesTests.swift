import Foundation
import QuireTestSupport
import Testing

/// The PDF view's routes driven with curl against the real `quire serve`, as the page calls
/// them: a note added, undone and redone, each step saved into the file (read back with pypdf),
/// and the requests the page never sends (nothing to undo, a page that is not there, a kind it
/// does not make, a text file) answered with an error naming the file, the file unchanged.
@Suite(
  "quire serve PDF routes", .serialized,
  .enabled(if: Programs.find("curl") != nil && Programs.isInstalled("/usr/bin/python3"), "curl and Debian's python3 are needed (scripts/setup installs them)"))
final class PDFRoutesTests: ServedFolderTestCase {
  init() throws { try super.init(prefix: "quire-serve-pdf-routes", files: ["notes.txt": "plain text\n"]) }

  /// POSTs `/api/pdf/ROUTE` with `body`; returns the status and the JSON object answered.
  func post(_ route: String, _ body: [String: Any], _ page: SignedInPage) async throws -> (status: Int, reply: [String: Any]) {
    try await post("/api/pdf/\(route)", body, as: page)
  }

  /// The annotations pypdf finds on the file's first page, by subtype and contents.
  func annotationsByPypdf(_ pdf: URL) async throws -> [String] {
    let script = """
      import sys
      from pypdf import PdfReader
      page = PdfReader(sys.argv[1]).pages[0]
      for annotation in page.get("/Annots") or []:
          annotation = annotation.get_object()
          print(annotation["/Subtype"], annotation.get("/Contents", ""))
      """
    let result = try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/python3"), ["-c", script, pdf.path])
    try #require(result.status == 0, "pypdf: \(result.error)")
    return result.output.split(separator: "\n").map(String.init)
  }

  @Test func aNoteIsUndoneAndRedoneIntoTheFileAndRequestsThePageNeverSendsAreRefused() async throws {
    let pdf = served.appendingPathComponent("guide.pdf")
    try writePDF(to: pdf, pages: ["The otter swims in the river."], width: 300, height: 400)
    let server = try await ServeProcess.start(serving: [served], home: home, in: folder.url)
    defer { server.stop() }
    let page = try await signIn(server)

    // Nothing to undo or redo yet: refused, naming the file, nothing written.
    let original = try Data(contentsOf: pdf)
    for route in ["undo", "redo"] {
      let refused = try await post(route, ["doc": "0/guide.pdf"], page)
      #expect(refused.status == 400, "\(route): \(refused)")
      #expect((refused.reply["error"] as? String)?.contains("There is nothing to \(route) in 'guide.pdf'") == true, "\(refused.reply)")
    }
    #expect(try Data(contentsOf: pdf) == original)

    let noted = try await post("annotate", ["doc": "0/guide.pdf", "kind": "note", "page": 0, "x": 40, "y": 60, "text": "see the otter"], page)
    #expect(noted.status == 200 && noted.reply["annotations"] as? Int == 1, "\(noted)")
    #expect((noted.reply["undo"] as? String)?.isEmpty == false && noted.reply["redo"] == nil, "\(noted.reply)")
    #expect(try await annotationsByPypdf(pdf) == ["/Text see the otter"])

    let undone = try await post("undo", ["doc": "0/guide.pdf"], page)
    #expect(undone.status == 200 && undone.reply["annotations"] as? Int == 0 && undone.reply["undo"] == nil, "\(undone)")
    #expect((undone.reply["redo"] as? String)?.isEmpty == false, "\(undone.reply)")
    #expect(try await annotationsByPypdf(pdf).isEmpty)

    let redone = try await post("redo", ["doc": "0/guide.pdf"], page)
    #expect(redone.status == 200 && redone.reply["annotations"] as? Int == 1 && redone.reply["redo"] == nil, "\(redone)")
    #expect(try await annotationsByPypdf(pdf) == ["/Text see the otter"])

    // What the page never sends: each refused with a reason, the file as the redo left it.
    let saved = try Data(contentsOf: pdf)
    let refusals: [(route: String, body: [String: Any], reason: String)] = [
      ("annotate", ["doc": "0/guide.pdf", "kind": "note", "page": 7, "x": 1, "y": 1], "'guide.pdf' has no page 8"),
      ("annotate", ["doc": "0/guide.pdf", "kind": "stamp", "page": 0], "not 'stamp'"),
      ("annotate", ["doc": "0/guide.pdf", "kind": "note", "page": 0], "needs the place"),
      ("undo", ["doc": "0/notes.txt"], "'notes.txt' is not a PDF"),
      ("undo", ["doc": "0/missing.pdf"], "missing.pdf"),
      ("undo", ["doc": "0/../guide.pdf"], "leaves the served folder"),
    ]
    for (route, body, reason) in refusals {
      let refused = try await post(route, body, page)
      #expect((400..<500).contains(refused.status), "\(route) \(body): \(refused)")
      #expect((refused.reply["error"] as? String)?.contains(reason) == true, "\(route) \(body): \(refused.reply)")
    }
    #expect(try Data(contentsOf: pdf) == saved)
  }
}
