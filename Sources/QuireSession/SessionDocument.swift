public import Foundation
public import QuireDocuments
public import QuireTypes

/// One change of a text: the UTF-8 range it replaced (in the text before it) and what went
/// there, with the range's ends in every position encoding.
public struct TextChange: Sendable, Hashable {
  /// The replaced range, as UTF-8 offsets in the text before the change.
  public var range: Range<Int>
  /// Where the range starts, in the text before the change.
  public var start: TextPoint
  /// Where the range ends, in the text before the change.
  public var end: TextPoint
  /// The new text.
  public var text: String
}

/// An edit a front end asks for: a range in the document's current text, in UTF-8 offsets,
/// and the text to put there.
public struct TextReplacement: Sendable, Hashable {
  /// The range to replace, as UTF-8 offsets in the current text.
  public var range: Range<Int>
  /// The new text.
  public var text: String

  /// A replacement.
  public init(range: Range<Int>, text: String) {
    self.range = range
    self.text = text
  }
}

/// What a ``SessionDocument``'s subscribers hear.
public enum SessionEvent: Sendable {
  /// Why a version changed.
  public enum Cause: String, Sendable {
    /// A front end's edit.
    case edit
    /// Undo or redo.
    case undo, redo
    /// The file changed elsewhere and the clean document read it again.
    case reload
    /// A conflict was settled (revert, merge).
    case resolve
    /// Autosaved edits of an earlier session were restored.
    case recover
  }
  /// The text is at `version` now; `changes` turn the previous version into it, in order.
  /// `origin` is the subscription whose front end asked for it (that front end already knows).
  case changed(version: Int, changes: [TextChange], cause: Cause, origin: SessionSubscription.ID?)
  /// The file changed elsewhere while the document had unsaved edits: it is in conflict.
  case conflict
  /// The file was moved or renamed; the document follows it.
  case moved(from: URL, to: URL)
  /// The file was deleted; the document keeps its text, unsaved.
  case deleted
  /// The document was saved.
  case saved(version: Int)
  /// Something else the front ends show changed (edited, can undo, an autosave's error).
  case stateChanged
  /// The document was closed.
  case closed
}

/// A front end's subscription to a ``SessionDocument``: it hears every version until
/// cancelled.
@MainActor
public final class SessionSubscription: Sendable {
  /// A subscription's identity, named in the events it caused.
  public typealias ID = Int
  /// Its identity.
  public nonisolated let id: ID
  fileprivate let handler: @MainActor (SessionEvent) -> Void
  fileprivate weak var document: SessionDocument?

  fileprivate init(id: ID, document: SessionDocument, handler: @escaping @MainActor (SessionEvent) -> Void) {
    self.id = id
    self.document = document
    self.handler = handler
  }

  /// Stops hearing of the document.
  public func cancel() { document?.unsubscribe(self) }
}

/// An open text document shared by front ends (the web page, `quire rpc`): one
/// ``QuireDocuments/PlainTextDocument`` opened through the session's ``DocumentController``,
/// with a ``version`` that every change bumps, whoever made it.
///
/// Each edit names the version it was made against; an edit against any other version is
/// refused and changes nothing, so front ends that run apart from the core never apply an
/// edit to a text they have not seen. Subscribers hear every version with the changes that
/// made it, and of conflicts, moves, deletion and saves.
@MainActor
public final class SessionDocument {
  /// The document's handle in its session, the same for the document's whole time open
  /// (whatever name or link it is opened through again, and across moves).
  public let id: String
  /// The library document.
  public let document: PlainTextDocument
  /// The version of the text: bumped on every change (an edit, undo, redo, a reload, a
  /// settled conflict, a recovery).
  public private(set) var version = 0

  private var subscriptions: [SessionSubscription] = []
  private var nextSubscriptionID = 1
  private var observations: [ObservationToken] = []
  /// Where the text ended at the current version: a reload's change replaces up to there.
  private var endPoint = TextPoint.start
  private var endOffset = 0

  init(id: String, document: PlainTextDocument) {
    self.id = id
    self.document = document
    noteEnd()
    observations.append(document.addFileObserver { [weak self] event in self?.fileEvent(event) })
    observations.append(document.addStateObserver { [weak self] _ in self?.notify(.stateChanged) })
  }

  // MARK: Reading

  /// The document's file now (it follows moves).
  public var fileURL: URL { document.fileURL }
  /// The whole text.
  public var text: String { document.text }
  /// The number of lines (a last line without a newline counts).
  public var lineCount: Int { document.lineCount }
  /// The lines in `range` (from 0), without their endings; clamped to the text.
  public func lines(in range: Range<Int>) -> [String] { document.lines(in: range) }
  /// Whether there are unsaved changes.
  public var hasUnsavedChanges: Bool { document.hasUnsavedChanges }
  /// Whether the file changed elsewhere while the document had unsaved changes.
  public var isInConflict: Bool { document.documentState.contains(.inConflict) }

