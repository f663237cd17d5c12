// Apple's names for QuireCoordination: compatibility surface, so code written for Foundation's
// NSFileCoordinator and NSFilePresenter compiles unchanged. See the "Porting from Apple's
// frameworks" article.
public import Foundation
import QuireSystem
public import QuireTypes

/// Foundation's `NSFileCoordinator`: Quire's ``FileCoordinator`` (the same locks, presenters
/// and processes), with Apple's `NSErrorPointer` and intent forms below.
public typealias NSFileCoordinator = FileCoordinator

/// Foundation's `NSFilePresenter`: Quire's ``FilePresenter``. Every requirement but
/// `presentedItemURL` has a default, as Apple's optional methods. One difference: the
/// operation queue is `OperationQueue?` (nil: a private serial queue); a conformer that
/// declares a non-optional `presentedItemOperationQueue` compiles, but its messages run on the
/// private queue.
public typealias NSFilePresenter = FilePresenter

extension FileCoordinator.ReadingOptions {
  /// Apple's `.immediatelyAvailableMetadataOnly`: on Linux all metadata is local, so this reads
  /// as a plain coordinated read.
  public static let immediatelyAvailableMetadataOnly = FileCoordinator.ReadingOptions(rawValue: 1 << 8)
  /// Apple's `.forUploading` (a zipped copy of a folder): read as a plain coordinated read.
  public static let forUploading = FileCoordinator.ReadingOptions(rawValue: 1 << 9)
}

extension FileCoordinator.WritingOptions {
  /// Apple's `.contentIndependentMetadataOnly`: a coordinated write like any other.
  public static let contentIndependentMetadataOnly = FileCoordinator.WritingOptions(rawValue: 1 << 8)
}

/// Foundation's `NSFileAccessIntent`: one item to read or write in
/// ``FileCoordinator/coordinate(with:queue:byAccessor:)``. Read ``url`` inside the accessor:
/// it is where the item is (after a move by a presenter).
open class NSFileAccessIntent: @unchecked Sendable {
  // @unchecked: every property is a `let`.
  /// The item.
  public let url: URL
  let readingOptions: FileCoordinator.ReadingOptions?
  let writingOptions: FileCoordinator.WritingOptions

  private init(url: URL, reading: FileCoordinator.ReadingOptions?, writing: FileCoordinator.WritingOptions) {
    self.url = url
    self.readingOptions = reading
    self.writingOptions = writing
  }

  /// An intent to read `url`.
  public class func readingIntent(with url: URL, options: FileCoordinator.ReadingOptions = []) -> NSFileAccessIntent {
    NSFileAccessIntent(url: url, reading: options, writing: [])
  }

  /// An intent to write `url`.
  public class func writingIntent(with url: URL, options: FileCoordinator.WritingOptions = []) -> NSFileAccessIntent {
    NSFileAccessIntent(url: url, reading: nil, writing: options)
  }
}

extension FileCoordinator {
  /// Registers `presenter` at the default location, as Apple's `addFilePresenter(_:)`, which
  /// cannot fail: when registering fails (no inotify watch left, an unusable runtime folder),
  /// the reason is told (``QuireNotes``, standard error by default) and the presenter hears only of coordinated accesses
  /// of this process. ``addFilePresenter(_:location:)`` throws instead.
  public static func addFilePresenter(_ presenter: any FilePresenter) {
    do {
      try addFilePresenter(presenter, location: .default)
    } catch {
      QuireNotes.tell(QuireNote(.coordination, "Cannot register a file presenter: \(error)", url: presenter.presentedItemURL))
    }
  }

  /// Stores `error` (as an `NSError` that keeps the ``QuireError``'s message) in `pointer`.
  private static func report(_ error: any Error, to pointer: NSErrorPointer) {
    let message = (error as? QuireError)?.description ?? "\(error)"
    pointer?.pointee = NSError(
      domain: "Quire.FileCoordinator", code: 1,
      userInfo: [NSLocalizedDescriptionKey: message, NSUnderlyingErrorKey: error as NSError])
  }

