public import Foundation
import QuireFormats
public import QuireTypes

/// Thumbnails for many files, drawn in worker processes with a time and memory limit each.
///
/// poppler and cairo cannot be interrupted, and a hostile PDF can make them run for minutes,
/// take gigabytes or crash. So the batch never draws in its own process: it starts
/// ``Options/jobs`` workers (the given executable, normally `quire` itself with the hidden
/// `thumbnail-worker` subcommand, spawned with an argument array, no shell), hands each one file
/// at a time over a pipe, and kills a worker whose file runs over ``Options/timeLimit``; a
/// fresh worker takes its place. The worker limits its own address space
/// (`setrlimit(RLIMIT_AS)`), so a file that explodes fails an allocation or dies alone. Either
/// way that file gets one failed entry and the batch goes on.
public struct ThumbnailBatch: Sendable {
  /// Where thumbnails go.
  public enum Destination: Sendable {
    /// `FOLDER/<path relative to the walked folder>.png` (the file's own name for files given directly).
    case folder(URL)
    /// The freedesktop cache.
    case cache(ThumbnailCache)
  }

  /// How a batch runs.
  public struct Options: Sendable {
    /// The longer side in pixels (in cache mode, the size class that holds it is used).
    public var size: Int
    public var destination: Destination
    /// How many worker processes; one per core by default.
    public var jobs: Int
    /// The time one file may take, in seconds; 10 by default.
    public var timeLimit: Double
    /// Each worker's address-space limit in bytes (`RLIMIT_AS`); 0 for none.
    public var memoryLimit: Int
    /// The program started as a worker, and its arguments (the batch adds `--memory-limit N`).
    public var workerExecutable: URL
    public var workerArguments: [String]
    /// The Quire version, written as `Software` into output-folder thumbnails.
    public var version: String

    public init(
      size: Int = 256, destination: Destination, jobs: Int = ProcessInfo.processInfo.activeProcessorCount,
      timeLimit: Double = 10, memoryLimit: Int = 2 << 30, workerExecutable: URL, workerArguments: [String] = ["thumbnail-worker"],
      version: String
    ) {
      self.size = size
      self.destination = destination
      self.jobs = max(1, jobs)
      self.timeLimit = timeLimit
      self.memoryLimit = memoryLimit
      self.workerExecutable = workerExecutable
      self.workerArguments = workerArguments
      self.version = version
    }
  }

  /// What happened to one file.
  public struct Result: Sendable, Codable, Hashable {
    public enum Status: String, Sendable, Codable {
      /// A thumbnail was drawn and written.
      case made
      /// The cache already held an up-to-date thumbnail.
      case fresh
      /// The cache holds an up-to-date failure record from this version: not tried again.
      case failedBefore = "failed-before"
      /// The file was modified in the last seconds or changed while drawn: not done, try later.
      case deferred
      /// Drawing failed (bad file, unsupported type, crash, memory limit).
      case failed
      /// Drawing ran over the time limit and the worker was killed (not recorded in `fail/`).
      case timedOut = "timed-out"
    }
    public var file: String
    public var status: Status
    /// The thumbnail written or found.
    public var output: String?
    /// Why it failed or was deferred.
    public var message: String?
    /// Wall time for this file, in milliseconds (0 for cache hits).
    public var milliseconds: Double

    /// Whether the file counts as done for the exit status.
    public var isSuccess: Bool { status == .made || status == .fresh }
  }

  /// Counts per status.
  public struct Summary: Sendable, Codable, Hashable {
    public var made = 0, fresh = 0, failed = 0, failedBefore = 0, timedOut = 0, deferred = 0
    public var seconds = 0.0
    public var total: Int { made + fresh + failed + failedBefore + timedOut + deferred }
    /// True when every file has an up-to-date thumbnail.
    public var allSucceeded: Bool { made + fresh == total }
    mutating func count(_ status: Result.Status) {
      switch status {
      case .made: made += 1
      case .fresh: fresh += 1
      case .failed: failed += 1
      case .failedBefore: failedBefore += 1
      case .timedOut: timedOut += 1
      case .deferred: deferred += 1
      }
    }
  }

