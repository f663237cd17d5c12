import Foundation
import QuireSystem
import QuireTypes
import Synchronization
import SystemPackage

/// A message between a coordinator and the presenters of a process, one JSON line on a Unix
/// domain socket.
struct WireMessage: Codable, Sendable {
  enum Kind: String, Codable, Sendable {
    /// Prepare for a read: save (unless `withoutChanges`), relinquish to a reader.
    case read
    /// Prepare for a write: relinquish to a writer.
    case write
    /// Prepare for a merging write: save, relinquish to a writer.
    case merge
    /// Prepare for a deletion: accommodate it, relinquish to a writer.
    case delete
    /// The access `token` ended: reacquire.
    case finish
    /// `paths[0]` was written.
    case change
    /// `paths[0]` moved to `paths[1]`.
    case move
  }

  var kind: Kind
  var paths: [String]
  var token: String
  var withoutChanges: Bool = false

  var waitsForPresenters: Bool { [.read, .write, .merge, .delete].contains(kind) }
}

/// What one process publishes about its presenters: `PID.json` beside `PID.sock` in the
/// registry folder.
struct ProcessEntry: Codable {
  var pid: Int32
  var program: String
  var paths: [String]
}

/// The presenters of this process for one ``CoordinationLocation``, and the registry they are
/// published in.
///
/// Each process with presenters listens on a Unix domain socket `PID.sock` in
/// `XDG_RUNTIME_DIR/quire/presenters/` (0700) and lists its presented paths in `PID.json`.
/// A coordinator reads the entries, contacts the processes whose presenters present the item,
/// a folder above it or something inside it, and waits (up to the presenter timeout) for their
/// answers before it takes its lock. An entry whose socket refuses connections and whose
/// process is gone is deleted by whoever notices. No daemon is involved.
final class PresenterRegistry: Sendable {
  let location: CoordinationLocation

  private struct State {
    var records: [UInt64: PresenterRegistration] = [:]
    var nextID: UInt64 = 1
    var listening = false
    var folder: String?
    /// The listening socket while ``listening``.
    var listener: Int32 = -1
  }

  private let state = Mutex(State())

  private static let registries = Mutex<[CoordinationLocation: PresenterRegistry]>([:])

  /// The registry of this process for `location`.
  static func shared(for location: CoordinationLocation) -> PresenterRegistry {
    registries.withLock { all in
      if let existing = all[location] { return existing }
      let made = PresenterRegistry(location: location)
      all[location] = made
      return made
    }
  }

  /// Every registry this process has made (for removing a presenter wherever it is).
  static var all: [PresenterRegistry] { registries.withLock { Array($0.values) } }

  private init(location: CoordinationLocation) {
    self.location = location
  }

  var registrations: [PresenterRegistration] {
    state.withLock { Array($0.records.values) }.sorted { $0.id < $1.id }
  }

  func registration(for presenter: any FilePresenter) -> PresenterRegistration? {
    state.withLock { $0.records.values.first { $0.presenter === presenter } }
  }

  // MARK: Adding and removing

  func add(_ presenter: any FilePresenter) throws {
    // Paths in the registry are `PathText` strings, as in coordinators' messages: a path
    // presenter's item keeps its bytes.
    let path: String
    if let filePath = presenter.presentedItemPath {
      path = PathText.string(filePath.absoluteNormalized)
    } else if let url = presenter.presentedItemURL {
      path = url.standardizedFileURL.path
    } else {
      throw QuireError(.invalidArgument, "Cannot add a file presenter whose presentedItemURL and presentedItemPath are nil. Give it one first.")
    }
    if registration(for: presenter) != nil { return }
    let url = presenter.presentedItemURL ?? URL(fileURLWithPath: path)
    try startListening(for: url)
    let id = state.withLock { state -> UInt64 in
      defer { state.nextID += 1 }
      return state.nextID
    }
    let registration = PresenterRegistration(id: id, presenter: presenter, path: path) { [weak self] in self?.publish() }
    try registration.start()
    state.withLock { $0.records[id] = registration }
    publish()
  }

  func remove(_ presenter: any FilePresenter) {
    let removed = state.withLock { state -> PresenterRegistration? in
      guard let entry = state.records.first(where: { $0.value.presenter === presenter }) else { return nil }
      state.records[entry.key] = nil
      return entry.value
    }
    guard let removed else { return }
    removed.stop()
    if state.withLock({ $0.records.isEmpty }) {
      stopListening()
    } else {
      publish()
    }
  }

  /// With no presenter left, the process leaves the registry: `PID.sock` and `PID.json` are
  /// removed (so a clean exit leaves nothing behind) and the accept loop ends.
  private func stopListening() {
    listenGate.withLock { _ in
      let (listener, folder) = state.withLock { state -> (Int32, String?) in
        guard state.listening, state.records.isEmpty else { return (-1, nil) }
        defer {
          state.listening = false
          state.folder = nil
          state.listener = -1
        }
        return (state.listener, state.folder)
      }
      guard let folder else { return }
      _ = SystemCalls.remove(folder + "/\(getpid()).json")
      _ = SystemCalls.remove(folder + "/\(getpid()).sock")
      // Wakes the accept loop (accept fails with EINVAL), which closes the socket.
      if listener >= 0 { SystemCalls.shutdown(FileDescriptor(rawValue: listener)) }
    }
  }

