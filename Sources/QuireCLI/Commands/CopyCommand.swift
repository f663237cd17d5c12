import ArgumentParser
import Foundation
import Quire
import SystemPackage

/// `quire copy FILE | --text TEXT`: puts a file or text on a pasteboard.
///
/// A Markdown file or text is offered as Markdown, HTML and plain text; other files in their
/// own type and as a file URL. Each representation is made only when someone asks for it.
///
/// On a desktop (pasteboard `general` or `primary`) the pasteboard is the Wayland compositor's
/// clipboard through data-control (`WAYLAND_DISPLAY`) or an X11 selection (`DISPLAY`), in that
/// order unless `--backend` or `QUIRE_PASTEBOARD` says otherwise (see `PasteboardBackend`).
/// Either lives only as long as the program holding it: as `xclip` and `wl-copy` do,
/// `quire copy` starts a background `quire` that holds the selection and serves it until
/// another program takes it (a later copy anywhere), then exits; `--foreground` serves from
/// this process instead. Signalled to stop (SIGTERM, SIGINT) it hands the items to a clipboard
/// manager (X11), or keeps them for Quire processes.
///
/// Elsewhere the representations are promised: another process fetches them from this one
/// while it runs, and they are written into the pasteboard folder when it exits. The hidden
/// `--promise` flag keeps this process serving them until its standard input closes (tests
/// use it to paste from a live process).
struct CopyCommand: AsyncParsableCommand, TakesNamesAsBytes, ChecksInputAfterParsing {
  static let configuration = CommandConfiguration(
    commandName: "copy", _superCommandName: "quire", abstract: "Copy a file or text to the pasteboard.")

  @Argument(help: "The file to copy.") var file: String?
  @Option(help: "Copy this text instead of a file.") var text: String?
  @Option(help: "The type of the text, as a type identifier (default public.plain-text).") var type: String?
  @Option(help: "The pasteboard to use.") var pasteboard: String = Pasteboard.generalName
  @Option(help: BackendOption.help) var backend: BackendOption?
  @Flag(help: "On a desktop, serve the clipboard from this process until another program takes it.") var foreground = false
  @Flag(help: .hidden) var promise = false
  /// Set on the background process `quire copy` starts on a desktop.
  @Flag(help: .hidden) var serveSelection = false
  /// Set on that background process for `--text`: the text comes on its standard input, so it
  /// never appears in its arguments (which every user sees in `ps`) while it holds the clipboard.
  @Flag(help: .hidden) var textOnInput = false

  func checkInputGiven() throws {
    if file == nil && text == nil && !textOnInput { throw ValidationError("Give either a FILE or --text TEXT.") }
  }

  func validate() throws {
    if file != nil && (text != nil || textOnInput) { throw ValidationError("Give either a FILE or --text TEXT.") }
    if let type {
      guard let contentType = UTType(type) else { throw ValidationError("'\(type)' is not a known type identifier.") }
      guard contentType.conforms(to: .text) else { throw ValidationError("--type must be a text type; '\(type)' is not.") }
    }
  }

  func run() async throws {
    let provider = try makeProvider()
    let board = try Pasteboard.forCommand(pasteboard, backend: backend, quiet: serveSelection)
    if board.displayName != nil && !promise {
      if !foreground && !serveSelection { return try SelectionServer.start(text: text) }
      if serveSelection { SelectionServer.detach() }
      do {
        try board.setItemProviders([provider])
      } catch {
        if serveSelection { SelectionServer.report("error: \(ErrorReport.text(for: error))") }
        throw error
      }
      if serveSelection { SelectionServer.report("ready") }
      SelectionServer.handOverWhenSignalled()
      await board.waitUntilItemsAreReplaced()
      return
    }
    try board.setItemProviders([provider])
    if promise {
      FileHandle.standardOutput.write(Data("ready\n".utf8))  // unbuffered, so the starter sees it now
      // Serve promised representations until whoever started us closes our input.
      _ = FileHandle.standardInput.readDataToEndOfFile()
    }
    try await board.materializePromises()
  }

  private func makeProvider() throws -> ItemProvider {
    if textOnInput {
      let given = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
      return TextTransfer.itemProvider(forText: given, documentType: type.flatMap(UTType.init) ?? .plainText, suggestedName: nil)
    }
    if let text {
      let contentType = type.flatMap(UTType.init) ?? .plainText
      return TextTransfer.itemProvider(forText: text, documentType: contentType, suggestedName: nil)
    }
    // The file by its bytes: a name that is not UTF-8 is the very file named.
    let path = QuireCommand.filePath(file ?? "")
    // A regular file only: a FIFO or a device (/dev/zero) would hang or give endless or no data.
    try InputFile.check(path, for: "copy")
    let contentType = type.flatMap(UTType.init) ?? path.extension.flatMap { UTType(filenameExtension: $0) } ?? .data
    // The suggested name (a pasted file's name): a name that is not UTF-8 with its bytes escaped.
    var stem = path.stem
    if path.withPlatformString({ String(validatingCString: $0) }) == nil, let name = path.lastComponent {
      let shown = DisplayName.escaping(FilePath(root: nil, [name]))
      stem = path.extension.map { shown.hasSuffix("." + $0) ? String(shown.dropLast($0.count + 1)) : shown } ?? shown
    }
    let provider = ItemProvider(suggestedName: stem)
    provider.registerFileRepresentation(for: contentType, filePath: path)
    if contentType.conforms(to: .markdown) {
      // HTML and plain text are made from the file when someone asks for them.
      for derived in [UTType.html, UTType.plainText] {
        provider.registerDataRepresentation(for: derived) {
          let markdown = try MarkdownText.object(
            withItemProviderData: Data(try InputFile.read(path, for: "copy", limit: 256 << 20)), typeIdentifier: contentType.identifier)
          return try await markdown.loadData(withTypeIdentifier: derived.identifier)
        }
      }
    }
    // The file's URL; one whose name is not UTF-8 as GLib writes it (`%FF` for the byte).
    let uri = try Self.fileURI(of: path)
    for urlType in [UTType.fileURL, UTType.url] {
      provider.registerDataRepresentation(for: urlType) { Data(uri.utf8) }
    }
    return provider
  }

  /// The `file://` URI of `path`: Foundation's for a UTF-8 name (as before), GLib's
  /// byte-for-byte escaping for one that is not UTF-8.
  static func fileURI(of path: FilePath) throws -> String {
    if let text = path.withPlatformString({ String(validatingCString: $0) }) {
      return URL(fileURLWithPath: text).absoluteString
    }
    return try FreedesktopNames.fileURI(for: path.absoluteNormalized)
  }
}
