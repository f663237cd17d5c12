import QuireSystem

/// One ed command as typed: its addresses and what it asks for, parsed from a line without
/// touching a document, a file or the terminal (``EdCommand/parse(_:continuation:)``).
///
/// Addresses stay as written (``EdAddress``): what `.`, `$`, `'a` or `/re/` stand for depends on
/// the document, and the interpreter (``EdEngine``) resolves them in order, as ed does. The
/// only input the parser reads beyond the line is the continuation lines a command asks for
/// (a replacement ending in a backslash, a `g` command list), from the closure it is given.
struct EdCommand: Equatable, Sendable {
  /// The address terms before the command, in the order typed.
  var addresses: [EdAddress]
  /// What the command does, with its own arguments.
  var action: Action

  /// What an ed command does; each case carries the arguments the command takes.
  enum Action: Equatable, Sendable {
    /// No command letter: an address alone prints that line; nothing at all, the next line.
    case printNext
    /// `a`, `i`: add the lines that follow after (`a`) or before (`i`) the addressed line.
    case append(PrintFlags)
    case insert(PrintFlags)
    /// `c`: replace the addressed lines with the lines that follow.
    case change(PrintFlags)
    /// `d`: delete the addressed lines.
    case delete(PrintFlags)
    /// `e FILE` (`E`, without the unsaved-changes warning): edit a file, or `e !cmd`'s output.
    case edit(FileTarget?, unconditionally: Bool)
    /// `f NAME`: set (and print) the current file name.
    case fileName(FileTarget?)
    /// `g/re/cmds`, `v/re/cmds`, and the interactive `G/re/`, `V/re/`.
    case global(GlobalCommand)
    /// `h` (print the last error), `H` (toggle verbose errors).
    case help(togglesVerbose: Bool)
    /// `j`: join the addressed lines.
    case join(PrintFlags)
    /// `kx`: mark the addressed line with the letter `x`.
    case mark(UInt8)
    /// `p`, `l`, `n`: print the addressed lines (the flags hold the command's own).
    case print(PrintFlags)
    /// `m ADDR`, `t ADDR`: move or copy the addressed lines after the destination (none given:
    /// the current line).
    case move(destination: [EdAddress], PrintFlags)
    case copy(destination: [EdAddress], PrintFlags)
    /// `P`: toggle the prompt.
    case togglePrompt
    /// `q`, `Q` (without the unsaved-changes warning).
    case quit(unconditionally: Bool)
    /// `r FILE`, `r !cmd`: read after the addressed line.
    case read(FileTarget?)
    /// `s/re/replacement/flags`, or a bare `s` repeating the last substitution.
    case substitute(Substitution)
    /// `u`: undo the last change, or redo what `u` undid.
    case undo(PrintFlags)
    /// `w FILE`, `W FILE` (append), `wq`, `w !cmd`.
    case write(FileTarget?, appending: Bool, then: QuitAfterWrite?)
    /// `=`: print the addressed line's number (the last line's without an address).
    case lineNumber(PrintFlags)
    /// `#`: a comment.
    case comment
    /// `y`: copy the addressed lines into the cut buffer.
    case yank
    /// `x`: put the cut buffer after the addressed line.
    case put(PrintFlags)
    /// `zN`: print a window of lines from the addressed one (`N` sets the window's height).
    case scroll(lines: Int?, PrintFlags)
    /// `!cmd`: run a shell command, as typed (`%` and a leading `!` not yet expanded).
    case shell([UInt8])
  }

  /// What `wq` and `wQ` do after writing.
  enum QuitAfterWrite: Equatable, Sendable {
    /// `wq`: quit, unless other documents have unsaved changes (then warn once).
    case quit
    /// `wQ`: quit whatever is unsaved.
    case quitUnconditionally
  }

  /// `g`, `v`, `G`, `V`: the lines that match (or do not) and what to run on each.
  struct GlobalCommand: Equatable, Sendable {
    /// `g` and `G` visit the lines that match; `v` and `V` those that do not.
    var matching: Bool
    /// `G` and `V` read a command for each line from the input.
    var isInteractive: Bool
    var pattern: [UInt8]
    var ignoresCase: Bool
    /// The command list, one entry per line typed (a line ending in a backslash goes on);
    /// empty for `G` and `V`.
    var commands: [String]
    /// The print suffix of `G` and `V`.
    var flags: PrintFlags
  }

