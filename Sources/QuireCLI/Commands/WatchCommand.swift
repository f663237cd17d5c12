import ArgumentParser
import Foundation
import Quire
import QuireSystem
import Synchronization
import SystemPackage

/// `quire watch PATH…`: presents each path and prints every message its presenter receives,
/// one per line: `changed PATH`, `moved OLD -> NEW`, `deleted PATH`, `subitem-changed PATH`,
/// and for coordinated access by other processes `save-requested PATH`,
/// `relinquished-to-reader PATH`, `relinquished-to-writer PATH`, `reacquired PATH`.
///
/// A path on a mount where inotify cannot hear every change (NFS, SMB, FUSE: sshfs, rclone,
/// bindfs) is polled as well, and standard error says so (`--poll-interval`, or
/// `QUIRE_POLL_INTERVAL`, sets how often).
///
/// Paths keep their bytes (a name that is not UTF-8 is watched as it is) and are printed
/// escaped (`DisplayName`), so each message is one line and no name can reach the terminal raw.
struct WatchCommand: AsyncParsableCommand, TakesNamesAsBytes, ChecksInputAfterParsing {
  static let configuration = CommandConfiguration(
    commandName: "watch",
    _superCommandName: "quire", abstract: "Print the changes a presenter of each path hears about, one per line.",
    discussion: "Runs until interrupted, or until --count messages or --seconds have passed.")

  // Not a required argument: argument-parser checks those before unknown options, so
  // `quire watch --bogus` would say a path is missing instead of naming --bogus.
  @Argument(help: "Files or folders to watch.") var paths: [String] = []
  @Option(help: "Stop after this many messages.") var count: Int?
  @Option(help: "Stop after this many seconds.") var seconds: Double?
  @Option(help: "Coordinate through this folder instead of $XDG_RUNTIME_DIR.") var runtimeFolder: String?
  @Option(help: "Poll files on network and FUSE mounts every S seconds (default 2, or $QUIRE_POLL_INTERVAL).") var pollInterval: Double?

  func checkInputGiven() throws {
    if paths.isEmpty { throw ValidationError("Give at least one path to watch.") }
  }

  func validate() throws {
    if let count, count < 1 { throw ValidationError("--count must be at least 1.") }
    if let seconds, !(seconds > 0) { throw ValidationError("--seconds must be positive.") }
    if let pollInterval, !(pollInterval >= 0.01 && pollInterval <= 86_400) {
      throw ValidationError("--poll-interval must be between 0.01 and 86400 seconds.")
    }
  }

  func run() async throws {
    let location =
      try runtimeFolder.map { CoordinationLocation(runtimeFolder: try QuireCommand.fileURL($0, for: "coordinate in", isDirectory: true)) } ?? .default
    if let note = location.fallbackNote {
      FileHandle.standardError.write(Data("quire: \(note)\n".utf8))
    }
    if let pollInterval {
      var options = FileCoordinator.pollingOptions
      options = PollingOptions(
        mode: options.mode, interval: .milliseconds(Int64(pollInterval * 1000)),
        maximumInterval: ProcessInfo.processInfo.environment["QUIRE_POLL_MAX_INTERVAL"] == nil ? nil : options.maximumInterval,
        quietSpellBeforeBackingOff: options.quietSpellBeforeBackingOff)
      FileCoordinator.pollingOptions = options
    }
    let printer = WatchPrinter(limit: count)
    var presenters: [WatchPresenter] = []
    defer { for presenter in presenters { FileCoordinator.removeFilePresenter(presenter) } }
    for argument in paths {
      let path = QuireCommand.filePath(argument).absoluteNormalized
      try InputFile.checkExists(path, for: "watch")
      let presenter = WatchPresenter(path: path, printer: printer)
      try FileCoordinator.addFilePresenter(presenter, location: location)
      presenters.append(presenter)
      PollingNotice.say(for: path)
    }
    let deadline = seconds.map { ContinuousClock.now + .milliseconds(Int($0 * 1000)) }
    // SIGINT and SIGTERM end the watch cleanly: the presenters are removed (the defer above),
    // which takes this process's PID.sock and PID.json out of the presenters folder.
    if QuireCommand.ownsProcess {
      Interrupt.install(for: [SIGINT, SIGTERM])
      CaughtSignals.prepare()
    }
    await Self.waitUntilDone(printer: printer, count: count, deadline: deadline, interruptible: QuireCommand.ownsProcess)
  }

