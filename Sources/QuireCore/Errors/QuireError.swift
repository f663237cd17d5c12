public import Foundation
public import SystemPackage

/// The one error shape of every Quire module.
///
/// A `QuireError` carries a ``Code`` that callers can match on, a ``reason`` written for a
/// person (which file, what failed, what to do), an optional underlying ``cause`` and where
/// it was thrown. `description` is the first two on one line; ``detailedDescription`` is the
/// tree that `--verbose` prints:
///
/// ```
/// QuireError: permission denied
/// ├─ Reason: Cannot save 'notes.md': '/srv/shared' is not writable. Use "save as" to keep a copy.
/// └─ Cause: 'openat' failed: (13) Permission denied
/// ```
///
/// Descriptions never include file contents or pasteboard data.
public struct QuireError: Error, Sendable, CustomStringConvertible {
  /// What kind of failure this is. New codes can be added without breaking callers.
  public struct Code: Hashable, Sendable, CustomStringConvertible {
    private let name: String
    private init(_ name: String) { self.name = name }
    public var description: String { name }

    /// The file or folder does not exist.
    public static let fileMissing = Code("file missing")
    /// The operating system refused access.
    public static let permissionDenied = Code("permission denied")
    /// The input's bytes are not what its type promises (a corrupt PDF, text that is not UTF-8).
    public static let invalidContent = Code("invalid content")
    /// The input is of a type this operation does not handle.
    public static let unsupportedType = Code("unsupported type")
    /// A file is locked, encrypted or otherwise needs something the caller did not give.
    public static let passwordRequired = Code("password required")
    /// A C library reported a failure not covered by a more specific code.
    public static let libraryFailure = Code("library failure")
    /// A system call failed; the cause holds the `Errno`.
    public static let systemCallFailed = Code("system call failed")
    /// The operation ran out of time.
    public static let timedOut = Code("timed out")
    /// The operation was cancelled.
    public static let cancelled = Code("cancelled")
    /// The input exceeded a limit (size, depth, count).
    public static let limitExceeded = Code("limit exceeded")
    /// The caller used the API in a way it does not allow (a usage error).
    public static let invalidArgument = Code("invalid argument")
    /// The capability exists in the design but is not built yet.
    public static let notImplemented = Code("not implemented")
    /// The disk or the user's quota is full (`ENOSPC`, `EDQUOT`).
    public static let diskFull = Code("disk full")
    /// A file changed on disk since it was read; the caller must resolve the conflict.
    public static let fileChangedOnDisk = Code("file changed on disk")
    /// An operation would lose edits that were not saved.
    public static let unsavedChanges = Code("unsaved changes")
    /// The file or folder already exists where a new one was to be made.
    public static let fileExists = Code("file exists")
    /// The item is held by another process or another editor (a lock, a swap file).
    public static let inUse = Code("in use")
  }

  /// What kind of failure this is.
  public var code: Code
  /// One sentence or two for a person: which file, what failed, what to do.
  public var reason: String
  /// The file the failure concerns, when there is one.
  public var url: URL?
  /// The underlying error (an `Errno`, a C library's message, another `QuireError`).
  public var cause: (any Error & Sendable)?
  /// Source file and line where the error was made.
  public var location: String

  /// Makes an error.
  ///
  /// - Parameters:
  ///   - code: What kind of failure.
  ///   - reason: Which file, what failed and what to do, in a sentence or two.
  ///   - url: The file the failure concerns.
  ///   - cause: The underlying error.
  public init(
    _ code: Code, _ reason: String, url: URL? = nil, cause: (any Error & Sendable)? = nil,
    fileID: StaticString = #fileID, line: UInt = #line
  ) {
    self.code = code
    self.reason = reason
    self.url = url
    self.cause = cause
    self.location = "\(fileID):\(line)"
  }

  public var description: String { "\(code): \(reason)" }

  /// The error as a small tree: code, reason, cause chain.
  public var detailedDescription: String {
    var lines = ["QuireError: \(code)"]
    var parts: [(String, String)] = [("Reason", reason)]
    if let cause {
      let text = (cause as? QuireError)?.description ?? String(describing: cause)
      parts.append(("Cause", text))
    }
    parts.append(("Thrown at", location))
    for (index, part) in parts.enumerated() {
      let branch = index == parts.count - 1 ? "└─" : "├─"
      lines.append("\(branch) \(part.0): \(part.1)")
    }
    return lines.joined(separator: "\n")
  }
}

extension QuireError {
  /// A display name for a file in messages: its last path component in quotes, escaped for a
  /// terminal (control characters, newlines, bytes that are not UTF-8; see `DisplayName`).
  public static func name(_ url: URL) -> String { "'\(DisplayName.escaping(url.lastPathComponent))'" }

  /// A display name for the file at `path` (any bytes): its last component in quotes,
  /// escaped as ``name(_:)-(URL)`` escapes it (a byte that is not UTF-8 shows as `\xFF`).
  public static func name(_ path: FilePath) -> String {
    "'\(path.lastComponent.map { DisplayName.escaping(FilePath(root: nil, [$0])) } ?? DisplayName.escaping(path))'"
  }
}
