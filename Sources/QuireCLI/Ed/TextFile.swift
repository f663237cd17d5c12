import Foundation
import Glibc
import Quire

/// A text file as read: its bytes, and its lines as ed sees them.
struct TextFileContents {
  /// The bytes read (a document is opened from them, without a copy).
  var data: Data
  /// The bytes read, as an array.
  var bytes: [UInt8] { [UInt8](data) }
  /// The lines, without their newlines.
  var lines: [String] {
    var lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
    if !lacksFinalNewline { lines.removeLast() }
    return lines
  }
  /// The lines as bytes, exactly as read (NUL bytes and bytes that are not UTF-8 included).
  var byteLines: [[UInt8]] {
    var lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map(Array.init)
    if !lacksFinalNewline { lines.removeLast() }
    return lines
  }
  /// Drops a carriage return at the end of each line (ed's `--strip-trailing-cr`).
  mutating func stripTrailingCarriageReturns() {
    var lines = byteLines
    for index in lines.indices where lines[index].last == UInt8(ascii: "\r") { lines[index].removeLast() }
    data = Data(EdEngine.bytes(of: lines))
    lacksFinalNewline = false
    fingerprint = nil
  }
  /// Bytes read, as ed reports them.
  var byteCount: Int
  /// The last line had no newline (ed adds one when writing).
  var lacksFinalNewline: Bool
  /// The document layer's fingerprint of the file as read (what its conflict checks compare
  /// with); `nil` when the bytes are not the file's (a TextBundle's text, stripped CRs).
  var fingerprint: FileFingerprint?
}

/// Reading and writing text files for the line editor.
///
/// Reads check what the file is (a folder, a device, binary, not UTF-8) and say so; writes go
/// through the document layer's safe save (``writeAtomically(_:to:)``).
///
/// `openForReading` is the syscall seam: tests make it fail with `EACCES` (CI runs as root, where
/// `chmod 000` does not stop a read).
struct TextFileSystem: Sendable {
  /// Opens a path for reading; returns a file descriptor or -1 with `errno` set.
  var openForReading: @Sendable (String) -> Int32 = { path in open(path, O_RDONLY | O_CLOEXEC) }
  /// Whether files with NUL bytes or bytes that are not UTF-8 are read (as GNU ed reads them:
  /// the document holds them byte for byte). quire as a drop-in ed reads them; its own mode
  /// refuses them with a message, as it edits text.
  var readsAnyBytes = false

  init() {}

  /// Reads `url` as UTF-8 text lines.
  ///
  /// - Throws: ``EdError`` naming the file: missing, a folder, not readable, binary (NUL bytes)
  ///   or not UTF-8.
  func read(_ url: URL) throws(EdError) -> TextFileContents {
    let name = displayName(url)
    var info = stat()
    if stat(url.path, &info) != 0 {
      throw EdError("cannot open '\(name)': \(describe(errno))")
    }
    if (info.st_mode & S_IFMT) == S_IFDIR {
      throw EdError("'\(name)' is a folder, not a file; open a file inside it")
    }
    if (info.st_mode & S_IFMT) != S_IFREG {
      throw EdError("'\(name)' is not a regular file (a device, socket or pipe); quire edits text files")
    }
    let fd = openForReading(url.path)
    if fd < 0 { throw EdError("cannot read '\(name)': \(describe(errno))") }
    close(fd)
    let fingerprint: FileFingerprint
    let data: Data
    do {
      (fingerprint, data) = try FileFingerprint.read(at: url)
    } catch {
      throw EdError("cannot read '\(name)': \(REPLSession.message(for: error))")
    }
    // As a drop-in ed any bytes are read, and a large file's mapped copy is not searched here.
    if !readsAnyBytes {
      let hasNUL = data.withUnsafeBytes { raw in raw.baseAddress.map { memchr($0, 0, raw.count) != nil } ?? false }
      if hasNUL {
        throw EdError("'\(name)' is a binary file (it contains NUL bytes); quire edits text files only")
      }
      guard data.withUnsafeBytes({ String(validating: $0.bindMemory(to: UInt8.self), as: UTF8.self) != nil }) else {
        throw EdError("'\(name)' is not UTF-8 text; convert it first (e.g. with iconv)")
      }
    }
    let lacksNewline = !data.isEmpty && data.last != UInt8(ascii: "\n")
    return TextFileContents(data: data, byteCount: data.count, lacksFinalNewline: lacksNewline, fingerprint: fingerprint)
  }

  /// The bytes ed writes for `lines`: each line followed by a newline.
  /// `lines` as text, each followed by a newline.
  static func text(of lines: some Collection<String>) -> String {
    String(decoding: bytes(of: lines), as: UTF8.self)
  }

  static func bytes(of lines: some Collection<String>) -> [UInt8] {
    var bytes: [UInt8] = []
    for line in lines {
      bytes.append(contentsOf: line.utf8)
      bytes.append(UInt8(ascii: "\n"))
    }
    return bytes
  }

  /// Replaces `url` with `bytes` without ever leaving a partial file, through the document
  /// layer's safe save (``FileSaver``): a temporary file beside the target, `fsync`, the old
  /// mode and owner, `renameat2(RENAME_EXCHANGE)`, `fsync` of the folder; symbolic links are
  /// saved through to their target (as ed does) and hard-linked files are written in place.
  ///
  /// - Throws: ``EdError`` naming the file and what failed; the old file is untouched.
  /// A device or FIFO (or a link to one) is written through by the output-path rule.
  func writeAtomically(_ bytes: [UInt8], to url: URL) throws(EdError) {
    do {
      try FileSaver.writeOutput(Data(bytes), to: url)
    } catch {
      throw EdError(error.reason)
    }
  }

  /// Appends `bytes` to `url` (ed's `W`), creating it when missing: the document layer's
  /// ``FileSaver/appendOutput(_:to:)`` (a device or FIFO is written through).
  func append(_ bytes: [UInt8], to url: URL) throws(EdError) {
    do {
      try FileSaver.appendOutput(Data(bytes), to: url)
    } catch {
      throw EdError(error.reason)
    }
  }

  private func displayName(_ url: URL) -> String { url.path }

  private func describe(_ code: Int32) -> String {
    switch code {
    case ENOENT: return "no such file or folder"
    case EACCES, EPERM: return "permission denied"
    case EISDIR: return "it is a folder"
    case ENOSPC: return "the disk is full"
    case EROFS: return "the file system is read-only"
    default: return String(cString: strerror(code)).lowercased()
    }
  }
}
