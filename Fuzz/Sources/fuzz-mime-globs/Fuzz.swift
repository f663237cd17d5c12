// shared-mime-info's `globs2`, `aliases`, `subclasses` and `types` files (the input, split at
// NUL bytes into the four), read by SharedMIMEDatabase from a folder, then names matched.
import Foundation
import FuzzDriver
@testable import QuireTypes

let folder = fuzzScratchFolder("mime")

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ input: UnsafeRawPointer?, _ count: Int) -> CInt {
  guard let start = input ?? UnsafeRawPointer(bitPattern: 1) else { return 0 }
  let parts = UnsafeRawBufferPointer(start: start, count: count).split(separator: 0, omittingEmptySubsequences: false)
  for (index, name) in ["globs2", "aliases", "subclasses", "types"].enumerated() {
    let part = index < parts.count ? Data(parts[index]) : Data()
    try? part.write(to: folder.appendingPathComponent(name))
  }
  let database = SharedMIMEDatabase(folders: [folder])
  for name in ["notes.md", "README", "a.tar.gz", "Makefile", "x.PDF", "é.txt", ""] {
    _ = database.globs.match(name)
  }
  for type in database.types.prefix(16) {
    _ = database.canonical(type)
    _ = database.isSubclass(type, of: "text/plain")
  }
  return 0
}

// SwiftPM links an executable's entry point as `<module>_main`: it hands over to libFuzzer.
@_cdecl("fuzz_mime_globs_main")
func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
  runLibFuzzer(argc, argv) { fuzz($0, $1) }
}
