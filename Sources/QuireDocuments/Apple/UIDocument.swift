// Apple's document classes by their own names and subclassing points. Compatibility surface:
// see the "Porting from Apple's frameworks" article.
public import Foundation
import QuireSystem
public import QuireTypes
import SystemPackage

/// UIKit's `UIDocument`, as a ``Document`` whose subclasses override Apple's points with
/// `String` type names: ``contents(forType:)-(String)`` returning `Data` or a ``FileWrapper``
/// as `Any`, and ``load(fromContents:ofType:)``. Opening, saving and closing have Apple's
/// completion-handler forms (called on the main actor) and `async -> Bool` forms; the state
/// changes are also posted as ``stateChangedNotification``.
///
/// It is a ``Document`` underneath: safe saves, coordination (it presents its file while
/// open), conflicts (also as ``NSFileVersion``), autosave, versions and its ``undoManager``.
///
/// A contents of `FileWrapper` type is saved as a package (a folder) only when the document's
/// type conforms to `com.apple.package` (declare your type so, as in an app's Info.plist);
/// otherwise a regular-file wrapper's bytes are written.
///
/// As in UIKit, `open()`, `close()`, `save(to:for:)` and `revert(toContentsOf:)` without a
/// completion handler are the `async -> Bool` forms (`let ok = await document.open()`, `if
/// await document.open()`, or alone), in any async context, top-level code included; they run
/// through the completion-handler forms, so an override of those is honoured. The
/// completion-handler forms take the handler (pass `nil` for none): Swift resolves a call
/// without one at top level to a synchronous form when one matches, which would make
/// `let ok = await document.open()` a `()`. Quire's throwing forms stay reachable through
/// ``Document`` (`try await (document as Document).open()`), or ``lastError`` says why one
/// failed.
///
/// Main-actor isolated, and `@preconcurrency` as UIKit's imported class is: Swift 5 code that
/// touches a document off the main actor gets warnings, Swift 6 code errors.
@preconcurrency @MainActor
open class UIDocument: Document {
  /// Posted on `NotificationCenter.default` (object: the document) each time
  /// ``Document/documentState`` changes, as UIKit's.
  public static let stateChangedNotification = Notification.Name("UIDocumentStateChangedNotification")

  /// What a save does (UIKit's `UIDocument.SaveOperation`).
  public enum SaveOperation: Sendable, Hashable {
    /// Writes a new file at the URL; it must not exist.
    case forCreating
    /// Writes over the document's file.
    case forOverwriting
  }

  /// UIKit's `UIDocument.ChangeKind` spellings (`.done`, `.undone`, `.redone`, `.cleared`).
  public typealias ChangeKind = Document.ChangeKind
  /// UIKit's `UIDocument.State` (`.normal`, `.closed`, `.inConflict`, `.savingError`,
  /// `.editingDisabled`).
  public typealias State = Document.State

  /// Makes a closed document for the file at `url` (UIKit's designated initializer); open it
  /// with ``open(completionHandler:)`` or `await open()`. A subclass overrides it
  /// (`override init(fileURL: URL)`) or writes none and inherits it.
  public init(fileURL url: URL) {
    super.init(fileURL: url, contentType: nil)
    addStateObserver { [weak self] _ in
      guard let self else { return }
      NotificationCenter.default.post(name: UIDocument.stateChangedNotification, object: self)
    }
  }

  /// Makes a document of a known type: what ``DocumentController`` uses to make documents by
  /// class. It runs ``init(fileURL:)`` (so a subclass's override of it), then sets the type;
  /// subclasses inherit it without writing it.
  public required convenience init(fileURL url: URL, contentType: UTType?) {
    self.init(fileURL: url)
    if let contentType { self.contentType = contentType }
  }

  // MARK: Subclassing points (String type names)

