public import Foundation

extension Document {
  /// Writes `data` over the document's own file in place of its contents: an editor writing
  /// some of its lines there (ed's `1,2w`).
  ///
  /// The write is a safe save (``FileSaver``) inside the document's coordinated write
  /// (``fileAccess``), and the file written becomes the one the document last read or wrote
  /// (``fileFingerprint``), so its own write is not taken for someone else's change. The
  /// document keeps its contents and edits: it is still edited afterwards, as its file does
  /// not hold them.
  ///
  /// - Throws: ``QuireError`` naming the file and the step that failed; the file is then
  ///   unchanged.
  public func writeToOwnFile(_ data: Data) async throws {
    let result = try await fileAccess.coordinate(writingItemAt: fileURL) { url in try FileSaver.write(data, to: url) }
    fileFingerprint = result.fingerprint
  }
}
