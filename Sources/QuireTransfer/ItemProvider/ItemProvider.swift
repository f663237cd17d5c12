public import Foundation
public import QuireCoordination
import QuireSystem
public import QuireTypes
import Synchronization
public import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// A promise of one item in several representations, loaded lazily in the form the
/// receiver wants (`NSItemProvider`).
///
/// Representations are kept in the order registered, from highest fidelity to most
/// general. Each is a *data* representation (bytes made on demand), a *file*
/// representation (a file handed over on demand, optionally to be opened in place) or an
/// *object* (a value adopting ``ItemProviderWriting``, registered as one data
/// representation per type it writes).
///
/// Asking for a type loads the first representation that conforms to it, so asking a
/// provider of PNG and JPEG for `public.image` loads the PNG. Data and file forms convert
/// into each other: a data representation asked for as a file is written to a temporary
/// file; a file representation asked for as data is read through the
/// ``fileReadCoordinator``. Every load returns a `Progress`: cancelling it stops the
/// handler's work (its own `Progress` is cancelled, or its task is) and completes the load
/// with a `.cancelled` error; a handler that fails or never calls back ends the load with an
/// error, at the latest after ``loadTimeout``.
open class ItemProvider: @unchecked Sendable, CustomDebugStringConvertible {
  /// Who may see a representation (`NSItemProviderRepresentationVisibility`).
  public enum RepresentationVisibility: Sendable, Hashable {
    /// Every process: it is written to shared pasteboards and served to other processes.
    case all
    /// Only the process that registered it.
    case ownProcess
  }

  /// Delivers a data representation: the bytes, or an error.
  public typealias DataLoadCompletion = @Sendable (Data?, (any Error)?) -> Void
  /// Produces a data representation and calls the completion once; may return a `Progress`
  /// whose cancellation should stop the work.
  public typealias DataLoadHandler = @Sendable (_ completion: @escaping DataLoadCompletion) -> Progress?
  /// Delivers a file representation: a file that stays valid until the completion returns,
  /// or an error.
  public typealias FileLoadCompletion = @Sendable (URL?, (any Error)?) -> Void
  /// Produces a file representation and calls the completion once; may return a `Progress`.
  public typealias FileLoadHandler = @Sendable (_ completion: @escaping FileLoadCompletion) -> Progress?

  struct Representation: Sendable {
    enum Kind: Sendable {
      case data(DataLoadHandler)
      case file(FileLoadHandler, openInPlace: Bool)
    }
    let typeIdentifier: String
    let visibility: RepresentationVisibility
    let kind: Kind
    var contentType: UTType? { UTType(typeIdentifier) }
  }

  private struct Settings {
    var representations: [Representation] = []
    var suggestedName: String?
    var loadTimeout: Duration = .seconds(30)
    var maximumDataSize = 256 << 20
    var previewImageHandler: LoadHandler?
  }
  private let settings: Mutex<Settings>

  /// How file representations are read when they are loaded as data or copied.
  public let fileReadCoordinator: any FileReadCoordinating

  /// Makes an empty provider.
  ///
  /// - Parameters:
  ///   - suggestedName: A name for the item when it becomes a file, e.g. "Meeting notes".
  ///   - fileReadCoordinator: How files are read; the default is a `FileCoordinator` (at
  ///     `$XDG_RUNTIME_DIR`), so loads wait for Quire's coordinated writers.
  public init(
    suggestedName: String? = nil,
    fileReadCoordinator: any FileReadCoordinating = FileCoordinator()
  ) {
    settings = Mutex(Settings(suggestedName: suggestedName))
    self.fileReadCoordinator = fileReadCoordinator
  }

  /// Makes a provider of `object` in every form it writes.
  public convenience init(object: some ItemProviderWriting, suggestedName: String? = nil) {
    self.init(suggestedName: suggestedName)
    registerObject(object, visibility: .all)
  }

  /// Foundation's `NSItemProvider(object: text as NSString)`: a provider of the string's text,
  /// as ``init(object:suggestedName:)`` makes one of a `String`. Foundation's reference types
  /// are not `Sendable` on Linux, so they cannot be ``ItemProviderWriting``; the text is taken
  /// from them here.
  public convenience init(object: NSString, suggestedName: String? = nil) {
    self.init(object: object as String, suggestedName: suggestedName)
  }

  /// Foundation's `NSItemProvider(object: url as NSURL)`: a provider of the URL, as
  /// ``init(object:suggestedName:)`` makes one of a `URL`.
  public convenience init(object: NSURL, suggestedName: String? = nil) {
    self.init(object: object as URL, suggestedName: suggestedName)
  }

