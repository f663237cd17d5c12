import Foundation
import Glibc
import Quire

/// What a file held when quire last read or wrote it: size and a content hash.
///
/// A `w` compares the file's current fingerprint with this one to notice a save by someone
/// else (a size + hash comparison, so a `touch` is not a change and a same-size rewrite is).
struct FileFingerprint: Equatable, Sendable {
  var size: Int
  /// The document layer's content hash of the bytes (``ContentHash``): enough to notice a
  /// change, not a security measure.
  var hash: ContentHash

  init(size: Int, hash: ContentHash) {
    self.size = size
    self.hash = hash
  }

  init(of bytes: [UInt8]) {
    self.init(size: bytes.count, hash: bytes.withUnsafeBytes { ContentHash($0) })
  }

  /// The size and content hash of a document layer fingerprint.
  init(_ fingerprint: QuireDocuments.FileFingerprint) {
    self.init(size: fingerprint.size, hash: fingerprint.contentHash)
  }
}

/// The cheap identity of a file on disk (device, inode, size, modification time), checked before
/// every REPL command; a difference leads to the full ``FileFingerprint`` comparison.
struct FileStamp: Equatable, Sendable {
  var device: UInt64
  var inode: UInt64
  var size: Int64
  var modified: timespec

  static func == (lhs: FileStamp, rhs: FileStamp) -> Bool {
    lhs.device == rhs.device && lhs.inode == rhs.inode && lhs.size == rhs.size
      && lhs.modified.tv_sec == rhs.modified.tv_sec && lhs.modified.tv_nsec == rhs.modified.tv_nsec
  }
}

/// A text file as read: its bytes, and its lines as ed sees them.
struct TextFileContents {
  /// The bytes read (a document is opened from them): a large file's stay in the document
  /// layer's mapped scratch copy (``QuireDocuments/FileFingerprint/read(from:url:)``).
  var data: Data
  /// ``data`` as an array (a copy).
  var bytes: [UInt8] {
    get { [UInt8](data) }
    set { data = Data(newValue) }
  }
  /// The lines, without their newlines (split from ``bytes`` on each read; setting them
  /// replaces the bytes).
  var lines: [String] {
    get {
      var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
      if !lacksFinalNewline { lines.removeLast() }
      return lines
    }
    set {
      bytes = TextFileSystem.bytes(of: newValue)
      lacksFinalNewline = false
    }
  }
  /// The lines as bytes, exactly as read (NUL bytes and bytes that are not UTF-8 included).
  var byteLines: [[UInt8]] {
    var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map(Array.init)
    if !lacksFinalNewline { lines.removeLast() }
    return lines
  }
  /// Drops a carriage return at the end of each line (ed's `--strip-trailing-cr`).
  mutating func stripTrailingCarriageReturns() {
    var lines = byteLines
    for index in lines.indices where lines[index].last == UInt8(ascii: "\r") { lines[index].removeLast() }
    bytes = EdEngine.bytes(of: lines)
    lacksFinalNewline = false
  }
  /// Bytes read, as ed reports them.
  var byteCount: Int
  /// The last line had no newline (ed adds one when writing).
  var lacksFinalNewline: Bool
  var fingerprint: FileFingerprint
  var stamp: FileStamp?
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
    defer { close(fd) }
    let read: (fingerprint: QuireDocuments.FileFingerprint, contents: Data)
    do {
      read = try QuireDocuments.FileFingerprint.read(from: fd, url: url)
    } catch {
      throw EdError("cannot read '\(name)': \(REPLSession.message(for: error))")
    }
    let data = read.contents
    if !readsAnyBytes {
      let problem = data.withUnsafeBytes { TextStorage.firstTextProblem(in: $0) }
      if case .nul? = problem {
        throw EdError("'\(name)' is a binary file (it contains NUL bytes); quire edits text files only")
      }
      if case .invalidUTF8? = problem {
        throw EdError("'\(name)' is not UTF-8 text; convert it first (e.g. with iconv)")
      }
    }
    let lacksNewline = !data.isEmpty && data.last != UInt8(ascii: "\n")
    return TextFileContents(
      data: data, byteCount: data.count, lacksFinalNewline: lacksNewline,
      fingerprint: FileFingerprint(read.fingerprint), stamp: stamp(of: url))
  }

  /// The fingerprint of what is at `url` now, or `nil` when nothing is there.
  func fingerprint(of url: URL) -> FileFingerprint? {
    guard let current = try? QuireDocuments.FileFingerprint.current(at: url) else { return nil }
    return FileFingerprint(current)
  }

  /// The cheap identity of `url`, or `nil` when it does not exist.
  func stamp(of url: URL) -> FileStamp? {
    var info = stat()
    guard stat(url.path, &info) == 0 else { return nil }
    return FileStamp(
      device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size), modified: info.st_mtim)
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

  /// ``writeAtomically(_:to:)`` for a document's text, written from its chunks (never joined
  /// into one buffer) and hashed as it is written.
  ///
  /// - Returns: The fingerprint of what was written (`nil` for a device or FIFO).
  func writeAtomically(_ text: TextStorage, to url: URL) throws(EdError) -> FileFingerprint? {
    do {
      return try FileSaver.writeOutput(text, to: url).map { FileFingerprint($0.fingerprint) }
    } catch {
      throw EdError(error.reason)
    }
  }

  /// Appends `bytes` to `url` (ed's `W`), creating it when missing; a device or FIFO is
  /// written through by the output-path rule (a FIFO no one reads is refused, never waited on).
  func append(_ bytes: [UInt8], to url: URL) throws(EdError) {
    do {
      if case .special(let description) = try OutputPath.kind(of: url) {
        return try OutputPath.writeThrough(Data(bytes), to: url, description: description)
      }
    } catch {
      throw EdError(error.reason)
    }
    let fd = open(url.path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o666)
    if fd < 0 { throw EdError("cannot append to '\(displayName(url))': \(describe(errno))") }
    defer { close(fd) }
    var written = 0
    while written < bytes.count {
      let count = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, $0.count - written) }
      if count < 0 {
        if errno == EINTR { continue }
        throw EdError("cannot append to '\(displayName(url))': \(describe(errno))")
      }
      written += count
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
