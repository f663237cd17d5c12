public import Foundation
import QuireCoordination
import QuireSystem
public import QuireTypes
import SystemPackage

/// A document backed by a file: UIDocument/NSDocument for Linux.
///
/// **Subclass, not protocol.** As with Apple's, a document is an object with identity and a
/// great deal of shared behaviour — the change count, its state, autosave timers, safe save,
/// conflict handling, its ``undoManager`` — and a subclass only says how its contents become
/// bytes and back. A protocol would push all that state into every conformer (or into
/// default implementations that cannot store anything); a class hierarchy also lets
/// ``DocumentController`` keep a `Document.Type` per file type and make instances of it, and
/// lets ``MarkdownDocument`` extend ``PlainTextDocument``. Subclasses override
/// ``read(from:ofType:)`` and ``contents(forType:)``, and may override ``merge(with:ofType:)``.
///
/// **Packages.** As with NSDocument, contents are bytes or a ``FileWrapper``: a document
/// whose type conforms to `com.apple.package` (``isPackageType(_:)``) is saved from
/// ``fileWrapper(ofType:)`` — atomically, the new folder built beside and swapped in with
/// `renameat2(RENAME_EXCHANGE)`, unchanged files hard-linked from the last save — and a
/// folder on disk is read through ``read(from:ofType:)-(FileWrapper,_)``. The defaults bridge
/// the two forms, so a subclass overrides only the pair it needs (``TextBundleDocument``).
///
/// **Versions.** With a ``versionStore`` (``DocumentController`` gives one), every save keeps
/// what the file (or package) held as a version: a package before it is replaced, a file's
/// replaced content straight from the safe save (moved into the store rather than copied when
/// nobody else holds it open); ``versions()`` lists them,
/// ``openVersion(_:)`` opens one read-only and ``restoreVersion(_:)`` brings one back as an
/// undoable change.
///
/// **Coordination.** As UIDocument does, an open document presents its file: ``open()``
/// registers its ``filePresenter`` with `FileCoordinator`, so another process's coordinated
/// readers ask it to save first (when it autosaves in place), another process's coordinated
/// writers reach it as ``presentedItemDidChange()``, and changes made without coordination
/// reach it through inotify; ``close(discardingChanges:)`` removes it. Every read and write
/// goes through ``fileAccess``, by default a `FileCoordinator` working for that presenter (at
/// `$XDG_RUNTIME_DIR`, or `/tmp/quire-runtime-UID` without it), so saves and reads wait for
/// other coordinated writers. A change that arrives while the document has unsaved edits
/// makes a conflict, also offered as an unresolved `NSFileVersion`.
///
/// **Isolation.** Main-actor isolated, as UIDocument is: a document and its undo manager are
/// used from one place. File reads and writes run off the main actor, inside the
/// ``fileAccess`` seam.
///
/// **Life cycle.** ``init(fileURL:contentType:)`` makes a closed document; ``open()`` reads it;
/// edits go through the subclass (which registers undo); ``save()`` and
/// ``save(to:ofType:for:)`` write it safely (see ``FileSaver``); ``revertToSaved()`` reads it
/// again; ``close(discardingChanges:)`` ends it. ``documentState`` says where it is, and
/// ``addStateObserver(_:)`` reports every change of it.
///
/// **Change count.** Each undo step closed counts as a change, an undo as one less, a redo as
/// one more (the document observes its undo manager); ``hasUnsavedChanges`` compares with the
/// count at the last save. Changes made with undo registration disabled call
/// ``updateChangeCount(_:)`` themselves.
///
/// **Changes on disk.** The document keeps a ``FileFingerprint`` of what it last read or
/// wrote. Before saving over its file, and whenever ``checkForChangesOnDisk()`` or
/// ``presentedItemDidChange()`` runs, it compares: same size and content hash is no change
/// (a touch, or identical bytes written again); otherwise a clean document reloads and a
/// dirty one goes ``State/inConflict``.
///
/// **Autosave.** With an ``autosavePolicy``, unsaved changes are written after an idle delay
/// and at a maximum interval — to a ``RecoveryStore`` file unless ``autosavesInPlace``. The
/// next ``open()`` after a crash offers that version as ``recoveredVersion``.
///
/// **Isolation.** Main-actor isolated, as UIDocument is in Apple's SDKs; the state Apple's
/// code reads most (``fileURL``, ``contentType``, ``documentState``, ``hasUnsavedChanges``,
/// ``localizedName``) is `@preconcurrency`, as Apple's imported declarations are: Swift 5
/// code that reads it off the main actor gets a warning, Swift 6 code an error.
@MainActor
open class Document {
  /// The document's file. For an untitled document (``isUntitled``) only the name a first
  /// save would suggest: nothing is read or written there.
  @preconcurrency @MainActor
  public internal(set) var fileURL: URL
  /// Whether the document has no file yet: made by
  /// ``DocumentController/makeUntitledDocument(ofType:)`` and not yet given one by
  /// ``setFileURL(_:)`` or a save as (``save(to:ofType:for:)`` with
  /// ``SaveOperation/saveAsOperation``). Until then nothing is read or written at ``fileURL``:
  /// no recovery file, stored undo history, version, presenter or check on disk, ``open()``
  /// reads nothing (as ``openNew()``) and ``save()`` is refused.
  public internal(set) var isUntitled = false
  /// The document's type; found from the file name when not given.
  @preconcurrency @MainActor
  public internal(set) var contentType: UTType?
  /// The document's undo manager; its steps drive the change count.
  ///
  /// As UIKit's, it is an implicitly unwrapped optional that an app may replace with its own
  /// (a subclass of ``UndoManager``); setting `nil` puts a fresh manager in its place, so it
  /// is never nil when read. Overridable, as Apple's.
  open var undoManager: UndoManager! {
    get { storedUndoManager }
    set {
      storedUndoManager = newValue ?? UndoManager()
      observeUndoManager()
    }
  }
  private var storedUndoManager = UndoManager()
  /// Where the document is in its life; observe with ``addStateObserver(_:)``.
  @preconcurrency @MainActor
  public private(set) var documentState: State = .closed {
    didSet { if documentState != oldValue { notifyState() } }
  }
  /// Changes made since opening: +1 per change or redo, -1 per undo.
  public private(set) var changeCount = 0
  private var savedChangeCount = 0
  private var savedVersionUnreachable = false
  /// Whether some change has not been autosaved (or saved) yet.
  public private(set) var hasUnautosavedChanges = false
  /// The fingerprint of the file as last read or written: what ``checkForChangesOnDisk()``
  /// and a save compare the file with. An editor writing some of its lines over the file (as
  /// ed's `1,2w`) does so with ``writeToOwnFile(_:)``, which sets it to what it wrote, so that
  /// its own write is not taken for someone else's change. `nil`: the file is not known (a new
  /// file), and the next save writes without a check.
  public var fileFingerprint: FileFingerprint? {
    didSet { fileVersionGeneration &+= 1 }
  }
  /// Counts changes of ``fileFingerprint`` (a save, a read, a resolved conflict): a check for
  /// changes on disk whose reads overlapped one compares again.
  private var fileVersionGeneration: UInt64 = 0
  /// The error of the last failed save (``State/savingError``).
  public private(set) var lastSaveError: QuireError?
  /// The error of the last failed autosave, if any.
  public private(set) var lastAutosaveError: QuireError?
  /// The other version while ``State/inConflict``.
  public private(set) var conflictVersion: ConflictVersion?
  /// An autosaved version left by a crash, offered after ``open()``; restore it with
  /// ``restoreRecoveredVersion()`` or drop it with ``discardRecoveredVersion()``.
  public private(set) var recoveredVersion: RecoveredVersion?

