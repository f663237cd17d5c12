import Foundation
import Quire
import Synchronization

/// Makes the REPL's open documents file presenters, so that other processes' coordinated
/// actions (the document browser's rename, move and trash; another `quire`'s save) and
/// uncoordinated moves (`mv`) reach them, and adds opened documents to the desktop's Recents.
///
/// Presenter messages arrive on other threads. A request to save (a coordinated read or move
/// elsewhere) runs on the main actor, where the session runs its commands: while the session
/// awaits its next line it saves the document with `w` and answers; a move is noted and applied
/// before the next command, which says so.
@MainActor
final class REPLPresenting {
  /// Behind a mutex only so that `deinit` (not on the main actor) can unregister them.
  private let presenters = Mutex<[ObjectIdentifier: REPLDocumentPresenter]>([:])
  private let moves = Mutex<[ObjectIdentifier: URL]>([:])
  /// The hits of the last `search`, for `search --open N`.
  var lastSearchHits: [SearchHit] = []
  /// Where the presenters meet other processes.
  var location: CoordinationLocation = .default
  /// The session, for saves asked for by other processes.
  fileprivate weak var session: REPLSession?

  /// Registers a presenter for `document` and adds it to the recent documents.
  func opened(_ document: EdDocument, in session: REPLSession) {
    self.session = session
    guard let url = document.fileURL else { return }
    // Recents are the desktop's (recently-used.xbel); a failure to note one is not the user's problem now.
    try? RecentDocuments().add(url)
    guard FileManager.default.fileExists(atPath: url.path) else { return }
    let presenter = REPLDocumentPresenter(url: url, owner: self, document: ObjectIdentifier(document))
    do {
      try FileCoordinator.addFilePresenter(presenter, location: location)
      presenters.withLock { $0[ObjectIdentifier(document)] = presenter }
      // The document's saves work for this presenter: it is not asked about them.
      session.adopt(document, presenter: presenter)
    } catch {
      session.say("note: other programs' changes to '\(document.displayName)' will not reach this session: \(error)")
    }
  }

  /// Unregisters `document`'s presenter.
  func closed(_ document: EdDocument) {
    if let presenter = presenters.withLock({ $0.removeValue(forKey: ObjectIdentifier(document)) }) { FileCoordinator.removeFilePresenter(presenter) }
  }

  deinit {
    for presenter in presenters.withLock({ $0.values }) { FileCoordinator.removeFilePresenter(presenter) }
  }

  fileprivate nonisolated func noteMove(of document: ObjectIdentifier, to url: URL) {
    moves.withLock { $0[document] = url }
  }

  /// Points moved documents at their new place.
  func applyMoves() {
    let pending = moves.withLock { moves in
      defer { moves = [:] }
      return moves
    }
    guard !pending.isEmpty, let session else { return }
    for document in session.documents {
      guard let url = pending[ObjectIdentifier(document)], document.fileURL?.standardizedFileURL != url.standardizedFileURL else { continue }
      let old = document.displayName
      document.fileURL = url
      session.say("'\(old)' was moved by another program: now '\(url.path)'")
    }
  }

  /// Saves `document` for another process.
  fileprivate func saveForOtherProcess(_ id: ObjectIdentifier) async throws {
    // A command that awaits its own save lets the main actor run this meanwhile: wait for it.
    while session?.isRunningCommand == true { try await Task.sleep(for: .milliseconds(10)) }
    guard let session, let document = session.documents.first(where: { ObjectIdentifier($0) == id }), document.isEdited else { return }
    try await session.save(document)
    session.say("saved '\(document.displayName)': another program asked to (it is about to read or move it)")
  }
}

/// One open document's presenter.
final class REPLDocumentPresenter: FilePresenter {
  private let url: Mutex<URL>
  private let owner: SessionOwner
  private let document: ObjectIdentifier

  /// `@unchecked Sendable`: the weak reference is read from presenter threads only to hand
  /// it to the main actor (``REPLPresenting`` is main-actor isolated) or to its mutex-guarded
  /// move list.
  private final class SessionOwner: @unchecked Sendable {
    weak var presenting: REPLPresenting?
    init(_ presenting: REPLPresenting) { self.presenting = presenting }
  }

  init(url: URL, owner: REPLPresenting, document: ObjectIdentifier) {
    self.url = Mutex(url)
    self.owner = SessionOwner(owner)
    self.document = document
  }

  var presentedItemURL: URL? { url.withLock { $0 } }

  func presentedItemDidMove(to newURL: URL) {
    url.withLock { $0 = newURL }
    owner.presenting?.noteMove(of: document, to: newURL)
  }

  func savePresentedItemChanges(completionHandler: @escaping @Sendable ((any Error)?) -> Void) {
    // On the main actor, between the session's commands; an answer that is not ready in time
    // (the session is busy running a command) says so, and the save still follows.
    let owner = self.owner
    let document = self.document
    let answered = Atomic<Bool>(false)
    let answer: @Sendable ((any Error)?) -> Void = { error in
      if answered.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged { completionHandler(error) }
    }
    Task { @MainActor in
      do {
        try await owner.presenting?.saveForOtherProcess(document)
        answer(nil)
      } catch {
        answer(error)
      }
    }
    DispatchQueue.global().asyncAfter(deadline: .now() + 1.5) {
      answer(QuireError(.inUse, "The quire session is busy running a command; it saves after it."))
    }
  }
}
