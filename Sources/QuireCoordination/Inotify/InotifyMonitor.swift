internal import CInotifyTools
import Foundation
import QuireSystem
import QuireTypes
import Synchronization
public import SystemPackage

/// What happened to a watched path, from inotify(7).
public struct FileSystemEvent: Sendable, Hashable, CustomStringConvertible {
  /// The kinds of change, as inotify's event mask.
  public struct Kind: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    /// `IN_MODIFY`: the file's content was written.
    public static let modified = Kind(rawValue: UInt32(IN_MODIFY))
    /// `IN_ATTRIB`: metadata (mode, owner, times, link count) changed.
    public static let attributesChanged = Kind(rawValue: UInt32(IN_ATTRIB))
    /// `IN_CLOSE_WRITE`: a writer closed the file.
    public static let closedAfterWriting = Kind(rawValue: UInt32(IN_CLOSE_WRITE))
    /// `IN_CREATE`: an entry was created in a watched folder.
    public static let created = Kind(rawValue: UInt32(IN_CREATE))
    /// `IN_DELETE`: an entry was deleted from a watched folder.
    public static let deleted = Kind(rawValue: UInt32(IN_DELETE))
    /// `IN_DELETE_SELF`: the watched item itself was deleted.
    public static let deletedSelf = Kind(rawValue: UInt32(IN_DELETE_SELF))
    /// `IN_MOVE_SELF`: the watched item itself was moved.
    public static let movedSelf = Kind(rawValue: UInt32(IN_MOVE_SELF))
    /// `IN_MOVED_FROM`: an entry left a watched folder.
    public static let movedFrom = Kind(rawValue: UInt32(IN_MOVED_FROM))
    /// `IN_MOVED_TO`: an entry arrived in a watched folder.
    public static let movedTo = Kind(rawValue: UInt32(IN_MOVED_TO))
    /// `IN_Q_OVERFLOW`: the kernel dropped events; rescan what you watch.
    public static let overflow = Kind(rawValue: UInt32(IN_Q_OVERFLOW))
    /// `IN_IGNORED`: the watch is gone (its item was deleted or the file system unmounted).
    public static let watchRemoved = Kind(rawValue: UInt32(IN_IGNORED))

    static let all: [(Kind, String)] = [
      (.modified, "modified"), (.attributesChanged, "attributes"), (.closedAfterWriting, "closed-after-writing"),
      (.created, "created"), (.deleted, "deleted"), (.deletedSelf, "deleted-self"), (.movedSelf, "moved-self"),
      (.movedFrom, "moved-from"), (.movedTo, "moved-to"), (.overflow, "overflow"), (.watchRemoved, "watch-removed"),
    ]
  }

  /// The watched path (as it was named when the watch was made; inotify follows the inode).
  /// A path that is not UTF-8 is carried here in a form only ``watchedItemPath`` turns back
  /// into its bytes.
  public var watchedPath: String
  /// For events inside a watched folder, the name of the entry concerned (a name that is not
  /// UTF-8 carried as in ``watchedPath``; ``entryName`` has its bytes).
  public var name: String?

  /// ``watchedPath`` with its bytes, also when they are not UTF-8.
  public var watchedItemPath: FilePath { PathText.path(watchedPath) }

  /// ``name`` with its bytes, also when they are not UTF-8.
  public var entryName: FilePath.Component? { name.flatMap { PathText.path($0).lastComponent } }
  /// What happened.
  public var kind: Kind
  /// Links a `movedFrom` with its `movedTo` (inotify's cookie), 0 otherwise.
  public var cookie: UInt32

  public var description: String {
    let names = Kind.all.filter { kind.contains($0.0) }.map(\.1).joined(separator: ",")
    return "\(names) \(DisplayName.escaping(watchedPath))\(name.map { "/" + DisplayName.escaping($0) } ?? "")"
  }
}

