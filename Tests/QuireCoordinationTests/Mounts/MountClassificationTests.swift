import Foundation
import QuireCoordination
import QuireTestSupport
import Testing

/// Mount classification from `/proc/self/mountinfo` lines recorded on real systems (the
/// bindfs, sshfs and ext4 lines on this project's machine, the rest from NFS, SMB, rclone,
/// ntfs-3g and Docker hosts).
@Suite("Mount classification")
struct MountClassificationTests {
  struct Recorded: Sendable, CustomTestStringConvertible {
    var line: String
    var type: String
    var mountPoint: String
    var family: FileSystemKind.Family
    var testDescription: String { type }
  }

  static let recorded: [Recorded] = [
    Recorded(
      line: "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard,resv_strict,resuid=65534,resgid=65534",
      type: "ext4", mountPoint: "/", family: .local),
    Recorded(
      line:
        "112 27 0:52 / /mnt/nfs rw,relatime shared:60 - nfs4 192.168.1.10:/export rw,vers=4.2,rsize=1048576,wsize=1048576,namlen=255,hard,proto=tcp,timeo=600,retrans=2,sec=sys,clientaddr=192.168.1.20,local_lock=none,addr=192.168.1.10",
      type: "nfs4", mountPoint: "/mnt/nfs", family: .network),
    Recorded(
      line: "98 27 0:48 / /net/home rw,relatime shared:50 - nfs fs1:/home rw,vers=3,rsize=65536,wsize=65536,namlen=255,hard,proto=tcp,sec=sys",
      type: "nfs", mountPoint: "/net/home", family: .network),
    Recorded(
      line:
        "113 27 0:53 / /mnt/Team\\040Share rw,relatime shared:61 - cifs //fileserver/Team\\040Share rw,vers=3.1.1,cache=strict,username=u,uid=1000,noforceuid,gid=1000,noforcegid,addr=10.0.0.5,file_mode=0755,dir_mode=0755,soft,nounix,serverino,mapposix,actimeo=1",
      type: "cifs", mountPoint: "/mnt/Team Share", family: .smb),
    Recorded(
      line: "43 27 0:40 / /tmp/mt/sview rw,nosuid,nodev,relatime - fuse.sshfs root@127.0.0.1:/tmp/mt/src rw,user_id=0,group_id=0",
      type: "fuse.sshfs", mountPoint: "/tmp/mt/sview", family: .fuse),
    Recorded(
      line: "114 27 0:54 / /home/u/Google\\040Drive rw,nosuid,nodev,relatime shared:62 - fuse.rclone gdrive: rw,user_id=1000,group_id=1000",
      type: "fuse.rclone", mountPoint: "/home/u/Google Drive", family: .fuse),
    // Debian's bindfs (1.17) sets no subtype: the table says `fuse`, with the source folder.
    Recorded(
      line: "42 27 0:39 / /tmp/mt/view rw,nosuid,nodev,relatime - fuse /tmp/mt/src rw,user_id=0,group_id=0,default_permissions,allow_other",
      type: "fuse", mountPoint: "/tmp/mt/view", family: .fuse),
    Recorded(
      line: "120 27 0:58 / /srv/view rw,nosuid,nodev,relatime shared:70 - fuse.bindfs /srv/src rw,user_id=0,group_id=0,allow_other",
      type: "fuse.bindfs", mountPoint: "/srv/view", family: .fuse),
    Recorded(
      line:
        "553 480 0:65 / / rw,relatime master:1 - overlay overlay rw,lowerdir=/var/lib/docker/overlay2/l/ABC:/var/lib/docker/overlay2/l/DEF,upperdir=/var/lib/docker/overlay2/123/diff,workdir=/var/lib/docker/overlay2/123/work",
      type: "overlay", mountPoint: "/", family: .overlay),
    Recorded(
      line:
        "115 27 8:17 / /media/u/USB rw,nosuid,nodev,relatime shared:63 - fuseblk /dev/sdb1 rw,user_id=0,group_id=0,default_permissions,allow_other,blksize=4096",
      type: "fuseblk", mountPoint: "/media/u/USB", family: .local),
  ]