  /// An `s` command.
  enum Substitution: Equatable, Sendable {
    /// `s/re/replacement/flags`.
    case new(NewSubstitution)
    /// A bare `s`: repeat the last substitution, with its changes.
    case repeatLast(RepeatedSubstitution)
  }

  /// `s/re/replacement/flags`.
  struct NewSubstitution: Equatable, Sendable {
    var pattern: [UInt8]
    /// The replacement as typed (`&`, `\1`… not yet expanded); `nil` for `%`, the last one.
    var replacement: [UInt8]?
    /// `g`: every match on the line.
    var isGlobal = false
    /// `N`: the N-th match on the line.
    var occurrence = 1
    /// `I`: match without regard to case.
    var ignoresCase = false
    /// The print suffixes given (`p`, `l`, `n`).
    var suffixes: PrintFlags = []
    /// The closing delimiter was left off: print the line (as ed's `p`).
    var printsImplicitly = false
  }

  /// A bare `s` and its suffixes: `N` sets the occurrence, `g` toggles global, `p` toggles
  /// printing, `r` uses the last search's expression.
  struct RepeatedSubstitution: Equatable, Sendable {
    var occurrence: Int?
    var togglesGlobal = false
    var togglesPrinting = false
    var usesLastSearch = false
  }

  /// What `e`, `r`, `w` and `f` name: a file, or (`!cmd`) a shell command as typed.
  enum FileTarget: Equatable, Sendable {
    case file(String)
    case shell([UInt8])

    var fileName: String? {
      if case .file(let name) = self { return name }
      return nil
    }
  }
}

/// One address term as typed.
enum EdAddress: Equatable, Sendable {
  /// Digits: a line number, or, after another address, an amount added to it.
  case number(Int)
  /// `+N` or `-N` (`+` alone is `+1`): an offset from the address before (or the current line).
  case offset(Int)
  /// `.`
  case current
  /// `$`
  case last
  /// `/re/` (`forward`) or `?re?`; an `I` after it ignores case.
  case search([UInt8], forward: Bool, ignoresCase: Bool)
  /// `'x`
  case mark(UInt8)
  /// `,`, `;` or `%`.
  case separator(UInt8)
}

/// ed's print suffixes: `p`, `l`, `n`.
struct PrintFlags: OptionSet, Sendable {
  let rawValue: Int
  static let print = PrintFlags(rawValue: 1)
  static let list = PrintFlags(rawValue: 2)
  static let numbered = PrintFlags(rawValue: 4)

  init(rawValue: Int) { self.rawValue = rawValue }

  /// The flag a suffix letter (`p`, `l`, `n`) asks for.
  init?(suffix: UInt8) {
    switch suffix {
    case UInt8(ascii: "p"): self = .print
    case UInt8(ascii: "l"): self = .list
    case UInt8(ascii: "n"): self = .numbered
    default: return nil
    }
  }
}

// MARK: Parsing

extension EdCommand {
  /// Parses one command line.
  ///
  /// - Parameters:
  ///   - line: The command, without its newline.
  ///   - continuation: Supplies further lines when the command goes on past its line.
  /// - Throws: ``EdError`` naming what is wrong with the command as written.
  static func parse(_ line: String, continuation: @escaping () -> String? = { nil }) throws(EdError) -> EdCommand {
    var scanner = CommandScanner(line, continuation: continuation)
    return try parse(&scanner)
  }

  /// Parses the command at `scanner`'s position, to the end of its line (and its continuation
  /// lines).
  static func parse(_ s: inout CommandScanner) throws(EdError) -> EdCommand {
    let addresses = try parseAddresses(&s)
    guard let letter = s.next(), letter != UInt8(ascii: "\n") else { return EdCommand(addresses: addresses, action: .printNext) }
    return EdCommand(addresses: addresses, action: try parseAction(letter, &s))
  }

