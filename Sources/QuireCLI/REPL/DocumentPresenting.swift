import Foundation
import Quire
import Synchronization

/// Makes the REPL's open documents file presenters, so that other processes' coordinated
/// actions (the document browser's rename, move and trash; another `quire`'s save) and
/// uncoordinated moves (`mv`) reach them, and adds opened documents to the desktop's Recents.
///
/// The REPL edits on one thread, which blocks in `readLine` between commands. Presenter
/// messages arrive on other threads, so they touch the session only while that thread waits
/// for input: the session holds ``commandLock`` while it runs a command and lets go of it while
/// it reads (``idle(_:)``). A request to save (a coordinated read or move elsewhere) takes the
/// lock, saves the document with `w` and answers; a move is noted and applied by the REPL
/// thread before its next command, which says so.
final class REPLPresenting {
  /// Held by the REPL thread except while it waits for input.
  let commandLock = NSLock()
  private var isHeld = false
  private var presenters: [ObjectIdentifier: REPLDocumentPresenter] = [:]
  private let moves = Mutex<[ObjectIdentifier: URL]>([:])
  /// The hits of the last `search`, for `search --open N`.
  var lastSearchHits: [SearchHit] = []
  /// Where the presenters meet other processes.
  var location: CoordinationLocation = .default
  /// The session, for saves asked for by other processes.
  fileprivate let session = SessionBox()

  /// Runs `read` (waiting for input) with the command lock released, then applies moves that
  /// other processes made meanwhile.
  func idle<T>(_ read: () -> T) -> T {
    if isHeld {
      commandLock.unlock()
      isHeld = false
    }
    let result = read()
    commandLock.lock()
    isHeld = true
    applyMoves()
    return result
  }

  /// Registers a presenter for `document` and adds it to the recent documents.
  func opened(_ document: EdDocument, in session: REPLSession) {
    self.session.session = session
    guard let url = document.fileURL else { return }
    // Recents are the desktop's (recently-used.xbel); a failure to note one is not the user's problem now.
    try? RecentDocuments().add(url)
    guard FileManager.default.fileExists(atPath: url.path) else { return }
    let presenter = REPLDocumentPresenter(url: url, owner: self, document: ObjectIdentifier(document))
    do {
      try FileCoordinator.addFilePresenter(presenter, location: location)
      presenters[ObjectIdentifier(document)] = presenter
    } catch {
      session.say("note: other programs' changes to '\(document.displayName)' will not reach this session: \(error)")
    }
  }

  /// Unregisters `document`'s presenter.
  func closed(_ document: EdDocument) {
    if let presenter = presenters.removeValue(forKey: ObjectIdentifier(document)) { FileCoordinator.removeFilePresenter(presenter) }
  }

  deinit {
    for presenter in presenters.values { FileCoordinator.removeFilePresenter(presenter) }
    if isHeld { commandLock.unlock() }
  }

  fileprivate func noteMove(of document: ObjectIdentifier, to url: URL) {
    moves.withLock { $0[document] = url }
  }

  /// Points moved documents at their new place (on the REPL thread).
  func applyMoves() {
    let pending = moves.withLock { moves in
      defer { moves = [:] }
      return moves
    }
    guard !pending.isEmpty, let session = session.session else { return }
    for document in session.documents {
      guard let url = pending[ObjectIdentifier(document)], document.fileURL?.standardizedFileURL != url.standardizedFileURL else { continue }
      let old = document.displayName
      document.fileURL = url
      session.say("'\(old)' was moved by another program: now '\(url.path)'")
    }
  }

  /// Saves `document` for another process (on a presenter thread, holding the command lock).
  fileprivate func saveForOtherProcess(_ id: ObjectIdentifier) throws {
    guard let session = session.session, let document = session.documents.first(where: { ObjectIdentifier($0) == id }), document.isEdited else { return }
    try session.save(document)
    session.say("saved '\(document.displayName)': another program asked to (it is about to read or move it)")
  }
}

/// The session, reachable from presenter threads.
///
/// `@unchecked Sendable`: presenter threads use ``session`` only while holding the command lock,
/// which the REPL thread holds whenever it uses the session itself.
private final class SessionBox: @unchecked Sendable {
  weak var session: REPLSession?
}

/// One open document's presenter.
final class REPLDocumentPresenter: FilePresenter {
  private let url: Mutex<URL>
  private let owner: SessionOwner
  private let document: ObjectIdentifier

  /// `@unchecked Sendable`: ``REPLPresenting`` is used from presenter threads only through
  /// its lock-protected parts (the move list, and saves under the command lock).
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
    // On a thread of its own: this presenter's queue must stay free for the messages the
    // save itself causes (its coordinated write tells every presenter of the file).
    let owner = self.owner
    let document = self.document
    let thread = Thread {
      guard let presenting = owner.presenting else { return completionHandler(nil) }
      guard presenting.commandLock.lock(before: Date().addingTimeInterval(1.5)) else {
        return completionHandler(QuireError(.inUse, "The quire session is busy running a command; it saves after it."))
      }
      defer { presenting.commandLock.unlock() }
      do {
        try presenting.saveForOtherProcess(document)
        completionHandler(nil)
      } catch {
        completionHandler(error)
      }
    }
    thread.start()
  }
}
