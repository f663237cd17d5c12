public import Foundation
import Synchronization

/// Something Quire's library has to tell that is not an error of the call that met it: the
/// work goes on, but a person should know. A mount whose locks do not reach other machines,
/// a file presenter that did not answer in time, a registration that failed where Apple's
/// API cannot throw, a private pasteboard used instead of the shared one.
public struct QuireNote: Sendable, Hashable, CustomStringConvertible {
  /// Which part of Quire speaks.
  public enum Area: String, Sendable, Hashable, CaseIterable {
    /// File coordination and presenters (QuireCoordination).
    case coordination
    /// Pasteboards, drag and drop, item providers (QuireTransfer).
    case transfer
    /// The document server (`quire serve`, QuireServer).
    case server
  }

  /// Which part of Quire speaks.
  public var area: Area
  /// The note, a sentence naming the file or process it is about and what it means.
  public var message: String
  /// The file it is about, when there is one.
  public var url: URL?

  /// A note of `area`.
  public init(_ area: Area, _ message: String, url: URL? = nil) {
    self.area = area
    self.message = message
    self.url = url
  }

  /// The message.
  public var description: String { message }
}

/// Where the library's notes (``QuireNote``) go.
///
/// By default each is written to standard error as one line, `quire: MESSAGE`, as `quire`
/// prints them. An embedder takes them with ``setHandler(_:)``: into its own log (a
/// swift-log `Logger`), its user interface, or nowhere. Apple's frameworks write such notes to
/// the system log, which a program cannot redirect; here the program decides.
///
/// ```swift
/// let logger = Logger(label: "com.example.notes")
/// QuireNotes.setHandler { note in logger.notice("\(note.message)", metadata: ["area": "\(note.area)"]) }
/// ```
public enum QuireNotes {
  private static let handler = Mutex<(@Sendable (QuireNote) -> Void)?>(nil)

  /// Sends every later note to `handler` instead of standard error; `nil` restores the
  /// default. The handler may be called on any thread, and must not block for long.
  public static func setHandler(_ handler: (@Sendable (QuireNote) -> Void)?) {
    self.handler.withLock { $0 = handler }
  }

  /// Tells `note` to the handler, or writes it to standard error.
  public static func tell(_ note: QuireNote) {
    if let handler = handler.withLock({ $0 }) {
      handler(note)
    } else {
      FileHandle.standardError.write(Data("quire: \(note.message)\n".utf8))
    }
  }
}
