public import Foundation
import QuireSystem
import SystemPackage

/// A lock file that another editor keeps beside a file it has open.
///
/// - Emacs: `.#NAME`, a symbolic link (or, where links fail, a file) whose target is
///   `USER@HOST.PID:BOOT`.
/// - Vim: `.NAME.swp`, a swap file whose first block records the pid, user and host.
/// - LibreOffice: `.~lock.NAME#`, a text line `NAME,HOST,USER,DATE,PROFILE;`.
///
/// A lock whose process is known to be gone from this machine is reported as stale.
public struct ForeignEditorLock: Sendable, Hashable, CustomStringConvertible {
  /// The editors whose lock files are recognised.
  public enum Editor: String, Sendable, Hashable {
    case emacs = "Emacs"
    case vim = "Vim"
    case libreOffice = "LibreOffice"
  }

  /// Which editor left the lock.
  public var editor: Editor
  /// The lock file.
  public var lockFile: URL
  /// The editor's process id, when the lock records one.
  public var processID: Int32?
  /// Who holds it (`user@host`, or LibreOffice's user name), when recorded.
  public var owner: String?
  /// Whether the holding process is known to be gone (same host, no such process).
  public var isStale: Bool

  public var description: String {
    var parts = ["\(editor.rawValue) lock '\(lockFile.lastPathComponent)'"]
    if let owner { parts.append("by \(owner)") }
    if let processID { parts.append("process \(processID)") }
    if isStale { parts.append("(stale: that process is gone)") }
    return parts.joined(separator: " ")
  }

  /// This machine's name (`gethostname(2)`), as editors write it into their locks.
  static var hostName: String {
    var buffer = [CChar](repeating: 0, count: 256)
    guard gethostname(&buffer, buffer.count - 1) == 0 else { return "" }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// The lock files other editors keep for `url`, stale ones included.
  public static func locks(for url: URL) -> [ForeignEditorLock] {
    let folder = url.deletingLastPathComponent()
    let name = url.lastPathComponent
    var found: [ForeignEditorLock] = []
    func isStale(pid: Int32?, onHost owner: String?) -> Bool {
      guard let pid, let owner else { return false }
      let lockHost = owner.split(separator: "@").last.map(String.init) ?? ""
      let host = hostName
      guard lockHost == host || lockHost == host.split(separator: ".").first.map(String.init) else { return false }
      return !SystemCalls.processExists(pid)
    }

    // Emacs: `.#NAME` -> "user@host.pid:boot"
    let emacs = folder.appendingPathComponent(".#" + name)
    var target: String?
    if case .success(let info) = SystemCalls.lstat(FilePath(emacs.path)) {
      if info.st_mode & S_IFMT == S_IFLNK {
        target = try? FileManager.default.destinationOfSymbolicLink(atPath: emacs.path)
      } else if info.st_mode & S_IFMT == S_IFREG, info.st_size < 4096 {
        target = try? String(contentsOf: emacs, encoding: .utf8)
      }
    }
    if let target {
      let body = target.split(separator: ":").first.map(String.init) ?? target
      var owner: String? = body
      var pid: Int32?
      if let dot = body.lastIndex(of: "."), let value = Int32(body[body.index(after: dot)...]) {
        pid = value
        owner = String(body[..<dot])
      }
      found.append(ForeignEditorLock(editor: .emacs, lockFile: emacs, processID: pid, owner: owner, isStale: isStale(pid: pid, onHost: owner)))
    }

    // Vim: `.NAME.swp`, block 0: "b0", version[10], page size[4], mtime[4], inode[4],
    // pid[4] at 24, user[40] at 28, host[40] at 68.
    let vim = folder.appendingPathComponent("." + name + ".swp")
    if case .success(let fd) = SystemCalls.open(FilePath(vim.path), O_RDONLY | O_NONBLOCK | O_NOFOLLOW).map(\.rawValue) {
      let bytes = SystemCalls.read(FileDescriptor(rawValue: fd), count: 108, at: 0)
      SystemCalls.release(FileDescriptor(rawValue: fd))
      if bytes.count >= 108, bytes[0] == UInt8(ascii: "b"), bytes[1] == UInt8(ascii: "0") {
        let pid = Int32(bitPattern: UInt32(bytes[24]) | UInt32(bytes[25]) << 8 | UInt32(bytes[26]) << 16 | UInt32(bytes[27]) << 24)
        func text(_ range: Range<Int>) -> String { String(decoding: bytes[range].prefix { $0 != 0 }, as: UTF8.self) }
        let owner = "\(text(28..<68))@\(text(68..<108))"
        found.append(
          ForeignEditorLock(
            editor: .vim, lockFile: vim, processID: pid > 0 ? pid : nil, owner: owner,
            isStale: isStale(pid: pid > 0 ? pid : nil, onHost: owner)))
      } else {
        found.append(ForeignEditorLock(editor: .vim, lockFile: vim, processID: nil, owner: nil, isStale: false))
      }
    }

    // LibreOffice: `.~lock.NAME#` -> "Name,host,user,date,profile;"
    let office = folder.appendingPathComponent(".~lock." + name + "#")
    if case .success(let fd) = SystemCalls.open(FilePath(office.path), O_RDONLY | O_NONBLOCK | O_NOFOLLOW).map(\.rawValue) {
      let bytes = SystemCalls.read(FileDescriptor(rawValue: fd), count: 4096, at: 0)
      SystemCalls.release(FileDescriptor(rawValue: fd))
      let fields = String(decoding: bytes, as: UTF8.self).split(separator: ",", omittingEmptySubsequences: false)
      let owner = fields.count > 2 ? "\(fields[2])@\(fields[1])" : nil
      found.append(ForeignEditorLock(editor: .libreOffice, lockFile: office, processID: nil, owner: owner, isStale: false))
    }
    return found
  }
}