/// The process's one connection to inotify, through libinotifytools, owned by one thread.
///
/// libinotifytools keeps process-global state (one inotify descriptor, its watch tables, a
/// static event buffer) and is not thread-safe, so exactly one thread (started on first use)
/// calls into it. Other threads send it requests through a queue and wake it by writing a
/// byte to a private file it watches, which returns it from `inotifytools_next_event`
/// (whose timeout is in whole seconds, and which does not expose the descriptor it waits
/// on). The file is unlinked once watched and kept open, so nothing is left on disk. It
/// delivers events to each subscriber's `AsyncStream` (or, inside this module, a handler).
/// A watch is armed before ``events(at:kinds:)`` returns, so a change made right after is seen.
///
/// libinotifytools files each watch under the name it was made with and never updates that
/// table when the item is renamed, replaced or deleted. Two of its behaviours shape the owner
/// thread (libinotifytools 3.22):
/// - When the kernel drops a watch by itself (the item was deleted or replaced, `IN_IGNORED`),
///   `inotifytools_remove_watch_by_wd` fails (`inotify_rm_watch` says `EINVAL`), prints
///   "Failed to remove watch" on standard error and leaves the entry in both tables. Watching
///   the same name again then adds a kernel watch whose entry the name table rejects, so
///   `inotifytools_wd_from_filename` answers the old, dead descriptor.
/// - Renaming an entry with `inotifytools_set_filename_by_wd` rewrites a red-black-tree key
///   in place, so Quire never calls it (nor `inotifytools_replace_filename`).
///
/// So Quire keys everything on watch descriptors in its own tables and asks libinotifytools
/// only for the descriptor of a name it has just added, under a name nobody has used yet.
/// A file that is watched already (same device and inode) shares its watch. A watch whose
/// last subscriber leaves stays 50 ms (a presenter re-arming takes it up again); then the
/// events already queued are read, so a watch the kernel has dropped is not removed twice,
/// and a live one is removed with `inotifytools_remove_watch_by_wd`, which frees its name.
/// A name whose watch the kernel dropped stays taken in libinotifytools' tables for the life
/// of the process; the next watch on that path is made under another spelling of the same
/// path (`dir/./name`, `dir/.//name`, `dir/././name`, … a binary count of `./` and `/`
/// steps), which the kernel resolves to the same file. Each deletion or replacement of a
/// watched item thus leaves an entry of about 200 bytes in libinotifytools' tables.
/// libinotifytools opens its inotify descriptor without close-on-exec and does not expose
/// it, so child processes inherit it (they cannot read it: they do not know it).
public final class InotifyMonitor: Sendable {
  /// The process-wide monitor.
  public static let shared = InotifyMonitor()

  struct Subscriber {
    let id: UInt64
    let kinds: FileSystemEvent.Kind
    let path: String
    let deliver: @Sendable (FileSystemEvent) -> Void
    let finish: @Sendable () -> Void
  }

  fileprivate enum Request {
    case watch(Subscriber, reply: @Sendable (QuireError?) -> Void)
    case unwatch(id: UInt64)
    case removeUnusedWatches
    case simulateOverflow(prefix: String)
    case describe(path: String, reply: @Sendable (LibraryWatch?) -> Void)
  }

  private struct State {
    var started = false
    var startError: QuireError?
    var requests: [Request] = []
    var wakeFD: Int32 = -1
    var nextID: UInt64 = 1
  }

  // `Request` holds only @Sendable closures and values; the queue is touched under the mutex.
  private let state = Mutex<State>(State())

  private init() {}

  /// Events for `path` (a file or a folder) as an async sequence, until the sequence is
  /// dropped or the task iterating it is cancelled.
  ///
  /// - Throws: ``QuireError`` naming `path` when it does not exist, inotify's watch limit
  ///   (`fs.inotify.max_user_watches`) is reached, or inotify cannot start.
  public func events(at path: String, kinds: FileSystemEvent.Kind = .everything) throws -> AsyncStream<FileSystemEvent> {
    try events(carried: path, kinds: kinds)
  }

  /// Events for `path`, a path of any bytes (a name that is not UTF-8 included), as
  /// ``events(at:kinds:)-(String,_)`` gives them for a `String` path; the events' paths and
  /// names keep the bytes (``FileSystemEvent/watchedItemPath``, ``FileSystemEvent/entryName``).
  ///
  /// - Throws: ``QuireError`` naming `path` escaped when it does not exist, inotify's watch
  ///   limit is reached, or inotify cannot start.
  public func events(at path: FilePath, kinds: FileSystemEvent.Kind = .everything) throws -> AsyncStream<FileSystemEvent> {
    try events(carried: PathText.string(path), kinds: kinds)
  }

