import ArgumentParser
import Foundation
import Quire
import SystemPackage

/// `quire browse`: the documents of folders, filtered, sorted, with tags and thumbnails.
struct BrowseCommand: AsyncParsableCommand, TakesNamesAsBytes {
  static let configuration = CommandConfiguration(
    commandName: "browse",
    _superCommandName: "quire", abstract: "List the documents in folders, with type, size, date and tags.",
    discussion: """
      Walks the folders (the current one by default) and lists the documents Quire opens \
      (text, Markdown, PDF, TextBundle), packages as one document. Exit codes: 0 done, \
      1 a folder could not be read, 2 usage error. Names are shown escaped (\\xFF for a byte \
      that is not UTF-8, \\n for a newline).
      """)

  @Argument(help: "Folders to browse (the current folder by default).") var folders: [String] = []
  @Option(name: .customLong("type"), help: "Only documents conforming to this type identifier or extension (repeatable).") var types: [String] = []
  @Option(help: "Sort by name, date, size or kind; '-' first reverses (e.g. -date).") var sort = "name"
  @Option(help: "Only documents with this tag.") var tag: String?
  @Flag(help: "Make missing thumbnails (freedesktop cache) and show their paths.") var thumbnails = false
  @Flag(help: "Watch: after the list, print each change as it happens until interrupted.") var watch = false
  @Flag(help: "Print JSON.") var json = false

  func validate() throws {
    guard BrowserSortOrder(parsing: sort) != nil else { throw ValidationError("--sort takes name, date, size or kind (with '-' to reverse), not '\(sort)'.") }
    for type in types where Self.type(named: type) == nil { throw ValidationError("'\(type)' is not a known type identifier or filename extension.") }
  }

  static func type(named name: String) -> UTType? {
    TypeRegistry.shared.type(withIdentifier: name) ?? TypeRegistry.shared.type(forFilenameExtension: name.hasPrefix(".") ? String(name.dropFirst()) : name)
  }

  func run() async throws {
    let wanted = types.compactMap(Self.type(named:))
    let browser = BrowserLocationOptions.makeBrowser(folders: folders, types: wanted.isEmpty ? DocumentBrowser.defaultContentTypes : wanted)
    let order = BrowserSortOrder(parsing: sort) ?? .name
    // Every name is listed, a name that is not UTF-8 by its bytes (shown escaped); a failure exits
    // with its status from ExitStatus.
    let items = try browser.items(sortedBy: order, taggedWith: tag)
    let shown = items.map { item in
      (item, thumbnails ? try? browser.thumbnail(for: item) : browser.cachedThumbnail(for: item))
    }
    if json {
      print(try BrowserJSON.encode(shown.map { BrowserJSON.Item($0.0, thumbnail: $0.1) }))
    } else {
      for (item, thumbnail) in shown { print(Self.line(for: item, thumbnail: thumbnail)) }
    }
    guard watch else { return }
    fflush(nil)
    let changes = try browser.changes()
    for location in browser.configuration.locations { PollingNotice.say(for: FilePath(location.path)) }
    for await change in changes {
      // One line per change, written at once (standard output may be a pipe).
      let line = json ? (try BrowserJSON.encodeLine(change)) : change.description
      print(line)
      fflush(nil)
    }
  }

  static let dateFormat: DateFormatter = {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.dateFormat = "yyyy-MM-dd HH:mm"
    return formatter
  }()

  /// `notes.md  Markdown document  1.2 KB  2026-11-24 13:00  #work #urgent`; `name` is printed
  /// in place of the item's path in its folder (the REPL prints a name its `open` takes).
  static func line(for item: BrowserItem, thumbnail: URL?, name: String? = nil) -> String {
    var parts = [
      DisplayName.escaping(name ?? item.relativePath + (item.isPackage ? "/" : "")), DocumentBrowser.kindName(of: item),
      ByteCountFormatter.string(fromByteCount: item.size, countStyle: .file), dateFormat.string(from: item.modificationDate),
    ]
    if !item.tags.isEmpty { parts.append(item.tags.map { "#" + $0 }.joined(separator: " ")) }
    if let thumbnail { parts.append(thumbnail.path) }
    return parts.joined(separator: "  ")
  }
}
