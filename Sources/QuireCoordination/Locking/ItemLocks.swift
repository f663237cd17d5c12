public import Foundation
import QuireSystem
import QuireTypes
import Synchronization
import SystemPackage

/// The modes of multi-granularity locking (Gray's intention locks, as databases use them):
/// an item is read (`shared`) or written (`exclusive`), and every folder above it carries the
/// matching intention (`intentionShared`, `intentionExclusive`). Writing a folder thus
/// conflicts with reading or writing anything inside it, and the other way round.
struct LockModes: OptionSet, Hashable, Sendable {
  let rawValue: UInt8
  static let intentionShared = LockModes(rawValue: 1)
  static let intentionExclusive = LockModes(rawValue: 2)
  static let shared = LockModes(rawValue: 4)
  static let exclusive = LockModes(rawValue: 8)

  static let each: [LockModes] = [.intentionShared, .intentionExclusive, .shared, .exclusive]

  /// The byte of the lock file that holders of this (single) mode read-lock.
  var byte: Int {
    switch self {
    case .intentionShared: 1
    case .intentionExclusive: 2
    case .shared: 3
    default: 4
    }
  }

  /// The modes that cannot be held together with this set (the MGL compatibility matrix).
  var conflicts: LockModes {
    var result: LockModes = []
    if contains(.intentionShared) { result.formUnion(.exclusive) }
    if contains(.intentionExclusive) { result.formUnion([.shared, .exclusive]) }
    if contains(.shared) { result.formUnion([.intentionExclusive, .exclusive]) }
    if contains(.exclusive) { result.formUnion([.intentionShared, .intentionExclusive, .shared, .exclusive]) }
    return result
  }

  var label: String {
    if contains(.exclusive) { return "writing" }
    if contains(.shared) { return contains(.intentionExclusive) ? "reading (and writing inside)" : "reading" }
    if contains(.intentionExclusive) { return "writing inside" }
    return "reading inside"
  }
}

/// One lock file to take, with its modes, in the global order.
struct LockTarget: Sendable {
  var path: String
  var modes: LockModes
  /// The item the caller asked for (recorded for "who holds it" messages).
  var item: String
}

/// What was learnt about one holder of an item's lock, from its record in the lock file.
public struct LockHolder: Sendable, Hashable, CustomStringConvertible {
  /// The holder's process id.
  public var processID: Int32
  /// The holder's program name (`/proc/PID/comm`).
  public var program: String
  /// What the holder does: "reading", "writing", "writing inside" …
  public var access: String
  /// The item the holder asked for (the locked item or one inside it).
  public var item: String
  /// When the holder got its access.
  public var since: Date

  public var description: String {
    let seconds = max(0, Date().timeIntervalSince(since))
    let clock = ISO8601DateFormatter().string(from: since)
    return "process \(processID) (\(program)) \(access) '\(item)' since \(clock) (\(String(format: "%.1f", seconds)) s)"
  }
}

/// The lock files and their byte layout.
///
/// One lock file per coordinated path, named by a 64-bit FNV-1a hash of the path, under
/// `CoordinationLocation.locksPath`. Each access opens its own descriptor, so each access is
/// its own open file description and `F_OFD_SETLK` locks conflict between threads of one
/// process exactly as between processes; closing the descriptor (or the process dying)
/// releases everything. Bytes:
/// - 0: the turnstile. An acquirer that meets a conflict takes it (write lock) and keeps it
///   while it waits for the holders to leave; newcomers see it taken and queue behind it
///   instead of overtaking it (no writer starvation).
/// - 1…4: one byte per mode (IS, IX, S, X). Holders read-lock the bytes of their modes; an
///   acquirer read-locks its own, then checks with `F_OFD_GETLK` that no other description
///   holds a conflicting mode (see ``LockAcquisition/step()``).
/// - 8…71: holder slots. A holder write-locks one slot byte and writes its record (pid,
///   program, access, item, since) at 4096 + 256 × slot, so a waiter can say who is in the
///   way. A slot whose byte is unlocked is stale (its holder died or left).
///
/// Lock files are never deleted: unlinking a lock file that another process has open would
/// split the lock in two. They are small and live on the runtime tmpfs.
enum ItemLocks {
  static let turnstileByte = 0
  static let slotBase = 8
  static let slotCount = 64
  static let recordBase = 4096
  static let recordSize = 256