  /// When autosave runs; `nil` turns it off.
  public var autosavePolicy: AutosavePolicy? = .standard
  /// Whether autosave writes the document's own file (NSDocument's `autosavesInPlace`).
  /// When false (the default) autosave writes a recovery file and the user's file changes only
  /// on an explicit save.
  open var autosavesInPlace = false
  /// Whether the document saves its unsaved changes to its file when another process's
  /// coordinated read or move asks its presenter to (``savePresentedItemChanges()``), though
  /// it does not autosave in place: an editor whose user expects a browser's move or copy to
  /// take the text as shown (the `quire` REPL). Off by default, as in UIDocument.
  public var savesWhenOtherProcessesAsk = false
  /// Where autosaves go when not in place; `nil` turns recovery off.
  public var recoveryStore: RecoveryStore? = .standard
  /// ``recoveryStore`` while the document has a file; an untitled one has no recovery file.
  private var fileRecoveryStore: RecoveryStore? { isUntitled ? nil : recoveryStore }
  /// How the document reads and writes its file (the coordination seam): by default a
  /// `FileCoordinator` whose presenter is ``filePresenter`` (so the document does not hear of
  /// its own saves). ``UncoordinatedFileAccess`` turns coordination off.
  public var fileAccess: any DocumentFileAccess
  /// The presenter of the document's file, registered while the document is open (see
  /// ``registersAsFilePresenter``).
  public let filePresenter: DocumentPresenter
  /// Whether ``open()`` registers ``filePresenter``, so that changes by others reach the
  /// document without being asked (true, as UIDocument). When false the document notices
  /// changes only in ``checkForChangesOnDisk()`` and before a save.
  public var registersAsFilePresenter = true
  /// Why registering the presenter failed at the last open, if it did (no inotify watch
  /// left, an unusable runtime folder); the document opened anyway and then notices changes
  /// only when it checks.
  public private(set) var filePresenterError: QuireError?
  private var isPresenting = false
  private var diskCheck: Task<DiskChange, any Error>?
  /// Saves under way; a presenter's change notice meanwhile waits for them to end.
  private var savesInProgress = 0
  private var changeNoticedDuringSave = false
  /// How safe saves write (folder flush, permissions of new files).
  public var saveOptions: SaveOptions = .standard
  /// The registry used to find the type of the file.
  public var typeRegistry: TypeRegistry = .shared
  /// Where each save keeps the previous content as a version; `nil` keeps none. `nil` for a
  /// document made directly (so tests and embedders never write the user's real state
  /// folder unasked); ``DocumentController`` sets `STATE/versions`.
  public var versionStore: VersionStore?
  /// Why keeping a version failed at the last save, if it did; the save itself went ahead
  /// (a broken state folder must not stop the user from saving).
  public private(set) var lastVersioningError: QuireError?
  /// Whether this is a kept version opened read-only (``openVersion(_:)``): edits and saves
  /// are refused.
  public private(set) var isReadOnlyVersion = false
  /// Whether the undo history outlives the document: stored at each save (and autosave in
  /// place) in ``undoHistoryStore``, and brought back when the document opens (see
  /// Document+UndoHistory.swift). Off by default; the `quire` REPL turns it on in its own
  /// mode. Set it before ``open()``.
  public var persistsUndoHistory = false
  /// Where the undo history is stored when ``persistsUndoHistory``; `nil` uses
  /// `$XDG_STATE_HOME/quire/undo` (``UndoHistoryStore/init(root:limits:)``).
  public var undoHistoryStore: UndoHistoryStore?
  /// What the last open found of a stored history (``UndoHistoryRestoration``).
  public internal(set) var undoHistoryRestoration: UndoHistoryRestoration = .none
  /// Why storing the undo history failed at the last save, if it did (the save went ahead).
  public internal(set) var lastUndoHistoryError: QuireError?
  /// The other version's contents while ``State/inConflict`` (a package's tree, or bytes).
  private var conflictContents: StoredContents?

  private let stateObservers = ObserverList<State>()
  private let fileObservers = ObserverList<FileEvent>()
  /// Whether the last check found the file gone (a deletion is reported once).
  private var reportedFileMissing = false
  private var undoObservation: ObservationToken?
  private var autosaveTask: Task<Void, Never>?
  private var idleDeadline: ContinuousClock.Instant?
  private var intervalDeadline: ContinuousClock.Instant?
  private var isSaving = false
  /// Whether an autosave is under way: autosaves run one at a time, so that an earlier one's
  /// write cannot land after a later one's (which may have removed the recovery file).
  private var isAutosaving = false
  /// Autosaves waiting for the one under way.
  private var autosaveWaiters: [CheckedContinuation<Void, Never>] = []

  /// Makes a closed document for the file at `fileURL`; call ``open()`` to read it.
  ///
  /// - Parameters:
  ///   - fileURL: The document's file (a `file:` URL).
  ///   - contentType: Its type; `nil` finds it from the file name when opening.
  public required init(fileURL: URL, contentType: UTType? = nil) {
    self.fileURL = fileURL.standardizedFileURL
    self.contentType = contentType
    let presenter = DocumentPresenter()
    self.filePresenter = presenter
    self.fileAccess = FileCoordinator(filePresenter: presenter)
    presenter.attach(self)
    observeUndoManager()
  }

  /// Counts the undo manager's steps as changes (``updateChangeCount(_:)``), and lets it
  /// forget the stored history when it forgets its steps.
  private func observeUndoManager() {
    undoObservation?.cancel()
    storedUndoManager.forgetStoredHistory = { [weak self] in self?.forgetStoredUndoHistory() }
    undoObservation = storedUndoManager.addObserver { [weak self] event in
      guard let self else { return }
      switch event {
      case .didCloseUndoGroup: self.updateChangeCount(.done)
      case .didUndoChange: self.updateChangeCount(.undone)
      case .didRedoChange: self.updateChangeCount(.redone)
      case .willUndoChange, .willRedoChange: break
      }
    }
  }

  isolated deinit {
    autosaveTask?.cancel()
    if isPresenting { FileCoordinator.removeFilePresenter(filePresenter) }
  }

  // MARK: Presenting the file

  /// Registers ``filePresenter`` for ``fileURL`` (at the location of ``fileAccess`` when it is
  /// a `FileCoordinator`), or moves its registration to the current file.
  private func startPresenting() {
    stopPresenting()
    guard registersAsFilePresenter, !isUntitled else { return }
    filePresenter.setURL(fileURL)
    let location = (fileAccess as? FileCoordinator)?.location ?? .default
    do {
      try FileCoordinator.addFilePresenter(filePresenter, location: location)
      isPresenting = true
      filePresenterError = nil
    } catch let error as QuireError {
      filePresenterError = error
    } catch {
      filePresenterError = QuireError(.systemCallFailed, "Cannot watch \(QuireError.name(fileURL)) for changes.", url: fileURL, cause: error)
    }
  }

  private func stopPresenting() {
    if isPresenting { FileCoordinator.removeFilePresenter(filePresenter) }
    isPresenting = false
    filePresenter.setURL(nil)
  }

  /// The file's name without its extension, for titles.
  @preconcurrency @MainActor
  open var localizedName: String { fileURL.deletingPathExtension().lastPathComponent }

  // MARK: Subclass overrides

  /// Loads the document's contents from the file's bytes. Override; the default refuses.
  ///
  /// - Parameters:
  ///   - data: The whole file.
  ///   - type: The file's type.
  /// - Throws: ``QuireError`` (``QuireError/Code/invalidContent`` for bytes that are not what
  ///   the type promises); the document then stays as it was.
  open func read(from data: Data, ofType type: UTType) throws {
    throw QuireError(.notImplemented, "\(Self.self) does not override read(from:ofType:).")
  }

  /// The document's contents as the bytes of a file of `type`. Override; the default refuses.
  open func contents(forType type: UTType) throws -> Data {
    throw QuireError(.notImplemented, "\(Self.self) does not override contents(forType:).")
  }

  /// Loads the document's contents from a file wrapper: what ``open()`` calls when the file is
  /// a folder (a package), as NSDocument's `read(from:ofType:)` for file wrappers. The
  /// default passes a regular file's bytes to ``read(from:ofType:)-(Data,_)`` and refuses a
  /// folder; package documents override it.
  ///
  /// - Throws: ``QuireError`` (``QuireError/Code/invalidContent`` for a tree that is not what
  ///   the type promises); the document then stays as it was.
  open func read(from fileWrapper: FileWrapper, ofType type: UTType) throws {
    guard fileWrapper.isRegularFile else {
      throw QuireError(.unsupportedType, "it is a folder, and \(Self.self) reads files, not packages. Open a file instead.")
    }
    try read(from: fileWrapper.contents(), ofType: type)
  }

