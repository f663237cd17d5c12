public import Foundation
public import SystemPackage

/// An object that shows a file or folder to the user and wants to hear when others read,
/// write, move or delete it: the analogue of Apple's `NSFilePresenter`.
///
/// Register it with ``FileCoordinator/addFilePresenter(_:location:)`` and remove it with
/// ``FileCoordinator/removeFilePresenter(_:)`` before it goes away. Its messages come from:
/// - coordinated access by any process of the same user (this one or another, through the
///   presenter registry under `XDG_RUNTIME_DIR`): save before a read, relinquish before a
///   read or a write, accommodate a deletion, did change, did move;
/// - changes made without coordination (another editor, `cp`, `mv`, `rm`, `echo >>`),
///   noticed through inotify within tens of milliseconds: did change, did move, deletion.
/// - changes that inotify cannot hear (made on the server of an NFS, SMB or FUSE mount, by
///   another machine, or behind a bindfs mount), noticed by polling the item on such mounts
///   (``PollingOptions``, every 2 s by default): the same messages.
///
/// Messages for one presenter run one at a time, in order, on
/// ``presentedItemOperationQueue`` when it returns a queue, else on a private serial queue
/// of the registration. Every requirement except ``presentedItemURL`` has a default that does
/// nothing (and calls its completion handler at once).
///
/// A presenter must answer a request (call the completion handler or the `reader`/`writer`
/// closure) within the coordinator's ``FileCoordinator/presenterResponseTimeout`` (2 s by
/// default). One that does not is skipped: the coordinated access goes ahead without its
/// answer (so unsaved changes it holds are not in the file the reader sees), a note names it
/// (``QuireNotes``: standard error unless the program takes them), and its late answer is
/// ignored. It still gets the messages that
/// follow (did change, reacquire).
public protocol FilePresenter: AnyObject, Sendable {
  /// The presented file or folder. The registration follows the item through moves and
  /// atomic replacement and calls ``presentedItemDidMove(to:)``; update this property there.
  var presentedItemURL: URL? { get }

  /// The presented file or folder as a path of any bytes: a presenter of a name that is not
  /// UTF-8 (which no `URL` holds) gives it here. When it is not nil, it is the item presented
  /// and ``presentedItemURL`` only names it; the default is nil. A relative path is taken from
  /// the current folder when the presenter is added. Such a presenter hears of moves and
  /// subitem changes through ``presentedItemDidMove(toPath:)`` and
  /// ``presentedSubitemDidChange(atPath:)``, with the bytes.
  var presentedItemPath: FilePath? { get }

  /// The queue the presenter's messages run on, or nil for a private serial queue.
  var presentedItemOperationQueue: OperationQueue? { get }

  /// Another process (or coordinator) is about to read the item: write unsaved changes to
  /// disk, then call `completionHandler` (with an error to say saving failed).
  func savePresentedItemChanges(completionHandler: @escaping @Sendable ((any Error)?) -> Void)

  /// A reader is about to read: stop touching the item and call `reader`, passing a closure
  /// the coordinator calls when the reader is done (or nil).
  func relinquishPresentedItem(toReader reader: @escaping @Sendable ((@Sendable () -> Void)?) -> Void)

  /// A writer is about to write: stop touching the item and call `writer`, passing a closure
  /// the coordinator calls when the writer is done (or nil).
  func relinquishPresentedItem(toWriter writer: @escaping @Sendable ((@Sendable () -> Void)?) -> Void)

  /// The item is about to be deleted (coordinated), or was deleted (uncoordinated): let go of
  /// it, then call `completionHandler`.
  func accommodatePresentedItemDeletion(completionHandler: @escaping @Sendable ((any Error)?) -> Void)

  /// The item moved to `newURL` (by a coordinated move or by `mv` of it or a folder above it).
  func presentedItemDidMove(to newURL: URL)

  /// The item moved to `newPath`, with its bytes (a name that is not UTF-8 included). Every
  /// move is reported here; the default calls ``presentedItemDidMove(to:)`` with a URL of
  /// the path (which cannot hold a name that is not UTF-8: implement this one to keep it).
  func presentedItemDidMove(toPath newPath: FilePath)

  /// The item's contents or attributes changed, or it was replaced by another file at the
  /// same path (atomic save).
  func presentedItemDidChange()

  /// For folder presenters: the item at `url`, inside the folder, changed, appeared or went.
  func presentedSubitemDidChange(at url: URL)

  /// For folder presenters: the item at `path` (its bytes), inside the folder, changed,
  /// appeared or went. Every subitem change is reported here; the default calls
  /// ``presentedSubitemDidChange(at:)`` with a URL of the path.
  func presentedSubitemDidChange(atPath path: FilePath)
}

extension FilePresenter {
  public var presentedItemPath: FilePath? { nil }
  public var presentedItemOperationQueue: OperationQueue? { nil }
  public func savePresentedItemChanges(completionHandler: @escaping @Sendable ((any Error)?) -> Void) { completionHandler(nil) }
  public func relinquishPresentedItem(toReader reader: @escaping @Sendable ((@Sendable () -> Void)?) -> Void) { reader(nil) }
  public func relinquishPresentedItem(toWriter writer: @escaping @Sendable ((@Sendable () -> Void)?) -> Void) { writer(nil) }
  public func accommodatePresentedItemDeletion(completionHandler: @escaping @Sendable ((any Error)?) -> Void) { completionHandler(nil) }
  public func presentedItemDidMove(to newURL: URL) {}
  public func presentedItemDidChange() {}
  public func presentedSubitemDidChange(at url: URL) {}
  public func presentedItemDidMove(toPath newPath: FilePath) { presentedItemDidMove(to: PresenterRegistration.url(of: newPath)) }
  public func presentedSubitemDidChange(atPath path: FilePath) { presentedSubitemDidChange(at: PresenterRegistration.url(of: path)) }
}