  /// The lock files for reading `reads` and writing `writes`, in the global order (path
  /// components compared in turn, so folders come before what they contain).
  static func plan(reading reads: [String], writing writes: [String]) -> [LockTarget] {
    var modes: [String: LockModes] = [:]
    var items: [String: String] = [:]
    func add(_ item: String, writing: Bool) {
      let components = item.split(separator: "/", omittingEmptySubsequences: true)
      var path = "/"
      for (index, component) in components.enumerated() {
        let intention: LockModes = writing ? .intentionExclusive : .intentionShared
        modes[path, default: []].formUnion(intention)
        if items[path] == nil { items[path] = item }
        path += (index == 0 ? "" : "/") + component
      }
      modes[path, default: []].formUnion(writing ? .exclusive : .shared)
      items[path] = item
    }
    for path in reads { add(path, writing: false) }
    for path in writes { add(path, writing: true) }
    return modes.keys
      .sorted { a, b in a.split(separator: "/").lexicographicallyPrecedes(b.split(separator: "/")) }
      .map { LockTarget(path: $0, modes: modes[$0] ?? [], item: items[$0] ?? $0) }
  }

  /// The lock file's name for `path`: FNV-1a 64 of its bytes, in hex.
  static func fileName(for path: String) -> String {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in path.utf8 {
      hash ^= UInt64(byte)
      hash = hash &* 0x0000_0100_0000_01b3
    }
    let hex = String(hash, radix: 16)
    return String(repeating: "0", count: 16 - hex.count) + hex + ".lock"
  }

  private static let preparedFolders = Mutex<Set<String>>([])

  /// The locks folder of `location`, created on first use.
  static func folder(_ location: CoordinationLocation, for item: URL?) throws -> String {
    let path = location.locksPath
    if preparedFolders.withLock({ $0.contains(path) }) { return path }
    let made = try location.prepareFolder("locks", for: item)
    preparedFolders.withLock { _ = $0.insert(path) }
    return made
  }

  /// The live holders recorded in the lock file open as `fd`, other than this description.
  static func holders(of fd: Int32) -> [LockHolder] {
    var result: [LockHolder] = []
    for slot in 0..<slotCount {
      guard case .success(true) = SystemCalls.isLockedByOthers(FileDescriptor(rawValue: fd), against: .write, start: slotBase + slot) else { continue }
      let bytes = SystemCalls.read(FileDescriptor(rawValue: fd), count: recordSize, at: recordBase + recordSize * slot)
      let text = String(decoding: bytes.prefix { $0 != 0 && $0 != 10 }, as: UTF8.self)
      let fields = text.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
      guard fields.count == 5, let pid = Int32(fields[0]), let millis = Double(fields[3]) else { continue }
      result.append(
        LockHolder(
          processID: pid, program: fields[1], access: fields[2], item: fields[4],
          since: Date(timeIntervalSince1970: millis / 1000)))
    }
    return result.sorted { $0.since < $1.since }
  }
}

/// Locks held by one coordinated access; `release()` closes every descriptor, which drops
/// every lock they carry.
final class HeldLocks: @unchecked Sendable {
  // `fds` is written only by the acquiring thread before the value is shared and read once
  // by `release()`, which the owner calls exactly once.
  private var fds: [Int32]
  private var released = false

  init(fds: [Int32]) { self.fds = fds }

  func release() {
    guard !released else { return }
    released = true
    for fd in fds.reversed() { SystemCalls.release(FileDescriptor(rawValue: fd)) }
    fds.removeAll()
  }

