package import Foundation
import QuireSystem
package import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// Per-user private folders (caches, state, locks, pasteboards): made component by component
/// with `openat(2)`/`mkdirat(2)`, folders `0700`, never through a symbolic link.
///
/// A folder is made *below a trusted folder*: usually the XDG base directory it lives in
/// (``XDGBaseDirectory/Location/trustedFolder``), which is the user's or the session's
/// choice and is used as it is. The trusted folder is opened first (made, when missing, from
/// its deepest existing ancestor on, each new level `0700`); every component below it is
/// then opened with `O_NOFOLLOW | O_DIRECTORY`, made with `mkdirat(2)` when missing, and
/// must be a real folder owned by this user whose permissions let no one else in (tightened
/// to `0700`, or refused with ``LoosePermissions/refuse``).
package enum PrivateFolder {
  /// What to do with a folder of this user whose permissions let group or others in.
  package enum LoosePermissions: Sendable {
    /// Change it to `0700` (`fchmod(2)`).
    case tighten
    /// Refuse it: someone else may already have written into it.
    case refuse
  }

  /// Why a private folder cannot be used, with the path of the component at fault.
  package struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
    package enum Kind: Sendable, Equatable {
      /// The component is a symbolic link.
      case symbolicLink
      /// The component exists and is not a folder.
      case notAFolder
      /// The component belongs to the user with this id.
      case ownedByAnotherUser(uid: UInt32)
      /// The component's permissions (the low nine bits) let group or others in.
      case loosePermissions(mode: UInt32)
      /// A system call failed.
      case systemCall(String, Errno)
    }

    /// The component at fault, as an absolute path.
    package var path: String
    package var kind: Kind

    package init(path: String, kind: Kind) {
      self.path = path
      self.kind = kind
    }

    package var description: String { error(role: "the private folder").description }

    /// The failure as a ``QuireError``: which folder, what failed and what to do.
    ///
    /// - Parameters:
    ///   - role: What the folder is for, e.g. `"the version store folder"`.
    ///   - alternative: A second way out, e.g. `"set XDG_STATE_HOME to a folder of your own"`.
    ///   - url: The file the error concerns; by default the component at fault.
    package func error(role: String, alternative: String? = nil, url: URL? = nil) -> QuireError {
      let orElse = alternative.map { ", or \($0)" } ?? ""
      let url = url ?? URL(fileURLWithPath: path)
      switch kind {
      case .symbolicLink:
        return QuireError(
          .permissionDenied,
          "Cannot use \(role) '\(path)': it is a symbolic link, which Quire never follows for its private folders. Remove it\(orElse).",
          url: url)
      case .notAFolder:
        return QuireError(
          .permissionDenied, "Cannot use \(role) '\(path)': it is not a folder. Remove or move it\(orElse).", url: url)
      case .ownedByAnotherUser(let uid):
        return QuireError(
          .permissionDenied,
          "Cannot use \(role) '\(path)': it belongs to user \(uid), not to you (\(geteuid())). Remove it\(orElse).",
          url: url)
      case .loosePermissions(let mode):
        return QuireError(
          .permissionDenied,
          "Cannot use \(role) '\(path)': its permissions (\(String(mode, radix: 8))) let other users in. Run 'chmod 700' on it\(orElse).",
          url: url)
      case .systemCall(let call, let code):
        return QuireError(
          Self.code(for: code),
          "Cannot make or open \(role) '\(path)': \(QuireError.describe(code)). Check that its parent folder is writable\(orElse).",
          url: url, cause: SyscallFailure(call: call, errno: code, path: path))
      }
    }

    /// The ``QuireError/Code`` for a failed call's `errno`.
    package static func code(for code: Errno) -> QuireError.Code { QuireError.Code(code) }
  }

  /// Opens the private folder `url`, making what is missing.
  ///
  /// - Parameters:
  ///   - url: An absolute path to the folder; `.` and `..` components are resolved first.
  ///   - trusted: A folder that is `url` or one of its ancestors, used as it is (symbolic
  ///     links in its path are followed). When `url` is not below it, `url`'s parent is
  ///     trusted instead.
  ///   - loosePermissions: What to do with a folder below `trusted` that lets others in.
  /// - Returns: A descriptor of the folder (`O_DIRECTORY`), which the caller closes.
  /// - Throws: ``Failure`` naming the component at fault.
  package static func open(
    _ url: URL, below trusted: URL, loosePermissions: LoosePermissions = .tighten
  ) throws(Failure) -> FileDescriptor {
    let target = components(of: url)
    var base = components(of: trusted)
    if base.count > target.count || Array(target.prefix(base.count)) != base { base = Array(target.dropLast()) }

    // The trusted folder, or its deepest existing ancestor, opened following links.
    var depth = base.count
    var folder: FileDescriptor
    while true {
      let path = joined(base.prefix(depth))
      switch SystemCalls.open(FilePath(path), O_RDONLY | O_DIRECTORY) {
      case .success(let opened): folder = opened
      case .failure(let failure) where failure.errno == .noSuchFileOrDirectory && depth > 0:
        depth -= 1
        continue
      case .failure(let failure):
        throw Failure(path: path, kind: failure.errno == .notDirectory ? .notAFolder : .systemCall(failure.call, failure.errno))
      }
      break
    }

    // Each further component: opened without following a link, made when missing.
    for index in depth..<target.count {
      let name = target[index]
      let path = joined(target.prefix(index + 1))
      let child: FileDescriptor
      do {
        child = try openChild(name, in: folder, path: path)
      } catch {
        SystemCalls.release(folder)
        throw error
      }
      SystemCalls.release(folder)
      folder = child
      // Below the trusted folder, every level is Quire's own: this user's, and private.
      guard index >= base.count else { continue }
      if let failure = checkOwnFolder(folder, path: path, loosePermissions: loosePermissions) {
        SystemCalls.release(folder)
        throw failure
      }
    }
    return folder
  }

  /// Makes (or checks) the private folder `url`; see ``open(_:below:loosePermissions:)``.
  ///
  /// - Throws: ``Failure`` naming the component at fault.
  package static func make(
    _ url: URL, below trusted: URL, loosePermissions: LoosePermissions = .tighten
  ) throws(Failure) {
    let folder = try open(url, below: trusted, loosePermissions: loosePermissions)
    try? folder.close()
  }

  /// Makes (or checks) the private folder `url`, throwing a ``QuireError`` in
  /// ``Failure/error(role:alternative:url:)``'s words.
  package static func make(_ url: URL, below trusted: URL, role: String, alternative: String? = nil) throws(QuireError) {
    do {
      try make(url, below: trusted)
    } catch {
      throw error.error(role: role, alternative: alternative)
    }
  }

  /// Opens `name` in `folder` with `O_NOFOLLOW | O_DIRECTORY`, making it (0700) when missing.
  private static func openChild(_ name: String, in folder: FileDescriptor, path: String) throws(Failure) -> FileDescriptor {
    var madeIt = false
    while true {
      switch SystemCalls.open(name, in: folder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, path: path) {
      case .success(let child): return child
      case .failure(let failure) where failure.errno == .noSuchFileOrDirectory && !madeIt:
        // Another process may make it at the same moment: EEXIST is fine, the next openat checks it.
        if case .failure(let failure) = SystemCalls.makeFolder(name, in: folder, mode: 0o700, path: path), failure.errno != .fileExists {
          throw Failure(path: path, kind: .systemCall(failure.call, failure.errno))
        }
        madeIt = true
      case .failure(let failure) where failure.errno == .tooManySymbolicLinkLevels || failure.errno == .notDirectory:
        // O_NOFOLLOW reports a link as ELOOP (or ENOTDIR with O_DIRECTORY): say which it is.
        let isLink = if case .success(let info) = SystemCalls.lstat(name, in: folder), info.st_mode & S_IFMT == S_IFLNK { true } else { false }
        throw Failure(path: path, kind: isLink ? .symbolicLink : .notAFolder)
      case .failure(let failure):
        throw Failure(path: path, kind: .systemCall(failure.call, failure.errno))
      }
    }
  }

  /// Checks that the open folder is this user's and private, tightening it when allowed.
  private static func checkOwnFolder(_ folder: FileDescriptor, path: String, loosePermissions: LoosePermissions) -> Failure? {
    let info: FileStatus
    switch SystemCalls.fstat(folder) {
    case .success(let got): info = got
    case .failure(let failure): return Failure(path: path, kind: .systemCall(failure.call, failure.errno))
    }
    guard info.st_uid == geteuid() else { return Failure(path: path, kind: .ownedByAnotherUser(uid: info.st_uid)) }
    let mode = UInt32(info.st_mode) & 0o777
    guard mode != 0o700 else { return nil }
    if mode & 0o077 != 0 && loosePermissions == .refuse { return Failure(path: path, kind: .loosePermissions(mode: mode)) }
    // The owner needs all three bits to use it; group and others get none, whatever the umask was.
    if case .failure(let failure) = SystemCalls.setMode(folder, 0o700) { return Failure(path: path, kind: .systemCall(failure.call, failure.errno)) }
    return nil
  }

  private static func components(of url: URL) -> [String] {
    url.standardizedFileURL.path.split(separator: "/").map(String.init).filter { $0 != "." }
  }

  private static func joined(_ components: some Sequence<String>) -> String {
    "/" + components.joined(separator: "/")
  }
}
