public import Foundation
import QuireSystem
import QuireTypes
import Synchronization
public import SystemPackage

/// Coordinated reading and writing of files and folders between the threads and processes
/// of one user: the analogue of Apple's `NSFileCoordinator`.
///
/// Semantics, across processes that use the same ``CoordinationLocation``:
/// - readers of an item share it; a writer excludes readers and writers of the same item;
/// - writing a folder excludes coordinated access to anything inside it, and the other way
///   round (multi-granularity locking: intention modes on every folder above the item);
/// - a writer waiting for readers is not overtaken by readers that come later;
/// - requests for several items take their locks in one global order (folders before what
///   they contain, then by path), so they never deadlock one another;
/// - a process that dies holding access releases it: the locks are `fcntl(2)` open file
///   description locks (`F_OFD_SETLK`) on lock files under `XDG_RUNTIME_DIR/quire/locks`,
///   which the kernel drops with the last descriptor. No daemon is involved.
///
/// Before taking its lock, a coordinated access tells the ``FilePresenter``s of the item and
/// of items inside it (in this process and in others) what is about to happen and waits for
/// them, up to ``presenterResponseTimeout`` each round: save before a read, relinquish before
/// a read or a write, accommodate a deletion. After the access it tells them it is over
/// (reacquire) and what changed; presenters of folders above a written item hear of it as a
/// subitem change. The coordinator's own presenter is not told about its own accesses.
///
/// Every access can take a `timeout`; when it expires the ``QuireError`` (code `timedOut`)
/// names who holds the item: process id, program and since when. A coordinated write also
/// refuses (code `inUse`) a file that Emacs, Vim or LibreOffice holds open, unless the
/// options say ``WritingOptions/ignoringForeignEditorLocks``.
///
/// Coordinating again from inside an accessor of the same coordinator (in the same thread or
/// task) runs at once when the outer access already covers the items (a read under any access
/// to the item or a folder above it, a write under a write), as Apple's coordinators allow.
/// A nested access the outer one does not cover and that conflicts with it (a write inside a
/// read, or a conflicting access through another coordinator) waits for itself until its
/// timeout. A nested access that does not conflict (reading another file of the same folder,
/// through any coordinator) goes ahead even when a writer is queued behind the outer access.
open class FileCoordinator: @unchecked Sendable {
  /// How a coordinated read behaves.
  public struct ReadingOptions: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// Do not ask presenters to save their unsaved changes first (`NSFileCoordinator`'s
    /// `.withoutChanges`): read what is on disk now.
    public static let withoutChanges = ReadingOptions(rawValue: 1 << 0)
    /// Coordinate the file a symbolic link points to (`realpath(3)`), not the link itself.
    public static let resolvesSymbolicLink = ReadingOptions(rawValue: 1 << 1)
  }

  /// How a coordinated write behaves; the presenters' messages depend on it.
  public struct WritingOptions: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// The item will be deleted: presenters get `accommodatePresentedItemDeletion`.
    public static let forDeleting = WritingOptions(rawValue: 1 << 0)
    /// The item will be moved; call ``FileCoordinator/item(at:didMoveTo:)`` once it has.
    public static let forMoving = WritingOptions(rawValue: 1 << 1)
    /// The new contents merge the old: presenters save their changes first.
    public static let forMerging = WritingOptions(rawValue: 1 << 2)
    /// The item will be replaced entirely.
    public static let forReplacing = WritingOptions(rawValue: 1 << 3)
    /// Write even when Emacs, Vim or LibreOffice holds a live lock file for the item.
    public static let ignoringForeignEditorLocks = WritingOptions(rawValue: 1 << 4)
  }

  /// The presenter on whose behalf this coordinator works: it gets no messages about this
  /// coordinator's own accesses.
  public let filePresenter: (any FilePresenter)?
  /// Where this coordinator meets other processes.
  public let location: CoordinationLocation
  /// How long a presenter may take to answer before it is skipped (default 2 s).
  public let presenterResponseTimeout: Duration

  private let cancelled = Mutex(false)

  /// Makes a coordinator.
  ///
  /// - Parameters:
  ///   - filePresenter: The presenter this coordinator works for, if any.
  ///   - location: Where processes meet; `$XDG_RUNTIME_DIR` by default.
  ///   - presenterResponseTimeout: How long each round of presenter messages may take.
  public init(
    filePresenter: (any FilePresenter)? = nil, location: CoordinationLocation = .default,
    presenterResponseTimeout: Duration = .seconds(2)
  ) {
    self.filePresenter = filePresenter
    self.location = location
    self.presenterResponseTimeout = presenterResponseTimeout
  }

  /// Cancels this coordinator: accesses waiting for their locks throw ``QuireError`` with code
  /// `cancelled`, and so does every later access. Accessors already running are not stopped.
  open func cancel() {
    cancelled.withLock { $0 = true }
  }

  private var isCancelled: Bool { cancelled.withLock { $0 } }

  // MARK: Presenters

  /// Registers `presenter` so that coordinated accesses (of any process of this user) and
  /// uncoordinated changes reach it.
  ///
  /// - Throws: ``QuireError`` when the presented item's folder does not exist, the inotify
  ///   watch limit is reached, or the registry under `location` cannot be used.
  ///
  /// Apple's form without a location, ``addFilePresenter(_:)``, never fails: it registers at
  /// the default location and tells of a failure (``QuireNotes``).
  public static func addFilePresenter(_ presenter: any FilePresenter, location: CoordinationLocation) throws {
    try PresenterRegistry.shared(for: location).add(presenter)
  }

  /// Unregisters `presenter`; it gets no messages afterwards. Call it before the presenter goes.
  public static func removeFilePresenter(_ presenter: any FilePresenter) {
    for registry in PresenterRegistry.all { registry.remove(presenter) }
  }

  /// The presenters registered in this process.
  public static var filePresenters: [any FilePresenter] {
    PresenterRegistry.all.flatMap { $0.registrations.map(\.presenter) }
  }

  /// Whether a presenter of any process of this user (at `location`) presents the item at
  /// `url`: the file is open in a document. Reads the registry (cached while it is unchanged),
  /// takes no lock.
  public static func isItemPresented(at url: URL, location: CoordinationLocation = .default) -> Bool {
    PresenterRegistry.shared(for: location).isPresented(url.standardizedFileURL.path)
  }

  // MARK: Coordinated access (blocking)

  /// Reads the item at `url` once no writer holds it (or a folder above or an item inside it).
  ///
  /// - Parameters:
  ///   - url: The file or folder to read.
  ///   - options: See ``ReadingOptions``.
  ///   - timeout: How long to wait for the lock; nil waits as long as it takes.
  ///   - reader: Reads the item at the URL it is given (resolved when asked to).
  /// - Returns: What `reader` returns.
  /// - Throws: ``QuireError`` when the item does not exist (`fileMissing`), the wait times out
  ///   (`timedOut`, naming the holders), the coordinator is cancelled, or the lock folder is
  ///   unusable; and whatever `reader` throws.
  open func coordinate<T>(
    readingItemAt url: URL, options: ReadingOptions = [], timeout: Duration? = nil, byAccessor reader: (URL) throws -> T
  ) throws -> T {
    try access(reading: url, options: options, timeout: timeout, reader)
  }

  /// Reads the item at `path`, a path of any bytes (a name that is not UTF-8, which no `URL`
  /// holds, included), as ``coordinate(readingItemAt:options:timeout:byAccessor:)-(URL,_,_,_)``
  /// reads a URL's item. A relative path is taken from the current folder.
  ///
  /// - Parameters:
  ///   - path: The file or folder to read.
  ///   - options: See ``ReadingOptions``; `resolvesSymbolicLink` resolves with `realpath(3)`.
  ///   - timeout: How long to wait for the lock; nil waits as long as it takes.
  ///   - reader: Reads the item at the absolute path it is given.
  /// - Returns: What `reader` returns.
  /// - Throws: ``QuireError`` as the URL form does, naming the item escaped.
  open func coordinate<T>(
    readingItemAt path: FilePath, options: ReadingOptions = [], timeout: Duration? = nil, byAccessor reader: (FilePath) throws -> T
  ) throws -> T {
    try access(reading: path, options: options, timeout: timeout, reader)
  }

  /// Writes the item at `url` once no one else reads or writes it (or a folder above or an
  /// item inside it).
  ///
  /// - Parameters:
  ///   - url: The file or folder to write (its folder must exist).
  ///   - options: See ``WritingOptions``.
  ///   - timeout: How long to wait for the lock; nil waits as long as it takes.
  ///   - writer: Writes the item at the URL it is given.
  /// - Throws: ``QuireError`` when the item's folder does not exist, another editor holds the
  ///   file (`inUse`), the wait times out (`timedOut`, naming the holders), the coordinator is
  ///   cancelled, or the lock folder is unusable; and whatever `writer` throws.
  open func coordinate<T>(
    writingItemAt url: URL, options: WritingOptions = [], timeout: Duration? = nil, byAccessor writer: (URL) throws -> T
  ) throws -> T {
    try access(writing: url, options: options, timeout: timeout, writer)
  }

  /// Writes the item at `path`, a path of any bytes (a name that is not UTF-8 included), as
  /// ``coordinate(writingItemAt:options:timeout:byAccessor:)-(URL,_,_,_)`` writes a URL's item.
  /// A relative path is taken from the current folder.
  ///
  /// - Parameters:
  ///   - path: The file or folder to write (its folder must exist).
  ///   - options: See ``WritingOptions``.
  ///   - timeout: How long to wait for the lock; nil waits as long as it takes.
  ///   - writer: Writes the item at the absolute path it is given.
  /// - Throws: ``QuireError`` as the URL form does, naming the item escaped.
  open func coordinate<T>(
    writingItemAt path: FilePath, options: WritingOptions = [], timeout: Duration? = nil, byAccessor writer: (FilePath) throws -> T
  ) throws -> T {
    try access(writing: path, options: options, timeout: timeout, writer)
  }

  /// Reads one item and writes another in one coordinated access (both locks taken in the
  /// global order, so this never deadlocks against other multi-item requests).
  open func coordinate<T>(
    readingItemAt readingURL: URL, options readingOptions: ReadingOptions = [],
    writingItemAt writingURL: URL, options writingOptions: WritingOptions = [],
    timeout: Duration? = nil, byAccessor body: (URL, URL) throws -> T
  ) throws -> T {
    try access(reading: readingURL, readingOptions, writing: writingURL, writingOptions, timeout: timeout, body)
  }

  /// Writes two items in one coordinated access: the shape of a move (`.forMoving` on the
  /// first, `.forReplacing` on the second), after which the mover calls ``item(at:didMoveTo:)``.
  open func coordinate<T>(
    writingItemAt url1: URL, options options1: WritingOptions = [],
    writingItemAt url2: URL, options options2: WritingOptions = [],
    timeout: Duration? = nil, byAccessor body: (URL, URL) throws -> T
  ) throws -> T {
    try access(writing: url1, options1, and: url2, options2, timeout: timeout, body)
  }

  /// The two-item write (a move) for paths of any bytes: `path1` `.forMoving`, `path2`
  /// `.forReplacing`, after which the mover calls ``item(at:didMoveTo:)-(FilePath,_)``.
  open func coordinate<T>(
    writingItemAt path1: FilePath, options options1: WritingOptions = [],
    writingItemAt path2: FilePath, options options2: WritingOptions = [],
    timeout: Duration? = nil, byAccessor body: (FilePath, FilePath) throws -> T
  ) throws -> T {
    try access(writing: path1, options1, and: path2, options2, timeout: timeout, body)
  }

  /// Apple's `item(at:willMoveTo:)`, called inside a coordinated move before the move: Apple
  /// uses it to prepare ubiquity (iCloud) state. Quire's presenters follow moves from
  /// ``item(at:didMoveTo:)`` and from inotify, so there is nothing to prepare and it does
  /// nothing; it is there so that Apple's move sequence compiles and runs unchanged.
  open func item(at oldURL: URL, willMoveTo newURL: URL) {}

  /// Tells the presenters of `oldURL` (and of items inside it), here and in other processes,
  /// that it moved to `newURL`. Call it inside a coordinated move, after the move.
  open func item(at oldURL: URL, didMoveTo newURL: URL) {
    itemMoved(from: oldURL.standardizedFileURL.path, to: newURL.standardizedFileURL.path)
  }

  /// Tells the presenters of `oldPath` (any bytes) and of items inside it that it moved to
  /// `newPath`, as ``item(at:didMoveTo:)-(URL,_)`` does for URLs. Call it inside a coordinated move.
  open func item(at oldPath: FilePath, didMoveTo newPath: FilePath) {
    itemMoved(from: PathText.string(Item(oldPath).path), to: PathText.string(Item(newPath).path))
  }

  private func itemMoved(from: String, to: String) {
    let registry = PresenterRegistry.shared(for: location)
    let own = filePresenter.flatMap { registry.registration(for: $0) }
    if let own, [.same, .descendant].contains(Relation(presenter: own.path, item: from)) {
      own.follow(to: to + own.path.dropFirst(from.count))
    }
    registry.broadcast(WireMessage(kind: .move, paths: [from, to], token: ""), excluding: own, timeout: presenterResponseTimeout)
  }

  // MARK: Coordinated access (async)

  /// The async form of ``coordinate(readingItemAt:options:timeout:byAccessor:)``: waits
  /// without blocking a thread and throws `cancelled` when the task is cancelled while waiting.
  open func coordinate<T: Sendable>(
    readingItemAt url: URL, options: ReadingOptions = [], timeout: Duration? = nil,
    byAccessor reader: (URL) async throws -> T
  ) async throws -> T {
    try await access(reading: url, options: options, timeout: timeout, reader)
  }

  /// The async form of ``coordinate(writingItemAt:options:timeout:byAccessor:)``.
  open func coordinate<T: Sendable>(
    writingItemAt url: URL, options: WritingOptions = [], timeout: Duration? = nil,
    byAccessor writer: (URL) async throws -> T
  ) async throws -> T {
    try await access(writing: url, options: options, timeout: timeout, writer)
  }

  /// The async form of the read-one-write-another access.
  open func coordinate<T: Sendable>(
    readingItemAt readingURL: URL, options readingOptions: ReadingOptions = [],
    writingItemAt writingURL: URL, options writingOptions: WritingOptions = [],
    timeout: Duration? = nil, byAccessor body: (URL, URL) async throws -> T
  ) async throws -> T {
    try await access(reading: readingURL, readingOptions, writing: writingURL, writingOptions, timeout: timeout, body)
  }

  /// The async form of the two-item write (a move).
  open func coordinate<T: Sendable>(
    writingItemAt url1: URL, options options1: WritingOptions = [],
    writingItemAt url2: URL, options options2: WritingOptions = [],
    timeout: Duration? = nil, byAccessor body: (URL, URL) async throws -> T
  ) async throws -> T {
    try await access(writing: url1, options1, and: url2, options2, timeout: timeout, body)
  }

  // MARK: The one implementation of the coordinate forms

  /// The public `coordinate` forms name their items by `URL` (Apple's signatures, unchanged)
  /// or by `FilePath` (any bytes); each is one call to the one generic access of its shape
  /// here, over ``CoordinatedName``, so the logic of an access exists once.
  private func access<Name: CoordinatedName, T>(
    reading name: Name, options: ReadingOptions, timeout: Duration?, _ reader: (Name) throws -> T
  ) throws -> T {
    let access = try prepare(reads: [(name.item(options), options)], writes: [])
    return try run(access, timeout: timeout) { try reader(Name.given($0, 0)) }
  }

  private func access<Name: CoordinatedName, T>(
    writing name: Name, options: WritingOptions, timeout: Duration?, _ writer: (Name) throws -> T
  ) throws -> T {
    let access = try prepare(reads: [], writes: [(name.item([]), options)])
    return try run(access, timeout: timeout) { try writer(Name.given($0, 0)) }
  }

  private func access<Name: CoordinatedName, T>(
    reading readName: Name, _ readingOptions: ReadingOptions, writing writeName: Name, _ writingOptions: WritingOptions,
    timeout: Duration?, _ body: (Name, Name) throws -> T
  ) throws -> T {
    let access = try prepare(reads: [(readName.item(readingOptions), readingOptions)], writes: [(writeName.item([]), writingOptions)])
    return try run(access, timeout: timeout) { try body(Name.given($0, 0), Name.given($0, 1)) }
  }

  private func access<Name: CoordinatedName, T>(
    writing name1: Name, _ options1: WritingOptions, and name2: Name, _ options2: WritingOptions,
    timeout: Duration?, _ body: (Name, Name) throws -> T
  ) throws -> T {
    let access = try prepare(reads: [], writes: [(name1.item([]), options1), (name2.item([]), options2)])
    return try run(access, timeout: timeout) { try body(Name.given($0, 0), Name.given($0, 1)) }
  }

  private func access<Name: CoordinatedName, T: Sendable>(
    reading name: Name, options: ReadingOptions, timeout: Duration?, _ reader: (Name) async throws -> T
  ) async throws -> T {
    let access = try await prepareAsync(reads: [(name.item(options), options)], writes: [])
    return try await runAsync(access, timeout: timeout) { try await reader(Name.given($0, 0)) }
  }

  private func access<Name: CoordinatedName, T: Sendable>(
    writing name: Name, options: WritingOptions, timeout: Duration?, _ writer: (Name) async throws -> T
  ) async throws -> T {
    let access = try await prepareAsync(reads: [], writes: [(name.item([]), options)])
    return try await runAsync(access, timeout: timeout) { try await writer(Name.given($0, 0)) }
  }

  private func access<Name: CoordinatedName, T: Sendable>(
    reading readName: Name, _ readingOptions: ReadingOptions, writing writeName: Name, _ writingOptions: WritingOptions,
    timeout: Duration?, _ body: (Name, Name) async throws -> T
  ) async throws -> T {
    let access = try await prepareAsync(reads: [(readName.item(readingOptions), readingOptions)], writes: [(writeName.item([]), writingOptions)])
    return try await runAsync(access, timeout: timeout) { try await body(Name.given($0, 0), Name.given($0, 1)) }
  }

  private func access<Name: CoordinatedName, T: Sendable>(
    writing name1: Name, _ options1: WritingOptions, and name2: Name, _ options2: WritingOptions,
    timeout: Duration?, _ body: (Name, Name) async throws -> T
  ) async throws -> T {
    let access = try await prepareAsync(reads: [], writes: [(name1.item([]), options1), (name2.item([]), options2)])
    return try await runAsync(access, timeout: timeout) { try await body(Name.given($0, 0), Name.given($0, 1)) }
  }

  // MARK: The steps of an access

  /// One item of an access: its absolute path (any bytes), and the URL the accessor and
  /// messages get. A URL caller's item keeps its own (standardized, resolved when asked) URL;
  /// a path's item gets a URL of its `PathText` form, which only names it in messages (an
  /// accessor of a path is given the path).
  fileprivate struct Item: Sendable {
    var path: FilePath
    var url: URL

    init(_ url: URL, _ options: ReadingOptions = []) {
      var resolved = url.standardizedFileURL
      if options.contains(.resolvesSymbolicLink) { resolved = resolved.resolvingSymlinksInPath() }
      self.url = resolved
      // The URL's path is a `PathText` string: a URL carrying a name that is not UTF-8 names it.
      self.path = PathText.path(resolved.path)
    }

    init(_ path: FilePath, _ options: ReadingOptions = []) {
      var absolute = path.absoluteNormalized
      if options.contains(.resolvesSymbolicLink), let resolved = SystemCalls.resolvedPath(absolute) { absolute = resolved }
      self.path = absolute
      self.url = URL(fileURLWithPath: PathText.string(absolute))
    }
  }

  /// The items of an access as accessors get them: URLs for the URL forms, paths for the others.
  fileprivate struct Given {
    var urls: [URL]
    var paths: [FilePath]
  }

  private struct Access: Sendable {
    var urls: [URL]
    var paths: [FilePath]
    var reads: [String]
    var writes: [(path: String, options: WritingOptions)]
    var targets: [LockTarget]
    var folder: String
    var token: String
    var own: PresenterRegistration?
    var registry: PresenterRegistry
    var readsWithoutChanges = false
    var rounds: [PresenterRegistry.Round] = []
    /// Inside an accessor of this coordinator that already holds these items: run at once.
    var isNested = false
    var writing: Bool { !writes.isEmpty }
    var heldItems: [HeldItem] { reads.map { HeldItem(path: $0, writing: false) } + writes.map { HeldItem(path: $0.path, writing: true) } }
    var description: URL { urls.last ?? URL(fileURLWithPath: "/") }
    var given: Given { Given(urls: urls, paths: paths) }
  }

  /// An item an accessor of a coordinator holds, for nested accesses.
  struct HeldItem: Sendable {
    var path: String
    var writing: Bool
  }

  /// The items each coordinator's running accessors hold, in this task or thread.
  @TaskLocal static var heldItems: [ObjectIdentifier: [HeldItem]] = [:]

  /// The lock files this task or thread holds through any coordinator. An access that needs
  /// one of them again does not queue behind a waiting writer there: that writer waits for
  /// this task, so queueing behind it would deadlock (as recursive reads do with any fair
  /// reader-writer lock).
  @TaskLocal static var heldLockPaths: Set<String> = []

  /// Whether the items are already held by an accessor of this coordinator further up: a read
  /// is covered by any access to the item or a folder above it, a write by a write.
  private static func isCovered(reads: [String], writes: [String], by held: [HeldItem]) -> Bool {
    guard !held.isEmpty else { return false }
    func covers(_ holder: HeldItem, _ path: String) -> Bool {
      Relation(presenter: holder.path, item: path) == .same || Relation(presenter: holder.path, item: path) == .ancestor
    }
    return reads.allSatisfy { path in held.contains { covers($0, path) } }
      && writes.allSatisfy { path in held.contains { $0.writing && covers($0, path) } }
  }

  private func prepare(reads: [(Item, ReadingOptions)], writes: [(Item, WritingOptions)]) throws -> Access {
    try prepare(reads: reads, writes: writes, held: Self.heldItems[ObjectIdentifier(self)] ?? [])
  }

  /// Resolves and checks the items, asks the presenters to get ready, and plans the locks.
  ///
  /// Paths travel as `PathText` strings (the path itself when it is UTF-8): lock names,
  /// presenter messages and nesting checks see every name, whatever its bytes.
  private func prepare(reads: [(Item, ReadingOptions)], writes: [(Item, WritingOptions)], held: [HeldItem]) throws -> Access {
    if isCancelled { throw cancelledError(reads.first?.0.url ?? writes.first?.0.url) }
    var urls: [URL] = []
    var paths: [FilePath] = []
    var readPaths: [String] = []
    var writePaths: [(String, WritingOptions)] = []
    for (item, _) in reads {
      if case .failure(let code) = SystemCalls.lstat(item.path).mapError(\.errno) {
        throw Self.pathError("read", item.url, DisplayName.escaping(item.path), code)
      }
      urls.append(item.url)
      paths.append(item.path)
      readPaths.append(PathText.string(item.path))
    }
    for (item, options) in writes {
      let url = item.url
      let folder = item.path.removingLastComponent()
      let folderName = DisplayName.escaping(folder)
      switch SystemCalls.lstat(folder).mapError(\.errno) {
      case .failure(.noSuchFileOrDirectory):
        throw QuireError(
          .fileMissing,
          "Cannot write \(QuireError.name(url)): its folder '\(folderName)' does not exist (was it moved or deleted?). Choose another place.",
          url: url, cause: Errno.noSuchFileOrDirectory)
      case .failure(let code):
        throw Self.pathError("write", url, folderName, code)
      case .success(let info) where info.st_mode & S_IFMT != S_IFDIR:
        throw QuireError(
          .fileMissing,
          "Cannot write \(QuireError.name(url)): '\(folderName)' is not a folder. Choose another place.",
          url: url, cause: Errno.notDirectory)
      case .success:
        break
      }
      if !options.contains(.ignoringForeignEditorLocks) {
        let live = ForeignEditorLock.locks(for: url).filter { !$0.isStale }
        if !live.isEmpty {
          throw QuireError(
            .inUse,
            "Cannot write \(QuireError.name(url)): another editor has it open (\(live.map(\.description).joined(separator: "; "))). Close it there first, or save under another name.",
            url: url)
        }
      }
      urls.append(url)
      paths.append(item.path)
      writePaths.append((PathText.string(item.path), options))
    }
    let registry = PresenterRegistry.shared(for: location)
    let own = filePresenter.flatMap { registry.registration(for: $0) }
    if Self.isCovered(reads: readPaths, writes: writePaths.map(\.0), by: held) {
      var access = Access(
        urls: urls, paths: paths, reads: readPaths, writes: writePaths, targets: [], folder: "", token: "", own: own, registry: registry)
      access.isNested = true
      return access
    }
    let folder = try ItemLocks.folder(location, for: urls.first)
    LockReach.note(paths)
    var access = Access(
      urls: urls, paths: paths, reads: readPaths, writes: writePaths,
      targets: ItemLocks.plan(reading: readPaths, writing: writePaths.map(\.0)),
      folder: folder, token: UUID().uuidString, own: own, registry: registry)
    access.readsWithoutChanges = reads.allSatisfy { $0.1.contains(.withoutChanges) }
    access.rounds = notifyBefore(access)
    return access
  }

  private func prepareAsync(reads: [(Item, ReadingOptions)], writes: [(Item, WritingOptions)]) async throws -> Access {
    // The presenter round trip blocks; keep it off the cooperative pool.
    let held = Self.heldItems[ObjectIdentifier(self)] ?? []
    return try await withCheckedThrowingContinuation { continuation in
      BlockingExecutor.shared.submit(
        in: Blocking.waits,
        FaultPlan.carry {
          continuation.resume(with: Result { try self.prepare(reads: reads, writes: writes, held: held) })
        })
    }
  }

  private func notifyBefore(_ access: Access) -> [PresenterRegistry.Round] {
    var rounds: [PresenterRegistry.Round] = []
    if !access.reads.isEmpty {
      var message = WireMessage(kind: .read, paths: access.reads, token: access.token)
      message.withoutChanges = access.readsWithoutChanges
      rounds.append(access.registry.broadcast(message, excluding: access.own, timeout: presenterResponseTimeout))
    }
    for (path, options) in access.writes {
      let kind: WireMessage.Kind =
        options.contains(.forDeleting) ? .delete : options.contains(.forMerging) ? .merge : .write
      rounds.append(
        access.registry.broadcast(
          WireMessage(kind: kind, paths: [path], token: access.token), excluding: access.own, timeout: presenterResponseTimeout))
    }
    for who in rounds.flatMap(\.late) {
      QuireNotes.tell(
        QuireNote(
          .coordination,
          "The presenter of \(QuireError.name(access.description)) in \(who) did not answer within \(presenterResponseTimeout); going ahead without it."))
    }
    if let own = access.own, access.writing { own.beginOwnAccess() }
    return rounds
  }

  private func notifyAfter(_ access: Access) {
    let registry = access.registry
    for round in access.rounds {
      registry.finish(round, token: access.token, paths: access.reads + access.writes.map(\.path), excluding: access.own)
    }
    if access.writing {
      registry.broadcast(
        WireMessage(kind: .change, paths: access.writes.map(\.path), token: access.token), excluding: access.own, timeout: presenterResponseTimeout)
      access.own?.endOwnAccess()
    }
  }

  private func run<T>(_ access: Access, timeout: Duration?, body: (Given) throws -> T) throws -> T {
    if access.isNested { return try body(access.given) }
    let held: HeldLocks
    do {
      held = try acquire(access, timeout: timeout)
    } catch {
      notifyAfter(access)
      throw error
    }
    defer {
      held.release()
      notifyAfter(access)
    }
    var holding = Self.heldItems
    holding[ObjectIdentifier(self), default: []] += access.heldItems
    return try Self.$heldItems.withValue(holding) {
      try Self.$heldLockPaths.withValue(Self.heldLockPaths.union(access.targets.map(\.path))) { try body(access.given) }
    }
  }

  private func runAsync<T: Sendable>(_ access: Access, timeout: Duration?, body: (Given) async throws -> T) async throws -> T {
    if access.isNested { return try await body(access.given) }
    let held: HeldLocks
    do {
      held = try await acquireAsync(access, timeout: timeout)
    } catch {
      await afterAsync(access)
      throw error
    }
    let result: Result<T, any Error>
    var holding = Self.heldItems
    holding[ObjectIdentifier(self), default: []] += access.heldItems
    do {
      let lockPaths = Self.heldLockPaths.union(access.targets.map(\.path))
      result = .success(
        try await Self.$heldItems.withValue(holding) {
          try await Self.$heldLockPaths.withValue(lockPaths) { try await body(access.given) }
        })
    } catch {
      result = .failure(error)
    }
    held.release()
    await afterAsync(access)
    return try result.get()
  }

  private func afterAsync(_ access: Access) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      BlockingExecutor.shared.submit(
        in: Blocking.waits,
        FaultPlan.carry {
          self.notifyAfter(access)
          continuation.resume()
        })
    }
  }

  /// Takes the access's locks, waiting by ``LockWait``'s rule (pausing this thread).
  private func acquire(_ access: Access, timeout: Duration?) throws -> HeldLocks {
    let acquisition = LockAcquisition(targets: access.targets, folder: access.folder, item: access.description, heldByThisTask: Self.heldLockPaths)
    var wait = LockWait(timeout: timeout)
    while true {
      if let held = try acquisition.step() { return held }
      switch wait.next(cancelled: isCancelled) {
      case .pause(let pause): usleep(UInt32(pause / .microseconds(1)))
      case .cancelled: throw abandon(acquisition, cancelledError(access.description))
      case .timedOut: throw abandon(acquisition, timedOut(access, acquisition, after: timeout ?? .zero))
      }
    }
  }

  /// Takes the access's locks, waiting by ``LockWait``'s rule (pausing this task, which also
  /// stops when the task is cancelled).
  private func acquireAsync(_ access: Access, timeout: Duration?) async throws -> HeldLocks {
    let acquisition = LockAcquisition(targets: access.targets, folder: access.folder, item: access.description, heldByThisTask: Self.heldLockPaths)
    var wait = LockWait(timeout: timeout)
    while true {
      if let held = try acquisition.step() { return held }
      switch wait.next(cancelled: isCancelled || Task.isCancelled) {
      case .pause(let pause): try? await Task.sleep(for: pause)
      case .cancelled: throw abandon(acquisition, cancelledError(access.description))
      case .timedOut: throw abandon(acquisition, timedOut(access, acquisition, after: timeout ?? .zero))
      }
    }
  }

  /// Abandons a wait that was cancelled or timed out; returns `error`, made before (it names
  /// the holders the wait found).
  private func abandon(_ acquisition: LockAcquisition, _ error: QuireError) -> QuireError {
    acquisition.abandon()
    return error
  }

  private func timedOut(_ access: Access, _ acquisition: LockAcquisition, after timeout: Duration) -> QuireError {
    let holders = acquisition.blockingHolders()
    let verb = access.writing ? "write" : "read"
    var reason = "Cannot \(verb) \(QuireError.name(access.description)): still held after \(timeout)"
    if holders.isEmpty {
      reason +=
        " by a process that left no record (it may itself be waiting to write '\(acquisition.waitingOn.map { DisplayName.escaping($0) } ?? DisplayName.escaping(access.paths.last ?? FilePath("/")))')"
    } else {
      reason += " by " + holders.map(\.description).joined(separator: "; ")
    }
    if acquisition.isQueuedBehindAnother {
      reason += ", with another access queued ahead of this one"
    }
    let foreign = access.urls.flatMap { ForeignEditorLock.locks(for: $0) }
    if !foreign.isEmpty { reason += "; also " + foreign.map(\.description).joined(separator: "; ") }
    reason += ". Try again later, or end that process."
    return QuireError(.timedOut, reason, url: access.description)
  }

  /// The error for a path that cannot be looked at, by errno.
  private static func pathError(_ verb: String, _ url: URL, _ path: String, _ code: Errno) -> QuireError {
    switch code {
    case .noSuchFileOrDirectory, .notDirectory:
      return QuireError(.fileMissing, "Cannot \(verb) \(QuireError.name(url)): '\(path)' does not exist. Check the path.", url: url, cause: code)
    case .fileNameTooLong:
      return QuireError(
        .invalidArgument, "Cannot \(verb) \(QuireError.name(url)): the path is longer than the system allows (\(code)). Use a shorter path.", url: url,
        cause: code)
    case .permissionDenied:
      return QuireError(
        .permissionDenied, "Cannot \(verb) \(QuireError.name(url)): a folder on the way to '\(path)' cannot be searched. Check its permissions.", url: url,
        cause: code)
    default:
      return QuireError(.systemCallFailed, "Cannot \(verb) \(QuireError.name(url)): looking at '\(path)' failed (\(code)).", url: url, cause: code)
    }
  }

  private func cancelledError(_ url: URL?) -> QuireError {
    QuireError(.cancelled, "Coordinated access to \(url.map(QuireError.name) ?? "the item") was cancelled.", url: url)
  }
}

/// What the `coordinate` forms name an item by: a `URL` (Apple's signatures) or a `FilePath`
/// (a path of any bytes, a name that is not UTF-8 included). The one generic implementation
/// of each form takes either.
private protocol CoordinatedName {
  /// The item this names, its symbolic link resolved when `options` ask.
  func item(_ options: FileCoordinator.ReadingOptions) -> FileCoordinator.Item
  /// What the accessor is given for item `index` of an access.
  static func given(_ given: FileCoordinator.Given, _ index: Int) -> Self
}

extension URL: CoordinatedName {
  fileprivate func item(_ options: FileCoordinator.ReadingOptions) -> FileCoordinator.Item { FileCoordinator.Item(self, options) }
  fileprivate static func given(_ given: FileCoordinator.Given, _ index: Int) -> URL { given.urls[index] }
}

extension FilePath: CoordinatedName {
  fileprivate func item(_ options: FileCoordinator.ReadingOptions) -> FileCoordinator.Item { FileCoordinator.Item(self, options) }
  fileprivate static func given(_ given: FileCoordinator.Given, _ index: Int) -> FilePath { given.paths[index] }
}
