public import Foundation
import Synchronization

/// How presenters of items where inotify cannot hear every change (NFS, SMB/CIFS and FUSE
/// mounts: see ``FileSystemKind/needsPolling``) are polled as well.
///
/// A polled presenter's item is looked at with one `lstat(2)` per interval (a folder: one
/// `lstat` per direct entry, after a `readdir`). Its fingerprint is the device, inode, size,
/// modification and change times; while the modification time is within a few seconds of
/// the look (a file system with whole-second times could take a second write in the same
/// second unseen), a digest of the contents is taken too and compared when the rest ties.
/// A difference is looked at as an inotify event is, so the presenter hears the same
/// messages (did change, did move within its folder, deletion, subitems that appeared,
/// changed or went). inotify stays on: changes made through this machine arrive at once.
///
/// After ``quietSpellBeforeBackingOff`` without a change, each quiet look doubles the
/// interval up to ``maximumInterval``; a change (or an inotify event) brings it back to
/// ``interval``.
///
/// The process's options are ``FileCoordinator/pollingOptions``, read at first use from the
/// environment (``init(environment:)``): `QUIRE_POLL_INTERVAL` (seconds, default 2),
/// `QUIRE_POLL_MAX_INTERVAL` (seconds, default four times the interval) and `QUIRE_POLL`
/// (`auto`, `always` or `never`).
public struct PollingOptions: Sendable, Hashable {
  /// Which presenters are polled.
  public enum Mode: String, Sendable, Hashable, CaseIterable {
    /// Those of items on file systems that need it (``FileSystemKind/needsPolling``).
    case automatic = "auto"
    /// Every presenter (a file system that is not recognised, a folder shared with a VM).
    case always
    /// None: inotify only.
    case never
  }

  /// Which presenters are polled; ``Mode/automatic`` by default.
  public var mode: Mode
  /// How long between two looks at an item (2 s by default).
  public var interval: Duration
  /// How far the interval grows while nothing changes (8 s by default).
  public var maximumInterval: Duration
  /// How long nothing must change before the interval starts to grow (60 s by default).
  public var quietSpellBeforeBackingOff: Duration

  /// Makes options; `maximumInterval` defaults to four times `interval`.
  public init(
    mode: Mode = .automatic, interval: Duration = .seconds(2), maximumInterval: Duration? = nil,
    quietSpellBeforeBackingOff: Duration = .seconds(60)
  ) {
    self.mode = mode
    self.interval = max(interval, .milliseconds(10))
    self.maximumInterval = max(maximumInterval ?? self.interval * 4, self.interval)
    self.quietSpellBeforeBackingOff = quietSpellBeforeBackingOff
  }

  /// The defaults: automatic, every 2 s, backing off to 8 s after a quiet minute.
  public static let `default` = PollingOptions()

  /// Options from `QUIRE_POLL_INTERVAL`, `QUIRE_POLL_MAX_INTERVAL` (seconds, fractions
  /// allowed) and `QUIRE_POLL` (`auto`, `always`, `never`) in `environment`; what is unset
  /// or not understood keeps its default.
  public init(environment: [String: String]) {
    func seconds(_ name: String) -> Duration? {
      guard let text = environment[name], let value = Double(text), value.isFinite, value > 0, value < 86_400 else { return nil }
      return .milliseconds(Int64(value * 1000))
    }
    self.init(
      mode: environment["QUIRE_POLL"].flatMap(Mode.init(rawValue:)) ?? .automatic,
      interval: seconds("QUIRE_POLL_INTERVAL") ?? .seconds(2),
      maximumInterval: seconds("QUIRE_POLL_MAX_INTERVAL"))
  }

  /// Whether a presenter of an item on `kind` is polled.
  public func polls(_ kind: FileSystemKind) -> Bool {
    switch mode {
    case .automatic: kind.needsPolling
    case .always: true
    case .never: false
    }
  }

  /// `interval` in seconds, for messages: `2 s`, `0.5 s`.
  public var intervalDescription: String {
    let seconds = Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18
    return seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\(seconds) s"
  }
}

extension FileCoordinator {
  private static let pollingState = Mutex(PollingOptions(environment: ProcessInfo.processInfo.environment))

  /// How this process polls presenters where inotify cannot hear everything. Read from the
  /// environment at first use (see ``PollingOptions``); a change applies to presenters added
  /// afterwards and to the next look of those already polled.
  public static var pollingOptions: PollingOptions {
    get { pollingState.withLock { $0 } }
    set { pollingState.withLock { $0 = newValue } }
  }

  /// How often a presenter of the item at `url` would be polled, or nil when inotify alone
  /// watches it (its file system hears every change, or ``pollingOptions`` say never).
  public static func pollingInterval(forItemAt url: URL) -> Duration? {
    let options = pollingOptions
    return options.polls(FileSystemKind.of(url)) ? options.interval : nil
  }
}