  /// Makes a provider of the file at `fileURL`: a file representation of its type (from
  /// its filename extension, `public.data` when unknown), then its URL as `public.file-url`
  /// and `public.url` (not as plain text, so text receivers do not take a path for the file).
  ///
  /// - Parameter openInPlace: Whether receivers may open the file itself rather than a copy.
  public convenience init(contentsOf fileURL: URL, contentType: UTType? = nil, openInPlace: Bool = false) {
    self.init(suggestedName: fileURL.deletingPathExtension().lastPathComponent)
    let type = contentType ?? UTType(filenameExtension: fileURL.pathExtension) ?? .data
    registerFileRepresentation(for: type, openInPlace: openInPlace, fileURL: fileURL)
    for urlType in [UTType.fileURL, UTType.url] {
      registerDataRepresentation(for: urlType) { try await fileURL.loadData(withTypeIdentifier: urlType.identifier) }
    }
  }

  // MARK: Settings

  /// A name for the item when it becomes a file; file loads use it for the temporary file.
  open var suggestedName: String? {
    get { settings.withLock { $0.suggestedName } }
    set { settings.withLock { $0.suggestedName = newValue } }
  }

  /// How long a representation's handler may take to deliver before the load fails with
  /// `.timedOut` (30 seconds by default).
  open var loadTimeout: Duration {
    get { settings.withLock { $0.loadTimeout } }
    set { settings.withLock { $0.loadTimeout = newValue } }
  }

  /// The largest file a data load reads into memory (256 MiB by default); larger files
  /// fail with `.limitExceeded` and are meant to be loaded as files.
  open var maximumDataSize: Int {
    get { settings.withLock { $0.maximumDataSize } }
    set { settings.withLock { $0.maximumDataSize = newValue } }
  }

  /// The handler that makes the item's preview image (Apple's `previewImageHandler`, see
  /// ``loadPreviewImage(options:completionHandler:)``); nil when the item has none.
  open var previewImageHandler: LoadHandler? {
    get { settings.withLock { $0.previewImageHandler } }
    set { settings.withLock { $0.previewImageHandler = newValue } }
  }

  // MARK: Registering

  /// Registers a data representation whose handler calls a completion
  /// (`registerDataRepresentation(forTypeIdentifier:visibility:loadHandler:)`).
  ///
  /// - Parameters:
  ///   - contentType: The representation's type.
  ///   - visibility: Who may see it.
  ///   - loadHandler: Called on a background thread for each load; calls its completion
  ///     once and may return a `Progress` whose cancellation should stop it.
  open func registerDataRepresentation(
    for contentType: UTType, visibility: RepresentationVisibility = .all,
    loadHandler: @escaping DataLoadHandler
  ) {
    registerDataRepresentation(forTypeIdentifier: contentType.identifier, visibility: visibility, loadHandler: loadHandler)
  }

  /// Registers a data representation by identifier, which may be one the registry does
  /// not declare (it then conforms to `public.data` only).
  open func registerDataRepresentation(
    forTypeIdentifier typeIdentifier: String, visibility: RepresentationVisibility = .all,
    loadHandler: @escaping DataLoadHandler
  ) {
    append(Representation(typeIdentifier: typeIdentifier, visibility: visibility, kind: .data(loadHandler)))
  }

  /// Registers a data representation produced by an async function; cancelling a load
  /// cancels the task that runs it.
  open func registerDataRepresentation(
    for contentType: UTType, visibility: RepresentationVisibility = .all,
    load: @escaping @Sendable () async throws -> Data
  ) {
    registerDataRepresentation(forTypeIdentifier: contentType.identifier, visibility: visibility, load: load)
  }

  /// Registers a data representation by identifier, produced by an async function.
  open func registerDataRepresentation(
    forTypeIdentifier typeIdentifier: String, visibility: RepresentationVisibility = .all,
    load: @escaping @Sendable () async throws -> Data
  ) {
    registerDataRepresentation(forTypeIdentifier: typeIdentifier, visibility: visibility) { completion in
      let progress = Progress(totalUnitCount: 1)
      let task = Task {
        do {
          let data = try await load()
          progress.completedUnitCount = 1
          completion(data, nil)
        } catch {
          completion(nil, error)
        }
      }
      progress.cancellationHandler = { task.cancel() }
      return progress
    }
  }

