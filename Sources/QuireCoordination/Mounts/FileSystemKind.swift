public import Foundation
import QuireSystem
import Synchronization
public import SystemPackage

/// The kind of file system that holds an item, and what follows from it for watching and
/// locking: whether inotify hears every change made there, and whether a lock taken here
/// reaches other machines.
///
/// inotify hears only changes made through this machine's kernel. On NFS, SMB/CIFS and FUSE
/// file systems (sshfs, rclone, bindfs, cloud drives), a change made on the server, by another
/// client, or behind the mount (in a bindfs source folder) is never heard, so presenters of
/// items there are also polled (``PollingOptions``). Quire's locks are lock files on this
/// machine (under `XDG_RUNTIME_DIR`), so on such a mount they exclude processes of this
/// machine only.
///
/// The kind comes from `statfs(2)`'s magic number and `/proc/self/mountinfo`'s file system
/// type (with the FUSE subtype, such as `fuse.sshfs`), looked up once per mount (by device
/// number) and cached.
public struct FileSystemKind: Sendable, Hashable, CustomStringConvertible {
  /// The family of a file system.
  public enum Family: String, Sendable, Hashable, CaseIterable {
    /// A disk or memory file system of this machine (ext4, btrfs, xfs, tmpfs, …): inotify
    /// hears every change.
    case local
    /// NFS and other network or cluster file systems (9p, Ceph, AFS, CephFS, GlusterFS, Lustre).
    case network
    /// SMB/CIFS shares.
    case smb
    /// A FUSE file system (`fuse.sshfs`, `fuse.rclone`, `fuse.bindfs`, …). Block-device FUSE
    /// (`fuseblk`: ntfs-3g, exFAT) is ``local``.
    case fuse
    /// An overlay file system (containers): changes through it are heard; its layers belong
    /// to the container runtime.
    case overlay
  }

  /// The family: what the watching and locking decisions rest on.
  public let family: Family
  /// The file system's type as `/proc/self/mountinfo` names it, with a FUSE subtype
  /// (`ext4`, `nfs4`, `cifs`, `fuse.sshfs`, `overlay`), or `statfs` magic's name when the
  /// mount table does not list it.
  public let type: String
  /// Where it is mounted, when the mount table says.
  public let mountPoint: String?

  /// Makes a kind from its parts.
  public init(family: Family, type: String, mountPoint: String? = nil) {
    self.family = family
    self.type = type
    self.mountPoint = mountPoint
  }

  /// Whether inotify may miss changes there (made on a server, by another client, or behind
  /// a FUSE mount), so presenters of items there are polled as well.
  public var needsPolling: Bool { family == .network || family == .smb || family == .fuse }

  /// Whether Quire's locks exclude processes of other machines there. They never do on a
  /// network or FUSE mount: the lock files are this machine's.
  public var locksReachOtherMachines: Bool { !needsPolling }

  /// `type`, with the mount point when known: `fuse.sshfs at /home/u/remote`.
  public var description: String { mountPoint.map { "\(type) at \($0)" } ?? type }

  /// The kind of file system that holds `path` (the nearest existing folder above it when it
  /// does not exist yet), cached per mount. `local` when it cannot be looked at.
  public static func of(_ path: FilePath) -> FileSystemKind {
    MountTable.shared.kind(of: path)
  }

  /// ``of(_:)`` of a file URL.
  public static func of(_ url: URL) -> FileSystemKind {
    MountTable.shared.kind(of: FilePath(url.standardizedFileURL.path))
  }