  /// Events for `path`, a `PathText` string (the path itself when it is UTF-8).
  private func events(carried path: String, kinds: FileSystemEvent.Kind) throws -> AsyncStream<FileSystemEvent> {
    let (stream, continuation) = AsyncStream<FileSystemEvent>.makeStream(bufferingPolicy: .bufferingNewest(4096))
    let id = try subscribe(
      path: path, kinds: kinds,
      deliver: { continuation.yield($0) },
      finish: { continuation.finish() })
    continuation.onTermination = { [weak self] _ in self?.unsubscribe(id) }
    return stream
  }

  /// Watches `path` (a `PathText` string: the path itself when it is UTF-8, and for a name
  /// that is not, the text that stands for its bytes, which are what is watched) and calls
  /// `deliver` on the owner thread for each event (keep it short). Events name entries the
  /// same way. Returns an id for ``unsubscribe(_:)``.
  func subscribe(
    path: String, kinds: FileSystemEvent.Kind = .everything,
    deliver: @escaping @Sendable (FileSystemEvent) -> Void, finish: @escaping @Sendable () -> Void = {}
  ) throws -> UInt64 {
    // Asked here: the watch itself is made on the owner thread, which the task's plan does not reach.
    if let forced = FaultPlan.failure(.watch, path: path) { throw InotifyMonitor.watchError(path, forced.rawValue) }
    try startIfNeeded()
    let id = state.withLock { state -> UInt64 in
      defer { state.nextID += 1 }
      return state.nextID
    }
    let done = DispatchSemaphore(value: 0)
    let result = Mutex<QuireError?>(nil)
    submit(
      .watch(Subscriber(id: id, kinds: kinds, path: path, deliver: deliver, finish: finish)) { error in
        result.withLock { $0 = error }
        done.signal()
      })
    done.wait()
    if let error = result.withLock({ $0 }) { throw error }
    return id
  }

  /// Stops the subscription `id`; the kernel watch goes when its last subscriber does.
  func unsubscribe(_ id: UInt64) {
    submit(.unwatch(id: id))
  }

  /// Delivers an `IN_Q_OVERFLOW` to the subscribers of paths under `prefix`, as the kernel
  /// does to all when its queue (`fs.inotify.max_queued_events`) fills, so tests can check
  /// that subscribers rescan without disturbing other tests.
  @_spi(Testing) public func simulateOverflow(under prefix: String) {
    submit(.simulateOverflow(prefix: prefix))
  }

  /// What libinotifytools records for the newest live watch subscribed at `path`: the name it
  /// files the watch under, and whether its own tables map that name and the watch
  /// descriptor to each other. Tests use it to check that watches go through libinotifytools.
  @_spi(Testing) public func libraryWatch(at path: String) throws -> LibraryWatch? {
    try startIfNeeded()
    let done = DispatchSemaphore(value: 0)
    let result = Mutex<LibraryWatch?>(nil)
    submit(
      .describe(path: path) { watch in
        result.withLock { $0 = watch }
        done.signal()
      })
    done.wait()
    return result.withLock { $0 }
  }

  /// A watch as libinotifytools records it (see ``libraryWatch(at:)``).
  @_spi(Testing) public struct LibraryWatch: Sendable, Hashable {
    /// The kernel's watch descriptor, as Quire's own table has it.
    public var descriptor: Int32
    /// The name libinotifytools files it under (`inotifytools_filename_from_wd`).
    public var name: String
    /// What `inotifytools_wd_from_filename(name)` answers: `descriptor` when its tables agree.
    public var descriptorForName: Int32
  }

  private func submit(_ request: Request) {
    let wake = state.withLock { state -> Int32 in
      state.requests.append(request)
      return state.wakeFD
    }
    // The owner thread watches this (unlinked) file for IN_MODIFY: the write returns it from
    // inotifytools_next_event. Writes queued before it reads are merged into one event.
    let byte: UInt8 = 1
    if wake >= 0 { _ = SystemCalls.writeAll(FileDescriptor(rawValue: wake), [byte], at: 0) }
  }

