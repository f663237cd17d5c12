/// How a file's type was found: the type, which source decided, the evidence, a confidence,
/// and whether the name and the content disagree.
public struct TypeIdentification: Sendable, CustomStringConvertible {
  /// Which source decided the type.
  public enum Source: String, Sendable, Hashable {
    /// The kind of file system object (folder, FIFO, device, socket, dangling link).
    case fileSystem = "file system"
    /// The file name: a shared-mime-info glob or a declared filename extension.
    case fileName = "file name"
    /// The content: a shared-mime-info magic rule or the text/binary heuristic.
    case content
    /// The file name, with the content breaking a tie between several names.
    case fileNameAndContent = "file name and content"
  }

  /// One fact that went into the answer.
  public struct Evidence: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable {
      /// `lstat(2)`/`stat(2)` said what the object is.
      case fileSystem = "file system"
      /// A shared-mime-info glob matched the name (``weight`` is set).
      case glob
      /// A declaration's filename extension matched (app, Quire or Apple core type).
      case declaredExtension = "declared extension"
      /// A shared-mime-info magic rule matched the content (``priority`` is set).
      case magic
      /// No rule matched; the bytes look like text (no control characters but whitespace).
      case textHeuristic = "text heuristic"
      /// No rule matched and the bytes are not text.
      case binaryFallback = "binary fallback"
      /// The file is empty.
      case empty
      /// Something worth knowing that decided nothing (unreadable content, a followed link).
      case note
    }
    public var kind: Kind
    /// The MIME type this evidence points to.
    public var mimeType: String?
    /// The glob pattern, extension or magic rule.
    public var rule: String?
    /// A glob's weight (0–100; 50 is the default).
    public var weight: Int?
    /// A magic rule's priority (0–100; 50 is the default, 80 and up are reliable).
    public var priority: Int?
    /// A sentence for a person.
    public var detail: String

    public var description: String { detail }
  }

  /// What the name said and what the content said, when they point to unrelated types.
  public struct Disagreement: Sendable, Hashable, CustomStringConvertible {
    /// The type from the name.
    public var nameType: UTType
    /// The type from the content.
    public var contentType: UTType
    public var description: String {
      "the name says \(nameType.identifier) but the content says \(contentType.identifier)"
    }
  }

  /// The type.
  public var type: UTType
  /// The MIME type decided (shared-mime-info's name), or the type's preferred MIME type.
  public var mimeType: String?
  /// Which source decided.
  public var source: Source
  /// The facts, deciding one first.
  public var evidence: [Evidence]
  /// How sure the answer is, from 0 to 1 (see the module documentation for the scale).
  public var confidence: Double
  /// Set when the name and the content disagree; ``type`` then follows the name unless a
  /// reliable magic rule (priority 80 or more) broke a tie.
  public var disagreement: Disagreement?
  /// How many bytes of content were read (never more than the bound).
  public var bytesRead: Int

  public var description: String {
    var text = "\(type.identifier) (\(mimeType ?? "no MIME type")) from \(source.rawValue), confidence \(String(format: "%.2f", confidence))"
    if let disagreement { text += "; \(disagreement)" }
    return text
  }
}

/// How to identify a file.
public struct IdentificationOptions: Sendable {
  /// The most bytes of content read; `nil` means what the magic rules can look at
  /// (their largest offset plus range), at least 4 KiB and at most 64 KiB.
  public var maximumBytesRead: Int?
  /// Whether content is read at all (`false`: the name and the file system decide).
  public var readsContent: Bool
  /// Whether a symbolic link is identified by its target (`true`, like GIO) or as
  /// `public.symlink` (like `lstat(2)`).
  public var followsSymbolicLinks: Bool

  public init(maximumBytesRead: Int? = nil, readsContent: Bool = true, followsSymbolicLinks: Bool = true) {
    self.maximumBytesRead = maximumBytesRead
    self.readsContent = readsContent
    self.followsSymbolicLinks = followsSymbolicLinks
  }
}
