import ArgumentParser
import Foundation
import QuireTypes

struct ThumbnailCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(commandName: "thumbnail", abstract: "Make thumbnails of files and folders (not built yet).")
  @Argument(help: "Files or folders.") var paths: [String] = []
  func run() async throws { throw notBuiltYet("thumbnail", issue: 9) }
}

struct PreviewCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(commandName: "preview", abstract: "Preview a document as HTML or text (not built yet).")
  @Argument(help: "The file to preview.") var file: String
  func run() async throws { throw notBuiltYet("preview", issue: 9) }
}

struct CopyCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(commandName: "copy", abstract: "Copy a file or text to the pasteboard (not built yet).")
  func run() async throws { throw notBuiltYet("copy", issue: 7) }
}

struct PasteCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(commandName: "paste", abstract: "Paste from the pasteboard (not built yet).")
  func run() async throws { throw notBuiltYet("paste", issue: 7) }
}
