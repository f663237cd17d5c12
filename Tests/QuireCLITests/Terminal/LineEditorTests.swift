import Foundation
import Testing

@testable import QuireCLI

@Suite("libedit: line input without a terminal")
struct LineEditorTests {
  @Test func readsLinesFromAPipe() throws {
    var fds: [Int32] = [0, 0]
    #expect(pipe(&fds) == 0)
    let input = "open notes.md\n1,$p\n"
    _ = input.withCString { write(fds[1], $0, strlen($0)) }
    close(fds[1])
    let devNull = open("/dev/null", O_WRONLY)
    defer {
      close(devNull)
      close(fds[0])
    }
    let editor = try LineEditor(program: "quire-test", input: fds[0], output: devNull)
    #expect(editor.readLine(prompt: "> ") == "open notes.md")
    #expect(editor.readLine(prompt: "> ") == "1,$p")
    #expect(editor.readLine(prompt: "> ") == nil)
  }

  @Test func keepsAndSavesHistory() throws {
    let devNull = open("/dev/null", O_RDWR)
    defer { close(devNull) }
    let editor = try LineEditor(program: "quire-test", input: devNull, output: devNull)
    editor.remember("first")
    editor.remember("   ")
    editor.remember("second")
    #expect(editor.historyCount == 2)
    let path = NSTemporaryDirectory() + "/quire-history-\(getpid())"
    defer { unlink(path) }
    try editor.saveHistory(to: path)
    let other = try LineEditor(program: "quire-test", input: devNull, output: devNull)
    other.loadHistory(from: path)
    #expect(other.historyCount == 2)
  }
}
