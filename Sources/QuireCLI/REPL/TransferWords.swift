import ArgumentParser
import Foundation
import Quire

/// The pasteboard of a transfer word: `name` under the session's pasteboard root. On a
/// desktop it is the desktop's clipboard (Wayland data-control, X11, as `quire copy` chooses),
/// and items copied there are served by this process while the session runs.
@MainActor
private func transferPasteboard(named name: String, in session: REPLSession) throws -> Pasteboard {
  let state = REPLWordState.of(session)
  let board = try Pasteboard(name: name, rootFolder: state.pasteboardRoot)
  if let note = board.fallbackNote, !state.toldPasteboardFallback {
    state.toldPasteboardFallback = true
    session.print("note: \(note)")
  }
  return board
}

/// The item offering lines `range` of `document`: Markdown, HTML and plain text for a
/// Markdown document, plain text otherwise.
@MainActor
private func itemProvider(for range: Range<Int>, of document: EdDocument) -> (ItemProvider, [String]) {
  let lines = document.buffer.lines(in: range)
  let text = lines.map { $0 + "\n" }.joined()
  let name = "\(document.displayName) lines \(range.lowerBound + 1)-\(range.upperBound)"
  return (TextTransfer.itemProvider(forText: text, documentType: REPLWords.contentType(of: document), suggestedName: name), lines)
}

/// Puts lines `range` (ed syntax; default the current line) of the current document on the
/// pasteboard `name`: what `copy` and `cut` share.
@MainActor
private func copyLines(_ range: String?, toPasteboard name: String, in session: REPLSession, for word: String) throws -> (EdDocument, Range<Int>) {
  let document = try session.requireTextDocument(for: word)
  let lines = try REPLWords.range(range, in: document)
  let (provider, _) = itemProvider(for: lines, of: document)
  try transferPasteboard(named: name, in: session).setItemProviders([provider])
  return (document, lines)
}

struct CopyWord: SessionCommand {
  static let configuration = CommandConfiguration(commandName: "copy", abstract: "Copy lines to the pasteboard (shared with other quire processes).")
  @Argument(help: "The lines, in ed syntax: N, A,B, ',' for all (default: the current line).") var range: String?
  @Option(help: "The pasteboard to use.") var pasteboard: String = Pasteboard.generalName
  @MainActor func run(in session: REPLSession) async throws {
    let (document, lines) = try copyLines(range, toPasteboard: pasteboard, in: session, for: "copy")
    session.say("copied \(lines.count) line\(lines.count == 1 ? "" : "s") of '\(document.displayName)'")
  }
}

struct CutWord: SessionCommand {
  static let configuration = CommandConfiguration(commandName: "cut", abstract: "Copy lines to the pasteboard and delete them (u brings them back).")
  @Argument(help: "The lines, in ed syntax (default: the current line).") var range: String?
  @Option(help: "The pasteboard to use.") var pasteboard: String = Pasteboard.generalName
  @MainActor func run(in session: REPLSession) async throws {
    let (document, lines) = try copyLines(range, toPasteboard: pasteboard, in: session, for: "cut")
    // The deletion is ed's d, so undo, marks and the current line behave as for d.
    try await session.runEd("\(lines.lowerBound + 1),\(lines.upperBound)d")
    session.say("cut \(lines.count) line\(lines.count == 1 ? "" : "s") of '\(document.displayName)'; u brings them back")
  }
}

struct PasteWord: SessionCommand {
  static let configuration = CommandConfiguration(commandName: "paste", abstract: "Insert the pasteboard's text after a line (u takes it out).")
  @Argument(help: "Insert after this line (0: at the top; default: the current line).") var address: String?
  @Option(help: "The type to paste, as a type identifier (default: the best the document takes).") var type: String?
  @Option(help: "The pasteboard to use.") var pasteboard: String = Pasteboard.generalName
  @MainActor func run(in session: REPLSession) async throws {
    let document = try session.requireTextDocument(for: "paste")
    let after = try address.map { try REPLWords.line($0, in: document, allowsZero: true) } ?? document.currentLine
    let board = try transferPasteboard(named: pasteboard, in: session)
    let providers = try board.itemProviders
    let documentType = REPLWords.contentType(of: document)
    let name = document.displayName
    let text: String
    if let type {
      guard let wanted = UTType(type) else { throw EdError("'\(type)' is not a known type identifier") }
      guard wanted.conforms(to: .text) else {
        throw EdError("cannot paste \(type) into '\(name)': a text document takes text types only")
      }
      guard !providers.isEmpty else { throw EdError("nothing to paste: the pasteboard '\(pasteboard)' is empty; copy something first") }
      let configuration = PasteConfiguration(acceptableTypes: [wanted])
      guard providers.contains(where: configuration.canAccept) else {
        let offered = providers.map { $0.registeredTypeIdentifiers.joined(separator: ", ") }.joined(separator: "; ")
        throw EdError("the pasteboard '\(pasteboard)' has no \(type): it holds \(offered)")
      }
      let loaded = try await REPLWords.wait { try await configuration.loadBestRepresentations(from: providers) }
      text = try loaded.map { try $0.text() }.joined(separator: "\n")
    } else {
      text = try await REPLWords.wait {
        try await TextTransfer.text(toPaste: providers, intoDocumentOfType: documentType, documentName: name)
      }
    }
    let lines = REPLWords.lines(of: text)
    guard !lines.isEmpty else { throw EdError("nothing to paste: the pasteboard's text is empty") }
    try REPLWords.insert(lines, after: after, in: document, named: "paste")
    session.say("pasted \(lines.count) line\(lines.count == 1 ? "" : "s") after line \(after); u takes them out")
  }
}

