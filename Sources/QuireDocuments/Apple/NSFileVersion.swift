// Apple's name for versions of a file, over Quire's conflicts and VersionStore. Compatibility
// surface: see the "Porting from Apple's frameworks" article.
public import Foundation
import QuireCoordination
import QuireSystem
import Synchronization
import SystemPackage

/// A version of a file, as Apple's `NSFileVersion`: the current one (the file itself), the
/// ones an open document's conflict offers (``unresolvedConflictVersionsOfItem(at:)``), and
/// the ones kept by saves (``otherVersionsOfItem(at:)``, from the ``VersionStore`` that
/// ``DocumentController`` uses, `$XDG_STATE_HOME/quire/versions`).
///
/// **Conflicts.** When another process saves a file that an open ``Document`` of this process
/// has unsaved edits for, the document goes ``Document/State/inConflict`` and its file gets one
/// unresolved conflict version: the other process's contents (readable at ``url``). As on
/// Apple's platforms, setting ``isResolved`` to `true` keeps the current state — here the
/// document's own edits, which its next save writes — and ``replaceItem(at:options:)`` makes
/// the conflict version win (the document takes it, dropping its edits). Resolution runs on
/// the main actor; set ``isResolved`` from the main actor to see the document settled at once.
open class NSFileVersion: @unchecked Sendable, Equatable {
  // @unchecked: every stored property is a `let`, and the mutable resolution lives in the
  // ConflictBoard (a Mutex) or the document (main actor).
  private enum Kind {
    case current
    case conflict(serial: UInt64, owner: ConflictBoard.Entry.Owner, contents: Data)
    case kept(FileVersion, VersionStore)
  }
  private let kind: Kind
  private let itemURL: URL
  private let contentsURL: Mutex<URL?>

  /// When this version was last modified (saved, or noticed for a conflict).
  public let modificationDate: Date?
  /// The name of the computer that made it: this one.
  open var localizedNameOfSavingComputer: String? { ProcessInfo.processInfo.hostName }
  /// The file's name.
  open var localizedName: String? { itemURL.lastPathComponent }
  /// The name of the person who made the version. Apple gives it only for versions that came
  /// from iCloud; Quire's versions are all made on this computer, so it is nil.
  open var originatorNameComponents: PersonNameComponents? { nil }
  /// Whether this version is a conflict (``unresolvedConflictVersionsOfItem(at:)``).
  open var isConflict: Bool {
    if case .conflict = kind { return true }
    return false
  }
  /// Versions kept by Quire are never discardable by the system.
  open var isDiscardable: Bool { false }
  /// Whether the file has this version's contents only in the cloud: never on Quire.
  open var hasLocalContents: Bool { true }

  private init(kind: Kind, item: URL, date: Date?, contents: URL?) {
    self.kind = kind
    self.itemURL = item
    self.modificationDate = date
    self.contentsURL = Mutex(contents)
  }

  /// Where this version's contents can be read: the file itself for the current version, a
  /// read-only stored copy for a kept one, and a private copy (0600, in a 0700 folder under
  /// the temporary folder) for a conflict.
  open var url: URL {
    if let made = contentsURL.withLock({ $0 }) { return made }
    guard case .conflict(_, _, let contents) = kind else { return itemURL }
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("quire-conflict-\(UUID().uuidString)")
    let file = folder.appendingPathComponent(itemURL.lastPathComponent)
    do {
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
      try contents.write(to: file)
      try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
    } catch {
      return itemURL
    }
    contentsURL.withLock { $0 = file }
    return file
  }

  /// Whether the conflict is settled. Setting it to `true` keeps the document's own version
  /// (its unsaved edits stay, and its next save writes them over the other process's).
  open var isResolved: Bool {
    get {
      guard case .conflict(let serial, _, _) = kind else { return true }
      return !ConflictBoard.shared.isUnresolved(serial)
    }
    set {
      guard newValue, case .conflict(let serial, let owner, _) = kind, ConflictBoard.shared.isUnresolved(serial) else { return }
      Self.onMainActor { try? owner.document?.settleConflict(takingTheirs: false) }
    }
  }

  /// Runs `body` on the main actor: at once when called there, else as soon as it is free.
  private static func onMainActor(_ body: @escaping @MainActor @Sendable () -> Void) {
    // On Linux the main actor runs on the main dispatch queue, which a worker thread may drain
    // (after `dispatchMain()`), so `Thread.isMainThread` is not the test: the queue's tag is.
    if Thread.isMainThread || DispatchQueue.getSpecific(key: mainQueueKey) == true {
      MainActor.assumeIsolated { body() }
    } else {
      Task { @MainActor in body() }
    }
  }

