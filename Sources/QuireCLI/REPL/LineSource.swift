internal import CQuireSystem
import Foundation
import Synchronization

/// Where the REPL reads its lines: libedit on a terminal, standard input in script mode, an
/// array in tests.
protocol LineSource: AnyObject {
  /// The next line without its newline, or `nil` at the end of input (or after Ctrl-C, when
  /// ``Interrupt/isPending`` is set).
  func readLine(prompt: String) -> String?
  /// Records a command in the history (terminal only).
  func remember(_ line: String)
}

extension LineEditor: LineSource {}

/// Lines from a file descriptor, read without a terminal (script mode).
final class DescriptorLineSource: LineSource {
  private let handle: FileHandle
  private var pending: [UInt8] = []
  private var atEnd = false

  init(fileDescriptor: Int32 = STDIN_FILENO) {
    handle = FileHandle(fileDescriptor: fileDescriptor, closeOnDealloc: false)
  }

  func readLine(prompt: String) -> String? {
    while true {
      if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
        let line = String(decoding: pending[..<newline], as: UTF8.self)
        pending.removeSubrange(...newline)
        return line
      }
      if atEnd {
        guard !pending.isEmpty else { return nil }
        defer { pending.removeAll() }
        return String(decoding: pending, as: UTF8.self)
      }
      let data = handle.availableData
      if data.isEmpty { atEnd = true } else { pending.append(contentsOf: data) }
    }
  }

  func remember(_ line: String) {}
}

/// Lines from an array (tests).
final class ArrayLineSource: LineSource {
  private var lines: [String]
  init(_ lines: [String]) { self.lines = lines }
  func readLine(prompt: String) -> String? { lines.isEmpty ? nil : lines.removeFirst() }
  func remember(_ line: String) {}
}

/// A Ctrl-C flag: raised by the SIGINT handler (or by the Ctrl-C key while a line is read),
/// polled by the REPL to cancel the current command, never the session.
final class InterruptFlag: Sendable {
  private let flag = Atomic<Bool>(false)

  init() {}

  /// Whether Ctrl-C was pressed since the last ``clear()``.
  var isPending: Bool { flag.load(ordering: .relaxed) }

  /// Records an interrupt.
  func raise() { flag.store(true, ordering: .relaxed) }

  func clear() { flag.store(false, ordering: .relaxed) }
}

/// The process's SIGINT handling.
enum Interrupt {
  /// The flag the SIGINT handler raises.
  static let shared = InterruptFlag()

  /// Installs the handler for `signals` (without `SA_RESTART`, so a read waiting for a line
  /// returns).
  ///
  /// The handler (in CQuireSystem) also stops a regular-expression match in progress, which
  /// has no other way to be cancelled.
  static func install(for signals: [Int32] = [SIGINT]) {
    for signal in signals { cquire_install_interrupt_handler(signal) { Interrupt.shared.raise() } }
  }
}