struct DragWord: SessionCommand {
  static let configuration = CommandConfiguration(commandName: "drag", abstract: "Start dragging lines; 'drop' puts them into the current document.")
  @Argument(help: "The lines, in ed syntax.") var range: String
  @MainActor func run(in session: REPLSession) async throws {
    let document = try session.requireTextDocument(for: "drag")
    let lines = try REPLWords.range(range, in: document)
    let (provider, taken) = itemProvider(for: lines, of: document)
    let drag = DragSession(items: [DragItem(itemProvider: provider)], allowsMoveOperation: true)
    REPLWordState.of(session).drag = LineDrag(session: drag, source: document, range: lines, lines: taken)
    session.say(
      "dragging \(lines.count) line\(lines.count == 1 ? "" : "s") of '\(document.displayName)'; 'switch' to another document and 'drop [ADDRESS] [--move]'")
  }
}

struct DropWord: SessionCommand {
  static let configuration = CommandConfiguration(commandName: "drop", abstract: "Drop the dragged lines after a line; --move deletes them from their source.")
  @Argument(help: "Insert after this line (0: at the top; default: the current line).") var address: String?
  @Flag(help: "Move the lines: delete them from the document they were dragged from.") var move = false
  @MainActor func run(in session: REPLSession) async throws {
    let state = REPLWordState.of(session)
    guard let drag = state.drag else { throw EdError("nothing is being dragged; start with 'drag RANGE'") }
    let document = try session.requireTextDocument(for: "drop")
    let after = try address.map { try REPLWords.line($0, in: document, allowsZero: true) } ?? document.currentLine
    let configuration = TextTransfer.pasteConfiguration(forDocumentType: REPLWords.contentType(of: document))
    let drop = DropSession(localDragSession: drag.session)
    let proposal = drop.proposal(for: configuration, requesting: move ? .move : .copy)
    switch proposal.operation {
    case .cancel, .forbidden:
      throw EdError("cannot drop into '\(document.displayName)': \(proposal.reason ?? "the document does not take the dragged lines")")
    case .copy where move:
      throw EdError("cannot move: \(proposal.reason ?? "only a copy is allowed"); drop without --move copies")
    default: break
    }
    let isMove = proposal.operation == .move
    let source = drag.source
    if isMove {
      guard session.documents.contains(where: { $0 === source }) else {
        throw EdError("cannot move: '\(source.displayName)' was closed; drop without --move copies")
      }
      guard drag.range.upperBound <= source.buffer.lineCount, source.buffer.lines(in: drag.range) == drag.lines else {
        throw EdError("cannot move: the dragged lines changed in '\(source.displayName)' since the drag; drop without --move copies")
      }
      if source === document, after > drag.range.lowerBound, after < drag.range.upperBound {
        throw EdError("cannot move lines \(drag.range.lowerBound + 1)-\(drag.range.upperBound) after line \(after), which is one of them")
      }
    }
    let loaded = try await REPLWords.wait { try await drop.loadItems(for: configuration) }
    let lines = REPLWords.lines(of: try loaded.map { try $0.text() }.joined(separator: "\n"))
    guard !lines.isEmpty else { throw EdError("nothing to drop: the dragged text is empty") }
    if isMove && source === document {
      // One edit, so one u undoes the whole move.
      let buffer = document.buffer
      buffer.beginEditGroup(named: "drop (move)", cursor: document.currentLine)
      try buffer.insertLines(lines, at: after)
      let shift = after <= drag.range.lowerBound ? lines.count : 0
      try buffer.deleteLines(in: (drag.range.lowerBound + shift)..<(drag.range.upperBound + shift))
      document.currentLine = after <= drag.range.lowerBound ? after + lines.count : after
      buffer.endEditGroup(cursor: document.currentLine)
    } else {
      try REPLWords.insert(lines, after: after, in: document, named: "drop")
      if isMove {
        // The deletion is an edit of the source document, undone there.
        let buffer = source.buffer
        buffer.beginEditGroup(named: "drag (move)", cursor: source.currentLine)
        try buffer.deleteLines(in: drag.range)
        source.currentLine = min(drag.range.lowerBound + 1, buffer.lineCount)
        buffer.endEditGroup(cursor: source.currentLine)
      }
    }
    state.drag = nil
    session.say("dropped \(lines.count) line\(lines.count == 1 ? "" : "s") after line \(after)\(isMove ? ", moved from '\(source.displayName)'" : "")")
  }
}