  /// The document's contents for saving: `Data` for a file, a ``FileWrapper`` for a package.
  /// Override; the default refuses.
  ///
  /// - Parameter typeName: The type identifier, e.g. `"public.plain-text"`.
  open func contents(forType typeName: String) throws -> Any {
    throw QuireError(.notImplemented, "\(Self.self) does not override contents(forType:) (String).")
  }

  /// Loads the document from `contents`: `Data` for a file, a ``FileWrapper`` for a package.
  /// Override; the default refuses.
  open func load(fromContents contents: Any, ofType typeName: String?) throws {
    throw QuireError(.notImplemented, "\(Self.self) does not override load(fromContents:ofType:).")
  }

  open override func read(from data: Data, ofType type: UTType) throws {
    try load(fromContents: data, ofType: type.identifier)
  }

  open override func read(from fileWrapper: FileWrapper, ofType type: UTType) throws {
    try load(fromContents: fileWrapper.isRegularFile ? try fileWrapper.contents() : fileWrapper, ofType: type.identifier)
  }

  open override func contents(forType type: UTType) throws -> Data {
    switch try contents(forType: type.identifier) {
    case let data as Data:
      return data
    case let data as NSData:
      return Data(referencing: data)
    case let wrapper as FileWrapper where wrapper.isRegularFile:
      return try wrapper.contents()
    case is FileWrapper:
      throw QuireError(
        .unsupportedType,
        "\(Self.self) returned a folder for \(QuireError.name(fileURL)), whose type \(type.identifier) is not a package. Declare the type as conforming to com.apple.package.",
        url: fileURL)
    case let other:
      throw QuireError(.invalidContent, "\(Self.self).contents(forType:) returned \(Swift.type(of: other)); return Data or a FileWrapper.", url: fileURL)
    }
  }

  open override func fileWrapper(ofType type: UTType) throws -> FileWrapper {
    switch try contents(forType: type.identifier) {
    case let wrapper as FileWrapper: return wrapper
    case let data as Data: return FileWrapper(regularFileWithContents: data)
    case let data as NSData: return FileWrapper(regularFileWithContents: Data(referencing: data))
    case let other:
      throw QuireError(.invalidContent, "\(Self.self).contents(forType:) returned \(Swift.type(of: other)); return Data or a FileWrapper.", url: fileURL)
    }
  }

  // MARK: Apple's spellings of the life cycle

  /// The document's type identifier (UIKit's `fileType`), from ``Document/contentType``.
  /// Overridable, as UIKit's: an override names the type saves write.
  open var fileType: String? { contentType?.identifier }

  /// The type a save writes (UIKit's `savingFileType`); by default ``fileType``.
  open var savingFileType: String? { fileType }

  /// The filename extension for saving as `typeName` (UIKit's
  /// `fileNameExtension(forType:saveOperation:)`): the type's preferred extension in the
  /// registry, or nil for a type without one.
  open func fileNameExtension(forType typeName: String?, saveOperation: SaveOperation) -> String {
    guard let typeName, let type = typeRegistry.type(withIdentifier: typeName) else { return fileURL.pathExtension }
    return type.preferredFilenameExtension ?? fileURL.pathExtension
  }

  /// When the file was last modified (UIKit's `fileModificationDate`). Until set, it is the
  /// file's `mtime` (nil when the file does not exist); a value set (as UIKit's
  /// `writeContents` callers do) is returned until the next set. Overridable.
  open var fileModificationDate: Date? {
    get {
      if let modificationDateSet { return modificationDateSet }
      guard case .success(let info) = SystemCalls.stat(FilePath(fileURL.path)) else { return nil }
      return Date(timeIntervalSince1970: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)
    }
    set { modificationDateSet = newValue }
  }
  private var modificationDateSet: Date?

  /// Progress of a load or save (UIKit's `progress`). Quire's loads and saves are not
  /// reported with `Progress`, so it stays nil and ``Document/State/progressAvailable`` is
  /// never set; overridable.
  open var progress: Progress? { nil }

