public import Foundation
import QuireFormats
import QuireSystem
public import QuireTypes
public import SystemPackage

/// One file for a worker process to draw: sent as one JSON line on the worker's stdin.
struct WorkerJob: Codable, Sendable {
  var id: Int
  /// The file, absolute; a name that is not UTF-8 carried by `PathText` (JSON holds its
  /// private-use scalars as they are).
  var path: String
  var typeIdentifier: String
  var size: Int
  /// The `Software` text, e.g. "Quire 0.1.0".
  var software: String
  /// Where to write the PNG (output-folder mode).
  var output: String?
  /// What to store it under (cache mode).
  var cache: CacheTarget?
  /// Read the file's text instead of drawing it (a PDF's pages, joined by form feeds):
  /// ``PDFTextWorkers``.
  var readsText: Bool?

  struct CacheTarget: Codable, Sendable {
    var root: String
    var version: String
    var flavor: ThumbnailCache.Flavor
    var source: ThumbnailCache.Source
    var mimeType: String?
  }
}

/// A worker's answer for one job: one JSON line on its stdout.
struct WorkerReply: Codable, Sendable {
  enum Status: String, Codable, Sendable { case made, failed, deferred }
  var id: Int
  var status: Status
  var output: String?
  var width: Int?
  var height: Int?
  var code: String?
  var message: String?
  /// The text read (``WorkerJob/readsText``).
  var text: String?
}

/// The loop a worker process runs: read a job line, draw, answer a line, until stdin closes.
///
/// The CLI starts it as the hidden `quire thumbnail-worker` subcommand; a worker lives for many
/// files and is killed by the parent when one takes too long.
public enum ThumbnailWorker {
  /// Serves jobs from file descriptor `input`, answering on `output`, until `input` ends.
  ///
  /// - Parameter memoryLimit: When given, the address-space limit (`setrlimit(RLIMIT_AS)`) in
  ///   bytes applied to this process first, so a file that explodes fails allocation here
  ///   instead of taking the machine's memory.
  public static func serve(input: Int32 = 0, output: Int32 = 1, memoryLimit: Int? = nil, generator: ThumbnailGenerator = ThumbnailGenerator()) {
    let output = FileDescriptor(rawValue: output)
    if let memoryLimit, memoryLimit > 0 {
      var limit = rlimit(rlim_cur: rlim_t(memoryLimit), rlim_max: rlim_t(memoryLimit))
      _ = setrlimit(addressSpaceLimitResource, &limit)
    }
    let decoder = JSONDecoder()
    let encoder = JSONEncoder()
    var reader = LineReader(fd: input)
    while let line = reader.nextLine() {
      guard let job = try? decoder.decode(WorkerJob.self, from: Data(line)) else { continue }
      let reply = handle(job, generator: generator)
      guard var data = try? encoder.encode(reply) else { continue }
      data.append(0x0A)
      // The parent is gone (or killed us mid-write): nothing is left to answer.
      guard case .success = SystemCalls.writeAll(output, data) else { return }
    }
  }

  static func handle(_ job: WorkerJob, generator: ThumbnailGenerator) -> WorkerReply {
    // The path with its bytes: a name that is not UTF-8 is opened as it is.
    let path = PathText.path(job.path)
    do {
      if job.readsText == true {
        return WorkerReply(id: job.id, status: .made, text: try PDFFile(filePath: path).text)
      }
      let type = generator.types.type(withIdentifier: job.typeIdentifier) ?? UTType(job.typeIdentifier) ?? .data
      let request = ThumbnailRequest(filePath: path, contentType: type, maximumSize: job.size)
      let bitmap = try generator.generateBestRepresentation(for: request)
      if let target = job.cache {
        // A file that changed while it was drawn is still being written: come back later.
        let after = try ThumbnailCache.source(for: path)
        guard
          after.modificationTime == target.source.modificationTime, after.modificationTimeNanoseconds == target.source.modificationTimeNanoseconds,
          after.size == target.source.size
        else {
          return WorkerReply(id: job.id, status: .deferred, message: "\(QuireError.name(path)) changed while it was drawn; it is still being written.")
        }
        let cache = ThumbnailCache(root: URL(fileURLWithPath: target.root, isDirectory: true), version: target.version)
        let stored = try cache.store(bitmap, for: target.source, flavor: target.flavor, mimeType: target.mimeType)
        return WorkerReply(id: job.id, status: .made, output: stored.path, width: bitmap.width, height: bitmap.height)
      }
      guard let output = job.output else {
        return WorkerReply(id: job.id, status: .failed, code: QuireError.Code.invalidArgument.description, message: "No output given.")
      }
      let source = try ThumbnailCache.source(for: path)
      let png = try bitmap.pngData(text: ThumbnailOutput.textChunks(for: source, type: type, software: job.software))
      try ThumbnailOutput.write(png, to: URL(fileURLWithPath: output))
      return WorkerReply(id: job.id, status: .made, output: output, width: bitmap.width, height: bitmap.height)
    } catch let error as QuireError {
      return WorkerReply(id: job.id, status: .failed, code: error.code.description, message: error.reason)
    } catch {
      return WorkerReply(id: job.id, status: .failed, code: QuireError.Code.libraryFailure.description, message: "\(error)")
    }
  }
}

