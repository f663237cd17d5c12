import Foundation
import QuireSystem
import QuireTypes
import Synchronization
import SystemPackage

/// How a presenter's path relates to an item named in a message.
enum Relation {
  case same, ancestor, descendant, none

  init(presenter: String, item: String) {
    if presenter == item {
      self = .same
    } else if item.hasPrefix(presenter == "/" ? "/" : presenter + "/") {
      self = .ancestor
    } else if presenter.hasPrefix(item == "/" ? "/" : item + "/") {
      self = .descendant
    } else {
      self = .none
    }
  }
}

/// One registered presenter: where its item is now, the inotify watches that follow it, and
/// the serial queue its messages run on.
///
/// The item is followed by an `O_PATH` descriptor: `/proc/self/fd/N` names the item wherever
/// it moves (even when a folder above it is renamed), and reads "(deleted)" once it is
/// unlinked. inotify watches on the item and on every folder above it (up to, not including,
/// `/`) trigger a re-evaluation: 1 ms after the first event of a quiet spell, then at most
/// once per 8 ms window while events keep coming. The evaluation compares what is on disk now
/// with what was last reported, so a burst of writes gives a message at its start and one at
/// its end, and a change seen both by inotify and by a coordinated writer's message is
/// usually reported once.
final class PresenterRegistration: Sendable {
  /// After a look at the item, events are gathered this long before the next look, so a
  /// burst of writes gives one message at its start and one at its end.
  static let coalescingWindow: UInt64 = 8_000_000
  /// The first event after a quiet spell is looked at after this settle time (nanoseconds),
  /// so that a rename-and-recreate by an editor is usually seen as one change.
  static let settleTime: UInt64 = 1_000_000

  struct Signature: Equatable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modified: Int64
    var changed: Int64
    var isFolder: Bool

