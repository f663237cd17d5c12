import Foundation

/// A uniform type identifier: the name of a kind of data and its place among other kinds.
///
/// Mirrors Apple's `UTType`: a value with an ``identifier``, conformances that form a
/// directed acyclic graph (`public.markdown` conforms to `public.plain-text`, which conforms
/// to `public.text`, …) and tags (filename extensions, MIME types). The facts behind a type
/// live in a ``TypeRegistry``; a `UTType` looks them up in the registry it came from.
public struct UTType: Sendable, Hashable, CustomStringConvertible {
  /// The type's identifier, e.g. `net.daringfireball.markdown`.
  public let identifier: String
  let registry: TypeRegistry

  init(identifier: String, registry: TypeRegistry) {
    self.identifier = identifier
    self.registry = registry
  }

  /// The type with this identifier in the shared registry, or `nil` when none is declared.
  public init?(_ identifier: String) {
    guard let type = TypeRegistry.shared.type(withIdentifier: identifier) else { return nil }
    self = type
  }

  /// The preferred type for a filename extension (without the dot), as Apple's
  /// `UTType(filenameExtension:conformingTo:)`.
  public init?(filenameExtension: String, conformingTo supertype: UTType = .data) {
    guard
      let type = TypeRegistry.shared.type(
        forTag: filenameExtension, tagClass: .filenameExtension, conformingTo: supertype)
    else { return nil }
    self = type
  }

  /// The preferred type for a MIME type, as Apple's `UTType(mimeType:conformingTo:)`.
  public init?(mimeType: String, conformingTo supertype: UTType = .data) {
    guard
      let type = TypeRegistry.shared.type(
        forTag: mimeType, tagClass: .mimeType, conformingTo: supertype)
    else { return nil }
    self = type
  }

  public static func == (lhs: UTType, rhs: UTType) -> Bool { lhs.identifier == rhs.identifier }
  public func hash(into hasher: inout Hasher) { hasher.combine(identifier) }
  public var description: String { identifier }

  var declaration: TypeDeclaration? { registry.declaration(for: identifier) }

  /// A description for a person, e.g. "Markdown text".
  public var localizedDescription: String? { declaration?.description }
  /// The first filename extension declared for the type.
  public var preferredFilenameExtension: String? { declaration?.tags[.filenameExtension]?.first }
  /// The first MIME type declared for the type.
  public var preferredMIMEType: String? { declaration?.tags[.mimeType]?.first }
  /// Every tag of the type, by class.
  public var tags: [UTTagClass: [String]] { declaration?.tags ?? [:] }

  /// Every type this one conforms to, directly or through others (not itself).
  public var supertypes: Set<UTType> {
    Set(registry.ancestors(of: identifier).map { UTType(identifier: $0, registry: registry) })
  }

  /// Whether this type is `type` or conforms to it through the conformance graph.
  public func conforms(to type: UTType) -> Bool {
    identifier == type.identifier || registry.ancestors(of: identifier).contains(type.identifier)
  }
  /// Whether this type conforms to `type` and is not `type` itself.
  public func isSubtype(of type: UTType) -> Bool { self != type && conforms(to: type) }
  /// Whether `type` conforms to this type and is not this type itself.
  public func isSupertype(of type: UTType) -> Bool { type.isSubtype(of: self) }
}

/// A class of tag that maps onto types.
public struct UTTagClass: RawRepresentable, Hashable, Sendable, Codable {
  public let rawValue: String
  public init(rawValue: String) { self.rawValue = rawValue }
  /// `public.filename-extension`: extensions without the leading dot.
  public static let filenameExtension = UTTagClass(rawValue: "public.filename-extension")
  /// `public.mime-type`.
  public static let mimeType = UTTagClass(rawValue: "public.mime-type")
}

extension UTType {
  private static func builtIn(_ identifier: String) -> UTType {
    UTType(identifier: identifier, registry: .shared)
  }
  /// `public.item`: the base of the physical hierarchy.
  public static let item = builtIn("public.item")
  /// `public.content`: the base of the functional hierarchy.
  public static let content = builtIn("public.content")
  /// `public.data`: a byte stream.
  public static let data = builtIn("public.data")
  /// `public.directory`.
  public static let directory = builtIn("public.directory")
  /// `public.folder`.
  public static let folder = builtIn("public.folder")
  /// `com.apple.package`: a folder shown as one file.
  public static let package = builtIn("com.apple.package")
  /// `public.text`.
  public static let text = builtIn("public.text")
  /// `public.plain-text`.
  public static let plainText = builtIn("public.plain-text")
  /// `public.utf8-plain-text`.
  public static let utf8PlainText = builtIn("public.utf8-plain-text")
  /// `public.source-code`.
  public static let sourceCode = builtIn("public.source-code")
  /// `net.daringfireball.markdown`.
  public static let markdown = builtIn("net.daringfireball.markdown")
  /// `public.html`.
  public static let html = builtIn("public.html")
  /// `public.json`.
  public static let json = builtIn("public.json")
  /// `public.image`.
  public static let image = builtIn("public.image")
  /// `public.png`.
  public static let png = builtIn("public.png")
  /// `public.jpeg`.
  public static let jpeg = builtIn("public.jpeg")
  /// `public.composite-content`.
  public static let compositeContent = builtIn("public.composite-content")
  /// `com.adobe.pdf`.
  public static let pdf = builtIn("com.adobe.pdf")
  /// `public.url`.
  public static let url = builtIn("public.url")
  /// `public.file-url`.
  public static let fileURL = builtIn("public.file-url")
}
