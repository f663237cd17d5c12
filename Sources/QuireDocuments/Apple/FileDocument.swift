// SwiftUI's document-model protocols (the part of SwiftUI that is not UI), and the documents
// that host them on Quire's document layer. Compatibility surface: see the "Porting from
// Apple's frameworks" article.
public import Foundation
public import QuireTypes

/// SwiftUI's `FileDocument`: a document stored as a value (a structure) that reads itself from
/// a ``FileWrapper`` and writes itself as one.
///
/// Write the conformance as for SwiftUI; Quire opens and saves it through
/// ``FileDocumentHost``, a ``Document``, so it gets safe saves, coordination, conflicts,
/// versions and undo. `DocumentController.register(_:)` makes the
/// controller open files of the type's ``readableContentTypes`` with it, and
/// `DocumentController.makeDocument(_:ofType:at:)` saves a new value as a
/// new file, as SwiftUI's `DocumentGroup(newDocument:)` does.
///
/// As in SwiftUI, the value is `Sendable`, and every change made through
/// ``FileDocumentHost/document`` is an undoable step.
@preconcurrency
public protocol FileDocument: Sendable {
  /// The configuration ``init(configuration:)`` receives.
  typealias ReadConfiguration = FileDocumentReadConfiguration
  /// The configuration ``fileWrapper(configuration:)`` receives.
  typealias WriteConfiguration = FileDocumentWriteConfiguration

  /// The types the document reads.
  static var readableContentTypes: [UTType] { get }
  /// The types the document writes; by default ``readableContentTypes``.
  static var writableContentTypes: [UTType] { get }

  /// Reads the document from `configuration.file` (a regular file, or a folder for a package
  /// or folder type) of type `configuration.contentType`.
  ///
  /// - Throws: Any error when the contents are not a document; opening then fails with a
  ///   ``QuireError`` that names the file and carries the error as its cause.
  init(configuration: ReadConfiguration) throws

  /// The document as a file wrapper of type `configuration.contentType`: a regular file, or a
  /// folder for a package or folder type. `configuration.existingFile` is what the file held
  /// when last read or saved, so unchanged children can be handed back as they are.
  func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper
}

extension FileDocument {
  /// The types the document writes: by default the types it reads, as in SwiftUI.
  public static var writableContentTypes: [UTType] { readableContentTypes }
}

/// SwiftUI's `ReferenceFileDocument`: a document stored as an object, saved from a snapshot of
/// its state.
///
/// Quire requires `AnyObject` where SwiftUI requires Combine's `ObservableObject` and
/// `Sendable`: Linux has no Combine, and ``ReferenceFileDocumentHost`` keeps the object on the
/// main actor. As in SwiftUI, the document's changes are known through undo: register an undo
/// action on the host's ``Document/undoManager`` for each change (or call
/// ``Document/updateChangeCount(_:)``), and the change count follows.
public protocol ReferenceFileDocument: AnyObject {
  /// What ``snapshot(contentType:)`` captures, to be written by
  /// ``fileWrapper(snapshot:configuration:)``.
  associatedtype Snapshot
  /// The configuration ``init(configuration:)`` receives.
  typealias ReadConfiguration = FileDocumentReadConfiguration
  /// The configuration ``fileWrapper(snapshot:configuration:)`` receives.
  typealias WriteConfiguration = FileDocumentWriteConfiguration

  /// The types the document reads.
  static var readableContentTypes: [UTType] { get }
  /// The types the document writes; by default ``readableContentTypes``.
  static var writableContentTypes: [UTType] { get }

  /// Reads the document from `configuration.file` of type `configuration.contentType`.
  init(configuration: ReadConfiguration) throws

  /// The state to save, as a file of `contentType`.
  func snapshot(contentType: UTType) throws -> Snapshot

  /// `snapshot` as a file wrapper of type `configuration.contentType`.
  func fileWrapper(snapshot: Snapshot, configuration: WriteConfiguration) throws -> FileWrapper
}

extension ReferenceFileDocument {
  /// The types the document writes: by default the types it reads, as in SwiftUI.
  public static var writableContentTypes: [UTType] { readableContentTypes }
}

/// SwiftUI's `FileDocumentReadConfiguration`: what a document reads itself from.
public struct FileDocumentReadConfiguration {
  /// The type of the file.
  public let contentType: UTType
  /// The file: a regular-file wrapper, or a folder's tree for a package or folder type. Its
  /// `filename` is the file's name.
  public let file: FileWrapper

  /// A configuration for reading `file` as `contentType` (made by the hosts; public for tests
  /// and for reading a value outside a document).
  public init(contentType: UTType, file: FileWrapper) {
    self.contentType = contentType
    self.file = file
  }
}

/// SwiftUI's `FileDocumentWriteConfiguration`: what a document writes itself as.
public struct FileDocumentWriteConfiguration {
  /// The type to write.
  public let contentType: UTType
  /// What the file held when the document last read or saved it; nil for a new document.
  public let existingFile: FileWrapper?

