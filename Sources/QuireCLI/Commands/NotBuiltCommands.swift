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

struct TypeCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(commandName: "type", abstract: "Identify the type of files (not built yet).")
  @Argument(help: "Files to identify.") var files: [String] = []
  func run() async throws { throw notBuiltYet("type", issue: 3) }
}

struct TypesCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(commandName: "types", abstract: "List the type registry (not built yet).")
  func run() async throws { throw notBuiltYet("types", issue: 3) }
}

struct WatchCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(commandName: "watch", abstract: "Print changes to files as they happen (not built yet).")
  @Argument(help: "Paths to watch.") var paths: [String] = []
  func run() async throws { throw notBuiltYet("watch", issue: 5) }
}