  /// Opens the document, then calls `completionHandler` with whether it worked. Overridable,
  /// as UIKit's; `await open()` runs through it.
  open func open(completionHandler: (@MainActor (Bool) -> Void)?) {
    Task {
      do {
        try await (self as Document).open()
        completionHandler?(true)
      } catch {
        self.handleError(error, userInteractionPermitted: false)
        completionHandler?(false)
      }
    }
  }

  /// Quire's throwing ``Document/open()``, disfavoured on Apple's classes so that
  /// `await document.open()` is UIKit's `Bool` form; reach it as `(document as Document).open()`.
  @_disfavoredOverload
  public override func open() async throws { try await super.open() }

  /// Quire's throwing ``Document/revert(toContentsOf:)``, disfavoured on Apple's classes so
  /// that `await document.revert(toContentsOf:)` is UIKit's `Bool` form.
  @_disfavoredOverload
  public override func revert(toContentsOf url: URL) async throws { try await super.revert(toContentsOf: url) }

  /// Opens the document; returns whether it worked (UIKit's `open() async -> Bool`). Why it
  /// failed goes to ``handleError(_:userInteractionPermitted:)`` (and ``lastError``).
  @discardableResult
  public func open() async -> Bool {
    await withCheckedContinuation { done in open { done.resume(returning: $0) } }
  }

  /// Saves when there are unsaved changes, then closes; calls `completionHandler` with
  /// whether it worked. A failed save leaves the document open. Overridable, as UIKit's;
  /// `await close()` runs through it.
  open func close(completionHandler: (@MainActor (Bool) -> Void)?) {
    Task {
      do {
        if self.hasUnsavedChanges && !self.documentState.contains(.closed) { try await self.save() }
        try await self.close(discardingChanges: true)
        completionHandler?(true)
      } catch {
        self.handleError(error, userInteractionPermitted: false)
        completionHandler?(false)
      }
    }
  }

  /// Saves when there are unsaved changes, then closes; returns whether it worked.
  @discardableResult
  public func close() async -> Bool {
    await withCheckedContinuation { done in close { done.resume(returning: $0) } }
  }

  /// Writes the document to `url`: `.forCreating` makes a new file there (the document, closed
  /// until now, is open afterwards, as UIKit's), `.forOverwriting` writes over its file.
  /// Overridable, as UIKit's; `await save(to:for:)` runs through it.
  open func save(to url: URL, for saveOperation: SaveOperation, completionHandler: (@MainActor (Bool) -> Void)?) {
    Task {
      do {
        switch saveOperation {
        case .forCreating:
          try await self.createNew(at: url)
        case .forOverwriting:
          if self.documentState.contains(.closed) { try await (self as Document).open() }
          let type = self.savingFileType.flatMap { self.typeRegistry.type(withIdentifier: $0) } ?? self.contentType
          try await self.save(to: url, ofType: type, for: url.standardizedFileURL == self.fileURL ? .saveOperation : .saveAsOperation)
        }
        completionHandler?(true)
      } catch {
        self.handleError(error, userInteractionPermitted: false)
        completionHandler?(false)
      }
    }
  }

  /// The async form of ``save(to:for:completionHandler:)``: returns whether it worked.
  @discardableResult
  public func save(to url: URL, for saveOperation: SaveOperation) async -> Bool {
    await withCheckedContinuation { done in save(to: url, for: saveOperation) { done.resume(returning: $0) } }
  }

  /// Autosaves when there are unsaved changes; calls `completionHandler` with whether it
  /// worked. Overridable, as UIKit's `autosave(completionHandler:)`.
  open func autosave(completionHandler: (@MainActor (Bool) -> Void)? = nil) {
    Task {
      do {
        if hasUnsavedChanges { try await save() }
        completionHandler?(true)
      } catch {
        self.handleError(error, userInteractionPermitted: false)
        completionHandler?(false)
      }
    }
  }