  public let options: Options
  public let types: TypeRegistry
  public let providers: ThumbnailProviderRegistry

  public init(options: Options, types: TypeRegistry = .shared, providers: ThumbnailProviderRegistry = .makeDefault()) {
    self.options = options
    self.types = types
    self.providers = providers
  }

  /// One file found by walking the paths.
  struct Item {
    var url: URL
    var outputName: String
    var type: UTType?
    var error: QuireError?
  }

  /// Walks `paths`: files are taken as given; folders are walked (hidden names and symbolic
  /// links to folders are skipped), keeping the files some provider handles.
  func collect(_ paths: [URL]) -> [Item] {
    var items: [Item] = []
    for path in paths {
      var isFolder: ObjCBool = false
      guard FileManager.default.fileExists(atPath: path.path, isDirectory: &isFolder) else {
        items.append(Item(url: path, outputName: path.lastPathComponent, error: FileErrors.opening(path, errno: ENOENT)))
        continue
      }
      if !isFolder.boolValue {
        do {
          let type = try ThumbnailGenerator.contentType(of: path, registry: types)
          items.append(Item(url: path, outputName: path.lastPathComponent, type: type))
        } catch {
          items.append(Item(url: path, outputName: path.lastPathComponent, error: error as? QuireError))
        }
        continue
      }
      let base = path.standardizedFileURL.path
      // A folder that cannot be listed is one failed entry (named), not silently nothing.
      var unreadable: [Item] = []
      guard
        let walker = FileManager.default.enumerator(
          at: path, includingPropertiesForKeys: [.isRegularFileKey, .isSymbolicLinkKey], options: [.skipsHiddenFiles],
          errorHandler: { folder, error in
            let code = ((error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError)?.code ?? Int(EACCES)
            unreadable.append(
              Item(
                url: folder, outputName: folder.lastPathComponent,
                error: QuireError(
                  .permissionDenied,
                  "Cannot list the folder '\(DisplayName.escaping(path: folder))': \(String(cString: strerror(Int32(code)))). Its files have no thumbnails; check its permissions.",
                  url: folder)))
            return true
          })
      else { continue }
      defer { items += unreadable }
      var found: [Item] = []
      for case let file as URL in walker {
        // Foundation decodes a name that is not UTF-8 lossily (U+FFFD), so the file cannot be
        // opened by that name: a failed entry that says why, never a silent skip.
        var info = stat()
        if file.lastPathComponent.contains("\u{FFFD}"), lstat(file.path, &info) != 0 {
          unreadable.append(
            Item(
              url: file, outputName: file.lastPathComponent,
              error: QuireError(
                .invalidArgument,
                "Cannot read a file in '\(DisplayName.escaping(path: file.deletingLastPathComponent()))': its name is not UTF-8 (shown as '\(DisplayName.escaping(file.lastPathComponent))'). Rename it to UTF-8.",
                url: file)))
          continue
        }
        guard let values = try? file.resourceValues(forKeys: [.isRegularFileKey]), values.isRegularFile == true else { continue }
        guard let type = try? ThumbnailGenerator.contentType(of: file, registry: types), providers.provider(for: type) != nil else {
          continue
        }
        var relative = file.standardizedFileURL.path
        if relative.hasPrefix(base + "/") { relative.removeFirst(base.count + 1) }
        found.append(Item(url: file, outputName: relative, type: type))
      }
      items += found.sorted { $0.url.path < $1.url.path }
    }
    return items
  }

  /// Makes thumbnails for `paths`, calling `onResult` once per file in completion order.
  ///
  /// - Parameter onProgress: Called after each file with (done, total).
  /// - Returns: The counts.
  public func run(
    _ paths: [URL], onResult: (Result) -> Void, onProgress: ((Int, Int) -> Void)? = nil
  ) -> Summary {
    let started = ContinuousClock.now
    var summary = Summary()
    let items = collect(paths)
    func finish(_ result: Result) {
      summary.count(result.status)
      onResult(result)
      onProgress?(summary.total, items.count)
    }

    // Decide in this process what needs drawing: cache hits and settling files do not.
    var jobs: [(item: Item, job: WorkerJob)] = []
    let cacheVersion = options.version
    for (index, item) in items.enumerated() {
      if let error = item.error {
        finish(Result(file: item.url.path, status: .failed, message: error.reason, milliseconds: 0))
        continue
      }
      guard let type = item.type else { continue }
      guard providers.provider(for: type) != nil else {
        finish(
          Result(
            file: item.url.path, status: .failed, message: "No thumbnail provider handles \(QuireError.name(item.url)) (type \(type.identifier)).",
            milliseconds: 0))
        continue
      }
      var job = WorkerJob(id: index, path: item.url.path, typeIdentifier: type.identifier, size: options.size, software: "Quire \(options.version)")
      switch options.destination {
      case .folder(let folder):
        let output = folder.appendingPathComponent(item.outputName + ".png")
        do {
          try FileManager.default.createDirectory(at: output.deletingLastPathComponent(), withIntermediateDirectories: true)
        } catch {
          finish(
            Result(
              file: item.url.path, status: .failed,
              message: "Cannot make the folder '\(output.deletingLastPathComponent().path)': \(error.localizedDescription)", milliseconds: 0))
          continue
        }
        job.output = output.path
      case .cache(let cache):
        let flavor = ThumbnailCache.Flavor(forPixels: options.size)
        job.size = flavor.pixels
        let source: ThumbnailCache.Source
        do { source = try ThumbnailCache.source(for: item.url) } catch {
          finish(Result(file: item.url.path, status: .failed, message: (error as? QuireError)?.reason ?? "\(error)", milliseconds: 0))
          continue
        }
        switch cache.entry(for: source, flavor: flavor) {
        case .fresh(let url):
          finish(Result(file: item.url.path, status: .fresh, output: url.path, milliseconds: 0))
          continue
        case .failed(let url):
          finish(
            Result(
              file: item.url.path, status: .failedBefore, output: url.path,
              message: "Quire \(cacheVersion) failed on this file before; it is not tried again until it changes.", milliseconds: 0))
          continue
        case .missing:
          break
        }
        if cache.isSettling(source) {
          finish(
            Result(
              file: item.url.path, status: .deferred,
              message: "\(QuireError.name(item.url)) was modified in the last \(Int(cache.settleInterval)) s and may still be being written; run again later.",
              milliseconds: 0))
          continue
        }
        job.cache = WorkerJob.CacheTarget(
          root: cache.root.path, version: cacheVersion, flavor: flavor, source: source, mimeType: ThumbnailOutput.mimeType(of: type))
      }
      jobs.append((item, job))
    }

    if !jobs.isEmpty {
      var pool = WorkerPool(options: options, count: min(options.jobs, jobs.count))
      pool.run(jobs.map(\.job)) { job, reply, seconds in
        var result = Result(file: job.path, status: .failed, output: reply.output, message: reply.message, milliseconds: (seconds * 10_000).rounded() / 10)
        switch reply.status {
        case .made: result.status = .made
        case .deferred: result.status = .deferred
        case .failed:
          result.status = reply.code == QuireError.Code.timedOut.description ? .timedOut : .failed
          // Permanent failures are recorded so file managers skip the file; time-outs are not.
          if result.status == .failed, case .cache(let cache) = options.destination, let target = job.cache {
            _ = try? cache.recordFailure(for: target.source, mimeType: target.mimeType)
          }
        }
        finish(result)
      }
    }
    summary.seconds = (ContinuousClock.now - started).seconds
    return summary
  }
}

extension Duration {
  var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