  /// Registers a file representation whose handler calls a completion with a file that
  /// stays valid until the completion returns.
  ///
  /// - Parameters:
  ///   - contentType: The file's type.
  ///   - visibility: Who may see it.
  ///   - openInPlace: Whether receivers may open the file itself (``loadInPlaceFileRepresentation(for:completionHandler:)``).
  ///   - loadHandler: Called on a background thread for each load.
  open func registerFileRepresentation(
    for contentType: UTType, visibility: RepresentationVisibility = .all, openInPlace: Bool = false,
    loadHandler: @escaping FileLoadHandler
  ) {
    registerFileRepresentation(
      forTypeIdentifier: contentType.identifier, visibility: visibility, openInPlace: openInPlace,
      loadHandler: loadHandler)
  }

  /// Registers a file representation by identifier.
  open func registerFileRepresentation(
    forTypeIdentifier typeIdentifier: String, visibility: RepresentationVisibility = .all,
    openInPlace: Bool = false, loadHandler: @escaping FileLoadHandler
  ) {
    append(
      Representation(
        typeIdentifier: typeIdentifier, visibility: visibility, kind: .file(loadHandler, openInPlace: openInPlace)))
  }

  /// Registers a file that already exists as a representation.
  open func registerFileRepresentation(
    for contentType: UTType, visibility: RepresentationVisibility = .all, openInPlace: Bool = false,
    fileURL: URL
  ) {
    registerFileRepresentation(for: contentType, visibility: visibility, openInPlace: openInPlace) { completion in
      completion(fileURL, nil)
      return nil
    }
  }

  /// Registers the file at `filePath`, whose name may be any bytes, as a representation.
  ///
  /// A UTF-8 name is handed out as the file itself (see
  /// ``registerFileRepresentation(for:visibility:openInPlace:fileURL:)``). A name that is not
  /// UTF-8 cannot be a `URL`: each load gets a copy (read through the one input opener, so a
  /// FIFO or a device is refused, up to ``fileCopyLimit`` bytes) in a private scratch folder,
  /// named with the bytes escaped (`non\xFFutf.md`) and removed when the completion returns.
  open func registerFileRepresentation(for contentType: UTType, visibility: RepresentationVisibility = .all, filePath: FilePath) {
    if let text = filePath.withPlatformString({ String(validatingCString: $0) }) {
      return registerFileRepresentation(for: contentType, visibility: visibility, fileURL: URL(fileURLWithPath: text))
    }
    registerFileRepresentation(for: contentType, visibility: visibility) { completion in
      do {
        let bytes = try InputFile.read(filePath, for: "copy", limit: ItemProvider.fileCopyLimit)
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        let name = filePath.lastComponent.map { DisplayName.escaping(FilePath(root: nil, [$0])) } ?? "item"
        completion(try scratch.write(Data(bytes), named: name), nil)
      } catch {
        completion(nil, error)
      }
      return nil
    }
  }

  /// The largest file ``registerFileRepresentation(for:visibility:filePath:)`` copies for a
  /// name that is not UTF-8 (1 GiB).
  public static let fileCopyLimit = 1 << 30

  /// Registers one data representation for each type `object` writes, in its order.
  open func registerObject(_ object: some ItemProviderWriting, visibility: RepresentationVisibility) {
    for identifier in object.writableTypeIdentifiersForItemProvider {
      let own = type(of: object).itemProviderVisibilityForRepresentation(withTypeIdentifier: identifier)
      let effective: RepresentationVisibility = (own == .ownProcess || visibility == .ownProcess) ? .ownProcess : .all
      registerDataRepresentation(forTypeIdentifier: identifier, visibility: effective) {
        try await object.loadData(withTypeIdentifier: identifier)
      }
    }
  }

  private func append(_ representation: Representation) {
    settings.withLock { $0.representations.append(representation) }
  }

  // MARK: Asking

  var representations: [Representation] { settings.withLock { $0.representations } }

  /// The identifiers of the registered representations, highest fidelity first.
  open var registeredTypeIdentifiers: [String] { representations.map(\.typeIdentifier) }

  /// The registered types the registry knows, highest fidelity first.
  open var registeredContentTypes: [UTType] { representations.compactMap(\.contentType) }

  /// The registered types that conform to `type`, highest fidelity first.
  open func registeredContentTypes(conformingTo type: UTType) -> [UTType] {
    registeredContentTypes.filter { $0.conforms(to: type) }
  }

  /// Whether some representation conforms to `type`.
  open func hasRepresentationConforming(toTypeIdentifier type: UTType) -> Bool {
    hasItemConformingToTypeIdentifier(type.identifier)
  }

  /// Whether some representation conforms to the type `typeIdentifier` names.
  open func hasItemConformingToTypeIdentifier(_ typeIdentifier: String) -> Bool {
    representations.contains { Self.conforms($0.typeIdentifier, to: typeIdentifier) }
  }

