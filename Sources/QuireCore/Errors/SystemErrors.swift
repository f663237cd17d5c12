package import Foundation
public import QuireSystem
package import SystemPackage

/// A system call that failed: the cause a ``QuireError`` keeps when a system call made it, in
/// every module (`'renameat2' failed: (28) No space left on device`).
public typealias SyscallFailure = QuireSystem.SyscallFailure

/// A path's bytes carried in a `String` (see the system layer's `PathText`), for every module.
package typealias PathText = QuireSystem.PathText

extension QuireError.Code {
  /// The code an `errno` gives, the same in every module and for every operation except where
  /// the operation gives the errno another meaning (``SystemOperation/watch``: `ENOSPC` is the
  /// inotify watch limit, not a full disk).
  package init(_ errno: Errno, for operation: SystemOperation = .other) {
    switch errno {
    case .noSpace where operation == .watch: self = .limitExceeded
    case .noSpace, .diskQuotaExceeded: self = .diskFull
    case .permissionDenied, .notPermitted, .readOnlyFileSystem: self = .permissionDenied
    case .noSuchFileOrDirectory, .notDirectory: self = .fileMissing
    case .fileExists: self = .fileExists
    case .resourceTemporarilyUnavailable where operation == .lock: self = .inUse
    case .timedOut: self = .timedOut
    case .canceled: self = .cancelled
    case .fileTooLarge, .tooManyOpenFiles, .tooManyOpenFilesInSystem: self = .limitExceeded
    default: self = .systemCallFailed
    }
  }
}

/// What was being done when a system call failed: it chooses the words of the message (the
/// code comes from the `errno`, see ``QuireError/Code/init(_:for:)``).
package enum SystemOperation: Sendable, Equatable {
  /// Opening a file to read it.
  case open
  /// Reading a file.
  case read
  /// Writing a file (or a socket, a pasteboard entry, a cache entry).
  case write
  /// Saving a document (the safe save).
  case save
  /// Making a file or folder.
  case create
  /// Removing a file or folder.
  case remove
  /// Looking a file up (`stat`).
  case inspect
  /// Taking a lock.
  case lock
  /// Watching a path for changes.
  case watch
  /// Reaching another process (a socket).
  case connect
  /// Anything else.
  case other

  var verb: String {
    switch self {
    case .open: "open"
    case .read: "read"
    case .write: "write"
    case .save: "save"
    case .create: "create"
    case .remove: "remove"
    case .inspect: "look up"
    case .lock: "lock"
    case .watch: "watch"
    case .connect: "reach"
    case .other: "use"
    }
  }
}

extension QuireError {
  /// What an `errno` means, in words for a person: the one table of the package (no module
  /// calls `strerror` itself). A few errors read differently for one operation: a save's
  /// `ENOENT` means its folder went away.
  package static func describe(_ errno: Errno, while operation: SystemOperation? = nil) -> String {
    switch errno {
    case .noSpace, .diskQuotaExceeded: "the disk is full"
    case .permissionDenied, .notPermitted: "permission was denied"
    case .readOnlyFileSystem: "the file system is read-only"
    case .ioError: "the disk reported an input/output error"
    case .noSuchFileOrDirectory where operation == .save: "the folder no longer exists"
    case .noSuchFileOrDirectory: "it does not exist"
    case .notDirectory: "a part of its path is not a folder"
    case .fileExists: "it exists already"
    case .tooManySymbolicLinkLevels: "its symbolic links form a loop"
    default: errno.description
    }
  }

  /// What to do about an `errno`, for a person.
  static func advice(_ errno: Errno, _ operation: SystemOperation) -> String {
    switch errno {
    case .noSpace where operation == .watch: "Raise fs.inotify.max_user_watches, or watch fewer files."
    case .noSpace, .diskQuotaExceeded: "Free some space and try again."
    case .permissionDenied, .notPermitted: "Check the permissions of the file and its folder."
    case .readOnlyFileSystem: "Choose a place on a writable disk."
    case .noSuchFileOrDirectory, .notDirectory: "Check the path."
    default: "Try again."
    }
  }

  /// The one way a failed system call becomes a ``QuireError``: the code from its `errno`
  /// (so `ENOSPC` is ``Code/diskFull`` everywhere), a reason that names the file, what failed
  /// and what to do, and the failure kept as the cause.
  ///
  /// - Parameters:
  ///   - failure: The failed call.
  ///   - operation: What was being done.
  ///   - url: The file concerned.
  ///   - role: What the file is, when its name is not enough (`"the pasteboard's lock file"`).
  ///   - advice: What to do, when the operation knows better than the general advice.
  package init(
    _ failure: SyscallFailure, while operation: SystemOperation, url: URL?, role: String? = nil, advice: String? = nil,
    fileID: StaticString = #fileID, line: UInt = #line
  ) {
    let name = role ?? url.map { QuireError.name($0) } ?? failure.path.map { "'\($0)'" } ?? "the file"
    let reason = "Cannot \(operation.verb) \(name): \(Self.describe(failure.errno)). \(advice ?? Self.advice(failure.errno, operation))"
    self.init(Code(failure.errno, for: operation), reason, url: url, cause: failure, fileID: fileID, line: line)
  }
}
