import Foundation
import QuireSystem
import QuireTypes
import SystemPackage

/// Worker processes and the pipes to them; used by one thread (the batch's) only.
struct WorkerPool {
  struct Worker {
    var process: SpawnedProcess
    var input: FileDescriptor  // the worker's stdin (we write jobs)
    var output: FileDescriptor  // the worker's stdout (we read replies)
    var buffer: [UInt8] = []
    var job: WorkerJob?
    var started = ContinuousClock.now

    /// Adds `bytes` read from the worker to its buffer, and takes the reply line out when it is
    /// complete. Only the new bytes are looked at for the line's end: a long reply (a PDF's
    /// text) arrives in many reads, and scanning all of it again on each was quadratic.
    mutating func take(_ bytes: ArraySlice<UInt8>) -> [UInt8]? {
      let before = buffer.count
      buffer.append(contentsOf: bytes)
      guard let found = bytes.firstIndex(of: 0x0A) else { return nil }
      let newline = before + (found - bytes.startIndex)
      let line = Array(buffer[..<newline])
      buffer.removeFirst(newline + 1)
      return line
    }
  }

  /// The workers' program and limits, and what they do, for messages.
  struct Settings: Sendable {
    /// The program started as a worker, and its arguments (the pool adds `--memory-limit N`).
    var executable: URL
    var arguments: [String]
    /// The time one job may take, in seconds.
    var timeLimit: Double
    /// Each worker's address-space limit in bytes (`RLIMIT_AS`); 0 for none.
    var memoryLimit: Int
    /// What a worker does to a file, for messages.
    var work = Work.drawing
  }

  /// What a pool's workers do, as its messages say it.
  enum Work: Sendable {
    /// Thumbnails (``ThumbnailBatch``).
    case drawing
    /// PDFs' text (``PDFTextWorkers``).
    case reading

    var verb: String { self == .drawing ? "draw" : "read" }
    var gerund: String { self == .drawing ? "Drawing" : "Reading" }
    var workerName: String { self == .drawing ? "thumbnail worker" : "text worker" }
    /// What happens to a file stopped at the time limit.
    var afterTimeout: String {
      self == .drawing
        ? "It is not recorded as a failure, so it is tried again next time." : "Its text is not indexed; it is read again when it changes."
    }
  }

  let options: Settings
  let count: Int
  var workers: [Worker?]

  init(settings: Settings, count: Int) {
    self.options = settings
    self.count = count
    workers = Array(repeating: nil, count: count)
  }

  /// A pool of thumbnail workers as a batch's options describe them.
  init(options: ThumbnailBatch.Options, count: Int) {
    self.init(
      settings: Settings(
        executable: options.workerExecutable, arguments: options.workerArguments, timeLimit: options.timeLimit, memoryLimit: options.memoryLimit),
      count: count)
  }

  /// A job and the earliest moment it may be handed to a worker (nil: at once).
  struct QueuedJob {
    var job: WorkerJob
    var notBefore: ContinuousClock.Instant?
  }

