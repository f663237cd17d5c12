import Foundation
import Synchronization

/// What a representation's handler delivered: bytes, or a file valid while the delivery
/// closure runs.
enum Payload: Sendable {
  case data(Data)
  case file(URL)
}

/// The one-shot meeting point of a load: the handler's completion, the timeout and
/// cancellation race, and the first to arrive decides the outcome. Later arrivals are
/// dropped; work registered with ``onStop(_:)`` runs when a timeout or cancellation wins.
final class LoadGate: Sendable {
  private struct State {
    var isFinished = false
    var isStopped = false
    var stopWork: [@Sendable () -> Void] = []
  }
  private let state = Mutex(State())
  private let deliver: @Sendable (Result<Payload, any Error>) -> Void

  init(deliver: @escaping @Sendable (Result<Payload, any Error>) -> Void) { self.deliver = deliver }

  var isFinished: Bool { state.withLock { $0.isFinished } }

  /// Delivers `result` when nothing was delivered before; returns whether it did.
  @discardableResult
  func finish(_ result: Result<Payload, any Error>) -> Bool {
    let isFirst = state.withLock { state in
      if state.isFinished { return false }
      state.isFinished = true
      return true
    }
    if isFirst { deliver(result) }
    return isFirst
  }

  /// Runs `work` when the load is stopped (at once when it already was).
  func onStop(_ work: @escaping @Sendable () -> Void) {
    let runNow = state.withLock { state in
      if state.isStopped { return true }
      state.stopWork.append(work)
      return false
    }
    if runNow { work() }
  }

  /// Stops the handler's work: cancels its progress or task.
  func stop() {
    let work = state.withLock { state in
      state.isStopped = true
      defer { state.stopWork = [] }
      return state.stopWork
    }
    for item in work { item() }
  }
}

/// Holds the `Progress` of a load begun inside a continuation, for the task's cancellation
/// handler.
final class ProgressBox: Sendable {
  private let progress = Mutex<Progress?>(nil)
  private let cancelled = Mutex(false)
  func set(_ value: Progress) {
    progress.withLock { $0 = value }
    if cancelled.withLock({ $0 }) { value.cancel() }
  }
  func cancel() {
    cancelled.withLock { $0 = true }
    progress.withLock { $0 }?.cancel()
  }
}

/// Awaits a completion-handler load, cancelling its progress when the task is cancelled.
func awaitLoad<Value: Sendable>(
  _ start: (@escaping @Sendable (Result<Value, any Error>) -> Void) -> Progress
) async throws -> Value {
  let box = ProgressBox()
  return try await withTaskCancellationHandler {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
      box.set(start { continuation.resume(with: $0) })
    }
  } onCancel: {
    box.cancel()
  }
}

extension Duration {
  var timeInterval: TimeInterval {
    let (seconds, attoseconds) = components
    return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
  }
}
