public import Foundation
import Synchronization

/// What a registry knows of one type: the Info.plist `UTTypeDeclarations` entry shape.
public struct TypeDeclaration: Sendable, Hashable, Codable {
  /// `UTTypeIdentifier`.
  public var identifier: String
  /// `UTTypeConformsTo`: direct parents.
  public var conformsTo: [String]
  /// `UTTypeDescription`.
  public var description: String?
  /// `UTTypeTagSpecification`, preferred tag first in each list.
  public var tags: [UTTagClass: [String]]

  public init(
    identifier: String, conformsTo: [String], description: String? = nil,
    tags: [UTTagClass: [String]] = [:]
  ) {
    self.identifier = identifier
    self.conformsTo = conformsTo
    self.description = description
    self.tags = tags
  }
}

/// The set of types a process knows, safe to use from any thread.
///
/// ``shared`` starts with Apple's core types; an embedding app adds its own declarations.
public final class TypeRegistry: Sendable, Hashable {
  private struct State {
    var declarations: [String: TypeDeclaration] = [:]
    /// Lower-cased tag → identifiers in declaration order, per tag class.
    var tagIndex: [UTTagClass: [String: [String]]] = [:]
  }
  private let state = Mutex(State())

  /// The process-wide registry with the built-in declarations.
  public static let shared: TypeRegistry = TypeRegistry(declarations: BuiltInTypes.declarations)

  /// Makes a registry holding `declarations`, earlier ones taking precedence for tags.
  public init(declarations: [TypeDeclaration]) {
    for declaration in declarations { add(declaration) }
  }

  public static func == (lhs: TypeRegistry, rhs: TypeRegistry) -> Bool { lhs === rhs }
  public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

  /// Adds or replaces one declaration.
  public func add(_ declaration: TypeDeclaration) {
    state.withLock { state in
      state.declarations[declaration.identifier] = declaration
      for (tagClass, values) in declaration.tags {
        for value in values {
          let key = value.lowercased()
          var list = state.tagIndex[tagClass, default: [:]][key, default: []]
          if !list.contains(declaration.identifier) { list.append(declaration.identifier) }
          state.tagIndex[tagClass, default: [:]][key] = list
        }
      }
    }
  }

  func declaration(for identifier: String) -> TypeDeclaration? {
    state.withLock { $0.declarations[identifier] }
  }

  /// The declared type with this identifier.
  public func type(withIdentifier identifier: String) -> UTType? {
    declaration(for: identifier).map { _ in UTType(identifier: identifier, registry: self) }
  }

  /// Every declared type carrying `tag`, in declaration order.
  public func types(forTag tag: String, tagClass: UTTagClass, conformingTo supertype: UTType? = nil)
    -> [UTType]
  {
    let identifiers = state.withLock { $0.tagIndex[tagClass]?[tag.lowercased()] ?? [] }
    return identifiers.map { UTType(identifier: $0, registry: self) }
      .filter { supertype == nil || $0.conforms(to: supertype!) }
  }

  /// The preferred declared type carrying `tag`.
  public func type(forTag tag: String, tagClass: UTTagClass, conformingTo supertype: UTType? = nil)
    -> UTType?
  {
    types(forTag: tag, tagClass: tagClass, conformingTo: supertype).first
  }

  /// Every identifier `identifier` conforms to, directly or not, without itself.
  func ancestors(of identifier: String) -> Set<String> {
    state.withLock { state in
      var seen: Set<String> = []
      var stack = state.declarations[identifier]?.conformsTo ?? []
      while let next = stack.popLast() {
        guard seen.insert(next).inserted else { continue }
        stack.append(contentsOf: state.declarations[next]?.conformsTo ?? [])
      }
      return seen
    }
  }

  /// Every declared type that conforms to `type` (including `type`).
  public func types(conformingTo type: UTType) -> [UTType] {
    let all = state.withLock { Array($0.declarations.keys) }.sorted()
    return all.map { UTType(identifier: $0, registry: self) }.filter { $0.conforms(to: type) }
  }

  /// The type of the file at `url` judged from its filename extension; folders are
  /// `public.folder`. Content sniffing is not part of this lookup.
  public func type(forFileAt url: URL) -> UTType? {
    var isFolder: ObjCBool = false
    if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), isFolder.boolValue {
      return type(forTag: url.pathExtension, tagClass: .filenameExtension, conformingTo: .package)
        ?? type(withIdentifier: UTType.folder.identifier)
    }
    guard !url.pathExtension.isEmpty else { return nil }
    return type(forTag: url.pathExtension, tagClass: .filenameExtension)
  }
}
