public import Foundation
public import QuireCoordination

/// How a document reaches its file: the seam where file coordination plugs in.
///
/// A document reads and writes its file only inside these two calls. `QuireCoordination`'s
/// `FileCoordinator` conforms (below) by taking its cross-process reader/writer locks around
/// the body, as UIDocument does with NSFileCoordinator; ``DocumentController`` gives it to
/// the documents it opens. ``UncoordinatedFileAccess``, the default of a `Document` made on
/// its own, runs the body at once.
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

/// Coordinated file access: a document's reads wait for other coordinated writers, and its
/// writes (the conflict check and the safe save together) wait for every other coordinated
/// reader and writer of the file, in this process or another. Presenters of the file in other
/// processes hear of the write.
extension FileCoordinator: DocumentFileAccess {
  public func coordinate<T: Sendable>(readingItemAt url: URL, _ reader: @Sendable (URL) throws -> T) async throws -> T {
    try await coordinate(readingItemAt: url, options: [], timeout: nil, byAccessor: { (url: URL) async throws -> T in try reader(url) })
  }

  public func coordinate<T: Sendable>(writingItemAt url: URL, _ writer: @Sendable (URL) throws -> T) async throws -> T {
    try await coordinate(writingItemAt: url, options: [], timeout: nil, byAccessor: { (url: URL) async throws -> T in try writer(url) })
  }
}