  /// Whether a value of `objectType` can be made from some representation.
  open func canLoadObject(ofClass objectType: any ItemProviderReading.Type) -> Bool {
    representation(accepting: objectType.readableTypeIdentifiersForItemProvider) != nil
  }

  /// Whether `identifier` is `target` or conforms to it; undeclared identifiers conform to
  /// `public.data` and `public.item` only.
  static func conforms(_ identifier: String, to target: String) -> Bool {
    if identifier == target { return true }
    guard let type = UTType(identifier) else {
      return target == UTType.data.identifier || target == UTType.item.identifier
    }
    guard let targetType = UTType(target) else { return false }
    return type.conforms(to: targetType)
  }

  /// The first representation (highest fidelity first) conforming to `typeIdentifier`.
  func representation(conformingTo typeIdentifier: String) -> Representation? {
    representations.first { Self.conforms($0.typeIdentifier, to: typeIdentifier) }
  }

  /// The representation a receiver accepting `accepted` (its preference order) should load:
  /// the first accepted type some representation has exactly, else the highest-fidelity
  /// representation conforming to any accepted type.
  func representation(accepting accepted: [String]) -> Representation? {
    let all = representations
    for identifier in accepted {
      if let exact = all.first(where: { $0.typeIdentifier == identifier }) { return exact }
    }
    return all.first { representation in accepted.contains { Self.conforms(representation.typeIdentifier, to: $0) } }
  }

  // MARK: Loading with completion handlers

  /// Loads the first representation conforming to `type` as bytes.
  ///
  /// A file representation is read through the ``fileReadCoordinator``.
  /// - Parameters:
  ///   - type: The type wanted; a general type (`public.image`) takes the first conforming one.
  ///   - completionHandler: Called once, on a background thread, with the bytes or a
  ///     ``QuireError`` (`.unsupportedType`, `.cancelled`, `.timedOut`, `.limitExceeded`) or
  ///     the handler's own error.
  /// - Returns: The load's progress; cancelling it cancels the load.
  @discardableResult
  open func loadDataRepresentation(
    for type: UTType, completionHandler: @escaping @Sendable (Data?, (any Error)?) -> Void
  ) -> Progress {
    loadDataRepresentation(forTypeIdentifier: type.identifier, completionHandler: completionHandler)
  }

  /// Loads the first representation conforming to `typeIdentifier` as bytes.
  @discardableResult
  open func loadDataRepresentation(
    forTypeIdentifier typeIdentifier: String, completionHandler: @escaping @Sendable (Data?, (any Error)?) -> Void
  ) -> Progress {
    guard let representation = representation(conformingTo: typeIdentifier) else {
      return failedLoad(missing(typeIdentifier)) { completionHandler(nil, $0) }
    }
    return loadData(representation) { result in
      switch result {
      case .success(let data): completionHandler(data, nil)
      case .failure(let error): completionHandler(nil, error)
      }
    }
  }

  /// Loads the first representation conforming to `type` as a file: a temporary copy
  /// (named after ``suggestedName``) that is removed when the handler returns.
  ///
  /// A data representation is written to the file; a file representation is copied through
  /// the ``fileReadCoordinator``, keeping holes, so large files are streamed, not held in memory.
  /// - Parameter completionHandler: Called once, on a background thread, with the file or an error.
  @discardableResult
  open func loadFileRepresentation(
    for type: UTType, completionHandler: @escaping @Sendable (URL?, (any Error)?) -> Void
  ) -> Progress {
    loadFileRepresentation(forTypeIdentifier: type.identifier, completionHandler: completionHandler)
  }

  /// Loads the first representation conforming to `typeIdentifier` as a temporary file.
  @discardableResult
  open func loadFileRepresentation(
    forTypeIdentifier typeIdentifier: String, completionHandler: @escaping @Sendable (URL?, (any Error)?) -> Void
  ) -> Progress {
    guard let representation = representation(conformingTo: typeIdentifier) else {
      return failedLoad(missing(typeIdentifier)) { completionHandler(nil, $0) }
    }
    return loadFile(representation, inPlace: false) { url, _, error in completionHandler(url, error) }
  }

  /// Loads the first representation conforming to `type` as a file, opening the provider's
  /// own file when it was registered `openInPlace`, else a temporary copy removed when the
  /// handler returns.
  ///
  /// - Parameter completionHandler: Called once with the file, whether it is the original
  ///   (in place) or a copy, or an error.
  @discardableResult
  open func loadInPlaceFileRepresentation(
    for type: UTType, completionHandler: @escaping @Sendable (URL?, Bool, (any Error)?) -> Void
  ) -> Progress {
    guard let representation = representation(conformingTo: type.identifier) else {
      return failedLoad(missing(type.identifier)) { completionHandler(nil, false, $0) }
    }
    return loadFile(representation, inPlace: true, completionHandler: completionHandler)
  }

