// The ed command parser (``EdCommand``, pure: every line is parsed first on its own), then the
// interpreter, regular expressions and replacements: every line of the input is one command,
// run on a small document held in memory, as the REPL runs it.
// Commands that reach files or the shell (e, E, r, w, W, !) become p, so the fuzzer never
// writes, reads or runs anything outside.
import Foundation
import FuzzDriver
import QuireDocuments
@testable import QuireCLI

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ input: UnsafeRawPointer?, _ count: Int) -> CInt {
  guard let start = input ?? UnsafeRawPointer(bitPattern: 1) else { return 0 }
  let bytes = UnsafeRawBufferPointer(start: start, count: count).map { byte -> UInt8 in
    switch byte {
    case UInt8(ascii: "e"), UInt8(ascii: "E"), UInt8(ascii: "r"), UInt8(ascii: "w"), UInt8(ascii: "W"), UInt8(ascii: "!"): UInt8(ascii: "p")
    default: byte
    }
  }
  waitOnMainActor { await run(bytes) }
  return 0
}

/// The controller the REPL's documents come from (one per process, as in a session).
@MainActor let controller = DocumentController()

/// Runs each line of `bytes` as a command on a five-line document (the engine and the
/// document are the main actor's, as in the REPL).
@MainActor
func run(_ bytes: [UInt8]) async {
  var lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
  // An untitled document of the session's kind: nothing is read or written for it.
  guard let buffer = try? DocumentLineBuffer(untitled: Data("alpha\nbeta beta\n\ngamma aaaa\ndelta\n".utf8), with: controller) else { return }
  // g/v with t or j can double the buffer per marked line (GNU ed too): work a user would stop
  // with Ctrl-C. The harness presses it after 200 ms or 20,000 lines, through the same check
  // the REPL's SIGINT uses, so a runaway command must be interruptible to pass.
  let output = FuzzOutput(buffer: buffer, deadline: ContinuousClock.now + .milliseconds(200))
  let engine = EdEngine(document: EdDocument(buffer: buffer, fileURL: nil), printsByteCounts: false, output: output)
  var executed = 0
  while !lines.isEmpty, executed < 64 {
    let line = lines.removeFirst()
    executed += 1
    // The parser alone, with no document: it must fail cleanly or give a command.
    _ = try? EdCommand.parse(line)
    _ = try? await engine.execute(line, input: { lines.isEmpty ? nil : lines.removeFirst() })
  }
}

/// Output that goes nowhere, and Ctrl-C pressed once the document grows past 20,000 lines or
/// the deadline passes.
@MainActor
final class FuzzOutput: EdOutput {
  let buffer: DocumentLineBuffer
  let deadline: ContinuousClock.Instant
  init(buffer: DocumentLineBuffer, deadline: ContinuousClock.Instant) {
    self.buffer = buffer
    self.deadline = deadline
  }
  func print(_ line: String) {}
  var isInterrupted: Bool { buffer.lineCount > 20_000 || ContinuousClock.now > deadline }
}

// SwiftPM links an executable's entry point as `<module>_main`: it hands over to libFuzzer.
@_cdecl("fuzz_ed_main")
func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
  runLibFuzzerServingTheMainActor(argc, argv) { fuzz($0, $1) }
}
