public import Foundation
public import QuireTypes
import Synchronization

/// A promise of one item in several representations, loaded lazily (`NSItemProvider`).
///
/// Representations are kept in the order registered, from highest fidelity to most general.
/// Asking for a type loads the first representation that conforms to it.
public final class ItemProvider: Sendable {
  /// Loads one representation's bytes when asked.
  public typealias DataLoader = @Sendable () async throws -> Data

  private struct Representation: Sendable {
    let type: UTType
    let load: DataLoader
  }
  private let representations = Mutex<[Representation]>([])

  /// A name for the item when it becomes a file, e.g. "Meeting notes".
  public let suggestedName: String?

  public init(suggestedName: String? = nil) { self.suggestedName = suggestedName }

  /// Registers a representation of `type` produced by `load` when a receiver asks.
  public func registerDataRepresentation(for type: UTType, load: @escaping DataLoader) {
    representations.withLock { $0.append(Representation(type: type, load: load)) }
  }

  /// The types registered, highest fidelity first.
  public var registeredContentTypes: [UTType] { representations.withLock { $0.map(\.type) } }

  /// Whether some representation conforms to `type`.
  public func hasRepresentationConforming(toTypeIdentifier type: UTType) -> Bool {
    registeredContentTypes.contains { $0.conforms(to: type) }
  }

  /// Loads the first registered representation that conforms to `type`.
  /// - Throws: ``QuireError`` `.unsupportedType` when no representation conforms.
  public func loadDataRepresentation(for type: UTType) async throws -> Data {
    guard let match = representations.withLock({ $0.first { $0.type.conforms(to: type) } }) else {
      throw QuireError(
        .unsupportedType,
        "The item\(suggestedName.map { " '\($0)'" } ?? "") has no \(type.identifier) representation; it offers \(registeredContentTypes.map(\.identifier).joined(separator: ", ")).")
    }
    return try await match.load()
  }
}
