public import Foundation
public import QuireCoordination
import Synchronization

/// The file presenter an open ``Document`` registers for its file, as UIDocument registers
/// itself with `NSFileCoordinator.addFilePresenter(_:)` when it opens.
///
/// It is a separate object (the document keeps it in ``Document/filePresenter``) because a
/// presenter's messages arrive on a coordination queue, synchronously, while a document lives
/// on the main actor: each message is forwarded to the document's own main-actor method
/// (``Document/presentedItemDidChange()``, ``Document/savePresentedItemChanges()``,
/// ``Document/presentedItemDidMove(to:)``, ``Document/accommodatePresentedItemDeletion()``),
/// and requests answer when the document has done what was asked.
///
/// What reaches it: another process's (or another coordinator's) coordinated writes of the
/// file, and changes made without coordination (another editor, `cp`), through inotify. The
/// document's own coordinated reads and writes go through a ``FileCoordinator`` made for this
/// presenter, so it does not hear of them.
public final class DocumentPresenter: FilePresenter {
  private struct State: Sendable {
    weak var document: Document?
    var url: URL?
  }
  private let state: Mutex<State>

  init() {
    state = Mutex(State(document: nil, url: nil))
  }

  func attach(_ document: Document) { state.withLock { $0.document = document } }

  /// The document's file while it is open; nil when it is closed.
  public var presentedItemURL: URL? { state.withLock { $0.url } }

  func setURL(_ url: URL?) { state.withLock { $0.url = url } }

  private var document: Document? { state.withLock { $0.document } }

  /// Forwards to ``Document/presentedItemDidChange()``: the document reloads when clean and
  /// goes ``Document/State/inConflict`` when it has unsaved changes.
  public func presentedItemDidChange() {
    guard let document else { return }
    Task { @MainActor in document.presentedItemDidChange() }
  }

  /// Forwards to ``Document/presentedItemDidMove(to:)``.
  public func presentedItemDidMove(to newURL: URL) {
    setURL(newURL.standardizedFileURL)
    guard let document else { return }
    Task { @MainActor in document.presentedItemDidMove(to: newURL) }
  }

  /// Forwards to ``Document/savePresentedItemChanges()`` and answers when it is done.
  public func savePresentedItemChanges(completionHandler: @escaping @Sendable ((any Error)?) -> Void) {
    guard let document else { return completionHandler(nil) }
    Task { @MainActor in document.savePresentedItemChanges { error in completionHandler(error) } }
  }

  /// Forwards to ``Document/accommodatePresentedItemDeletion()`` and answers.
  public func accommodatePresentedItemDeletion(completionHandler: @escaping @Sendable ((any Error)?) -> Void) {
    guard let document else { return completionHandler(nil) }
    Task { @MainActor in document.accommodatePresentedItemDeletion { error in completionHandler(error) } }
  }
}