  /// The document's contents as a file wrapper: what a save writes for a package type
  /// (``isPackageType(_:)``), as NSDocument's `fileWrapper(ofType:)`. The default wraps
  /// ``contents(forType:)`` in a regular file.
  ///
  /// The document may return a tree it keeps: a save writes a copy
  /// (``FileWrapper/copyForWriting()``, no bytes copied), so edits can go on meanwhile.
  open func fileWrapper(ofType type: UTType) throws -> FileWrapper {
    FileWrapper(regularFileWithContents: try contents(forType: type))
  }

  /// Whether files of `type` are packages, saved from ``fileWrapper(ofType:)``: types
  /// conforming to `com.apple.package`. Override to save other types as folders
  /// (``FileDocumentHost`` adds `public.directory`, for SwiftUI documents of `public.folder`).
  open func isPackageType(_ type: UTType) -> Bool { type.conforms(to: .package) }

  /// The document's state, kept to undo ``restoreVersion(_:)``. The default is its contents
  /// in stored form; a document whose own model keeps undo state (``PDFFileDocument``)
  /// returns that model instead, so its earlier undo steps still apply after the restore is
  /// undone.
  open func stateForUndoingRestore() throws -> Any {
    try storedContents(forType: try resolvedType())
  }

  /// Puts back a state from ``stateForUndoingRestore()``.
  open func restoreState(forUndoingRestore state: Any) throws {
    guard let contents = state as? StoredContents else {
      throw QuireError(.invalidArgument, "\(Self.self) was given an undo state it did not make.")
    }
    try load(contents, type: try resolvedType())
  }

  /// Merges `theirs` (the file changed on disk) into the document's contents, three-way
  /// against the last version read or saved, as one undoable change. The default refuses:
  /// only text documents merge.
  open func merge(with theirs: Data, ofType type: UTType) throws -> MergeOutcome {
    throw QuireError(
      .unsupportedType, "\(QuireError.name(fileURL)) cannot be merged: only text documents merge. Choose keep mine, take theirs or keep both.", url: fileURL)
  }

  /// What an autosave writes to the document's recovery file (see ``recoveryStore``), which
  /// is a single file: by default ``contents(forType:)``, and `nil` (no recovery file) for a
  /// package type. A package document that can keep its unsaved edits in one file (a
  /// TextBundle's text) overrides it and ``readRecoveryContents(_:ofType:)``.
  open func recoveryContents(forType type: UTType) throws -> Data? {
    isPackageType(type) ? nil : try contents(forType: type)
  }

  /// Loads what ``recoveryContents(forType:)`` wrote, when a recovered version is restored.
  /// By default ``read(from:ofType:)-(Data,_)``.
  open func readRecoveryContents(_ data: Data, ofType type: UTType) throws {
    try read(from: data, ofType: type)
  }

  /// The type assumed when neither the caller nor the file name says (a file without an
  /// extension). `nil` here: such a file cannot be opened; text documents say plain text.
  open var fallbackType: UTType? { nil }

  /// Called after contents read from the file were loaded (open, reload, revert, take
  /// theirs). Text documents remember them as the merge base.
  open func documentDidReadFromDisk() {}

  /// Called after a successful save, with the operation.
  open func documentDidSave(_ operation: SaveOperation) {}

  /// The state a stored undo history ends at, as bytes (a text document's UTF-8 text), or
  /// `nil` when this document's history cannot be stored (the default).
  open func undoHistoryState() -> [UInt8]? { nil }

  /// Runs a stored undo action (one of this document's ``UndoRecord``s), registering its
  /// inverse as the edit it replays would. The default refuses every record.
  open func applyUndoRecord(_ record: UndoRecord) throws {
    throw QuireError(.invalidArgument, "\(Self.self) cannot replay the undo record '\(record.kind)'.")
  }

  /// The record that turns the current state into `state` (a stored history's end state):
  /// the "changed on disk" step. `nil` (the default) when it cannot be made.
  open func undoRecord(restoringState state: [UInt8]) -> UndoRecord? { nil }

  // MARK: Change count

  /// Whether the document differs from its file.
  @preconcurrency @MainActor
  open var hasUnsavedChanges: Bool { savedVersionUnreachable || changeCount != savedChangeCount }

  /// Moves the change count, as UIDocument's `updateChangeCount(_:)`.
  open func updateChangeCount(_ change: ChangeKind) {
    switch change {
    case .done:
      // Undone below the saved version and then changed: the saved version is out of reach.
      if changeCount < savedChangeCount { savedVersionUnreachable = true }
      changeCount += 1
    case .undone: changeCount -= 1
    case .redone: changeCount += 1
    case .cleared:
      savedChangeCount = changeCount
      savedVersionUnreachable = false
      hasUnautosavedChanges = false
      return
    }
    hasUnautosavedChanges = true
    scheduleAutosave()
  }

  // MARK: State

  /// Calls `handler` with the new state each time ``documentState`` changes, until the token
  /// is cancelled.
  @discardableResult
  public func addStateObserver(_ handler: @escaping @MainActor (State) -> Void) -> ObservationToken {
    stateObservers.add(handler)
  }

  /// Calls `handler` each time someone else changes or moves the document's file (see
  /// ``FileEvent``), after the document has acted on it (reloaded, gone in conflict, followed
  /// the move), until the token is cancelled: how an editor says so to the person, whichever
  /// way the document heard of it (its presenter, inotify, a check, a save).
  @discardableResult
  public func addFileObserver(_ handler: @escaping @MainActor (FileEvent) -> Void) -> ObservationToken {
    fileObservers.add(handler)
  }

  private func notifyFile(_ event: FileEvent) { fileObservers.notify(event) }

  private func notifyState() { stateObservers.notify(documentState) }

  /// Refuses edits until ``enableEditing()`` (``State/editingDisabled``).
  open func disableEditing() { documentState.insert(.editingDisabled) }
  /// Allows edits again.
  open func enableEditing() { documentState.remove(.editingDisabled) }

  /// Throws unless the document is open and editable; edit methods call it first.
  public func checkEditable() throws(QuireError) {
    if documentState.contains(.closed) {
      throw QuireError(.invalidArgument, "\(QuireError.name(fileURL)) is closed. Open it before editing.", url: fileURL)
    }
    if documentState.contains(.editingDisabled) {
      throw QuireError(.permissionDenied, "\(QuireError.name(fileURL)) is not editable right now.", url: fileURL)
    }
  }

  // MARK: Opening and closing

  /// Reads the document from its file and opens it.
  ///
  /// Afterwards ``recoveredVersion`` is set when a crash left autosaved contents behind.
  ///
  /// - Throws: ``QuireError`` naming the file when it cannot be read or its contents are not
  ///   what its type promises; the document stays closed.
  public func open() async throws {
    guard documentState.contains(.closed) else { return }
    if isUntitled { return try openNew() }
    let type = try resolvedType()
    let (fingerprint, contents) = try await readFile()
    try load(contents, type: type)
    finishOpening(type: type, fingerprint: fingerprint)
    startPresenting()
  }

  /// Opens the document from `contents`, its file's bytes as the caller read them, without
  /// suspending: for a command loop that runs each command to its end on the main actor (the
  /// `quire` REPL reads the file inside its own coordinated read with
  /// ``FileFingerprint/read(at:)``). With `fingerprint` `nil` the file does not exist yet: the
  /// document is new, and its first save creates the file. As after ``open()``,
  /// ``recoveredVersion`` is set when a crash left autosaved contents behind, and a file that
  /// exists is presented (``registersAsFilePresenter``).
  ///
  /// - Throws: ``QuireError`` naming the file when the contents are not what its type promises;
  ///   the document stays closed.
  public func open(contents: Data, fingerprint: FileFingerprint?) throws {
    guard documentState.contains(.closed) else { return }
    let type = try resolvedType()
    try load(.file(contents), type: type)
    finishOpening(type: type, fingerprint: fingerprint)
    if fingerprint != nil { startPresenting() }
  }

