import Foundation
import QuireCoordination
import Synchronization
import Testing

/// The `quire-coordination-helper` executable, found beside the test bundle in the build folder.
func helperExecutable() throws -> URL {
  let own = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
  var folder = own.deletingLastPathComponent()
  for _ in 0..<4 {
    let candidate = folder.appendingPathComponent("quire-coordination-helper")
    if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
    folder.deleteLastPathComponent()
  }
  throw HelperError("quire-coordination-helper is not built beside \(own.path); run `swift build --build-tests` first")
}

struct HelperError: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}

/// A running helper process with its standard output gathered line by line.
final class HelperProcess: Sendable {
  let process: Process
  private let lines = Mutex<[String]>([])
  private let input: Pipe

  /// Starts the helper with `arguments` (no shell involved).
  init(_ arguments: [String]) throws {
    process = Process()
    process.executableURL = try helperExecutable()
    process.arguments = arguments
    let output = Pipe()
    input = Pipe()
    process.standardOutput = output
    process.standardInput = input
    let reader = output.fileHandleForReading
    try process.run()
    let box = self
    Thread.detachNewThread {
      var pending = Data()
      while true {
        let chunk = reader.availableData
        if chunk.isEmpty { break }
        pending += chunk
        while let end = pending.firstIndex(of: 10) {
          let line = String(decoding: pending[pending.startIndex..<end], as: UTF8.self)
          box.lines.withLock { $0.append(line) }
          pending = Data(pending[(end + 1)...])
        }
      }
    }
  }

  var pid: Int32 { process.processIdentifier }

  /// Every line printed so far.
  var output: [String] { lines.withLock { $0 } }

  /// Waits until a line starting with `prefix` appears; returns it, or nil after `seconds`.
  @discardableResult
  func waitForLine(startingWith prefix: String, within seconds: Double = 10) async -> String? {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while true {
      // Look once more after the deadline: the task may have slept past it.
      let late = ContinuousClock.now >= deadline
      if let line = output.first(where: { $0.hasPrefix(prefix) }) { return line }
      if late { return nil }
      try? await Task.sleep(for: .milliseconds(2))
    }
  }

  /// Waits for the process to end (up to `seconds`) and returns its exit status.
  func waitForExit(within seconds: Double = 60) async -> Int32? {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while process.isRunning {
      if ContinuousClock.now > deadline { return nil }
      try? await Task.sleep(for: .milliseconds(5))
    }
    return process.terminationStatus
  }

  /// Closes the helper's standard input (a presenter helper then exits).
  func closeInput() { try? input.fileHandleForWriting.close() }

  /// Sends SIGKILL.
  func kill() { _ = Glibc.kill(process.processIdentifier, SIGKILL) }

  deinit {
    if process.isRunning { _ = Glibc.kill(process.processIdentifier, SIGKILL) }
  }
}

/// Runs a system tool (cp, mv, rm, sh) with an argument array and waits for it.
func runTool(_ path: String, _ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: path)
  process.arguments = arguments
  try process.run()
  process.waitUntilExit()
  #expect(process.terminationStatus == 0, "\(path) \(arguments) failed", sourceLocation: sourceLocation)
}

/// A presenter that records what it hears, with the time each message arrived.
final class RecordingPresenter: FilePresenter {
  struct Message: Sendable {
    var text: String
    var at: ContinuousClock.Instant
  }

  private let url: Mutex<URL?>
  private let messages = Mutex<[Message]>([])
  let unsaved = Mutex<String?>(nil)
  let location: CoordinationLocation
  let answers: Bool

  init(_ url: URL, location: CoordinationLocation, answers: Bool = true) {
    self.url = Mutex(url)
    self.location = location
    self.answers = answers
  }

  var presentedItemURL: URL? { url.withLock { $0 } }
  var received: [Message] { messages.withLock { $0 } }
  var texts: [String] { received.map(\.text) }

  private func note(_ text: String) { messages.withLock { $0.append(Message(text: text, at: .now)) } }

  func savePresentedItemChanges(completionHandler: @escaping @Sendable ((any Error)?) -> Void) {
    note("save")
    guard answers else { return }
    if let text = unsaved.withLock({ $0 }), let target = presentedItemURL {
      _ = try? FileCoordinator(filePresenter: self, location: location).coordinate(writingItemAt: target) { url in
        try Data(text.utf8).write(to: url)
      }
      unsaved.withLock { $0 = nil }
    }
    completionHandler(nil)
  }

  func relinquishPresentedItem(toReader reader: @escaping @Sendable ((@Sendable () -> Void)?) -> Void) {
    note("relinquish-to-reader")
    guard answers else { return }
    reader { self.note("reacquire") }
  }

  func relinquishPresentedItem(toWriter writer: @escaping @Sendable ((@Sendable () -> Void)?) -> Void) {
    note("relinquish-to-writer")
    guard answers else { return }
    writer { self.note("reacquire") }
  }

  func accommodatePresentedItemDeletion(completionHandler: @escaping @Sendable ((any Error)?) -> Void) {
    note("deleted")
    completionHandler(nil)
  }

  func presentedItemDidMove(to newURL: URL) {
    url.withLock { $0 = newURL }
    note("moved \(newURL.path)")
  }

  func presentedItemDidChange() { note("changed") }
  func presentedSubitemDidChange(at url: URL) { note("subitem \(url.lastPathComponent)") }

  /// Waits for a message starting with `prefix` that arrived after `since`.
  func waitFor(_ prefix: String, after since: ContinuousClock.Instant? = nil, within seconds: Double = 5) async -> Message? {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while true {
      // Look once more after the deadline: the task may have slept past it.
      let late = ContinuousClock.now >= deadline
      if let found = received.first(where: { message in message.text.hasPrefix(prefix) && (since.map { message.at >= $0 } ?? true) }) { return found }
      if late { return nil }
      try? await Task.sleep(for: .milliseconds(1))
    }
  }
}

/// Waits for `semaphore` on a thread of its own, so that the test's task does not hold one of
/// the few threads of Swift's cooperative pool while it waits.
func waitOffPool(_ semaphore: DispatchSemaphore) async {
  await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
    Thread.detachNewThread {
      semaphore.wait()
      continuation.resume()
    }
  }
}
