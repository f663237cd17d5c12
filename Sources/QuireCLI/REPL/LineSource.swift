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
  /// Called before a shell command that shares standard input starts.
  func prepareForChildProcess()
}

extension LineSource {
  func prepareForChildProcess() {}
}

extension LineEditor: LineSource {}

/// Lines from a file descriptor, read without a terminal (script mode).
///
/// A shell command (`!cmd`) shares standard input with the session, as with ed: it must find
/// the script's next line where the session stopped reading. A regular file is read in blocks
/// and rewound to the next unread line before a command starts (``prepareForChildProcess()``);
/// a pipe is read a byte at a time, as ed reads it, so nothing past the line is taken.
final class DescriptorLineSource: LineSource {
  private let fd: Int32
  private var pending: [UInt8] = []
  private var atEnd = false
  private let isSeekable: Bool
  /// ed discards a last line without its newline; quire's own script mode runs it.
  private let discardsIncompleteLastLine: Bool

  init(fileDescriptor: Int32 = STDIN_FILENO, discardsIncompleteLastLine: Bool = false) {
    fd = fileDescriptor
    self.discardsIncompleteLastLine = discardsIncompleteLastLine
    var info = stat()
    isSeekable = fstat(fileDescriptor, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
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
        return discardsIncompleteLastLine ? nil : String(decoding: pending, as: UTF8.self)
      }
      var block = [UInt8](repeating: 0, count: isSeekable ? 1 << 16 : 1)
      let count = block.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if count < 0 && errno == EINTR { continue }
      if count <= 0 { atEnd = true } else { pending.append(contentsOf: block[..<count]) }
    }
  }

  /// Gives back what was read past the current line, so that a child process that reads
  /// standard input starts at the script's next line.
  func prepareForChildProcess() {
    guard isSeekable, !pending.isEmpty else { return }
    if lseek(fd, off_t(-pending.count), SEEK_CUR) >= 0 { pending.removeAll() }
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

  /// Installs the handler (without `SA_RESTART`, so a read waiting for a line returns).
  static func install() {
    var action = sigaction()
    action.__sigaction_handler.sa_handler = { _ in Interrupt.shared.raise() }
    sigemptyset(&action.sa_mask)
    action.sa_flags = 0
    sigaction(SIGINT, &action, nil)
  }
}
