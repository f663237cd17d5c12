import ArgumentParser

/// ed's command-line conventions where they differ from argument-parser's, applied before
/// parsing when the arguments go to the REPL (no subcommand named first).
///
/// - `-pPROMPT` (a value attached to `-p`, also after other flags: `-sp*`) becomes `-p PROMPT`.
/// - A word that begins with `-` but is no option (`-dash.md`) is refused naming the way to
///   open such a file, `quire -- -dash.md`, as ed refuses it; argument-parser would otherwise
///   read it as a cluster of flags (`-h` among them printing help).
/// - Everything after `--` is a file name, even one named like a subcommand (`quire -- demo`).
enum EdArguments {
  /// ed's short options: flags, then `p`, which takes a value.
  static let flagLetters: Set<Character> = ["E", "G", "h", "l", "q", "r", "s", "v", "V"]

  /// `arguments` rewritten for argument-parser, or a usage error.
  static func normalized(_ arguments: [String], subcommands: Set<String>) throws -> [String] {
    guard let first = arguments.first else { return arguments }
    if subcommands.contains(first) || ["-h", "--help", "--version"].contains(first) || first.hasPrefix("--generate-completion") {
      return arguments
    }
    if first == "--" { return ["repl"] + arguments }
    var result: [String] = []
    var index = 0
    while index < arguments.count {
      let word = arguments[index]
      index += 1
      if word == "--" {
        result += arguments[(index - 1)...]
        break
      }
      guard word.hasPrefix("-"), !word.hasPrefix("--"), word.count > 1 else {
        result.append(word)
        continue
      }
      var letters = Array(word.dropFirst())
      var flags = ""
      while let letter = letters.first, flagLetters.contains(letter) {
        flags.append(letter)
        letters.removeFirst()
      }
      if letters.first == "p" {
        letters.removeFirst()
        result.append("-" + flags + "p")
        if !letters.isEmpty {
          result.append(String(letters))
        } else if index < arguments.count {
          result.append(arguments[index])
          index += 1
        }
        continue
      }
      guard letters.isEmpty else {
        throw ValidationError(
          "unknown option '-\(letters[0])' in '\(word)'; a file whose name begins with '-' goes after --: quire -- \(word)")
      }
      result.append(word)
    }
    // A file named like a subcommand after options stays a file: the REPL is named first.
    if let firstWord = result.first, firstWord.hasPrefix("-") || firstWord.hasPrefix("+") { return ["repl"] + result }
    return result
  }
}
