// A pasteboard's on-disk state.json, as another process (or an attacker) may have left it, read
// through the folder's own checks.
import Foundation
import FuzzDriver
@testable import QuireTransfer

let root: URL = {
  let url = FileManager.default.temporaryDirectory.appendingPathComponent("quire-fuzz-pasteboard-\(getpid())", isDirectory: true)
  try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
  return url
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ input: UnsafeRawPointer?, _ count: Int) -> CInt {
  guard let start = input ?? UnsafeRawPointer(bitPattern: 1) else { return 0 }
  let folder = PasteboardFolder(root: root, name: "fuzz")
  try? folder.prepare()
  try? Data(bytes: start, count: count).write(to: folder.file("state.json"))
  _ = try? folder.withLock(exclusive: false) { try folder.readState() }
  return 0
}

// SwiftPM links an executable's entry point as `<module>_main`: it hands over to libFuzzer.
@_cdecl("fuzz_pasteboard_state_main")
func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
  runLibFuzzer(argc, argv) { fuzz($0, $1) }
}