  /// Awaits whichever comes first, without polling: the `count`th message, the deadline, a
  /// caught SIGINT or SIGTERM (when this command owns the process), or the task's cancellation.
  static func waitUntilDone(printer: WatchPrinter, count: Int?, deadline: ContinuousClock.Instant?, interruptible: Bool) async {
    await withTaskGroup(of: Void.self) { group in
      if let count { group.addTask { await printer.waitUntilPrinted(count) } }
      if let deadline { group.addTask { try? await Task.sleep(until: deadline, clock: .continuous) } }
      if interruptible {
        group.addTask {
          // Counted before the flag is read: a signal after that is one the wait sees.
          let seen = CaughtSignals.count
          if Interrupt.shared.isPending { return }
          await CaughtSignals.next(after: seen)
        }
      }
      // Without any of those, the watch lasts until the task is cancelled.
      group.addTask { while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) } }
      await group.next()
      group.cancelAll()
    }
  }
}

/// What `quire watch`, `quire browse --watch` and the REPL tell the person about a path that
/// is polled as well as watched by inotify (on a network or FUSE mount).
enum PollingNotice {
  /// The notice for `path`, or nil when inotify alone hears its changes.
  static func text(for path: FilePath) -> String? {
    let kind = FileSystemKind.of(path)
    let options = FileCoordinator.pollingOptions
    guard options.polls(kind) else { return nil }
    let place = kind.mountPoint.map { " at '\(DisplayName.escaping($0))'" } ?? ""
    let reason =
      kind.needsPolling
      ? "it is on a \(kind.type) mount\(place), where inotify does not hear changes made on other machines or behind the mount"
      : "QUIRE_POLL=always"
    return "watching '\(DisplayName.escaping(path))' by polling every \(options.intervalDescription) as well (\(reason))"
  }

  /// Says ``text(for:)`` on standard error, when there is one.
  static func say(for path: FilePath) {
    if let note = text(for: path) { FileHandle.standardError.write(Data("quire: \(note)\n".utf8)) }
  }
}

/// Prints whole lines, one writer at a time, and counts them; once `limit` lines are printed
/// (`--count`), later messages are not (two can arrive before the command stops).
final class WatchPrinter: Sendable {
  private let count = Mutex(0)
  private let limit: Int?
  /// One element each time a line is printed (the newest kept: a waiter rereads ``printed``).
  private let printedLines: AsyncStream<Void>
  private let printedLine: AsyncStream<Void>.Continuation
  var printed: Int { count.withLock { $0 } }

  init(limit: Int? = nil) {
    self.limit = limit
    (printedLines, printedLine) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
  }

  func say(_ line: String) {
    let said = count.withLock { count -> Bool in
      if let limit, count >= limit { return false }
      FileHandle.standardOutput.write(Data((line + "\n").utf8))
      count += 1
      return true
    }
    if said { printedLine.yield() }
  }

  /// Returns once `count` lines have been printed (or the task is cancelled); awaits each
  /// printed line rather than polling. One waiter at a time.
  func waitUntilPrinted(_ count: Int) async {
    if printed >= count { return }
    for await _ in printedLines where printed >= count { return }
  }
}

/// A presenter that prints what it hears and answers every request at once. It presents a
/// path of any bytes (``presentedItemPath``) and prints names escaped.
final class WatchPresenter: FilePresenter {
  private let item: Mutex<FilePath>
  private let printer: WatchPrinter

  init(path: FilePath, printer: WatchPrinter) {
    self.item = Mutex(path)
    self.printer = printer
  }

  var presentedItemPath: FilePath? { item.withLock { $0 } }
  /// The path's URL when it is UTF-8 (none holds other bytes; ``presentedItemPath`` is what is presented).
  var presentedItemURL: URL? {
    let text = PathText.string(item.withLock { $0 })
    return PathText.holdsNonUTF8Bytes(text) ? nil : URL(fileURLWithPath: text)
  }
  private var path: String { DisplayName.escaping(item.withLock { $0 }) }

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

  func presentedItemDidMove(toPath newPath: FilePath) {
    let old = item.withLock { item in
      defer { item = newPath }
      return item
    }
    printer.say("moved \(DisplayName.escaping(old)) -> \(DisplayName.escaping(newPath))")
  }

  func presentedItemDidChange() { printer.say("changed \(path)") }

  func presentedSubitemDidChange(atPath subitem: FilePath) { printer.say("subitem-changed \(DisplayName.escaping(subitem))") }
}
