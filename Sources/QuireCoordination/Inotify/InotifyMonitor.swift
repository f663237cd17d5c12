import Foundation
import QuireTypes
internal import CInotifyTools
import Synchronization
import SystemPackage

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

/// The process's one inotify instance, owned by one thread.
///
/// Exactly one thread (started on first use) reads the inotify descriptor and adds or removes
/// watches; other threads send it requests through a queue and wake it through a pipe. It
/// delivers events to each subscriber's `AsyncStream` (or, inside this module, a handler).
/// A watch is armed before ``events(at:kinds:)`` returns, so a change made right after is seen.
///
/// The skeleton drove libinotifytools here. Its watch table is keyed by file name and is not
/// updated when a watched item is renamed or replaced, so a path watched again after an atomic
/// save mapped to the old, dead watch descriptor; and `inotifytools_set_filename_by_wd`
/// rewrites a red-black-tree key in place. Following items through renames needs the real
/// watch descriptors, so the owner thread now calls inotify(7) itself (`inotify_init1`,
/// `inotify_add_watch`, `read`) through the same `CInotifyTools` shim header, keeping the
/// design: one owner thread, an async sequence for the rest.
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

  private enum Request {
    case watch(Subscriber, reply: @Sendable (QuireError?) -> Void)
    case unwatch(id: UInt64)
    case simulateOverflow(prefix: String)
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
    let (stream, continuation) = AsyncStream<FileSystemEvent>.makeStream(bufferingPolicy: .bufferingNewest(4096))
    let id = try subscribe(
      path: path, kinds: kinds,
      deliver: { continuation.yield($0) },
      finish: { continuation.finish() })
    continuation.onTermination = { [weak self] _ in self?.unsubscribe(id) }
    return stream
  }

  /// Watches `path` and calls `deliver` on the owner thread for each event (keep it short).
  /// Returns an id for ``unsubscribe(_:)``.
  func subscribe(
    path: String, kinds: FileSystemEvent.Kind = .everything,
    deliver: @escaping @Sendable (FileSystemEvent) -> Void, finish: @escaping @Sendable () -> Void = {}
  ) throws -> UInt64 {
    try startIfNeeded()
    let id = state.withLock { state -> UInt64 in
      defer { state.nextID += 1 }
      return state.nextID
    }
    let done = DispatchSemaphore(value: 0)
    let result = Mutex<QuireError?>(nil)
    submit(.watch(Subscriber(id: id, kinds: kinds, path: path, deliver: deliver, finish: finish)) { error in
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

  private func submit(_ request: Request) {
    let wake = state.withLock { state -> Int32 in
      state.requests.append(request)
      return state.wakeFD
    }
    var byte: UInt8 = 1
    if wake >= 0 { _ = write(wake, &byte, 1) }
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

  // MARK: Owner thread: the only code that touches the inotify descriptor.

  private func run(ready: DispatchSemaphore) {
    let inotifyFD = inotify_init1(Int32(IN_CLOEXEC))
    var pipeFDs: [Int32] = [-1, -1]
    guard inotifyFD >= 0, pipe(&pipeFDs) == 0 else {
      let code = errno
      state.withLock {
        $0.startError = QuireError(
          .systemCallFailed,
          "Cannot watch files: inotify could not start (\(String(cString: strerror(code)))). Raise fs.inotify.max_user_instances or close other watchers.",
          cause: Errno(rawValue: code))
      }
      ready.signal()
      return
    }
    for fd in pipeFDs {
      _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
      _ = fcntl(fd, F_SETFL, O_NONBLOCK)
    }
    state.withLock { $0.wakeFD = pipeFDs[1] }
    ready.signal()

    var watches: [Int32: [Subscriber]] = [:]
    var watchOf: [UInt64: Int32] = [:]
    let bufferSize = 64 * 1024
    let buffer = UnsafeMutableRawPointer.allocate(byteCount: bufferSize, alignment: 8)
    defer { buffer.deallocate() }
    var polls = [pollfd(fd: inotifyFD, events: Int16(POLLIN), revents: 0), pollfd(fd: pipeFDs[0], events: Int16(POLLIN), revents: 0)]

    while true {
      let requests = state.withLock { state -> [Request] in
        defer { state.requests.removeAll() }
        return state.requests
      }
      for request in requests {
        switch request {
        case .watch(let subscriber, let reply):
          // IN_ALL_EVENTS is a compound macro Swift does not import; every event bit is below 0x1000.
          let mask = UInt32(0x0000_0fff) | UInt32(IN_DONT_FOLLOW)
          let wd: Int32
          if let forced = SyscallFaults.error(for: subscriber.path) {
            errno = forced.rawValue
            wd = -1
          } else {
            wd = inotify_add_watch(inotifyFD, subscriber.path, mask)
          }
          if wd < 0 {
            reply(Self.watchError(subscriber.path, errno))
            continue
          }
          watches[wd, default: []].append(subscriber)
          watchOf[subscriber.id] = wd
          reply(nil)
        case .simulateOverflow(let prefix):
          for (_, list) in watches {
            for s in list where s.path.hasPrefix(prefix) {
              s.deliver(FileSystemEvent(watchedPath: s.path, name: nil, kind: .overflow, cookie: 0))
            }
          }
        case .unwatch(let id):
          guard let wd = watchOf.removeValue(forKey: id) else { continue }
          watches[wd]?.removeAll { $0.id == id }
          if watches[wd]?.isEmpty == true {
            watches[wd] = nil
            _ = inotify_rm_watch(inotifyFD, wd)
          }
        }
      }

      polls[0].revents = 0
      polls[1].revents = 0
      if poll(&polls, 2, -1) < 0 { continue }
      if polls[1].revents != 0 {
        var drain = [UInt8](repeating: 0, count: 256)
        while read(pipeFDs[0], &drain, drain.count) > 0 {}
      }
      guard polls[0].revents != 0 else { continue }
      let count = read(inotifyFD, buffer, bufferSize)
      guard count > 0 else { continue }
      var offset = 0
      let header = MemoryLayout<inotify_event>.size
      while offset + header <= count {
        let event = (buffer + offset).loadUnaligned(as: inotify_event.self)
        var name: String?
        if event.len > 0 {
          let bytes = UnsafeRawBufferPointer(start: buffer + offset + header, count: Int(event.len))
          name = String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
        offset += header + Int(event.len)
        let kind = FileSystemEvent.Kind(rawValue: event.mask)
        if kind.contains(.overflow) {
          for (_, list) in watches {
            for s in list { s.deliver(FileSystemEvent(watchedPath: s.path, name: nil, kind: .overflow, cookie: 0)) }
          }
          continue
        }
        guard let list = watches[event.wd] else { continue }
        for s in list where !s.kinds.intersection(kind).isEmpty {
          s.deliver(FileSystemEvent(watchedPath: s.path, name: name, kind: kind, cookie: event.cookie))
        }
        if kind.contains(.watchRemoved) {
          for s in list {
            watchOf[s.id] = nil
            s.finish()
          }
          watches[event.wd] = nil
        }
      }
    }
  }

  private static func watchError(_ path: String, _ code: Int32) -> QuireError {
    let url = URL(fileURLWithPath: path)
    let cause = Errno(rawValue: code)
    switch code {
    case ENOSPC:
      let limit = (try? String(contentsOfFile: "/proc/sys/fs/inotify/max_user_watches", encoding: .utf8))?
        .trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
      return QuireError(
        .limitExceeded,
        "Cannot watch '\(path)': the inotify watch limit (fs.inotify.max_user_watches = \(limit)) is reached. Raise it with sysctl, or watch fewer files.",
        url: url, cause: cause)
    case ENOENT, ENOTDIR:
      return QuireError(.fileMissing, "Cannot watch '\(path)': it does not exist. Check the path.", url: url, cause: cause)
    case EACCES, EPERM:
      return QuireError(.permissionDenied, "Cannot watch '\(path)': permission denied. Check the folder's permissions.", url: url, cause: cause)
    default:
      return QuireError(.systemCallFailed, "Cannot watch '\(path)': \(String(cString: strerror(code))).", url: url, cause: cause)
    }
  }
}

extension FileSystemEvent.Kind {
  /// Every kind.
  public static let everything: FileSystemEvent.Kind = FileSystemEvent.Kind(rawValue: UInt32.max)
}
