// POSIX basic regular expressions as ed gives them to regcomp(3): the pattern is the input up to
// the first NUL, the text to match the rest.
import Foundation
import FuzzDriver
@testable import QuireCLI

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ input: UnsafeRawPointer?, _ count: Int) -> CInt {
  guard let start = input ?? UnsafeRawPointer(bitPattern: 1) else { return 0 }
  let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
  let split = bytes.firstIndex(of: 0) ?? bytes.endIndex
  let pattern = Array(bytes[..<split].prefix(256))
  let text = String(decoding: bytes[min(split + 1, bytes.endIndex)...].prefix(512), as: UTF8.self)
  guard let regex = try? POSIXRegex(pattern) else { return 0 }
  _ = try? regex.matches(text)
  _ = try? regex.firstMatch(in: POSIXRegex.cString(text))
  return 0
}

// SwiftPM links an executable's entry point as `<module>_main`: it hands over to libFuzzer.
@_cdecl("fuzz_regex_main")
func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
  runLibFuzzer(argc, argv) { fuzz($0, $1) }
}
