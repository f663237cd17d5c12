// A helper process for QuireCoordination's cross-process tests (not part of any product).
// Usage: quire-coordination-helper RUNTIME-FOLDER COMMAND ARGUMENTS…
//   increment COUNTER N        N coordinated read-increment-write cycles on COUNTER
//   write-loop FILE N          N coordinated in-place writes of 64 KiB of one repeated letter
//   present FILE UNSAVED       presents FILE holding UNSAVED as unsaved text; prints each
//                              message it gets, one per line; saves UNSAVED when asked; exits
//                              when standard input closes
//   hold-write FILE            takes write access, writes half a file, prints "holding", waits
//   hold-write-until-input FILE
//                              takes write access, writes "half", prints "holding", waits for a
//                              line on standard input, writes "complete\n", lets go, prints
//                              "released", then waits for standard input to close
import Foundation
import QuireCoordination
import Synchronization

/// Prints one line at once (standard output is a pipe; nothing waits in a buffer).
func say(_ line: String) {
  FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func fail(_ message: String) -> Never {
  FileHandle.standardError.write(Data("quire-coordination-helper: \(message)\n".utf8))
  exit(1)
}

let arguments = CommandLine.arguments
guard arguments.count >= 4 else { fail("usage: RUNTIME-FOLDER COMMAND ARGUMENTS…") }
let location = CoordinationLocation(runtimeFolder: URL(fileURLWithPath: arguments[1]))
let command = arguments[2]
let file = URL(fileURLWithPath: arguments[3])

/// Writes `data` in place (truncate, then write in 4 KiB pieces), so that an uncoordinated
/// reader could see a half-written file.
func writeInPlace(_ data: Data, to url: URL) throws {
  let fd = open(url.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
  guard fd >= 0 else { throw POSIXError(.EIO) }
  defer { close(fd) }
  var offset = 0
  while offset < data.count {
    let piece = data[offset..<min(data.count, offset + 4096)]
    let written = piece.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    guard written > 0 else { throw POSIXError(.EIO) }
    offset += written
  }
}

final class HelperPresenter: FilePresenter {
  let url = Mutex<URL?>(nil)
  let unsaved = Mutex<String?>(nil)
  let location: CoordinationLocation
  var presentedItemURL: URL? { url.withLock { $0 } }

  init(url: URL, unsaved: String, location: CoordinationLocation) {
    self.url.withLock { $0 = url }
    self.unsaved.withLock { $0 = unsaved.isEmpty ? nil : unsaved }
    self.location = location
  }

  func savePresentedItemChanges(completionHandler: @escaping @Sendable ((any Error)?) -> Void) {
    say("save")
    guard let text = unsaved.withLock({ $0 }), let target = presentedItemURL else { return completionHandler(nil) }
    do {
      try FileCoordinator(filePresenter: self, location: location).coordinate(writingItemAt: target) { url in
        try writeInPlace(Data(text.utf8), to: url)
      }
      unsaved.withLock { $0 = nil }
      say("saved")
      completionHandler(nil)
    } catch {
      say("save-failed \(error)")
      completionHandler(error)
    }
  }

  func relinquishPresentedItem(toReader reader: @escaping @Sendable ((@Sendable () -> Void)?) -> Void) {
    say("relinquish-to-reader")
    reader { say("reacquire") }
  }

  func relinquishPresentedItem(toWriter writer: @escaping @Sendable ((@Sendable () -> Void)?) -> Void) {
    say("relinquish-to-writer")
    writer { say("reacquire") }
  }

  func accommodatePresentedItemDeletion(completionHandler: @escaping @Sendable ((any Error)?) -> Void) {
    say("deleted")
    completionHandler(nil)
  }

  func presentedItemDidMove(to newURL: URL) {
    url.withLock { $0 = newURL }
    say("moved \(newURL.path)")
  }

  func presentedItemDidChange() { say("changed") }

  func presentedSubitemDidChange(at url: URL) { say("subitem \(url.path)") }
}

do {
  switch command {
  case "increment":
    let count = Int(arguments.count > 4 ? arguments[4] : "") ?? 0
    let coordinator = FileCoordinator(location: location)
    for _ in 0..<count {
      try coordinator.coordinate(writingItemAt: file) { url in
        let text = (try? String(contentsOf: url, encoding: .utf8)) ?? "0"
        let value = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1_000_000
        try writeInPlace(Data("\(value + 1)\n".utf8), to: url)
      }
    }
  case "write-loop":
    let count = Int(arguments.count > 4 ? arguments[4] : "") ?? 0
    let coordinator = FileCoordinator(location: location)
    let letters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8)
    for index in 0..<count {
      let data = Data(repeating: letters[index % letters.count], count: 64 * 1024)
      try coordinator.coordinate(writingItemAt: file) { url in try writeInPlace(data, to: url) }
    }
  case "present":
    let presenter = HelperPresenter(url: file, unsaved: arguments.count > 4 ? arguments[4] : "", location: location)
    try FileCoordinator.addFilePresenter(presenter, location: location)
    say("ready")
    while readLine() != nil {}
    FileCoordinator.removeFilePresenter(presenter)
  case "hold-write":
    let coordinator = FileCoordinator(location: location)
    try coordinator.coordinate(writingItemAt: file) { url in
      try writeInPlace(Data(repeating: UInt8(ascii: "h"), count: 1000), to: url)
      say("holding")
      while true { sleep(60) }
    }
  case "hold-write-until-input":
    try FileCoordinator(location: location).coordinate(writingItemAt: file) { url in
      try writeInPlace(Data("half".utf8), to: url)
      say("holding")
      _ = readLine()
      try writeInPlace(Data("complete\n".utf8), to: url)
    }
    say("released")
    while readLine() != nil {}
  default:
    fail("unknown command '\(command)'")
  }
} catch {
  fail("\(error)")
}