/// Writing thumbnails outside the cache (`--output DIR` and the `.thumbnailer` form).
public enum ThumbnailOutput {
  /// The `tEXt` chunks of a thumbnail of `source`: the same keys the cache uses, with
  /// `software` (e.g. "Quire 0.1.0") as `Software`.
  public static func textChunks(for source: ThumbnailCache.Source, type: UTType, software: String) -> [(key: String, value: String)] {
    var chunks: [(key: String, value: String)] = [
      ("Thumb::URI", source.uri), ("Thumb::MTime", String(source.modificationTime)), ("Thumb::Size", String(source.size)),
    ]
    if let mime = mimeType(of: type) { chunks.append(("Thumb::Mime", mime)) }
    chunks.append(("Software", software))
    return chunks
  }

  /// The MIME type written as `Thumb::Mime`.
  public static func mimeType(of type: UTType) -> String? {
    if let mime = type.preferredMIMEType { return mime }
    if type.conforms(to: .markdown) { return "text/markdown" }
    if type.conforms(to: .pdf) { return "application/pdf" }
    if type.conforms(to: .plainText) { return "text/plain" }
    return nil
  }

  /// Writes `png` to `url` by the output-path rule (`OutputPath`): a regular file or nothing
  /// through a temporary file in the same folder and a rename (the system layer's atomic
  /// writer, mode 0644); a device or FIFO (or a link to one) written through, staying what
  /// it is.
  /// - Throws: ``QuireError`` naming `url`.
  public static func write(_ png: Data, to url: URL) throws {
    do {
      try OutputPath.write(png, to: url) { target in
        // By the path's bytes: a URL carrying a name that is not UTF-8 writes that very name.
        // Not made durable (no fsync): a thumbnail is a cache's file, made again when lost, and
        // the rename still keeps a reader from ever seeing half of one.
        if case .failure(let failure) = AtomicFile.write(png, to: target.path, mode: 0o644, durable: false) { throw failure }
      }
    } catch let error as QuireError {
      throw error
    } catch {
      throw QuireError(
        .systemCallFailed,
        "Cannot write the thumbnail \(QuireError.name(url)) to '\(DisplayName.escaping(url.deletingLastPathComponent().path))': \(error.localizedDescription). Check the folder exists and is writable.",
        url: url, cause: error)
    }
  }

  /// Writes `png` to `path`, a path of any bytes (a name that is not UTF-8 is written as that
  /// very name), as ``write(_:to:)-(_,URL)`` writes a URL.
  /// - Throws: ``QuireError`` naming `path` escaped.
  public static func write(_ png: Data, to path: FilePath) throws {
    try write(png, to: OutputPath.url(carrying: path))
  }
}

/// Splits a file descriptor's bytes into lines, read through the system layer.
struct LineReader {
  let fd: FileDescriptor
  var buffer: [UInt8] = []
  var start = 0
  var isAtEnd = false

  init(fd: Int32) { self.fd = FileDescriptor(rawValue: fd) }

  /// The next line without its newline, or nil at end of input.
  mutating func nextLine() -> [UInt8]? {
    while true {
      if let newline = buffer[start...].firstIndex(of: 0x0A) {
        let line = Array(buffer[start..<newline])
        start = newline + 1
        if start > 65536 {
          buffer.removeFirst(start)
          start = 0
        }
        return line
      }
      if isAtEnd { return nil }
      fill()
    }
  }

  /// Reads what is available (blocking until something is); the end of input or an error
  /// ends the lines.
  mutating func fill() {
    var chunk = [UInt8](repeating: 0, count: 65536)
    guard case .success(let n) = chunk.withUnsafeMutableBytes({ SystemCalls.read(fd, into: $0) }), n > 0 else {
      isAtEnd = true
      return
    }
    buffer.append(contentsOf: chunk[0..<n])
  }
}

/// `RLIMIT_AS` as the Int32 `setrlimit` takes on glibc (imported as an enum there).
#if canImport(Glibc)
  import Glibc
  let addressSpaceLimitResource = __rlimit_resource_t(RLIMIT_AS.rawValue)
#endif