  /// Opens the closed document as a new one, with the contents it was made with (empty), for
  /// a file that does not exist yet: nothing is read, and the first ``save()`` creates the
  /// file, or the package of a package type (a new TextBundle). As after ``open()``,
  /// ``recoveredVersion`` is set when a crash left autosaved contents for the file behind.
  ///
  /// - Throws: ``QuireError`` when the document's type is not given and its file name does
  ///   not tell it; the document stays closed.
  public func openNew() throws {
    guard documentState.contains(.closed) else { return }
    finishOpening(type: try resolvedType(), fingerprint: nil)
  }

  /// The document is at its file's state once the contents are loaded: no changes, no undo
  /// history, and the recovery file a crash left (if any) offered.
  private func finishOpening(type: UTType, fingerprint: FileFingerprint?) {
    contentType = type
    fileFingerprint = fingerprint
    undoManager.removeAllSteps()
    changeCount = 0
    updateChangeCount(.cleared)
    documentDidReadFromDisk()
    restoreStoredUndoHistory()
    recoveredVersion = fileRecoveryStore?.recoveredVersion(for: fileURL)
    documentState.remove(.closed)
  }

  /// Closes the document.
  ///
  /// - Parameter discardingChanges: Close even with unsaved changes, dropping them (and any
  ///   recovery file). Without it, a document that autosaves in place is saved first, and
  ///   any other document with unsaved changes is not closed.
  /// - Throws: ``QuireError/Code/unsavedChanges`` when unsaved changes would be lost, or the
  ///   save's error.
  public func close(discardingChanges: Bool = false) async throws {
    guard !documentState.contains(.closed) else { return }
    if hasUnsavedChanges && !discardingChanges {
      guard autosavesInPlace else {
        throw QuireError(
          .unsavedChanges,
          "\(QuireError.name(fileURL)) has unsaved changes. Save it, or close it discarding the changes.",
          url: fileURL)
      }
      try await save()
    }
    cancelAutosave()
    fileRecoveryStore?.remove(for: fileURL)
    recoveredVersion = nil
    undoManager.removeAllSteps()
    stopPresenting()
    ConflictBoard.shared.remove(for: self)
    documentState = .closed
  }

  /// Closes the document, keeping unsaved changes in its recovery file for the next
  /// ``open()`` to offer as ``recoveredVersion`` (what an editor does when a window closes or
  /// the app stops while edits are unsaved and the person has not chosen to drop them).
  ///
  /// A document without unsaved changes closes as ``close(discardingChanges:)`` does. One
  /// that ``autosavesInPlace`` is saved first. Otherwise the whole current contents are written
  /// to the ``recoveryStore`` now (whatever the last autosave held), and that file stays after
  /// the close. A version a crash left that was not yet restored or discarded stays too.
  ///
  /// - Throws: ``QuireError/Code/unsavedChanges`` when the changes cannot be kept — no
  ///   recovery store, a crash's version still waiting to be decided on (one recovery file per
  ///   document), or contents that do not fit one recovery file — or the write's error; the
  ///   document then stays open with its changes.
  public func closeKeepingUnsavedChanges() async throws {
    guard !documentState.contains(.closed) else { return }
    if hasUnsavedChanges {
      if autosavesInPlace {
        try await save()
      } else {
        try await writeRecoveryForClose()
      }
    }
    cancelAutosave()
    if !hasUnsavedChanges && recoveredVersion == nil { fileRecoveryStore?.remove(for: fileURL) }
    recoveredVersion = nil
    undoManager.removeAllActions()
    stopPresenting()
    ConflictBoard.shared.remove(for: self)
    documentState = .closed
  }

  /// Writes the current contents to the recovery store for ``closeKeepingUnsavedChanges()``,
  /// after any autosave under way (which would otherwise finish with older contents).
  private func writeRecoveryForClose() async throws {
    func refusal(_ why: String) -> QuireError {
      QuireError(
        .unsavedChanges, "\(QuireError.name(fileURL)) has unsaved changes that cannot be kept: \(why). Save it, or close it discarding the changes.",
        url: fileURL)
    }
    guard let recoveryStore else { throw refusal("it has no recovery store") }
    guard recoveredVersion == nil else {
      throw refusal("the autosaved edits an earlier session left are still waiting to be restored or discarded")
    }
    while isAutosaving { await withCheckedContinuation { autosaveWaiters.append($0) } }
    isAutosaving = true
    defer {
      isAutosaving = false
      let waiters = autosaveWaiters
      autosaveWaiters = []
      for waiter in waiters { waiter.resume() }
    }
    let type = try contentType ?? resolvedType()
    guard let data = try recoveryContents(forType: type) else { throw refusal("its type cannot be autosaved to one file") }
    let documentURL = fileURL
    let typeName = contentType?.identifier
    try await Task.detached { try recoveryStore.write(data, for: documentURL, type: typeName) }.value
    hasUnautosavedChanges = false
  }

  /// Points the document at another file without reading or writing it (NSDocument's
  /// `setFileURL`): the next ``save()`` writes there. What the document knew of its old file
  /// goes: ``fileFingerprint`` is cleared (so the first save to the new file does not take
  /// what is there for someone else's change), an unresolved conflict is dropped, and an
  /// autosave of the old file's unsaved changes moves to the new one at the next autosave.
  /// The presenter, when registered, presents the new file. To write the contents to `url` and
  /// make it the document's file in one step, use ``save(to:ofType:for:)`` with
  /// ``SaveOperation/saveAsOperation``.
  public func setFileURL(_ url: URL) {
    let new = url.standardizedFileURL
    guard new != fileURL else { return }
    let old = fileURL
    fileURL = new
    fileFingerprint = nil
    conflictVersion = nil
    conflictContents = nil
    ConflictBoard.shared.remove(for: self)
    documentState.remove(.inConflict)
    if fileRecoveryStore?.recoveredVersion(for: old) != nil && recoveredVersion == nil {
      fileRecoveryStore?.remove(for: old)
      if hasUnsavedChanges {
        hasUnautosavedChanges = true
        scheduleAutosave()
      }
    }
    isUntitled = false
    if isPresenting { startPresenting() }
  }

  /// Reads the document from `contents`, its file's bytes as the caller read them (with
  /// ``FileFingerprint/read(at:)``), without suspending, dropping unsaved changes and the undo
  /// history: ``revertToSaved()`` for a command loop that runs each command to its end on the
  /// main actor, as ``open(contents:fingerprint:)`` is ``open()``'s. With `fingerprint` `nil`
  /// the file is not known (see ``fileFingerprint``).
  ///
  /// - Throws: ``QuireError`` naming the file when the contents are not what its type
  ///   promises; the document stays as it was.
  public func revert(toContents contents: Data, fingerprint: FileFingerprint?) throws {
    guard !documentState.contains(.closed) else { return try open(contents: contents, fingerprint: fingerprint) }
    try load(.file(contents), type: try resolvedType())
    finishReverting(fingerprint: fingerprint)
  }

  /// The document is back at its file's state once the contents are loaded: unsaved changes,
  /// the undo history, a conflict and the recovery file are gone.
  private func finishReverting(fingerprint: FileFingerprint?) {
    fileFingerprint = fingerprint
    undoManager.removeAllSteps()
    updateChangeCount(.cleared)
    conflictVersion = nil
    conflictContents = nil
    ConflictBoard.shared.remove(for: self)
    documentState.remove([.inConflict, .savingError])
    fileRecoveryStore?.remove(for: fileURL)
    recoveredVersion = nil
    documentDidReadFromDisk()
    restoreStoredUndoHistory()
  }

  /// Replaces the document's contents with its file's as one undoable change named
  /// `actionName`: an editor's revert that the person can take back (undo puts the contents
  /// back, as unsaved changes; redo reverts again). In conflict, the file's version is the
  /// ``conflictVersion`` (the whole package, for a package), and the conflict is settled.
  /// Afterwards the document matches its file: no unsaved changes, and the contents read
  /// become the merge base of a text document.
  ///
  /// - Parameter actionName: The undo step's name ("Revert").
  /// - Throws: ``QuireError`` when the document is not editable or its file cannot be read
  ///   as its type; nothing changes then.
  public func revertUndoably(named actionName: String = "Revert") async throws {
    try checkEditable()
    let fingerprint: FileFingerprint
    let contents: StoredContents
    if let theirs = conflictVersion, let theirContents = conflictContents {
      (fingerprint, contents) = (theirs.fingerprint, theirContents)
    } else {
      (fingerprint, contents) = try await readFile()
    }
    let type = try resolvedType()
    try loadUndoably(named: actionName) { try load(contents, type: type) }
    fileFingerprint = fingerprint
    conflictVersion = nil
    conflictContents = nil
    ConflictBoard.shared.remove(for: self)
    documentState.remove(.inConflict)
    updateChangeCount(.cleared)
    documentDidReadFromDisk()
  }