  /// Runs every job, calling `done(job, reply, seconds)` as each finishes (time-outs and
  /// crashes become failed replies). `done` may hand the job back, changed, with a moment
  /// before which it must not be drawn: it goes back into the queue (a file still being
  /// written is drawn once it has settled). Run returns when the queue and the workers are empty.
  mutating func run(_ jobs: [QueuedJob], done: (WorkerJob, WorkerReply, Double) -> QueuedJob?) {
    let oldPipeHandler = signal(SIGPIPE, SIG_IGN)
    defer {
      shutDown()
      signal(SIGPIPE, oldPipeHandler)
    }
    var queue = jobs.filter { $0.notBefore == nil }.map(\.job)[...]
    // Jobs that must wait, soonest last (so popLast takes the next one due).
    var waiting = jobs.filter { $0.notBefore != nil }.sorted { $0.notBefore! > $1.notBefore! }
    var active = 0
    let decoder = JSONDecoder()
    let encoder = JSONEncoder()
    let limit = Duration.milliseconds(Int64(options.timeLimit * 1000))
    func finished(_ job: WorkerJob, _ reply: WorkerReply, _ seconds: Double) {
      guard let again = done(job, reply, seconds) else { return }
      if let notBefore = again.notBefore, notBefore > .now {
        waiting.append(again)
        waiting.sort { $0.notBefore! > $1.notBefore! }
      } else {
        queue.append(again.job)
      }
    }

    while !queue.isEmpty || !waiting.isEmpty || active > 0 {
      // Waiting jobs whose moment has come join the queue.
      let now = ContinuousClock.now
      while let next = waiting.last, next.notBefore! <= now { queue.append(waiting.removeLast().job) }
      // Hand a job to every idle worker, starting workers as needed.
      for slot in 0..<count where workers[slot]?.job == nil && !queue.isEmpty {
        let job = queue.removeFirst()
        if workers[slot] == nil {
          do { workers[slot] = try spawn() } catch {
            finished(
              job,
              WorkerReply(id: job.id, status: .failed, code: QuireError.Code.libraryFailure.description, message: (error as? QuireError)?.reason ?? "\(error)"),
              0)
            continue
          }
        }
        guard var data = try? encoder.encode(job) else { continue }
        data.append(0x0A)
        workers[slot]!.job = job
        workers[slot]!.started = .now
        active += 1
        if case .failure = SystemCalls.writeAll(workers[slot]!.input, data) {
          // The worker died between jobs; its output's end is noticed below.
          continue
        }
      }
      if active == 0 {
        // Nothing is being drawn: sleep until the next waiting job is due.
        if queue.isEmpty, let next = waiting.last?.notBefore { sleepUntil(next) }
        continue
      }

      // Wait for a reply, the nearest deadline or the next waiting job due.
      let (slots, ready) = waitForReplies(now: now, nextDue: active < count ? waiting.last?.notBefore : nil, limit: limit)

      for (index, slot) in slots.enumerated() {
        guard var worker = workers[slot], let job = worker.job else { continue }
        if ready[index] {
          var chunk = [UInt8](repeating: 0, count: 65536)
          // An error reads as the end: the worker is reaped below either way.
          let n = (try? chunk.withUnsafeMutableBytes { SystemCalls.read(worker.output, into: $0) }.get()) ?? 0
          if n > 0 {
            if let line = worker.take(chunk[0..<n]) {
              let seconds = (ContinuousClock.now - worker.started).seconds
              worker.job = nil
              workers[slot] = worker
              active -= 1
              let reply =
                (try? decoder.decode(WorkerReply.self, from: Data(line)))
                ?? WorkerReply(id: job.id, status: .failed, code: QuireError.Code.libraryFailure.description, message: "The worker sent an unreadable reply.")
              finished(job, reply, seconds)
            } else {
              workers[slot] = worker
            }
            continue
          }
          // End of output: the worker died on this file (a crash, an abort, the memory limit).
          let status = reap(worker, kill: false)
          workers[slot] = nil
          active -= 1
          finished(job, diedReply(job, status), (ContinuousClock.now - worker.started).seconds)
          continue
        }
        if ContinuousClock.now - worker.started >= limit {
          _ = reap(worker, kill: true)
          workers[slot] = nil
          active -= 1
          let seconds = (ContinuousClock.now - worker.started).seconds
          finished(job, timedOutReply(job), seconds)
        }
      }
    }
  }

  /// Waits until a busy worker replies, the nearest deadline of a job being drawn passes, or
  /// `nextDue` comes; returns the busy workers' slots and whether each has output to read.
  /// An interrupted wait reads as nothing ready: the caller's loop comes round again.
  private func waitForReplies(now: ContinuousClock.Instant, nextDue: ContinuousClock.Instant?, limit: Duration) -> (slots: [Int], ready: [Bool]) {
    var waitMs = Int32.max
    if let next = nextDue {
      waitMs = Int32(max(0, min(Double(Int32.max), ((next - now).seconds * 1000).rounded(.up))))
    }
    var outputs: [FileDescriptor] = []
    var slots: [Int] = []
    for slot in 0..<count {
      guard let worker = workers[slot], worker.job != nil else { continue }
      let remaining = worker.started + limit - now
      waitMs = min(waitMs, Int32(max(0, min(Double(Int32.max), (remaining.seconds * 1000).rounded(.up)))))
      outputs.append(worker.output)
      slots.append(slot)
    }
    return (slots, SystemCalls.waitReadable(outputs, milliseconds: waitMs))
  }

  /// The reply for a job whose worker died on it (a crash, an abort, the memory limit).
  private func diedReply(_ job: WorkerJob, _ status: Int32) -> WorkerReply {
    WorkerReply(
      id: job.id, status: .failed, code: QuireError.Code.libraryFailure.description,
      message: Self.describeDeath(status, path: job.path, memoryLimit: options.memoryLimit, work: options.work))
  }