  /// Rewrites `PID.json` with the current paths (write beside, then rename over).
  func publish() {
    guard let folder = state.withLock({ $0.folder }) else { return }
    let entry = ProcessEntry(pid: getpid(), program: SystemCalls.ownProgramName, paths: registrations.map(\.path))
    guard let data = try? JSONEncoder().encode(entry) else { return }
    // Readers poll it; it is rewritten whenever presenters come and go: no fsync needed.
    _ = AtomicFile.write(data, to: folder + "/\(getpid()).json", mode: 0o600, durable: false)
  }

  // MARK: Serving other processes

  /// Held while the socket is being set up, so two first presenters do not both bind it.
  private let listenGate = Mutex(())

  private func startListening(for url: URL) throws {
    try listenGate.withLock { _ in try startListeningOnce(for: url) }
  }

  private func startListeningOnce(for url: URL) throws {
    if state.withLock({ $0.listening }) { return }
    let folder = try location.prepareFolder("presenters", for: url)
    let socketPath = folder + "/\(getpid()).sock"
    let listener = try UnixSocket.listen(at: socketPath, for: url)
    state.withLock {
      $0.listening = true
      $0.folder = folder
      $0.listener = listener
    }
    DedicatedThread.start(named: "quire.presenters") { [self] in self.acceptLoop(listener) }
  }

  private func acceptLoop(_ listener: Int32) {
    while true {
      let connection: Int32
      switch SystemCalls.accept(FileDescriptor(rawValue: listener)) {
      case .success(let accepted): connection = accepted.rawValue
      case .failure(let failure) where [EINTR, ECONNABORTED, EMFILE, ENFILE].contains(failure.errno.rawValue):
        continue
      case .failure:
        SystemCalls.release(FileDescriptor(rawValue: listener))
        return
      }
      // Reading and answering a request (a line, up to 10 s) runs in a lane of the blocking executor, so a
      // flood of connections queues instead of starting a thread each. The wait for the end
      // of an access, which lasts as long as the coordinator holds the item, does not take an
      // executor thread (see serve).
      BlockingExecutor.shared.submit(in: Blocking.requests) { [self] in self.serve(connection) }
    }
  }

  private func serve(_ connection: Int32) {
    UnixSocket.setTimeout(connection, seconds: 10)
    guard let line = UnixSocket.readLine(connection), let message = try? JSONDecoder().decode(WireMessage.self, from: Data(line.utf8)) else {
      SystemCalls.release(FileDescriptor(rawValue: connection))
      return
    }
    handle(message, excluding: nil) { [self] in
      _ = UnixSocket.writeAll(connection, "ok\n")
      guard message.waitsForPresenters else {
        SystemCalls.release(FileDescriptor(rawValue: connection))
        return
      }
      // The coordinator keeps the connection while it holds the item and writes "finish" when
      // done; if it dies instead, the kernel closes the connection. Either way: reacquire.
      // One thread of the process watches every such connection.
      HeldAccesses.shared.watch(connection) { [self] in
        BlockingExecutor.shared.submit(in: Blocking.requests) {
          self.handle(WireMessage(kind: .finish, paths: message.paths, token: message.token), excluding: nil) {}
        }
      }
    }
  }

  /// Delivers `message` to this process's presenters it concerns (all but `excluded`), and
  /// calls `done` when those that must answer have answered (at once for notifications).
  func handle(_ message: WireMessage, excluding excluded: PresenterRegistration?, done: @escaping @Sendable () -> Void) {
    let targets = registrations.filter { $0 !== excluded }
    switch message.kind {
    case .read, .write, .merge, .delete:
      let group = DispatchGroup()
      for registration in targets {
        let current = registration.path
        guard
          message.paths.contains(where: {
            let relation = Relation(presenter: current, item: $0)
            return relation == .same || relation == .descendant
          })
        else { continue }
        group.enter()
        registration.prepare(message.kind, withoutChanges: message.withoutChanges, token: message.token) { group.leave() }
      }
      BlockingExecutor.shared.submit(in: Blocking.answers) {
        group.wait()
        done()
      }
    case .finish:
      for registration in targets { registration.finish(token: message.token) }
      done()
    case .change:
      for registration in targets {
        for path in message.paths { registration.noteCoordinatedChange(of: path) }
      }
      done()
    case .move:
      if message.paths.count == 2 {
        for registration in targets { registration.noteCoordinatedMove(from: message.paths[0], to: message.paths[1]) }
      }
      done()
    }
  }

  /// Whether a presenter of this process (other than `excluded`) or of another process
  /// presents `path` itself.
  func isPresented(_ path: String) -> Bool {
    registrations.contains { $0.path == path } || otherProcesses().contains { $0.paths.contains(path) }
  }

  // MARK: Reaching presenters