  /// Foundation's `loadObject(ofClass: NSString.self)`: the item's text (as `String` reads
  /// it) as an `NSString`. Foundation's reference types are not `Sendable` on Linux, so they
  /// are made here from the `String` value rather than read through ``ItemProviderReading``.
  @discardableResult
  open func loadObject(ofClass objectType: NSString.Type, completionHandler: @escaping @Sendable (NSString?, (any Error)?) -> Void) -> Progress {
    loadObject(ofClass: String.self) { text, error in completionHandler(text.map { NSString(string: $0) }, error) }
  }

  /// Foundation's `loadObject(ofClass: NSURL.self)`: the item's URL (as `URL` reads it) as an
  /// `NSURL`.
  @discardableResult
  open func loadObject(ofClass objectType: NSURL.Type, completionHandler: @escaping @Sendable (NSURL?, (any Error)?) -> Void) -> Progress {
    loadObject(ofClass: URL.self) { url, error in completionHandler(url.flatMap { NSURL(string: $0.absoluteString) }, error) }
  }

  /// Whether the item can be read as an `NSString` (as a `String`).
  open func canLoadObject(ofClass objectType: NSString.Type) -> Bool { canLoadObject(ofClass: String.self) }

  /// Whether the item can be read as an `NSURL` (as a `URL`).
  open func canLoadObject(ofClass objectType: NSURL.Type) -> Bool { canLoadObject(ofClass: URL.self) }

  /// Makes a value of `objectType` from the representation it reads best: the first of its
  /// readable types the provider has exactly, else the first representation conforming to one.
  ///
  /// - Parameter completionHandler: Called once with the value, or an error: the reader's
  ///   ``QuireError`` `.invalidContent` when the bytes do not match their declared type.
  @discardableResult
  open func loadObject<Object: ItemProviderReading>(
    ofClass objectType: Object.Type, completionHandler: @escaping @Sendable (Object?, (any Error)?) -> Void
  ) -> Progress {
    let readable = objectType.readableTypeIdentifiersForItemProvider
    guard let representation = representation(accepting: readable) else {
      let error = QuireError(
        .unsupportedType,
        "\(itemName.capitalizedFirst) cannot be read as \(objectType): it offers \(offered), and \(objectType) reads \(readable.joined(separator: ", ")).")
      return failedLoad(error) { completionHandler(nil, $0) }
    }
    return loadData(representation) { result in
      switch result {
      case .success(let data):
        do {
          completionHandler(try objectType.object(withItemProviderData: data, typeIdentifier: representation.typeIdentifier), nil)
        } catch let error as QuireError {
          completionHandler(nil, error)
        } catch {
          completionHandler(
            nil,
            QuireError(
              .invalidContent,
              "The \(representation.typeIdentifier) representation of \(self.itemName) could not be read as \(objectType).",
              cause: error))
        }
      case .failure(let error): completionHandler(nil, error)
      }
    }
  }

  // MARK: Loading with async/await

  /// Loads the first representation conforming to `type` as bytes; cancelling the task
  /// cancels the load.
  /// - Throws: ``QuireError`` (`.unsupportedType`, `.cancelled`, `.timedOut`,
  ///   `.limitExceeded`) or the handler's error.
  open func loadDataRepresentation(for type: UTType) async throws -> Data {
    try await awaitLoad { resume in
      loadDataRepresentation(for: type) { data, error in resume(Self.result(data, error)) }
    }
  }

  /// Loads the first representation conforming to `type` as a temporary file and runs
  /// `body` with it; the file is removed when `body` returns.
  open func loadFileRepresentation<Result: Sendable>(
    for type: UTType, _ body: @escaping @Sendable (URL) throws -> Result
  ) async throws -> Result {
    try await awaitLoad { resume in
      loadFileRepresentation(for: type) { url, error in
        guard let url else { return resume(.failure(error ?? self.noResult(type.identifier))) }
        resume(Swift.Result { try body(url) })
      }
    }
  }

