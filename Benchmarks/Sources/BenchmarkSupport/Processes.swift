import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// One finished run of a whole process.
public struct ProcessRun: Sendable {
  /// Wall-clock seconds from `posix_spawn` to `waitpid`.
  public var seconds: Double
  /// The exit status as `waitpid` gives it (0 for a normal exit with 0); -1 when it could not start.
  public var status: Int32
  /// Standard output, when asked for (else empty).
  public var output: String
  /// The process's peak resident set size in MiB (`ru_maxrss` from `wait4`).
  public var peakMemoryMiB: Double = 0
}

/// Runs `argv` to the end as a whole process (looked up in `PATH` when it has no slash), with
/// standard error to /dev/null and standard output to /dev/null or, with `capture`, to a file
/// read afterwards (so a pipe never stalls the child); `environment` overrides entries of this
/// process's environment. The time covers exec, the dynamic loader and the exit.
public func spawnProcess(_ argv: [String], environment: [String: String] = [:], capture: Bool = false) -> ProcessRun {
  var actions = posix_spawn_file_actions_t()
  posix_spawn_file_actions_init(&actions)
  defer { posix_spawn_file_actions_destroy(&actions) }
  let capturePath = NSTemporaryDirectory() + "/bench-output-\(getpid())-\(UUID().uuidString)"
  defer { if capture { unlink(capturePath) } }
  posix_spawn_file_actions_addopen(&actions, 1, capture ? capturePath : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
  var env = ProcessInfo.processInfo.environment
  for (key, value) in environment { env[key] = value }
  let cEnv = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
  let cArgs = argv.map { strdup($0) } + [nil]
  defer { for pointer in cArgs + cEnv { free(pointer) } }
  var pid: pid_t = 0
  let start = ContinuousClock.now
  guard posix_spawnp(&pid, argv[0], &actions, nil, cArgs, cEnv) == 0 else { return ProcessRun(seconds: 0, status: -1, output: "") }
  var status: Int32 = 0
  var usage = rusage()
  while wait4(pid, &status, 0, &usage) == -1 && errno == EINTR {}
  let elapsed = ContinuousClock.now - start
  let output = capture ? ((try? String(contentsOfFile: capturePath, encoding: .utf8)) ?? "") : ""
  return ProcessRun(
    seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18, status: status, output: output,
    peakMemoryMiB: Double(usage.ru_maxrss) / 1024)
}

/// The median wall time of `rounds` runs of `argv` (after one unmeasured run that warms the
/// page cache), and the last run's status.
public func medianRun(_ argv: [String], rounds: Int, environment: [String: String] = [:]) -> (seconds: Double, status: Int32) {
  _ = spawnProcess(argv, environment: environment)
  var times: [Double] = []
  var status: Int32 = 0
  for _ in 0..<max(1, rounds) {
    let run = spawnProcess(argv, environment: environment)
    times.append(run.seconds)
    status = run.status
  }
  return (median(times), status)
}

/// The median wall times of several commands (each argv with its environment), run in turn
/// round after round (after one unmeasured run of each): A B C, A B C, …. A machine whose speed
/// drifts during the run (other work on the host, a CPU's clock) then weighs on all of them
/// alike, which runs of one command after the other's do not. Returns each command's median and
/// last status, in order.
public func interleavedMedians(_ commands: [(argv: [String], environment: [String: String])], rounds: Int) -> [(
  seconds: Double, status: Int32
)] {
  for command in commands { _ = spawnProcess(command.argv, environment: command.environment) }
  var times = Array(repeating: [Double](), count: commands.count)
  var statuses = Array(repeating: Int32(0), count: commands.count)
  for _ in 0..<max(1, rounds) {
    for (index, command) in commands.enumerated() {
      let run = spawnProcess(command.argv, environment: command.environment)
      times[index].append(run.seconds)
      statuses[index] = run.status
    }
  }
  return zip(times, statuses).map { (median($0), $1) }
}
