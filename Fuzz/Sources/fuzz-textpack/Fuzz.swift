// A .textpack (a zip of a TextBundle) read from a file, as opening one does, then the bundle
// inside it. (Reading from memory, Archive(data:), leaks in ZIPFoundation 0.9.20: see
// lsan-suppressions.txt; the file is what users open.)
import Foundation
import FuzzDriver
@testable import QuireDocuments

let scratch = fuzzScratchFolder("textpack")

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ input: UnsafeRawPointer?, _ count: Int) -> CInt {
  guard let start = input ?? UnsafeRawPointer(bitPattern: 1) else { return 0 }
  let url = scratch.appendingPathComponent("fuzz.textpack")
  guard (try? Data(bytes: start, count: count).write(to: url)) != nil else { return 0 }
  guard let wrapper = try? TextPackArchive.read(from: url) else { return 0 }
  guard let bundle = try? TextBundle(fileWrapper: wrapper, url: url) else { return 0 }
  _ = bundle.text
  return 0
}
// SwiftPM links an executable's entry point as `<module>_main`: it hands over to libFuzzer.
@_cdecl("fuzz_textpack_main")
func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
  runLibFuzzer(argc, argv) { fuzz($0, $1) }
}