    init(_ info: stat) {
      device = UInt64(info.st_dev)
      inode = UInt64(info.st_ino)
      size = Int64(info.st_size)
      modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
      changed = Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec)
      isFolder = info.st_mode & S_IFMT == S_IFDIR
    }

    /// Whether the modification time is within a few seconds of now (or ahead of it): a file
    /// system with whole-second times (sshfs) could take another write in that second without
    /// a new time, so a polled file's contents are compared too. False for folders.
    var isRecentlyModified: Bool {
      if isFolder { return false }
      let now = Int64(Date().timeIntervalSince1970 * 1_000_000_000)
      return now - modified < 3_000_000_000
    }

    /// Whether `other` is a change worth reporting. A folder's times change with every entry,
    /// which reaches folder presenters as subitem changes instead.
    func differs(from other: Signature) -> Bool {
      if device != other.device || inode != other.inode || isFolder != other.isFolder { return true }
      if isFolder { return false }
      return size != other.size || modified != other.modified || changed != other.changed
    }
  }

  private struct State {
    var path: String
    var fd: Int32 = -1
    var signature: Signature?
    var subscriptions: [UInt64] = []
    var pendingSubitems: Set<String> = []
    var needsRescan = false
    var evaluationScheduled = false
    var lastEvaluation: UInt64 = 0
    var ownAccesses = 0
    var deletionReported = false
    var reacquirers: [String: [@Sendable () -> Void]] = [:]
    var removed = false
    /// Set while the item is on a file system that is polled (``PollingOptions``).
    var isPolled = false
    var pollScheduled = false
    /// The wait before the next look, in nanoseconds (grows while nothing changes).
    var pollDelay: UInt64 = 0
    /// When something last changed (or an inotify event came), in uptime nanoseconds.
    var lastActivity: UInt64 = 0
    /// A digest of the contents, kept while the modification time is recent.
    var digest: Int?
    /// A polled folder's direct entries and what they looked like.
    var entries: [String: Signature]?
    /// The file system the item is on.
    var kind: FileSystemKind?
  }

  let id: UInt64
  let presenter: any FilePresenter
  private let queue: DispatchQueue
  private let tracking: DispatchQueue
  private let state: Mutex<State>
  private let onPathChange: @Sendable () -> Void

  init(id: UInt64, presenter: any FilePresenter, path: String, onPathChange: @escaping @Sendable () -> Void) {
    self.id = id
    self.presenter = presenter
    self.queue = DispatchQueue(label: "quire.presenter.\(id)")
    self.tracking = DispatchQueue(label: "quire.presenter-tracking.\(id)")
    self.state = Mutex(State(path: path))
    self.onPathChange = onPathChange
  }

  /// Where the item is now: a `PathText` string (the path itself when it is UTF-8), as every
  /// path in the registry and in coordinators' messages is, so a name that is not UTF-8 is
  /// watched, compared and reported by its bytes.
  var path: String { state.withLock { $0.path } }

  /// A URL that names `path` for the URL forms of the presenter's messages: the path's own
  /// when it is UTF-8; for a name that is not, one that carries its `PathText` form (no `URL`
  /// holds the bytes; the path forms of the messages have them).
  static func url(of path: FilePath) -> URL { URL(fileURLWithPath: PathText.string(path)) }

  /// Runs `body` where the presenter's messages run, one at a time.
  func perform(_ body: @escaping @Sendable () -> Void) {
    if let operationQueue = presenter.presentedItemOperationQueue {
      operationQueue.addOperation(body)
    } else {
      queue.async(execute: body)
    }
  }

  // MARK: Watching

  /// Opens the item, records what it looks like and arms the watches.
  ///
  /// - Throws: ``QuireError`` when the folder above the item is missing or the inotify watch
  ///   limit is reached.
  func start() throws {
    let path = self.path
    let parent = (path as NSString).deletingLastPathComponent
    if case .failure = SystemCalls.lstat(PathText.path(parent)).mapError(\.errno) {
      throw QuireError(
        .fileMissing,
        "Cannot present '\(DisplayName.escaping(path))': its folder '\(DisplayName.escaping(parent))' does not exist. Check the path.",
        url: URL(fileURLWithPath: path))
    }
    try tracking.sync { try arm(path: path) }
  }

  /// Stops watching; no message is delivered afterwards.
  func stop() {
    let (subscriptions, fd) = state.withLock { state -> ([UInt64], Int32) in
      state.removed = true
      defer {
        state.subscriptions = []
        state.fd = -1
      }
      return (state.subscriptions, state.fd)
    }
    for id in subscriptions { InotifyMonitor.shared.unsubscribe(id) }
    if fd >= 0 { SystemCalls.release(FileDescriptor(rawValue: fd)) }
  }

  /// (Re)opens the item at `path` and watches it and the folders above it. Runs on `tracking`.
  private func arm(path: String) throws {
    let old = state.withLock { state -> ([UInt64], Int32) in
      defer {
        state.subscriptions = []
        state.fd = -1
      }
      return (state.subscriptions, state.fd)
    }
    for id in old.0 { InotifyMonitor.shared.unsubscribe(id) }
    if old.1 >= 0 { SystemCalls.release(FileDescriptor(rawValue: old.1)) }

    var fd: Int32 = -1
    var signature: Signature?
    if case .success(let opened) = SystemCalls.openPath(PathText.path(path)).map(\.rawValue) {
      fd = opened
      if case .success(let info) = SystemCalls.fstat(FileDescriptor(rawValue: opened)) { signature = Signature(info) }
    }
    var subscriptions: [UInt64] = []
    do {
      if fd >= 0 {
        let kinds: FileSystemEvent.Kind = [
          .modified, .attributesChanged, .closedAfterWriting, .created, .deleted, .deletedSelf, .movedSelf,
          .movedFrom, .movedTo, .overflow,
        ]
        subscriptions.append(
          try InotifyMonitor.shared.subscribe(path: path, kinds: kinds) { [weak self] event in
            self?.noteItemEvent(event)
          })
      }
      // Every folder above: an entry named like the next step of our path moving or going
      // means the item moved or went. The parent also sees replacement by rename.
      var child = path
      var folder = (path as NSString).deletingLastPathComponent
      // `/` itself is not watched: every entry change under it would wake us.
      while folder != "/" && folder != child && !folder.isEmpty {
        let name = (child as NSString).lastPathComponent
        let kinds: FileSystemEvent.Kind = [.created, .deleted, .movedFrom, .movedTo, .overflow]
        do {
          subscriptions.append(
            try InotifyMonitor.shared.subscribe(path: folder, kinds: kinds) { [weak self] event in
              if event.name == name || event.kind.contains(.overflow) { self?.noteAncestorEvent(event) }
            })
        } catch let error as QuireError where error.code == .fileMissing || error.code == .permissionDenied {
          // A folder that is gone or unreadable cannot be watched; the ones above still are.
        }
        child = folder
        folder = (folder as NSString).deletingLastPathComponent
      }
    } catch {
      for id in subscriptions { InotifyMonitor.shared.unsubscribe(id) }
      if fd >= 0 { SystemCalls.release(FileDescriptor(rawValue: fd)) }
      throw error
    }
    let options = FileCoordinator.pollingOptions
    let kind = FileSystemKind.of(PathText.path(path))
    let polled = options.polls(kind)
    let entries = polled && signature?.isFolder == true ? Self.entries(of: path) : nil
    let (stale, startPolling) = state.withLock { state -> (Bool, Bool) in
      if state.removed { return (true, false) }
      state.path = path
      state.fd = fd
      state.signature = signature
      state.subscriptions = subscriptions
      state.entries = entries
      state.digest = nil
      state.kind = kind
      state.isPolled = polled
      guard polled, !state.pollScheduled else { return (false, false) }
      state.pollScheduled = true
      state.pollDelay = Self.nanoseconds(options.interval)
      state.lastActivity = DispatchTime.now().uptimeNanoseconds
      return (false, true)
    }
    if stale {
      for id in subscriptions { InotifyMonitor.shared.unsubscribe(id) }
      if fd >= 0 { SystemCalls.release(FileDescriptor(rawValue: fd)) }
    }
    if startPolling { schedulePoll() }
  }

  private func noteItemEvent(_ event: FileSystemEvent) {
    state.withLock { state in
      if let name = event.name, state.signature?.isFolder == true { state.pendingSubitems.insert(name) }
      if event.kind.contains(.overflow) { state.needsRescan = true }
    }
    scheduleEvaluation()
  }

  private func noteAncestorEvent(_ event: FileSystemEvent) {
    if event.kind.contains(.overflow) { state.withLock { $0.needsRescan = true } }
    scheduleEvaluation()
  }

  private func scheduleEvaluation() {
    let now = DispatchTime.now().uptimeNanoseconds
    let delay = state.withLock { state -> UInt64? in
      state.lastActivity = now
      if state.evaluationScheduled || state.removed { return nil }
      state.evaluationScheduled = true
      let sinceLast = now &- state.lastEvaluation
      return sinceLast < Self.coalescingWindow ? max(Self.settleTime, Self.coalescingWindow - sinceLast) : Self.settleTime
    }
    if let delay {
      tracking.asyncAfter(deadline: .now() + .nanoseconds(Int(delay))) { [weak self] in self?.evaluate() }
    }
  }

  /// Looks at the item now and reports what changed since the last look. Runs on `tracking`.
  private func evaluate(reporting: Bool = true) {
    enum Finding {
      case nothing, changed
      case moved(String)
      case deleted, appeared
    }
    let snapshot = state.withLock {
      state -> (path: String, fd: Int32, signature: Signature?, subitems: Set<String>, rescan: Bool, isPolled: Bool)? in
      state.evaluationScheduled = false
      state.lastEvaluation = DispatchTime.now().uptimeNanoseconds
      if state.removed { return nil }
      if state.ownAccesses > 0 && reporting { return nil }  // looked at again when the access ends
      defer {
        state.pendingSubitems = []
        state.needsRescan = false
      }
      return (state.path, state.fd, state.signature, state.pendingSubitems, state.needsRescan, state.isPolled)
    }
    guard let snapshot else { return }
    var finding = Finding.nothing
    let onDisk: Signature? = if case .success(let info) = SystemCalls.lstat(PathText.path(snapshot.path)) { Signature(info) } else { nil }
    if snapshot.fd >= 0, let now = SystemCalls.currentPath(of: FileDescriptor(rawValue: snapshot.fd)) {
      let nowPath = PathText.string(now.path)
      if now.isDeleted {
        finding = onDisk == nil ? .deleted : .changed
        // Behind a polled mount a rename is not the kernel's: the item left its name. Found
        // again by its inode in the same folder, it moved.
        if onDisk == nil, snapshot.isPolled, let old = snapshot.signature, let newPath = Self.entry(like: old, beside: snapshot.path) {
          finding = .moved(newPath)
        }
      } else if nowPath != snapshot.path {
        // Something new at the old path means the old file was renamed away and replaced (as
        // vim's backup dance does): the presenter stays with the path.
        finding = onDisk == nil ? .moved(nowPath) : .changed
      } else if let onDisk, let old = snapshot.signature, onDisk.differs(from: old) {
        finding = .changed
      } else if snapshot.rescan {
        finding = .changed
      }
    } else if onDisk != nil {
      finding = .appeared
    }
    if snapshot.isPolled, onDisk == nil, let old = snapshot.signature, snapshot.fd >= 0 {
      // A FUSE or network mount may keep the old name for the descriptor after the item left
      // it behind the mount: the look by name is what counts there.
      switch finding {
      case .nothing, .changed: finding = Self.entry(like: old, beside: snapshot.path).map { Finding.moved($0) } ?? Finding.deleted
      default: break
      }
    }

    switch finding {
    case .nothing:
      break
    case .changed, .appeared:
      let rearm: Bool
      if case .appeared = finding { rearm = true } else { rearm = onDisk?.inode != snapshot.signature?.inode || onDisk?.device != snapshot.signature?.device }
      if rearm {
        try? arm(path: snapshot.path)
      } else {
        state.withLock { $0.signature = onDisk }
      }
      state.withLock { $0.deletionReported = false }
      if reporting { perform { [presenter] in presenter.presentedItemDidChange() } }
    case .moved(let newPath):
      try? arm(path: newPath)
      onPathChange()
      if reporting {
        let moved = PathText.path(newPath)
        perform { [presenter] in presenter.presentedItemDidMove(toPath: moved) }
      }
    case .deleted:
      let report = state.withLock { state -> Bool in
        defer { state.deletionReported = true }
        if state.fd >= 0 { SystemCalls.release(FileDescriptor(rawValue: state.fd)) }
        state.fd = -1
        state.signature = nil
        return !state.deletionReported
      }
      if reporting && report {
        perform { [presenter] in presenter.accommodatePresentedItemDeletion { _ in } }
      }
    }
    if reporting {
      for name in snapshot.subitems.sorted() {
        let subitem = PathText.path(snapshot.path + "/" + name)
        perform { [presenter] in presenter.presentedSubitemDidChange(atPath: subitem) }
      }
    }
  }

  /// Looks at the item now (a coordinated writer said it changed).
  func evaluateNow() {
    tracking.async { [weak self] in self?.evaluate() }
  }

  // MARK: Polling (where inotify cannot hear everything)

  /// Whether the item is polled as well as watched by inotify, and the file system it is on.
  var polling: (isPolled: Bool, kind: FileSystemKind?) { state.withLock { ($0.isPolled, $0.kind) } }

  private func schedulePoll() {
    let delay = state.withLock { $0.pollDelay }
    tracking.asyncAfter(deadline: .now() + .nanoseconds(Int(min(delay, UInt64(Int.max))))) { [weak self] in self?.poll() }
  }

  /// Looks at the item once (one `lstat`; a folder's entries one `lstat` each) and, when it
  /// differs from what was last seen, evaluates it as an inotify event would be. Runs on
  /// `tracking`, then schedules the next look.
  private func poll() {
    let options = FileCoordinator.pollingOptions
    let look = state.withLock { state -> (path: String, signature: Signature?, digest: Int?, entries: [String: Signature]?, busy: Bool)? in
      if state.removed || !state.isPolled {
        state.pollScheduled = false
        return nil
      }
      return (state.path, state.signature, state.digest, state.entries, state.ownAccesses > 0)
    }
    guard let look else { return }
    var changed = false
    if !look.busy {
      let onDisk: Signature? = if case .success(let info) = SystemCalls.lstat(PathText.path(look.path)) { Signature(info) } else { nil }
      var subitems: Set<String> = []
      var entries: [String: Signature]?
      var digest: Int?
      if onDisk?.isFolder == true {
        let now = Self.entries(of: look.path)
        entries = now
        if let before = look.entries {
          for (name, signature) in now where before[name].map({ signature.differs(from: $0) }) ?? true { subitems.insert(name) }
          for name in before.keys where now[name] == nil { subitems.insert(name) }
        }
      } else if let onDisk, onDisk.isRecentlyModified || look.digest != nil {
        // Contents that may change again within the file system's time granularity: kept
        // while the time is recent, and compared once more after.
        digest = Self.digest(of: look.path)
      }
      let itemChanged: Bool =
        switch (onDisk, look.signature) {
        case (nil, nil): false
        case (let now?, let old?): now.differs(from: old) || (look.digest != nil && digest != nil && look.digest != digest && now == old)
        default: true
        }
      let rescan = itemChanged && onDisk != nil && look.signature != nil && onDisk == look.signature
      changed = itemChanged || !subitems.isEmpty
      let keptDigest = onDisk?.isRecentlyModified == true ? digest : nil
      state.withLock { state in
        state.digest = keptDigest
        if let entries { state.entries = entries }
        state.pendingSubitems.formUnion(subitems)
        if rescan { state.needsRescan = true }
      }
      if changed { evaluate() }
    }
    let now = DispatchTime.now().uptimeNanoseconds
    let reschedule = state.withLock { state -> Bool in
      if state.removed || !state.isPolled {
        state.pollScheduled = false
        return false
      }
      let interval = Self.nanoseconds(options.interval)
      if changed { state.lastActivity = now }
      if changed || now &- state.lastActivity < Self.nanoseconds(options.quietSpellBeforeBackingOff) {
        state.pollDelay = interval
      } else {
        state.pollDelay = min(max(state.pollDelay, interval) * 2, Self.nanoseconds(options.maximumInterval))
      }
      return true
    }
    if reschedule { schedulePoll() }
  }

  /// A folder's direct entries and their signatures (`readdir`, then one `lstat` each).
  static func entries(of folder: String) -> [String: Signature] {
    guard let names = SystemCalls.entryNames(in: PathText.path(folder)) else { return [:] }
    var result: [String: Signature] = [:]
    result.reserveCapacity(names.count)
    let prefix = folder == "/" ? "/" : folder + "/"
    for bytes in names {
      let name = PathText.string(bytes: bytes)
      if case .success(let info) = SystemCalls.lstat(PathText.path(prefix + name)) { result[name] = Signature(info) }
    }
    return result
  }

  /// The entry beside `path` (in its folder) that is the item `signature` describes (same
  /// device and inode), as a path; nil when there is none.
  static func entry(like signature: Signature, beside path: String) -> String? {
    let folder = (path as NSString).deletingLastPathComponent
    let prefix = folder == "/" ? "/" : folder + "/"
    for (name, found) in entries(of: folder) where found.inode == signature.inode && found.device == signature.device {
      let candidate = prefix + name
      if candidate != path { return candidate }
    }
    return nil
  }

  /// A digest of a regular file's contents (at most 16 MiB; nil for larger or unreadable
  /// files), compared only within this process.
  static func digest(of path: String) -> Int? {
    guard let data = SystemCalls.readSmallFile(PathText.path(path), limit: 16 << 20) else { return nil }
    var hasher = Hasher()
    data.withUnsafeBytes { hasher.combine(bytes: $0) }
    return hasher.finalize()
  }

  static func nanoseconds(_ duration: Duration) -> UInt64 {
    let parts = duration.components
    return UInt64(max(0, parts.seconds)) * 1_000_000_000 + UInt64(max(0, parts.attoseconds) / 1_000_000_000)
  }

  // MARK: The registration's own coordinated accesses

  /// The coordinator whose presenter this is starts an access: its own writes are not
  /// reported back to it.
  func beginOwnAccess() {
    state.withLock { $0.ownAccesses += 1 }
  }

  /// The own access ended: take in what it did (new inode, new size) without reporting it.
  func endOwnAccess() {
    tracking.sync {
      let last = state.withLock { state -> Bool in
        state.ownAccesses -= 1
        return state.ownAccesses == 0
      }
      if last {
        state.withLock { $0.pendingSubitems = [] }
        evaluate(reporting: false)
      }
    }
  }

  /// A coordinated move by this presenter's own coordinator: follow it silently.
  func follow(to newPath: String) {
    tracking.sync { try? arm(path: newPath) }
    onPathChange()
  }

  // MARK: Messages from coordinators

  /// A coordinated access is about to start: save, relinquish, or accommodate a deletion, as
  /// `kind` says, then call `done`.
  func prepare(_ kind: WireMessage.Kind, withoutChanges: Bool, token: String, done finish: @escaping @Sendable () -> Void) {
    let presenter = self.presenter
    // A presenter that calls its completion handler or reader twice must not answer twice.
    let answered = Mutex(false)
    let done: @Sendable () -> Void = {
      if answered.withLock({ old in
        defer { old = true }
        return !old
      }) {
        finish()
      }
    }
    perform { [self] in
      let relinquish: @Sendable () -> Void = {
        let relinquished = Mutex(false)
        let handler: @Sendable ((@Sendable () -> Void)?) -> Void = { reacquirer in
          guard
            relinquished.withLock({ old in
              defer { old = true }
              return !old
            })
          else { return }
          if let reacquirer { self.state.withLock { $0.reacquirers[token, default: []].append(reacquirer) } }
          done()
        }
        if kind == .read {
          presenter.relinquishPresentedItem(toReader: handler)
        } else {
          presenter.relinquishPresentedItem(toWriter: handler)
        }
      }
      switch kind {
      case .read:
        if withoutChanges { relinquish() } else { presenter.savePresentedItemChanges { _ in self.perform(relinquish) } }
      case .merge:
        presenter.savePresentedItemChanges { _ in self.perform(relinquish) }
      case .delete:
        state.withLock { $0.deletionReported = true }
        presenter.accommodatePresentedItemDeletion { _ in self.perform(relinquish) }
      default:
        relinquish()
      }
    }
  }

  /// The coordinated access with `token` ended: call the reacquirers.
  func finish(token: String) {
    let reacquirers = state.withLock { $0.reacquirers.removeValue(forKey: token) } ?? []
    for reacquirer in reacquirers { perform(reacquirer) }
  }

  /// A coordinated writer changed `item`, which is this item or inside it.
  func noteCoordinatedChange(of item: String) {
    switch Relation(presenter: path, item: item) {
    case .same: evaluateNow()
    case .ancestor:
      let subitem = PathText.path(item)
      perform { [presenter] in presenter.presentedSubitemDidChange(atPath: subitem) }
    default: break
    }
  }

  /// A coordinated mover moved `from` to `to`.
  func noteCoordinatedMove(from: String, to: String) {
    let current = path
    switch Relation(presenter: current, item: from) {
    case .same, .descendant:
      let newPath = to + current.dropFirst(from.count)
      tracking.sync { try? arm(path: newPath) }
      onPathChange()
      let moved = PathText.path(newPath)
      perform { [presenter] in presenter.presentedItemDidMove(toPath: moved) }
    case .ancestor:
      for item in [from, to] {
        let subitem = PathText.path(item)
        perform { [presenter] in presenter.presentedSubitemDidChange(atPath: subitem) }
      }
    case .none:
      if Relation(presenter: current, item: to) == .ancestor {
        let subitem = PathText.path(to)
        perform { [presenter] in presenter.presentedSubitemDidChange(atPath: subitem) }
      }
    }
  }
}
