public import Foundation

extension Document {
  /// What a document is doing, as UIDocument's `State`: an option set, empty when normal.
  public struct State: OptionSet, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Open, editable, nothing wrong.
    public static let normal: State = []
    /// Not open (before ``Document/open()`` and after ``Document/close(discardingChanges:)``).
    public static let closed = State(rawValue: 1 << 0)
    /// The file changed on disk while the document had unsaved changes; resolve with
    /// ``Document/resolveConflict(_:)``.
    public static let inConflict = State(rawValue: 1 << 1)
    /// The last save failed; the edits are kept and the file is as it was.
    public static let savingError = State(rawValue: 1 << 2)
    /// Edits are refused (set by the app with ``Document/disableEditing()``).
    public static let editingDisabled = State(rawValue: 1 << 3)
    /// A load or save reports its progress (UIKit's `progressAvailable`). Quire's loads and
    /// saves do not report `Progress`, so the document layer never sets it.
    public static let progressAvailable = State(rawValue: 1 << 4)

    public var description: String {
      if self == .normal { return "normal" }
      let names: [(State, String)] = [
        (.closed, "closed"), (.inConflict, "inConflict"), (.savingError, "savingError"),
        (.editingDisabled, "editingDisabled"),
      ]
      return names.filter { contains($0.0) }.map(\.1).joined(separator: ", ")
    }
  }

  /// How the change count moves, as UIDocument's `ChangeKind`.
  public enum ChangeKind: Sendable, Hashable {
    /// A change was made.
    case done
    /// A change was undone.
    case undone
    /// An undone change was redone.
    case redone
    /// The document now matches its file (after a revert or reload).
    case cleared
  }

  /// What a save does, as NSDocument's `SaveOperationType`.
  public enum SaveOperation: Sendable, Hashable {
    /// Writes the document to its own file (⌘S); `url` must be ``Document/fileURL``.
    case saveOperation
    /// Writes to a new file, which becomes the document's file.
    case saveAsOperation
    /// Writes a copy; the document keeps its file and stays as dirty as it was.
    case saveToOperation
    /// An autosave that writes the document's own file (``Document/autosavesInPlace``).
    case autosaveInPlaceOperation

    /// Short names, as `save(to:ofType:for: .saveAs)`.
    public static let save = SaveOperation.saveOperation
    public static let saveAs = SaveOperation.saveAsOperation
    public static let saveTo = SaveOperation.saveToOperation
  }

  /// When autosave runs: after the document has been idle for ``idleDelay``, and at the
  /// latest ``maximumInterval`` after the first change not yet autosaved.
  public struct AutosavePolicy: Sendable, Hashable {
    public var idleDelay: Duration
    public var maximumInterval: Duration
    public init(idleDelay: Duration, maximumInterval: Duration) {
      self.idleDelay = idleDelay
      self.maximumInterval = maximumInterval
    }
    /// 5 s idle, 30 s at most.
    public static let standard = AutosavePolicy(idleDelay: .seconds(5), maximumInterval: .seconds(30))
  }

  /// What ``Document/checkForChangesOnDisk()`` found.
  public enum DiskChange: Sendable, Hashable {
    /// The file holds what the document last read or saved (a touch is not a change).
    case unchanged
    /// The file changed and the document, being clean, read it again.
    case reloaded
    /// The file changed while the document had unsaved changes: it is now ``State/inConflict``.
    case conflict
    /// The file is gone; the document keeps its contents and counts as unsaved.
    case deleted
  }

  /// What ``Document/addFileObserver(_:)`` reports: someone else changed or moved the
  /// document's file, and what the document did about it.
  public enum FileEvent: Sendable, Hashable {
    /// The document found its file changed (by ``Document/checkForChangesOnDisk()``, its
    /// presenter's notice or a save's check) and reloaded it, went ``State/inConflict``, or
    /// noted it gone: ``DiskChange/reloaded``, ``DiskChange/conflict`` or
    /// ``DiskChange/deleted``, reported once per change (a conflict again when the file
    /// changes again, a deletion again only after the file was back).
    case changedOnDisk(DiskChange)
    /// The file was moved or renamed by someone else; the document follows it (its
    /// ``Document/fileURL`` is `to`).
    case moved(from: URL, to: URL)
  }

  /// How to settle a conflict between unsaved edits and a file changed on disk.
  public enum ConflictResolution: Sendable, Hashable, CaseIterable {
    /// Keep the edits; the next save overwrites the other version.
    case keepMine
    /// Drop the edits and read the other version.
    case takeTheirs
    /// Save the other version beside the file as "name (conflicted copy DATE).ext" and keep
    /// the edits.
    case keepBoth
    /// Three-way merge of the edits and the other version against the last read or saved
    /// version; overlapping edits get conflict markers (text documents only).
    case merge
    /// ``merge`` when no edits overlap; otherwise nothing changes, the conflict stays, and
    /// ``ConflictOutcome/mergeConflicts`` says how many edits overlap (a script's save that
    /// merges what it can and stops at what needs a person).
    case mergeUnlessOverlapping
  }

  /// What resolving a conflict did.
  public struct ConflictOutcome: Sendable, Hashable {
    /// Where ``ConflictResolution/keepBoth`` saved the other version.
    public var copyURL: URL?
    /// How many overlapping edits ``ConflictResolution/merge`` marked with conflict markers
    /// (for ``ConflictResolution/mergeUnlessOverlapping``: how many overlap, nothing merged).
    public var mergeConflicts: Int
  }

  /// The version on disk that conflicts with the document's edits.
  public struct ConflictVersion: Sendable, Hashable {
    /// Its bytes; empty for a package (a folder), which the document keeps as a tree for
    /// ``ConflictResolution/takeTheirs`` and ``ConflictResolution/keepBoth``.
    public var contents: Data
    /// Its fingerprint.
    public var fingerprint: FileFingerprint
    /// When the document noticed it.
    public var detectionDate: Date
  }
}

/// What a three-way merge gave.
public struct MergeOutcome: Sendable, Hashable {
  /// How many overlapping edits got conflict markers.
  public var conflicts: Int
  public init(conflicts: Int) { self.conflicts = conflicts }
}
