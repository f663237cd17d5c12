internal import CQuireSystem
package import Foundation
import Synchronization
package import SystemPackage

#if canImport(Glibc)
  package import Glibc
#endif

/// Starting child processes: the one place Quire starts a program (the REPL's `!cmd`, the
/// thumbnail workers, `quire copy`'s background server, `xdg-open`), and the test support's
/// one way too.
///
/// Every child starts from `posix_spawn(3)` with:
/// - **no signal blocked**, and the default action for the signals Quire handles or ignores.
///   A child gets the mask of the thread that starts it, and the threads Quire's code runs on
///   (Dispatch's workers, the cooperative pool) block nearly every signal: a program started
///   from one would ignore SIGINT and SIGTERM for its whole life.
/// - **the parent's process group** (unless asked otherwise), as `system(3)` and GNU ed's `!` give it: the terminal's
///   Ctrl-C reaches the child too. (Foundation's `Process` puts every child in a group of its
///   own, where Ctrl-C never reaches it.)
/// - **no descriptor but 0, 1 and 2** (`closefrom(3)` in the child): a child never holds
///   another child's pipe or socket open by accident, because another thread of ours opened
///   it in the moment between our `posix_spawn`'s set-up and its `fork`.
///
/// A child is reaped by waiting on its own process id (``SpawnedProcess/wait()``), never by
/// an end of file on a descriptor: Foundation's `Process` learns of an exit from a socket the
/// child inherits, so a grandchild (`sh -c 'daemon &'`, `xclip`'s server, an `Xvfb` started
/// meanwhile by another thread) that holds the socket left the child unreaped and
/// `waitUntilExit()` blocked for as long as that grandchild lived.
extension SystemCalls {
  /// Points `fd` at `/dev/null` (`open(2)`, then `dup2(2)` over it): what this process
  /// writes there from now on is discarded, and a reader at the other end of a pipe that was
  /// there sees its end. Nothing is done when `/dev/null` cannot be opened.
  package static func discard(_ fd: FileDescriptor) {
    let null = Glibc.open("/dev/null", O_WRONLY | O_CLOEXEC)
    guard null >= 0 else { return }
    _ = Glibc.dup2(null, fd.rawValue)
    _ = Glibc.close(null)
  }

  /// The signals a child gets back to their default action (Quire may catch or ignore them).
  static let signalsReset: [Int32] = [SIGINT, SIGTERM, SIGQUIT, SIGHUP, SIGPIPE, SIGALRM, SIGCHLD]

  /// Starts the program at `path` (an argument array, never a shell).
  ///
  /// - Parameters:
  ///   - arguments: Its arguments, without its name (the child's `argv[0]` is `path`).
  ///   - environment: Its whole environment; `nil` passes on this process's.
  ///   - folder: Its working folder; `nil` keeps this process's.
  ///   - standardInput: Its descriptor 0 (``ChildStream``); this process's own unless told.
  ///   - standardOutput: Its descriptor 1.
  ///   - standardError: Its descriptor 2.
  ///   - ownProcessGroup: Start it in a process group of its own, out of reach of the
  ///     terminal's Ctrl-C (a browser `xdg-open` starts must outlive `quire serve`).
  /// - Returns: The running child, to wait for or signal.
  package static func spawn(
    _ path: String, arguments: [String], environment: [String: String]? = nil, folder: String? = nil,
    standardInput: ChildStream = .inherited, standardOutput: ChildStream = .inherited, standardError: ChildStream = .inherited, ownProcessGroup: Bool = false
  ) -> Result<SpawnedProcess, SyscallFailure> {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    for (stream, target) in [(standardInput, Int32(0)), (standardOutput, 1), (standardError, 2)] {
      switch stream {
      case .inherited: break
      case .discarded: posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
      case .descriptor(let descriptor): posix_spawn_file_actions_adddup2(&actions, descriptor, target)
      }
    }
    cquire_spawn_close_from(&actions, 3)
    if let folder { PathText.withCString(folder) { _ = cquire_spawn_chdir(&actions, $0) } }

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
    // Without POSIX_SPAWN_SETPGROUP the child stays in our process group; with it and group 0,
    // it leads a group of its own.
    let group = ownProcessGroup ? POSIX_SPAWN_SETPGROUP : 0
    posix_spawnattr_setpgroup(&attributes, 0)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | group))

    let argv = ([path] + arguments).map { PathText.withCString($0) { strdup($0) } } + [nil]
    defer { for argument in argv { free(argument) } }
    let variables = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
    defer { for variable in variables ?? [] { free(variable) } }
    var pid: pid_t = 0
    let result = PathText.withCString(path) { program in
      if let variables {
        posix_spawn(&pid, program, &actions, &attributes, argv, variables)
      } else {
        posix_spawn(&pid, program, &actions, &attributes, argv, environ)
      }
    }
    guard result == 0 else { return .failure(SyscallFailure(call: "posix_spawn", errno: Errno(rawValue: result), path: path)) }
    return .success(SpawnedProcess(pid: pid))
  }

  /// Runs `body` with SIGINT and SIGQUIT ignored in this process, as `system(3)` does while
  /// its command runs, and puts their handlers back exactly after: the terminal's Ctrl-C then
  /// stops the child (started before in our process group, with their default action) and
  /// not us.
  package static func ignoringInterrupts<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
    let saved = cquire_ignore_interrupts()
    defer { cquire_restore_interrupts(saved) }
    return try body()
  }
}

