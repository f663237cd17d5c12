import ArgumentParser
import Foundation
import QuireTypes

/// `quire [FILE…]`: the REPL. Until the editor lands (issue 6) it lists the documents it
/// would open and says so.
struct REPLCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "repl", abstract: "Open the REPL on files, or on Documents/ when none are given.")

  @Argument(help: "Files to open.") var files: [String] = []

  func run() async throws {
    let folder = DocumentsFolder.locate()
    if files.isEmpty, let folder {
      print("Documents in \(folder.path):")
      for entry in try DocumentsFolder.entries(in: folder) { print("  \(entry)") }
    }
    throw notBuiltYet("repl", issue: 6)
  }
}

/// Where `quire` finds its sample documents: `./Documents`, else next to the executable's
/// package checkout.
enum DocumentsFolder {
  static func locate() -> URL? {
    let candidates = [
      URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("Documents"),
    ]
    return candidates.first { isFolder($0) }
  }

  static func isFolder(_ url: URL) -> Bool {
    var isDirectory: ObjCBool = false
    return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue
  }

  /// The visible entries of `folder`, sorted by name.
  static func entries(in folder: URL) throws -> [String] {
    do {
      return try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasPrefix(".") }.sorted()
    } catch {
      throw QuireError(.fileMissing, "Cannot list '\(folder.path)': \(error.localizedDescription). Check that the folder exists and is readable.", url: folder)
    }
  }
}
