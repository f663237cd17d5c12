public import Foundation
import QuireSystem
public import QuireTypes

/// Reads PDFs' text in worker processes: the same `quire thumbnail-worker` processes that draw
/// thumbnails (``ThumbnailBatch``), each with a time limit and an address-space limit.
///
/// poppler reads every PDF it is given, hostile ones too. In a worker, a PDF that crashes it
/// costs that worker (the next file gets a new one), one that loops is stopped at the time
/// limit, and one that takes all memory fails at the worker's limit, while the process that
/// asked (a search indexer, a server) goes on. ``DocumentBrowser``'s search index reads PDFs
/// through these when its configuration names them; `quire` names itself.
public struct PDFTextWorkers: Sendable {
  /// The program started as a worker.
  public var executable: URL
  /// Its arguments, `["thumbnail-worker"]` for `quire` (`--memory-limit N` is added).
  public var arguments: [String]
  /// How many workers at most; one per core by default.
  public var count: Int
  /// The time one file may take, in seconds; 30 by default.
  public var timeLimit: Double
  /// Each worker's address-space limit in bytes (`RLIMIT_AS`); 2 GiB by default, 0 for none.
  public var memoryLimit: Int

  /// Workers started as `executable arguments…`, e.g. the `quire` program with
  /// `["thumbnail-worker"]`.
  public init(
    executable: URL, arguments: [String] = ["thumbnail-worker"], count: Int = ProcessInfo.processInfo.activeProcessorCount, timeLimit: Double = 30,
    memoryLimit: Int = 2 << 30
  ) {
    self.executable = executable
    self.arguments = arguments
    self.count = max(1, count)
    self.timeLimit = timeLimit
    self.memoryLimit = memoryLimit
  }

  /// The text of each PDF in `files`, in order: its pages joined by form feeds (U+000C), or
  /// why it could not be read (damaged, encrypted, a worker that crashed, stopped at the time
  /// limit, or could not start). Blocks until every file has its answer.
  public func texts(of files: [URL]) -> [Result<String, QuireError>] {
    var results = [Result<String, QuireError>](
      repeating: .failure(QuireError(.libraryFailure, "No worker answered.")), count: files.count)
    readTexts(of: files) { index, read in results[index] = read }
    return results
  }

  /// Reads the text of each PDF in `files`, as ``texts(of:)`` does, handing each answer to
  /// `each(index, result)` as soon as its worker gives it (in the order the workers finish,
  /// `index` being the file's position in `files`), so that a caller can store texts while
  /// later files are still being read. Blocks until every file has had its answer; the
  /// workers are started once for all of `files`.
  public func readTexts(of files: [URL], each: (Int, Result<String, QuireError>) -> Void) {
    guard !files.isEmpty else { return }
    let jobs = files.enumerated().map { index, file in
      WorkerPool.QueuedJob(
        job: WorkerJob(id: index, path: file.path, typeIdentifier: UTType.pdf.identifier, size: 0, software: "", readsText: true), notBefore: nil)
    }
    let settings = WorkerPool.Settings(executable: executable, arguments: arguments, timeLimit: timeLimit, memoryLimit: memoryLimit, work: .reading)
    var pool = WorkerPool(settings: settings, count: min(count, files.count))
    pool.run(jobs) { job, reply, _ in
      if reply.status == .made {
        each(job.id, .success(reply.text ?? ""))
      } else {
        let known: [QuireError.Code] = [.timedOut, .fileMissing, .permissionDenied, .invalidContent, .libraryFailure]
        let code = known.first { $0.description == reply.code } ?? .libraryFailure
        each(job.id, .failure(QuireError(code, reply.message ?? "The worker could not read the PDF.", url: files[job.id])))
      }
      return nil
    }
  }
}