  /// Loads the first representation conforming to `type` as a file, in place when the
  /// provider allows it, and runs `body` with the file and whether it is the original.
  open func loadInPlaceFileRepresentation<Result: Sendable>(
    for type: UTType, _ body: @escaping @Sendable (URL, Bool) throws -> Result
  ) async throws -> Result {
    try await awaitLoad { resume in
      loadInPlaceFileRepresentation(for: type) { url, isInPlace, error in
        guard let url else { return resume(.failure(error ?? self.noResult(type.identifier))) }
        resume(Swift.Result { try body(url, isInPlace) })
      }
    }
  }

  /// Makes a value of `objectType` from the representation it reads best.
  open func loadObject<Object: ItemProviderReading>(ofClass objectType: Object.Type) async throws -> Object {
    try await awaitLoad { resume in
      loadObject(ofClass: objectType) { object, error in resume(Self.result(object, error)) }
    }
  }

  /// Loads the best representation for a receiver accepting `typeIdentifiers` (its
  /// preference order) and returns its identifier and bytes.
  open func loadBestRepresentation(accepting typeIdentifiers: [String]) async throws -> (typeIdentifier: String, data: Data) {
    try await awaitLoad { resume in
      loadBestRepresentation(accepting: typeIdentifiers) { resume($0) }
    }
  }

  /// The completion-handler form of ``loadBestRepresentation(accepting:)``.
  @discardableResult
  func loadBestRepresentation(
    accepting typeIdentifiers: [String],
    completionHandler: @escaping @Sendable (Swift.Result<(typeIdentifier: String, data: Data), any Error>) -> Void
  ) -> Progress {
    guard let representation = representation(accepting: typeIdentifiers) else {
      let error = QuireError(
        .unsupportedType,
        "\(itemName.capitalizedFirst) offers \(offered); none of it is \(typeIdentifiers.joined(separator: ", ")).")
      return failedLoad(error) { completionHandler(.failure($0)) }
    }
    return loadData(representation) { result in
      completionHandler(result.map { (representation.typeIdentifier, $0) })
    }
  }

  // MARK: The load machinery

  /// Starts `representation`'s handler on a background thread and delivers what it gives,
  /// a timeout or a cancellation, whichever comes first, exactly once.
  func start(
    _ representation: Representation, progress: Progress,
    deliver: @escaping @Sendable (Swift.Result<Payload, any Error>) -> Void
  ) {
    let timeout = loadTimeout
    let name = itemName
    let identifier = representation.typeIdentifier
    let gate = LoadGate { result in
      if case .success = result { progress.completedUnitCount = progress.totalUnitCount }
      deliver(result)
    }
    progress.cancellationHandler = {
      gate.finish(.failure(QuireError(.cancelled, "Loading the \(identifier) representation of \(name) was cancelled.")))
      gate.stop()
    }
    // Timeouts fire on a queue of their own and are delivered, like results, by a pool apart
    // from the handlers': handlers that block their threads (all of the load pool's, even)
    // delay neither a timeout nor a result. Both pools are bounded (Dispatch's global queues
    // stop at one thread per core on Linux; a queue or thread per load grows without end).
    Self.timeoutQueue.asyncAfter(deadline: .now() + timeout.timeInterval) {
      guard !gate.isFinished else { return }
      BlockingExecutor.shared.submit(in: Self.deliveries) {
        let error = QuireError(
          .timedOut,
          "\(name.capitalizedFirst) did not deliver its \(identifier) representation within \(timeout): the program offering it may be stuck or gone. Try again, or copy the item again."
        )
        if gate.finish(.failure(error)) { gate.stop() }
      }
    }
    // The task's fault plan (tests) goes with the load to the pool's thread.
    BlockingExecutor.shared.submit(
      in: Self.loads,
      FaultPlan.carry {
        if gate.isFinished { return }
        let child: Progress?
        switch representation.kind {
        case .data(let handler):
          child = handler { data, error in
            if let data {
              // Bytes outlive the call, so the receiver's work (writing a temporary file, its
              // own handler) moves off the provider's thread, which may be the cooperative pool.
              BlockingExecutor.shared.submit(in: Self.deliveries, FaultPlan.carry { gate.finish(.success(.data(data))) })
            } else {
              gate.finish(.failure(error ?? Self.noResult(identifier, name)))
            }
          }
        case .file(let handler, _):
          child = handler { url, error in
            if let url {
              gate.finish(.success(.file(url)))
            } else {
              gate.finish(.failure(error ?? Self.noResult(identifier, name)))
            }
          }
        }
        if let child { gate.onStop { child.cancel() } }
      })
  }