  /// Runs `load` (which replaces the document's contents) as one undoable change named
  /// `actionName` whose undo puts the current contents back (``stateForUndoingRestore()``).
  private func loadUndoably(named actionName: String, _ load: () throws -> Void) throws {
    let before = try stateForUndoingRestore()
    try load()
    undoManager.groupUndo(named: actionName) {
      undoManager.registerUndo(withTarget: self) { document in document.swapState(to: before) }
    }
  }

  /// Writes the closed document's contents as a new file (or package) at `url`, which becomes
  /// its file and must not exist, and opens it (UIDocument's save "for creating").
  package func createNew(at url: URL) async throws {
    guard documentState.contains(.closed) else {
      throw QuireError(.invalidArgument, "\(QuireError.name(fileURL)) is open; save it to a new file with save as.", url: fileURL)
    }
    fileURL = url.standardizedFileURL
    try await createNewPackage()
  }

  /// Writes the closed document's contents (empty, or the value a SwiftUI-model host was made
  /// with) as a new file or package at ``fileURL`` (which must not exist) and opens it; on
  /// failure it stays closed.
  func createNewPackage() async throws {
    guard documentState.contains(.closed) else { return }
    let options = saveOptions
    saveOptions.requiresNewFile = true
    documentState.remove(.closed)
    defer { saveOptions = options }
    do {
      try await save(to: fileURL, ofType: try resolvedType(), for: .saveAsOperation)
    } catch {
      documentState = .closed
      throw error
    }
    undoManager.removeAllSteps()
    updateChangeCount(.cleared)
    documentDidReadFromDisk()
    startPresenting()
  }

  /// The declared type of the file name's extension (for a file not written yet).
  private var declaredTypeOfExtension: UTType? {
    let ext = fileURL.pathExtension
    guard !ext.isEmpty, let type = typeRegistry.type(forTag: ext, tagClass: .filenameExtension), !type.isDynamic else { return nil }
    return type
  }

  private func resolvedType() throws(QuireError) -> UTType {
    if let contentType { return contentType }
    if let type = typeRegistry.type(forFileAt: fileURL) ?? declaredTypeOfExtension ?? fallbackType { return type }
    throw QuireError(.unsupportedType, "Cannot open \(QuireError.name(fileURL)): its type is unknown. Give it an extension such as .txt or .md.", url: fileURL)
  }

  private func load(_ contents: StoredContents, type: UTType) throws {
    do {
      switch contents {
      case .file(let data): try read(from: data, ofType: type)
      case .text: try read(from: contents.fileData ?? Data(), ofType: type)
      case .package(let wrapper): try read(from: wrapper, ofType: type)
      }
    } catch let error as QuireError where error.url == nil {
      throw QuireError(error.code, "Cannot open \(QuireError.name(fileURL)): \(error.reason)", url: fileURL, cause: error)
    }
  }

  /// The contents to write for `type`: a copy of the package tree, or the file's bytes.
  private func storedContents(forType type: UTType) throws -> StoredContents {
    isPackageType(type) ? .package(try fileWrapper(ofType: type).copyForWriting()) : try fileContents(forType: type)
  }

  /// A regular file's contents for `type`: ``contents(forType:)``'s bytes. A text document
  /// gives its chunks instead, saved without joining them.
  func fileContents(forType type: UTType) throws -> StoredContents {
    .file(try contents(forType: type))
  }

  /// Reads the file, or the package folder when the document's type is a package type (a
  /// folder is otherwise refused at once, never walked).
  private func readFile() async throws -> (FileFingerprint, StoredContents) {
    let packages = (try? resolvedType()).map(isPackageType) ?? false
    let (fingerprint, contents) = try await Self.read(fileURL, packages: packages, access: fileAccess)
    return (fingerprint, contents.value)
  }

  private nonisolated static func read(
    _ url: URL, packages: Bool, access: any DocumentFileAccess
  ) async throws -> (FileFingerprint, Handoff<StoredContents>) {
    try await access.coordinate(readingItemAt: url) { url in try StoredContents.read(url, packages: packages) }
  }

  /// Writes `contents` to `url` inside a coordinated write, first keeping what is there as a
  /// version when `versions` is given. A failure to keep the version is returned, not thrown.
  ///
  /// With `expected` (a save over the document's own file, checked just before), the file's
  /// identity is checked again inside the write: a coordinated writer that saved in between
  /// makes this throw ``QuireError/Code/fileChangedOnDisk`` instead of overwriting its save.
  private nonisolated static func write(
    _ contents: Handoff<StoredContents>, to url: URL, original: URL?, expected: FileFingerprint?, options: SaveOptions,
    versions: VersionStore?, access: any DocumentFileAccess
  ) async throws -> (SaveResult, QuireError?) {
    try await access.coordinate(writingItemAt: url) { url in
      if let expected, contents.value.isFile {
        if case .success(let info) = SystemCalls.stat(PathText.path(FileSaver.resolvedTarget(of: url).path)),
          FileSaver.fingerprint(info, expected.contentHash) != expected
        {
          throw QuireError(
            .fileChangedOnDisk,
            "Cannot save \(QuireError.name(url)): someone else saved it just now. Resolve the conflict first (keep mine, take theirs, keep both or merge).",
            url: url)
        }
      }
      var versioningError: QuireError?
      // Only what this save replaces is kept: a file before a file, a package before a package.
      // A file's replaced content is handed to the store by the safe save itself, after the
      // swap (no second copy of it is written); a package is kept before it is replaced.
      var keeper: ReplacedVersionKeeper?
      if let versions, contents.value.isSameKind(as: FileSaver.resolvedTarget(of: url)) {
        if contents.value.isFile {
          keeper = ReplacedVersionKeeper(store: versions)
        } else {
          do { try versions.keepVersion(of: FileSaver.resolvedTarget(of: url)) } catch let error as QuireError {
            versioningError = error
          } catch {
            versioningError = QuireError(.systemCallFailed, "Cannot keep a version of \(QuireError.name(url)).", url: url, cause: error)
          }
        }
      }
      let result = try contents.value.write(to: url, original: original, options: options, keeper: keeper)
      return (result, versioningError ?? keeper?.error)
    }
  }

  // MARK: Saving

  /// Saves the document to its own file (``SaveOperation/saveOperation``).
  ///
  /// - Throws: ``QuireError/Code/invalidArgument`` for an untitled document (``isUntitled``),
  ///   which has no file to save to: save it as a file first.
  public func save() async throws {
    if isUntitled {
      throw QuireError(
        .invalidArgument, "\(localizedName) is untitled: it has no file yet. Save it as a file first (save as, or name its file).", url: nil)
    }
    try await save(to: fileURL, ofType: contentType, for: .saveOperation)
  }

