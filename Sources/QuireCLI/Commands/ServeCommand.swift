import ArgumentParser
import Foundation
import Quire
import QuireServer
import QuireSystem

/// `quire serve [FOLDER…] [--port N] [--open]`: the document browser as a local web page.
struct ServeCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "serve",
    abstract: "Show documents in a web page on this machine (127.0.0.1 only).",
    discussion: """
      Prints an address with a secret token; only a browser that opened it gets in. The page \
      lists, previews, searches, renames, moves, tags, trashes and edits the documents of the \
      folders (the current folder when none is given). Stop it with Ctrl+C.
      """)

  @Argument(help: "Folders to serve (default: the current folder).") var folders: [String] = []
  @Option(help: "The TCP port on 127.0.0.1 (default: any free port).") var port: Int = 0
  @Flag(help: "Open the page in the desktop's browser (xdg-open).") var open = false

  func validate() throws {
    if !(0...65535).contains(port) { throw ValidationError("--port must be 0…65535 (0: any free port).") }
  }

  func run() async throws {
    let urls = (folders.isEmpty ? ["."] : folders).map { URL(fileURLWithPath: $0).standardizedFileURL }
    let templates = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("Templates")
    let server = try DocumentServer(
      configuration: .init(folders: urls, port: port, templatesFolder: DocumentsFolder.isFolder(templates) ? templates : nil))
    let shouldOpen = open
    try await server.run { address in
      FileHandle.standardOutput.write(Data("Quire is serving \(urls.map(\.path).joined(separator: ", ")) at\n\(address)\n".utf8))
      FileHandle.standardError.write(Data("quire: press Ctrl+C to stop.\n".utf8))
      if shouldOpen { Self.openInBrowser(address) }
    }
  }

  /// Runs `xdg-open ADDRESS` directly (no shell), and says so when it cannot.
  static func openInBrowser(_ address: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/xdg-open")
    process.arguments = [address]
    do { try SystemCalls.launch(process) } catch {
      FileHandle.standardError.write(Data("quire: cannot run xdg-open (\(ErrorReport.text(for: error))); open the address yourself.\n".utf8))
    }
  }
}
