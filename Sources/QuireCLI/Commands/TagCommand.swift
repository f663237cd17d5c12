import ArgumentParser
import Foundation
import Quire

/// `quire tag FILE [+TAG|-TAG…]`: show or change a file's tags (`user.xdg.tags`).
struct TagCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "tag",
    abstract: "Show a file's tags, or add (+TAG) and remove (-TAG) them.",
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
      throw ValidationError("'\(change)' is not a change: write +TAG to add a tag or -TAG to remove one.")
    }
  }

  func run() async throws {
    let url = URL(fileURLWithPath: file).standardizedFileURL
    let browser = DocumentBrowser(configuration: .init(locations: [url.deletingLastPathComponent()]))
    let added = changes.filter { $0.hasPrefix("+") }.map { String($0.dropFirst()) }
    let removed = changes.filter { $0.hasPrefix("-") }.map { String($0.dropFirst()) }
    let tags = changes.isEmpty ? try browser.tags(of: url) : try browser.changeTags(of: url, adding: added, removing: removed)
    if json {
      print(try BrowserJSON.encode(["path": .string(url.path), "tags": JSONValue.array(tags)]))
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