  /// Writes the document safely (see ``FileSaver``).
  ///
  /// Saving over its own file first checks that nobody else changed it since it was read or
  /// saved: if the document is clean it reloads instead, and if it is dirty it goes
  /// ``State/inConflict`` and throws ``QuireError/Code/fileChangedOnDisk``.
  ///
  /// - Parameters:
  ///   - url: Where to write. For ``SaveOperation/saveOperation`` this is ``fileURL``.
  ///   - type: The type to write; `nil` keeps ``contentType``.
  ///   - operation: Save, save as (the document moves to `url`) or save to (a copy).
  /// - Throws: ``QuireError`` naming the file and the step that failed. The file on disk is
  ///   then unchanged, the document keeps its edits and stays dirty, and its state gains
  ///   ``State/savingError``.
  public func save(to url: URL, ofType type: UTType? = nil, for operation: SaveOperation) async throws {
    guard !documentState.contains(.closed) else {
      throw QuireError(.invalidArgument, "\(QuireError.name(fileURL)) is closed. Open it before saving.", url: fileURL)
    }
    let target = url.standardizedFileURL
    let writesOwnFile = target == fileURL
    savesInProgress += 1
    defer {
      savesInProgress -= 1
      if savesInProgress == 0 && changeNoticedDuringSave {
        changeNoticedDuringSave = false
        presentedItemDidChange()
      }
    }
    if writesOwnFile, fileFingerprint != nil, operation != .saveToOperation {
      if documentState.contains(.inConflict) {
        throw QuireError(
          .fileChangedOnDisk,
          "Cannot save \(QuireError.name(fileURL)): it changed on disk. Resolve the conflict first (keep mine, take theirs, keep both or merge).",
          url: fileURL)
      }
      switch try await checkForChangesOnDisk() {
      case .unchanged, .deleted: break
      case .reloaded: return  // clean, and the file now holds someone else's newer version
      case .conflict:
        throw QuireError(
          .fileChangedOnDisk,
          "Cannot save \(QuireError.name(fileURL)): someone else changed it on disk. Resolve the conflict first (keep mine, take theirs, keep both or merge).",
          url: fileURL)
      }
    }
    if isReadOnlyVersion {
      throw QuireError(
        .permissionDenied, "This is a kept version of \(QuireError.name(fileURL)), open read-only. Restore it into the document to save it.", url: fileURL)
    }
    let saveType = try type ?? contentType ?? resolvedType()
    let contents = try storedContents(forType: saveType)
    let countAtSnapshot = changeCount
    let undoHistory = operation == .saveToOperation ? nil : undoHistorySnapshot()
    isSaving = true
    defer { isSaving = false }
    let result: SaveResult
    do {
      (result, lastVersioningError) = try await Self.write(
        Handoff(contents), to: target, original: writesOwnFile && fileFingerprint != nil ? fileURL : nil,
        expected: writesOwnFile && operation != .saveToOperation ? fileFingerprint : nil, options: saveOptions,
        versions: versionStore, access: fileAccess)
    } catch let error as QuireError where error.code == .fileChangedOnDisk {
      // Saved by someone else between the check above and the write: the same as a conflict
      // found by the check (or a reload, when there is nothing unsaved here).
      _ = try? await checkForChangesOnDisk()
      throw error
    } catch let error as QuireError {
      lastSaveError = error
      documentState.insert(.savingError)
      throw error
    }
    // The copy written is back in this actor's hands: its files are the tree's files now.
    if case .package(let written) = contents { written.handWrittenSourcesBack() }
    lastSaveError = nil
    documentState.remove(.savingError)
    guard operation != .saveToOperation else { return }
    if !writesOwnFile { fileRecoveryStore?.remove(for: fileURL) }
    isUntitled = false
    fileURL = target
    if !writesOwnFile && isPresenting { startPresenting() }
    contentType = saveType
    fileFingerprint = result.fingerprint
    reportedFileMissing = false
    savedChangeCount = countAtSnapshot
    savedVersionUnreachable = false
    if changeCount == countAtSnapshot {
      hasUnautosavedChanges = false
      fileRecoveryStore?.remove(for: fileURL)
    }
    documentDidSave(operation)
    if let undoHistory { storeUndoHistory(undoHistory) }
  }

  /// Reads the document's file again, dropping unsaved changes and the undo history.
  ///
  /// - Throws: ``QuireError`` when the file cannot be read; the document stays as it was.
  public func revertToSaved() async throws {
    try await revert(toContentsOf: fileURL)
  }

  /// Reads the document from `url`, which becomes its file, dropping unsaved changes and the
  /// undo history (UIDocument's `revert(toContentsOf:)`).
  public func revert(toContentsOf url: URL) async throws {
    guard !documentState.contains(.closed) else { return try await open() }
    let type = try resolvedType()
    let previous = fileURL
    fileURL = url.standardizedFileURL
    let fingerprint: FileFingerprint
    let contents: StoredContents
    do {
      (fingerprint, contents) = try await readFile()
      try load(contents, type: type)
    } catch {
      fileURL = previous
      throw error
    }
    finishReverting(fingerprint: fingerprint)
    if previous != fileURL && isPresenting { startPresenting() }
  }

  // MARK: Autosave

  private func scheduleAutosave() {
    guard let policy = autosavePolicy, !documentState.contains(.closed) else { return }
    let now = ContinuousClock.now
    idleDeadline = now + policy.idleDelay
    if intervalDeadline == nil { intervalDeadline = now + policy.maximumInterval }
    guard autosaveTask == nil else { return }
    autosaveTask = Task { [weak self] in
      // Holds the document only to read the deadline, never while sleeping, so a dropped
      // document is not kept alive by its timer. Edits move the idle deadline; the loop follows.
      while true {
        guard let due = self?.autosaveDueDate else { return }
        if ContinuousClock.now >= due { break }
        do { try await Task.sleep(until: due) } catch { return }
      }
      await self?.autosaveFromTimer()
    }
  }

  private var autosaveDueDate: ContinuousClock.Instant? {
    guard let idle = idleDeadline, let interval = intervalDeadline else { return nil }
    return min(idle, interval)
  }

  private func autosaveFromTimer() async {
    autosaveTask = nil
    idleDeadline = nil
    intervalDeadline = nil
    // A save under way leaves the autosave to later: edits made during it still need one.
    if isSaving {
      scheduleAutosave()
      return
    }
    do {
      try await autosave()
      lastAutosaveError = nil
    } catch let error as QuireError {
      lastAutosaveError = error
    } catch {}
  }

  private func cancelAutosave() {
    autosaveTask?.cancel()
    autosaveTask = nil
    idleDeadline = nil
    intervalDeadline = nil
  }

  /// Autosaves now: to the document's own file when ``autosavesInPlace``, else to its
  /// recovery file (removed instead when the document is back at its saved state). Does
  /// nothing when there is nothing new to autosave.
  ///
  /// A crash's version still offered as ``recoveredVersion`` is never overwritten: the edits
  /// made meanwhile are autosaved once it is restored or discarded, so the person can still
  /// choose it (read it from its file at any time before).
  public func autosave() async throws {
    // One at a time: a caller that finds one under way waits for it, then looks again.
    while isAutosaving { await withCheckedContinuation { autosaveWaiters.append($0) } }
    isAutosaving = true
    defer {
      isAutosaving = false
      let waiters = autosaveWaiters
      autosaveWaiters = []
      for waiter in waiters { waiter.resume() }
    }
    try await autosaveOnce()
  }

  private func autosaveOnce() async throws {
    // An untitled document has nowhere to autosave: no file, and no recovery file for one.
    guard hasUnautosavedChanges, !isUntitled, !documentState.contains(.closed), !isSaving else { return }
    if autosavesInPlace {
      try await save(to: fileURL, ofType: contentType, for: .autosaveInPlaceOperation)
      return
    }
    guard let recoveryStore = fileRecoveryStore, recoveredVersion == nil else { return }
    if !hasUnsavedChanges && recoveredVersion == nil {
      // Back at the saved state (undone, or edited back): there is nothing to recover, and an
      // earlier autosave of the edits would offer them after a crash. A version a crash left
      // and not yet restored or discarded stays.
      recoveryStore.remove(for: fileURL)
      hasUnautosavedChanges = false
      return
    }
    let type = try contentType ?? resolvedType()
    // Recovery files are single files: a package autosaves only what it says it can.
    guard let data = try recoveryContents(forType: type) else { return }
    let countAtSnapshot = changeCount
    let documentURL = fileURL
    let typeName = contentType?.identifier
    try await Task.detached {
      try recoveryStore.write(data, for: documentURL, type: typeName)
    }.value
    // The file moved while the write ran (presentedItemDidMove found nothing yet to move).
    if fileURL != documentURL { try recoveryStore.move(from: documentURL, to: fileURL) }
    if changeCount == countAtSnapshot { hasUnautosavedChanges = false }
  }

