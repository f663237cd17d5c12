import Foundation

/// Tab completion for the REPL: command names, paths, template names and open documents.
struct Completion: Sendable {
  /// Names of the word commands.
  var commands: [String]
  /// Names of the open documents.
  var documents: [String]
  /// Names of the templates.
  var templates: [String]
  /// Where relative paths start.
  var currentFolder: String = FileManager.default.currentDirectoryPath

  /// The candidates for the word that ends `line` (the line up to the cursor).
  func candidates(forLineBefore line: String) -> [String] {
    let words = line.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
    let partial = words.last ?? ""
    guard words.count > 1 else {
      return commands.filter { $0.hasPrefix(partial) }.sorted()
    }
    let command = words[0]
    let previous = words[words.count - 2]
    switch command {
    case "switch", "close":
      return documents.filter { $0.hasPrefix(partial) }.sorted()
    case "assets":
      if words.count == 2 { return ["add"].filter { $0.hasPrefix(partial) } }
      if words.count == 3 && words[1] == "add" { return paths(partial) }
      return []
    case "help":
      return commands.filter { $0.hasPrefix(partial) }.sorted()
    case "new":
      if previous == "--template" { return templates.filter { $0.hasPrefix(partial) }.sorted() }
      if partial.hasPrefix("-") { return ["--template"].filter { $0.hasPrefix(partial) } }
      return paths(partial)
    case "save":
      if words.count == 2 { return ["as"].filter { $0.hasPrefix(partial) } }
      return paths(partial)
    case "open", "preview", "type", "thumbnail", "pdf", "pages", "insert-pages":
      return paths(partial)
    default:
      // ed's e, E, r, w, W and f (after any addresses) take a file name.
      if let last = command.last, "eErwWf".contains(last), command.dropLast().allSatisfy({ "0123456789,;.$+-' ".contains($0) }) {
        return paths(partial)
      }
      return []
    }
  }

  /// Files and folders whose path starts with `partial`; folders end in `/`.
  func paths(_ partial: String) -> [String] {
    let slash = partial.lastIndex(of: "/")
    let folderPart = slash.map { String(partial[...$0]) } ?? ""
    let prefix = slash.map { String(partial[partial.index(after: $0)...]) } ?? partial
    let folder = folderPart.hasPrefix("/") ? folderPart : currentFolder + "/" + folderPart
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder) else { return [] }
    return names.filter { $0.hasPrefix(prefix) && (prefix.hasPrefix(".") || !$0.hasPrefix(".")) }.sorted().map { name in
      var isFolder: ObjCBool = false
      _ = FileManager.default.fileExists(atPath: folder + "/" + name, isDirectory: &isFolder)
      return folderPart + name + (isFolder.boolValue ? "/" : "")
    }
  }
}

extension REPLSession {
  /// The completion state of this session.
  var completion: Completion {
    Completion(
      commands: REPLWordCommand.names.sorted(), documents: documents.map(\.displayName), templates: templateNames())
  }
}