  deinit {
    if !released {
      assertionFailure("coordinated access leaked its locks")
      for fd in fds { SystemCalls.release(FileDescriptor(rawValue: fd)) }
    }
  }
}

/// One acquisition in progress: takes the targets in order, one `step()` at a time, so the
/// same code serves blocking callers (which sleep between steps) and async ones (which
/// `Task.sleep` and notice cancellation).
final class LockAcquisition {
  private let targets: [LockTarget]
  private let folder: String
  private let item: URL
  private var index = 0
  private var fds: [Int32] = []
  private var currentFD: Int32 = -1
  private var holdsTurnstile = false
  /// Set while waiting: the target whose holders are in the way.
  private(set) var waitingOn: String?
  /// Whether the last wait was for the turnstile (another acquirer waits ahead of this one).
  private(set) var isQueuedBehindAnother = false

  /// Lock files the acquiring task already holds: it may take them again without queueing.
  private let heldByThisTask: Set<String>

  init(targets: [LockTarget], folder: String, item: URL, heldByThisTask: Set<String> = []) {
    self.heldByThisTask = heldByThisTask
    self.targets = targets
    self.folder = folder
    self.item = item
  }

  deinit {
    if currentFD >= 0 { SystemCalls.release(FileDescriptor(rawValue: currentFD)) }
    for fd in fds { SystemCalls.release(FileDescriptor(rawValue: fd)) }
  }

  /// Takes as many targets as possible without waiting. Returns the held locks when all are
  /// taken, nil when the caller must wait and call again.
  ///
  /// Both paths lock first and check second (each acquirer read-locks its own mode bytes,
  /// then asks whether another description holds a conflicting one), so of two acquirers
  /// racing for conflicting modes at least one sees the other and backs off.
  /// - Fast path, without the turnstile: taken when nothing conflicts and no one holds the
  ///   turnstile. Compatible requests (every reader, every intention lock on `/`) never
  ///   contend on a shared byte.
  /// - Slow path: take the turnstile, then retry until nothing conflicts, keeping the
  ///   turnstile while waiting so that later arrivals queue behind.
  func step() throws -> HeldLocks? {
    while index < targets.count {
      let target = targets[index]
      if currentFD < 0 {
        let path = folder + "/" + ItemLocks.fileName(for: target.path)
        switch SystemCalls.open(FilePath(path), O_RDWR | O_CREAT | O_NOFOLLOW).map(\.rawValue).mapError(\.errno) {
        case .success(let fd): currentFD = fd
        case .failure(let code): throw failure("open the lock file '\(path)'", code)
        }
        triedFastPath = false
      }
      let mayPassQueue = heldByThisTask.contains(target.path)
      if !triedFastPath || mayPassQueue {
        triedFastPath = true
        try lockOwnModes(target)
        if try !conflicts(target), try mayPassQueue || !turnstileIsTaken(target) {
          finishTarget(target)
          continue
        }
        unlockOwnModes(target)
        if mayPassQueue {
          waitingOn = target.path
          return nil  // a real conflict: wait for it without taking the turnstile
        }
      }
      if !holdsTurnstile {
        switch SystemCalls.lock(FileDescriptor(rawValue: currentFD), .write, start: ItemLocks.turnstileByte).mapError(\.errno) {
        case .success(true):
          holdsTurnstile = true
          isQueuedBehindAnother = false
        case .success(false):
          waitingOn = target.path
          isQueuedBehindAnother = true
          return nil
        case .failure(let code): throw failure("lock '\(target.path)'", code)
        }
      }
      try lockOwnModes(target)
      if try conflicts(target) {
        unlockOwnModes(target)
        waitingOn = target.path
        return nil  // keep the turnstile: newcomers queue behind us
      }
      finishTarget(target)
    }
    let held = HeldLocks(fds: fds)
    fds.removeAll()
    return held
  }

  private var triedFastPath = false

