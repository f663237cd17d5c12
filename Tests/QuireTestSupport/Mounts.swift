public import Foundation
import Synchronization

/// A FUSE mount a test makes (bindfs of a folder, or sshfs to an sshd the test starts), so
/// that a test can change files behind the mount (in the source folder) as another machine
/// would. Unmount it (``unmount()``) before the folder holding it is removed: suites do it in
/// their `deinit`, which runs before ``FolderSuite``'s.
public final class FUSEMount: Sendable {
  /// The folder the test changes behind the mount.
  public let source: URL
  /// The mounted view of it.
  public let view: URL
  private let sshd: Mutex<RunningProcess?>
  private let mounted = Mutex(true)

  private init(source: URL, view: URL, sshd: RunningProcess?) {
    self.source = source
    self.view = view
    self.sshd = Mutex(sshd)
  }

  /// Why FUSE mounts cannot be made here, or nil when they can (root, `/dev/fuse`,
  /// `fusermount3`).
  public static var unavailableReason: String? {
    if geteuid() != 0 { return "mounting FUSE file systems needs root (CI runs as root)" }
    if !FileManager.default.fileExists(atPath: "/dev/fuse") { return "/dev/fuse is missing (no FUSE in this kernel or container)" }
    if !Programs.isInstalled("/usr/bin/fusermount3") { return "fusermount3 is not installed (apt-get install fuse3)" }
    return nil
  }

  /// Why bindfs mounts cannot be made here, or nil when they can.
  public static var bindfsUnavailableReason: String? {
    unavailableReason ?? (Programs.isInstalled("/usr/bin/bindfs") ? nil : "bindfs is not installed (apt-get install bindfs)")
  }

  /// Why sshfs mounts to 127.0.0.1 cannot be made here, or nil when they can.
  public static var sshfsUnavailableReason: String? {
    if let reason = unavailableReason { return reason }
    if !Programs.isInstalled("/usr/bin/sshfs") { return "sshfs is not installed (apt-get install sshfs)" }
    if !Programs.isInstalled("/usr/sbin/sshd") { return "sshd is not installed (apt-get install openssh-server)" }
    if !Programs.isInstalled("/usr/bin/ssh-keygen") { return "ssh-keygen is not installed (apt-get install openssh-client)" }
    return nil
  }

  /// Mounts `source` at `view` (made when missing) with bindfs.
  public static func bindfs(_ source: URL, at view: URL) throws -> FUSEMount {
    try FileManager.default.createDirectory(at: view, withIntermediateDirectories: true)
    let result = try ChildProcess.runBlocking(URL(fileURLWithPath: "/usr/bin/bindfs"), [source.path, view.path])
    guard result.status == 0 else { throw TestFailure("bindfs \(source.path) \(view.path) failed (\(result.status)): \(result.error)") }
    return FUSEMount(source: source, view: view, sshd: nil)
  }

  /// Starts an sshd of the test's own on a free port of 127.0.0.1 (its host key, and a
  /// client key the test makes, in `scratch`), then mounts `source` at `view` with sshfs as
  /// root. sshfs's directory cache is off (`dir_cache=no`): it otherwise keeps attributes for
  /// 20 s and no one below it could hear a change sooner.
  public static func sshfs(_ source: URL, at view: URL, scratch: URL) throws -> FUSEMount {
    let fileManager = FileManager.default
    try fileManager.createDirectory(at: view, withIntermediateDirectories: true)
    try fileManager.createDirectory(at: scratch, withIntermediateDirectories: true)
    let keygen = URL(fileURLWithPath: "/usr/bin/ssh-keygen")
    for key in ["host_key", "client_key"] {
      let made = try ChildProcess.runBlocking(keygen, ["-q", "-t", "ed25519", "-N", "", "-f", scratch.appendingPathComponent(key).path])
      guard made.status == 0 else { throw TestFailure("ssh-keygen failed: \(made.error)") }
    }
    try fileManager.copyItem(at: scratch.appendingPathComponent("client_key.pub"), to: scratch.appendingPathComponent("authorized_keys"))
    // sshd refuses to start without its privilege separation folder (made by the package's
    // service, which nothing started here).
    try fileManager.createDirectory(atPath: "/run/sshd", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
    var lastError = ""
    for _ in 0..<5 {
      // A port picked at random; one taken makes sshd fail at once, and another is tried.
      let port = Int.random(in: 20_000..<60_000)
      let config = scratch.appendingPathComponent("sshd_config")
      try """
      Port \(port)
      ListenAddress 127.0.0.1
      HostKey \(scratch.appendingPathComponent("host_key").path)
      PidFile \(scratch.appendingPathComponent("sshd.pid").path)
      AuthorizedKeysFile \(scratch.appendingPathComponent("authorized_keys").path)
      PasswordAuthentication no
      KbdInteractiveAuthentication no
      PermitRootLogin prohibit-password
      UsePAM no
      StrictModes no
      Subsystem sftp internal-sftp

      """.write(to: config, atomically: true, encoding: .utf8)
      let sshd = try ChildProcess.start(URL(fileURLWithPath: "/usr/sbin/sshd"), ["-D", "-e", "-f", config.path])
      // Ready once it says it listens (or gone when the port was taken).
      var ready = false
      let deadline = ContinuousClock.now + patience
      while ContinuousClock.now < deadline {
        if sshd.errors.lines.contains(where: { $0.contains("Server listening") }) {
          ready = true
          break
        }
        if !sshd.isRunning { break }
        Thread.sleep(forTimeInterval: 0.02)
      }
      guard ready else {
        lastError = sshd.errors.text
        sshd.killAndWait()
        continue
      }
      let mount = try ChildProcess.runBlocking(
        URL(fileURLWithPath: "/usr/bin/sshfs"),
        [
          "root@127.0.0.1:\(source.path)", view.path, "-p", "\(port)", "-o",
          "IdentityFile=\(scratch.appendingPathComponent("client_key").path),StrictHostKeyChecking=no,UserKnownHostsFile=/dev/null,BatchMode=yes,dir_cache=no",
        ])
      guard mount.status == 0 else {
        sshd.killAndWait()
        throw TestFailure("sshfs failed (\(mount.status)): \(mount.error)\nsshd: \(sshd.errors.text)")
      }
      return FUSEMount(source: source, view: view, sshd: sshd)
    }
    throw TestFailure("sshd did not start: \(lastError)")
  }

  /// Unmounts (`fusermount3 -u`, then a lazy `umount -l` if that fails) and stops the sshd.
  /// Safe to call twice.
  public func unmount() {
    guard
      mounted.withLock({ was in
        defer { was = false }
        return was
      })
    else { return }
    let fusermount = try? ChildProcess.runBlocking(URL(fileURLWithPath: "/usr/bin/fusermount3"), ["-u", view.path])
    if fusermount?.status != 0 { _ = try? ChildProcess.runBlocking(URL(fileURLWithPath: "/usr/bin/umount"), ["-l", view.path]) }
    if let sshd = sshd.withLock({ $0 }) { sshd.killAndWait() }
  }

  deinit { unmount() }
}