  /// The UTF-8 offset of `position` counted in `encoding`.
  ///
  /// - Throws: ``QuireError`` (`invalidArgument`) for a position outside the text or inside a
  ///   character.
  public func utf8Offset(of position: TextPosition, in encoding: PositionEncoding) throws(QuireError) -> Int {
    try document.storage.utf8Offset(of: position, in: encoding)
  }

  /// Where UTF-8 offset `offset` is in the current text, in every encoding.
  public func point(atUTF8Offset offset: Int) -> TextPoint { document.storage.point(atUTF8Offset: offset) }

  // MARK: Subscribing

  /// Calls `handler` with every event of the document until the subscription is cancelled
  /// (or the document closed).
  public func subscribe(_ handler: @escaping @MainActor (SessionEvent) -> Void) -> SessionSubscription {
    let subscription = SessionSubscription(id: nextSubscriptionID, document: self, handler: handler)
    nextSubscriptionID += 1
    subscriptions.append(subscription)
    return subscription
  }

  fileprivate func unsubscribe(_ subscription: SessionSubscription) {
    subscriptions.removeAll { $0 === subscription }
  }

  private func notify(_ event: SessionEvent) {
    for subscription in subscriptions { subscription.handler(event) }
  }

  // MARK: Editing

  /// Applies `replacements`, all given against the text at `version`, as one undo step named
  /// `actionName`, and returns the new version. Ranges must not overlap; they apply as if at
  /// once (each range is in the text before any of them).
  ///
  /// - Throws: ``QuireError`` (`fileChangedOnDisk`) when `version` is not the current one: the
  ///   front end edited a text that has changed since (another edit, a reload, undo); or
  ///   (`invalidArgument`) for a range outside the text, inside a character, or overlapping
  ///   another. Nothing changes then.
  @discardableResult
  public func edit(
    _ replacements: [TextReplacement], atVersion version: Int, by origin: SessionSubscription.ID? = nil, named actionName: String = "Typing"
  ) throws -> Int {
    guard version == self.version else {
      throw QuireError(
        .fileChangedOnDisk,
        "\(QuireError.name(fileURL)) is at version \(self.version), not \(version): it changed since the edit was made. Nothing was changed; fetch the new text and edit again.",
        url: fileURL)
    }
    // Checked and placed on a copy of the text that is gone before the edit (a copy still
    // held would make the edit copy the text).
    guard let changes = try checkedChanges(replacements) else { return self.version }
    try document.checkEditable()
    try document.undoManager.groupUndo(named: actionName) {
      // From the end, so the earlier ranges stay put.
      for change in changes.reversed() {
        try document.replaceCharacters(inUTF8Range: change.range, with: change.text)
      }
    }
    return advance(changes, cause: .edit, origin: origin)
  }

  /// The replacements as changes of the current text, in order, with their places in every
  /// encoding; nil when none changes anything.
  private func checkedChanges(_ replacements: [TextReplacement]) throws -> [TextChange]? {
    let storage = document.storage
    let count = storage.utf8Count
    let ordered = replacements.sorted { ($0.range.lowerBound, $0.range.upperBound) < ($1.range.lowerBound, $1.range.upperBound) }
    for (index, replacement) in ordered.enumerated() {
      guard replacement.range.lowerBound >= 0, replacement.range.upperBound <= count else {
        throw QuireError(
          .invalidArgument, "An edit's range \(replacement.range) is outside the text of \(QuireError.name(fileURL)) (\(count) bytes).", url: fileURL)
      }
      if index > 0, replacement.range.lowerBound < ordered[index - 1].range.upperBound {
        throw QuireError(.invalidArgument, "Two edits of one request overlap (\(ordered[index - 1].range) and \(replacement.range)).", url: fileURL)
      }
      for offset in [replacement.range.lowerBound, replacement.range.upperBound] where offset < count {
        if let byte = storage.byte(at: offset), byte & 0xC0 == 0x80 {
          throw QuireError(.invalidArgument, "An edit's range \(replacement.range) cuts a character of \(QuireError.name(fileURL)).", url: fileURL)
        }
      }
    }
    let effective = ordered.filter { !$0.range.isEmpty || !$0.text.isEmpty }
    guard !effective.isEmpty else { return nil }
    return effective.map {
      TextChange(range: $0.range, start: storage.point(atUTF8Offset: $0.range.lowerBound), end: storage.point(atUTF8Offset: $0.range.upperBound), text: $0.text)
    }
  }

  /// Undoes the last step; returns the version (unchanged when there is nothing to undo).
  @discardableResult
  public func undo(by origin: SessionSubscription.ID? = nil) -> Int {
    guard document.undoManager.canUndo else { return version }
    return replacingWhole(cause: .undo, origin: origin) { document.undoManager.undo() }
  }

