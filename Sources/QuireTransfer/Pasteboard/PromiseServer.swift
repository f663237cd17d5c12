import Foundation
import QuireSystem
import QuireTypes
import Synchronization
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// The wire form of a promise request and its answer, one JSON line each; the answer is
/// followed by `length` bytes of the representation.
struct PromiseRequest: Codable, Sendable {
  var generation: String
  var item: Int
  var typeIdentifier: String
}

struct PromiseAnswer: Codable, Sendable {
  var length: Int64?
  var message: String?
}

/// Serves the representations a live process promised on a pasteboard, over a Unix domain
/// socket in the pasteboard folder.
///
/// One thread accepts; each request is served on a background queue. Only peers of the
/// same user (`SO_PEERCRED`) are answered, only representations visible to all processes
/// are served, and file representations are streamed in 1 MiB chunks, never held whole.
final class PromiseServer: Sendable {
  let socketPath: String
  let generation: String
  private let providers: [ItemProvider]
  private let listener: Int32
  private let stopPipe: (read: Int32, write: Int32)
  private let isStopped = Mutex(false)

  init(socketPath: String, generation: String, providers: [ItemProvider]) throws {
    self.socketPath = socketPath
    self.generation = generation
    self.providers = providers
    switch SystemCalls.listeningSocket(at: socketPath, replacing: true).map(\.rawValue) {
    case .success(let fd): listener = fd
    case .failure(let error) where error.errno.rawValue == ENAMETOOLONG:
      throw QuireError(
        .invalidArgument,
        "The pasteboard folder's path is too long for a Unix socket ('\(socketPath)'). Use a shorter XDG_RUNTIME_DIR.",
        cause: error)
    case .failure(let error):
      throw QuireError(
        QuireError.Code(error.errno), "Cannot open the pasteboard's socket '\(socketPath)' (\(QuireError.describe(error.errno))).", cause: error)
    }
    switch SystemCalls.pipe() {
    case .success(let ends): stopPipe = (ends.read.rawValue, ends.write.rawValue)
    case .failure(let error):
      SystemCalls.release(FileDescriptor(rawValue: listener))
      throw QuireError(QuireError.Code(error.errno), "Cannot start the pasteboard's server (\(QuireError.describe(error.errno))).", cause: error)
    }
    DedicatedThread.start(named: "quire.pasteboard.promises") { [self] in acceptLoop() }
  }

  /// Stops accepting, removes the socket. Requests being served finish.
  func stop() {
    let wasStopped = isStopped.withLock { stopped in
      defer { stopped = true }
      return stopped
    }
    if wasStopped { return }
    _ = SystemCalls.remove(socketPath)
    _ = SystemCalls.writeAll(FileDescriptor(rawValue: stopPipe.write), [UInt8(1)])
  }

  private func acceptLoop() {
    defer {
      SystemCalls.release(FileDescriptor(rawValue: listener))
      SystemCalls.release(FileDescriptor(rawValue: stopPipe.read))
      SystemCalls.release(FileDescriptor(rawValue: stopPipe.write))
    }
    while true {
      let ready = SystemCalls.waitReadable([listener, stopPipe.read].map(FileDescriptor.init(rawValue:)), milliseconds: -1)
      if ready[1] { return }
      guard ready[0] else { continue }
      guard case .success(let accepted) = SystemCalls.accept(FileDescriptor(rawValue: listener)) else { continue }
      let connection = accepted.rawValue
      // Reading the request waits on the peer (up to 10 s), which would starve Dispatch's few
      // global threads (one per core on Linux): a bounded pool of its own reads them, so a
      // flood of connections queues instead of starting a thread each.
      BlockingExecutor.shared.submit(in: Self.connections) { [self] in serve(connection) }
    }
  }

  /// The threads that read requests, shared by every promise server of the process.
  static let connections = BlockingLane("quire.pasteboard.requests", limit: 8)

