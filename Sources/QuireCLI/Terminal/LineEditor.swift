internal import CEdit
import Foundation
import QuireSystem
import QuireTypes
import SystemPackage

/// Line input through libedit: editing keys, history and (later) completion.
///
/// libedit is BSD-licensed and ships in Debian as `libedit2`; it offers what readline does
/// for a REPL. The `EditLine` and `History` handles are owned here and released in `deinit`.
/// Not `Sendable`: one thread reads lines.
final class LineEditor {
  /// The only holders of the libedit handles and the stdio streams they read and write.
  private let editLine: OpaquePointer
  private let history: OpaquePointer
  private let input: UnsafeMutablePointer<FILE>
  private let output: UnsafeMutablePointer<FILE>
  /// The prompt as a C string that stays alive while libedit may read it.
  private var promptStorage: [CChar] = [0]
  /// Completes the text before the cursor: returns the candidate words that may replace the
  /// word being typed (set with ``enableCompletion(_:)``).
  private var completer: ((String) -> [String])?

  /// Starts libedit on file descriptors `input` and `output` (duplicated; the originals stay open).
  ///
  /// Works when `input` is not a terminal: libedit then reads plain lines without editing.
  init(program: String, input inputFD: Int32 = STDIN_FILENO, output outputFD: Int32 = STDOUT_FILENO) throws {
    guard let input = fdopen(dup(inputFD), "r") else {
      throw QuireError(.systemCallFailed, "Cannot read commands: standard input could not be opened (\(QuireError.describe(Errno(rawValue: errno)))).")
    }
    guard let output = fdopen(dup(outputFD), "w") else {
      fclose(input)
      throw QuireError(.systemCallFailed, "Cannot write to the terminal: \(QuireError.describe(Errno(rawValue: errno))).")
    }
    guard let editLine = el_init(program, input, output, output) else {
      fclose(input)
      fclose(output)
      throw QuireError(.libraryFailure, "libedit could not start line editing.")
    }
    guard let history = history_init() else {
      el_end(editLine)
      fclose(input)
      fclose(output)
      throw QuireError(.libraryFailure, "libedit could not start a command history.")
    }
    self.editLine = editLine
    self.history = history
    self.input = input
    self.output = output
    var event = HistEvent()
    _ = cedit_history_set_size(history, &event, 1000)
    _ = cedit_set_history(editLine, history)
    _ = cedit_set_editor(editLine, "emacs")
    _ = cedit_set_clientdata(editLine, Unmanaged.passUnretained(self).toOpaque())
    _ = cedit_set_prompt(editLine) { el in
      guard let el, let data = cedit_get_clientdata(el) else { return nil }
      let editor = Unmanaged<LineEditor>.fromOpaque(data).takeUnretainedValue()
      return editor.promptStorage.withUnsafeMutableBufferPointer { $0.baseAddress }
    }
  }

  deinit {
    el_end(editLine)
    history_end(history)
    fclose(input)
    fclose(output)
  }

  /// Reads one line, without its newline, showing `prompt`; `nil` at end of input.
  func readLine(prompt: String) -> String? {
    promptStorage = Array(prompt.utf8CString)
    var count: Int32 = 0
    guard let line = el_gets(editLine, &count), count > 0 else { return nil }
    // The bytes typed, carried as they are (see `PathText`): a name that is not UTF-8 stays that name.
    var text = PathText.string(bytes: UnsafeRawBufferPointer(start: line, count: strlen(line)))
    if text.hasSuffix("\n") { text.removeLast() }
    return text
  }

  /// Binds the tab key to `completer`, which gets the line up to the cursor and returns the
  /// candidates for the word being typed there.
  ///
  /// One candidate is inserted; several insert their common prefix, or are listed when there is
  /// none to insert.
  func enableCompletion(_ completer: @escaping (String) -> [String]) {
    self.completer = completer
    _ = cedit_add_function(editLine, "quire-complete", "Complete commands, paths and names") { el, _ in
      guard let el, let data = cedit_get_clientdata(el) else { return UInt8(CC_ERROR) }
      let editor = Unmanaged<LineEditor>.fromOpaque(data).takeUnretainedValue()
      return editor.complete()
    }
    _ = cedit_bind(editLine, "^I", "quire-complete")
  }

  private func complete() -> UInt8 {
    guard let completer, let info = el_line(editLine) else { return UInt8(CC_ERROR) }
    guard let start = UnsafeRawPointer(info.pointee.buffer), let cursor = UnsafeRawPointer(info.pointee.cursor) else {
      return UInt8(CC_ERROR)
    }
    let length = cursor - start
    let before = String(decoding: UnsafeRawBufferPointer(start: start, count: max(length, 0)), as: UTF8.self)
    let word = String(before.split(separator: " ", omittingEmptySubsequences: false).last ?? "")
    let candidates = completer(before)
    guard !candidates.isEmpty else { return UInt8(CC_REFRESH_BEEP) }
    let common = candidates.dropFirst().reduce(candidates[0]) { prefix, candidate in
      String(zip(prefix, candidate).prefix { $0 == $1 }.map(\.0))
    }
    var insertion = common.hasPrefix(word) ? String(common.dropFirst(word.count)) : ""
    if candidates.count == 1, !common.hasSuffix("/") { insertion += " " }
    if !insertion.isEmpty {
      _ = el_insertstr(editLine, insertion)
      return UInt8(CC_REFRESH)
    }
    let shown: [String] = candidates.map { candidate in
      let last: String = candidate.split(separator: "/").last.map(String.init) ?? candidate
      return candidate.hasSuffix("/") ? last + "/" : last
    }
    let listing = "\n" + shown.joined(separator: "  ") + "\n"
    fputs(listing, output)
    fflush(output)
    return UInt8(CC_REDISPLAY)
  }