/// What a child's descriptor 0, 1 or 2 is.
package enum ChildStream: Sendable {
  /// This process's own.
  case inherited
  /// `/dev/null`.
  case discarded
  /// A descriptor of this process (a pipe's end, an open file), duplicated onto it.
  case descriptor(Int32)
}

/// How a child ended.
package enum Termination: Sendable, Equatable {
  /// It exited with this status.
  case exited(Int32)
  /// A signal (this number) ended it.
  case signalled(Int32)
  /// Something else in the process reaped it (a `waitpid(-1)`), so how it ended is unknown.
  case reapedElsewhere

  /// From a `waitpid(2)` status.
  init(waitStatus status: Int32) {
    self = status & 0x7f == 0 ? .exited((status >> 8) & 0xff) : .signalled(status & 0x7f)
  }

  /// As `waitpid(2)` gives it (an unknown end as exit status 255).
  package var waitStatus: Int32 {
    switch self {
    case .exited(let status): status << 8
    case .signalled(let signal): signal
    case .reapedElsewhere: 255 << 8
    }
  }

  /// As a shell gives it: the exit status, or 128 + the signal's number (255 when unknown).
  package var shellStatus: Int32 {
    switch self {
    case .exited(let status): status
    case .signalled(let signal): 128 + signal
    case .reapedElsewhere: 255
    }
  }
}

/// A child ``SystemCalls/spawn(_:arguments:environment:folder:standardInput:standardOutput:standardError:ownProcessGroup:)``
/// started: waited for by its own process id, so a wait returns as soon as it has ended,
/// whatever its descendants hold open.
///
/// Any number of threads may wait or poll at once: each waits without reaping (`waitid` with
/// `WNOWAIT`) and the child is reaped under a lock that also records how it ended, so the one
/// that reaps tells the others. A signal is sent only while it is unreaped, so never to a
/// process that took its id after it. Dropped while it runs, a thread is left to reap it.
package final class SpawnedProcess: Sendable {
  /// Its process id.
  package let pid: Glibc.pid_t
  private let ending = Mutex<Termination?>(nil)

  init(pid: Glibc.pid_t) { self.pid = pid }

  /// How it ended, when it has (reaping it then); `nil` while it runs. Never blocks.
  package func poll() -> Termination? {
    ending.withLock { ending in
      if let ending { return ending }
      var status: Int32 = 0
      while true {
        let result = waitpid(pid, &status, WNOHANG)
        if result == pid {
          ending = Termination(waitStatus: status)
        } else if result < 0 && errno == EINTR {
          continue
        } else if result < 0 {
          ending = .reapedElsewhere  // ECHILD: it is gone, and nobody can wait for it again
        }
        return ending
      }
    }
  }

  /// Whether it still runs.
  package var isRunning: Bool { poll() == nil }

  /// Waits, on the calling thread, until it has ended, and says how.
  package func wait() -> Termination {
    while true {
      if let ended = poll() { return ended }
      // Blocks until it has ended, without reaping it; EINTR and ECHILD (another waiter
      // reaped it meanwhile) both go round to `poll`, which knows.
      var info = siginfo_t()
      _ = waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT)
    }
  }

  /// Sends it `signal`, unless it has already been reaped.
  package func signal(_ signal: Int32) {
    ending.withLock { ending in
      if ending == nil { _ = kill(pid, signal) }
    }
  }

  deinit {
    let pid = pid
    guard ending.withLock({ $0 }) == nil else { return }
    var status: Int32 = 0
    if waitpid(pid, &status, WNOHANG) != 0 { return }
    Thread.detachNewThread {
      var status: Int32 = 0
      while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }
  }
}