  private func loadData(
    _ representation: Representation, deliver: @escaping @Sendable (Swift.Result<Data, any Error>) -> Void
  ) -> Progress {
    let progress = Progress(totalUnitCount: 1)
    start(representation, progress: progress) { result in
      switch result {
      case .success(.data(let data)): deliver(.success(data))
      case .success(.file(let url)): deliver(Swift.Result { try self.readData(url, typeIdentifier: representation.typeIdentifier) })
      case .failure(let error): deliver(.failure(error))
      }
    }
    return progress
  }

  func loadFile(
    _ representation: Representation, inPlace: Bool,
    completionHandler: @escaping @Sendable (URL?, Bool, (any Error)?) -> Void
  ) -> Progress {
    let progress = Progress(totalUnitCount: 1)
    let name = ScratchFolder.fileName(suggestedName: suggestedName, type: representation.contentType)
    start(representation, progress: progress) { result in
      let scratch: ScratchFolder
      do {
        switch result {
        case .failure(let error): return completionHandler(nil, false, error)
        case .success(.file(let url)):
          if inPlace, case .file(_, openInPlace: true) = representation.kind {
            return completionHandler(url, true, nil)
          }
          scratch = try ScratchFolder()
          do {
            let copy = try self.fileReadCoordinator.coordinateReading(itemAt: url, timeout: self.loadTimeout) {
              try scratch.copy($0, named: name) { progress.isCancelled }
            }
            defer { scratch.remove() }
            completionHandler(copy, false, nil)
          } catch {
            scratch.remove()
            throw error
          }
        case .success(.data(let data)):
          scratch = try ScratchFolder()
          defer { scratch.remove() }
          let file = try scratch.write(data, named: name)
          completionHandler(file, false, nil)
        }
      } catch {
        completionHandler(nil, false, error)
      }
    }
    return progress
  }

  /// Reads a file representation into memory, refusing files over ``maximumDataSize``.
  func readData(_ url: URL, typeIdentifier: String) throws -> Data {
    let limit = maximumDataSize
    return try fileReadCoordinator.coordinateReading(itemAt: url, timeout: loadTimeout) { url in
      let fd: Int32
      switch SystemCalls.open(FilePath(url.path), O_RDONLY, mode: 0).map(\.rawValue) {
      case .success(let opened): fd = opened
      case .failure(let error): throw TransferErrors.opening(url, error)
      }
      defer { SystemCalls.release(FileDescriptor(rawValue: fd)) }
      let tooLarge = QuireError(
        .limitExceeded,
        "The \(typeIdentifier) representation of \(itemName) is larger than \(limit >> 20) MiB, too large to load into memory. Load it as a file instead.",
        url: url)
      // Refuse by size before reading anything; the loop below still stops a growing file.
      if case .success(let info) = SystemCalls.fstat(FileDescriptor(rawValue: fd)), Int64(info.st_size) > Int64(limit) { throw tooLarge }
      var data = Data()
      let chunk = 1 << 20
      var buffer = [UInt8](repeating: 0, count: chunk)
      while true {
        let count = try buffer.withUnsafeMutableBytes { raw -> Int in
          switch SystemCalls.read(FileDescriptor(rawValue: fd), into: raw) {
          case .success(let count): return count
          case .failure(let error): throw QuireError(.systemCallFailed, "Cannot read \(QuireError.name(url)).", url: url, cause: error)
          }
        }
        if count == 0 { break }
        if data.count + count > limit { throw tooLarge }
        data.append(contentsOf: buffer[0..<count])
      }
      return data
    }
  }

  private func failedLoad(_ error: any Error, _ deliver: @escaping @Sendable (any Error) -> Void) -> Progress {
    let progress = Progress(totalUnitCount: 1)
    BlockingExecutor.shared.submit(in: Self.deliveries) { deliver(error) }
    return progress
  }

  private static let timeoutQueue = DispatchQueue(label: "quire.transfer.timeouts")
  /// The threads that run representation handlers: at most 32 loads run at once, the rest wait.
  static let loads = BlockingLane("quire.transfer.load", limit: 32)
  /// The threads that hand results, failures and timeouts to the receivers.
  static let deliveries = BlockingLane("quire.transfer.deliver", limit: 8)

  // MARK: Describing

  var itemName: String { suggestedName.map { "the item '\($0)'" } ?? "the item" }

  var offered: String {
    let identifiers = registeredTypeIdentifiers
    return identifiers.isEmpty ? "nothing" : identifiers.joined(separator: ", ")
  }

  private func missing(_ typeIdentifier: String) -> QuireError {
    QuireError(
      .unsupportedType,
      "\(itemName.capitalizedFirst) has no \(typeIdentifier) representation; it offers \(offered).")
  }

  func noResult(_ typeIdentifier: String) -> QuireError { Self.noResult(typeIdentifier, itemName) }