  /// What a round of messages left behind.
  struct Round {
    /// Each presenter process that did not answer in time.
    var late: [String] = []
    /// Connections to processes whose presenters prepared for the access: written "finish"
    /// and closed when the access ends (or closed by the kernel if this process dies).
    var connections: [Int32] = []
  }

  /// Sends `message` to the presenters it concerns, here (except `excluded`) and in other
  /// processes, and waits up to `timeout` for those that must answer.
  @discardableResult
  func broadcast(_ message: WireMessage, excluding excluded: PresenterRegistration?, timeout: Duration) -> Round {
    let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
    let group = DispatchGroup()
    let late = Mutex<[String]>([])
    let kept = Mutex<[Int32]>([])
    // This process's presenters.
    if registrations.contains(where: { $0 !== excluded }) {
      group.enter()
      handle(message, excluding: excluded) { group.leave() }
    }
    // Other processes' presenters.
    for entry in otherProcesses() where concerns(entry, message) {
      group.enter()
      BlockingExecutor.shared.submit(
        in: Blocking.messages,
        FaultPlan.carry { [self] in
          defer { group.leave() }
          let (outcome, connection) = UnixSocket.send(message, to: socketPath(entry.pid), timeout: seconds, keepOpen: message.waitsForPresenters)
          if let connection { kept.withLock { $0.append(connection) } }
          switch outcome {
          case .answered: break
          case .late:
            late.withLock { $0.append("process \(entry.pid) (\(entry.program))") }
          case .gone:
            if !SystemCalls.processExists(entry.pid) { removeEntry(entry.pid) }
          }
        })
    }
    if group.wait(timeout: .now() + seconds + 0.05) == .timedOut {
      late.withLock { $0.append("a presenter in this process") }
    }
    return Round(late: late.withLock { $0 }, connections: kept.withLock { $0 })
  }

  /// Ends a round: tells this process's presenters and, through the kept connections, the
  /// other processes' presenters that the access `token` is over.
  func finish(_ round: Round, token: String, paths: [String], excluding excluded: PresenterRegistration?) {
    handle(WireMessage(kind: .finish, paths: paths, token: token), excluding: excluded) {}
    for connection in round.connections {
      _ = UnixSocket.writeAll(connection, "finish\n")
      SystemCalls.release(FileDescriptor(rawValue: connection))
    }
  }

  private func concerns(_ entry: ProcessEntry, _ message: WireMessage) -> Bool {
    return entry.paths.contains { presented in
      message.paths.contains { Relation(presenter: presented, item: $0) != .none }
    }
  }

  private func socketPath(_ pid: Int32) -> String { location.presentersPath + "/\(pid).sock" }

  private func removeEntry(_ pid: Int32) {
    _ = SystemCalls.remove(location.presentersPath + "/\(pid).json")
    _ = SystemCalls.remove(socketPath(pid))
  }

  private struct Cache {
    var modified: Int64 = -1
    var entries: [ProcessEntry] = []
  }
  private let cache = Mutex(Cache())

  /// The entries of other processes, re-read only when the registry folder changed.
  func otherProcesses() -> [ProcessEntry] {
    let folder = location.presentersPath
    guard case .success(let info) = SystemCalls.lstat(FilePath(folder)), info.st_mode & S_IFMT == S_IFDIR else { return [] }
    var stamp = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
    if let cached = cache.withLock({ $0.modified == stamp ? $0.entries : nil }) { return cached }
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
    var entries: [ProcessEntry] = []
    var removedAny = false
    for name in names where name.hasSuffix(".json") {
      guard let pid = Int32(name.dropLast(5)), pid != getpid() else { continue }
      // A process that is gone (killed before it could remove its entry) presents nothing:
      // its entry is removed here, so later readers do not read it again.
      guard SystemCalls.processExists(pid) else {
        removeEntry(pid)
        removedAny = true
        continue
      }
      if let entry = Self.readEntry(folder + "/" + name), entry.pid == pid { entries.append(entry) }
    }
    if removedAny, case .success(let after) = SystemCalls.lstat(FilePath(folder)) {
      stamp = Int64(after.st_mtim.tv_sec) * 1_000_000_000 + Int64(after.st_mtim.tv_nsec)
    }
    cache.withLock { $0 = Cache(modified: stamp, entries: entries) }
    return entries
  }

  /// The entry at `path`: a regular file (not followed through a link) of at most 1 MiB,
  /// read as large as it is; nil when it is anything else or not an entry.
  private static func readEntry(_ path: String) -> ProcessEntry? {
    guard case .success(let fd) = SystemCalls.open(FilePath(path), O_RDONLY | O_NOFOLLOW | O_NONBLOCK) else { return nil }
    defer { SystemCalls.release(fd) }
    guard case .success(let info) = SystemCalls.fstat(fd), info.st_mode & S_IFMT == S_IFREG, info.st_size <= 1 << 20,
      case .success(let data) = SystemCalls.readAll(fd, sizeHint: Int(info.st_size))
    else { return nil }
    return try? JSONDecoder().decode(ProcessEntry.self, from: data)
  }
}
