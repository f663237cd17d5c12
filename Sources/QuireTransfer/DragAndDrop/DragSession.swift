public import Foundation

/// One dragged item: its provider and, for drops inside the process, the value itself.
public struct DragItem: Sendable {
  /// The item's representations.
  public let itemProvider: ItemProvider
  /// The value for receivers in the same process (e.g. the dragged line range).
  public var localObject: (any Sendable)?

  public init(itemProvider: ItemProvider, localObject: (any Sendable)? = nil) {
    self.itemProvider = itemProvider
    self.localObject = localObject
  }
}

/// A drag in progress (`UIDragSession`): its items, a context the source keeps for itself
/// (e.g. which document and lines are dragged), and whether the source allows a move.
public final class DragSession: Sendable {
  /// The dragged items.
  public let items: [DragItem]
  /// What the source needs to finish a move (e.g. the source document and range).
  public let localContext: (any Sendable)?
  /// Whether the source lets receivers move the items rather than copy them.
  public let allowsMoveOperation: Bool

  public init(items: [DragItem], localContext: (any Sendable)? = nil, allowsMoveOperation: Bool = true) {
    self.items = items
    self.localContext = localContext
    self.allowsMoveOperation = allowsMoveOperation
  }

  /// Whether some item has a representation conforming to one of `typeIdentifiers`.
  public func hasItemsConforming(toTypeIdentifiers typeIdentifiers: [String]) -> Bool {
    items.contains { item in typeIdentifiers.contains { item.itemProvider.hasItemConformingToTypeIdentifier($0) } }
  }

  /// Whether some item can be read as `objectType`.
  public func canLoadObjects(ofClass objectType: any ItemProviderReading.Type) -> Bool {
    items.contains { $0.itemProvider.canLoadObject(ofClass: objectType) }
  }
}

/// What a drop would do (`UIDropOperation`).
public enum DropOperation: Sendable, Hashable {
  /// Nothing: the drop was abandoned or there is nothing to drop.
  case cancel
  /// The receiver cannot take the items.
  case forbidden
  /// The items are copied; the source keeps them.
  case copy
  /// The items are moved: the source removes them after the drop.
  case move
}

/// A receiver's answer to a drop (`UIDropProposal`): the operation and, when it is not
/// the one asked for, why.
public struct DropProposal: Sendable, Hashable {
  /// What the drop would do.
  public var operation: DropOperation
  /// Why the operation is forbidden, cancelled or not the one asked for.
  public var reason: String?

  public init(operation: DropOperation, reason: String? = nil) {
    self.operation = operation
    self.reason = reason
  }
}

/// A drop arriving at a receiver (`UIDropSession`): items from a drag in this process or
/// providers from elsewhere.
public final class DropSession: Sendable {
  /// The items being dropped.
  public let items: [DragItem]
  /// The drag, when it started in this process (moves are possible only then).
  public let localDragSession: DragSession?

  /// A drop of a drag that started in this process.
  public init(localDragSession: DragSession) {
    items = localDragSession.items
    self.localDragSession = localDragSession
  }

  /// A drop of items from elsewhere (another process, a pasteboard).
  public init(itemProviders: [ItemProvider]) {
    items = itemProviders.map { DragItem(itemProvider: $0) }
    localDragSession = nil
  }

  /// The item providers.
  public var itemProviders: [ItemProvider] { items.map(\.itemProvider) }

  /// Proposes what dropping the items on a receiver accepting `configuration` would do.
  ///
  /// - Parameters:
  ///   - configuration: What the receiver accepts.
  ///   - operation: What the user asked for: `.copy`, `.move`, or `.cancel`.
  /// - Returns: `.cancel` for an empty drop or when asked; `.forbidden` when the receiver
  ///   takes none of the items; `.move` when asked and the drag is local and allows it;
  ///   otherwise `.copy` (with a reason when a move was asked).
  public func proposal(for configuration: PasteConfiguration, requesting operation: DropOperation = .copy) -> DropProposal {
    if operation == .cancel { return DropProposal(operation: .cancel, reason: "The drop was cancelled.") }
    guard !items.isEmpty else { return DropProposal(operation: .cancel, reason: "Nothing is being dragged.") }
    guard items.contains(where: { configuration.canAccept($0.itemProvider) }) else {
      let offered = items.map(\.itemProvider.offered).joined(separator: "; ")
      return DropProposal(
        operation: .forbidden,
        reason: "The receiver takes \(configuration.acceptableTypeIdentifiers.joined(separator: ", ")); the dragged items offer \(offered).")
    }
    if operation == .forbidden { return DropProposal(operation: .forbidden) }
    guard operation == .move else { return DropProposal(operation: .copy) }
    guard let local = localDragSession else {
      return DropProposal(operation: .copy, reason: "Items from another process can only be copied.")
    }
    guard local.allowsMoveOperation else {
      return DropProposal(operation: .copy, reason: "The source allows copying only.")
    }
    return DropProposal(operation: .move)
  }

  /// Loads the best accepted representation of each item, with an overall progress (see
  /// ``PasteConfiguration/loadBestRepresentations(from:completionHandler:)``).
  @discardableResult
  public func loadItems(
    for configuration: PasteConfiguration,
    completionHandler: @escaping @Sendable ([TransferredRepresentation]?, (any Error)?) -> Void
  ) -> Progress {
    configuration.loadBestRepresentations(from: itemProviders, completionHandler: completionHandler)
  }

  /// Loads the best accepted representation of each item.
  public func loadItems(for configuration: PasteConfiguration) async throws -> [TransferredRepresentation] {
    try await configuration.loadBestRepresentations(from: itemProviders)
  }
}
