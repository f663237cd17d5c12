public import Foundation
public import QuireTypes

extension URLResourceKey {
  /// The resource's type (`URLResourceValues.contentType`), as Apple's UniformTypeIdentifiers
  /// adds to Foundation.
  public static let contentTypeKey = URLResourceKey(rawValue: "NSURLContentTypeKey")
}

extension URL {
  /// Foundation's `resourceValues(forKeys:)`, knowing ``Foundation/URLResourceKey/contentTypeKey``.
  ///
  /// Foundation on Linux drops keys it does not know, and `URLResourceValues` cannot be
  /// given a value from outside it. So this overload, which Swift picks for the array literal
  /// Apple's documentation passes (`[.contentTypeKey]`), also asks for the resource's path,
  /// from which ``Foundation/URLResourceValues/contentType`` identifies the file. The other
  /// keys are Foundation's own, answered by it. A `Set` held in a variable reaches Foundation's
  /// method directly, and `contentType` is then nil: pass the keys as a literal, or call
  /// `TypeRegistry.shared.type(forFileAt:)`.
  public func resourceValues(forKeys keys: [URLResourceKey]) throws -> URLResourceValues {
    var asked = Set(keys)
    if asked.contains(.contentTypeKey) { asked.insert(.pathKey) }
    return try resourceValues(forKeys: asked)
  }
}

extension URLResourceValues {
  /// The type of the resource (Apple's `contentType`), identified by its name and content
  /// as `quire type` does (``QuireTypes/TypeRegistry/type(forFileAt:)``); nil when
  /// ``Foundation/URLResourceKey/contentTypeKey`` was not asked for in an array literal (see
  /// ``Foundation/URL/resourceValues(forKeys:)``) or the file is gone.
  public var contentType: UTType? {
    guard let path else { return nil }
    return TypeRegistry.shared.type(forFileAt: URL(fileURLWithPath: path))
  }
}
