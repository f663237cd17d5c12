package import Foundation
import SystemPackage

#if canImport(Glibc)
  package import Glibc
#endif

/// Starting child processes: the one place Quire's own binary starts a program (the REPL's
/// `!cmd`, the thumbnail workers, `quire copy`'s background server, `xdg-open`).
///
/// A child gets the signal mask of the thread that starts it (`posix_spawn(3)`, `fork(2)`),
/// and the threads Quire's code runs on (Dispatch's workers, the cooperative pool, threads
/// started from them) block nearly every signal. A program started from one would ignore
/// SIGINT and SIGTERM for its whole life: Ctrl-C would not stop a `!cmd`, `kill` would not end
/// a worker, and a shell it runs would pass the mask on. So every child starts with no signal
/// blocked, and with the default action for the signals Quire handles or ignores itself.
extension SystemCalls {
  /// The signals a child gets back to their default action (Quire may catch or ignore them).
  static let signalsReset: [Int32] = [SIGINT, SIGTERM, SIGQUIT, SIGHUP, SIGPIPE, SIGALRM, SIGCHLD]

  /// Starts `process` (Foundation's `Process`, set up by the caller) with no signal blocked.
  ///
  /// `Process` spawns on the calling thread and passes that thread's mask on, so the mask is
  /// emptied around the call and put back after it. A signal that arrives meanwhile may run
  /// its handler on this thread, as it could on any thread that does not block it.
  ///
  /// - Throws: What `Process.run()` throws.
  package static func launch(_ process: Process) throws {
    var none = sigset_t()
    var previous = sigset_t()
    sigemptyset(&none)
    pthread_sigmask(SIG_SETMASK, &none, &previous)
    defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
    try process.run()
  }

  /// Starts the program at `path` with `arguments` (`arguments[0]` is its name) and this
  /// process's environment (`posix_spawn(3)`), with no signal blocked and the default action
  /// for ``signalsReset``. `duplicating` lists descriptors to give the child under another
  /// number (`dup2`, e.g. a pipe's end as 0); `discarding` lists descriptors opened on
  /// `/dev/null` for writing.
  ///
  /// - Returns: The child's process id.
  package static func spawn(
    _ path: String, arguments: [String], duplicating: [(descriptor: Int32, as: Int32)] = [], discarding: [Int32] = []
  ) -> Result<pid_t, SyscallFailure> {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    for (descriptor, target) in duplicating { posix_spawn_file_actions_adddup2(&actions, descriptor, target) }
    for target in discarding { posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_WRONLY, 0) }

    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var none = sigset_t()
    sigemptyset(&none)
    posix_spawnattr_setsigmask(&attributes, &none)
    var defaults = sigset_t()
    sigemptyset(&defaults)
    for signal in signalsReset { sigaddset(&defaults, signal) }
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

    let argv = arguments.map { strdup($0) } + [nil]
    defer { for argument in argv { free(argument) } }
    var pid: pid_t = 0
    let result = PathText.withCString(path) { posix_spawn(&pid, $0, &actions, &attributes, argv, environ) }
    guard result == 0 else { return .failure(SyscallFailure(call: "posix_spawn", errno: Errno(rawValue: result), path: path)) }
    return .success(pid)
  }
}
