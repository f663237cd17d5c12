internal import CQuireSystem
import Foundation
import QuireSystem
import Synchronization
import SystemPackage

/// Where the REPL reads its lines: libedit on a terminal, standard input in script mode, an
/// array in tests.
///
/// A line is a ``PathText`` string: bytes that are not UTF-8 (a file name, text for `a`, a
/// pattern) are carried, not replaced, and the ed engine works on the bytes they stand for,
/// as GNU ed does.
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
  private let descriptor: FileDescriptor
  /// Bytes read from a regular file; those before `start` are taken.
  private var pending: [UInt8] = []
  private var start = 0
  private var atEnd = false
  private let isSeekable: Bool
  /// ed discards a last line without its newline; quire's own script mode runs it.
  private let discardsIncompleteLastLine: Bool
  /// Runs before waiting for more input (the REPL flushes its output, so that a program
  /// driving it through pipes sees the answer to each command before sending the next).
  private let beforeWaiting: () -> Void

  init(fileDescriptor: Int32 = STDIN_FILENO, discardsIncompleteLastLine: Bool = false, beforeWaiting: @escaping () -> Void = {}) {
    descriptor = FileDescriptor(rawValue: fileDescriptor)
    self.discardsIncompleteLastLine = discardsIncompleteLastLine
    self.beforeWaiting = beforeWaiting
    isSeekable = SystemCalls.isRegularFile(FileDescriptor(rawValue: fileDescriptor))
  }

  func readLine(prompt: String) -> String? {
    isSeekable ? readBufferedLine() : readLineByteByByte()
  }

  /// A regular file: read in blocks, lines taken from the front of what was read.
  private func readBufferedLine() -> String? {
    while true {
      let from = start
      let found = pending.withUnsafeBytes { bytes -> Int? in
        guard from < bytes.count, let base = bytes.baseAddress,
          let hit = memchr(base + from, Int32(UInt8(ascii: "\n")), bytes.count - from)
        else { return nil }
        return base.distance(to: UnsafeRawPointer(hit))
      }
      if let newline = found {
        let line = PathText.string(bytes: pending[start..<newline])
        start = newline + 1
        return line
      }
      if atEnd {
        guard start < pending.count else { return nil }
        defer {
          pending.removeAll()
          start = 0
        }
        return discardsIncompleteLastLine ? nil : PathText.string(bytes: pending[start...])
      }
      // Drop the lines already taken before reading more.
      pending.removeSubrange(..<start)
      start = 0
      beforeWaiting()
      let old = pending.count
      pending.append(contentsOf: repeatElement(0, count: 1 << 16))
      // An error ends the input as its end does (EINTR is retried by the system layer).
      let count = (try? pending.withUnsafeMutableBytes { SystemCalls.read(descriptor, into: UnsafeMutableRawBufferPointer(rebasing: $0[old...])) }.get()) ?? 0
      pending.removeSubrange((old + count)...)
      if count == 0 { atEnd = true }
    }
  }

  /// A pipe or a device: one byte at a time, so that nothing past the line is taken from
  /// another reader of the same input (a shell command's).
  private func readLineByteByByte() -> String? {
    beforeWaiting()
    var line: [UInt8] = []
    while !atEnd {
      var byte: UInt8 = 0
      let count = (try? withUnsafeMutableBytes(of: &byte) { SystemCalls.read(descriptor, into: $0) }.get()) ?? 0
      if count == 0 {
        atEnd = true
        break
      }
      if byte == UInt8(ascii: "\n") { return PathText.string(bytes: line) }
      line.append(byte)
    }
    guard !line.isEmpty, !discardsIncompleteLastLine else { return nil }
    return PathText.string(bytes: line)
  }

  /// Gives back what was read past the current line, so that a child process that reads
  /// standard input starts at the script's next line.
  func prepareForChildProcess() {
    let unread = pending.count - start
    guard isSeekable, unread > 0 else { return }
    if case .success = SystemCalls.seek(descriptor, to: Int64(-unread), from: SEEK_CUR) {
      pending.removeAll()
      start = 0
      atEnd = false
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

/// Reads a session's ``LineSource`` on the system layer's ``BlockingExecutor`` (its lane
/// ``lane``, one read at a time), so that the session (on the main actor) awaits its next
/// command without holding the main actor or a thread of Swift's cooperative pool: autosave
/// timers and presenter requests run on the main actor meanwhile. A read waiting for the user
/// holds one of the executor's threads; the other lanes are served by others. Ctrl-C does not
/// depend on the thread: the terminal's reader polls the interrupt flag.
///
/// Lines are read only when asked for, one at a time (nothing is read ahead: a shell command
/// that shares standard input finds the script's next line where the session stopped).
///
/// `@unchecked Sendable`: the source is used only under `reading`, one read at a time; the
/// completion snapshot is behind a mutex.
final class LineReader: @unchecked Sendable {
  /// The executor's lane for the session's reads: one at a time, in order.
  static let lane = BlockingLane("quire.repl.input", limit: 1)
  private let source: any LineSource
  /// Held while the source reads: the session's next command (on the executor) and a line a
  /// running command reads (on the caller's thread) are never read at once.
  private let reading = NSLock()
  private let completionState = Mutex(Completion(commands: [], documents: [], templates: []))

  init(_ source: any LineSource) { self.source = source }

  /// What tab completion offers while a line is read (the terminal's completion callback runs
  /// on the reading thread, so it reads this snapshot rather than the session).
  var completion: Completion {
    get { completionState.withLock { $0 } }
    set { completionState.withLock { $0 = newValue } }
  }

  /// The next line, read on the executor's ``lane``.
  func nextLine(prompt: String) async -> String? {
    await withCheckedContinuation { continuation in
      BlockingExecutor.shared.submit(in: Self.lane) { continuation.resume(returning: self.read(prompt: prompt)) }
    }
  }

  /// The next line, waited for where the caller is: for lines a running command reads (text
  /// for `a`), when the caller's actor is busy with the command anyway.
  func nextLineNow(prompt: String) -> String? { read(prompt: prompt) }

  private func read(prompt: String) -> String? {
    reading.lock()
    defer { reading.unlock() }
    return source.readLine(prompt: prompt)
  }
}