  private func startIfNeeded() throws {
    let ready = DispatchSemaphore(value: 0)
    let shouldStart = state.withLock { state -> Bool in
      if state.started { return false }
      state.started = true
      return true
    }
    if shouldStart {
      DedicatedThread.start(named: "quire.inotify") { [self] in self.run(ready: ready) }
      ready.wait()
    }
    if let error = state.withLock({ $0.startError }) { throw error }
  }

  // MARK: Owner thread: the only code that calls libinotifytools.

  private func run(ready: DispatchSemaphore) {
    let owner: LibInotifyToolsOwner
    // The owner thread runs for the life of the process, so it may hold the monitor.
    let removeLater: @Sendable () -> Void = { [self] in
      BlockingExecutor.shared.submit(after: LibInotifyToolsOwner.removalDelay) {
        self.submit(.removeUnusedWatches)
      }
    }
    switch LibInotifyToolsOwner.start(removeLater: removeLater) {
    case .failure(let error):
      state.withLock { $0.startError = error }
      ready.signal()
      return
    case .success(let started):
      owner = started
    }
    state.withLock { $0.wakeFD = owner.wakeFD }
    ready.signal()

    while true {
      let requests = state.withLock { state -> [Request] in
        defer { state.requests.removeAll() }
        return state.requests
      }
      // Requests first, and look again before blocking: a flush below may read the wake
      // event of a request queued meanwhile.
      if !requests.isEmpty {
        owner.handle(requests)
        continue
      }
      owner.waitForEvent()
    }
  }

  fileprivate static func watchError(_ carried: String, _ code: Int32) -> QuireError {
    let url = URL(fileURLWithPath: carried)
    let path = DisplayName.escaping(carried)
    let cause = Errno(rawValue: code)
    switch code {
    case ENOSPC:
      let limit = inotifytools_get_max_user_watches()
      return QuireError(
        .limitExceeded,
        "Cannot watch '\(path)': the inotify watch limit (fs.inotify.max_user_watches = \(limit >= 0 ? String(limit) : "?")) is reached. Raise it with sysctl, or watch fewer files.",
        url: url, cause: cause)
    case ENOENT, ENOTDIR:
      return QuireError(.fileMissing, "Cannot watch '\(path)': it does not exist. Check the path.", url: url, cause: cause)
    case EACCES, EPERM:
      return QuireError(.permissionDenied, "Cannot watch '\(path)': permission denied. Check the folder's permissions.", url: url, cause: cause)
    default:
      let reason = code > 0 ? QuireError.describe(Errno(rawValue: code)) : "libinotifytools failed (\(code))"
      return QuireError(.systemCallFailed, "Cannot watch '\(path)': \(reason).", url: url, cause: code > 0 ? cause : nil)
    }
  }
}

/// Everything the owner thread knows; only the owner thread touches it (it is not Sendable).
private final class LibInotifyToolsOwner {
  /// A file as the kernel knows it, to tell whether a path still names the watched file.
  struct FileIdentity: Hashable {
    let device: UInt64
    let inode: UInt64

    init?(path: String) {
      guard case .success(let info) = SystemCalls.lstat(PathText.path(path)) else { return nil }
      device = UInt64(info.st_dev)
      inode = UInt64(info.st_ino)
    }
  }

  /// One kernel watch, keyed by its descriptor in `watches`.
  struct Watch {
    /// The path the first subscriber asked for.
    let path: String
    /// The name libinotifytools files the watch under (a spelling of `path`).
    let name: String
    /// The watched file, when it did not change while the watch was made.
    let identity: FileIdentity?
    var subscribers: [InotifyMonitor.Subscriber]
  }

  /// Every watch's event mask: all events (IN_ALL_EVENTS is a compound macro Swift does not
  /// import; every event bit is below 0x1000), not following a symbolic link at the end.
  static let mask = Int32(bitPattern: UInt32(0x0000_0fff) | UInt32(IN_DONT_FOLLOW))

