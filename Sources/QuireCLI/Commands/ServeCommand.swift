import ArgumentParser
import Foundation
import Quire
import QuireServer
import QuireSystem

/// `quire serve [FOLDER…] [--port N] [--open]`: the document browser as a local web page.
struct ServeCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "serve",
    _superCommandName: "quire", abstract: "Show documents in a web page on this machine (127.0.0.1 only).",
    discussion: """
      Prints an address with a secret token; only a browser that opened it gets in. The page \
      lists, previews, searches, renames, moves, tags, trashes and edits the documents of the \
      folders (the current folder when none is given). Stop it with Ctrl+C.
      """)

  @Argument(help: "Folders to serve (default: the current folder).") var folders: [String] = []
  @Option(help: "The TCP port on 127.0.0.1 (default: any free port).") var port: Int = 0
  @Flag(help: "Open the page in the desktop's browser (xdg-open).") var open = false
  @Option(
    help: ArgumentHelp(
      "The templates folder for 'new from template' (default: $XDG_DATA_HOME/quire/Templates, else the installed PREFIX/share/quire/Templates).",
      valueName: "FOLDER"))
  var templates: String?

  func validate() throws {
    if !(0...65535).contains(port) { throw ValidationError("--port must be 0…65535 (0: any free port).") }
  }

  func run() async throws {
    let urls = (folders.isEmpty ? ["."] : folders).map { URL(fileURLWithPath: $0).standardizedFileURL }
    let server = try DocumentServer(
      configuration: .init(
        folders: urls, port: port, templatesFolder: try Self.templatesFolder(given: templates), pdfTextWorkers: BrowserLocationOptions.pdfTextWorkers))
    let shouldOpen = open
    try await server.run { address in
      FileHandle.standardOutput.write(Data("Quire is serving \(urls.map(\.path).joined(separator: ", ")) at\n\(address)\n".utf8))
      FileHandle.standardError.write(Data("quire: press Ctrl+C to stop.\n".utf8))
      if shouldOpen { Self.openInBrowser(address) }
    }
  }

  /// The templates folder: the one given, else the user's (`$XDG_DATA_HOME/quire/Templates`),
  /// else the installed one (`PREFIX/share/quire/Templates`, beside `PREFIX/bin/quire`);
  /// never the current folder's, which may be anyone's. `nil` when there is none.
  ///
  /// - Throws: ``QuireError`` when a given folder is not a folder.
  static func templatesFolder(given: String?) throws -> URL? {
    if let given {
      let url = URL(fileURLWithPath: given).standardizedFileURL
      guard DocumentsFolder.isFolder(url) else {
        throw QuireError(.invalidArgument, "--templates \(QuireError.name(url)) is not a folder. Give the folder that holds templates.json.", url: url)
      }
      return url
    }
    let environment = ProcessInfo.processInfo.environment
    let dataHome = environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? (environment["HOME"].map { $0 + "/.local/share" } ?? "")
    let executable = SystemCalls.readLink("/proc/self/exe").map { URL(fileURLWithPath: $0) } ?? URL(fileURLWithPath: CommandLine.arguments[0])
    let installed = executable.deletingLastPathComponent().appendingPathComponent("../share/quire/Templates").standardizedFileURL
    let candidates = (dataHome.isEmpty ? [] : [URL(fileURLWithPath: dataHome).appendingPathComponent("quire/Templates")]) + [installed]
    return candidates.first(where: DocumentsFolder.isFolder)
  }

  /// Runs `xdg-open ADDRESS` directly (no shell), and says so when it cannot.
  static func openInBrowser(_ address: String) {
    // A group of its own: the browser it starts must outlive Ctrl-C on `quire serve`.
    if case .failure(let failure) = SystemCalls.spawn("/usr/bin/xdg-open", arguments: [address], ownProcessGroup: true) {
      FileHandle.standardError.write(Data("quire: cannot run xdg-open (\(failure)); open the address yourself.\n".utf8))
    }
  }
}
