internal import CQuireSystem
internal import Foundation
package import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

extension SystemCalls {
  /// The byte-range lock kinds of `fcntl(2)`.
  package enum LockKind: Sendable {
    case read, write

    var rawValue: Int16 { self == .read ? Int16(F_RDLCK) : Int16(F_WRLCK) }
  }

  private static func region(_ type: Int16, start: Int, length: Int) -> flock {
    var region = flock()
    region.l_type = type
    region.l_whence = Int16(SEEK_SET)
    region.l_start = off_t(start)
    region.l_len = off_t(length)
    region.l_pid = 0
    return region
  }

  /// Places an open-file-description lock (`F_OFD_SETLK`) on `length` bytes at `start`.
  /// Returns false when another open file description holds a conflicting lock.
  package static func lock(_ fd: FileDescriptor, _ kind: LockKind, start: Int, length: Int = 1) -> Result<Bool, SyscallFailure> {
    var wanted = region(kind.rawValue, start: start, length: length)
    switch retrying("fcntl", .lock, in: fd, { Glibc.fcntl(fd.rawValue, cquire_F_OFD_SETLK, &wanted) }) {
    case .success: return .success(true)
    case .failure(let failure) where failure.errno == .resourceTemporarilyUnavailable || failure.errno == .permissionDenied:
      return .success(false)
    case .failure(let failure): return .failure(failure)
    }
  }

  /// Removes this open file description's lock on `length` bytes at `start`.
  package static func unlock(_ fd: FileDescriptor, start: Int, length: Int = 1) {
    var wanted = region(Int16(F_UNLCK), start: start, length: length)
    _ = Glibc.fcntl(fd.rawValue, cquire_F_OFD_SETLK, &wanted)
  }

  /// Whether another open file description holds a lock that conflicts with `kind` on the
  /// byte at `start` (`F_OFD_GETLK`).
  package static func isLockedByOthers(_ fd: FileDescriptor, against kind: LockKind, start: Int) -> Result<Bool, SyscallFailure> {
    var wanted = region(kind.rawValue, start: start, length: 1)
    return retrying("fcntl", .lock, in: fd) { Glibc.fcntl(fd.rawValue, cquire_F_OFD_GETLK, &wanted) }.map { _ in
      wanted.l_type != Int16(F_UNLCK)
    }
  }

  /// `flock(2)` of the whole file, polled with `LOCK_NB` until it succeeds or `deadline`
  /// passes (then `EWOULDBLOCK`). flock locks belong to the open file description, so two
  /// opens in one process exclude each other as two processes do.
  package static func lockWhole(_ fd: FileDescriptor, exclusive: Bool, deadline: ContinuousClock.Instant) -> Result<Void, SyscallFailure> {
    let operation = (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB
    var pause: UInt32 = 1_000
    while true {
      switch retrying("flock", .lock, in: fd, { flockCall(fd.rawValue, operation) }) {
      case .success: return .success(())
      case .failure(let failure) where failure.errno == .wouldBlock:
        if ContinuousClock.now >= deadline { return .failure(failure) }
        usleep(pause)
        pause = min(pause * 2, 20_000)
      case .failure(let failure): return .failure(failure)
      }
    }
  }

  /// `flock(2)` of the whole file, waiting as long as it takes.
  package static func lockWhole(_ fd: FileDescriptor, exclusive: Bool) -> Result<Void, SyscallFailure> {
    void(retrying("flock", .lock, in: fd) { flockCall(fd.rawValue, exclusive ? LOCK_EX : LOCK_SH) })
  }

  /// Takes a write lease on `fd` (`fcntl(F_SETLEASE, F_WRLCK)`): granted only while no other
  /// open file description (in any process, this one's included) has the file open or mapped,
  /// and only to the file's owner. Fails with `EAGAIN` when someone else has it open. While the
  /// lease is held, another process opening the file waits for ``releaseLease(_:)`` (at most
  /// `/proc/sys/fs/lease-break-time` seconds).
  package static func takeWriteLease(_ fd: FileDescriptor) -> Result<Void, SyscallFailure> {
    void(retrying("fcntl", .lock, in: fd) { Glibc.fcntl(fd.rawValue, cquire_F_SETLEASE, Int32(F_WRLCK)) })
  }

  /// Drops a lease taken with ``takeWriteLease(_:)``.
  package static func releaseLease(_ fd: FileDescriptor) { _ = Glibc.fcntl(fd.rawValue, cquire_F_SETLEASE, Int32(F_UNLCK)) }

  /// Drops this open file description's `flock(2)` lock.
  package static func unlockWhole(_ fd: FileDescriptor) { _ = flockCall(fd.rawValue, LOCK_UN) }

  /// `flock(2)`; named through its type because `Glibc.flock` is also the `struct flock`.
  private static let flockCall: @Sendable (Int32, Int32) -> Int32 = flock
}