  /// Apple's error-pointer form of a coordinated read: on failure `accessor` is not called and
  /// `outError` gets the error.
  public func coordinate(readingItemAt url: URL, options: ReadingOptions = [], error outError: NSErrorPointer, byAccessor reader: (URL) -> Void) {
    do { try coordinate(readingItemAt: url, options: options, timeout: nil, byAccessor: reader) } catch { Self.report(error, to: outError) }
  }

  /// Apple's error-pointer form of a coordinated write.
  public func coordinate(writingItemAt url: URL, options: WritingOptions = [], error outError: NSErrorPointer, byAccessor writer: (URL) -> Void) {
    do { try coordinate(writingItemAt: url, options: options, timeout: nil, byAccessor: writer) } catch { Self.report(error, to: outError) }
  }

  /// Apple's error-pointer form of reading one item and writing another.
  public func coordinate(
    readingItemAt readingURL: URL, options readingOptions: ReadingOptions = [], writingItemAt writingURL: URL,
    options writingOptions: WritingOptions = [], error outError: NSErrorPointer, byAccessor body: (URL, URL) -> Void
  ) {
    do {
      try coordinate(
        readingItemAt: readingURL, options: readingOptions, writingItemAt: writingURL, options: writingOptions, timeout: nil, byAccessor: body)
    } catch {
      Self.report(error, to: outError)
    }
  }

  /// Apple's error-pointer form of writing two items (a move).
  public func coordinate(
    writingItemAt url1: URL, options options1: WritingOptions = [], writingItemAt url2: URL, options options2: WritingOptions = [],
    error outError: NSErrorPointer, byAccessor body: (URL, URL) -> Void
  ) {
    do {
      try coordinate(writingItemAt: url1, options: options1, writingItemAt: url2, options: options2, timeout: nil, byAccessor: body)
    } catch {
      Self.report(error, to: outError)
    }
  }

  /// Apple's asynchronous form: waits for access to every intent's item without blocking the
  /// caller, then runs `accessor` on `queue` with nil (or, without access, once with the
  /// error). The access lasts until `accessor` returns.
  public func coordinate(with intents: [NSFileAccessIntent], queue: OperationQueue, byAccessor accessor: @escaping @Sendable ((any Error)?) -> Void) {
    let reads = intents.filter { $0.readingOptions != nil }
    let writes = intents.filter { $0.readingOptions == nil }
    // The wait for the locks blocks: it runs where the module's other blocking work runs, with
    // the caller's fault plan (tests).
    BlockingExecutor.shared.submit(
      in: Blocking.waits,
      FaultPlan.carry {
        let done = DispatchSemaphore(value: 0)
        let run: @Sendable ((any Error)?) -> Void = { error in
          queue.addOperation {
            accessor(error)
            done.signal()
          }
          done.wait()
        }
        do {
          switch (reads.count, writes.count) {
          case (0, 0):
            run(nil)
          case (1, 0):
            try self.coordinate(readingItemAt: reads[0].url, options: reads[0].readingOptions ?? [], timeout: nil) { _ in run(nil) }
          case (0, 1):
            try self.coordinate(writingItemAt: writes[0].url, options: writes[0].writingOptions, timeout: nil) { _ in run(nil) }
          case (1, 1):
            try self.coordinate(
              readingItemAt: reads[0].url, options: reads[0].readingOptions ?? [], writingItemAt: writes[0].url, options: writes[0].writingOptions,
              timeout: nil
            ) { _, _ in run(nil) }
          case (0, 2):
            try self.coordinate(
              writingItemAt: writes[0].url, options: writes[0].writingOptions, writingItemAt: writes[1].url, options: writes[1].writingOptions,
              timeout: nil
            ) { _, _ in run(nil) }
          default:
            throw QuireError(.invalidArgument, "Quire coordinates at most two items at once (one read and one write, or two writes).")
          }
        } catch {
          run(error)
        }
      })
  }
}