  /// Loads the ``recoveredVersion`` into the document as unsaved changes.
  ///
  /// - Throws: ``QuireError`` when the recovery file cannot be read; nothing changes.
  public func restoreRecoveredVersion() throws {
    guard let recoveredVersion else { return }
    let data: Data
    do { data = try Data(contentsOf: recoveredVersion.url) } catch {
      throw QuireError(.fileMissing, "Cannot read the recovered version of \(QuireError.name(fileURL)).", url: recoveredVersion.url)
    }
    try readRecoveryContents(data, ofType: try resolvedType())
    undoManager.removeAllSteps()
    updateChangeCount(.done)
    self.recoveredVersion = nil
  }

  /// Loads the ``recoveredVersion`` into the document as one undoable change named
  /// `actionName` (undo puts back what the document held): what an editor that keeps its
  /// history offers instead of ``restoreRecoveredVersion()``. The edits are the document's
  /// from then on, unsaved, and its next autosave keeps them.
  ///
  /// - Throws: ``QuireError`` when the document is not editable or the recovery file cannot
  ///   be read as the document's type; nothing changes.
  public func restoreRecoveredVersion(asChangeNamed actionName: String) throws {
    guard let recoveredVersion else { return }
    try checkEditable()
    let data = try recoveredVersion.contents()
    let type = try resolvedType()
    try loadUndoably(named: actionName) { try readRecoveryContents(data, ofType: type) }
    self.recoveredVersion = nil
  }

  /// Drops the ``recoveredVersion`` and its file.
  public func discardRecoveredVersion() {
    fileRecoveryStore?.remove(for: fileURL)
    recoveredVersion = nil
  }

  // MARK: Changes on disk

  /// Compares the file on disk with what the document last read or saved, and acts: a clean
  /// document reloads, a dirty one goes ``State/inConflict`` (see ``conflictVersion``).
  ///
  /// Same size and content hash is no change, whatever the modification time or inode.
  ///
  /// Checks run one at a time: one asked for while another runs (a presenter message during a
  /// save's check) waits for it and then looks again.
  @discardableResult
  public func checkForChangesOnDisk() async throws -> DiskChange {
    try await checkForChangesOnDisk(unlessSaving: false)
  }

  /// With `unlessSaving` (a presenter's notice), a check that would run while a save is under
  /// way is left to the end of the save: the save's own write would otherwise look like
  /// someone else's change.
  private func checkForChangesOnDisk(unlessSaving: Bool) async throws -> DiskChange {
    let previous = diskCheck
    let check = Task {
      _ = try? await previous?.value
      if unlessSaving && self.savesInProgress > 0 {
        self.changeNoticedDuringSave = true
        return DiskChange.unchanged
      }
      return try await self.compareWithDisk()
    }
    diskCheck = check
    defer { if diskCheck == check { diskCheck = nil } }
    return try await check.value
  }

  private func compareWithDisk() async throws -> DiskChange {
    // An untitled document has no file to compare with.
    if isUntitled { return .unchanged }
    // The file is read while the document goes on (the reads suspend): a save, a resolved
    // conflict or a revert in between gives the document a new known version, and what was
    // read is then compared again with that one (compared with the version known before, the
    // document's own resolved or saved version looked like someone else's change).
    while true {
      guard !documentState.contains(.closed), let known = fileFingerprint else { return .unchanged }
      switch try await compareWithDisk(known: known) {
      case .some(let change): return change
      case .none: continue
      }
    }
  }

  /// One comparison with `known`; `nil` when the document's known version changed during the
  /// reads (``fileVersionGeneration``), to be compared again.
  private func compareWithDisk(known: FileFingerprint) async throws -> DiskChange? {
    let basis = fileVersionGeneration
    // A regular file is first only hashed, a megabyte at a time: the usual answer is
    // "unchanged", and a large file is then never held twice.
    if let type = try? resolvedType(), !isPackageType(type),
      let current = try? await fileAccess.coordinate(readingItemAt: fileURL, { url in try FileReader.fingerprint(url) }),
      current.hasSameContent(as: known)
    {
      guard basis == fileVersionGeneration else { return nil }
      fileFingerprint = current  // a touch or an identical rewrite: remember the new identity
      reportedFileMissing = false
      return .unchanged
    }
    guard basis == fileVersionGeneration else { return nil }
    let fingerprint: FileFingerprint
    let contents: StoredContents
    do {
      (fingerprint, contents) = try await readFile()
    } catch let error as QuireError where error.code == .fileMissing {
      guard basis == fileVersionGeneration else { return nil }
      savedVersionUnreachable = true
      if !reportedFileMissing {
        reportedFileMissing = true
        notifyFile(.changedOnDisk(.deleted))
      }
      return .deleted
    }
    guard basis == fileVersionGeneration else { return nil }
    reportedFileMissing = false
    if fingerprint.hasSameContent(as: known) {
      fileFingerprint = fingerprint  // a touch or an identical rewrite: remember the new identity
      return .unchanged
    }
    if let conflictVersion, conflictVersion.fingerprint.hasSameContent(as: fingerprint) { return .conflict }
    if !hasUnsavedChanges {
      let stateBefore = persistsUndoHistory ? undoHistoryState() : nil
      try load(contents, type: try resolvedType())
      fileFingerprint = fingerprint
      keepUndoHistoryAcrossReload(from: stateBefore)
      updateChangeCount(.cleared)
      documentDidReadFromDisk()
      notifyFile(.changedOnDisk(.reloaded))
      return .reloaded
    }
    if case .file(let data) = contents {
      conflictVersion = ConflictVersion(contents: data, fingerprint: fingerprint, detectionDate: Date())
    } else {
      conflictVersion = ConflictVersion(contents: Data(), fingerprint: fingerprint, detectionDate: Date())
    }
    conflictContents = contents
    documentState.insert(.inConflict)
    if let conflictVersion { ConflictBoard.shared.offer(conflictVersion, of: self) }
    notifyFile(.changedOnDisk(.conflict))
    return .conflict
  }

  /// Settles ``State/inConflict``.
  ///
  /// - Returns: Where ``ConflictResolution/keepBoth`` put the other version, and how many
  ///   conflicts ``ConflictResolution/merge`` marked.
  /// - Throws: ``QuireError`` when there is no conflict, or the resolution's read, write or
  ///   merge fails (the conflict then stays).
  @discardableResult
  public func resolveConflict(_ resolution: ConflictResolution) async throws -> ConflictOutcome {
    guard let theirs = conflictVersion, let theirContents = conflictContents else {
      throw QuireError(.invalidArgument, "\(QuireError.name(fileURL)) is not in conflict.", url: fileURL)
    }
    var outcome = ConflictOutcome(copyURL: nil, mergeConflicts: 0)
    switch resolution {
    case .keepMine:
      break
    case .takeTheirs:
      try load(theirContents, type: try resolvedType())
      undoManager.removeAllSteps()
      updateChangeCount(.cleared)
      documentDidReadFromDisk()
    case .keepBoth:
      let copy = conflictedCopyURL(date: theirs.detectionDate)
      let options = SaveOptions(syncsParentDirectory: saveOptions.syncsParentDirectory, requiresNewFile: true)
      _ = try await Self.write(Handoff(theirContents), to: copy, original: nil, expected: nil, options: options, versions: nil, access: fileAccess)
      outcome.copyURL = copy
    case .merge, .mergeUnlessOverlapping:
      guard case .file(let data) = theirContents else {
        throw QuireError(
          .unsupportedType, "\(QuireError.name(fileURL)) is a package and cannot be merged. Choose keep mine, take theirs or keep both.", url: fileURL)
      }
      if resolution == .mergeUnlessOverlapping, let overlaps = try overlappingEdits(with: data), overlaps > 0 {
        // Nothing merged: the conflict stays, for the caller to settle another way.
        return ConflictOutcome(copyURL: nil, mergeConflicts: overlaps)
      }
      outcome.mergeConflicts = try merge(with: data, ofType: try resolvedType()).conflicts
    }
    fileFingerprint = theirs.fingerprint
    conflictVersion = nil
    conflictContents = nil
    ConflictBoard.shared.remove(for: self)
    documentState.remove(.inConflict)
    return outcome
  }

  /// How many of the document's edits overlap `theirs` in a three-way merge, without
  /// merging; `nil` when the document does not merge. ``PlainTextDocument`` overrides it.
  func overlappingEdits(with theirs: Data) throws -> Int? { nil }