  private func serve(_ connection: Int32) {
    guard SystemCalls.peerUserID(FileDescriptor(rawValue: connection)) == geteuid() else { return SystemCalls.release(FileDescriptor(rawValue: connection)) }
    guard let line = Self.readLine(connection, limit: 64 << 10, timeoutMilliseconds: 10_000),
      let request = try? JSONDecoder().decode(PromiseRequest.self, from: line)
    else { return answer(connection, message: "The request was not understood.") }
    guard request.generation == generation, providers.indices.contains(request.item) else {
      return answer(connection, message: "The pasteboard has changed since the item was listed.")
    }
    let provider = providers[request.item]
    guard
      let representation = provider.representations.first(where: {
        $0.typeIdentifier == request.typeIdentifier && $0.visibility == .all
      })
    else { return answer(connection, message: "The item has no \(request.typeIdentifier) representation for other processes.") }
    let progress = Progress(totalUnitCount: 1)
    provider.start(representation, progress: progress) { result in
      defer { SystemCalls.release(FileDescriptor(rawValue: connection)) }
      switch result {
      case .failure(let error):
        Self.send(connection, PromiseAnswer(length: nil, message: (error as? QuireError)?.reason ?? "\(error)"))
      case .success(.data(let data)):
        guard Self.send(connection, PromiseAnswer(length: Int64(data.count), message: nil)) else { return }
        _ = SystemCalls.writeAll(FileDescriptor(rawValue: connection), data, socket: true)
      case .success(.file(let url)):
        do {
          try provider.fileReadCoordinator.coordinateReading(itemAt: url, timeout: provider.loadTimeout) { url in
            try Self.stream(url, to: connection)
          }
        } catch {
          Self.send(connection, PromiseAnswer(length: nil, message: (error as? QuireError)?.reason ?? "\(error)"))
        }
      }
    }
  }

  private func answer(_ connection: Int32, message: String) {
    Self.send(connection, PromiseAnswer(length: nil, message: message))
    SystemCalls.release(FileDescriptor(rawValue: connection))
  }

  @discardableResult
  private static func send(_ connection: Int32, _ answer: PromiseAnswer) -> Bool {
    guard var line = try? JSONEncoder().encode(answer) else { return false }
    line.append(0x0A)
    if case .failure = SystemCalls.writeAll(FileDescriptor(rawValue: connection), line, socket: true) { return false }
    return true
  }

  /// Sends the answer line and the file's bytes in 1 MiB chunks.
  private static func stream(_ url: URL, to connection: Int32) throws {
    let fd: Int32
    switch SystemCalls.open(FilePath(url.path), O_RDONLY, mode: 0).map(\.rawValue) {
    case .success(let opened): fd = opened
    case .failure(let error): throw TransferErrors.opening(url, error)
    }
    defer { SystemCalls.release(FileDescriptor(rawValue: fd)) }
    guard case .success(let info) = SystemCalls.fstat(FileDescriptor(rawValue: fd)) else { return }
    let length = Int64(info.st_size)
    guard send(connection, PromiseAnswer(length: length, message: nil)) else { return }
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
    defer { buffer.deallocate() }
    var sent: Int64 = 0
    while sent < length {
      guard case .success(let count) = SystemCalls.read(FileDescriptor(rawValue: fd), into: buffer), count > 0 else { return }
      let chunk = Int(min(Int64(count), length - sent))
      if case .failure = SystemCalls.writeAll(FileDescriptor(rawValue: connection), UnsafeRawBufferPointer(rebasing: buffer[0..<chunk]), socket: true) {
        return
      }
      sent += Int64(chunk)
    }
  }

  /// Reads up to a newline (not included); `nil` on timeout, end or overlong lines.
  /// Bytes after the newline are returned in `rest`.
  static func readLine(_ fd: Int32, limit: Int, timeoutMilliseconds: Int32, rest: UnsafeMutablePointer<Data>? = nil) -> Data? {
    var line = Data()
    var buffer = [UInt8](repeating: 0, count: 4096)
    while line.count <= limit {
      guard SystemCalls.waitReadable([fd].map(FileDescriptor.init(rawValue:)), milliseconds: timeoutMilliseconds)[0] else { return nil }
      let received = buffer.withUnsafeMutableBytes { SystemCalls.receive(FileDescriptor(rawValue: fd), into: $0) }
      guard case .success(let count) = received, count > 0 else { return nil }
      if let newline = buffer[0..<count].firstIndex(of: 0x0A) {
        line.append(contentsOf: buffer[0..<newline])
        rest?.pointee = Data(buffer[(newline + 1)..<count])
        return line
      }
      line.append(contentsOf: buffer[0..<count])
    }
    return nil
  }
}

