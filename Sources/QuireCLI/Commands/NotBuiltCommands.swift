import ArgumentParser
import Foundation
import QuireTypes

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

struct CopyCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(commandName: "copy", abstract: "Copy a file or text to the pasteboard (not built yet).")
  func run() async throws { throw notBuiltYet("copy", issue: 7) }
}

struct PasteCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(commandName: "paste", abstract: "Paste from the pasteboard (not built yet).")
  func run() async throws { throw notBuiltYet("paste", issue: 7) }
}
