public import Foundation

/// A uniform type identifier: the name of a kind of data and its place among other kinds.
///
/// Mirrors Apple's `UTType`: a value with an ``identifier``, conformances that form a
/// directed acyclic graph (`net.daringfireball.markdown` conforms to `public.plain-text`,
/// which conforms to `public.text`, …) and tags (filename extensions, MIME types). The facts
/// behind a type live in a ``TypeRegistry``; a `UTType` looks them up in the registry it came
/// from. A tag that no declaration claims gets a *dynamic* type whose `dyn.` identifier
/// encodes the tag exactly as Apple's platforms do (see ``DynamicTypeIdentifier``).
public struct UTType: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
  /// The type's identifier, e.g. `net.daringfireball.markdown`.
  public let identifier: String
  let registry: TypeRegistry

  init(identifier: String, registry: TypeRegistry) {
    self.identifier = identifier
    self.registry = registry
  }

  /// The type with this identifier in the shared registry.
  ///
  /// Returns `nil` when no declaration has the identifier, unless it is a well-formed
  /// `dyn.` identifier, which always names a (dynamic) type, as on Apple's platforms.
  public init?(_ identifier: String) {
    guard let type = TypeRegistry.shared.type(withIdentifier: identifier) else { return nil }
    self = type
  }

  /// The preferred type for a filename extension (without the dot), as Apple's
  /// `UTType(filenameExtension:conformingTo:)`.
  ///
  /// When no declared type conforming to `supertype` carries the extension, this is a
  /// dynamic type (`dyn.a…`) that conforms to `supertype`. Returns `nil` for an empty tag.
  public init?(filenameExtension: String, conformingTo supertype: UTType = .data) {
    self.init(tag: filenameExtension, tagClass: .filenameExtension, conformingTo: supertype)
  }

  /// The preferred type for a MIME type, as Apple's `UTType(mimeType:conformingTo:)`;
  /// a dynamic type when none is declared.
  public init?(mimeType: String, conformingTo supertype: UTType = .data) {
    self.init(tag: mimeType, tagClass: .mimeType, conformingTo: supertype)
  }

  /// The preferred type for any tag, as Apple's `UTType(tag:tagClass:conformingTo:)`;
  /// a dynamic type when none is declared. Returns `nil` for an empty tag.
  public init?(tag: String, tagClass: UTTagClass, conformingTo supertype: UTType?) {
    guard let type = TypeRegistry.shared.preferredType(forTag: tag, tagClass: tagClass, conformingTo: supertype)
    else { return nil }
    self = type
  }

  /// Every type carrying `tag`, as Apple's `UTType.types(tag:tagClass:conformingTo:)`; one
  /// dynamic type when none is declared.
  public static func types(tag: String, tagClass: UTTagClass, conformingTo supertype: UTType?) -> [UTType] {
    let declared = TypeRegistry.shared.types(forTag: tag, tagClass: tagClass, conformingTo: supertype)
    if !declared.isEmpty { return declared }
    return TypeRegistry.shared.preferredType(forTag: tag, tagClass: tagClass, conformingTo: supertype).map { [$0] } ?? []
  }

  /// The preferred type for a tag whose class is a string, as Apple's `UTTypeReference`
  /// (Foundation's class form, here the same type) takes it: `UTTypeReference(tag: "md",
  /// tagClass: "public.filename-extension", conformingTo: nil)`.
  public init?(tag: String, tagClass: String, conformingTo supertype: UTType?) {
    self.init(tag: tag, tagClass: UTTagClass(rawValue: tagClass), conformingTo: supertype)
  }

  /// Every type carrying `tag` of the tag class named by a string, as Apple's
  /// `UTTypeReference.types(tag:tagClass:conformingTo:)`.
  public static func types(tag: String, tagClass: String, conformingTo supertype: UTType?) -> [UTType] {
    types(tag: tag, tagClass: UTTagClass(rawValue: tagClass), conformingTo: supertype)
  }

  /// Foundation's reference form of the type (`ReferenceConvertible`): `UTTypeReference`,
  /// which is this same type here (Swift on Linux bridges no value to a class).
  public typealias ReferenceType = UTTypeReference

  /// Where the type's format is documented (its declaration's `UTTypeReferenceURL`), or nil.
  public var referenceURL: URL? { declaration?.referenceURL.flatMap { URL(string: $0) } }

  /// The version of the type's declaration (its `UTTypeVersion`), or nil when it gives none.
  public var version: NSNumber? { declaration?.version.map { NSNumber(value: $0) } }

  public static func == (lhs: UTType, rhs: UTType) -> Bool { lhs.identifier == rhs.identifier }
  public func hash(into hasher: inout Hasher) { hasher.combine(identifier) }
  public var description: String { identifier }
  public var debugDescription: String {
    let chain = conformanceChain.map(\.identifier).joined(separator: ", ")
    return "\(identifier) (\(preferredMIMEType ?? "no MIME type"); conforms to \(chain.isEmpty ? "nothing" : chain))"
  }

  var declaration: TypeDeclaration? { registry.declaration(for: identifier) }

  /// A description for a person, e.g. "Markdown text".
  public var localizedDescription: String? { registry.description(of: identifier) }
  /// The first filename extension of the type.
  public var preferredFilenameExtension: String? { declaration?.tags[.filenameExtension]?.first }
  /// The first MIME type of the type.
  public var preferredMIMEType: String? { declaration?.tags[.mimeType]?.first }
  /// Every tag of the type, by class; the preferred one first in each list.
  public var tags: [UTTagClass: [String]] { declaration?.tags ?? [:] }

  /// Whether a declaration (Apple's, the system's shared-mime-info, Quire's or an app's)
  /// defines the type. Dynamic types are not declared.
  public var isDeclared: Bool { !isDynamic && declaration != nil }
  /// Whether the type is a `dyn.` type made up for a tag nobody declared.
  public var isDynamic: Bool { identifier.hasPrefix("dyn.") }
  /// Whether the identifier is in Apple's reserved `public.` domain.
  public var isPublic: Bool { identifier.hasPrefix("public.") }

  /// Every type this one conforms to, directly or through others (not itself).
  public var supertypes: Set<UTType> {
    Set(registry.ancestors(of: identifier).map { UTType(identifier: $0, registry: registry) })
  }

  /// The supertypes in breadth-first order, nearest first, the way Spotlight lists
  /// `kMDItemContentTypeTree` (without the type itself).
  public var conformanceChain: [UTType] {
    registry.orderedAncestors(of: identifier).map { UTType(identifier: $0, registry: registry) }
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
  public static func == (lhs: UTTagClass, rhs: UTTagClass) -> Bool { lhs.rawValue == rhs.rawValue }
  /// Hashes the length only: the few tag classes differ in length, and every tag lookup
  /// hashes one (equal values still hash equally; `==` tells the rest apart).
  public func hash(into hasher: inout Hasher) {
    hasher.combine(rawValue.utf8.count)
  }
  /// `public.filename-extension`: extensions without the leading dot.
  public static let filenameExtension = UTTagClass(rawValue: "public.filename-extension")
  /// `public.mime-type`.
  public static let mimeType = UTTagClass(rawValue: "public.mime-type")
}