  /// The kind of a file system from its `statfs(2)` magic number alone (`f_type`), or nil
  /// for one that is not known here (then taken as local).
  public static func family(forMagic magic: Int64) -> (family: Family, type: String)? {
    switch UInt32(truncatingIfNeeded: magic) {
    case 0x6969: (.network, "nfs")
    case 0x0102_1997: (.network, "9p")
    case 0x00C3_6400: (.network, "ceph")
    case 0x5346_414F, 0x6B41_4653: (.network, "afs")
    case 0x7375_7245: (.network, "coda")
    case 0x564C: (.network, "ncp")
    case 0x0BD0_0BD0: (.network, "lustre")
    case 0x517B: (.smb, "smb")
    case 0xFF53_4D42: (.smb, "cifs")
    case 0xFE53_4D42: (.smb, "smb2")
    case 0x6573_5546: (.fuse, "fuse")
    case 0x794C_7630: (.overlay, "overlay")
    case 0xEF53: (.local, "ext4")
    case 0x9123_683E: (.local, "btrfs")
    case 0x5846_5342: (.local, "xfs")
    case 0x0102_1994: (.local, "tmpfs")
    default: nil
    }
  }

  /// The family of a file system type as `/proc/self/mountinfo` names it (`nfs4`, `cifs`,
  /// `fuse.sshfs`, `fuseblk`, `overlay`, `ext4`).
  public static func family(forType type: String) -> Family {
    switch type {
    case "nfs", "nfs4", "9p", "ceph", "afs", "kafs", "coda", "ncpfs", "lustre", "gfs2", "ocfs2", "glusterfs", "beegfs", "gpfs":
      return .network
    case "cifs", "smb3", "smbfs": return .smb
    case "overlay", "overlayfs": return .overlay
    default:
      if type.hasPrefix("fuseblk") { return .local }
      if type == "fuse" || type.hasPrefix("fuse.") { return .fuse }
      return .local
    }
  }
}

/// One line of `/proc/self/mountinfo` (see proc(5)): a mount's device, root, mount point and
/// file system type.
public struct MountInfoEntry: Sendable, Hashable {
  /// The mount's id and its parent's.
  public let mountID: Int
  public let parentID: Int
  /// The device number of the file system (`st_dev` of its files), as major and minor.
  public let major: UInt32
  public let minor: UInt32
  /// The folder of the file system that is mounted (`/` for the whole of it; a bind mount's
  /// source folder otherwise).
  public let root: String
  /// Where it is mounted, with the table's octal escapes (`\040`) decoded.
  public let mountPoint: String
  /// The file system type with its subtype (`fuse.sshfs`), as the table writes it.
  public let type: String
  /// The mount source (`server:/export`, `//server/share`, `user@host:`, a device).
  public let source: String

  /// Reads one line of `/proc/self/mountinfo`; nil when it is not one.
  ///
  /// The form: `ID PARENT MAJOR:MINOR ROOT MOUNTPOINT OPTIONS [OPTIONAL…] - TYPE SOURCE SUPEROPTIONS`.
  public init?(line: String) {
    let fields = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
    guard fields.count >= 7, let separator = fields.firstIndex(of: "-"), separator >= 6, fields.count >= separator + 3,
      let mountID = Int(fields[0]), let parentID = Int(fields[1])
    else { return nil }
    let device = fields[2].split(separator: ":")
    guard device.count == 2, let major = UInt32(device[0]), let minor = UInt32(device[1]) else { return nil }
    self.mountID = mountID
    self.parentID = parentID
    self.major = major
    self.minor = minor
    self.root = Self.unescaped(fields[3])
    self.mountPoint = Self.unescaped(fields[4])
    self.type = Self.unescaped(fields[separator + 1])
    self.source = Self.unescaped(fields[separator + 2])
  }

  /// The kind of file system this mount is.
  public var kind: FileSystemKind {
    FileSystemKind(family: FileSystemKind.family(forType: type), type: type, mountPoint: mountPoint)
  }

  /// Reads every line of a mountinfo text, skipping those that are not entries.
  public static func entries(in text: String) -> [MountInfoEntry] {
    text.split(separator: "\n").compactMap { MountInfoEntry(line: String($0)) }
  }

