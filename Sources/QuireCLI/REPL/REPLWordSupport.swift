import Dispatch
import Foundation
import Quire
import Synchronization

/// State the transfer, PDF and version words keep for one session (the dragged lines, the
/// open PDF, where the pasteboards and versions live), kept beside the session rather than in
/// it.
///
/// `@unchecked Sendable`: a session runs on one thread, and only that session's word commands
/// read or change its state; the registry's mutex only guards finding it.
final class REPLWordState: @unchecked Sendable {
  /// The session this state belongs to (weak: a closed session's state is dropped).
  weak var session: REPLSession?
  /// Where the pasteboards live (nil: `$XDG_RUNTIME_DIR/quire/pasteboards`). Tests set it.
  var pasteboardRoot: URL?
  /// Whether the session was told why the desktop's clipboard is not the first choice
  /// (a Wayland compositor without data-control); said once a session.
  var toldPasteboardFallback = false
  /// The lines being dragged (`drag`), until a `drop`.
  var drag: LineDrag?

  init(session: REPLSession) { self.session = session }

  private static let registry = Mutex<[ObjectIdentifier: REPLWordState]>([:])

  /// The state of `session`, made on first use.
  static func of(_ session: REPLSession) -> REPLWordState {
    registry.withLock { states in
      states = states.filter { $0.value.session != nil }
      if let state = states[ObjectIdentifier(session)], state.session === session { return state }
      let state = REPLWordState(session: session)
      states[ObjectIdentifier(session)] = state
      return state
    }
  }
}

/// A `drag RANGE` waiting for its `drop`.
struct LineDrag {
  var session: DragSession
  /// The document the lines come from, and where they were (0-based), for `drop --move`.
  var source: EdDocument
  var range: Range<Int>
  var lines: [String]
}

@MainActor
enum REPLWords {
  /// Runs `body` off the main actor (item loads run on the task pool) and awaits its result;
  /// the session's actor is free meanwhile.
  static func wait<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await Task.detached { try await body() }.value
  }

  /// The type of `document`'s file (plain text for an untitled one).
  static func contentType(of document: EdDocument) -> UTType {
    guard let url = document.fileURL else { return .plainText }
    return TypeRegistry.shared.type(forFileAt: url) ?? UTType(filenameExtension: url.pathExtension) ?? .plainText
  }

  /// Lines of pasted text: a final newline ends the last line rather than starting another.
  nonisolated static func lines(of text: String) -> [String] {
    guard !text.isEmpty else { return [] }
    var lines = text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { String(Substring($0)) }
    if text.utf8.last == UInt8(ascii: "\n") { lines.removeLast() }
    return lines
  }

  /// The 1-based line `text` addresses in `document`: `N`, `.`, `$`, each with `+N`/`-N`
  /// offsets, or `+N`/`-N` alone (from `.`); 0 is allowed when `allowsZero` (insert at the top).
  static func line(_ text: String, in document: EdDocument, allowsZero: Bool) throws -> Int {
    let count = document.buffer.lineCount
    var rest = Substring(text)
    var value: Int
    if rest.first == "." {
      value = document.currentLine
      rest = rest.dropFirst()
    } else if rest.first == "$" {
      value = count
      rest = rest.dropFirst()
    } else if let first = rest.first, first.isASCII, first.isNumber {
      let digits = rest.prefix { $0.isASCII && $0.isNumber }
      guard let number = Int(digits) else { throw EdError("invalid address '\(text)'") }
      value = number
      rest = rest.dropFirst(digits.count)
    } else if rest.first == "+" || rest.first == "-" {
      value = document.currentLine
    } else {
      throw EdError("invalid address '\(text)': use N, ., $, .+N, $-N")
    }
    while let sign = rest.first, sign == "+" || sign == "-" {
      rest = rest.dropFirst()
      let digits = rest.prefix { $0.isASCII && $0.isNumber }
      let offset = digits.isEmpty ? 1 : (Int(digits) ?? Int.max / 2)
      rest = rest.dropFirst(digits.count)
      value = sign == "+" ? value + min(offset, Int.max / 2) : value - min(offset, Int.max / 2)
    }
    guard rest.isEmpty else { throw EdError("invalid address '\(text)': use N, ., $, .+N, $-N") }
    guard value >= (allowsZero ? 0 : 1) else {
      if count == 0 { throw EdError.emptyBuffer }
      throw EdError("invalid address '\(text)': there is no line \(value)")
    }
    guard value <= count else { throw EdError.pastEnd(value, lineCount: count) }
    return value
  }

  /// The lines `text` addresses (ed syntax: `N`, `A,B`, `,` for all, `;` for `.` to `$`;
  /// default `.`), 0-based.
  static func range(_ text: String?, in document: EdDocument) throws -> Range<Int> {
    let count = document.buffer.lineCount
    guard count > 0 else { throw EdError("'\(document.displayName)' is empty: there are no lines to take") }
    let spec = text ?? "."
    let first: Int
    let last: Int
    if spec == "," || spec == "%" {
      (first, last) = (1, count)
    } else if spec == ";" {
      (first, last) = (max(1, document.currentLine), count)
    } else if let comma = spec.firstIndex(where: { $0 == "," || $0 == ";" }) {
      let left = String(spec[..<comma])
      let right = String(spec[spec.index(after: comma)...])
      first = left.isEmpty ? 1 : try line(left, in: document, allowsZero: false)
      last = right.isEmpty ? count : try line(right, in: document, allowsZero: false)
    } else {
      first = try line(spec, in: document, allowsZero: false)
      last = first
    }
    guard first <= last else { throw EdError("invalid range '\(spec)': line \(first) comes after line \(last)") }
    return (first - 1)..<last
  }

  /// Inserts `lines` after line `address` (0: at the top) of `document` as one undoable edit.
  static func insert(_ lines: [String], after address: Int, in document: EdDocument, named name: String) throws(EdError) {
    let buffer = document.buffer
    buffer.beginEditGroup(named: name, cursor: document.currentLine)
    try buffer.insertLines(lines, at: address)
    document.currentLine = address + lines.count
    buffer.endEditGroup(cursor: document.currentLine)
  }
}