  /// A configuration for writing as `contentType` over `existingFile` (made by the hosts;
  /// public for tests and for writing a value outside a document).
  public init(contentType: UTType, existingFile: FileWrapper?) {
    self.contentType = contentType
    self.existingFile = existingFile
  }
}

/// A ``Document`` that holds a ``FileDocument`` value: opens it from its file, saves it safely,
/// and makes each change of ``document`` an undoable step (SwiftUI's `DocumentGroup` for a
/// `FileDocument`, without the windows).
///
/// Open one with ``DocumentController/openDocument(at:ofType:)`` after
/// `DocumentController.register(_:)`, or make one with
/// ``init(fileURL:contentType:)`` and ``Document/open()``; make a new file from a value with
/// `DocumentController.makeDocument(_:ofType:at:)`.
///
/// A type conforming to `public.directory` (such as `public.folder`) or `com.apple.package`
/// is read and written as a folder; any other type as a regular file, and then
/// ``FileDocument/fileWrapper(configuration:)`` must return a regular-file wrapper. Saving as a
/// type outside ``FileDocument/writableContentTypes`` is refused.
open class FileDocumentHost<Value: FileDocument>: Document {
  /// The document's value; nil while the document is closed and not made with a value.
  /// Setting it (or changing it in place, `host.document?.text = …`) is one undoable change,
  /// named by ``editActionName``.
  public var document: Value? {
    get { value }
    set {
      let old = value
      value = newValue
      undoManager.registerUndo(withTarget: self) { host in host.document = old }
      if !undoManager.isUndoing && !undoManager.isRedoing { undoManager.setActionName(editActionName) }
    }
  }
  /// The undo action name of a change to ``document`` ("Edit" unless set).
  public var editActionName = "Edit"
  private var value: Value?
  private var file = HostedFile()

  public required init(fileURL: URL, contentType: UTType? = nil) {
    super.init(fileURL: fileURL, contentType: contentType)
  }

  /// Makes a closed document holding `document`, to be written as a new file with
  /// `DocumentController.makeDocument(_:ofType:at:)`.
  public convenience init(fileURL: URL, contentType: UTType? = nil, document: Value) {
    self.init(fileURL: fileURL, contentType: contentType)
    value = document
  }

  /// Folders for `public.directory` and `com.apple.package` types.
  open override func isPackageType(_ type: UTType) -> Bool { HostedFile.isFolderType(type) }

  /// Reads the value from the file's bytes.
  open override func read(from data: Data, ofType type: UTType) throws {
    try read(from: file.wrapper(for: data, at: fileURL), ofType: type)
  }

  /// Reads the value from the file (or folder) with ``FileDocument/init(configuration:)``.
  open override func read(from fileWrapper: FileWrapper, ofType type: UTType) throws {
    value = try file.read(fileWrapper, type: type, at: fileURL, model: Value.self) { try Value(configuration: $0) }
  }

  /// The value as a file wrapper, from ``FileDocument/fileWrapper(configuration:)``.
  open override func fileWrapper(ofType type: UTType) throws -> FileWrapper {
    guard let value else { throw file.noValue(at: fileURL, model: Value.self) }
    return try file.write(type: type, writable: Value.writableContentTypes, at: fileURL, model: Value.self) {
      try value.fileWrapper(configuration: $0)
    }
  }

  /// The value's bytes, for a type that is not a folder.
  open override func contents(forType type: UTType) throws -> Data {
    try file.bytes(of: fileWrapper(ofType: type), type: type, at: fileURL, model: Value.self)
  }

  /// Remembers what was written as the next save's `existingFile`.
  open override func documentDidSave(_ operation: SaveOperation) {
    if operation != .saveToOperation { file.saved() }
  }
}

/// A ``Document`` that holds a ``ReferenceFileDocument`` object: opens it from its file and
/// saves it safely from its ``ReferenceFileDocument/snapshot(contentType:)`` (SwiftUI's
/// `DocumentGroup` for a `ReferenceFileDocument`, without the windows).
///
/// The object's changes count through the host's ``Document/undoManager``, as in SwiftUI:
/// register an undo action for each change. Folders and types are handled as by
/// ``FileDocumentHost``.
open class ReferenceFileDocumentHost<Value: ReferenceFileDocument>: Document {
  /// The document's object; nil while the document is closed and not made with one.
  public private(set) var document: Value?
  private var file = HostedFile()

  public required init(fileURL: URL, contentType: UTType? = nil) {
    super.init(fileURL: fileURL, contentType: contentType)
  }

  /// Makes a closed document holding `document`, to be written as a new file with
  /// `DocumentController.makeDocument(_:ofType:at:)`.
  public convenience init(fileURL: URL, contentType: UTType? = nil, document: Value) {
    self.init(fileURL: fileURL, contentType: contentType)
    self.document = document
  }

  /// Folders for `public.directory` and `com.apple.package` types.
  open override func isPackageType(_ type: UTType) -> Bool { HostedFile.isFolderType(type) }

