public import Foundation
import QuireFormats
import QuireSystem
public import QuireTypes
public import SystemPackage

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
    /// The program started as a worker.
    public var workerExecutable: URL
    /// Its arguments, `["thumbnail-worker"]` for `quire` (the batch adds `--memory-limit N`).
    public var workerArguments: [String]
    /// The Quire version, written as `Software` into output-folder thumbnails.
    public var version: String
    /// Only this slice of the files (see ``Shard``); nil for all of them.
    public var shard: Shard?
    /// How many times a file may be found changed (at its settle time, or while it was
    /// drawn) before the batch stops waiting for it and defers it; 5 by default.
    public var settleAttempts: Int

    public init(
      size: Int = 256, destination: Destination, jobs: Int = ProcessInfo.processInfo.activeProcessorCount,
      timeLimit: Double = 10, memoryLimit: Int = 2 << 30, workerExecutable: URL, workerArguments: [String] = ["thumbnail-worker"],
      version: String, shard: Shard? = nil, settleAttempts: Int = 5
    ) {
      self.shard = shard
      self.settleAttempts = max(1, settleAttempts)
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
      /// The file kept changing while the batch waited for it to settle or drew it: not
      /// done, try later.
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
    /// Absolute, without `.` or `..` components.
    var path: String
    var outputName: String
    /// Found by walking a folder (files no provider handles are left out silently), rather
    /// than named directly (they get a failed entry).
    var isWalked = false
    var error: QuireError?
    /// ``path`` with its bytes (it is carried by `PathText`).
    var filePath: FilePath { PathText.path(path) }
  }

  /// Walks `paths`: files are taken as given; folders are walked (hidden names and symbolic
  /// links to folders are skipped). With a ``Options/shard``, only the files of that slice.
  /// Types are not looked at here: the cache is asked first, so a warm run reads no content.
  func collect(_ paths: [URL]) -> [Item] {
    collect(paths.map(Given.init(url:)))
  }

  /// ``collect(_:)-([URL])`` of paths whose names may be any bytes (carried by `PathText`).
  func collect(_ paths: [FilePath]) -> [Item] {
    let here = FilePath(FileManager.default.currentDirectoryPath)
    return collect(
      paths.map { path in
        // A UTF-8 path exactly as its URL is taken.
        if let text = path.withPlatformString({ String(validatingCString: $0) }) {
          return Given(url: URL(fileURLWithPath: text, isDirectory: text.hasSuffix("/")))
        }
        let absolute = (path.isAbsolute ? path : here.pushing(path)).lexicallyNormalized()
        return Given(
          absolute: PathText.string(absolute), key: PathText.string(absolute),
          name: absolute.lastComponent.map { PathText.string(FilePath(root: nil, [$0])) } ?? PathText.string(absolute), url: nil)
      })
  }

  /// A path given to the batch: absolute and `key` (the shard key: the path as given) as
  /// `PathText`, its last component, and its URL when it has one (errors carry it).
  struct Given {
    var absolute: String
    var key: String
    var name: String
    var url: URL?

    init(absolute: String, key: String, name: String, url: URL?) {
      (self.absolute, self.key, self.name, self.url) = (absolute, key, name, url)
    }

    init(url: URL) {
      self.init(absolute: url.standardizedFileURL.path, key: url.path, name: url.lastPathComponent, url: url)
    }
  }

  func collect(_ paths: [Given]) -> [Item] {
    var items: [Item] = []
    let shard = options.shard
    for path in paths {
      let absolute = path.absolute
      let info: FileStatus
      switch SystemCalls.stat(PathText.path(absolute)) {
      case .success(let found): info = found
      case .failure(let failure):
        let code = failure.errno.rawValue
        if shard?.contains(key: path.key) ?? true {
          let error =
            path.url.map { FileErrors.opening($0, errno: code) }
            ?? (code == ENOENT || code == ENOTDIR
              ? InputFile.missingError(PathText.path(absolute), for: "read")
              : QuireError(
                .permissionDenied, "Cannot read \(QuireError.name(PathText.path(absolute))): \(QuireError.describe(Errno(rawValue: code))).", url: nil))
          items.append(Item(path: absolute, outputName: path.name, error: error))
        }
        continue
      }
      if info.st_mode & S_IFMT != S_IFDIR {
        if shard?.contains(key: path.key) ?? true { items.append(Item(path: absolute, outputName: path.name)) }
        continue
      }
      var found: [Item] = []
      Self.walk(absolute) { relative in
        // The shard key is the path below the walked folder: the same on every machine.
        if let shard, !shard.contains(key: relative) { return }
        found.append(Item(path: absolute + "/" + relative, outputName: relative, isWalked: true))
      } failed: { relative, error in
        found.append(Item(path: absolute + "/" + relative, outputName: relative, isWalked: true, error: error))
      }
      items += found.sorted { $0.path < $1.path }
    }
    return items
  }

  /// Calls `found` with the path (below `base`) of every regular file under `base`, and of
  /// every symbolic link to one, skipping hidden names and never entering a link to a folder.
  /// `readdir(3)`'s entry types spare a `stat` per file. Names are read as bytes: one that is
  /// not UTF-8 is carried by `PathText` (and opened by its bytes). Folders that cannot be
  /// read are reported to `failed`.
  static func walk(_ base: String, found: (String) -> Void, failed: (String, QuireError) -> Void) {
    var folders = [""]
    while let relative = folders.popLast() {
      let folderPath = relative.isEmpty ? base : base + "/" + relative
      guard let directory = PathText.path(folderPath).withPlatformString({ opendir($0) }) else {
        if !relative.isEmpty {
          failed(
            relative,
            QuireError(
              .permissionDenied, "Cannot read the folder '\(DisplayName.escaping(folderPath))': \(QuireError.describe(Errno(rawValue: errno))).",
              url: PathText.holdsNonUTF8Bytes(folderPath) ? nil : URL(fileURLWithPath: folderPath))
          )
        }
        continue
      }
      defer { closedir(directory) }
      while let entry = readdir(directory) {
        let (name, kind): (String, UInt8) = withUnsafePointer(to: &entry.pointee.d_name) { raw in
          raw.withMemoryRebound(to: CChar.self, capacity: 256) { name in
            // Valid UTF-8 (nearly every name) as it is; other bytes carried by PathText.
            (String(validatingCString: name) ?? PathText.string(bytes: UnsafeRawBufferPointer(start: name, count: strlen(name))), entry.pointee.d_type)
          }
        }
        if name.hasPrefix(".") { continue }
        let child = relative.isEmpty ? name : relative + "/" + name
        var type = kind
        if type == DT_UNKNOWN || type == DT_LNK {
          // A link counts as what it points to, but a link to a folder is not entered.
          let childPath = PathText.path(base + "/" + child)
          guard case .success(let info) = type == DT_LNK ? SystemCalls.stat(childPath) : SystemCalls.lstat(childPath) else { continue }
          switch info.st_mode & S_IFMT {
          case S_IFREG: type = UInt8(DT_REG)
          case S_IFDIR: type = kind == DT_LNK ? UInt8(DT_LNK) : UInt8(DT_DIR)
          default: type = UInt8(DT_UNKNOWN)
          }
        }
        if type == DT_REG {
          found(child)
        } else if type == DT_DIR {
          folders.append(child)
        }
      }
    }
  }

  /// The type of `item`. With `readsContent` false, only the filename extension decides
  /// (memoised in `extensions`), and only when it names a type some provider draws: enough to
  /// look a file up in the cache. Otherwise the full identification (name and content).
  func type(of item: Item, readsContent: Bool, extensions: inout [Substring: UTType?]) throws -> UTType {
    if !readsContent, let dot = item.outputName.lastIndex(of: "."), !item.outputName[dot...].contains("/") {
      let ext = item.outputName[item.outputName.index(after: dot)...]
      let byName: UTType?
      if let known = extensions[ext] {
        byName = known
      } else {
        let type = types.type(forFilenameExtension: String(ext))
        byName = type.flatMap { providers.provider(for: $0) != nil && !$0.identifier.hasPrefix("dyn.") ? $0 : nil }
        extensions[ext] = byName
      }
      if let byName { return byName }
    }
    return try ThumbnailGenerator.contentType(of: item.filePath, registry: types)
  }

  /// Makes thumbnails for `paths`, calling `onResult` once per file in completion order.
  ///
  /// In cache mode, a file with a fresh thumbnail (its `stat` and the cached PNG's
  /// `Thumb::URI`, `Thumb::MTime` and `Thumb::Size`) or a fresh failure record is answered
  /// here, without starting a worker or reading the file. A file modified within the cache's
  /// ``ThumbnailCache/settleInterval`` may still be being written: it goes back into the queue
  /// and is drawn once it has been unmodified that long (the batch waits for it, as Nautilus
  /// does). A file found changed again at that moment or while drawn is put back again; after
  /// ``Options/settleAttempts`` changes it is deferred.
  ///
  /// - Parameter onProgress: Called after each file with (done, total).
  /// - Returns: The counts.
  public func run(
    _ paths: [URL], onResult: (Result) -> Void, onProgress: ((Int, Int) -> Void)? = nil
  ) -> Summary {
    run(items: collect(paths), onResult: onResult, onProgress: onProgress)
  }

  /// ``run(_:onResult:onProgress:)-([URL],_,_)`` for paths whose names may be any bytes: a
  /// file or folder whose name is not UTF-8 (which no `URL` holds) is walked and drawn by its
  /// bytes; results name it as `PathText` (shown `\xFF` by escaping), and a thumbnail written
  /// into a folder is named with the bytes escaped (`non\xFFutf.md.png`).
  public func run(
    _ paths: [FilePath], onResult: (Result) -> Void, onProgress: ((Int, Int) -> Void)? = nil
  ) -> Summary {
    run(items: collect(paths), onResult: onResult, onProgress: onProgress)
  }

  func run(items: [Item], onResult: (Result) -> Void, onProgress: ((Int, Int) -> Void)?) -> Summary {
    let started = ContinuousClock.now
    var summary = Summary()
    var total = items.count
    func finish(_ result: Result) {
      summary.count(result.status)
      onResult(result)
      onProgress?(summary.total, total)
    }
    func fail(_ item: Item, _ message: String) {
      finish(Result(file: item.path, status: .failed, message: message, milliseconds: 0))
    }

    // Decide in this process what needs drawing: cache hits do not, settling files later.
    var jobs: [WorkerPool.QueuedJob] = []
    let cacheVersion = options.version
    var extensions: [Substring: UTType?] = [:]
    // Whether a provider draws a type: asked once per type, not once per file.
    var drawableTypes: [String: Bool] = [:]
    func drawable(_ type: UTType) -> Bool {
      if let known = drawableTypes[type.identifier] { return known }
      let answer = providers.provider(for: type) != nil
      drawableTypes[type.identifier] = answer
      return answer
    }
    /// The type `item` is drawn as, from its name and content; `nil` when it cannot be drawn:
    /// then it has failed, or, a walked file no provider handles, left the count.
    func drawingType(of item: Item) -> UTType? {
      let type: UTType
      do { type = try self.type(of: item, readsContent: true, extensions: &extensions) } catch {
        fail(item, (error as? QuireError)?.reason ?? "\(error)")
        return nil
      }
      guard drawable(type) else {
        if item.isWalked {
          total -= 1
        } else {
          fail(item, "No thumbnail provider handles \(QuireError.name(item.filePath)) (type \(type.identifier)).")
        }
        return nil
      }
      return type
    }
    for (index, item) in items.enumerated() {
      if let error = item.error {
        fail(item, error.reason)
        continue
      }
      var job = WorkerJob(id: index, path: item.path, typeIdentifier: "", size: options.size, software: "Quire \(options.version)")
      var notBefore: ContinuousClock.Instant?
      switch options.destination {
      case .folder(let folder):
        guard let type = drawingType(of: item) else { continue }
        job.typeIdentifier = type.identifier
        // A name that is not UTF-8 gets its thumbnail under the name escaped (`non\xFFutf.md.png`).
        let outputName = PathText.holdsNonUTF8Bytes(item.outputName) ? DisplayName.escaping(item.outputName) : item.outputName
        let output = folder.appendingPathComponent(outputName + ".png")
        // By the path's bytes (a folder named by bytes that are not UTF-8 is that very folder).
        if case .failure(let failure) = SystemCalls.makeFolders(output.deletingLastPathComponent().path) {
          fail(item, "Cannot make the folder '\(DisplayName.escaping(output.deletingLastPathComponent().path))': \(failure.errno). Check the --output folder.")
          continue
        }
        job.output = output.path
      case .cache(let cache):
        let flavor = ThumbnailCache.Flavor(forPixels: options.size)
        job.size = flavor.pixels
        var type: UTType
        let source: ThumbnailCache.Source
        do {
          type = try self.type(of: item, readsContent: false, extensions: &extensions)
          source = try ThumbnailCache.source(forPath: item.path)
        } catch {
          fail(item, (error as? QuireError)?.reason ?? "\(error)")
          continue
        }
        // The warm path: one stat and the cached PNG's text chunks.
        if drawable(type), let cached = cachedResult(of: item, in: cache, source: source, flavor: flavor) {
          finish(cached)
          continue
        }
        // Drawing needs the full identification (name and content).
        guard let drawn = drawingType(of: item) else { continue }
        type = drawn
        job.typeIdentifier = type.identifier
        if cache.isSettling(source) { notBefore = Self.instant(of: cache.settledDate(of: source)) }
        job.cache = WorkerJob.CacheTarget(
          root: cache.root.path, version: cacheVersion, flavor: flavor, source: source, mimeType: ThumbnailOutput.mimeType(of: type))
      }
      jobs.append(WorkerPool.QueuedJob(job: job, notBefore: notBefore))
    }

    if !jobs.isEmpty { draw(jobs, finish: finish) }
    summary.seconds = (ContinuousClock.now - started).seconds
    return summary
  }

  /// What the cache already holds for `item` (a fresh thumbnail, or a failure recorded
  /// before), or `nil` when it must be drawn.
  private func cachedResult(of item: Item, in cache: ThumbnailCache, source: ThumbnailCache.Source, flavor: ThumbnailCache.Flavor) -> Result? {
    switch cache.entry(for: source, flavor: flavor) {
    case .fresh(let url):
      return Result(file: item.path, status: .fresh, output: url.path, milliseconds: 0)
    case .failed(let url):
      return Result(
        file: item.path, status: .failedBefore, output: url.path,
        message: "Quire \(options.version) failed on this file before; it is not tried again until it changes.", milliseconds: 0)
    case .missing:
      return nil
    }
  }

  /// Draws `jobs` on the worker processes and reports each result to `finish`; a file that
  /// changed while it was drawn goes back in the queue to settle, a few times.
  private func draw(_ jobs: [WorkerPool.QueuedJob], finish: (Result) -> Void) {
    var pool = WorkerPool(options: options, count: min(options.jobs, jobs.count))
    var changes: [Int: Int] = [:]
    pool.run(jobs) { job, reply, seconds in
      var result = Result(file: job.path, status: .failed, output: reply.output, message: reply.message, milliseconds: (seconds * 10_000).rounded() / 10)
      switch reply.status {
      case .made: result.status = .made
      case .deferred:
        // Changed while drawn: still being written. Wait for it to settle again, a few times.
        result.status = .deferred
        if case .cache(let cache) = options.destination, var target = job.cache {
          changes[job.id, default: 0] += 1
          if changes[job.id]! < options.settleAttempts, let now = try? ThumbnailCache.source(forPath: job.path) {
            target.source = now
            var again = job
            again.cache = target
            return WorkerPool.QueuedJob(job: again, notBefore: cache.isSettling(now) ? Self.instant(of: cache.settledDate(of: now)) : nil)
          }
          result.message =
            "\(QuireError.name(PathText.path(job.path))) changed \(options.settleAttempts) times while the batch waited for it to settle; it is still being written. Run again later."
        }
      case .failed:
        result.status = reply.code == QuireError.Code.timedOut.description ? .timedOut : .failed
        // Permanent failures are recorded so file managers skip the file; time-outs are not.
        if result.status == .failed, case .cache(let cache) = options.destination, let target = job.cache {
          _ = try? cache.recordFailure(for: target.source, mimeType: target.mimeType)
        }
      }
      finish(result)
      return nil
    }
  }

  /// The moment on the continuous clock that `date` (wall time) will be.
  static func instant(of date: Date) -> ContinuousClock.Instant {
    ContinuousClock.now.advanced(by: .milliseconds(Int64((date.timeIntervalSinceNow * 1000).rounded(.up))))
  }
}

extension Duration {
  var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
