public import Foundation

/// How a document reaches its file: the seam where file coordination plugs in.
///
/// A document reads and writes its file only inside these two calls. The default,
/// ``UncoordinatedFileAccess``, runs the body at once. `QuireCoordination`'s
/// `FileCoordinator` (being built) will conform by taking its cross-process reader/writer
/// locks around the body, and will report changes made by others through the document's
/// presenter methods (``Document/presentedItemDidChange()``,
/// ``Document/presentedItemDidMove(to:)``, ``Document/savePresentedItemChanges()``), the
/// shape of Apple's `NSFileCoordinator` and `NSFilePresenter`.
///
/// The body runs in the caller's task (so task-local state reaches it) and may block.
public protocol DocumentFileAccess: Sendable {
  /// Runs `reader` while no other coordinated writer changes `url`.
  func coordinate<T: Sendable>(readingItemAt url: URL, _ reader: @Sendable (URL) throws -> T) async throws -> T
  /// Runs `writer` while no other coordinated reader or writer uses `url`.
  func coordinate<T: Sendable>(writingItemAt url: URL, _ writer: @Sendable (URL) throws -> T) async throws -> T
}

/// File access without coordination: the body runs at once.
public struct UncoordinatedFileAccess: DocumentFileAccess {
  public init() {}
  public func coordinate<T: Sendable>(readingItemAt url: URL, _ reader: @Sendable (URL) throws -> T) async throws -> T {
    try reader(url)
  }
  public func coordinate<T: Sendable>(writingItemAt url: URL, _ writer: @Sendable (URL) throws -> T) async throws -> T {
    try writer(url)
  }
}
