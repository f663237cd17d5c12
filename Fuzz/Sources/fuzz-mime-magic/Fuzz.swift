// shared-mime-info's binary `magic` file (the input after its "MIME-Magic\0\n" header), read by
// MagicDatabase from a folder, then matched against its own bytes.
import Foundation
import FuzzDriver
@testable import QuireTypes

let folder = fuzzScratchFolder("magic")

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ input: UnsafeRawPointer?, _ count: Int) -> CInt {
  guard let start = input ?? UnsafeRawPointer(bitPattern: 1) else { return 0 }
  let body = Data(bytes: start, count: count)
  try? (Data("MIME-Magic\0\n".utf8) + body).write(to: folder.appendingPathComponent("magic"))
  let database = MagicDatabase(folders: [folder])
  body.withUnsafeBytes { _ = database.match($0) }
  return 0
}

// SwiftPM links an executable's entry point as `<module>_main`: it hands over to libFuzzer.
@_cdecl("fuzz_mime_magic_main")
func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
  runLibFuzzer(argc, argv) { fuzz($0, $1) }
}
