// MobileCoreServices' type API by its own name: the `kUTType…` and `kUTTagClass…` constants,
// `UTTypeConformsTo` and the tag functions, over QuireTypes' registry. Apple's functions take
// and return `CFString`; on Linux there is no CoreFoundation bridging, so here `CFString` is
// Swift's `String` (`kUTTypePlainText as String` and `ext as CFString` both compile).
@_exported public import Foundation
@_exported public import QuireTypes
@_exported public import UniformTypeIdentifiers

/// CoreFoundation's string type as MobileCoreServices' functions use it: Swift's `String`.
public typealias CFString = String

// swift-format-ignore: AlwaysUseLowerCamelCase
/// The filename-extension tag class (`public.filename-extension`).
public let kUTTagClassFilenameExtension: CFString = UTTagClass.filenameExtension.rawValue
// swift-format-ignore: AlwaysUseLowerCamelCase
/// The MIME-type tag class (`public.mime-type`).
public let kUTTagClassMIMEType: CFString = UTTagClass.mimeType.rawValue

// swift-format-ignore: AlwaysUseLowerCamelCase
/// Whether the type `inUTI` conforms to `inConformsToUTI` in the shared registry (itself, or
/// a supertype through its declared conformances); unknown identifiers conform only to
/// themselves.
public func UTTypeConformsTo(_ inUTI: CFString, _ inConformsToUTI: CFString) -> Bool {
  guard inUTI != inConformsToUTI else { return true }
  guard let type = UTType(inUTI), let other = UTType(inConformsToUTI) else { return false }
  return type.conforms(to: other)
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// Whether two identifiers name the same type.
public func UTTypeEqual(_ inUTI1: CFString, _ inUTI2: CFString) -> Bool {
  inUTI1 == inUTI2
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// The preferred type identifier for a tag (an extension or a MIME type), conforming to
/// `inConformingToUTI` when given: a declared type, else a `dyn.` identifier, as Apple's.
/// The result is an owned value here; `takeRetainedValue()` and `takeUnretainedValue()` read it.
public func UTTypeCreatePreferredIdentifierForTag(
  _ inTagClass: CFString, _ inTag: CFString, _ inConformingToUTI: CFString?
) -> Unmanaged<NSString>? {
  let supertype = inConformingToUTI.flatMap { UTType($0) }
  guard let type = UTType(tag: inTag, tagClass: UTTagClass(rawValue: inTagClass), conformingTo: supertype) else { return nil }
  return Unmanaged.passRetained(NSString(string: type.identifier))
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// The preferred tag of `inTagClass` (an extension or a MIME type) for the type `inUTI`.
public func UTTypeCopyPreferredTagWithClass(_ inUTI: CFString, _ inTagClass: CFString) -> Unmanaged<NSString>? {
  guard let type = UTType(inUTI), let tag = type.tags[UTTagClass(rawValue: inTagClass)]?.first else { return nil }
  return Unmanaged.passRetained(NSString(string: tag))
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// Every tag of `inTagClass` for the type `inUTI`.
public func UTTypeCopyAllTagsWithClass(_ inUTI: CFString, _ inTagClass: CFString) -> Unmanaged<NSArray>? {
  guard let type = UTType(inUTI), let tags = type.tags[UTTagClass(rawValue: inTagClass)], !tags.isEmpty else { return nil }
  return Unmanaged.passRetained(NSArray(array: tags))
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// The type's description, as the registry has it.
public func UTTypeCopyDescription(_ inUTI: CFString) -> Unmanaged<NSString>? {
  guard let description = UTType(inUTI)?.localizedDescription else { return nil }
  return Unmanaged.passRetained(NSString(string: description))
}