extension UTTagClass: CustomStringConvertible, CustomDebugStringConvertible {
  /// The tag class's string, such as `public.filename-extension`.
  public var description: String { rawValue }
  /// The tag class's string, such as `public.filename-extension`.
  public var debugDescription: String { rawValue }
}

extension UTType {
  private static func builtIn(_ identifier: String) -> UTType {
    UTType(identifier: identifier, registry: .shared)
  }
  // MARK: Roots and the physical hierarchy
  /// `public.item`: the base of the physical hierarchy.
  public static let item = builtIn("public.item")
  /// `public.content`: the base of the functional hierarchy.
  public static let content = builtIn("public.content")
  /// `public.composite-content`: mixed content, such as PDF.
  public static let compositeContent = builtIn("public.composite-content")
  /// `public.data`: a byte stream.
  public static let data = builtIn("public.data")
  /// `public.directory`.
  public static let directory = builtIn("public.directory")
  /// `public.folder`: a directory a person sees as a folder.
  public static let folder = builtIn("public.folder")
  /// `public.volume`.
  public static let volume = builtIn("public.volume")
  /// `com.apple.package`: a folder shown as one file.
  public static let package = builtIn("com.apple.package")
  /// `com.apple.bundle`.
  public static let bundle = builtIn("com.apple.bundle")
  /// `public.symlink`.
  public static let symbolicLink = builtIn("public.symlink")
  /// `com.apple.resolvable`.
  public static let resolvable = builtIn("com.apple.resolvable")
  /// `public.executable`.
  public static let executable = builtIn("public.executable")
  /// `public.unix-executable`.
  public static let unixExecutable = builtIn("public.unix-executable")
  /// `public.archive`.
  public static let archive = builtIn("public.archive")
  /// `public.disk-image`.
  public static let diskImage = builtIn("public.disk-image")
  // MARK: Text
  /// `public.text`.
  public static let text = builtIn("public.text")
  /// `public.plain-text`.
  public static let plainText = builtIn("public.plain-text")
  /// `public.utf8-plain-text`.
  public static let utf8PlainText = builtIn("public.utf8-plain-text")
  /// `public.utf16-plain-text`.
  public static let utf16PlainText = builtIn("public.utf16-plain-text")
  /// `public.delimited-values-text`.
  public static let delimitedText = builtIn("public.delimited-values-text")
  /// `public.comma-separated-values-text`.
  public static let commaSeparatedText = builtIn("public.comma-separated-values-text")
  /// `public.tab-separated-values-text`.
  public static let tabSeparatedText = builtIn("public.tab-separated-values-text")
  /// `public.rtf`.
  public static let rtf = builtIn("public.rtf")
  /// `public.html`.
  public static let html = builtIn("public.html")
  /// `public.xml`.
  public static let xml = builtIn("public.xml")
  /// `public.yaml`.
  public static let yaml = builtIn("public.yaml")
  /// `public.json`.
  public static let json = builtIn("public.json")
  /// `public.css`.
  public static let css = builtIn("public.css")
  /// `net.daringfireball.markdown`.
  public static let markdown = builtIn("net.daringfireball.markdown")
  /// `public.source-code`.
  public static let sourceCode = builtIn("public.source-code")
  /// `public.swift-source`.
  public static let swiftSource = builtIn("public.swift-source")
  /// `public.c-source`.
  public static let cSource = builtIn("public.c-source")
  /// `public.script`.
  public static let script = builtIn("public.script")
  /// `public.shell-script`.
  public static let shellScript = builtIn("public.shell-script")
  /// `public.python-script`.
  public static let pythonScript = builtIn("public.python-script")
  /// `com.netscape.javascript-source`.
  public static let javaScript = builtIn("com.netscape.javascript-source")
  /// `com.apple.property-list`.
  public static let propertyList = builtIn("com.apple.property-list")
  // MARK: Documents
  /// `com.adobe.pdf`.
  public static let pdf = builtIn("com.adobe.pdf")
  /// `com.apple.rtfd`.
  public static let rtfd = builtIn("com.apple.rtfd")
  /// `org.idpf.epub-container`.
  public static let epub = builtIn("org.idpf.epub-container")
  // MARK: Images
  /// `public.image`.
  public static let image = builtIn("public.image")
  /// `public.png`.
  public static let png = builtIn("public.png")
  /// `public.jpeg`.
  public static let jpeg = builtIn("public.jpeg")
  /// `com.compuserve.gif`.
  public static let gif = builtIn("com.compuserve.gif")
  /// `public.tiff`.
  public static let tiff = builtIn("public.tiff")
  /// `com.microsoft.bmp`.
  public static let bmp = builtIn("com.microsoft.bmp")
  /// `public.svg-image`.
  public static let svg = builtIn("public.svg-image")
  /// `org.webmproject.webp`.
  public static let webP = builtIn("org.webmproject.webp")
  /// `public.heic`.
  public static let heic = builtIn("public.heic")
  // MARK: Audio and video
  /// `public.audiovisual-content`.
  public static let audiovisualContent = builtIn("public.audiovisual-content")
  /// `public.movie`.
  public static let movie = builtIn("public.movie")
  /// `public.video`.
  public static let video = builtIn("public.video")
  /// `public.audio`.
  public static let audio = builtIn("public.audio")
  /// `public.mp3`.
  public static let mp3 = builtIn("public.mp3")
  /// `public.mpeg-4`.
  public static let mpeg4Movie = builtIn("public.mpeg-4")
  /// `com.apple.quicktime-movie`.
  public static let quickTimeMovie = builtIn("com.apple.quicktime-movie")
  // MARK: Archives
  /// `public.zip-archive`.
  public static let zip = builtIn("public.zip-archive")
  /// `org.gnu.gnu-zip-archive`.
  public static let gzip = builtIn("org.gnu.gnu-zip-archive")
  /// `public.tar-archive`.
  public static let tarArchive = builtIn("public.tar-archive")
  // MARK: URLs and fonts
  /// `public.url`.
  public static let url = builtIn("public.url")
  /// `public.file-url`.
  public static let fileURL = builtIn("public.file-url")
  /// `public.font`.
  public static let font = builtIn("public.font")
  // MARK: Quire's own
  /// `org.textbundle.package`: a TextBundle folder (Markdown plus assets).
  public static let textBundle = builtIn("org.textbundle.package")
  /// `org.textbundle.textpack`: a zipped TextBundle.
  public static let textPack = builtIn("org.textbundle.textpack")
}