  /// Reads the file again, dropping unsaved changes; calls `completionHandler` with whether it
  /// worked. Overridable, as UIKit's; `await revert(toContentsOf:)` runs through it.
  open func revert(toContentsOf url: URL, completionHandler: (@MainActor (Bool) -> Void)?) {
    Task {
      do {
        try await (self as Document).revert(toContentsOf: url)
        completionHandler?(true)
      } catch {
        self.handleError(error, userInteractionPermitted: false)
        completionHandler?(false)
      }
    }
  }

  /// Reads the file at `url` again, dropping unsaved changes; returns whether it worked
  /// (UIKit's `revert(toContentsOf:) async -> Bool`). Why it failed goes to
  /// ``handleError(_:userInteractionPermitted:)`` (and ``lastError``).
  @discardableResult
  public func revert(toContentsOf url: URL) async -> Bool {
    await withCheckedContinuation { done in revert(toContentsOf: url) { done.resume(returning: $0) } }
  }

  /// Whether the document has unsaved changes (UIKit's spelling of ``Document/hasUnsavedChanges``).
  public var documentHasUnsavedChanges: Bool { hasUnsavedChanges }

  /// The error of the last failed open, save or close through Apple's forms, which report
  /// only `false`.
  public private(set) var lastError: (any Error)?

  /// Receives the error of a failed open, save or close through Apple's forms, as UIKit's
  /// `handleError(_:userInteractionPermitted:)`: override to present it (call `super`). The
  /// default keeps it in ``lastError``.
  open func handleError(_ error: any Error, userInteractionPermitted: Bool) {
    lastError = error
    finishedHandlingError(error, recovered: false)
  }

  /// Called when handling an error is done (UIKit's `finishedHandlingError(_:recovered:)`);
  /// the default does nothing. Overridable.
  open func finishedHandlingError(_ error: any Error, recovered: Bool) {}

  /// Called when the app can no longer interact with the user about an error (UIKit's
  /// `userInteractionNoLongerPermitted(forError:)`). Quire has no user interface to take
  /// away, so it is never called; overridable, as UIKit's.
  open func userInteractionNoLongerPermitted(forError error: any Error) {}
}

/// AppKit's `NSDocument`, as a ``UIDocument`` with AppKit's subclassing points:
/// ``data(ofType:)``, ``read(from:ofType:)-(Data,String)`` and
/// ``fileWrapper(ofType:)-(String)`` / ``read(from:ofType:)-(FileWrapper,String)`` with
/// `String` type names. Override either AppKit's or UIKit's points.
///
/// Its designated initialiser is AppKit's `init()` (subclasses write `override init()`);
/// ``init(fileURL:contentType:)`` is a convenience every subclass inherits, so
/// ``DocumentController`` still makes documents by class.
@preconcurrency @MainActor
open class NSDocument: UIDocument {
  /// An untitled document (AppKit's designated `init()`): its file is `Untitled` in the
  /// current folder until it is saved elsewhere with `save(to:ofType:for:)`, AppKit's
  /// "Save As".
  public init() {
    super.init(fileURL: URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("Untitled"))
  }

  /// Makes a closed document for the file at `fileURL`; call ``Document/open()`` to read it.
  public required convenience init(fileURL: URL, contentType: UTType?) {
    self.init()
    self.fileURL = fileURL.standardizedFileURL
    self.contentType = contentType
  }

  /// An untitled document of type `typeName` (AppKit's `init(type:)`).
  public convenience init(type typeName: String) throws {
    self.init()
    contentType = UTType(typeName)
  }

  /// Makes a document for `url` of type `typeName` and reads it, as AppKit's
  /// `init(contentsOf:ofType:)` does: the file's bytes go to ``read(from:ofType:)-(Data,String)``
  /// (through ``load(fromContents:ofType:)``) and the document is open. A package type is not
  /// read here (its tree is read by `await open()`), and the document stays closed.
  ///
  /// - Throws: ``QuireError`` naming the file when it cannot be read, or the subclass's error.
  public convenience init(contentsOf url: URL, ofType typeName: String) throws {
    self.init(fileURL: url, contentType: UTType(typeName))
    guard !(contentType.map(isPackageType) ?? false) else { return }
    let (fingerprint, data) = try FileFingerprint.read(at: self.fileURL)
    try open(contents: data, fingerprint: fingerprint)
  }

