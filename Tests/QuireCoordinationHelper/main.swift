// A helper process for the cross-process tests of QuireCoordination and QuireTransfer.
// Usage: quire-coordination-helper RUNTIME-FOLDER COMMAND ARGUMENTS…
//   increment COUNTER N        N coordinated read-increment-write cycles on COUNTER
//   write-loop FILE N          N coordinated in-place writes of 64 KiB of one repeated letter
//   present FILE UNSAVED       presents FILE holding UNSAVED as unsaved text; prints each
//                              message it gets, one per line (QuireTestSupport's
//                              RecordingPresenter); saves UNSAVED when asked; exits when
//                              standard input closes
//   hold-write FILE            takes write access, writes half a file, prints "holding", waits
//   hold-write-until-input FILE
//                              takes write access, writes "half", prints "holding", waits for a
//                              line on standard input, writes "complete\n", lets go, prints
//                              "released", then waits for standard input to close
// Every write is in place (QuireTestSupport's writeInPlace), so a reader that does not
// coordinate could see it half done.
import Foundation
import QuireCoordination
import QuireTestSupport

/// Prints one line at once (standard output is a pipe; nothing waits in a buffer).
@Sendable func say(_ line: String) {
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
    let unsaved = arguments.count > 4 && !arguments[4].isEmpty ? arguments[4] : nil
    let presenter = RecordingPresenter(file, location: location, unsavedText: unsaved, echo: say)
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
