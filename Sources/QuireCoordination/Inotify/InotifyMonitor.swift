import Foundation
import QuireTypes
internal import CInotifyTools
import Synchronization

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

  /// The watched path.
  public var watchedPath: String
  /// For events inside a watched folder, the name of the entry concerned.
  public var name: String?
  /// What happened.
  public var kind: Kind
  /// Links a `movedFrom` with its `movedTo` (inotify's cookie), 0 otherwise.
  public var cookie: UInt32

  public var description: String {
    let names = Kind.all.filter { kind.contains($0.0) }.map(\.1).joined(separator: ",")
    return "\(names) \(watchedPath)\(name.map { "/" + $0 } ?? "")"
  }
}

/// The process's one connection to inotify, through libinotifytools.
///
/// libinotifytools keeps process-global state and is not thread-safe, so exactly one thread
/// (started on first use) calls into it. Other threads send it requests through a queue and
/// wake it by touching a private file it watches; it delivers events to each subscriber's
/// `AsyncStream`. A watch is armed before ``events(at:kinds:)`` returns, so a change made
/// right after is seen.
public final class InotifyMonitor: Sendable {
  /// The process-wide monitor.
  public static let shared = InotifyMonitor()

  private struct Subscriber {
    let id: UInt64
    let kinds: FileSystemEvent.Kind
    let continuation: AsyncStream<FileSystemEvent>.Continuation
  }

  private enum Request {
    case watch(path: String, subscriber: Subscriber, reply: @Sendable (QuireError?) -> Void)
    case unwatch(path: String, id: UInt64)
  }

  private struct State {
    var started = false
    var startError: QuireError?
    var requests: [Request] = []
    var wakePath: String?
    var nextID: UInt64 = 1
  }

  // `Request` holds continuations (Sendable) and closures marked @Sendable; the queue is
  // only touched under the mutex.
  private let state = Mutex<State>(State())

  private init() {}

  /// Events for `path` (a file or a folder) as an async sequence, until the sequence is
  /// dropped or the task iterating it is cancelled.
  ///
  /// - Throws: ``QuireError`` naming `path` when it does not exist, inotify's watch limit
  ///   (`fs.inotify.max_user_watches`) is reached, or inotify cannot start.
  public func events(at path: String, kinds: FileSystemEvent.Kind = .everything) throws -> AsyncStream<FileSystemEvent> {
    try startIfNeeded()
    let (stream, continuation) = AsyncStream<FileSystemEvent>.makeStream(bufferingPolicy: .bufferingNewest(4096))
    let id = state.withLock { state -> UInt64 in
      defer { state.nextID += 1 }
      return state.nextID
    }
    let done = DispatchSemaphore(value: 0)
    let result = Mutex<QuireError?>(nil)
    submit(.watch(path: path, subscriber: Subscriber(id: id, kinds: kinds, continuation: continuation)) { error in
      result.withLock { $0 = error }
      done.signal()
    })
    done.wait()
    if let error = result.withLock({ $0 }) {
      continuation.finish()
      throw error
    }
    continuation.onTermination = { [weak self] _ in self?.submit(.unwatch(path: path, id: id)) }
    return stream
  }

  private func submit(_ request: Request) {
    let wake = state.withLock { state -> String? in
      state.requests.append(request)
      return state.wakePath
    }
    // Touching the wake file makes the owner thread's inotifytools_next_event return.
    if let wake { _ = utimes(wake, nil) }
  }

  private func startIfNeeded() throws {
    let ready = DispatchSemaphore(value: 0)
    let shouldStart = state.withLock { state -> Bool in
      if state.started { return false }
      state.started = true
      return true
    }
    if shouldStart {
      let thread = Thread { [self] in self.run(ready: ready) }
      thread.name = "quire.inotify"
      thread.start()
      ready.wait()
    }
    if let error = state.withLock({ $0.startError }) { throw error }
  }

  // MARK: Owner thread: the only code that calls libinotifytools.

