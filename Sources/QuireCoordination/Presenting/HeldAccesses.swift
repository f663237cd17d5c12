import Foundation
import QuireSystem
import Synchronization
import SystemPackage

/// The connections of accesses that other processes hold on items this process presents,
/// watched by one thread for the whole process (a thread per held access made one each).
///
/// A coordinator keeps the connection while it holds the item and writes `finish` when done;
/// if it dies instead, the kernel closes the connection. Either way the connection becomes
/// readable: the watcher reads what came, closes it and runs its `ended` work.
final class HeldAccesses: Sendable {
  /// The one watcher of the process.
  static let shared = HeldAccesses()

  private struct State {
    var ended: [Int32: @Sendable () -> Void] = [:]
    var wake: (read: FileDescriptor, write: FileDescriptor)?
    var threadsStarted = 0
  }
  private let state = Mutex(State())

  /// How many connections are watched now.
  var count: Int { state.withLock { $0.ended.count } }
  /// How many watcher threads this watcher started: one, once it watched anything.
  var threadsStarted: Int { state.withLock { $0.threadsStarted } }

  /// Watches `connection` (taking it over: it is closed when the access ends) and runs
  /// `ended` then, on the watcher's thread.
  func watch(_ connection: Int32, ended: @escaping @Sendable () -> Void) {
    let wake: FileDescriptor? = state.withLock { state in
      state.ended[connection] = ended
      if let wake = state.wake { return wake.write }
      // The first access: the wake pipe and the thread, once for the process.
      guard case .success(let made) = SystemCalls.pipe(nonBlocking: true) else { return nil }
      state.wake = made
      state.threadsStarted += 1
      DedicatedThread.start(named: "quire.presenters.held") { [self] in run(wake: made.read) }
      return nil
    }
    if let wake {
      _ = SystemCalls.writeAll(wake, [UInt8(1)])  // a full pipe already wakes the thread
    } else if state.withLock({ $0.wake == nil }) {
      // No pipe could be made: this access is watched the old way rather than not at all.
      DedicatedThread.start(named: "quire.presenters.held") { [self] in end(connection, waiting: true) }
    }
  }

  private func run(wake: FileDescriptor) {
    var drained = [UInt8](repeating: 0, count: 256)
    while true {
      let watched = state.withLock { Array($0.ended.keys) }
      let ready = SystemCalls.waitReadable([wake] + watched.map(FileDescriptor.init(rawValue:)), milliseconds: -1)
      if ready.first == true {
        while case .success(let n) = drained.withUnsafeMutableBytes({ SystemCalls.read(wake, into: $0) }), n > 0 {}
      }
      for (index, connection) in watched.enumerated() where ready[index + 1] {
        end(connection, waiting: false)
      }
    }
  }

  /// Reads what the coordinator sent (a line, or the end), closes the connection and runs its work.
  private func end(_ connection: Int32, waiting: Bool) {
    let fd = FileDescriptor(rawValue: connection)
    // Readable now: the line (or the end) is there; a short limit keeps a half line from
    // holding the watcher.
    UnixSocket.setTimeout(connection, seconds: waiting ? 0 : 1)
    _ = SystemCalls.readLine(fd)
    guard let ended = state.withLock({ $0.ended.removeValue(forKey: connection) }) else { return }
    SystemCalls.release(fd)
    ended()
  }
}