  /// Binds Ctrl-C to `interrupt` and ends the line being read (``readLine(prompt:)`` returns
  /// `nil`), so Ctrl-C cancels a line or text input; libedit's terminal mode turns `ISIG`
  /// off while reading, so no SIGINT arrives then.
  func cancelLineOnControlC(isInterrupted: @escaping () -> Bool, interrupt: @escaping () -> Void) {
    self.interrupt = interrupt
    self.isInterrupted = isInterrupted
    _ = cedit_add_function(editLine, "quire-cancel", "Cancel the line (Ctrl-C)") { el, _ in
      guard let el, let data = cedit_get_clientdata(el) else { return UInt8(CC_EOF) }
      let editor = Unmanaged<LineEditor>.fromOpaque(data).takeUnretainedValue()
      editor.interrupt?()
      return UInt8(CC_EOF)
    }
    _ = cedit_bind(editLine, "^C", "quire-cancel")
    _ = cedit_set_getcfn(editLine) { el, character in
      guard let el, let character, let data = cedit_get_clientdata(el) else { return -1 }
      let editor = Unmanaged<LineEditor>.fromOpaque(data).takeUnretainedValue()
      return editor.readCharacter(into: character)
    }
  }

  /// Reads one UTF-8 character from the input for libedit: 1 with a character, 0 at the end
  /// of input, -1 on an error or when a signal (Ctrl-C) interrupts the read.
  private func readCharacter(into character: UnsafeMutablePointer<wchar_t>) -> Int32 {
    let fd = FileDescriptor(rawValue: fileno(input))
    /// A byte, or -1 at the end, -2 when interrupted, -3 on an error.
    func readByte() -> Int {
      var byte: UInt8 = 0
      while true {
        // SIGINT may be delivered to any thread, so a read on this one is not always
        // interrupted: wait in short polls and look at the interrupt flag between them.
        let ready = SystemCalls.waitReadable([fd], milliseconds: 100)[0]
        if isInterrupted() { return -2 }
        if !ready { continue }
        switch withUnsafeMutableBytes(of: &byte, { SystemCalls.read(fd, into: $0) }) {
        case .success(1): return Int(byte)
        case .success: return -1
        case .failure: return -3
        }
      }
    }
    let first = readByte()
    if first == 3, let interrupt {
      // Ctrl-C arrives as a byte while libedit has the terminal (its mode turns ISIG off, and
      // it binds the key to a no-op): end the read so the line is cancelled.
      interrupt()
      return -1
    }
    if first == -1 { return 0 }
    if first < 0 { return -1 }
    var scalar = first
    var remaining = 0
    if first >= 0xF0 {
      scalar = first & 0x07
      remaining = 3
    } else if first >= 0xE0 {
      scalar = first & 0x0F
      remaining = 2
    } else if first >= 0xC0 {
      scalar = first & 0x1F
      remaining = 1
    }
    while remaining > 0 {
      let next = readByte()
      if next == -1 { return 0 }
      if next < 0 { return -1 }
      scalar = (scalar << 6) | (next & 0x3F)
      remaining -= 1
    }
    character.pointee = wchar_t(truncatingIfNeeded: scalar)
    return 1
  }

  private var interrupt: (() -> Void)?
  private var isInterrupted: () -> Bool = { false }

  /// Forgets a partly typed line (after Ctrl-C).
  func reset() { el_reset(editLine) }

  /// Adds `line` to the history (skipping blank lines).
  func remember(_ line: String) {
    guard !line.trimmingCharacters(in: .whitespaces).isEmpty else { return }
    var event = HistEvent()
    _ = cedit_history_enter(history, &event, line)
  }

  /// How many lines the history holds.
  var historyCount: Int {
    var event = HistEvent()
    return cedit_history_count(history, &event) < 0 ? 0 : Int(event.num)
  }

  /// Saves the history to `path` (libedit's format).
  func saveHistory(to path: String) throws {
    var event = HistEvent()
    guard cedit_history_save(history, &event, path) >= 0 else {
      throw QuireError(.systemCallFailed, "Cannot save the command history to '\(path)'.")
    }
  }

  /// Saves the history to the open stream of `fd` (which the caller opened without following
  /// symbolic links, mode 0600); `fd` is closed.
  func saveHistory(toDescriptor fd: Int32) throws {
    guard let stream = fdopen(fd, "w") else {
      let reason = QuireError.describe(Errno(rawValue: errno))  // read before the close below can change errno
      SystemCalls.release(FileDescriptor(rawValue: fd))
      throw QuireError(.systemCallFailed, "Cannot save the command history: \(reason).")
    }
    defer { fclose(stream) }
    var event = HistEvent()
    guard cedit_history_save_fp(history, &event, stream) >= 0 else {
      throw QuireError(.systemCallFailed, "Cannot save the command history.")
    }
  }

  /// Loads history from `path`; a missing file is not an error.
  func loadHistory(from path: String) {
    var event = HistEvent()
    _ = cedit_history_load(history, &event, path)
  }
}