  /// Redoes the last undone step; returns the version (unchanged when there is nothing to redo).
  @discardableResult
  public func redo(by origin: SessionSubscription.ID? = nil) -> Int {
    guard document.undoManager.canRedo else { return version }
    return replacingWhole(cause: .redo, origin: origin) { document.undoManager.redo() }
  }

  /// Saves through the document's safe save.
  ///
  /// - Throws: ``QuireError`` (`fileChangedOnDisk`) naming the conflict when the file was
  ///   changed and saved elsewhere while this document had unsaved edits: nothing is written;
  ///   settle it with ``resolve(_:by:)`` (merge, or revert to their version) first. Other
  ///   errors of saving.
  public func save() async throws {
    if !isInConflict {
      do {
        try await document.save()
        notify(.saved(version: version))
        return
      } catch let error as QuireError where error.code == .fileChangedOnDisk {
        _ = try? await document.checkForChangesOnDisk()
        if !isInConflict { throw error }
      }
    }
    throw QuireError(
      .fileChangedOnDisk,
      "Conflict: \(QuireError.name(fileURL)) was changed and saved elsewhere while it had unsaved edits here, so saving would replace that version. Merge the two, revert to the saved version, or keep these edits, then save.",
      url: fileURL)
  }

  /// Settles a conflict (see ``QuireDocuments/Document/resolveConflict(_:)``); a settlement
  /// that changes the text makes a new version.
  public func resolve(_ resolution: Document.ConflictResolution, by origin: SessionSubscription.ID? = nil) async throws -> Document.ConflictOutcome {
    let before = document.text
    let (oldEnd, oldCount) = (endPoint, endOffset)
    let outcome = try await document.resolveConflict(resolution)
    if document.text != before { _ = wholeChange(oldEnd: oldEnd, oldCount: oldCount, cause: .resolve, origin: origin) }
    notify(.stateChanged)
    return outcome
  }

  /// Autosaved edits an earlier session left for this file (closed with unsaved changes, or
  /// stopped), waiting to be restored or discarded.
  public var recoveredVersion: RecoveredVersion? { document.recoveredVersion }

  /// Restores the ``recoveredVersion`` as one undoable change (undo puts back the file's
  /// text), or with `discarding` drops it. A restore makes a new version.
  public func recover(discarding: Bool, by origin: SessionSubscription.ID? = nil) throws {
    guard document.recoveredVersion != nil else {
      throw QuireError(.invalidArgument, "\(QuireError.name(fileURL)) has no autosaved edits to recover.", url: fileURL)
    }
    if discarding {
      document.discardRecoveredVersion()
      notify(.stateChanged)
      return
    }
    let (oldEnd, oldCount) = (endPoint, endOffset)
    try document.restoreRecoveredVersion(asChangeNamed: "Recover")
    // The edits are the document's now; its autosave keeps them from here.
    document.discardRecoveredVersion()
    _ = wholeChange(oldEnd: oldEnd, oldCount: oldCount, cause: .recover, origin: origin)
  }

  // MARK: Versions

  private func advance(_ changes: [TextChange], cause: SessionEvent.Cause, origin: SessionSubscription.ID?) -> Int {
    version += 1
    noteEnd()
    notify(.changed(version: version, changes: changes, cause: cause, origin: origin))
    return version
  }

  private func replacingWhole(cause: SessionEvent.Cause, origin: SessionSubscription.ID?, _ body: () -> Void) -> Int {
    let (oldEnd, oldCount) = (endPoint, endOffset)
    body()
    return wholeChange(oldEnd: oldEnd, oldCount: oldCount, cause: cause, origin: origin)
  }

  /// A change that replaced the whole text: the previous version's text, up to where it ended.
  private func wholeChange(oldEnd: TextPoint, oldCount: Int, cause: SessionEvent.Cause, origin: SessionSubscription.ID?) -> Int {
    advance([TextChange(range: 0..<oldCount, start: .start, end: oldEnd, text: document.text)], cause: cause, origin: origin)
  }

  private func noteEnd() {
    endOffset = document.storage.utf8Count
    endPoint = document.storage.point(atUTF8Offset: endOffset)
  }

  private func fileEvent(_ event: Document.FileEvent) {
    switch event {
    case .changedOnDisk(.reloaded): _ = wholeChange(oldEnd: endPoint, oldCount: endOffset, cause: .reload, origin: nil)
    case .changedOnDisk(.conflict): notify(.conflict)
    case .changedOnDisk(.deleted): notify(.deleted)
    case .changedOnDisk(.unchanged): break
    case .moved(let from, let to): notify(.moved(from: from, to: to))
    }
  }

  func didClose() {
    notify(.closed)
    subscriptions = []
    for observation in observations { observation.cancel() }
    observations = []
  }
}
