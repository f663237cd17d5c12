public import Foundation

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
  /// `UTTypeReferenceURL`: where the format is documented.
  public var referenceURL: String?
  /// `UTTypeVersion`: the version of the declaration, when it gives one.
  public var version: Int?

  /// Makes a declaration, as one entry of `UTExportedTypeDeclarations` would.
  ///
  /// - Parameters:
  ///   - identifier: Reverse-DNS identifier, such as `com.example.notes`.
  ///   - conformsTo: Direct parents, such as `public.plain-text`.
  ///   - description: A description for a person.
  ///   - tags: Tags by class, preferred first (extensions without the dot).
  ///   - referenceURL: Where the format is documented.
  ///   - version: The version of the declaration (`UTTypeVersion`).
  public init(
    identifier: String, conformsTo: [String], description: String? = nil,
    tags: [UTTagClass: [String]] = [:], referenceURL: String? = nil, version: Int? = nil
  ) {
    self.identifier = identifier
    self.conformsTo = conformsTo
    self.description = description
    self.tags = tags
    self.referenceURL = referenceURL
    self.version = version
  }
}

/// Where a declaration came from, which decides precedence: an app's exported declarations
/// beat its imported ones, which beat the system's (Apple's core types, Quire's own types and
/// the shared-mime-info database).
public enum TypeDeclarationOrigin: Int, Sendable, Hashable, Comparable, CustomStringConvertible {
  /// `UTExportedTypeDeclarations` of the embedding app: the app owns these types.
  case exported = 0
  /// `UTImportedTypeDeclarations` of the embedding app: types the app uses but does not own.
  case imported = 1
  /// Apple's core types and Quire's own declarations.
  case system = 2
  /// The freedesktop shared-mime-info database of the machine.
  case sharedMIMEInfo = 3

  public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
  public var description: String {
    switch self {
    case .exported: "exported"
    case .imported: "imported"
    case .system: "system"
    case .sharedMIMEInfo: "shared-mime-info"
    }
  }
}

/// A problem with one declaration: which file, which entry, what is wrong. The entry is left
/// out; the rest of the file still loads.
public struct TypeDeclarationDiagnostic: Sendable, Hashable, CustomStringConvertible {
  /// The file the declaration came from, when it came from a file.
  public var file: URL?
  /// `UTExportedTypeDeclarations` or `UTImportedTypeDeclarations`.
  public var list: String
  /// The entry's position in its list, from 0.
  public var index: Int
  /// The entry's identifier, when it has one.
  public var identifier: String?
  /// What is wrong and what to do.
  public var message: String

  public var description: String {
    let place = file.map { "'\($0.lastPathComponent)'" } ?? "declarations"
    let who = identifier.map { " ('\($0)')" } ?? ""
    return "\(place), \(list)[\(index)]\(who): \(message)"
  }
}

/// The declarations of one Info.plist-shaped file, as read, before the registry checks
/// them against each other.
public struct TypeDeclarationFile: Sendable {
  /// `UTExportedTypeDeclarations`.
  public var exported: [TypeDeclaration] = []
  /// `UTImportedTypeDeclarations`.
  public var imported: [TypeDeclaration] = []
  /// Entries that were left out, and why.
  public var diagnostics: [TypeDeclarationDiagnostic] = []
  /// The file read, named in the registry's later diagnostics.
  public var file: URL?
  /// Each kept entry's position in its list, parallel to ``exported`` and ``imported``.
  var exportedIndices: [Int] = []
  var importedIndices: [Int] = []

  /// Declarations given directly rather than read from a file.
  public init(exported: [TypeDeclaration] = [], imported: [TypeDeclaration] = []) {
    self.exported = exported
    self.imported = imported
    exportedIndices = Array(exported.indices)
    importedIndices = Array(imported.indices)
  }

  /// Reads declarations from a property list (XML or binary) or JSON file.
  ///
  /// - Throws: ``QuireError`` naming `url` when the file cannot be read or is neither a
  ///   property list nor JSON with a dictionary at the top.
  public init(contentsOf url: URL) throws {
    let data: Data
    do {
      data = try Data(contentsOf: url)
    } catch {
      let code: QuireError.Code =
        (error as? CocoaError)?.code == .fileReadNoSuchFile ? .fileMissing : .permissionDenied
      throw QuireError(
        code, "Cannot read type declarations from \(QuireError.name(url)). Check that the file exists and is readable.",
        url: url, cause: error as? CocoaError)
    }
    try self.init(data: data, file: url)
  }

