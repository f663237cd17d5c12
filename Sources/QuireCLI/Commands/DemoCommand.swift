import ArgumentParser
import Foundation
import Quire

/// `quire demo`: a non-interactive tour of a folder of documents, what the quick start runs
/// when standard input is not a terminal.
struct DemoCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "demo",
    _superCommandName: "quire", abstract: "Identify, outline, preview and render every document in a folder.")

  @Argument(help: "The folder to tour (default: Documents/).") var folder: String?
  @Option(help: "Where to write previews and page images (default: $XDG_CACHE_HOME/quire/demo).")
  var output: String?

  func run() async throws {
    guard let folderURL = folder.map({ URL(fileURLWithPath: $0) }) ?? DocumentsFolder.locate() else {
      throw QuireError(.fileMissing, "No Documents/ folder here. Run 'quire demo FOLDER' or start from the project's folder.")
    }
    let outputURL: URL
    if let output {
      // The user's folder is used as it is; only missing folders are made (0700).
      outputURL = URL(fileURLWithPath: output).standardizedFileURL
      try PrivateFolder.make(outputURL, below: outputURL, role: "the output folder")
    } else {
      let cache = XDGBaseDirectory.cacheHome.location()
      outputURL = cache.url.appendingPathComponent("quire/demo", isDirectory: true)
      try PrivateFolder.make(outputURL, below: cache.trustedFolder, role: "the demo folder", alternative: "pass --output")
    }
    var failures = 0
    for name in try DocumentsFolder.entries(in: folderURL) {
      let url = folderURL.appendingPathComponent(name)
      do {
        try tour(url, into: outputURL)
      } catch {
        failures += 1
        print("\(DisplayName.escaping(name)): failed: \(ErrorReport.text(for: error))")
      }
    }
    print("Wrote previews and thumbnails to \(outputURL.path)")
    if failures > 0 { throw ExitCode(ExitStatus.failure) }
  }

  private func tour(_ url: URL, into output: URL) throws {
    let name = url.lastPathComponent
    let identification = try TypeRegistry.shared.identifyFile(at: url)
    let type = identification.type
    print("\(DisplayName.escaping(name)): \(type.localizedDescription ?? type.identifier) — \(identification)")
    let base = output.appendingPathComponent(url.deletingPathExtension().lastPathComponent)
    if type.conforms(to: .markdown) {
      let text = try InputFile.readText(url, for: "outline", limit: 256 << 20)
      let outline = try MarkdownOutline(markdown: text)
      for heading in outline.headings.prefix(6) {
        print("    \(String(repeating: "  ", count: heading.level - 1))\(heading.title)  (line \(heading.line))")
      }
    } else if type.conforms(to: .pdf) {
      let pdf = try PDFFile(contentsOf: url)
      print("    \(pdf.pageCount) pages, title \(pdf.title.map { "'\($0)'" } ?? "none"), \(pdf.outline.count) outline entries")
    }
    if type.conforms(to: .markdown) || type.conforms(to: .pdf) || type.conforms(to: .plainText) {
      let preview = try PreviewGenerator().preview(of: url, format: .html)
      try Self.writePrivately(Data(preview.utf8), to: base.appendingPathExtension("html"))
      let generator = ThumbnailGenerator()
      let bitmap = try generator.generateBestRepresentation(
        for: ThumbnailRequest(fileURL: url, contentType: try generator.contentType(of: url), maximumSize: 256))
      try Self.writePrivately(try bitmap.pngData(), to: base.appendingPathExtension("png"))
      print("    preview \(base.lastPathComponent).html, thumbnail \(base.lastPathComponent).png (\(bitmap.width)×\(bitmap.height))")
    }
  }

  /// Writes `data` by the output-path rule, a new file with mode 0600 (the output folder is
  /// per-user state).
  static func writePrivately(_ data: Data, to url: URL) throws {
    try FileSaver.writeOutput(data, to: url, options: .privateState)
  }
}
