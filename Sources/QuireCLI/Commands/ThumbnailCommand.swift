import ArgumentParser
import Foundation
import Quire
import QuireSystem

/// `quire thumbnail`: batch thumbnails into a folder or the freedesktop cache, the
/// `.thumbnailer` form file managers call, and `--install` for that `.thumbnailer` file.
struct ThumbnailCommand: AsyncParsableCommand, TakesNamesAsBytes, ChecksInputAfterParsing {
  static let configuration = CommandConfiguration(
    commandName: "thumbnail",
    _superCommandName: "quire", abstract: "Make thumbnails of files and folders.",
    discussion: """
      Folders are walked. Each file is drawn in a worker process with a time and memory limit, \
      so a damaged file costs one failed entry. One line (or JSON object) per file, then a \
      summary. Files modified in the last 2 s are waited for. --shard I/N splits a batch over \
      machines or job runners. Exit 0 when every file has a thumbnail, 1 when some failed or were \
      deferred, 2 on usage errors. File managers call the form 'quire thumbnail -s SIZE INPUT OUTPUT'.
      """)

  @Option(name: .customLong("size"), help: "The longer side in pixels (1-4096).") var size: Int = 256
  @Option(name: .customShort("s"), help: "Thumbnailer form: the size, with INPUT (path or file:// URI) and OUTPUT.png.")
  var thumbnailerSize: Int?
  @Option(name: .long, help: "Write PNGs into this folder (the default is the current folder).") var output: String?
  @Flag(name: .long, help: "Write into the freedesktop thumbnail cache ($XDG_CACHE_HOME/thumbnails).") var cache = false
  @Option(name: .customLong("cache-dir"), help: "Use this folder as the thumbnail cache instead of $XDG_CACHE_HOME/thumbnails.")
  var cacheDirectory: String?
  @Option(name: .long, help: "Worker processes (default: one per core).") var jobs: Int?
  @Flag(name: .long, help: "Print one JSON object per file.") var json = false
  @Option(name: .customLong("time-limit"), help: "Seconds one file may take.") var timeLimit = ThumbnailerForm.defaultTimeLimit
  @Option(name: .customLong("memory-limit"), help: "MiB of address space one worker may use (0 for no limit).")
  var memoryLimit = ThumbnailerForm.defaultMemoryLimit
  @Option(
    name: .customLong("settle-time"),
    help: ArgumentHelp("Seconds a file must be unmodified before it is drawn into the cache; younger files are waited for.", visibility: .hidden))
  var settleTime: Double = 2
  @Option(
    name: .long,
    help: ArgumentHelp(
      "Take only slice I of N (0 <= I < N) of the files, by a stable hash of their paths; 'auto' reads a Kubernetes Indexed Job's or Slurm array's index.",
      valueName: "I/N|auto"))
  var shard: String?
  @Option(name: .customLong("worker"), help: ArgumentHelp("The quire program to run as worker.", visibility: .hidden))
  var workerPath: String?
  @Flag(name: .long, help: "Install the .thumbnailer file so file managers use Quire for Markdown.") var install = false
  @Option(name: .customLong("data-dir"), help: "With --install: the data folder to install into (default /usr/local/share as root, else ~/.local/share).")
  var dataDirectory: String?
  @Option(name: .customLong("exec"), help: "With --install: the quire program the entry runs (default: this one; packagers give the final path).")
  var executablePath: String?
  @Argument(help: "Files or folders.") var paths: [String] = []

  func validate() throws {
    if output != nil && (cache || cacheDirectory != nil) { throw ValidationError("Give --output or --cache, not both.") }
    if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1.") }
    if !(1...4096).contains(thumbnailerSize ?? size) { throw ValidationError("The size must be 1 to 4096 pixels.") }
    if !(timeLimit > 0) { throw ValidationError("--time-limit must be more than 0 seconds.") }
    if memoryLimit < 0 { throw ValidationError("--memory-limit must be 0 or more.") }
    if install { return }
    if let shard, shard != "auto" {
      do { _ = try ThumbnailBatch.Shard(parsing: shard) } catch let error as QuireError { throw ValidationError(error.reason) }
    }
    if thumbnailerSize != nil {
      guard paths.count == 2 else { throw ValidationError("The thumbnailer form is 'quire thumbnail -s SIZE INPUT OUTPUT'.") }
      return
    }
  }

  func checkInputGiven() throws {
    if !install && thumbnailerSize == nil && paths.isEmpty { throw ValidationError("Give at least one file or folder.") }
  }

  func run() async throws {
    if install { return try installThumbnailer() }
    if let thumbnailerSize { return try thumbnailOne(size: thumbnailerSize) }
    // The batch waits on its worker processes: blocking work, off the cooperative pool.
    let command = self
    try await BlockingExecutor.shared.run { try command.runBatch() }
  }

  // MARK: The thumbnailer form

