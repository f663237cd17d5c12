import Foundation
import QuireCoordination
import QuireTestSupport
import Synchronization
import Testing

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
func startCoordinationHelper(_ arguments: [String]) throws -> RunningProcess {
  try ChildProcess.startBuilt("quire-coordination-helper", [CoordinationLocation.default.runtimeFolder.path] + arguments)
}
