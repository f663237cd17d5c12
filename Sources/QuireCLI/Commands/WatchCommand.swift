import ArgumentParser
import Foundation
import Quire
import Synchronization

/// `quire watch PATH…`: presents each path and prints every message its presenter receives,
/// one per line: `changed PATH`, `moved OLD -> NEW`, `deleted PATH`, `subitem-changed PATH`,
/// and for coordinated access by other processes `save-requested PATH`,
/// `relinquished-to-reader PATH`, `relinquished-to-writer PATH`, `reacquired PATH`.
struct WatchCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "watch",
    abstract: "Print the changes a presenter of each path hears about, one per line.",
    discussion: "Runs until interrupted, or until --count messages or --seconds have passed.")

  @Argument(help: "Files or folders to watch.") var paths: [String]
  @Option(help: "Stop after this many messages.") var count: Int?
  @Option(help: "Stop after this many seconds.") var seconds: Double?
  @Option(help: "Coordinate through this folder instead of $XDG_RUNTIME_DIR.") var runtimeFolder: String?

  func validate() throws {
    if paths.isEmpty { throw ValidationError("Give at least one path to watch.") }
    if let count, count < 1 { throw ValidationError("--count must be at least 1.") }
    if let seconds, !(seconds > 0) { throw ValidationError("--seconds must be positive.") }
  }

  func run() async throws {
    let location = runtimeFolder.map { CoordinationLocation(runtimeFolder: URL(fileURLWithPath: $0)) } ?? .default
    if let note = location.fallbackNote {
      FileHandle.standardError.write(Data("quire: \(note)\n".utf8))
    }
    let printer = WatchPrinter(limit: count)
    var presenters: [WatchPresenter] = []
    defer { for presenter in presenters { FileCoordinator.removeFilePresenter(presenter) } }
    for path in paths {
      let url = URL(fileURLWithPath: path).standardizedFileURL
      guard FileManager.default.fileExists(atPath: url.path) else {
        throw InputFile.missingError(url, for: "watch")
      }
      let presenter = WatchPresenter(url: url, printer: printer)
      try FileCoordinator.addFilePresenter(presenter, location: location)
      presenters.append(presenter)
    }
    let deadline = seconds.map { ContinuousClock.now + .milliseconds(Int($0 * 1000)) }
    // SIGINT and SIGTERM end the watch cleanly: the presenters are removed (the defer above),
    // which takes this process's PID.sock and PID.json out of the presenters folder.
    if QuireCommand.ownsProcess { Interrupt.install(for: [SIGINT, SIGTERM]) }
    while !Task.isCancelled, !Interrupt.shared.isPending {
      if let count, printer.printed >= count { break }
      if let deadline, ContinuousClock.now >= deadline { break }
      try? await Task.sleep(for: .milliseconds(10))
    }
  }
}

/// Prints whole lines, one writer at a time, and counts them; with a `limit` (`--count`),
/// lines after the limit are not printed (presenters may hear a second message before the
/// watch loop sees the first).
final class WatchPrinter: Sendable {
  private let count = Mutex(0)
  private let limit: Int?
  var printed: Int { count.withLock { $0 } }

  init(limit: Int? = nil) { self.limit = limit }

  func say(_ line: String) {
    count.withLock { count in
      if let limit, count >= limit { return }
      FileHandle.standardOutput.write(Data((line + "\n").utf8))
      count += 1
    }
  }
}

/// A presenter that prints what it hears and answers every request at once.
final class WatchPresenter: FilePresenter {
  private let url: Mutex<URL>
  private let printer: WatchPrinter

  init(url: URL, printer: WatchPrinter) {
    self.url = Mutex(url)
    self.printer = printer
  }

  var presentedItemURL: URL? { url.withLock { $0 } }
  private var path: String { url.withLock { $0.path } }

  func savePresentedItemChanges(completionHandler: @escaping @Sendable ((any Error)?) -> Void) {
    printer.say("save-requested \(path)")
    completionHandler(nil)
  }

  func relinquishPresentedItem(toReader reader: @escaping @Sendable ((@Sendable () -> Void)?) -> Void) {
    printer.say("relinquished-to-reader \(path)")
    reader { self.printer.say("reacquired \(self.path)") }
  }

  func relinquishPresentedItem(toWriter writer: @escaping @Sendable ((@Sendable () -> Void)?) -> Void) {
    printer.say("relinquished-to-writer \(path)")
    writer { self.printer.say("reacquired \(self.path)") }
  }

  func accommodatePresentedItemDeletion(completionHandler: @escaping @Sendable ((any Error)?) -> Void) {
    printer.say("deleted \(path)")
    completionHandler(nil)
  }

  func presentedItemDidMove(to newURL: URL) {
    let old = url.withLock { url in
      defer { url = newURL }
      return url.path
    }
    printer.say("moved \(old) -> \(newURL.path)")
  }

  func presentedItemDidChange() { printer.say("changed \(path)") }

  func presentedSubitemDidChange(at url: URL) { printer.say("subitem-changed \(url.path)") }
}