  private func lockOwnModes(_ target: LockTarget) throws {
    for mode in LockModes.each where target.modes.contains(mode) {
      if case .failure(let code) = SystemCalls.lock(FileDescriptor(rawValue: currentFD), .read, start: mode.byte).mapError(\.errno) {
        throw failure("lock '\(target.path)'", code)
      }
    }
  }

  private func unlockOwnModes(_ target: LockTarget) {
    for mode in LockModes.each where target.modes.contains(mode) {
      SystemCalls.unlock(FileDescriptor(rawValue: currentFD), start: mode.byte)
    }
  }

  private func conflicts(_ target: LockTarget) throws -> Bool {
    for mode in LockModes.each where target.modes.conflicts.contains(mode) {
      switch SystemCalls.isLockedByOthers(FileDescriptor(rawValue: currentFD), against: .write, start: mode.byte).mapError(\.errno) {
      case .success(false): continue
      case .success(true): return true
      case .failure(let code): throw failure("test the lock of '\(target.path)'", code)
      }
    }
    return false
  }

  private func turnstileIsTaken(_ target: LockTarget) throws -> Bool {
    switch SystemCalls.isLockedByOthers(FileDescriptor(rawValue: currentFD), against: .write, start: ItemLocks.turnstileByte).mapError(\.errno) {
    case .success(let taken): return taken
    case .failure(let code): throw failure("test the lock of '\(target.path)'", code)
    }
  }

  private func finishTarget(_ target: LockTarget) {
    recordHolder(target)
    if holdsTurnstile {
      SystemCalls.unlock(FileDescriptor(rawValue: currentFD), start: ItemLocks.turnstileByte)
      holdsTurnstile = false
    }
    fds.append(currentFD)
    currentFD = -1
    index += 1
    waitingOn = nil
  }

  /// Gives up: drops everything taken so far (the turnstile too).
  func abandon() {
    if currentFD >= 0 { SystemCalls.release(FileDescriptor(rawValue: currentFD)) }
    currentFD = -1
    holdsTurnstile = false
    for fd in fds.reversed() { SystemCalls.release(FileDescriptor(rawValue: fd)) }
    fds.removeAll()
  }

  /// The holders in the way of the target being waited for.
  func blockingHolders() -> [LockHolder] {
    guard currentFD >= 0 else { return [] }
    return ItemLocks.holders(of: currentFD)
  }

  private func recordHolder(_ target: LockTarget) {
    let start = Int(getpid()) % ItemLocks.slotCount
    for offset in 0..<ItemLocks.slotCount {
      let slot = (start + offset) % ItemLocks.slotCount
      guard case .success(true) = SystemCalls.lock(FileDescriptor(rawValue: currentFD), .write, start: ItemLocks.slotBase + slot) else { continue }
      let millis = Int64(Date().timeIntervalSince1970 * 1000)
      var line = "\(getpid())\t\(SystemCalls.ownProgramName)\t\(target.modes.label)\t\(millis)\t\(target.item)"
      if line.utf8.count > ItemLocks.recordSize - 2 { line = String(decoding: Array(line.utf8.prefix(ItemLocks.recordSize - 2)), as: UTF8.self) }
      var bytes = Array(line.utf8) + [10]
      bytes += [UInt8](repeating: 0, count: ItemLocks.recordSize - bytes.count)
      _ = SystemCalls.writeAll(FileDescriptor(rawValue: currentFD), bytes, at: ItemLocks.recordBase + ItemLocks.recordSize * slot)
      return
    }
  }

  private func failure(_ what: String, _ code: Errno) -> QuireError {
    QuireError(
      QuireError.Code(code, for: .lock),
      "Cannot coordinate access to \(QuireError.name(item)): could not \(what) (\(QuireError.describe(code))). Check that the lock folder '\(folder)' is writable, or set XDG_RUNTIME_DIR to a writable folder.",
      url: item, cause: code)
  }
}
