import ArgumentParser
import Foundation
import QuireTypes

/// `quire types`: the type registry, as a list or a tree.
struct TypesCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "types",
    _superCommandName: "quire", abstract: "List the type registry.",
    discussion: "Apple's core types, Quire's own and the system's shared-mime-info types. Exit codes: 0 done, 2 usage error.")

  @Flag(help: "Print the conformance tree (each type under each parent).") var tree = false
  @Option(name: .customLong("conforming-to"), help: "Only types that conform to this identifier.") var conformingTo: String?

  func run() async throws {
    let registry = TypeRegistry.shared
    var root: UTType?
    if let conformingTo {
      guard let type = registry.type(withIdentifier: conformingTo) else {
        throw ValidationError("No type has the identifier '\(conformingTo)'. Run 'quire types' for the list.")
      }
      root = type
    }
    if tree {
      print(registry.treeDescription(conformingTo: root))
      return
    }
    let types = root.map { registry.types(conformingTo: $0) } ?? registry.allTypes
    for type in types {
      var facts: [String] = []
      if let ext = type.preferredFilenameExtension { facts.append(".\(ext)") }
      if let mime = type.preferredMIMEType { facts.append(mime) }
      print(facts.isEmpty ? type.identifier : "\(type.identifier)  (\(facts.joined(separator: ", ")))")
    }
  }
}