  private func run(ready: DispatchSemaphore) {
    guard inotifytools_initialize() != 0 else {
      let code = inotifytools_error()
      state.withLock {
        $0.startError = QuireError(
          .systemCallFailed,
          "Cannot watch files: inotify could not start (\(String(cString: strerror(code)))). Raise fs.inotify.max_user_instances or close other watchers.")
      }
      ready.signal()
      return
    }
    var template = Array((NSTemporaryDirectory() + "/quire-inotify-XXXXXX").utf8CString)
    guard let folder = mkdtemp(&template) else {
      state.withLock { $0.startError = QuireError(.systemCallFailed, "Cannot watch files: no private temporary folder could be made in \(NSTemporaryDirectory()).") }
      ready.signal()
      return
    }
    let wakePath = String(cString: folder) + "/wake"
    let fd = open(wakePath, O_CREAT | O_WRONLY | O_CLOEXEC, 0o600)
    if fd >= 0 { close(fd) }
    let wakeWD = inotifytools_watch_file(wakePath, Int32(IN_ATTRIB)) != 0 ? inotifytools_wd_from_filename(wakePath) : -1
    state.withLock { $0.wakePath = wakePath }
    ready.signal()

    var subscribers: [Int32: (path: String, list: [Subscriber])] = [:]
    while true {
      let requests = state.withLock { state -> [Request] in
        defer { state.requests.removeAll() }
        return state.requests
      }
      for request in requests {
        switch request {
        case .watch(let path, let subscriber, let reply):
          // IN_ALL_EVENTS is a compound macro Swift does not import; every event bit is below 0x1000.
          let mask = Int32(bitPattern: 0x0000_0fff | UInt32(IN_DONT_FOLLOW))
          if inotifytools_watch_file(path, mask) == 0 {
            let code = inotifytools_error()
            let reason = code == ENOSPC
              ? "Cannot watch '\(path)': the inotify watch limit is reached. Raise fs.inotify.max_user_watches (sysctl) or watch fewer files."
              : code == ENOENT
                ? "Cannot watch '\(path)': it does not exist. Check the path."
                : "Cannot watch '\(path)': \(String(cString: strerror(code)))."
            reply(QuireError(code == ENOENT ? .fileMissing : .systemCallFailed, reason, url: URL(fileURLWithPath: path), cause: POSIXErrorCode(rawValue: code).map { POSIXError($0) }))
            continue
          }
          let wd = Self.watchDescriptor(for: path)
          subscribers[wd, default: (path, [])].list.append(subscriber)
          reply(nil)
        case .unwatch(let path, let id):
          let wd = Self.watchDescriptor(for: path)
          subscribers[wd]?.list.removeAll { $0.id == id }
          if subscribers[wd]?.list.isEmpty == true {
            subscribers[wd] = nil
            _ = inotifytools_remove_watch_by_wd(wd)
          }
        }
      }
      guard let event = inotifytools_next_event(-1) else { continue }
      let wd = event.pointee.wd
      if wd == wakeWD { continue }
      let mask = event.pointee.mask
      // The entry name is a NUL-padded flexible array right after the fixed header.
      let name: String? = event.pointee.len > 0
        ? String(cString: UnsafeRawPointer(event).advanced(by: MemoryLayout<inotify_event>.size).assumingMemoryBound(to: CChar.self))
        : nil
      if mask & UInt32(IN_Q_OVERFLOW) != 0 {
        for (_, entry) in subscribers {
          for s in entry.list {
            s.continuation.yield(FileSystemEvent(watchedPath: entry.path, name: nil, kind: .overflow, cookie: 0))
          }
        }
        continue
      }
      guard let entry = subscribers[wd] else { continue }
      let kind = FileSystemEvent.Kind(rawValue: mask)
      for s in entry.list where !s.kinds.intersection(kind).isEmpty {
        s.continuation.yield(FileSystemEvent(watchedPath: entry.path, name: name, kind: kind, cookie: event.pointee.cookie))
      }
      if kind.contains(.watchRemoved) {
        for s in entry.list { s.continuation.finish() }
        subscribers[wd] = nil
      }
    }
  }
}

extension InotifyMonitor {
  /// libinotifytools records folders with a trailing slash, files without.
  private static func watchDescriptor(for path: String) -> Int32 {
    let wd = inotifytools_wd_from_filename(path)
    return wd >= 0 ? wd : inotifytools_wd_from_filename(path + "/")
  }
}

extension FileSystemEvent.Kind {
  /// Every kind.
  public static let everything: FileSystemEvent.Kind = FileSystemEvent.Kind(rawValue: UInt32.max)
}