  /// Reads the object from the file's bytes.
  open override func read(from data: Data, ofType type: UTType) throws {
    try read(from: file.wrapper(for: data, at: fileURL), ofType: type)
  }

  /// Reads the object from the file (or folder) with ``ReferenceFileDocument/init(configuration:)``.
  open override func read(from fileWrapper: FileWrapper, ofType type: UTType) throws {
    document = try file.read(fileWrapper, type: type, at: fileURL, model: Value.self) { try Value(configuration: $0) }
  }

  /// A snapshot of the object as a file wrapper, from
  /// ``ReferenceFileDocument/snapshot(contentType:)`` and
  /// ``ReferenceFileDocument/fileWrapper(snapshot:configuration:)``.
  open override func fileWrapper(ofType type: UTType) throws -> FileWrapper {
    guard let document else { throw file.noValue(at: fileURL, model: Value.self) }
    return try file.write(type: type, writable: Value.writableContentTypes, at: fileURL, model: Value.self) { configuration in
      try document.fileWrapper(snapshot: try document.snapshot(contentType: type), configuration: configuration)
    }
  }

  /// The object's bytes, for a type that is not a folder.
  open override func contents(forType type: UTType) throws -> Data {
    try file.bytes(of: fileWrapper(ofType: type), type: type, at: fileURL, model: Value.self)
  }

  /// Remembers what was written as the next save's `existingFile`.
  open override func documentDidSave(_ operation: SaveOperation) {
    if operation != .saveToOperation { file.saved() }
  }
}

/// What both hosts share: the configurations they hand the model, the file last read or
/// written (the next write's `existingFile`), and the checks with their messages.
struct HostedFile {
  /// What the file held when last read or saved.
  private var existing: FileWrapper?
  /// What the save under way writes; becomes ``existing`` when it succeeds.
  private var pending: FileWrapper?

  /// Whether a type is written as a folder.
  static func isFolderType(_ type: UTType) -> Bool { type.conforms(to: .package) || type.conforms(to: .directory) }

  /// A regular-file wrapper of `data`, named as the file.
  func wrapper(for data: Data, at url: URL) -> FileWrapper {
    let wrapper = FileWrapper(regularFileWithContents: data)
    wrapper.preferredFilename = url.lastPathComponent
    wrapper.filename = url.lastPathComponent
    return wrapper
  }

  /// Makes the model from `wrapper`; an error of the model becomes a ``QuireError`` that
  /// names the file.
  mutating func read<Model>(
    _ wrapper: FileWrapper, type: UTType, at url: URL, model: Any.Type, _ make: (FileDocumentReadConfiguration) throws -> Model
  ) throws -> Model {
    if wrapper.filename == nil { wrapper.filename = url.lastPathComponent }
    do {
      let made = try make(FileDocumentReadConfiguration(contentType: type, file: wrapper))
      existing = wrapper
      pending = nil
      return made
    } catch let error as QuireError {
      throw error
    } catch {
      throw QuireError(
        .invalidContent, "Cannot open \(QuireError.name(url)): \(model) cannot read it as \(type.identifier) (\(error)). Check that it is such a file.",
        url: url, cause: error)
    }
  }

  /// The model's wrapper for `type`, after checking that the model writes that type.
  mutating func write(
    type: UTType, writable: [UTType], at url: URL, model: Any.Type, _ make: (FileDocumentWriteConfiguration) throws -> FileWrapper
  ) throws -> FileWrapper {
    guard writable.contains(where: { type.conforms(to: $0) }) else {
      let names = writable.map(\.identifier).joined(separator: ", ")
      throw QuireError(
        .unsupportedType, "Cannot save \(QuireError.name(url)) as \(type.identifier): \(model) writes only \(names). Save it as one of those.", url: url)
    }
    let wrapper: FileWrapper
    do {
      wrapper = try make(FileDocumentWriteConfiguration(contentType: type, existingFile: existing))
    } catch let error as QuireError {
      throw error
    } catch {
      throw QuireError(.invalidContent, "Cannot save \(QuireError.name(url)): \(model) could not write itself (\(error)).", url: url, cause: error)
    }
    pending = wrapper
    return wrapper
  }

  /// The bytes of a regular-file wrapper; a folder for a type that is not a folder type is
  /// refused, so nothing is written.
  func bytes(of wrapper: FileWrapper, type: UTType, at url: URL, model: Any.Type) throws -> Data {
    guard wrapper.isRegularFile else {
      throw QuireError(
        .unsupportedType,
        "Cannot save \(QuireError.name(url)): \(model) returned a folder, but \(type.identifier) is a file type. Declare the type as conforming to public.folder or com.apple.package.",
        url: url)
    }
    return try wrapper.contents()
  }

  /// The error for saving a host that holds no value.
  func noValue(at url: URL, model: Any.Type) -> QuireError {
    QuireError(.invalidArgument, "Cannot save \(QuireError.name(url)): it holds no \(model). Open it, or make it with a value.", url: url)
  }

  /// The save succeeded: what it wrote is now the file.
  mutating func saved() {
    if let pending { existing = pending }
    pending = nil
  }
}
