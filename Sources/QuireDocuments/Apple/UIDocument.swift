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
/// As in UIKit, `open()` and `revert(toContentsOf:)` without a completion handler are the
/// `async -> Bool` forms (`let ok = await document.open()`, `if await document.open()`, or
/// alone); Quire's throwing forms stay reachable through ``Document``
/// (`try await (document as Document).open()`), or ``lastError`` says why one failed.
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

  public required init(fileURL: URL, fileType: UTType? = nil) {
    super.init(fileURL: fileURL, fileType: fileType)
    addStateObserver { [weak self] _ in
      guard let self else { return }
      NotificationCenter.default.post(name: UIDocument.stateChangedNotification, object: self)
    }
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

  /// When the file was last modified (its `mtime`), or nil when it does not exist.
  public var fileModificationDate: Date? {
    guard case .success(let info) = SystemCalls.stat(FilePath(fileURL.path)) else { return nil }
    return Date(timeIntervalSince1970: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)
  }

  /// Opens the document, then calls `completionHandler` with whether it worked.
  public func open(completionHandler: (@MainActor (Bool) -> Void)? = nil) {
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
    do {
      try await (self as Document).open()
      return true
    } catch {
      handleError(error, userInteractionPermitted: false)
      return false
    }
  }

  /// Saves when there are unsaved changes, then closes; calls `completionHandler` with
  /// whether it worked. A failed save leaves the document open.
  public func close(completionHandler: (@MainActor (Bool) -> Void)? = nil) {
    Task { completionHandler?(await self.close()) }
  }

  /// Saves when there are unsaved changes, then closes; returns whether it worked.
  public func close() async -> Bool {
    do {
      if hasUnsavedChanges && !documentState.contains(.closed) { try await save() }
      try await close(discardingChanges: true)
      return true
    } catch {
      handleError(error, userInteractionPermitted: false)
      return false
    }
  }

  /// Writes the document to `url`: `.forCreating` makes a new file there (the document, closed
  /// until now, is open afterwards, as UIKit's), `.forOverwriting` writes over its file.
  public func save(to url: URL, for saveOperation: SaveOperation, completionHandler: (@MainActor (Bool) -> Void)? = nil) {
    Task { completionHandler?(await self.save(to: url, for: saveOperation)) }
  }

  /// The async form of ``save(to:for:completionHandler:)``.
  public func save(to url: URL, for saveOperation: SaveOperation) async -> Bool {
    do {
      switch saveOperation {
      case .forCreating:
        try await createNew(at: url)
      case .forOverwriting:
        if documentState.contains(.closed) { try await (self as Document).open() }
        try await save(to: url, ofType: fileType, for: url.standardizedFileURL == fileURL ? .saveOperation : .saveAsOperation)
      }
      return true
    } catch {
      handleError(error, userInteractionPermitted: false)
      return false
    }
  }

  /// Autosaves when there are unsaved changes; calls `completionHandler` with whether it worked.
  public func autosave(completionHandler: (@MainActor (Bool) -> Void)? = nil) {
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
  /// worked.
  public func revert(toContentsOf url: URL, completionHandler: (@MainActor (Bool) -> Void)? = nil) {
    Task { completionHandler?(await self.revert(toContentsOf: url)) }
  }

  /// Reads the file at `url` again, dropping unsaved changes; returns whether it worked
  /// (UIKit's `revert(toContentsOf:) async -> Bool`). Why it failed goes to
  /// ``handleError(_:userInteractionPermitted:)`` (and ``lastError``).
  @discardableResult
  public func revert(toContentsOf url: URL) async -> Bool {
    do {
      try await (self as Document).revert(toContentsOf: url)
      return true
    } catch {
      handleError(error, userInteractionPermitted: false)
      return false
    }
  }

  /// Whether the document has unsaved changes (UIKit's spelling of ``Document/hasUnsavedChanges``).
  public var documentHasUnsavedChanges: Bool { hasUnsavedChanges }

  /// The error of the last failed open, save or close through Apple's forms, which report
  /// only `false`.
  public private(set) var lastError: (any Error)?

  /// Receives the error of a failed open, save or close through Apple's forms, as UIKit's
  /// `handleError(_:userInteractionPermitted:)`: override to present it (call `super`). The
  /// default keeps it in ``lastError``.
  open func handleError(_ error: any Error, userInteractionPermitted: Bool) { lastError = error }
}

/// AppKit's `NSDocument`, as a ``UIDocument`` with AppKit's subclassing points:
/// ``data(ofType:)``, ``read(from:ofType:)-(Data,String)`` and
/// ``fileWrapper(ofType:)-(String)`` / ``read(from:ofType:)-(FileWrapper,String)`` with
/// `String` type names. Override either AppKit's or UIKit's points.
///
/// Its designated initialiser is AppKit's `init()` (subclasses write `override init()`);
/// ``init(fileURL:fileType:)`` is a convenience every subclass inherits, so
/// ``DocumentController`` still makes documents by class.
@preconcurrency @MainActor
open class NSDocument: UIDocument {
  /// An untitled document (AppKit's designated `init()`): its file is `Untitled` in the
  /// current folder until it is saved elsewhere with `save(to:ofType:for:)`, AppKit's
  /// "Save As".
  public init() {
    super.init(fileURL: URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("Untitled"), fileType: nil)
  }

  /// Makes a closed document for the file at `fileURL`; call ``Document/open()`` to read it.
  public required convenience init(fileURL: URL, fileType: UTType? = nil) {
    self.init()
    self.fileURL = fileURL.standardizedFileURL
    self.fileType = fileType
  }

  /// Makes a document for `url` of type `typeName` and reads it (AppKit's
  /// `init(contentsOf:ofType:)`); call ``Document/open()`` to read it.
  public convenience init(contentsOf url: URL, ofType typeName: String) throws {
    self.init(fileURL: url, fileType: UTType(typeName))
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
    let name = typeName ?? fileType?.identifier ?? "public.data"
    if let wrapper = contents as? FileWrapper {
      try read(from: wrapper, ofType: name)
    } else if let data = contents as? Data {
      try read(from: data, ofType: name)
    }
  }

  /// The document's file type as a `String` (AppKit's `fileType`).
  public var fileTypeName: String? { fileType?.identifier }

  /// Whether the document has unsaved changes (AppKit's `isDocumentEdited`).
  public var isDocumentEdited: Bool { hasUnsavedChanges }

  /// The title shown for the document (AppKit's `displayName`).
  public var displayName: String { localizedName }

  /// Whether autosave writes the document's own file (AppKit's class property).
  open class var autosavesInPlace: Bool { false }
}