  /// AppKit's `init(for:withContentsOf:ofType:)`: a document for `url`, recovering from the
  /// autosaved contents at `contentsURL` when it differs.
  public convenience init(for url: URL?, withContentsOf contentsURL: URL, ofType typeName: String) throws {
    self.init(fileURL: url ?? contentsURL, contentType: UTType(typeName))
  }

  /// AppKit's `NSDocument.SaveOperationType`: save, save as, save to, autosave in place.
  public typealias SaveOperationType = Document.SaveOperation

  /// AppKit's `NSDocument.ChangeType`, for ``updateChangeCount(_:)-(ChangeType)``.
  public enum ChangeType: Sendable, Hashable {
    /// A change was made (`.done`).
    case changeDone
    /// A change was undone.
    case changeUndone
    /// An undone change was redone.
    case changeRedone
    /// The document was saved: no unsaved changes now.
    case changeCleared
    /// The document read other contents (a revert): no unsaved changes now.
    case changeReadOtherContents
    /// The document was autosaved: its changes are safe but still unsaved.
    case changeAutosaved
    /// A change that need not be saved (AppKit's `changeDiscardable`): counted as done.
    case changeDiscardable
  }

  /// Records a change (AppKit's `updateChangeCount(_:)` with `NSDocument.ChangeType`).
  open func updateChangeCount(_ change: ChangeType) {
    switch change {
    case .changeDone, .changeDiscardable: updateChangeCount(ChangeKind.done)
    case .changeUndone: updateChangeCount(ChangeKind.undone)
    case .changeRedone: updateChangeCount(ChangeKind.redone)
    case .changeCleared, .changeReadOtherContents: updateChangeCount(ChangeKind.cleared)
    case .changeAutosaved: break
    }
  }

  /// The filename extension for saving as `typeName` with AppKit's save operation (AppKit's
  /// `fileNameExtension(forType:saveOperation:)`): the type's preferred extension.
  open func fileNameExtension(forType typeName: String, saveOperation: SaveOperationType) -> String? {
    typeRegistry.type(withIdentifier: typeName)?.preferredFilenameExtension
  }

