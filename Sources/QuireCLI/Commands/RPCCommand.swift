import ArgumentParser
import Foundation

/// `quire rpc`: the document core for programs in any language, as JSON-RPC 2.0 over standard
/// input and output with LSP's base framing (see docs/rpc.md).
struct RPCCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "rpc",
    _superCommandName: "quire", abstract: "Serve Quire's documents to another program: JSON-RPC 2.0 on standard input and output.",
    discussion: """
      Frames as LSP's base protocol: 'Content-Length: N', a blank line, then N bytes of UTF-8 \
      JSON. Methods: initialize, document/open, document/edit (versioned), document/save, \
      document/undo, document/redo, document/merge, document/revert, document/close, \
      type/identify, thumbnail/make, preview/html, search, pasteboard/copy, pasteboard/paste, \
      shutdown; notifications document/didChange, didConflict, didMove, didSave. Unsaved edits \
      are kept in recovery when the session ends. See docs/rpc.md.
      """)

  func run() async throws {
    let status = await RPCServer().run()
    if status != 0 { throw ExitCode(status) }
  }
}
