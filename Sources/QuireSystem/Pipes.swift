package import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

extension SystemCalls {
  /// Writes all of `bytes` into the write end of a pipe whose reader is another program, which
  /// may read slowly, stop reading, or close its end: the descriptor is made non-blocking,
  /// `poll(2)` waits for room, and the write fails with `ETIMEDOUT` once the reader has taken
  /// nothing for `stallMilliseconds`. `SIGPIPE` is blocked on the calling thread, so a reader
  /// that is gone is `EPIPE`, never the end of the process.
  package static func writeToPipe(_ fd: FileDescriptor, _ bytes: UnsafeRawBufferPointer, stallMilliseconds: Int32) -> Result<Void, SyscallFailure> {
    var brokenPipe = sigset_t()
    sigemptyset(&brokenPipe)
    sigaddset(&brokenPipe, SIGPIPE)
    pthread_sigmask(SIG_BLOCK, &brokenPipe, nil)
    setNonBlocking(fd, true)
    guard let base = bytes.baseAddress else { return .success(()) }
    var done = 0
    while done < bytes.count {
      let written = Glibc.write(fd.rawValue, base + done, min(bytes.count - done, 1 << 20))
      if written > 0 {
        done += written
        continue
      }
      let code = Glibc.errno
      if written < 0 && code == EINTR { continue }
      guard written < 0, code == EAGAIN || code == EWOULDBLOCK else {
        return .failure(SyscallFailure(call: "write", errno: Errno(rawValue: written < 0 ? code : ENOSPC)))
      }
      var poll = pollfd(fd: fd.rawValue, events: Int16(POLLOUT), revents: 0)
      let ready = Glibc.poll(&poll, 1, stallMilliseconds)
      if ready == 0 { return .failure(SyscallFailure(call: "poll", errno: .timedOut)) }
      if ready < 0 && Glibc.errno != EINTR { return .failure(SyscallFailure(call: "poll", errno: Errno(rawValue: Glibc.errno))) }
    }
    return .success(())
  }
}