  /// Settles the conflict keeping the document's edits, or taking the other version, without
  /// waiting: what `NSFileVersion`'s `isResolved` and `replaceItem(at:)` do.
  func settleConflict(takingTheirs: Bool) throws {
    guard let theirs = conflictVersion, let theirContents = conflictContents else { return }
    if takingTheirs {
      try load(theirContents, type: try resolvedType())
      undoManager.removeAllSteps()
      updateChangeCount(.cleared)
      documentDidReadFromDisk()
    }
    fileFingerprint = theirs.fingerprint
    conflictVersion = nil
    conflictContents = nil
    ConflictBoard.shared.remove(for: self)
    documentState.remove(.inConflict)
  }

  /// "notes (conflicted copy 2026-11-22).md" beside the file, numbered when taken.
  func conflictedCopyURL(date: Date) -> URL {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = .current
    let parts = calendar.dateComponents([.year, .month, .day], from: date)
    let day = String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    let folder = fileURL.deletingLastPathComponent()
    let ext = fileURL.pathExtension
    for n in 1...1000 {
      let suffix = n == 1 ? "" : " \(n)"
      let name = "\(localizedName) (conflicted copy \(day)\(suffix))" + (ext.isEmpty ? "" : ".\(ext)")
      let candidate = folder.appendingPathComponent(name)
      if !FileManager.default.fileExists(atPath: candidate.path) { return candidate }
    }
    return folder.appendingPathComponent("\(localizedName) (conflicted copy \(day) \(UUID().uuidString))" + (ext.isEmpty ? "" : ".\(ext)"))
  }

  // MARK: Versions

  private func requireVersionStore() throws(QuireError) -> VersionStore {
    guard let versionStore else {
      throw QuireError(
        .invalidArgument, "\(QuireError.name(fileURL)) keeps no versions: it has no version store. Open it through a DocumentController, or set versionStore.",
        url: fileURL)
    }
    return versionStore
  }

  /// The versions kept of the document's file, oldest first: one per save, holding what the
  /// file had before that save. Also listed after the file was deleted.
  ///
  /// - Throws: ``QuireError`` when there is no ``versionStore`` or its index is damaged.
  public func versions() throws -> [FileVersion] {
    if isUntitled { return [] }
    return try requireVersionStore().versions(ofItemAt: FileSaver.resolvedTarget(of: fileURL))
  }

  /// Opens `version` as a separate read-only document of the same class: same file URL and
  /// type, editing disabled, ``isReadOnlyVersion`` set (saving it is refused), no autosave,
  /// recovery or versions. Read its contents as the document's own (its text, its pages).
  ///
  /// - Throws: ``QuireError`` when the version's stored content is gone or cannot be read as
  ///   this document's type.
  public func openVersion(_ version: FileVersion) throws -> Document {
    let contents = try requireVersionStore().storedContents(of: version)
    let type = try resolvedType()
    let copy = Swift.type(of: self).init(fileURL: fileURL, contentType: type)
    copy.autosavePolicy = nil
    copy.recoveryStore = nil
    copy.typeRegistry = typeRegistry
    try copy.load(contents, type: type)
    copy.isReadOnlyVersion = true
    copy.documentState = .editingDisabled
    copy.undoManager.removeAllSteps()
    copy.updateChangeCount(.cleared)
    return copy
  }

  /// Replaces the document's contents with `version`'s, as one undoable change named
  /// "Restore Version": undo puts back what the document held, redo restores again. The
  /// file changes only when the document is saved (and that save keeps the file's content
  /// as a version too).
  ///
  /// - Throws: ``QuireError`` when the document is not editable, has no ``versionStore``,
  ///   or the version cannot be read as the document's type; the document is then unchanged.
  public func restoreVersion(_ version: FileVersion) throws {
    try checkEditable()
    let contents = try requireVersionStore().storedContents(of: version)
    let type = try resolvedType()
    try loadUndoably(named: "Restore Version") { try load(contents, type: type) }
  }

  /// Puts `state` back and registers the way back to the current state (undo and redo of a
  /// restore).
  private func swapState(to state: Any) {
    guard let current = try? stateForUndoingRestore(), (try? restoreState(forUndoingRestore: state)) != nil else { return }
    undoManager.registerUndo(withTarget: self) { document in document.swapState(to: current) }
  }

  // MARK: Presenter callbacks (the coordination seam)

  /// The file this document presents (NSFilePresenter's `presentedItemURL`).
  public var presentedItemURL: URL? { documentState.contains(.closed) ? nil : fileURL }

  /// Tells the document its file was deleted (NSFilePresenter's
  /// `accommodatePresentedItemDeletion`): it keeps its contents, which now count as unsaved.
  open func accommodatePresentedItemDeletion() {
    savedVersionUnreachable = true
  }

  /// NSFilePresenter's `accommodatePresentedItemDeletion(completionHandler:)`, which the
  /// registered ``filePresenter`` calls: the default runs ``accommodatePresentedItemDeletion()``
  /// and answers. A subclass that overrides it calls `super` or answers itself.
  open func accommodatePresentedItemDeletion(completionHandler: @escaping ((any Error)?) -> Void) {
    accommodatePresentedItemDeletion()
    completionHandler(nil)
  }

  /// Tells the document its file was changed by someone else (NSFilePresenter's
  /// `presentedItemDidChange`): it starts a check of the file, which reloads a clean document
  /// or puts a dirty one in conflict (``checkForChangesOnDisk()``, whose outcome the file
  /// observers hear). The registered ``filePresenter`` calls it; a subclass that overrides it
  /// calls `super`.
  open func presentedItemDidChange() {
    Task { _ = try? await self.checkForChangesOnDisk(unlessSaving: true) }
  }

  /// Tells the document its file moved (NSFilePresenter's `presentedItemDidMove(to:)`).
  ///
  /// The document follows its file. So does its recovery file (``recoveryStore``): the last
  /// autosave of unsaved changes, or a crash's version not yet restored or discarded
  /// (``recoveredVersion``), is found under the new name after a crash. When the recovery
  /// file cannot be moved it stays under the old name, and the next autosave writes one
  /// under the new name.
  open func presentedItemDidMove(to newURL: URL) {
    let old = fileURL
    fileURL = newURL.standardizedFileURL
    filePresenter.setURL(isPresenting ? fileURL : nil)
    guard old != fileURL else { return }
    if let recoveryStore = fileRecoveryStore {
      do {
        let moved = try recoveryStore.move(from: old, to: fileURL)
        if recoveredVersion != nil { recoveredVersion = moved }
      } catch {
        // Kept under the old name, so nothing is lost; the next autosave writes the edits again.
        if hasUnsavedChanges { hasUnautosavedChanges = true }
      }
    }
    notifyFile(.moved(from: old, to: fileURL))
  }

  /// Asks the document to save before another process reads or moves its file
  /// (NSFilePresenter's `savePresentedItemChanges`). Saves only when it has unsaved changes
  /// and autosaves in place or ``savesWhenOtherProcessesAsk``; otherwise the other process
  /// sees the last saved version.
  open func savePresentedItemChanges() async throws {
    if hasUnsavedChanges && (autosavesInPlace || savesWhenOtherProcessesAsk) { try await save() }
  }

  /// NSFilePresenter's `savePresentedItemChanges(completionHandler:)`, which the registered
  /// ``filePresenter`` calls: the default runs ``savePresentedItemChanges()`` and answers with
  /// its error, if any.
  open func savePresentedItemChanges(completionHandler: @escaping ((any Error)?) -> Void) {
    Task {
      do {
        try await self.savePresentedItemChanges()
        completionHandler(nil)
      } catch {
        completionHandler(error)
      }
    }
  }

  /// NSFilePresenter's `relinquishPresentedItem(toReader:)`: another process is about to
  /// read. The default lets it read at once; a subclass that pauses its own access calls
  /// `reader` when ready, passing what to run when the reader is done.
  open func relinquishPresentedItem(toReader reader: @escaping ((() -> Void)?) -> Void) { reader(nil) }

  /// NSFilePresenter's `relinquishPresentedItem(toWriter:)`: another process is about to
  /// write. The default lets it write at once.
  open func relinquishPresentedItem(toWriter writer: @escaping ((() -> Void)?) -> Void) { writer(nil) }
}
