import Foundation
import QuireCoordination
import QuireTestSupport
import Synchronization
import Testing

/// A value several threads set and a test reads.
final class Box<Value: Sendable>: Sendable {
  private let value: Mutex<Value>
  init(_ value: Value) { self.value = Mutex(value) }
  var current: Value { value.withLock { $0 } }
  func set(_ newValue: Value) { value.withLock { $0 = newValue } }
  func update(_ body: (inout Value) -> Void) { value.withLock { body(&$0) } }
}

/// Waits for a completion-handler result, failing the test instead of hanging.
func awaitCompletion<Value: Sendable>(
  timeout: Duration = .seconds(30), sourceLocation: SourceLocation = #_sourceLocation,
  _ start: (@escaping @Sendable (Value) -> Void) -> Void
) async -> Value? {
  let box = Box<Value?>(nil)
  start { value in box.set(value) }
  let arrived = await eventually(timeout: timeout) { box.current != nil }
  #expect(arrived, "the completion handler was not called", sourceLocation: sourceLocation)
  return box.current
}

/// The process's peak resident set (`VmHWM` of /proc/self/status), in bytes.
func peakResidentBytes() -> Int? {
  guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
  for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
    let digits = line.filter(\.isNumber)
    return Int(digits).map { $0 * 1024 }
  }
  return nil
}

/// Resets the peak resident set to the current one (`echo 5 > /proc/self/clear_refs`).
func resetPeakResidentBytes() {
  try? Data("5".utf8).write(to: URL(fileURLWithPath: "/proc/self/clear_refs"))
}

/// Makes a sparse file of `size` bytes with `ftruncate(2)`: no data blocks, no memory.
func makeSparseFile(_ url: URL, size: Int64) throws {
  let fd = open(url.path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
  guard fd >= 0 else { throw CocoaError(.fileWriteUnknown) }
  defer { close(fd) }
  guard ftruncate(fd, off_t(size)) == 0 else { throw CocoaError(.fileWriteOutOfSpace) }
  // One marker at the start and one at the end, so copies can be checked.
  _ = pwrite(fd, "HEAD", 4, 0)
  _ = pwrite(fd, "TAIL", 4, off_t(size - 4))
}

/// The first and last four bytes of a file.
func markers(of url: URL) throws -> (String, String) {
  let handle = try FileHandle(forReadingFrom: url)
  defer { try? handle.close() }
  let head = try handle.read(upToCount: 4) ?? Data()
  let size = try handle.seekToEnd()
  try handle.seek(toOffset: size - 4)
  let tail = try handle.read(upToCount: 4) ?? Data()
  return (String(decoding: head, as: UTF8.self), String(decoding: tail, as: UTF8.self))
}

/// A minimal valid PNG header: signature and IHDR for a `width`×`height` image.
func pngHeader(width: UInt32 = 3, height: UInt32 = 2) -> Data {
  var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]
  bytes += Array("IHDR".utf8)
  for value in [width, height] { bytes += withUnsafeBytes(of: value.bigEndian, Array.init) }
  bytes += [8, 6, 0, 0, 0, 0, 0, 0, 0]  // depth, colour, compression, filter, interlace, CRC (unchecked)
  return Data(bytes)
}

/// `quire-coordination-helper` (built beside the tests) as another process, coordinating at
/// the default location (`$XDG_RUNTIME_DIR`, or its fallback): the one every coordinator made
/// without a location uses.
final class CoordinationHelper: Sendable {
  let process: Process
  private let input: Pipe
  private let collected: Box<[String]>

  /// Starts `quire-coordination-helper RUNTIME arguments…`; nil (with a note) when it is not built.
  init?(_ arguments: [String]) throws {
    let exe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    var folder = exe.deletingLastPathComponent()
    var found: URL?
    for _ in 0..<4 where found == nil {
      let candidate = folder.appendingPathComponent("quire-coordination-helper")
      if FileManager.default.isExecutableFile(atPath: candidate.path) { found = candidate }
      folder.deleteLastPathComponent()
    }
    guard let found else {
      print("note: quire-coordination-helper is not built beside the tests; skipping")
      return nil
    }
    process = Process()
    process.executableURL = found
    process.arguments = [CoordinationLocation.default.runtimeFolder.path] + arguments
    let output = Pipe()
    input = Pipe()
    process.standardOutput = output
    process.standardInput = input
    try process.run()
    let reader = output.fileHandleForReading
    let box = Box<[String]>([])
    collected = box
    Thread.detachNewThread {
      var pending = Data()
      while true {
        let chunk = reader.availableData
        if chunk.isEmpty { break }
        pending += chunk
        while let end = pending.firstIndex(of: 10) {
          let line = String(decoding: pending[pending.startIndex..<end], as: UTF8.self)
          box.update { $0.append(line) }
          pending = Data(pending[(end + 1)...])
        }
      }
    }
  }

  /// Waits (up to 30 s) for the line `line`.
  func waitForLine(_ line: String) async -> Bool {
    await eventually { self.collected.current.contains(line) }
  }

  func send(_ line: String) { input.fileHandleForWriting.write(Data((line + "\n").utf8)) }

  /// Closes its input and, if it does not end, kills it.
  func end() {
    try? input.fileHandleForWriting.close()
    if process.isRunning { kill(process.processIdentifier, SIGTERM) }
    process.waitUntilExit()
  }
}
