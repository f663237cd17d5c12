import Foundation
import QuireSystem
import QuireTypes
import Synchronization
import SystemPackage

/// Says, once per mount and process, that coordination of an item on a network or FUSE mount
/// excludes processes of this machine only: Quire's locks are lock files under this machine's
/// `XDG_RUNTIME_DIR`, and sshfs or bindfs enforce `fcntl` locks locally too, so a program on
/// another machine (or on the server) can change the item while it is held here. Quire's lock
/// files and other editors' lock files beside the item (Emacs `.#`, Vim `.swp`, LibreOffice
/// `.~lock`) are honoured there all the same.
enum LockReach {
  private static let warned = Mutex<Set<String>>([])

  /// Looks at the file systems of `paths` and tells (``QuireNotes``) of each mount met for the
  /// first time whose locks do not reach other machines.
  static func note(_ paths: [FilePath]) {
    for path in paths {
      let kind = FileSystemKind.of(path)
      guard !kind.locksReachOtherMachines else { continue }
      guard warned.withLock({ $0.insert(kind.description).inserted }) else { continue }
      QuireNotes.tell(QuireNote(.coordination, message(for: path, on: kind), url: URL(fileURLWithPath: PathText.string(path))))
    }
  }

  /// The warning for `path` on `kind`.
  static func message(for path: FilePath, on kind: FileSystemKind) -> String {
    let place = kind.mountPoint.map { " at '\(DisplayName.escaping($0))'" } ?? ""
    return
      "'\(DisplayName.escaping(path))' is on a \(kind.type) mount\(place): coordination excludes processes on this machine only; a program on another machine or on the server can still change it meanwhile."
  }
}
