import ArgumentParser
import Foundation
import Quire

/// `quire make-sample-pdf OUTPUT`: writes the sample PDF kept in Documents/ (hidden; it
/// exists so the project ships only PDFs it made itself).
struct MakeSamplePDFCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "make-sample-pdf", _superCommandName: "quire", abstract: "Write the sample PDF of Documents/.", shouldDisplay: false)

  @Argument(help: "Where to write the PDF.") var output: String

  func run() async throws {
    let writer = try PDFWriter(url: URL(fileURLWithPath: output))
    writer.setTitle("A Field Guide to Quire")
    let chapters: [(String, [(String, String)])] = [
      (
        "Types",
        [
          (
            "Identifiers",
            "Every kind of data has a uniform type identifier such as <tt>net.daringfireball.markdown</tt>. Types conform to other types, so Markdown is plain text, and plain text is text."
          ),
          ("Tags", "Filename extensions and MIME types are tags. The registry maps them onto types, and unknown tags get dynamic identifiers."),
        ]
      ),
      (
        "Documents",
        [
          (
            "Safe save",
            "A save writes the new contents beside the file, flushes them, renames them over the old file and flushes the folder. A crash leaves the old file or the new one, never half of each."
          ),
          ("Undo", "Each document has its own undo manager with groups, action names and redo."),
        ]
      ),
      (
        "Previews",
        [
          ("Thumbnails", "Markdown is drawn as a page with pango and cairo; PDF page one comes from poppler. Japanese text such as 日本語の見出し shows real glyphs."),
          ("The cache", "Thumbnails follow the freedesktop Thumbnail Managing Standard, so file managers find them."),
        ]
      ),
      (
        "Coordination",
        [
          ("Readers and writers", "Processes share a file for reading and take turns writing it, with locks the kernel releases when a process dies.")
        ]
      ),
    ]
    for (chapter, sections) in chapters {
      var markup = "<span size='xx-large' weight='bold'>\(TextLayout.escapeMarkup(chapter))</span>\n\n"
      for (title, text) in sections {
        markup += "<span size='large' weight='bold'>\(TextLayout.escapeMarkup(title))</span>\n\(text)\n\n"
      }
      let page = try writer.addPage(markup: markup, style: TextStyle(font: "Serif 12", lineSpacing: 3))
      let parent = writer.addOutlineEntry(chapter, page: page)
      for (title, _) in sections { writer.addOutlineEntry(title, page: page, parent: parent) }
    }
    try writer.finish()
    print("Wrote \(output)")
  }
}
