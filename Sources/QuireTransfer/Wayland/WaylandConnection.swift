import Foundation
import QuireSystem
import QuireTypes
import Synchronization
import SystemPackage

/// One connection to a Wayland compositor that offers a data-control protocol
/// (`ext-data-control-v1`, preferred, or wlroots' `zwlr_data_control_manager_v1`), for every
/// pasteboard of the process on it: the clipboard and the primary selection without a window,
/// as `wl-copy` and `wl-paste` use them.
///
/// libwayland's display is used by one thread only, the connection's own (``DataControlLoop``
/// runs on it): other threads hand it closures through ``perform(_:)`` and ``post(_:)``, and
/// read what it publishes (change counts, the items this process holds) under a mutex.
/// Nothing of C crosses threads.
final class WaylandConnection: DesktopConnection {
  /// `WAYLAND_DISPLAY` as given: a socket name in `$XDG_RUNTIME_DIR` or an absolute path.
  let display: String
  /// The data-control protocol the compositor offered: `ext-data-control-v1` or `wlr-data-control-unstable-v1`.
  var protocolName: String { chosenProtocol.withLock { $0 } }
  private let chosenProtocol = Mutex("")
  var description: String { "the Wayland compositor '\(display)'" }

  /// What the loop publishes for other threads.
  let published = SelectionPublisher()
  private let inbox: WorkInbox<DataControlLoop>
  /// The read end of the inbox's wake pipe, which the loop polls beside the compositor's socket.
  var wakeDescriptor: Int32 { inbox.wakeDescriptor }

  /// The connections of this process, by display.
  private static let connections = Mutex<[String: WaylandConnection]>([:])
  /// Displays whose compositor offers no data-control, with the reason (asked once a process).
  private static let refused = Mutex<[String: QuireError]>([:])

  /// The connection to `display`, opened on first use (and again after the compositor went away).
  ///
  /// - Throws: ``QuireError`` `.unsupportedType` when the compositor offers no data-control
  ///   protocol or no seat; `.fileMissing` when no compositor answers there.
  static func to(_ display: String) throws -> WaylandConnection {
    if let refusal = refused.withLock({ $0[display] }) { throw refusal }
    let existing = connections.withLock { $0[display] }
    if let existing, existing.published.failure == nil { return existing }
    let made: WaylandConnection
    do {
      made = try WaylandConnection(display: display)
    } catch let error as QuireError where error.code == .unsupportedType {
      refused.withLock { $0[display] = error }
      throw error
    }
    return connections.withLock { all in
      if let other = all[display], other !== existing, other.published.failure == nil { return other }
      all[display] = made
      return made
    }
  }

  /// Every open connection (for handing items over at exit).
  static var all: [WaylandConnection] { connections.withLock { Array($0.values) } }

  private init(display: String) throws {
    self.display = display
    inbox = try WorkInbox(for: display)
    let opened = Mutex<Result<String, QuireError>?>(nil)
    let ready = DispatchSemaphore(value: 0)
    DedicatedThread.start(named: "quire Wayland") { [self] in
      let loop: DataControlLoop
      do {
        loop = try DataControlLoop(connection: self)
      } catch {
        opened.withLock { $0 = .failure(error as? QuireError ?? QuireError(.libraryFailure, "\(error)")) }
        ready.signal()
        return
      }
      opened.withLock { $0 = .success(loop.protocolName) }
      ready.signal()
      loop.run()
    }
    if ready.wait(timeout: .now() + 30) == .timedOut {
      throw QuireError(
        .timedOut, "The Wayland compositor '\(display)' did not answer within 30 s. Check WAYLAND_DISPLAY, or set QUIRE_PASTEBOARD=quire.")
    }
    switch opened.withLock({ $0 }) {
    case .success(let name): chosenProtocol.withLock { $0 = name }
    case .failure(let error):
      inbox.close()
      throw error
    case nil:
      inbox.close()
      throw QuireError(.libraryFailure, "The Wayland connection to '\(display)' did not start.")
    }
  }

  // MARK: Talking to the loop

  /// Runs `work` on the connection's thread, soon.
  func post(_ work: @escaping @Sendable (DataControlLoop) -> Void) { inbox.post(work) }