  /// Decodes the table's escapes: `\040` (space), `\011` (tab), `\012` (newline), `\134`
  /// (backslash), any byte as three octal digits.
  static func unescaped(_ field: String) -> String {
    guard field.contains("\\") else { return field }
    var bytes: [UInt8] = []
    let source = Array(field.utf8)
    var index = 0
    while index < source.count {
      if source[index] == UInt8(ascii: "\\"), index + 4 <= source.count {
        let digits = source[(index + 1)..<(index + 4)]
        if digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "7") }) {
          let value = digits.reduce(0) { $0 * 8 + Int($1 - UInt8(ascii: "0")) }
          if value <= 255 {
            bytes.append(UInt8(value))
            index += 4
            continue
          }
        }
      }
      bytes.append(source[index])
      index += 1
    }
    return PathText.string(bytes: bytes)
  }
}

/// The mount table, read from `/proc/self/mountinfo` when a device is met for the first time,
/// and each device's ``FileSystemKind``, cached.
final class MountTable: Sendable {
  static let shared = MountTable()

  private let kinds = Mutex<[UInt64: FileSystemKind]>([:])

  func kind(of path: FilePath) -> FileSystemKind {
    // The item, or the nearest folder above it that exists (a file not made yet).
    var current = path
    var info: FileStatus?
    while true {
      if case .success(let found) = SystemCalls.stat(current) {
        info = found
        break
      }
      let parent = current.removingLastComponent()
      if parent == current || parent.isEmpty { break }
      current = parent
    }
    guard let info else { return FileSystemKind(family: .local, type: "unknown") }
    let device = UInt64(info.st_dev)
    if let known = kinds.withLock({ $0[device] }) { return known }
    let kind = Self.classify(path: current, device: device)
    kinds.withLock { $0[device] = kind }
    return kind
  }

  /// The kind of the file system of `device`, which holds `path`: the mount table's entry
  /// for the device (the longest mount point above `path` when several are), else the
  /// `statfs` magic's.
  static func classify(path: FilePath, device: UInt64) -> FileSystemKind {
    let magic: (family: FileSystemKind.Family, type: String)? =
      if case .success(let type) = SystemCalls.fileSystemType(path) {
        FileSystemKind.family(forMagic: type)
      } else { nil }
    let entries = readMountInfo()
    let (major, minor) = split(device)
    let text = PathText.string(path)
    let candidates = entries.filter { $0.major == major && $0.minor == minor }
    let best =
      candidates.filter { entry in
        entry.mountPoint == "/" || text == entry.mountPoint || text.hasPrefix(entry.mountPoint + "/")
      }.max { $0.mountPoint.count < $1.mountPoint.count } ?? candidates.last
    if let best {
      var kind = best.kind
      // The magic is the kernel's word: a FUSE file system the table names oddly is FUSE.
      if let magic, magic.family != .local, kind.family == .local {
        kind = FileSystemKind(family: magic.family, type: best.type, mountPoint: best.mountPoint)
      }
      return kind
    }
    if let magic { return FileSystemKind(family: magic.family, type: magic.type) }
    return FileSystemKind(family: .local, type: "unknown")
  }

  /// The major and minor numbers of a device number (glibc's `gnu_dev_major`/`minor`).
  static func split(_ device: UInt64) -> (UInt32, UInt32) {
    let major = ((device >> 8) & 0xFFF) | ((device >> 32) & ~UInt64(0xFFF))
    let minor = (device & 0xFF) | ((device >> 12) & ~UInt64(0xFF))
    return (UInt32(truncatingIfNeeded: major), UInt32(truncatingIfNeeded: minor))
  }

  private static func readMountInfo() -> [MountInfoEntry] {
    guard case .success(let fd) = SystemCalls.open(FilePath("/proc/self/mountinfo"), O_RDONLY) else { return [] }
    defer { SystemCalls.release(fd) }
    guard case .success(let data) = SystemCalls.readAll(fd) else { return [] }
    return MountInfoEntry.entries(in: String(decoding: data, as: UTF8.self))
  }
}
