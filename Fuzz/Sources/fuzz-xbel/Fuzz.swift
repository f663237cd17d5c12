// `recently-used.xbel` as any program (or an attacker) may have left it: parsed by the
// streaming scan, then, when it is a list, an entry added and one renamed, and the bytes
// parsed again. Invariants checked (a trap on violation): an unchanged list is written back
// byte for byte, and every other entry keeps its bytes through Quire's changes.
import Foundation
import FuzzDriver

@testable import QuireBrowser

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ input: UnsafeRawPointer?, _ count: Int) -> CInt {
  guard let start = input ?? UnsafeRawPointer(bitPattern: 1) else { return 0 }
  let bytes = [UInt8](UnsafeRawBufferPointer(start: start, count: count))
  guard var list = XBELList.parse(bytes) else { return 0 }
  precondition(list.bytes == bytes, "an unchanged list was not written back byte for byte")
  for bookmark in list.bookmarks {
    _ = (bookmark.href, bookmark.added, bookmark.visited, bookmark.mimeType, bookmark.applications)
  }
  let others = list.bookmarks.filter { $0.href != "file:///fuzz/q.md" }.map(\.bytes)
  list.touch(href: "file:///fuzz/q.md", mimeType: "text/markdown", application: "quire", exec: "quire %u", now: Date(timeIntervalSince1970: 0))
  guard let again = XBELList.parse(list.bytes) else { preconditionFailure("a list with an entry added is no longer a list") }
  for theirs in others { precondition(again.bookmarks.contains { $0.bytes == theirs }, "another program's entry changed") }
  list.trim(to: 3)
  _ = XBELList.parse(list.bytes)
  return 0
}

// SwiftPM links an executable's entry point as `<module>_main`: it hands over to libFuzzer.
@_cdecl("fuzz_xbel_main")
func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
  runLibFuzzer(argc, argv) { fuzz($0, $1) }
}