  /// Reads declarations from the bytes of a property list or JSON document.
  ///
  /// - Parameter file: The file the bytes came from, named in diagnostics.
  /// - Throws: ``QuireError`` with code `invalidContent` when the bytes are not a dictionary.
  public init(data: Data, file: URL? = nil) throws {
    self.file = file
    let name = file.map(QuireError.name) ?? "the declarations"
    let first = data.first { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }
    let root: Any
    do {
      if first == UInt8(ascii: "{") {
        root = try JSONSerialization.jsonObject(with: data)
      } else {
        root = try PropertyListSerialization.propertyList(from: data, format: nil)
      }
    } catch {
      throw QuireError(
        .invalidContent, "Cannot read type declarations from \(name): it is neither a property list nor JSON. Fix the syntax and load it again.",
        url: file)
    }
    guard let dictionary = root as? [String: Any] else {
      throw QuireError(
        .invalidContent,
        "Cannot read type declarations from \(name): the top level must be a dictionary with UTExportedTypeDeclarations or UTImportedTypeDeclarations.",
        url: file)
    }
    for (key, origin) in [("UTExportedTypeDeclarations", TypeDeclarationOrigin.exported), ("UTImportedTypeDeclarations", .imported)] {
      guard let value = dictionary[key] else { continue }
      guard let entries = value as? [Any] else {
        diagnostics.append(.init(file: file, list: key, index: 0, identifier: nil, message: "\(key) must be an array of dictionaries; it was ignored."))
        continue
      }
      for (index, entry) in entries.enumerated() {
        switch Self.parse(entry) {
        case .success(let declaration):
          if let problem = Self.problem(with: declaration.identifier, origin: origin) {
            diagnostics.append(.init(file: file, list: key, index: index, identifier: declaration.identifier, message: problem))
          } else if origin == .exported {
            exported.append(declaration)
            exportedIndices.append(index)
          } else {
            imported.append(declaration)
            importedIndices.append(index)
          }
        case .failure(let problem):
          let identifier = (entry as? [String: Any])?["UTTypeIdentifier"] as? String
          diagnostics.append(.init(file: file, list: key, index: index, identifier: identifier, message: problem.message))
        }
      }
    }
  }

  private struct Problem: Error { var message: String }

  private static func strings(_ value: Any?, key: String) -> Result<[String], Problem> {
    switch value {
    case nil: return .success([])
    case let string as String: return .success([string])
    case let array as [Any]:
      let strings = array.compactMap { $0 as? String }
      guard strings.count == array.count else { return .failure(Problem(message: "\(key) must hold strings only.")) }
      return .success(strings)
    default: return .failure(Problem(message: "\(key) must be a string or an array of strings."))
    }
  }

  private static func parse(_ entry: Any) -> Result<TypeDeclaration, Problem> {
    guard let entry = entry as? [String: Any] else { return .failure(Problem(message: "the entry is not a dictionary.")) }
    guard let identifier = entry["UTTypeIdentifier"] as? String else {
      return .failure(Problem(message: "UTTypeIdentifier is missing or not a string."))
    }
    let parents: [String]
    switch strings(entry["UTTypeConformsTo"], key: "UTTypeConformsTo") {
    case .success(let value): parents = value
    case .failure(let problem): return .failure(problem)
    }
    var tags: [UTTagClass: [String]] = [:]
    if let specification = entry["UTTypeTagSpecification"] {
      guard let specification = specification as? [String: Any] else {
        return .failure(Problem(message: "UTTypeTagSpecification must be a dictionary of tag class to tags."))
      }
      for (tagClass, value) in specification {
        switch strings(value, key: "UTTypeTagSpecification.\(tagClass)") {
        case .success(let values):
          let cleaned = values.map { tagClass == UTTagClass.filenameExtension.rawValue && $0.hasPrefix(".") ? String($0.dropFirst()) : $0 }
            .filter { !$0.isEmpty }
          if !cleaned.isEmpty { tags[UTTagClass(rawValue: tagClass)] = cleaned }
        case .failure(let problem): return .failure(problem)
        }
      }
    }
    let description = entry["UTTypeDescription"] as? String
    let reference = entry["UTTypeReferenceURL"] as? String
    // An Info.plist gives the version as a number or as a string of digits.
    let version = (entry["UTTypeVersion"] as? Int) ?? (entry["UTTypeVersion"] as? String).flatMap { Int($0) }
    return .success(
      TypeDeclaration(identifier: identifier, conformsTo: parents, description: description, tags: tags, referenceURL: reference, version: version))
  }

  /// Why an app may not declare `identifier`, or nil when it may.
  static func problem(with identifier: String, origin: TypeDeclarationOrigin) -> String? {
    if !isValidIdentifier(identifier) {
      return "'\(identifier)' is not a valid type identifier: use reverse-DNS form of letters, digits, '-' and '.', such as 'com.example.notes'."
    }
    if identifier.lowercased().hasPrefix("dyn.") {
      return "'dyn.' identifiers are made by the system for undeclared tags and cannot be declared."
    }
    if origin <= .imported && identifier.lowercased().hasPrefix("public.") {
      return "the 'public.' domain is reserved for Apple's system types; declare the type in your own reverse-DNS domain."
    }
    return nil
  }

  /// Whether `identifier` is a syntactically valid UTI: reverse-DNS components of ASCII
  /// letters, digits and hyphens (or any non-ASCII character), separated by single dots.
  static func isValidIdentifier(_ identifier: String) -> Bool {
    let components = identifier.split(separator: ".", omittingEmptySubsequences: false)
    guard components.count >= 2 else { return false }
    for component in components {
      guard !component.isEmpty else { return false }
      for scalar in component.unicodeScalars {
        let ok =
          (scalar.value >= 0x30 && scalar.value <= 0x39) || (scalar.value >= 0x41 && scalar.value <= 0x5A)
          || (scalar.value >= 0x61 && scalar.value <= 0x7A) || scalar == "-" || scalar.value >= 0x80
        if !ok { return false }
      }
    }
    return true
  }
}
