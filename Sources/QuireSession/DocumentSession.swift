public import Foundation
public import QuireDocuments
import QuireSystem
public import QuireTypes
import SystemPackage

/// The text documents a process's front ends have open — the web page of `quire serve`, the
/// clients of `quire rpc` — shared by them: one mechanism for opening, versioned editing,
/// conflicts, saving, undo and closing, over one ``QuireDocuments/DocumentController``.
///
/// **One entry per file.** A document is found again by its file's identity (device and
/// inode), not by the name it was opened with: a second name for the same file (`a/../b.txt`,
/// a symbolic link to it) gives the same ``SessionDocument``, a document follows its file when
/// it moves, and a new file made at a moved document's old name is another document.
///
/// **Unsaved work is kept.** ``close(_:)`` and ``closeAll()`` keep unsaved changes in the
/// document's recovery file (see ``QuireDocuments/Document/closeKeepingUnsavedChanges()``),
/// which the next open — here, in the `quire` REPL or in another session — offers as
/// ``SessionDocument/recoveredVersion``. A close that cannot keep them refuses.
@MainActor
public final class DocumentSession {
  /// The controller every document is opened through.
  public let controller: DocumentController
  /// The open documents, in the order they were opened.
  public private(set) var documents: [SessionDocument] = []
  private var nextID = 1

  /// A session opening documents through `controller`.
  public init(controller: DocumentController) {
    self.controller = controller
  }

  /// Opens the text document at `url`, or returns the open one for the same file.
  ///
  /// - Throws: ``QuireError`` when the file cannot be opened (missing, not readable, not a
  ///   regular file) or is not a text document (`unsupportedType`).
  public func open(_ url: URL) async throws -> SessionDocument {
    let url = url.standardizedFileURL
    if let open = document(forFileAt: url) { return open }
    try Self.checkOpenable(url)
    let opened = try await controller.openDocument(at: url)
    if let existing = documents.first(where: { $0.document === opened }) { return existing }
    guard let text = opened as? PlainTextDocument else {
      if !documents.contains(where: { $0.document === opened }) { try? await controller.close(opened, discardingChanges: true) }
      throw QuireError(.unsupportedType, "\(QuireError.name(url)) is not a text document; only text and Markdown are edited here.", url: url)
    }
    let entry = SessionDocument(id: String(nextID), document: text)
    nextID += 1
    documents.append(entry)
    return entry
  }

  /// The open document with handle `id`.
  public func document(withID id: String) -> SessionDocument? {
    documents.first { $0.id == id }
  }

  /// The open document whose file is the file at `url` (by identity: another name or a link
  /// for it finds it too; a document that moved is found at its new name, not its old one).
  public func document(forFileAt url: URL) -> SessionDocument? {
    guard let identity = Self.identity(of: url) else {
      return documents.first { $0.fileURL.standardizedFileURL == url.standardizedFileURL }
    }
    return documents.first { Self.identity(of: $0.fileURL) == identity }
  }

  /// Closes `document`, keeping unsaved changes in its recovery file.
  ///
  /// - Throws: ``QuireError`` (`unsavedChanges`) when they cannot be kept (then it stays open).
  public func close(_ document: SessionDocument) async throws {
    guard documents.contains(where: { $0 === document }) else { return }
    try await controller.closeKeepingUnsavedChanges(document.document)
    documents.removeAll { $0 === document }
    document.didClose()
  }

  /// Closes every document, keeping each one's unsaved changes in its recovery file (the
  /// process is stopping). Returns the errors of those that could not be kept.
  @discardableResult
  public func closeAll() async -> [QuireError] {
    var errors: [QuireError] = []
    for document in documents {
      do { try await close(document) } catch let error as QuireError { errors.append(error) } catch {
        errors.append(QuireError(.systemCallFailed, "Cannot close \(QuireError.name(document.fileURL)).", url: document.fileURL, cause: error))
      }
    }
    return errors
  }

  // MARK: Files

  private struct Identity: Hashable {
    var device: UInt64
    var inode: UInt64
  }

  private static func identity(of url: URL) -> Identity? {
    guard case .success(let info) = SystemCalls.stat(FilePath(url.path)) else { return nil }
    return Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
  }

  /// Refuses what is not a regular file before the document reads it (a FIFO would block the
  /// read, a folder is not text).
  private static func checkOpenable(_ url: URL) throws(QuireError) {
    switch SystemCalls.stat(FilePath(url.path)) {
    case .failure(let failure):
      if failure.errno == .noSuchFileOrDirectory {
        throw QuireError(.fileMissing, "Cannot open \(QuireError.name(url)): there is no such file.", url: url)
      }
      throw QuireError(.systemCallFailed, "Cannot open \(QuireError.name(url)).", url: url, cause: failure)
    case .success(let info):
      // S_IFMT and S_IFREG: a regular file.
      guard info.st_mode & 0o170000 == 0o100000 else {
        throw QuireError(.unsupportedType, "Cannot open \(QuireError.name(url)): it is not a regular file.", url: url)
      }
    }
  }
}
