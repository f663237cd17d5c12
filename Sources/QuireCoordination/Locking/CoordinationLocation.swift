public import Foundation
import QuireTypes
import SystemPackage

/// Where the processes of one user meet to coordinate: the folder that holds the lock files
/// (`quire/locks`) and the presenter registry (`quire/presenters`).
///
/// By default this is `$XDG_RUNTIME_DIR` (a per-user tmpfs that systemd-logind empties at
/// logout). When `XDG_RUNTIME_DIR` is unset or not absolute, as in containers, cron jobs and
/// `su` sessions, Quire falls back to `/tmp/quire-runtime-UID` (created 0700, refused when it
/// is a symlink or owned by another user) and says so in ``fallbackNote``. Processes only
/// coordinate with processes that use the same location.
///
/// Folders are created 0700 and files 0600; no symlink is followed inside the location.
public struct CoordinationLocation: Sendable, Hashable {
  /// The runtime folder (`$XDG_RUNTIME_DIR` or the fallback).
  public let runtimeFolder: URL
  /// Why the fallback is used, when it is; nil when `$XDG_RUNTIME_DIR` is used or the folder was given.
  public let fallbackNote: String?

  /// A location under `runtimeFolder` (tests and embedding tools pass their own).
  public init(runtimeFolder: URL) {
    self.runtimeFolder = runtimeFolder.standardizedFileURL
    self.fallbackNote = nil
  }

  private init(runtimeFolder: URL, fallbackNote: String?) {
    self.runtimeFolder = runtimeFolder
    self.fallbackNote = fallbackNote
  }

  /// The user's location: `$XDG_RUNTIME_DIR`, or `/tmp/quire-runtime-UID` when it is unset.
  public static var `default`: CoordinationLocation {
    let runtime = XDGBaseDirectory.runtimeDirectory.location()
    guard runtime.isFallback else { return CoordinationLocation(runtimeFolder: runtime.url) }
    return CoordinationLocation(
      runtimeFolder: runtime.url,
      fallbackNote:
        "XDG_RUNTIME_DIR is not set; coordinating through \(runtime.url.path) instead. Processes of this user that see XDG_RUNTIME_DIR will not coordinate with this one."
    )
  }

  /// `runtimeFolder/quire/locks`.
  var locksPath: String { runtimeFolder.path + "/quire/locks" }
  /// `runtimeFolder/quire/presenters`.
  var presentersPath: String { runtimeFolder.path + "/quire/presenters" }

  /// Creates `quire/NAME` under the runtime folder (and the runtime folder itself when it is
  /// the fallback), 0700, refusing symlinks and folders of other users.
  ///
  /// - Throws: ``QuireError`` naming the folder when it cannot be created or is unsafe.
  func prepareFolder(_ name: String, for item: URL?) throws -> String {
    let folder = runtimeFolder.appendingPathComponent("quire/" + name, isDirectory: true)
    // The fallback lives in the shared /tmp, so it is checked like Quire's own folders.
    let trusted = fallbackNote == nil ? runtimeFolder : runtimeFolder.deletingLastPathComponent()
    do {
      try PrivateFolder.make(folder, below: trusted)
    } catch {
      switch error.kind {
      case .symbolicLink:
        throw QuireError(
          .permissionDenied,
          "Cannot coordinate\(Self.about(item)): '\(error.path)' is a symbolic link, which Quire never follows for its lock folder. Remove it, or set XDG_RUNTIME_DIR to a folder of your own.",
          url: item)
      case .ownedByAnotherUser:
        throw QuireError(
          .permissionDenied,
          "Cannot coordinate\(Self.about(item)): '\(error.path)' belongs to another user. Set XDG_RUNTIME_DIR to a folder of your own.",
          url: item)
      case .notAFolder:
        throw unusable(error.path, SyscallFailure(call: "openat", errno: .notDirectory, path: error.path), item: item)
      case .loosePermissions:
        // Not asked for: loose folders are tightened.
        throw unusable(error.path, SyscallFailure(call: "openat", errno: .permissionDenied, path: error.path), item: item)
      case .systemCall(let call, let code):
        throw unusable(error.path, SyscallFailure(call: call, errno: code, path: error.path), item: item)
      }
    }
    return folder.path
  }

  private func unusable(_ path: String, _ failure: SyscallFailure, item: URL?) -> QuireError {
    QuireError(
      QuireError.Code(failure.errno),
      "Cannot coordinate\(Self.about(item)): the lock folder '\(path)' cannot be used (\(failure.errno)). Make it writable, or set XDG_RUNTIME_DIR to a writable folder of your own.",
      url: item, cause: failure)
  }

  static func about(_ item: URL?) -> String {
    item.map { " access to \(QuireError.name($0))" } ?? ""
  }
}