  /// Draws one file in this process and writes OUTPUT (see ``ThumbnailerForm``).
  func thumbnailOne(size: Int) throws {
    try ThumbnailerForm(size: size, input: paths[0], output: paths[1], timeLimit: timeLimit, memoryLimit: memoryLimit).run()
  }

  /// The form file managers call, `quire thumbnail -s SIZE INPUT OUTPUT`: one file drawn in
  /// this process (the file manager has its own sandbox and time-out; an alarm and an
  /// address-space limit bound it here too) and written to OUTPUT.
  struct ThumbnailerForm: DirectForm {
    let size: Int
    let input: String
    let output: String
    var timeLimit = Self.defaultTimeLimit
    var memoryLimit = Self.defaultMemoryLimit

    /// `--time-limit`'s default, in seconds.
    static let defaultTimeLimit = 10.0
    /// `--memory-limit`'s default, in MiB.
    static let defaultMemoryLimit = 2048

    func run() throws {
      // Process-wide limits only when quire is the program; a caller running the command
      // in its own process (a test, an embedding tool) must not get an alarm or RLIMIT_AS.
      if QuireCommand.ownsProcess { alarm(UInt32(max(1, timeLimit.rounded(.up)))) }
      if QuireCommand.ownsProcess, memoryLimit > 0 {
        var limit = rlimit(rlim_cur: rlim_t(memoryLimit) << 20, rlim_max: rlim_t(memoryLimit) << 20)
        _ = setrlimit(__rlimit_resource_t(RLIMIT_AS.rawValue), &limit)
      }
      // The input by its bytes (a file:// URI's %FF escapes too): a name that is not UTF-8 is
      // the very file named.
      let path = input.hasPrefix("file://") ? FreedesktopNames.filePath(forFileURI: input) : QuireCommand.filePath(input)
      guard let path else {
        throw QuireError(.invalidArgument, "Cannot read '\(DisplayName.escaping(input))': only local file:// URIs and paths are supported.")
      }
      let generator = ThumbnailGenerator()
      let type = try generator.contentType(of: path)
      let bitmap = try generator.generateBestRepresentation(for: ThumbnailRequest(filePath: path, contentType: type, maximumSize: size))
      let source = try ThumbnailCache.source(for: path)
      let png = try bitmap.pngData(text: ThumbnailOutput.textChunks(for: source, type: type, software: "Quire \(quireVersion)"))
      try ThumbnailOutput.write(png, to: QuireCommand.outputPath(output))
    }
  }

  // MARK: Batch

