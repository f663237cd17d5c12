import ArgumentParser
import Foundation
import Quire

/// `quire demo`: a non-interactive tour of a folder of documents, what the quick start runs
/// when standard input is not a terminal.
struct DemoCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "demo",
    abstract: "Identify, outline, preview and render every document in a folder.")

  @Argument(help: "The folder to tour (default: Documents/).") var folder: String?
  @Option(help: "Where to write previews and page images (default: $XDG_CACHE_HOME/quire/demo).")
  var output: String?

  func run() async throws {
    guard let folderURL = folder.map({ URL(fileURLWithPath: $0) }) ?? DocumentsFolder.locate() else {
      throw QuireError(.fileMissing, "No Documents/ folder here. Run 'quire demo FOLDER' or start from the project's folder.")
    }
    let outputURL = try output.map { URL(fileURLWithPath: $0) } ?? Self.defaultOutput()
    try FileManager.default.createDirectory(at: outputURL, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    var failures = 0
    for name in try DocumentsFolder.entries(in: folderURL) {
      let url = folderURL.appendingPathComponent(name)
      do {
        try tour(url, into: outputURL)
      } catch {
        failures += 1
        print("\(name): failed: \(error)")
      }
    }
    print("Wrote previews and page images to \(outputURL.path)")
    if failures > 0 { throw ExitCode(ExitStatus.failure) }
  }

  static func defaultOutput() throws -> URL {
    let base = ProcessInfo.processInfo.environment["XDG_CACHE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
      ?? (NSHomeDirectory() + "/.cache")
    return URL(fileURLWithPath: base).appendingPathComponent("quire/demo")
  }

  private func tour(_ url: URL, into output: URL) throws {
    let type = TypeRegistry.shared.type(forFileAt: url)
    let name = url.lastPathComponent
    let base = output.appendingPathComponent(url.deletingPathExtension().lastPathComponent)
    switch type {
    case let type? where type.conforms(to: .markdown):
      let text = try String(contentsOf: url, encoding: .utf8)
      let outline = try MarkdownOutline(markdown: text)
      print("\(name): Markdown, \(text.split(separator: "\n", omittingEmptySubsequences: false).count) lines, \(outline.headings.count) headings")
      for heading in outline.headings.prefix(6) {
        print("    \(String(repeating: "  ", count: heading.level - 1))\(heading.title)  (line \(heading.line))")
      }
      let html = try MarkdownPreview.htmlPage(markdown: text, title: name)
      try Data(html.utf8).write(to: base.appendingPathExtension("html"))
      print("    preview: \(base.lastPathComponent).html")
    case let type? where type.conforms(to: .pdf):
      let pdf = try PDFFile(contentsOf: url)
      let size = try pdf.pageSize(at: 0)
      print("\(name): PDF, \(pdf.pageCount) pages, page 1 is \(Int(size.width))×\(Int(size.height)) pt, title \(pdf.title.map { "'\($0)'" } ?? "none")")
      let scale = 256 / max(size.width, size.height)
      let png = try pdf.render(page: 0, scale: scale).pngData()
      try png.write(to: base.appendingPathExtension("png"))
      print("    page 1: \(base.lastPathComponent).png")
    case let type? where type.conforms(to: .plainText):
      let text = try String(contentsOf: url, encoding: .utf8)
      print("\(name): plain text, \(text.split(separator: "\n", omittingEmptySubsequences: false).count) lines, \(text.split(whereSeparator: \.isWhitespace).count) words")
    case let type?:
      print("\(name): \(type.identifier)")
    case nil:
      print("\(name): unknown type")
    }
  }
}
