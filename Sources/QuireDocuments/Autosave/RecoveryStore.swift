public import Foundation
import QuireSystem
public import QuireTypes
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// Where per-user state lives: `$XDG_STATE_HOME/quire` (or `~/.local/state/quire`).
public enum StateFolder {
  /// The default state folder from the environment; not created until used.
  public static var standard: URL {
    XDGBaseDirectory.stateHome.url().appendingPathComponent("quire", isDirectory: true)
  }

  /// Makes `url` and missing parents as owner-only (`0700`) folders. The last two levels
  /// (the ones Quire owns) must be real folders owned by this user, never symlinks, and are
  /// made `0700` when they let others in (see `PrivateFolder` in QuireTypes).
  ///
  /// - Throws: ``QuireError`` naming the folder when it cannot be made or is not safe.
  public static func prepare(_ url: URL) throws(QuireError) {
    let url = url.standardizedFileURL
    try PrivateFolder.make(
      url, below: url.deletingLastPathComponent().deletingLastPathComponent(), role: "the state folder",
      alternative: "set XDG_STATE_HOME to a folder of your own")
  }
}

/// An autosaved version waiting to be recovered after a crash.
public struct RecoveredVersion: Sendable, Hashable {
  /// The document it belongs to.
  public var documentURL: URL
  /// The recovery file holding the contents.
  public var url: URL
  /// When it was autosaved.
  public var date: Date

  /// The autosaved contents, read from the recovery file (a regular file, not followed
  /// through a symbolic link's folder; a large one in a mapped scratch copy).
  ///
  /// - Throws: ``QuireError`` naming the recovery file when it is gone or cannot be read.
  public func contents() throws(QuireError) -> Data {
    try FileReader.read(url).contents
  }
}

/// Autosaved contents of documents that do not autosave in place, under
/// `$XDG_STATE_HOME/quire/recovery` (folder `0700`, files `0600`).
///
/// One recovery file per document, named by a hash of the document's path, with a small JSON
/// record beside it naming the document. Saving or closing the document removes them; a crash
/// leaves them for the next open to offer.
public struct RecoveryStore: Sendable, Hashable {
  /// The folder holding recovery files.
  public var folder: URL

  /// A store in `folder` (made on first write).
  public init(folder: URL) { self.folder = folder }

  /// The store in the standard state folder.
  public static var standard: RecoveryStore {
    RecoveryStore(folder: StateFolder.standard.appendingPathComponent("recovery", isDirectory: true))
  }

  private struct Record: Codable {
    var path: String
    var type: String?
    var date: Date
  }

  private func key(for documentURL: URL) -> String {
    ContentHash(Data(documentURL.standardizedFileURL.path.utf8)).description
  }

  private func files(for documentURL: URL) -> (data: URL, record: URL) {
    let key = key(for: documentURL)
    return (folder.appendingPathComponent("\(key).recovery"), folder.appendingPathComponent("\(key).json"))
  }

  /// Writes `contents` as the recovery version of `documentURL`.
  ///
  /// - Throws: ``QuireError`` when the state folder or the file cannot be written.
  public func write(_ contents: Data, for documentURL: URL, type: String? = nil) throws(QuireError) {
    try StateFolder.prepare(folder)
    let (dataURL, recordURL) = files(for: documentURL)
    try FileSaver.write(contents, to: dataURL, options: .privateState)
    let record = Record(path: documentURL.standardizedFileURL.path, type: type, date: Date())
    let encoded: Data
    do { encoded = try JSONEncoder().encode(record) } catch {
      throw QuireError(.invalidArgument, "Cannot record the recovery file for \(QuireError.name(documentURL)).", url: documentURL)
    }
    try FileSaver.write(encoded, to: recordURL, options: .privateState)
  }

  /// The recovered version of `documentURL`, when one was left behind.
  public func recoveredVersion(for documentURL: URL) -> RecoveredVersion? {
    let (dataURL, recordURL) = files(for: documentURL)
    guard let data = try? Data(contentsOf: recordURL),
      let record = try? JSONDecoder().decode(Record.self, from: data),
      record.path == documentURL.standardizedFileURL.path,
      FileManager.default.fileExists(atPath: dataURL.path)
    else { return nil }
    return RecoveredVersion(documentURL: documentURL, url: dataURL, date: record.date)
  }

  /// Removes the recovery files of `documentURL`.
  public func remove(for documentURL: URL) {
    let (dataURL, recordURL) = files(for: documentURL)
    _ = SystemCalls.remove(recordURL.path)
    _ = SystemCalls.remove(dataURL.path)
  }
}