  /// A byte written here by any thread wakes the owner thread (watched for IN_MODIFY).
  let wakeFD: Int32
  private let wakeWD: Int32
  /// Written only by the owner thread: its event marks the end of what was queued before.
  private let flushFD: Int32
  private let flushWD: Int32

  private var watches: [Int32: Watch] = [:]
  private var watchOf: [UInt64: Int32] = [:]
  private var watchOfIdentity: [FileIdentity: Int32] = [:]
  /// Names in libinotifytools' name table, live or left behind by a watch the kernel dropped.
  private var takenNames: Set<String> = []
  /// Watches whose last subscriber left, removed together after ``removalDelay``.
  private var unused: Set<Int32> = []
  /// Asks for a `removeUnusedWatches` request after ``removalDelay``.
  private let removeLater: @Sendable () -> Void

  /// How long a watch without subscribers stays. A presenter re-arming takes its watches up
  /// again within this time, and the item's last holder (a presenter's descriptor, closed
  /// just after unsubscribing) has let go, so a watch the kernel drops is seen as dropped.
  static let removalDelay = Duration.milliseconds(50)

  private init(wakeFD: Int32, wakeWD: Int32, flushFD: Int32, flushWD: Int32, removeLater: @escaping @Sendable () -> Void) {
    self.removeLater = removeLater
    self.wakeFD = wakeFD
    self.wakeWD = wakeWD
    self.flushFD = flushFD
    self.flushWD = flushWD
  }

  /// Starts libinotifytools and makes the two private files the owner thread watches: they
  /// are made in a fresh temporary folder, watched, then unlinked (with the folder) while
  /// kept open, so nothing is left on disk and nobody else can touch them.
  static func start(removeLater: @escaping @Sendable () -> Void) -> Result<LibInotifyToolsOwner, QuireError> {
    guard inotifytools_init(0, 0, 0) != 0 else {
      let code = inotifytools_error()
      return .failure(
        QuireError(
          .systemCallFailed,
          "Cannot watch files: inotify could not start (\(QuireError.describe(Errno(rawValue: code)))). Raise fs.inotify.max_user_instances or close other watchers.",
          cause: Errno(rawValue: code)))
    }
    let temporary = NSTemporaryDirectory()
    let folder: String
    switch SystemCalls.makeTemporaryFolder(in: temporary, prefix: "quire-inotify-") {
    case .success(let made): folder = made
    case .failure(let failure):
      return .failure(
        QuireError(
          QuireError.Code(failure.errno, for: .create),
          "Cannot watch files: no private folder could be made in '\(temporary)' (\(failure.errno)). Set TMPDIR to a writable folder.",
          cause: failure))
    }
    defer { _ = SystemCalls.removeFolder(folder) }
    func privateFile(_ name: String) -> (fd: Int32, wd: Int32)? {
      let path = folder + "/" + name
      guard case .success(let opened) = SystemCalls.open(FilePath(path), O_CREAT | O_EXCL | O_RDWR | O_NOFOLLOW, mode: 0o600) else { return nil }
      let fd = opened.rawValue
      defer { _ = SystemCalls.remove(path) }
      guard inotifytools_watch_file(path, Int32(IN_MODIFY)) != 0 else {
        SystemCalls.release(FileDescriptor(rawValue: fd))
        return nil
      }
      return (fd, inotifytools_wd_from_filename(path))
    }
    guard let wake = privateFile("wake"), let flush = privateFile("flush") else {
      let code = inotifytools_error() > 0 ? inotifytools_error() : errno
      return .failure(
        QuireError(
          .systemCallFailed,
          "Cannot watch files: the private wake-up file in '\(folder)' could not be watched (\(QuireError.describe(Errno(rawValue: code)))).",
          cause: Errno(rawValue: code)))
    }
    return .success(LibInotifyToolsOwner(wakeFD: wake.fd, wakeWD: wake.wd, flushFD: flush.fd, flushWD: flush.wd, removeLater: removeLater))
  }

  // MARK: Requests

