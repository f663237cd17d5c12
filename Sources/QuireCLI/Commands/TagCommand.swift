import ArgumentParser
import Foundation
import Quire
import SystemPackage

/// `quire tag FILE [+TAG|-TAG…]`: show or change a file's tags (`user.xdg.tags`).
struct TagCommand: AsyncParsableCommand, TakesNamesAsBytes {
  static let configuration = CommandConfiguration(
    commandName: "tag",
    _superCommandName: "quire", abstract: "Show a file's tags, or add (+TAG) and remove (-TAG) them.",
    discussion: """
      Tags are the user.xdg.tags extended attribute, comma-separated, as KDE's Dolphin and \
      getfattr see them. With no changes, prints the tags, one per line. Exit codes: 0 done, \
      1 the file is missing or its file system keeps no user attributes, 2 usage error; 3 and up as 'quire help' lists.
      """)

  @Argument(help: "The file.") var file: String
  @Argument(parsing: .allUnrecognized, help: "+TAG to add, -TAG to remove.") var changes: [String] = []
  @Flag(help: "Print JSON.") var json = false

  func validate() throws {
    for change in changes where !(change.hasPrefix("+") || change.hasPrefix("-")) || change.count < 2 {
      throw ValidationError("'\(DisplayName.escaping(change))' is not a change: write +TAG to add a tag or -TAG to remove one.")
    }
    // Only the file is taken as bytes: a tag is text (user.xdg.tags is UTF-8).
    for change in changes where PathText.holdsNonUTF8Bytes(change) {
      throw ValidationError("The tag '\(DisplayName.escaping(change))' is not UTF-8 text. Give tags in UTF-8.")
    }
  }

  func run() async throws {
    // The file by its bytes: a name that is not UTF-8 is the very file named.
    let path = QuireCommand.filePath(file)
    let browser = DocumentBrowser(configuration: .init(locations: [URL(fileURLWithPath: FileManager.default.currentDirectoryPath)]))
    let added = changes.filter { $0.hasPrefix("+") }.map { String($0.dropFirst()) }
    let removed = changes.filter { $0.hasPrefix("-") }.map { String($0.dropFirst()) }
    let tags = changes.isEmpty ? try browser.tags(of: path) : try browser.changeTags(of: path, adding: added, removing: removed)
    if json {
      print(try BrowserJSON.encode(["path": .string(BrowserJSON.shown(absolute: path)), "tags": JSONValue.array(tags)]))
    } else {
      for tag in tags { print(tag) }
    }
  }

  enum JSONValue: Encodable {
    case string(String)
    case array([String])
    func encode(to encoder: any Encoder) throws {
      var container = encoder.singleValueContainer()
      switch self {
      case .string(let value): try container.encode(value)
      case .array(let value): try container.encode(value)
      }
    }
  }
}
