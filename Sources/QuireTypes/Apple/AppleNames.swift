// Apple's spellings for QuireTypes: compatibility surface, so code written for
// UniformTypeIdentifiers compiles unchanged. See the "Porting from Apple's frameworks" article.
public import Foundation

/// Foundation's `NSErrorPointer` on Apple's platforms (swift-corelibs-foundation has none):
/// the out-parameter of the error-pointer forms, such as `NSFileCoordinator`'s
/// `coordinate(readingItemAt:options:error:byAccessor:)`. Pass `&error` for a
/// `var error: NSError?`, as on Apple's platforms.
public typealias NSErrorPointer = UnsafeMutablePointer<NSError?>?

extension UTType {
  /// The type an app declares and owns, as Apple's `UTType(exportedAs:conformingTo:)`: the
  /// declaration in ``TypeRegistry/shared`` when the app registered one (``TypeRegistry/register(_:)``,
  /// an Info.plist's `UTExportedTypeDeclarations`), else a declaration made now with the
  /// identifier, conforming to `parentType` (`public.data` by default).
  public init(exportedAs identifier: String, conformingTo parentType: UTType? = nil) {
    self = Self.declared(identifier, conformingTo: parentType)
  }

  /// A type another party owns that the app uses, as Apple's
  /// `UTType(importedAs:conformingTo:)`: the registry's declaration when there is one, else
  /// one made now as for ``init(exportedAs:conformingTo:)``.
  public init(importedAs identifier: String, conformingTo parentType: UTType? = nil) {
    self = Self.declared(identifier, conformingTo: parentType)
  }

  private static func declared(_ identifier: String, conformingTo parentType: UTType?) -> UTType {
    if let known = TypeRegistry.shared.type(withIdentifier: identifier) { return known }
    TypeRegistry.shared.add(TypeDeclaration(identifier: identifier, conformsTo: [(parentType ?? .data).identifier]))
    return TypeRegistry.shared.type(withIdentifier: identifier) ?? .data
  }
}