  fileprivate func handle(_ requests: [InotifyMonitor.Request]) {
    for request in requests {
      switch request {
      case .watch(let subscriber, let reply):
        reply(watch(subscriber))
      case .unwatch(let id):
        unwatch(id)
      case .removeUnusedWatches:
        removeUnusedWatches()
      case .describe(let path, let reply):
        let wd = watches.filter { $0.value.subscribers.contains { $0.path == path } }.keys.max()
        reply(
          wd.map { wd in
            let name = inotifytools_filename_from_wd(wd).map { PathText.string(bytes: UnsafeRawBufferPointer(start: $0, count: strlen($0))) } ?? ""
            return InotifyMonitor.LibraryWatch(
              descriptor: wd, name: name, descriptorForName: Self.descriptor(forName: name))
          })
      case .simulateOverflow(let prefix):
        for (_, watch) in watches {
          for s in watch.subscribers where s.path.hasPrefix(prefix) {
            s.deliver(FileSystemEvent(watchedPath: s.path, name: nil, kind: .overflow, cookie: 0))
          }
        }
      }
    }
  }

  private func watch(_ subscriber: InotifyMonitor.Subscriber) -> QuireError? {
    let path = subscriber.path

    // The file is watched already (through this path or another): the kernel would hand back
    // the same descriptor, and libinotifytools would file a second entry it cannot drop.
    let before = FileIdentity(path: path)
    if let before, watchOfIdentity[before] != nil {
      flush()  // an IN_IGNORED still queued would mean the watch is gone
      if let wd = watchOfIdentity[before], watches[wd] != nil {
        watches[wd]?.subscribers.append(subscriber)
        watchOf[subscriber.id] = wd
        return nil
      }
    }

    var generation = 0
    var name = Self.spelling(of: path, generation: 0)
    while takenNames.contains(name) || takenNames.contains(name + "/") {
      generation += 1
      name = Self.spelling(of: path, generation: generation)
    }
    // Names are bytes: libinotifytools gets the very bytes the `PathText` string stands for.
    guard Self.withBytes(of: name, { inotifytools_watch_file($0, Self.mask) }) != 0 else {
      return InotifyMonitor.watchError(path, inotifytools_error())
    }
    // libinotifytools files folders with a trailing slash.
    var filed = name
    var wd = Self.descriptor(forName: filed)
    if wd < 0 {
      filed = name + "/"
      wd = Self.descriptor(forName: filed)
    }
    guard wd >= 0 else {
      return QuireError(
        .systemCallFailed, "Cannot watch '\(DisplayName.escaping(path))': libinotifytools added the watch but does not know it. Try again.",
        url: URL(fileURLWithPath: path))
    }
    takenNames.insert(filed)
    if watches[wd] != nil {
      // The kernel had the file watched under another name (replaced or renamed since we
      // looked): this name stays taken, and the watch is shared.
      watches[wd]?.subscribers.append(subscriber)
    } else {
      let after = FileIdentity(path: path)
      let identity = before == after ? after : nil
      watches[wd] = Watch(path: path, name: filed, identity: identity, subscribers: [subscriber])
      if let identity { watchOfIdentity[identity] = wd }
    }
    watchOf[subscriber.id] = wd
    return nil
  }

  private func unwatch(_ id: UInt64) {
    guard let wd = watchOf.removeValue(forKey: id), watches[wd] != nil else { return }
    watches[wd]?.subscribers.removeAll { $0.id == id }
    if watches[wd]?.subscribers.isEmpty == true {
      if unused.isEmpty { removeLater() }
      unused.insert(wd)
    }
  }

  /// Removes the watches that found no new subscriber since their last one left.
  private func removeUnusedWatches() {
    // Read what is queued first: a watch the kernel has dropped (IN_IGNORED) is not removed
    // again. One it drops between the flush and the removal makes the removal fail, quietly.
    flush()
    for wd in unused {
      guard let watch = watches[wd], watch.subscribers.isEmpty else { continue }
      forget(wd)
      // The kernel watch is alive: removing it drops its entry from libinotifytools' tables
      // and frees its name.
      if cquire_inotifytools_remove_watch_quietly(wd) != 0 { takenNames.remove(watch.name) }
    }
    unused = []
  }

