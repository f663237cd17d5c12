import ArgumentParser
import Foundation
import Quire

/// `quire preview FILE [--format html|text] [--output FILE] [--unsafe]`.
struct PreviewCommand: AsyncParsableCommand, TakesNamesAsBytes {
  static let configuration = CommandConfiguration(
    commandName: "preview",
    _superCommandName: "quire", abstract: "Preview a document as HTML or text.",
    discussion: """
      Markdown becomes a complete HTML page (raw HTML and unsafe links removed unless --unsafe) \
      or text; PDF becomes its metadata, outline and text per page, with page images in HTML; \
      plain text is shown as it is.
      """)

  @Argument(help: "The file to preview.") var file: String
  @Option(name: .long, help: "html or text.") var format: String = "html"
  @Option(name: .long, help: "Write the preview to this file instead of standard output.") var output: String?
  @Flag(name: .long, help: "Keep raw HTML and every link in Markdown (only for documents you trust).") var unsafe = false

  func validate() throws {
    guard PreviewGenerator.Format(rawValue: format) != nil else { throw ValidationError("--format must be html or text.") }
  }

  func run() async throws {
    let generator = PreviewGenerator(safety: unsafe ? .unsafe : .safe)
    let format = PreviewGenerator.Format(rawValue: format) ?? .html
    // The file by its bytes: a name that is not UTF-8 is the very file named.
    let input = QuireCommand.filePath(file)
    if let output {
      var data = Data()
      try generator.writePreview(of: input, format: format) { data.append(contentsOf: $0) }
      // The output by its bytes too: a name that is not UTF-8 is written as that very name.
      try FileSaver.writeOutput(data, to: QuireCommand.outputPath(output))
    } else {
      // Each piece goes to standard output as it is made, without a copy.
      try generator.writePreview(of: input, format: format) { piece in
        guard let base = piece.baseAddress, !piece.isEmpty else { return }
        FileHandle.standardOutput.write(Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: piece.count, deallocator: .none))
      }
    }
  }
}
