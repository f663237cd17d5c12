// The request path of `quire serve` as a local attacker drives it: the raw request target
// (path and query), the headers, the access decision, the served-file opener on a scratch
// folder (a file, a folder, a link out, a FIFO), the byte range, and a name for a rename.
// Invariants checked (a trap on violation): nothing outside the served folder is ever
// opened, and a range lies inside the file.
import Foundation
import FuzzDriver
import HTTPTypes

@testable import QuireBrowser
@testable import QuireServer

let served: URL = {
  let root = fuzzScratchFolder("http-request")
  let folder = root.appendingPathComponent("served", isDirectory: true)
  try? FileManager.default.createDirectory(at: folder.appendingPathComponent("sub"), withIntermediateDirectories: true)
  try? Data("inside\n".utf8).write(to: folder.appendingPathComponent("a.md"))
  try? Data("secret\n".utf8).write(to: root.appendingPathComponent("outside.md"))
  try? FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("out.md").path, withDestinationPath: "../outside.md")
  _ = mkfifo(folder.appendingPathComponent("fifo").path, 0o600)
  return folder
}()
let locations = try! ServedLocations(folders: [served])
let access: AccessControl = {
  let control = AccessControl(token: String(repeating: "7", count: 64))
  control.port = 8080
  return control
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ input: UnsafeRawPointer?, _ count: Int) -> CInt {
  guard let start = input ?? UnsafeRawPointer(bitPattern: 1) else { return 0 }
  // The first line is the request target; the rest "Name: value" header lines.
  let text = String(decoding: Data(bytes: start, count: count), as: UTF8.self)
  var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { String($0.trimmingCharacters(in: ["\r"])) }
  let target = lines.isEmpty ? "/" : lines.removeFirst()
  var headers = HTTPFields()
  for line in lines.prefix(32) {
    guard let colon = line.firstIndex(of: ":"), let name = HTTPField.Name(String(line[..<colon])) else { continue }
    headers.append(HTTPField(name: name, value: String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)))
  }
  let query = target.firstIndex(of: "?")
  let path = String(target[..<(query ?? target.endIndex)])
  _ = access.decide(method: .get, authority: "127.0.0.1:8080", path: path, token: nil, headers: headers)
  _ = access.decide(method: .post, authority: headers[HTTPField.Name("Host")!] ?? "localhost:8080", path: path, token: "x", headers: headers)

  // /files/…: the opener, as the route calls it.
  let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
  if segments.first == "files" {
    if let file = try? locations.open(pathSegments: Array(segments.dropFirst())) {
      let real = URL(fileURLWithPath: file.pinnedPath).resolvingSymlinksInPath().path
      precondition(real.hasPrefix(served.resolvingSymlinksInPath().path + "/"), "opened \(real), outside the served folder")
      _ = try? file.read(at: 0, count: 16)
      if let range = headers[.range], let (first, last) = Site.byteRange(range, size: file.size) {
        precondition(first >= 0 && first <= last && last < file.size, "range \(first)-\(last) outside \(file.size) bytes")
      }
    }
  }
  // ?doc=…: a reference, as /api/preview and the actions take it.
  if let query {
    for item in target[target.index(after: query)...].split(separator: "&") {
      let parts = item.split(separator: "=", maxSplits: 1)
      guard parts.count == 2, let value = String(parts[1]).removingPercentEncoding else { continue }
      if parts[0] == "doc", let file = try? locations.open(reference: value) {
        let real = URL(fileURLWithPath: file.pinnedPath).resolvingSymlinksInPath().path
        precondition(real.hasPrefix(served.resolvingSymlinksInPath().path + "/"), "opened \(real), outside the served folder")
      }
      if parts[0] == "name" { _ = DocumentBrowser.problem(withName: value) }
    }
  }
  if let range = headers[.range] { _ = Site.byteRange(range, size: Int64(count)) }
  _ = Site.holdingBackRemoteImages(in: text)
  return 0
}

// SwiftPM links an executable's entry point as `<module>_main`: it hands over to libFuzzer.
@_cdecl("fuzz_http_request_main")
func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
  runLibFuzzer(argc, argv) { fuzz($0, $1) }
}
