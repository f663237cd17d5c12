public import Foundation

/// A type that can offer its values to an ``ItemProvider`` (`NSItemProviderWriting`).
///
/// A value lists the type identifiers it can write, highest fidelity first, and produces the
/// bytes of one of them when a receiver asks. ``ItemProvider/registerObject(_:visibility:)``
/// registers one data representation per identifier.
public protocol ItemProviderWriting: Sendable {
  /// The identifiers every value of the type can write, highest fidelity first.
  static var writableTypeIdentifiersForItemProvider: [String] { get }
  /// The identifiers this value can write (defaults to the static list).
  var writableTypeIdentifiersForItemProvider: [String] { get }
  /// Who may see the representation of `typeIdentifier` (defaults to everyone).
  static func itemProviderVisibilityForRepresentation(withTypeIdentifier typeIdentifier: String)
    -> ItemProvider.RepresentationVisibility
  /// The value's bytes in the form `typeIdentifier` names.
  ///
  /// The Swift form of `loadData(withTypeIdentifier:forItemProviderCompletionHandler:)`:
  /// cancelling the load cancels the task this runs in.
  /// - Throws: an error when the value cannot be written in that form.
  func loadData(withTypeIdentifier typeIdentifier: String) async throws -> Data
}

extension ItemProviderWriting {
  public var writableTypeIdentifiersForItemProvider: [String] { Self.writableTypeIdentifiersForItemProvider }
  public static func itemProviderVisibilityForRepresentation(withTypeIdentifier typeIdentifier: String)
    -> ItemProvider.RepresentationVisibility
  { .all }
}

/// A type that can be made from the bytes of an ``ItemProvider`` representation
/// (`NSItemProviderReading`).
public protocol ItemProviderReading: Sendable {
  /// The identifiers the type can read, in the order it prefers them.
  static var readableTypeIdentifiersForItemProvider: [String] { get }
  /// Makes a value from `data`, the bytes of a representation of `typeIdentifier`.
  /// - Throws: ``QuireError`` `.invalidContent` when the bytes are not what the type says
  ///   (a "PNG" without the PNG signature, text that is not UTF-8).
  static func object(withItemProviderData data: Data, typeIdentifier: String) throws -> Self
}