  private func forget(_ wd: Int32) {
    guard let watch = watches.removeValue(forKey: wd) else { return }
    unused.remove(wd)
    if let identity = watch.identity, watchOfIdentity[identity] == wd { watchOfIdentity[identity] = nil }
    for s in watch.subscribers { watchOf[s.id] = nil }
  }

  /// Calls `body` with the C string of the bytes `name` (a `PathText` string) stands for,
  /// exactly: not through `FilePath`, which would drop a trailing slash (libinotifytools files
  /// folders with one) and merge the `//` of a spelling (see ``spelling(of:generation:)``).
  static func withBytes<T>(of name: String, _ body: (UnsafePointer<CChar>) -> T) -> T {
    let bytes = PathText.bytes(name).map { CChar(bitPattern: $0) } + [0]
    return bytes.withUnsafeBufferPointer { body($0.baseAddress!) }
  }

  /// `inotifytools_wd_from_filename` of the bytes `name` (a `PathText` string) stands for.
  static func descriptor(forName name: String) -> Int32 {
    withBytes(of: name) { inotifytools_wd_from_filename($0) }
  }

  /// The `generation`th spelling of `path`: `path` itself, then with a binary count of
  /// `./` (1) and `/` (0) steps before its last component, most significant first. Each
  /// names the same file, and no two are equal.
  static func spelling(of path: String, generation: Int) -> String {
    guard generation > 0 else { return path }
    let steps = String(generation, radix: 2).map { $0 == "1" ? "./" : "/" }.joined()
    guard let slash = path.lastIndex(of: "/") else { return steps + path }
    return String(path[...slash]) + steps + String(path[path.index(after: slash)...])
  }

  // MARK: Events

  /// Blocks in libinotifytools until an event comes, and delivers it.
  func waitForEvent() {
    guard let event = inotifytools_next_event(-1) else { return }
    _ = deliver(event)
  }

  /// Reads and delivers every event queued before now: writes to the flush file, then reads
  /// up to its event (or an overflow, after which that event may be lost).
  private func flush() {
    let byte: UInt8 = 1
    guard case .success = SystemCalls.writeAll(FileDescriptor(rawValue: flushFD), [byte], at: 0) else { return }
    while let event = inotifytools_next_event(-1) {
      if event.pointee.wd == flushWD { return }
      if deliver(event) == .overflow { return }
    }
  }

  private enum Delivered { case event, overflow }

  /// Delivers one event from libinotifytools' static buffer to the subscribers of its watch.
  private func deliver(_ event: UnsafeMutablePointer<inotify_event>) -> Delivered {
    let wd = event.pointee.wd
    let kind = FileSystemEvent.Kind(rawValue: event.pointee.mask)
    if kind.contains(.overflow) {
      for (_, watch) in watches {
        for s in watch.subscribers { s.deliver(FileSystemEvent(watchedPath: s.path, name: nil, kind: .overflow, cookie: 0)) }
      }
      return .overflow
    }
    if wd == wakeWD || wd == flushWD { return .event }
    guard let watch = watches[wd] else { return .event }
    // The entry name is a NUL-padded flexible array right after the fixed header.
    var name: String?
    if event.pointee.len > 0 {
      let bytes = UnsafeRawBufferPointer(
        start: UnsafeRawPointer(event).advanced(by: MemoryLayout<inotify_event>.size), count: Int(event.pointee.len))
      // A name that is not UTF-8 is carried by `PathText`, so it names the very entry.
      name = PathText.string(bytes: bytes.prefix { $0 != 0 })
    }
    let cookie = event.pointee.cookie
    for s in watch.subscribers where !s.kinds.intersection(kind).isEmpty {
      s.deliver(FileSystemEvent(watchedPath: s.path, name: name, kind: kind, cookie: cookie))
    }
    if kind.contains(.watchRemoved) {
      // The kernel dropped the watch; libinotifytools keeps its name (see InotifyMonitor).
      forget(wd)
      for s in watch.subscribers { s.finish() }
    }
    return .event
  }
}

extension FileSystemEvent.Kind {
  /// Every kind.
  public static let everything: FileSystemEvent.Kind = FileSystemEvent.Kind(rawValue: UInt32.max)
}