  /// Tags the main queue, so code can tell it runs there on any thread.
  private static let mainQueueKey: DispatchSpecificKey<Bool> = {
    let key = DispatchSpecificKey<Bool>()
    DispatchQueue.main.setSpecific(key: key, value: true)
    return key
  }()

  // MARK: Finding versions

  /// The file as it is now.
  public class func currentVersionOfItem(at url: URL) -> NSFileVersion? {
    guard case .success(let info) = SystemCalls.stat(FilePath(url.path)) else { return nil }
    let date = Date(timeIntervalSince1970: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)
    return NSFileVersion(kind: .current, item: url.standardizedFileURL, date: date, contents: url.standardizedFileURL)
  }

  /// The conflicts that open documents of this process hold for the file, oldest first (nil
  /// when the file does not exist, as Apple's).
  public class func unresolvedConflictVersionsOfItem(at url: URL) -> [NSFileVersion]? {
    guard FileManager.default.fileExists(atPath: url.path) else { return nil }
    return ConflictBoard.shared.entries(forItemAt: url).map { entry in
      NSFileVersion(
        kind: .conflict(serial: entry.serial, owner: entry.owner, contents: entry.version.contents), item: url.standardizedFileURL,
        date: entry.version.detectionDate, contents: nil)
    }
  }

  /// The versions that saves kept of the file (before each save), oldest first, from the
  /// default ``VersionStore``.
  public class func otherVersionsOfItem(at url: URL) -> [NSFileVersion]? {
    let store = VersionStore()
    guard let kept = try? store.versions(ofItemAt: FileSaver.resolvedTarget(of: url)) else { return nil }
    return kept.map { version in
      NSFileVersion(kind: .kept(version, store), item: url.standardizedFileURL, date: version.modificationDate, contents: store.readOnlyURL(of: version))
    }
  }

  /// Marks every conflict of the file resolved, keeping the current version. Kept versions of
  /// saves stay (they are the user's history; remove them through ``VersionStore``).
  public class func removeOtherVersionsOfItem(at url: URL) throws {
    for version in unresolvedConflictVersionsOfItem(at: url) ?? [] { version.isResolved = true }
  }

  /// Two versions are equal when they are the same version of the same item: both current,
  /// the same conflict, or the same kept version.
  public static func == (lhs: NSFileVersion, rhs: NSFileVersion) -> Bool {
    guard lhs.itemURL == rhs.itemURL else { return false }
    switch (lhs.kind, rhs.kind) {
    case (.current, .current): return true
    case (.conflict(let a, _, _), .conflict(let b, _, _)): return a == b
    case (.kept(let a, _), .kept(let b, _)): return a.id == b.id
    default: return false
    }
  }

  // MARK: Acting on a version

  /// Makes this version the file's contents at `url` and returns the current version.
  ///
  /// For a conflict version of the document's own file this is "take theirs": the file
  /// already holds the other process's save, and the document drops its edits and reads it.
  /// A kept version is restored through its ``VersionStore`` (the replaced contents are kept
  /// as a version first). The write is coordinated.
  ///
  /// - Throws: ``QuireError`` when the write fails; the file is then unchanged.
  @discardableResult
  open func replaceItem(at url: URL, options: ReplacingOptions = []) throws -> URL {
    switch kind {
    case .current:
      if url.standardizedFileURL != itemURL {
        let data = try Data(contentsOf: itemURL)
        _ = try FileCoordinator().coordinate(writingItemAt: url, options: .forReplacing) { target in
          try FileSaver.write(data, to: target)
        }
      }
    case .conflict(let serial, let owner, let contents):
      if url.standardizedFileURL != itemURL || (try? Data(contentsOf: url)) != contents {
        _ = try FileCoordinator().coordinate(writingItemAt: url, options: .forReplacing) { target in
          try FileSaver.write(contents, to: target)
        }
      }
      if ConflictBoard.shared.isUnresolved(serial) {
        Self.onMainActor { try? owner.document?.settleConflict(takingTheirs: true) }
      }
    case .kept(let version, let store):
      try FileCoordinator().coordinate(writingItemAt: url, options: .forReplacing) { target in
        _ = try store.restore(version, to: target)
      }
    }
    return url
  }

  /// Removes this version: a conflict is resolved (keeping the current version); a kept
  /// version stays in the ``VersionStore`` history.
  open func remove() throws {
    if isConflict { isResolved = true }
    if let made = contentsURL.withLock({ $0 }), isConflict {
      try? FileManager.default.removeItem(at: made.deletingLastPathComponent())
    }
  }

  /// How ``replaceItem(at:options:)`` replaces (Apple's `NSFileVersion.ReplacingOptions`).
  public struct ReplacingOptions: OptionSet, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    /// Moves the version's file rather than copying it (Quire copies either way).
    public static let byMoving = ReplacingOptions(rawValue: 1)
  }
}