  /// The reply for a job whose worker took longer than the time limit and was stopped.
  private func timedOutReply(_ job: WorkerJob) -> WorkerReply {
    WorkerReply(
      id: job.id, status: .failed, code: QuireError.Code.timedOut.description,
      message:
        "\(QuireError.name(PathText.path(job.path))) took longer than \(Self.format(options.timeLimit)) s to \(options.work.verb); the worker was stopped. \(options.work.afterTimeout)"
    )
  }

  /// Blocks this thread (the batch's own) until `instant`.
  func sleepUntil(_ instant: ContinuousClock.Instant) {
    let remaining = instant - .now
    guard remaining > .zero else { return }
    var request = timespec(tv_sec: Int(remaining.components.seconds), tv_nsec: Int(remaining.components.attoseconds / 1_000_000_000))
    var left = timespec()
    while nanosleep(&request, &left) != 0 && errno == EINTR { request = left }
  }

  static func format(_ seconds: Double) -> String {
    seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
  }

  static func describeDeath(_ status: Int32, path: String, memoryLimit: Int, work: Work = .drawing) -> String {
    let name = QuireError.name(PathText.path(path))
    let doing = work.gerund
    if status & 0x7f != 0 {
      let signalNumber = status & 0x7f
      let signalName = String(cString: strsignal(signalNumber))
      return
        "\(doing) \(name) crashed the renderer (signal \(signalNumber), \(signalName))\(memoryLimit > 0 ? ", possibly at the \(memoryLimit >> 20) MiB memory limit" : ""). The file is probably damaged."
    }
    return
      "\(doing) \(name) stopped the renderer (exit status \((status >> 8) & 0xff))\(memoryLimit > 0 ? ", possibly at the \(memoryLimit >> 20) MiB memory limit" : ""). The file is probably damaged."
  }

  /// Closes a worker's pipes and waits for it, killing it first when asked.
  func reap(_ worker: Worker, kill shouldKill: Bool) -> Int32 {
    if shouldKill { worker.process.signal(SIGKILL) }
    SystemCalls.release(worker.input)
    SystemCalls.release(worker.output)
    return worker.process.wait().waitStatus
  }

  /// Ends every worker (idle ones hold nothing worth keeping) and waits for it.
  mutating func shutDown() {
    for slot in 0..<count {
      guard let worker = workers[slot] else { continue }
      _ = reap(worker, kill: true)
      workers[slot] = nil
    }
  }

  /// Starts a worker with `posix_spawn` (an argument array, no shell): stdin and stdout are
  /// pipes to us, stderr goes to /dev/null (poppler reports every syntax error there).
  func spawn() throws -> Worker {
    // Both pipes close-on-exec (the system layer's pipe): no other child inherits an end, and
    // the spawn hands the worker its two ends as 0 and 1.
    let toWorker = try SystemCalls.pipe().mapError(spawnError).get()
    let fromWorker: (read: FileDescriptor, write: FileDescriptor)
    do { fromWorker = try SystemCalls.pipe().mapError(spawnError).get() } catch {
      SystemCalls.release(toWorker.read)
      SystemCalls.release(toWorker.write)
      throw error
    }
    let path = options.executable.path
    var arguments = options.arguments
    if options.memoryLimit > 0 { arguments += ["--memory-limit", String(options.memoryLimit)] }
    // Through the system layer: the worker starts with no signal blocked (a worker started
    // from a Dispatch thread would otherwise ignore the SIGTERM and SIGALRM that bound it).
    let spawned = SystemCalls.spawn(
      path, arguments: arguments, standardInput: .descriptor(toWorker.read.rawValue), standardOutput: .descriptor(fromWorker.write.rawValue),
      standardError: .discarded)
    SystemCalls.release(toWorker.read)
    SystemCalls.release(fromWorker.write)
    switch spawned {
    case .success(let process):
      return Worker(process: process, input: toWorker.write, output: fromWorker.read)
    case .failure(let failure):
      SystemCalls.release(toWorker.write)
      SystemCalls.release(fromWorker.read)
      throw spawnError(failure)
    }
  }

  func spawnError(_ failure: SyscallFailure) -> QuireError {
    // The code from the errno, as everywhere (too many open files is `limitExceeded`).
    QuireError(
      QuireError.Code(failure.errno),
      "Cannot start a \(options.work.workerName) '\(options.executable.path)': \(QuireError.describe(failure.errno)). Check that the quire program is installed and runnable.",
      cause: failure)
  }
}