  /// The closures posted so far, taken out (the loop calls this).
  func takeWork() -> [@Sendable (DataControlLoop) -> Void] { inbox.take() }

  /// Runs `work` on the connection's thread and waits for its result (at most `timeout`).
  func perform<Value: Sendable>(timeout: Duration = .seconds(30), _ work: @escaping @Sendable (DataControlLoop) throws -> Value) throws -> Value {
    try inbox.perform(failure: published.failure, description: description, timeout: timeout, work)
  }

  // MARK: Selections

  func own(_ selection: DisplaySelection, providers: [ItemProvider]) throws {
    try perform { try $0.own(selection, providers: providers) }
  }

  func ownership(of selection: DisplaySelection) throws -> SelectionOwnership {
    try perform { try $0.ownership(of: selection) }
  }

  func changeCount(of selection: DisplaySelection) throws -> Int {
    try perform { loop in
      try loop.synchronize()
      return loop.connection.published.changeCount(selection)
    }
  }

  func waitUntilLost(_ selection: DisplaySelection) async { await published.waitUntilLost(selection) }

  func ownedProviders(of selection: DisplaySelection) -> [ItemProvider]? { published.owned(selection) }

  func otherItemProviders(of selection: DisplaySelection) throws -> [ItemProvider] {
    try WaylandSelectionReader(connection: self, selection: selection).itemProviders()
  }

  /// Data-control has no clipboard manager hand-over (a manager there reads every new
  /// selection as it comes): the items go to Quire's store at exit.
  func handOverToClipboardManager(_ selection: DisplaySelection, timeout: Duration) async -> Bool { false }

  /// Reads `selection` as `mimeType` from the program holding it into `file` (made new), or
  /// into memory when nil, as long as the selection is still offer `serial`.
  ///
  /// - Parameter stallTimeout: How long the owner may stay silent before the read fails.
  func read(
    _ selection: DisplaySelection, mimeType: String, serial: Int, into file: URL?, stallTimeout: Duration
  ) async throws -> Data {
    if let failure = published.failure { throw failure }
    return try await withCheckedThrowingContinuation { continuation in
      post { loop in
        loop.startRead(
          DataControlLoop.ReadRequest(
            selection: selection, mimeType: mimeType, serial: serial, file: file, stallTimeout: stallTimeout,
            complete: { continuation.resume(with: $0) }))
      }
    }
  }
}

/// Another program's selection on a Wayland compositor, as item providers: the MIME types of
/// its offer become representations, each received through a pipe when loaded.
struct WaylandSelectionReader {
  let connection: WaylandConnection
  let selection: DisplaySelection

  func itemProviders() throws -> [ItemProvider] {
    let selection = selection
    let (serial, types) = try connection.perform { try $0.offeredTypes(of: selection) }
    let readable = SelectionTargets.readable(fromTargets: types)
    guard !readable.isEmpty else { return [] }
    let provider = ItemProvider(suggestedName: nil)
    let connection = connection
    for entry in readable {
      let timeout = provider.loadTimeout
      if entry.isLatin1 || entry.typeIdentifier == UTType.fileURL.identifier {
        // Small text that needs converting: read into memory.
        provider.registerDataRepresentation(forTypeIdentifier: entry.typeIdentifier) {
          let data = try await connection.read(selection, mimeType: entry.target, serial: serial, into: nil, stallTimeout: timeout)
          return entry.isLatin1 ? SelectionTargets.utf8(fromLatin1: data) : SelectionTargets.firstURI(ofURIList: data)
        }
        continue
      }
      // Anything else streams from the pipe into a file, never whole in memory.
      provider.registerFileRepresentation(forTypeIdentifier: entry.typeIdentifier) { completion in
        let progress = Progress(totalUnitCount: 1)
        Task {
          do {
            let scratch = try ScratchFolder()
            defer { scratch.remove() }
            let target = scratch.url.appendingPathComponent(ScratchFolder.fileName(suggestedName: nil, type: UTType(entry.typeIdentifier)))
            _ = try await connection.read(selection, mimeType: entry.target, serial: serial, into: target, stallTimeout: timeout)
            completion(target, nil)
          } catch {
            completion(nil, error)
          }
        }
        return progress
      }
    }
    return [provider]
  }
}