  /// Saves to `url` as `typeName` (AppKit's async `save(to:ofType:for:)`).
  ///
  /// - Throws: ``QuireError`` naming `url` when the save fails; the file is then as it was.
  public func save(to url: URL, ofType typeName: String, for saveOperation: SaveOperationType) async throws {
    try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
      save(to: url, ofType: typeName, for: saveOperation) { error in
        if let error { done.resume(throwing: error) } else { done.resume() }
      }
    }
  }

  /// Saves to `url` as `typeName` (AppKit's `save(to:ofType:for:completionHandler:)`); the
  /// handler gets nil or the error.
  open func save(to url: URL, ofType typeName: String, for saveOperation: SaveOperationType, completionHandler: @escaping @MainActor ((any Error)?) -> Void) {
    Task {
      do {
        try await self.save(to: url, ofType: UTType(typeName), for: saveOperation)
        completionHandler(nil)
      } catch {
        completionHandler(error)
      }
    }
  }

  /// The document's contents as bytes of `typeName`. Override (or override
  /// ``fileWrapper(ofType:)-(String)``); the default refuses.
  open func data(ofType typeName: String) throws -> Data {
    throw QuireError(.notImplemented, "\(Self.self) does not override data(ofType:).")
  }

  /// The document's contents as a file wrapper of `typeName`; the default wraps
  /// ``data(ofType:)``.
  open func fileWrapper(ofType typeName: String) throws -> FileWrapper {
    FileWrapper(regularFileWithContents: try data(ofType: typeName))
  }

  /// Loads the document from bytes of `typeName`. Override; the default refuses.
  open func read(from data: Data, ofType typeName: String) throws {
    throw QuireError(.notImplemented, "\(Self.self) does not override read(from:ofType:).")
  }

  /// Loads the document from a file wrapper; the default passes a regular file's bytes to
  /// ``read(from:ofType:)-(Data,String)``.
  open func read(from fileWrapper: FileWrapper, ofType typeName: String) throws {
    guard fileWrapper.isRegularFile else {
      throw QuireError(.unsupportedType, "\(Self.self) reads files, not packages; override read(from:ofType:) for file wrappers.")
    }
    try read(from: try fileWrapper.contents(), ofType: typeName)
  }

  open override func contents(forType typeName: String) throws -> Any {
    let type = UTType(typeName)
    return try type.map(isPackageType) == true ? fileWrapper(ofType: typeName) : data(ofType: typeName)
  }

  open override func load(fromContents contents: Any, ofType typeName: String?) throws {
    let name = typeName ?? fileType ?? "public.data"
    if let wrapper = contents as? FileWrapper {
      try read(from: wrapper, ofType: name)
    } else if let data = contents as? Data {
      try read(from: data, ofType: name)
    }
  }

  /// The document's file type as a `String` (AppKit's `fileType`, settable).
  open override var fileType: String? {
    get { contentType?.identifier }
    set { contentType = newValue.flatMap { UTType($0) } }
  }

  /// The document's file type as a `String` (``fileType``).
  public var fileTypeName: String? { fileType }

  /// Whether the document has unsaved changes (AppKit's `isDocumentEdited`).
  public var isDocumentEdited: Bool { hasUnsavedChanges }

  /// The title shown for the document (AppKit's `displayName`).
  public var displayName: String { localizedName }

  // MARK: AppKit's window controllers (no windows on Linux)

  /// AppKit's `makeWindowControllers()`: a document makes the windows that show it. Quire has
  /// no windows and never calls it; it stays overridable so that AppKit subclasses compile.
  open func makeWindowControllers() {}

  /// AppKit's `windowNibName`: the nib a document's window loads from. Never read by Quire.
  open var windowNibName: String? { nil }

  /// AppKit's `windowControllers`: the controllers ``addWindowController(_:)`` was given, kept
  /// so an app's bookkeeping still works; Quire shows no windows.
  open private(set) var windowControllers: [AnyObject] = []

  /// AppKit's `addWindowController(_:)`: keeps `windowController` in ``windowControllers``.
  open func addWindowController(_ windowController: AnyObject) {
    windowControllers.append(windowController)
  }

  /// AppKit's `removeWindowController(_:)`.
  open func removeWindowController(_ windowController: AnyObject) {
    windowControllers.removeAll { $0 === windowController }
  }

  /// AppKit's `windowControllerWillLoadNib(_:)`: never called by Quire (there is no nib).
  open func windowControllerWillLoadNib(_ windowController: AnyObject) {}

  /// AppKit's `windowControllerDidLoadNib(_:)`: never called by Quire (there is no nib).
  open func windowControllerDidLoadNib(_ windowController: AnyObject) {}

  /// AppKit's `showWindows()`: Quire has no windows, so it does nothing.
  open func showWindows() {}

  /// Whether autosave writes the document's own file (AppKit's class property): a subclass
  /// overrides it (`override class var autosavesInPlace: Bool { true }`) and its documents
  /// autosave in place.
  open class var autosavesInPlace: Bool { false }

  /// Whether this document autosaves in place: the class's ``autosavesInPlace`` or a value
  /// set on the instance.
  open override var autosavesInPlace: Bool {
    get { Self.autosavesInPlace || super.autosavesInPlace }
    set { super.autosavesInPlace = newValue }
  }
}
