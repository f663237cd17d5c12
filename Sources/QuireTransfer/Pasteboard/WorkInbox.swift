import Foundation
import QuireSystem
import QuireTypes
import Synchronization
import SystemPackage

/// Work for a desktop connection's own thread (the X11 ``SelectionLoop``, the Wayland
/// ``DataControlLoop``): other threads post closures here, and the thread runs them between
/// events. A pipe whose read end the thread polls beside its socket gets a byte per post, so
/// the thread wakes for work as it does for the server.
final class WorkInbox<Loop>: Sendable {
  private let work = Mutex<[@Sendable (Loop) -> Void]>([])
  /// The read end the owner thread polls.
  let wakeDescriptor: Int32
  private let wakeWriter: Int32

  /// - Parameter display: The display's name, for the error when no pipe can be made.
  init(for display: String) throws {
    switch SystemCalls.pipe(nonBlocking: true) {
    case .success(let ends):
      wakeDescriptor = ends.read.rawValue
      wakeWriter = ends.write.rawValue
    case .failure(let failure):
      throw QuireError(
        QuireError.Code(failure.errno), "Cannot watch the display '\(display)': no wake pipe could be made (\(failure.errno)).", cause: failure)
    }
  }

  /// Closes the pipe, for a connection that never started.
  func close() {
    SystemCalls.release(FileDescriptor(rawValue: wakeDescriptor))
    SystemCalls.release(FileDescriptor(rawValue: wakeWriter))
  }

  /// Queues `closure` for the owner thread and wakes it.
  func post(_ closure: @escaping @Sendable (Loop) -> Void) {
    work.withLock { $0.append(closure) }
    _ = SystemCalls.writeAll(FileDescriptor(rawValue: wakeWriter), [UInt8(1)])  // a full pipe already wakes the loop
  }

  /// The closures posted so far, taken out (the owner thread calls this).
  func take() -> [@Sendable (Loop) -> Void] {
    var drained = [UInt8](repeating: 0, count: 256)
    while case .success(let count) = drained.withUnsafeMutableBytes({ SystemCalls.read(FileDescriptor(rawValue: wakeDescriptor), into: $0) }), count > 0 {}
    return work.withLock { work in
      defer { work = [] }
      return work
    }
  }
}

extension WorkInbox {
  /// Runs `work` on the owner thread and waits for its result (at most `timeout`). Used for
  /// quick round trips to the server, never for waiting on other programs.
  ///
  /// - Parameters:
  ///   - failure: The connection's failure, thrown at once when it broke.
  ///   - description: The display, for the timeout's message ("the X display ':0'").
  func perform<Value: Sendable>(
    failure: QuireError?, description: String, timeout: Duration = .seconds(30), _ work: @escaping @Sendable (Loop) throws -> Value
  ) throws -> Value {
    if let failure { throw failure }
    let result = Mutex<Result<Value, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    post { loop in
      result.withLock { $0 = Result { try work(loop) } }
      done.signal()
    }
    if done.wait(timeout: .now() + timeout.timeInterval) == .timedOut {
      throw QuireError(.timedOut, "\(description.capitalizedFirst) did not answer within \(timeout).")
    }
    guard let outcome = result.withLock({ $0 }) else { throw QuireError(.libraryFailure, "The connection to \(description) lost a request.") }
    return try outcome.get()
  }
}
