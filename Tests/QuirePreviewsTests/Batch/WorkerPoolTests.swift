import Foundation
import QuireTestSupport
import QuireTypes
import Synchronization
import Testing

@testable import QuirePreviews

/// `WorkerPool` on its own, with small `sh` scripts as workers: every job gets exactly one
/// reply whatever its worker does (answers, dies, crashes, hangs, talks nonsense, never starts).
@Suite("WorkerPool")
final class WorkerPoolTests: FolderSuite {
  /// Answers each job line with `{"id":N,"status":"made"}`.
  static let answering = #"while IFS= read -r line; do id=${line#*\"id\":}; id=${id%%[!0-9]*}; printf '{"id":%s,"status":"made"}\n' "$id"; done"#

  func options(script: String, jobs: Int = 2, timeLimit: Double = 30) -> ThumbnailBatch.Options {
    ThumbnailBatch.Options(
      size: 64, destination: .folder(folder.file("out")), jobs: jobs, timeLimit: timeLimit, memoryLimit: 0,
      workerExecutable: URL(fileURLWithPath: "/bin/sh"), workerArguments: ["-c", script], version: "test")
  }

  func jobs(_ count: Int) -> [WorkerPool.QueuedJob] {
    (0..<count).map {
      WorkerPool.QueuedJob(
        job: WorkerJob(id: $0, path: "/nowhere/file-\($0).md", typeIdentifier: "public.plain-text", size: 64, software: "test"), notBefore: nil)
    }
  }

  /// Runs `jobs` through a pool and returns the replies by job id.
  func run(_ options: ThumbnailBatch.Options, _ jobs: [WorkerPool.QueuedJob], workers: Int? = nil) -> [Int: [WorkerReply]] {
    var pool = WorkerPool(options: options, count: workers ?? options.jobs)
    var replies: [Int: [WorkerReply]] = [:]
    pool.run(jobs) { job, reply, _ in
      replies[job.id, default: []].append(reply)
      return nil
    }
    return replies
  }

  @Test func everyJobGetsOneReply() {
    let replies = run(options(script: Self.answering, jobs: 3), jobs(40))
    #expect(replies.count == 40)
    #expect(replies.values.allSatisfy { $0.count == 1 && $0[0].status == .made })
    #expect(replies.allSatisfy { $0.key == $0.value[0].id })
  }

  @Test func noJobsRunsNoWorker() {
    #expect(run(options(script: Self.answering), []).isEmpty)
  }

  @Test func aWorkerThatExitsCostsItsJobOnlyAndIsReplaced() {
    // Each worker answers one job, then takes the next and exits with status 3.
    let script = #"IFS= read -r line; id=${line#*\"id\":}; id=${id%%[!0-9]*}; printf '{"id":%s,"status":"made"}\n' "$id"; read -r line; exit 3"#
    let replies = run(options(script: script, jobs: 1), jobs(6))
    #expect(replies.count == 6)
    let failed = replies.values.flatMap { $0 }.filter { $0.status == .failed }
    #expect(failed.count == 3)
    #expect(failed.allSatisfy { $0.message?.contains("stopped the renderer (exit status 3)") == true }, "\(failed)")
  }

  @Test func aCrashingWorkerIsReportedWithItsSignal() {
    let replies = run(options(script: "read -r line; kill -SEGV $$", jobs: 2), jobs(3))
    #expect(replies.count == 3)
    for (id, reply) in replies {
      #expect(reply.count == 1 && reply[0].status == .failed)
      #expect(reply[0].message?.contains("crashed the renderer (signal 11") == true, "\(String(describing: reply[0].message))")
      #expect(reply[0].message?.contains("file-\(id).md") == true)
    }
  }

  @Test func anUnreadableReplyFailsTheJob() {
    let replies = run(options(script: "while read -r line; do echo 'not json'; done", jobs: 1), jobs(2))
    #expect(replies.values.allSatisfy { $0.count == 1 && $0[0].status == .failed && $0[0].message == "The worker sent an unreadable reply." })
  }

  @Test func aHangingWorkerIsKilledAtTheTimeLimit() {
    // `exec`: the shell becomes the sleep, so killing the worker leaves nothing behind.
    let replies = run(options(script: "read -r line; exec sleep 600", jobs: 2, timeLimit: 0.5), jobs(2))
    #expect(replies.count == 2)
    #expect(replies.values.allSatisfy { $0.count == 1 && $0[0].code == QuireError.Code.timedOut.description })
  }

  @Test func aWorkerThatCannotStartFailsEachJobClearly() {
    var options = options(script: "")
    options.workerExecutable = folder.file("no-such-worker")
    let replies = run(options, jobs(3))
    #expect(replies.count == 3)
    #expect(replies.values.allSatisfy { $0.count == 1 && $0[0].status == .failed && $0[0].message?.contains("Cannot start a thumbnail worker") == true })
  }

  @Test func aJobHandedBackRunsAgainAfterItsMoment() {
    var pool = WorkerPool(options: options(script: Self.answering, jobs: 1), count: 1)
    var seen: [Int] = []
    pool.run(jobs(2)) { job, _, _ in
      seen.append(job.id)
      guard seen.filter({ $0 == job.id }).count == 1, job.id == 0 else { return nil }
      return WorkerPool.QueuedJob(job: job, notBefore: .now + .milliseconds(50))
    }
    #expect(seen.sorted() == [0, 0, 1])
  }

  @Test func describesDeathsByStatus() {
    #expect(WorkerPool.describeDeath(9, path: "/a/b.pdf", memoryLimit: 1 << 30).contains("'b.pdf' crashed the renderer (signal 9"))
    #expect(WorkerPool.describeDeath(9, path: "/a/b.pdf", memoryLimit: 1 << 30).contains("1024 MiB memory limit"))
    #expect(
      WorkerPool.describeDeath(2 << 8, path: "/a/b.pdf", memoryLimit: 0)
        == "Drawing 'b.pdf' stopped the renderer (exit status 2). The file is probably damaged.")
  }
}