  /// The command after its letter.
  private static func parseAction(_ letter: UInt8, _ s: inout CommandScanner) throws(EdError) -> Action {
    switch letter {
    case UInt8(ascii: "a"): return .append(try readSuffix(&s))
    case UInt8(ascii: "i"): return .insert(try readSuffix(&s))
    case UInt8(ascii: "c"): return .change(try readSuffix(&s))
    case UInt8(ascii: "d"): return .delete(try readSuffix(&s))
    case UInt8(ascii: "e"), UInt8(ascii: "E"): return .edit(try readFileTarget(&s), unconditionally: letter == UInt8(ascii: "E"))
    case UInt8(ascii: "f"): return .fileName(try readFileTarget(&s))
    case UInt8(ascii: "g"), UInt8(ascii: "v"), UInt8(ascii: "G"), UInt8(ascii: "V"): return .global(try parseGlobal(letter, &s))
    case UInt8(ascii: "h"), UInt8(ascii: "H"):
      _ = try readSuffix(&s)
      return .help(togglesVerbose: letter == UInt8(ascii: "H"))
    case UInt8(ascii: "j"): return .join(try readSuffix(&s))
    case UInt8(ascii: "k"):
      guard let mark = s.next(), mark >= UInt8(ascii: "a"), mark <= UInt8(ascii: "z") else {
        throw EdError("a mark is one lower-case letter: k followed by a to z")
      }
      _ = try readSuffix(&s)
      return .mark(mark)
    case UInt8(ascii: "l"), UInt8(ascii: "n"), UInt8(ascii: "p"):
      var flags = try readSuffix(&s)
      flags.insert(PrintFlags(suffix: letter) ?? .print)
      return .print(flags)
    case UInt8(ascii: "m"), UInt8(ascii: "t"):
      let destination = try parseAddresses(&s)
      let flags = try readSuffix(&s)
      return letter == UInt8(ascii: "m") ? .move(destination: destination, flags) : .copy(destination: destination, flags)
    case UInt8(ascii: "P"):
      _ = try readSuffix(&s)
      return .togglePrompt
    case UInt8(ascii: "q"), UInt8(ascii: "Q"):
      _ = try readSuffix(&s)
      return .quit(unconditionally: letter == UInt8(ascii: "Q"))
    case UInt8(ascii: "r"): return .read(try readFileTarget(&s))
    case UInt8(ascii: "s"): return .substitute(try parseSubstitution(&s))
    case UInt8(ascii: "u"): return .undo(try readSuffix(&s))
    case UInt8(ascii: "w"), UInt8(ascii: "W"): return try parseWrite(appending: letter == UInt8(ascii: "W"), &s)
    case UInt8(ascii: "="): return .lineNumber(try readSuffix(&s))
    case UInt8(ascii: "#"):
      _ = s.rest()
      return .comment
    case UInt8(ascii: "y"):
      _ = try readSuffix(&s)
      return .yank
    case UInt8(ascii: "x"): return .put(try readSuffix(&s))
    case UInt8(ascii: "z"):
      var lines: Int?
      if let digit = s.peek, digit > UInt8(ascii: "0"), digit <= UInt8(ascii: "9") { lines = s.readNumber() }
      return .scroll(lines: lines, try readSuffix(&s))
    case UInt8(ascii: "!"): return .shell(s.rest())
    default:
      throw EdError("unknown command '\(String(decoding: [letter], as: UTF8.self))'; type 'help' for the list")
    }
  }

  /// `w`, `W`: an optional `q` or `Q`, then a file or `!cmd`.
  private static func parseWrite(appending: Bool, _ s: inout CommandScanner) throws(EdError) -> Action {
    var then: QuitAfterWrite?
    if s.peek == UInt8(ascii: "q") || s.peek == UInt8(ascii: "Q") {
      then = s.peek == UInt8(ascii: "Q") ? .quitUnconditionally : .quit
      s.advance()
    }
    return .write(try readFileTarget(&s), appending: appending, then: then)
  }

  // MARK: Addresses

