public import Foundation
import QuireSystem
public import QuireTypes
import Synchronization

/// What a receiver (a document, a text view) accepts when pasting or dropping
/// (`UIPasteConfiguration`): type identifiers in the order it prefers them.
///
/// The representation loaded from an item is the first accepted type the item has
/// exactly; when it has none exactly, its highest-fidelity representation that conforms to
/// an accepted type. So a plain-text receiver given Markdown, HTML and plain text takes the
/// plain text, and an image receiver given PNG takes the PNG.
public struct PasteConfiguration: Sendable, Hashable {
  /// The accepted type identifiers, preferred first.
  public var acceptableTypeIdentifiers: [String]

  /// Accepts `acceptableTypeIdentifiers`, preferred first.
  public init(acceptableTypeIdentifiers: [String]) {
    self.acceptableTypeIdentifiers = acceptableTypeIdentifiers
  }

  /// Accepts `types`, preferred first.
  public init(acceptableTypes: [UTType]) {
    self.init(acceptableTypeIdentifiers: acceptableTypes.map(\.identifier))
  }

  /// Accepts what `objectType` reads (`init(forAccepting:)`).
  public init(forAccepting objectType: any ItemProviderReading.Type) {
    self.init(acceptableTypeIdentifiers: objectType.readableTypeIdentifiersForItemProvider)
  }

  /// Adds identifiers after the present ones.
  public mutating func append(acceptableTypeIdentifiers identifiers: [String]) {
    for identifier in identifiers where !acceptableTypeIdentifiers.contains(identifier) {
      acceptableTypeIdentifiers.append(identifier)
    }
  }

  /// Adds what `objectType` reads after the present identifiers.
  public mutating func append(forAccepting objectType: any ItemProviderReading.Type) {
    append(acceptableTypeIdentifiers: objectType.readableTypeIdentifiersForItemProvider)
  }

  /// Whether some representation of `provider` is accepted.
  public func canAccept(_ provider: ItemProvider) -> Bool { acceptedTypeIdentifier(in: provider) != nil }

  /// The identifier of the representation of `provider` that would be loaded.
  public func acceptedTypeIdentifier(in provider: ItemProvider) -> String? {
    provider.representation(accepting: acceptableTypeIdentifiers)?.typeIdentifier
  }
}

/// One representation delivered by a paste or a drop.
public struct TransferredRepresentation: Sendable, Hashable {
  /// The identifier of the representation that was loaded.
  public var typeIdentifier: String
  /// Its bytes.
  public var data: Data
  /// The item's suggested name.
  public var suggestedName: String?

  public init(typeIdentifier: String, data: Data, suggestedName: String? = nil) {
    self.typeIdentifier = typeIdentifier
    self.data = data
    self.suggestedName = suggestedName
  }

  /// The bytes as UTF-8 text.
  /// - Throws: ``QuireError`` `.invalidContent` when they are not valid UTF-8.
  public func text() throws -> String {
    try String.object(withItemProviderData: data, typeIdentifier: typeIdentifier)
  }
}

extension PasteConfiguration {
  /// Loads, for each item with an accepted representation, the best one; items with none
  /// are skipped.
  ///
  /// - Parameters:
  ///   - providers: The items.
  ///   - completionHandler: Called once, with every loaded representation in item order,
  ///     or the first error.
  /// - Returns: An overall progress with one unit per loaded item; cancelling it cancels
  ///   every load.
  @discardableResult
  public func loadBestRepresentations(
    from providers: [ItemProvider],
    completionHandler: @escaping @Sendable ([TransferredRepresentation]?, (any Error)?) -> Void
  ) -> Progress {
    let accepted = providers.filter(canAccept)
    let overall = Progress(totalUnitCount: Int64(accepted.count))
    guard !accepted.isEmpty else {
      let offered = providers.isEmpty ? "nothing" : providers.map(\.offered).joined(separator: "; ")
      let error = QuireError(
        .unsupportedType,
        "None of the items can be taken: they offer \(offered), and the receiver takes \(acceptableTypeIdentifiers.joined(separator: ", ")).")
      BlockingExecutor.shared.submit(in: ItemProvider.deliveries) { completionHandler(nil, error) }
      return overall
    }
    let collector = ResultCollector(count: accepted.count, completionHandler: completionHandler)
    for (index, provider) in accepted.enumerated() {
      let child = provider.loadBestRepresentation(accepting: acceptableTypeIdentifiers) { result in
        collector.record(
          index,
          result.map {
            TransferredRepresentation(typeIdentifier: $0.typeIdentifier, data: $0.data, suggestedName: provider.suggestedName)
          })
      }
      overall.addChild(child, withPendingUnitCount: 1)
    }
    return overall
  }

  /// Loads the best accepted representation of each item; cancelling the task cancels the loads.
  /// - Throws: ``QuireError`` `.unsupportedType` when no item is accepted; the first load error.
  public func loadBestRepresentations(from providers: [ItemProvider]) async throws -> [TransferredRepresentation] {
    try await awaitLoad { resume in
      loadBestRepresentations(from: providers) { values, error in
        if let values { resume(.success(values)) } else { resume(.failure(error ?? QuireError(.cancelled, "Nothing was loaded."))) }
      }
    }
  }
}

/// Gathers the results of several loads and reports once: all values, or the first error.
private final class ResultCollector: Sendable {
  private struct State {
    var values: [TransferredRepresentation?]
    var remaining: Int
    var isReported = false
  }
  private let state: Synchronization.Mutex<State>
  private let completionHandler: @Sendable ([TransferredRepresentation]?, (any Error)?) -> Void

  init(count: Int, completionHandler: @escaping @Sendable ([TransferredRepresentation]?, (any Error)?) -> Void) {
    state = Synchronization.Mutex(State(values: Array(repeating: nil, count: count), remaining: count))
    self.completionHandler = completionHandler
  }

  func record(_ index: Int, _ result: Result<TransferredRepresentation, any Error>) {
    let report: Result<[TransferredRepresentation], any Error>? = state.withLock { state in
      if state.isReported { return nil }
      switch result {
      case .failure(let error):
        state.isReported = true
        return .failure(error)
      case .success(let value):
        state.values[index] = value
        state.remaining -= 1
        guard state.remaining == 0 else { return nil }
        state.isReported = true
        return .success(state.values.compactMap { $0 })
      }
    }
    switch report {
    case .success(let values): completionHandler(values, nil)
    case .failure(let error): completionHandler(nil, error)
    case nil: break
    }
  }
}
