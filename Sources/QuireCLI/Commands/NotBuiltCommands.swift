import ArgumentParser
import Foundation
import QuireTypes

struct CopyCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(commandName: "copy", abstract: "Copy a file or text to the pasteboard (not built yet).")
  func run() async throws { throw notBuiltYet("copy", issue: 7) }
}

struct PasteCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(commandName: "paste", abstract: "Paste from the pasteboard (not built yet).")
  func run() async throws { throw notBuiltYet("paste", issue: 7) }
}
