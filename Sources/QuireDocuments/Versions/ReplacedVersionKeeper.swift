import Foundation
import QuireSystem
import QuireTypes
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// Keeps, in a ``VersionStore``, the content a document's save replaces: ``FileSaver`` calls it
/// at the step of the safe save where the old content is at hand.
///
/// After the atomic swap (`renameat2(RENAME_EXCHANGE)`) the replaced file is whole under the
/// save's temporary name, and the store takes it from there (moved in when that is safe, see
/// ``VersionStore/keepReplacedFile(named:in:url:replaced:)``): the 100 MiB a copy would
/// write and flush are not written again. A save that rewrites the file in place (several hard
/// links) or cannot swap (no `RENAME_EXCHANGE`) keeps a copy first, before the file changes.
///
/// A failure to keep the version is noted in ``error``, never thrown: the save goes on
/// (``Document/lastVersioningError``).
final class ReplacedVersionKeeper {
  /// Where versions are kept.
  let store: VersionStore
  /// Why the version could not be kept, if it could not.
  private(set) var error: QuireError?

  init(store: VersionStore) { self.store = store }

  /// Keeps a copy of the file at `url` before it is overwritten.
  func keepCopy(of url: URL) {
    noting(url) { _ = try store.keepVersion(of: url) }
  }

  /// Keeps the replaced content of `url`, which the save swapped to `name` in `folder`; `replaced`
  /// is the file's `stat` from before the save.
  func keepReplaced(named name: String, in folder: FileDescriptor, url: URL, replaced: stat) {
    noting(url) { _ = try store.keepReplacedFile(named: name, in: folder, url: url, replaced: replaced) }
  }

  private func noting(_ url: URL, _ body: () throws -> Void) {
    do {
      try body()
    } catch let failure as QuireError {
      error = failure
    } catch {
      self.error = QuireError(.systemCallFailed, "Cannot keep a version of \(QuireError.name(url)).", url: url, cause: error)
    }
  }
}
