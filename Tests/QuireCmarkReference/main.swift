// libcmark's HTML for each Markdown document of a JSON array read on stdin, written as a JSON
// array on stdout. The CommonMark conformance test runs it: libcmark and cmark-gfm export the
// same symbol names, so the reference cannot be linked into the process that uses cmark-gfm.
import CCmark
import Foundation

let input = FileHandle.standardInput.readDataToEndOfFile()
guard let documents = try? JSONDecoder().decode([String].self, from: input) else {
  FileHandle.standardError.write(Data("quire-cmark-reference: stdin must be a JSON array of Markdown strings\n".utf8))
  exit(2)
}
var results: [String] = []
for markdown in documents {
  var text = markdown
  let html: String = text.withUTF8 { bytes in
    bytes.withMemoryRebound(to: CChar.self) { raw in
      guard let rendered = cmark_markdown_to_html(raw.baseAddress, raw.count, CMARK_OPT_VALIDATE_UTF8) else { return "" }
      defer { free(rendered) }
      return String(cString: rendered)
    }
  }
  results.append(html)
}
FileHandle.standardOutput.write(try JSONEncoder().encode(results))
