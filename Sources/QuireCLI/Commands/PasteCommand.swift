import ArgumentParser
import Foundation
import Quire

/// `quire paste [--type ID] [--output FILE]`: writes the first pasteboard item to standard
/// output or a file; the output's name keeps its bytes (a name that is not UTF-8 is written as
/// that very name).
struct PasteCommand: AsyncParsableCommand, TakesNamesAsBytes {
  static let configuration = CommandConfiguration(
    commandName: "paste", _superCommandName: "quire", abstract: "Paste from the pasteboard to standard output or a file.")

  @Option(help: "The type to paste, as a type identifier (default: the first text).") var type: String?
  @Option(help: "Write to this file instead of standard output.") var output: String?
  @Option(help: "The pasteboard to use.") var pasteboard: String = Pasteboard.generalName
  @Option(help: BackendOption.help) var backend: BackendOption?

  func validate() throws {
    if let type, UTType(type) == nil { throw ValidationError("'\(DisplayName.escaping(type))' is not a known type identifier.") }
    if PathText.holdsNonUTF8Bytes(pasteboard) {
      throw ValidationError("The pasteboard name '\(DisplayName.escaping(pasteboard))' is not UTF-8; give a UTF-8 name.")
    }
  }

  func run() async throws {
    let board = try Pasteboard.forCommand(pasteboard, backend: backend)
    let providers = try board.itemProviders
    guard !providers.isEmpty else {
      throw QuireError(.fileMissing, "The pasteboard '\(pasteboard)' is empty. Copy something first with 'quire copy'.")
    }
    let wanted = type.flatMap(UTType.init) ?? .text
    guard let provider = providers.first(where: { $0.hasRepresentationConforming(toTypeIdentifier: wanted) }) else {
      let offered = providers.map { $0.registeredTypeIdentifiers.joined(separator: ", ") }.joined(separator: "; ")
      throw QuireError(
        .unsupportedType,
        "The pasteboard '\(pasteboard)' has no \(wanted.identifier): it holds \(offered). Choose one with --type (and --output for files that are not text).")
    }
    if let output {
      try await provider.writeRepresentation(for: wanted, to: QuireCommand.outputPath(output))
      return
    }
    // The representation of exactly the asked type when there is one (plain text, not the
    // Markdown that conforms to it), else the first that conforms.
    let configuration = PasteConfiguration(acceptableTypes: [wanted])
    let chosen = configuration.acceptedTypeIdentifier(in: provider).flatMap(UTType.init) ?? wanted
    if !chosen.conforms(to: .text), isatty(STDOUT_FILENO) != 0 {
      throw QuireError(.invalidArgument, "The pasted \(chosen.identifier) is not text; write it to a file with --output FILE.")
    }
    guard let pasted = try await configuration.loadBestRepresentations(from: [provider]).first else { return }
    FileHandle.standardOutput.write(pasted.data)
  }
}