/// Fetches a promised representation from the live process that serves it.
enum PromiseClient {
  /// Asks the server at `socketPath` for one representation and writes it to a new file
  /// `target`, streaming (all-zero chunks become holes).
  ///
  /// - Throws: ``QuireError``: `.fileMissing` when the serving process is gone,
  ///   `.unsupportedType` when it refuses, `.timedOut` when it stalls, `.cancelled`.
  static func fetch(
    socketPath: String, request: PromiseRequest, ownerProcess: Int32?, into target: URL,
    stallTimeout: Duration, isCancelled: @Sendable () -> Bool
  ) throws {
    let owner = ownerProcess.map { "process \($0)" } ?? "the process"
    let gone = QuireError(
      .fileMissing,
      "The \(request.typeIdentifier) representation was promised by \(owner), which exited without leaving it. Copy the item again.")
    if let ownerProcess, !PasteboardFolder.isAlive(ownerProcess) { throw gone }
    let connection: Int32
    switch SystemCalls.connect(to: socketPath).map(\.rawValue) {
    case .success(let fd): connection = fd
    case .failure(let error):
      var refused = gone
      refused.cause = error
      throw refused
    }
    defer { SystemCalls.release(FileDescriptor(rawValue: connection)) }
    var request = try JSONEncoder().encode(request)
    request.append(0x0A)
    if case .failure(let error) = SystemCalls.writeAll(FileDescriptor(rawValue: connection), request, socket: true) {
      throw QuireError(.systemCallFailed, "Cannot ask \(owner) for the pasted item.", cause: error)
    }
    let milliseconds = Int32(clamping: Int64(stallTimeout.timeInterval * 1000))
    var rest = Data()
    guard let line = PromiseServer.readLine(connection, limit: 64 << 10, timeoutMilliseconds: milliseconds, rest: &rest),
      let answer = try? JSONDecoder().decode(PromiseAnswer.self, from: line)
    else {
      throw QuireError(.timedOut, "\(owner.capitalizedFirst) did not answer for the pasted item within \(stallTimeout). Try again.")
    }
    guard let length = answer.length, length >= 0 else {
      throw QuireError(.unsupportedType, "\(owner.capitalizedFirst) could not give the pasted item: \(answer.message ?? "no reason given").")
    }
    let fd = try ScratchFolder.create(target)
    defer { SystemCalls.release(FileDescriptor(rawValue: fd)) }
    var received: Int64 = 0
    func store(_ bytes: UnsafeRawBufferPointer) throws {
      let count = Int(min(Int64(bytes.count), length - received))
      let part = UnsafeRawBufferPointer(rebasing: bytes[0..<count])
      if isAllZero(part) {
        if case .failure(let error) = SystemCalls.seek(FileDescriptor(rawValue: fd), to: Int64(count), from: SEEK_CUR) {
          throw TransferErrors.writing(target, error)
        }
      } else if case .failure(let error) = SystemCalls.writeAll(FileDescriptor(rawValue: fd), part) {
        throw TransferErrors.writing(target, error)
      }
      received += Int64(count)
    }
    try rest.withUnsafeBytes { try store($0) }
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
    defer { buffer.deallocate() }
    while received < length {
      if isCancelled() { throw QuireError(.cancelled, "Pasting was cancelled.") }
      let wait = min(milliseconds, 100)
      var waited: Int32 = 0
      while !SystemCalls.waitReadable([connection].map(FileDescriptor.init(rawValue:)), milliseconds: wait)[0] {
        waited += wait
        if isCancelled() { throw QuireError(.cancelled, "Pasting was cancelled.") }
        if waited >= milliseconds {
          throw QuireError(.timedOut, "\(owner.capitalizedFirst) stopped sending the pasted item for \(stallTimeout). Try again.")
        }
      }
      let want = Int(min(Int64(buffer.count), length - received))
      let count = (try? SystemCalls.receive(FileDescriptor(rawValue: connection), into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<want])).get()) ?? -1
      guard count > 0 else {
        throw QuireError(
          .invalidContent,
          "\(owner.capitalizedFirst) stopped after \(received) of \(length) bytes of the pasted item (it may have exited). Copy it again.")
      }
      try store(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
    }
    if case .failure(let error) = SystemCalls.truncate(FileDescriptor(rawValue: fd), to: Int(length)) { throw TransferErrors.writing(target, error) }
  }
}

/// Whether every byte of `buffer` is zero (a hole to skip rather than write).
private func isAllZero(_ buffer: UnsafeRawBufferPointer) -> Bool {
  guard let base = buffer.baseAddress, buffer.count > 0 else { return true }
  if base.load(as: UInt8.self) != 0 { return false }
  // Compare the buffer with itself shifted by one byte: all equal and the first is zero.
  return memcmp(base, base + 1, buffer.count - 1) == 0
}
