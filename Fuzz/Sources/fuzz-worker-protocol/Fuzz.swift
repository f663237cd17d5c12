// The batch worker protocol: JSON lines read from a pipe (LineReader), decoded as jobs and replies.
import Foundation
import FuzzDriver
@testable import QuirePreviews

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ input: UnsafeRawPointer?, _ count: Int) -> CInt {
  guard let start = input ?? UnsafeRawPointer(bitPattern: 1) else { return 0 }
  let data = Data(bytes: start, count: min(count, 60_000))  // one pipe buffer: no writer thread needed
  var fds: [Int32] = [0, 0]
  guard pipe(&fds) == 0 else { return 0 }
  FileHandle(fileDescriptor: fds[1], closeOnDealloc: false).write(data)
  close(fds[1])
  var reader = LineReader(fd: fds[0])
  let decoder = JSONDecoder()
  while let line = reader.nextLine() {
    _ = try? decoder.decode(WorkerJob.self, from: Data(line))
    _ = try? decoder.decode(WorkerReply.self, from: Data(line))
  }
  close(fds[0])
  return 0
}

// SwiftPM links an executable's entry point as `<module>_main`: it hands over to libFuzzer.
@_cdecl("fuzz_worker_protocol_main")
func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
  runLibFuzzer(argc, argv) { fuzz($0, $1) }
}