  func runBatch() throws {
    let destination: ThumbnailBatch.Destination
    if cache || cacheDirectory != nil {
      destination = .cache(
        ThumbnailCache(
          root: try cacheDirectory.map { try QuireCommand.fileURL($0, for: "use the cache folder", isDirectory: true) }, version: quireVersion,
          settleInterval: settleTime))
    } else {
      // By its bytes (see `PathText`): a folder whose name is not UTF-8 is that very folder.
      destination = .folder(URL(fileURLWithPath: output ?? FileManager.default.currentDirectoryPath, isDirectory: true))
    }
    let worker = try workerPath.map { try QuireCommand.fileURL($0, for: "run the worker") } ?? Self.locateQuire()
    let slice = try shard.map { $0 == "auto" ? try ThumbnailBatch.Shard.fromEnvironment() : try ThumbnailBatch.Shard(parsing: $0) }
    let options = ThumbnailBatch.Options(
      size: size, destination: destination, jobs: jobs ?? ProcessInfo.processInfo.activeProcessorCount, timeLimit: timeLimit,
      memoryLimit: memoryLimit << 20, workerExecutable: worker, workerArguments: ["thumbnail-worker"], version: quireVersion, shard: slice)
    let batch = ThumbnailBatch(options: options)
    let showsProgress = isatty(2) == 1
    let encoder = OutputJSON.encoder(pretty: false)
    let summary = batch.run(
      paths.map(QuireCommand.filePath),
      onResult: { result in
        if showsProgress { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
        if json {
          if let data = try? encoder.encode(result) { print(String(decoding: data, as: UTF8.self)) }
        } else {
          print(Self.line(for: result))
        }
        fflush(nil)
      },
      onProgress: showsProgress
        ? { done, total in FileHandle.standardError.write(Data("\r\u{1B}[K[\(done)/\(total)] thumbnails".utf8)) } : nil)
    if showsProgress { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
    let text = Self.summaryLine(summary)
    if json {
      FileHandle.standardError.write(Data((text + "\n").utf8))
    } else {
      print(text)
    }
    if !summary.allSucceeded { throw ExitCode(ExitStatus.failure) }
  }

  static func line(for result: ThumbnailBatch.Result) -> String {
    // Padded by hand: Foundation's padding(toLength:) costs more than the warm path's cache check.
    let name = result.status.rawValue
    let status = name.count >= 13 ? name : name + String(repeating: " ", count: 13 - name.count)
    // Names are escaped: one line per file, and nothing in a name reaches the terminal raw.
    let file = DisplayName.escaping(result.file)
    switch result.status {
    case .made, .fresh:
      return "\(status) \(file) -> \(DisplayName.escaping(result.output ?? ""))"
    default:
      return "\(status) \(file): \(DisplayName.escaping(result.message ?? "", keepsBackslashes: true))"
    }
  }

  static func summaryLine(_ s: ThumbnailBatch.Summary) -> String {
    var parts = ["\(s.made) made", "\(s.fresh) fresh", "\(s.failed) failed"]
    if s.failedBefore > 0 { parts.append("\(s.failedBefore) failed before") }
    if s.timedOut > 0 { parts.append("\(s.timedOut) timed out") }
    if s.deferred > 0 { parts.append("\(s.deferred) deferred") }
    return "\(s.total) file\(s.total == 1 ? "" : "s"): " + parts.joined(separator: ", ") + String(format: " in %.2f s", s.seconds)
  }

  /// The `quire` program to start as a worker: this process when it is `quire`, else a
  /// `quire` beside it (tests run from the build folder).
  static func locateQuire() throws -> URL {
    let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    if me.lastPathComponent == "quire" { return me }
    for folder in [me.deletingLastPathComponent(), me.deletingLastPathComponent().deletingLastPathComponent()] {
      let candidate = folder.appendingPathComponent("quire")
      if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
    }
    throw QuireError(.fileMissing, "Cannot find the quire program to run thumbnail workers (looked beside '\(me.path)'). Pass --worker PATH.")
  }

  // MARK: --install

  /// The `.thumbnailer` entry for the quire at `executable`.
  static func thumbnailerEntry(executable: String) -> String {
    """
    [Thumbnailer Entry]
    TryExec=\(executable)
    Exec=\(executable) thumbnail -s %s %u %o
    MimeType=text/markdown;text/x-markdown;

    """
  }

  func installThumbnailer() throws {
    let executable = executablePath ?? URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
    guard executable.hasPrefix("/") else { throw ValidationError("--exec must be an absolute path, not '\(executable)'.") }
    let data: URL
    if let dataDirectory {
      data = try QuireCommand.fileURL(dataDirectory, for: "install into", isDirectory: true)
    } else if geteuid() == 0 {
      data = URL(fileURLWithPath: "/usr/local/share", isDirectory: true)
    } else {
      data = XDGBaseDirectory.dataHome.url()
    }
    let folder = data.appendingPathComponent("thumbnailers", isDirectory: true)
    let file = folder.appendingPathComponent("quire.thumbnailer")
    do {
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      try FileSaver.writeOutput(Data(Self.thumbnailerEntry(executable: executable).utf8), to: file)
    } catch let error as QuireError {
      throw QuireError(error.code, "Cannot install: \(error.reason) Run as root or pass --data-dir.", url: file, cause: error)
    } catch {
      throw QuireError(.systemCallFailed, "Cannot install '\(file.path)': \(error.localizedDescription). Run as root or pass --data-dir.", url: file)
    }
    print("installed \(file.path) (Exec=\(executable))")
    if executable.hasPrefix("/opt/") || executable.hasPrefix(NSHomeDirectory()) {
      FileHandle.standardError.write(
        Data("note: GNOME runs thumbnailers in a sandbox that sees /usr but not /opt or your home folder; install quire to /usr/local/bin.\n".utf8))
    }
  }
}

/// `quire thumbnail-worker`: the hidden worker the batch starts; reads jobs on stdin.
struct ThumbnailWorkerCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "thumbnail-worker", _superCommandName: "quire", abstract: "Draw thumbnails for a batch (started by 'quire thumbnail').", shouldDisplay: false)
  @Option(name: .customLong("memory-limit"), help: "Address-space limit in bytes.") var memoryLimit: Int = 0
  func run() throws {
    ThumbnailWorker.serve(memoryLimit: memoryLimit)
  }
}

extension ThumbnailCommand.ThumbnailerForm {
  /// The form read without the argument parser, when `arguments` are exactly `thumbnail -s
  /// SIZE INPUT OUTPUT` with SIZE a number from 1 to 4096 and neither file starting with
  /// `-`; nil for anything else (the parser then reads it, with its own checks and
  /// messages). The result is what the parser would have made of the same words.
  init?(arguments: [String]) {
    guard arguments.count == 5, arguments[0] == "thumbnail", arguments[1] == "-s",
      arguments[2].utf8.count <= 4, arguments[2].utf8.allSatisfy({ (0x30...0x39).contains($0) }), let size = Int(arguments[2]),
      (1...4096).contains(size), !arguments[3].hasPrefix("-"), !arguments[4].hasPrefix("-")
    else { return nil }
    (self.size, self.input, self.output) = (size, arguments[3], arguments[4])
  }
}