  @Test(arguments: recorded) func aRecordedLineGivesItsFileSystemKind(_ recorded: Recorded) throws {
    let entry = try #require(MountInfoEntry(line: recorded.line))
    #expect(entry.type == recorded.type)
    #expect(entry.mountPoint == recorded.mountPoint)
    #expect(entry.kind.family == recorded.family)
    #expect(entry.kind.needsPolling == [.network, .smb, .fuse].contains(recorded.family))
    #expect(entry.kind.locksReachOtherMachines == !entry.kind.needsPolling)
  }

  @Test func theDeviceNumberAndSourceAreRead() throws {
    let entry = try #require(MountInfoEntry(line: Self.recorded[4].line))
    #expect(entry.major == 0 && entry.minor == 40)
    #expect(entry.mountID == 43 && entry.parentID == 27)
    #expect(entry.source == "root@127.0.0.1:/tmp/mt/src")
    #expect(entry.root == "/")
  }

  @Test func optionalFieldsBeforeTheSeparatorAreSkipped() throws {
    let entry = try #require(
      MountInfoEntry(line: "36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 shared:7 propagate_from:2 - ext3 /dev/root rw,errors=continue"))
    #expect(entry.type == "ext3" && entry.root == "/mnt1" && entry.mountPoint == "/mnt2" && entry.source == "/dev/root")
  }

  @Test(arguments: [
    "", "garbage", "1 2 3", "27 1 254:0 / / rw,relatime ext4 /dev/vda rw", "x 1 254:0 / / rw - ext4 /dev/vda rw",
    "27 1 254 / / rw - ext4 /dev/vda rw", "27 1 254:0 / / rw -",
  ])
  func aLineThatIsNotAnEntryIsSkipped(_ line: String) {
    #expect(MountInfoEntry(line: line) == nil)
  }

  @Test func aWholeTableSkipsBadLines() {
    let table = Self.recorded.map(\.line).joined(separator: "\n") + "\nnot a line\n\n"
    #expect(MountInfoEntry.entries(in: table).map(\.type) == Self.recorded.map(\.type))
  }

  @Test func escapesInMountPointsAreDecodedAndBadOnesKept() throws {
    let entry = try #require(MountInfoEntry(line: "50 27 0:60 / /a\\011b\\134c\\12 rw - tmpfs tmpfs rw"))
    #expect(entry.mountPoint == "/a\tb\\c\\12")
  }

  @Test(arguments: [
    (Int64(0x6969), FileSystemKind.Family.network), (0xFF53_4D42, .smb), (0xFE53_4D42, .smb), (0x517B, .smb), (0x6573_5546, .fuse),
    (0x794C_7630, .overlay), (0xEF53, .local), (0x0102_1994, .local),
  ])
  func statfsMagicGivesTheFamily(_ magic: Int64, _ family: FileSystemKind.Family) {
    #expect(FileSystemKind.family(forMagic: magic)?.family == family)
  }

  @Test func anUnknownMagicIsNotGuessed() {
    #expect(FileSystemKind.family(forMagic: 0x1234_5678) == nil)
  }

  @Test func thisMachinesTemporaryFolderIsNotPolled() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let kind = FileSystemKind.of(folder.url)
    #expect(!kind.needsPolling, "\(kind)")
    #expect(FileSystemKind.of(folder.file("not-made-yet/nor-this.md")) == kind, "a missing item takes its nearest folder's kind")
  }

  @Test func pollingOptionsComeFromTheEnvironment() {
    let options = PollingOptions(environment: ["QUIRE_POLL_INTERVAL": "0.5", "QUIRE_POLL": "always"])
    #expect(options.interval == .milliseconds(500) && options.maximumInterval == .seconds(2) && options.mode == .always)
    #expect(options.intervalDescription == "0.5 s")
    let defaults = PollingOptions(environment: ["QUIRE_POLL_INTERVAL": "-3", "QUIRE_POLL_MAX_INTERVAL": "nan", "QUIRE_POLL": "sometimes"])
    #expect(defaults == .default)
    #expect(PollingOptions.default.intervalDescription == "2 s" && PollingOptions.default.maximumInterval == .seconds(8))
    #expect(PollingOptions(mode: .never).polls(FileSystemKind(family: .fuse, type: "fuse.sshfs")) == false)
    #expect(PollingOptions().polls(FileSystemKind(family: .overlay, type: "overlay")) == false)
  }
}
