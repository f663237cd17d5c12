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
    guard let record = record(for: documentURL) else { return nil }
    return RecoveredVersion(documentURL: documentURL, url: files(for: documentURL).data, date: record.date)
  }

  /// The record of `documentURL`'s recovery files, when both are there and it names the document.
  private func record(for documentURL: URL) -> Record? {
    let (dataURL, recordURL) = files(for: documentURL)
    guard let data = try? Data(contentsOf: recordURL),
      let record = try? JSONDecoder().decode(Record.self, from: data),
      record.path == documentURL.standardizedFileURL.path,
      FileManager.default.fileExists(atPath: dataURL.path)
    else { return nil }
    return record
  }

  /// Moves the recovery files of `oldURL` to `newURL`, for a document whose file was moved or
  /// renamed: recovery files are named by the document's path, so without this, autosaved
  /// work (or a crash's version not yet restored) would no longer be found for the document.
  /// The autosave's date and type are kept; recovery files already there for `newURL` are
  /// replaced.
  ///
  /// At every step one whole pair of files holds the contents: the new name is linked to the
  /// old contents (copied where the file system has no hard links) and recorded before the
  /// old pair is removed.
  ///
  /// - Returns: The version now recorded for `newURL`, or nil when `oldURL` had none.
  /// - Throws: ``QuireError`` naming the recovery file when it cannot be linked, copied or
  ///   recorded; the old pair is then left as it was.
  @discardableResult
  public func move(from oldURL: URL, to newURL: URL) throws(QuireError) -> RecoveredVersion? {
    guard oldURL.standardizedFileURL.path != newURL.standardizedFileURL.path else { return recoveredVersion(for: newURL) }
    guard var record = record(for: oldURL) else { return nil }
    let old = files(for: oldURL)
    let new = files(for: newURL)
    _ = SystemCalls.remove(new.data.path)
    let linked = old.data.withUnsafeFileSystemRepresentation { from in
      new.data.withUnsafeFileSystemRepresentation { to in from.flatMap { from in to.map { link(from, $0) } } }
    }
    if linked != 0 {
      try FileSaver.write(try FileReader.read(old.data).contents, to: new.data, options: .privateState)
    }
    record.path = newURL.standardizedFileURL.path
    do throws(QuireError) {
      guard let encoded = try? JSONEncoder().encode(record) else {
        throw QuireError(.invalidArgument, "Cannot record the recovery file for \(QuireError.name(newURL)).", url: newURL)
      }
      try FileSaver.write(encoded, to: new.record, options: .privateState)
    } catch {
      _ = SystemCalls.remove(new.data.path)  // no half pair under the new name
      throw error
    }
    remove(for: oldURL)
    return RecoveredVersion(documentURL: newURL, url: new.data, date: record.date)
  }

  /// Removes the recovery files of `documentURL`.
  public func remove(for documentURL: URL) {
    let (dataURL, recordURL) = files(for: documentURL)
    _ = SystemCalls.remove(recordURL.path)
    _ = SystemCalls.remove(dataURL.path)
  }
}