  private static func noResult(_ typeIdentifier: String, _ name: String) -> QuireError {
    QuireError(.invalidContent, "The \(typeIdentifier) representation of \(name) delivered neither data nor an error.")
  }

  private static func result<Value>(_ value: Value?, _ error: (any Error)?) -> Swift.Result<Value, any Error> {
    if let value { return .success(value) }
    return .failure(error ?? QuireError(.invalidContent, "The load delivered neither a value nor an error."))
  }

  /// The representations as a small tree, e.g. for `status` output and tests.
  open var debugDescription: String {
    var lines = ["ItemProvider\(suggestedName.map { " '\($0)'" } ?? "")"]
    let all = representations
    for (index, representation) in all.enumerated() {
      let branch = index == all.count - 1 ? "└─" : "├─"
      var form: String
      switch representation.kind {
      case .data: form = "data"
      case .file(_, let openInPlace): form = openInPlace ? "file, open in place" : "file"
      }
      if representation.visibility == .ownProcess { form += ", own process" }
      lines.append("\(branch) \(representation.typeIdentifier) (\(form))")
    }
    return lines.joined(separator: "\n")
  }
}

extension String {
  var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}

extension ItemProvider {
  /// Writes the representation of `type` to `path`, a path of any bytes (a name that is not
  /// UTF-8 is written as that very name), as ``writeRepresentation(for:to:)-(_,URL)`` writes
  /// to a URL.
  ///
  /// - Returns: The identifier of the representation written.
  /// - Throws: ``QuireError`` as the URL form does, naming `path` escaped.
  @discardableResult
  public func writeRepresentation(for type: UTType, to path: FilePath) async throws -> String {
    try await writeRepresentation(for: type, to: OutputPath.url(carrying: path))
  }

  /// Writes the representation of exactly `type` (else the first conforming to it) to
  /// `requested`, replacing a regular file atomically (a device or FIFO is written through):
  /// a file representation is copied keeping holes (streamed, never held in memory), a data
  /// representation is written. A file replaced keeps its permissions (a script stays
  /// executable); a new one gets 0666 less the umask, as any new file.
  ///
  /// - Returns: The identifier of the representation written.
  /// - Throws: ``QuireError`` for a missing type, a failed load, or a destination that
  ///   cannot be written (the old file is then untouched).
  @discardableResult
  public func writeRepresentation(for type: UTType, to requested: URL) async throws -> String {
    guard let representation = representation(accepting: [type.identifier]) else {
      throw QuireError(.unsupportedType, "\(itemName.capitalizedFirst) has no \(type.identifier) representation; it offers \(offered).")
    }
    let identifier = representation.typeIdentifier
    // What is at the destination decides how it is written (OutputPath): a device or FIFO is
    // written through, a regular file (or nothing) replaced atomically at its link's target.
    let destination: URL
    let special: String?
    switch try OutputPath.kind(of: requested) {
    case .regularFile(let target): (destination, special) = (target, nil)
    case .special(let description): (destination, special) = (requested, description)
    }
    let _: Bool = try await awaitLoad { resume in
      let progress = Progress(totalUnitCount: 1)
      start(representation, progress: progress) { result in
        resume(
          Swift.Result {
            if let special {
              let data: Data
              switch try result.get() {
              case .data(let loaded): data = loaded
              case .file(let url):
                data = try self.fileReadCoordinator.coordinateReading(itemAt: url, timeout: self.loadTimeout) { try Data(contentsOf: $0) }
              }
              try OutputPath.writeThrough(data, to: destination, description: special)
              return true
            }
            // The one atomic writer: beside the destination, flushed, then renamed over it, so
            // a failure or a crash leaves the old file whole. The file replaced lends its
            // permissions; a new one gets 0666 less the umask, as a new file would.
            let loaded = try result.get()
            let replaced = try? SystemCalls.stat(PathText.path(destination.path)).get()
            let mode = replaced.map { mode_t($0.st_mode & 0o7777) } ?? AtomicFile.newFileMode
            do {
              try AtomicFile.write(to: destination.path, mode: mode) { fd in
                switch loaded {
                case .data(let data): try SystemCalls.writeAll(fd, data).get()
                case .file(let url):
                  try self.fileReadCoordinator.coordinateReading(itemAt: url, timeout: self.loadTimeout) {
                    try ScratchFolder.copy($0, into: fd, naming: destination) { progress.isCancelled }
                  }
                }
              }
            } catch let failure as SyscallFailure {
              throw TransferErrors.writing(destination, failure)
            }
            return true
          })
      }
      return progress
    }
    return identifier
  }
}