  /// Reads the address terms at the start of a command (or of `m` and `t`'s destination).
  static func parseAddresses(_ s: inout CommandScanner) throws(EdError) -> [EdAddress] {
    var terms: [EdAddress] = []
    var expectingAddress = true
    while let byte = s.peek {
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"):
        terms.append(.number(s.readNumber() ?? 0))
        expectingAddress = false
      case UInt8(ascii: " "), UInt8(ascii: "\t"):
        s.advance()
      case UInt8(ascii: "+"), UInt8(ascii: "-"):
        s.advance()
        let amount = s.readNumber() ?? 1
        terms.append(.offset(byte == UInt8(ascii: "+") ? amount : -amount))
        expectingAddress = false
      case UInt8(ascii: "."), UInt8(ascii: "$"), UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "'"):
        terms.append(try parseBaseAddress(byte, expectingAddress: expectingAddress, &s))
        expectingAddress = false
      case UInt8(ascii: "%"), UInt8(ascii: ","), UInt8(ascii: ";"):
        s.advance()
        terms.append(.separator(byte))
        expectingAddress = true
      default:
        return terms
      }
    }
    return terms
  }

  /// `.`, `$`, `/re/`, `?re?` or `'x`, which only start an address.
  private static func parseBaseAddress(_ byte: UInt8, expectingAddress: Bool, _ s: inout CommandScanner) throws(EdError) -> EdAddress {
    s.advance()
    switch byte {
    case UInt8(ascii: "."), UInt8(ascii: "$"):
      guard expectingAddress else { throw EdError("invalid address: '\(Character(UnicodeScalar(byte)))' cannot follow another address") }
      return byte == UInt8(ascii: ".") ? .current : .last
    case UInt8(ascii: "'"):
      guard expectingAddress else { throw EdError("invalid address: a mark cannot follow another address") }
      guard let letter = s.next(), letter >= UInt8(ascii: "a"), letter <= UInt8(ascii: "z") else {
        throw EdError("invalid address: a mark is ' followed by a lower-case letter")
      }
      return .mark(letter)
    default:
      guard expectingAddress else { throw EdError("invalid address: a search cannot follow another address") }
      let (pattern, _) = try s.readPattern(delimiter: byte)
      var ignoresCase = false
      if s.peek == UInt8(ascii: "I") {
        s.advance()
        ignoresCase = true
      }
      return .search(pattern, forward: byte == UInt8(ascii: "/"), ignoresCase: ignoresCase)
    }
  }

  // MARK: Suffixes and file names

  /// Reads ed's print suffixes (`p`, `l`, `n`, each at most once) up to the end of the command.
  static func readSuffix(_ s: inout CommandScanner) throws(EdError) -> PrintFlags {
    var flags: PrintFlags = []
    while let byte = s.peek, let flag = PrintFlags(suffix: byte), !flags.contains(flag) {
      flags.insert(flag)
      s.advance()
    }
    if s.isAtEnd { return flags }
    let rest = String(decoding: s.rest(), as: UTF8.self)
    throw EdError("unexpected '\(rest)' after the command (only p, l or n may follow, each once)", ed: "Invalid command suffix")
  }

  /// Reads a command's file name, or `!cmd`; `nil` when none is given.
  static func readFileTarget(_ s: inout CommandScanner) throws(EdError) -> FileTarget? {
    guard let byte = s.peek else { return nil }
    guard byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") else {
      throw EdError(
        "unexpected '\(String(decoding: s.rest(), as: UTF8.self))': put a space between the command and the file name", ed: "Unexpected command suffix")
    }
    s.skipBlanks()
    if s.peek == UInt8(ascii: "!") {
      s.advance()
      return .shell(s.rest())
    }
    // The name's very bytes, carried in a `PathText` string (the document layer and the
    // system layer take it back as bytes).
    let name = PathText.string(bytes: s.rest())
    return name.isEmpty ? nil : .file(name)
  }

  // MARK: g and v

  private static func parseGlobal(_ letter: UInt8, _ s: inout CommandScanner) throws(EdError) -> GlobalCommand {
    guard let delimiter = s.next(), delimiter != UInt8(ascii: " "), delimiter != UInt8(ascii: "\n") else {
      throw EdError("g and v need a regular expression: g/re/command")
    }
    let (pattern, closed) = try s.readPattern(delimiter: delimiter)
    guard closed else { throw EdError("missing delimiter: write g/regular expression/command") }
    var ignoresCase = false
    if s.peek == UInt8(ascii: "I") {
      s.advance()
      ignoresCase = true
    }
    let interactive = letter == UInt8(ascii: "G") || letter == UInt8(ascii: "V")
    var command = GlobalCommand(
      matching: letter == UInt8(ascii: "g") || letter == UInt8(ascii: "G"), isInteractive: interactive, pattern: pattern,
      ignoresCase: ignoresCase, commands: [], flags: [])
    if interactive {
      command.flags = try readSuffix(&s)
      return command
    }
    // The command list: lines ending in a backslash continue it. They are kept as typed; each
    // is handed out without its backslash when run.
    var commands = [PathText.string(bytes: s.rest())]
    while let last = commands.last, last.hasSuffix("\\") {
      guard let next = s.continuation() else { break }
      commands.append(next)
    }
    command.commands = commands == [""] ? ["p"] : commands
    return command
  }
}
