import Foundation
import QuireTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Issue 29, findings 2 and 3, against the real `quire serve`: idle, half-sent and many
/// concurrent connections (only to 127.0.0.1, bounded in number and time) do not keep out a
/// normal request or a SIGTERM; a served file switched between a regular file, a symbolic
/// link to `/etc/passwd` and a FIFO is never followed out of the folder nor waited on.
@Suite(
  "quire serve under load and races", .serialized,
  .enabled(if: Programs.find("curl") != nil && Programs.find("prlimit") != nil, "curl or prlimit is not installed (scripts/setup installs them)"))
final class HostileLoadTests: ServedFolderTestCase {
  init() throws {
    try super.init(prefix: "quire-serve-load", files: ["plan.md": "# Plan\n\nthe plan\n", "swap.txt": "inside\n"])
    // This process holds thousands of sockets: its soft descriptor limit goes up to the hard one.
    var limit = rlimit()
    if getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max {
      limit.rlim_cur = limit.rlim_max
      _ = setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
    }
  }

  /// `count` TCP connections to 127.0.0.1:`port`, each sending `text` (nothing when `nil`)
  /// and then nothing more. Connecting does not wait: one the server has not accepted waits
  /// in its queue. Stops early when this process runs out of descriptors.
  static func connect(_ count: Int, port: Int, sending text: String? = nil) -> [Int32] {
    var sockets: [Int32] = []
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    for _ in 0..<count {
      let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
      guard fd >= 0 else { break }
      _ = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
      }
      sockets.append(fd)
    }
    if let text {
      // Sent once each connection is up (a non-blocking connect finishes in the background).
      // Five seconds in all for the connections to come up, not each.
      let deadline = ContinuousClock.now + .seconds(5)
      for fd in sockets {
        var poller = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        let left = max(0, (deadline - ContinuousClock.now).components.seconds * 1000)
        _ = poll(&poller, 1, Int32(left))
        _ = text.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
      }
    }
    return sockets
  }

  /// Whether the server has closed `fd` (a read gives end of file or a reset).
  static func isClosedByServer(_ fd: Int32) -> Bool {
    var byte: UInt8 = 0
    let got = recv(fd, &byte, 1, Int32(MSG_DONTWAIT) | Int32(MSG_PEEK))
    return got == 0 || (got < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
  }

  static func close(_ sockets: [Int32]) { for fd in sockets { _ = Glibc.close(fd) } }

  /// How many of `sockets` have finished connecting: accepted (writable), or refused or
  /// closed by the server. One the server's full queue keeps waiting has not.
  static func settled(_ sockets: [Int32]) -> Int {
    var pollers = sockets.map { pollfd(fd: $0, events: Int16(POLLOUT), revents: 0) }
    guard poll(&pollers, nfds_t(pollers.count), 0) >= 0 else { return 0 }
    return pollers.filter { $0.revents & Int16(POLLOUT | POLLERR | POLLHUP) != 0 }.count
  }

  /// Waits until the connections have reached the server (or the server stopped taking them:
  /// then most never do, and the wait ends at its limit), so the request that follows comes
  /// when they are all held.
  static func waitUntilHeld(_ sockets: [Int32]) async {
    _ = await eventually(timeout: .seconds(60), every: .milliseconds(200)) { settled(sockets) >= sockets.count * 95 / 100 }
  }

  @Test func twoThousandIdleConnectionsDoNotKeepOutAPageAtTheUsualDescriptorLimit() async throws {
    // 1,024 descriptors, soft and hard: the usual limit, which the server cannot raise.
    let server = try await ServeProcess.start(serving: [served], home: home, in: folder.url, descriptorLimit: (1024, 1024))
    defer { server.stop() }
    let jar = folder.file("cookies")
    _ = try await server.signIn(jar: jar) { try await self.curl($0) }

    let idle = Self.connect(2000, port: server.port)
    defer { Self.close(idle) }
    #expect(idle.count == 2000, "this test could open only \(idle.count) connections")
    await Self.waitUntilHeld(idle)
    let page = try await curl(["--cookie", jar.path, "\(server.origin)/api/documents"], maxTime: 30)
    #expect(page.status == 200 && page.body.contains("plan.md"), "with 2,000 idle connections: \(page.status) \(page.body.prefix(200))")
    server.server.kill(SIGTERM)
    #expect(await server.server.waitForExit(within: .seconds(60)) != nil, "SIGTERM did not stop the server under load")
  }

  /// The most connections the kernel keeps waiting for one listening socket (`net.core.somaxconn`).
  static var systemListenQueueLimit: Int {
    Int(((try? String(contentsOfFile: "/proc/sys/net/core/somaxconn", encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)) ?? 128
  }

  @Test func connectionsThatComeWhileTheServerIsNotAcceptingWaitInItsQueueInsteadOfLosingTheirSYN() async throws {
    let server = try await ServeProcess.start(serving: [served], home: home, in: folder.url)
    defer { server.stop() }
    let jar = folder.file("cookies")
    _ = try await server.signIn(jar: jar) { try await self.curl($0) }
    // Stopped, the server accepts nothing: every connection that comes (a burst of requests, a
    // flood) waits in the kernel's queue. One that finds the queue full loses its SYN and its
    // client sends it again only after 1 s (the 1 s stalls bench-serve-load found with
    // Hummingbird's default queue of 256), so the queue must hold as many as the system allows.
    let count = min(1000, Self.systemListenQueueLimit)
    server.server.kill(SIGSTOP)
    defer { server.server.kill(SIGCONT) }
    let waiting = Self.connect(count, port: server.port)
    defer { Self.close(waiting) }
    #expect(waiting.count == count, "this test could open only \(waiting.count) connections")
    let queued = await eventually(timeout: .seconds(60), every: .milliseconds(100)) { Self.settled(waiting) == waiting.count }
    server.server.kill(SIGCONT)
    #expect(queued, "only \(Self.settled(waiting)) of \(count) connections got into the server's queue: the others' SYNs were dropped")
    // Running again, it takes them from the queue and still answers a page.
    let page = try await curl(["--cookie", jar.path, "\(server.origin)/api/documents"], maxTime: 60)
    #expect(page.status == 200 && page.body.contains("plan.md"), "after the queued connections: \(page.status)")
  }

  @Test func halfSentRequestsAreClosedAtTheHeaderDeadline() async throws {
    let server = try await ServeProcess.start(serving: [served], home: home, in: folder.url)
    defer { server.stop() }
    // A request head that never ends, and a connection that never sends anything.
    let slow = Self.connect(20, port: server.port, sending: "GET / HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nX-Slow: ")
    let silent = Self.connect(20, port: server.port)
    defer { Self.close(slow + silent) }
    // The deadline is 15 s; the limit here only fails a server that never closes them.
    let closed = await eventually(timeout: .seconds(120), every: .milliseconds(200)) {
      (slow + silent).allSatisfy(Self.isClosedByServer)
    }
    #expect(closed, "\((slow + silent).filter { !Self.isClosedByServer($0) }.count) of 40 unfinished connections are still open")
  }

  @Test func idleSlowAndConcurrentLoadsTogetherStillLetAPageThroughAndSIGTERMStopIt() async throws {
    let server = try await ServeProcess.start(serving: [served], home: home, in: folder.url, descriptorLimit: (1024, 4096))
    defer { server.stop() }
    let jar = folder.file("cookies")
    _ = try await server.signIn(jar: jar) { try await self.curl($0) }

    let idle = Self.connect(2000, port: server.port)
    let slow = Self.connect(300, port: server.port, sending: "GET /api/documents HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\n")
    defer { Self.close(idle + slow) }
    await Self.waitUntilHeld(idle + slow)
    // 500 requests at once (curl's --parallel), with the session, while the above are held.
    // curl reports each answer as it comes (on its standard error, unbuffered, into a file),
    // so the test sees when the burst is under way.
    let curlProgram = try #require(Programs.find("curl"))
    let shell = try #require(Programs.find("sh"))
    let progress = folder.file("burst-answers")
    let urls = (0..<500).flatMap { _ in ["--output", "/dev/null", "\(server.origin)/api/documents"] }
    let environment = home.environment.merging(["QUIRE_TEST_PROGRESS": progress.path]) { $1 }
    let burst = Task {
      try await Programs.run(
        shell,
        ["-c", "exec \"$0\" \"$@\" 2>\"$QUIRE_TEST_PROGRESS\"", curlProgram.path]
          + [
            "--silent", "--no-progress-meter", "--parallel", "--parallel-max", "500", "--max-time", "120", "--cookie", jar.path,
            "--write-out", "%{stderr}%{http_code}\n",
          ] + urls,
        environment: environment)
    }
    func answered() -> [Substring] {
      ((try? String(contentsOf: progress, encoding: .utf8)) ?? "").split(separator: "\n").filter { $0.count == 3 && $0.allSatisfy(\.isNumber) }
    }
    // Once the burst is under way (its first answer is in), a normal request goes in and is
    // answered. How long it takes is measured by Benchmarks' bench-serve-load (RESULTS.md,
    // "serve under load"; issue 29, acceptance 2): no condition tells a page queued behind the
    // listings from one answered by the listing run it shares with them (both come back with
    // most of the burst), and the test keeps no clock bound.
    #expect(await eventually(timeout: .seconds(120), every: .milliseconds(1)) { !answered().isEmpty }, "the burst got no answer at all")
    let page = try await curl(["--cookie", jar.path, "\(server.origin)/api/documents"], maxTime: 60)
    #expect(page.status == 200 && page.body.contains("plan.md"), "under load: \(page.status)")
    _ = try await burst.value
    let codes = answered()
    #expect(codes.count == 500)
    // Each of the 500 is answered (or, when the caps had to close a connection to make room, refused at once).
    #expect(codes.filter { $0 == "200" }.count > 0, "none of the 500 concurrent requests was answered")
    server.server.kill(SIGTERM)
    #expect(await server.server.waitForExit(within: .seconds(60)) != nil, "SIGTERM did not stop the server under load")
  }

  @Test func aFileSwappedForALinkOrAFIFOIsNeitherFollowedNorWaitedOn() async throws {
    let server = try await ServeProcess.start(serving: [served], home: home, in: folder.url)
    defer { server.stop() }
    let jar = folder.file("cookies")
    _ = try await server.signIn(jar: jar) { try await self.curl($0) }

    // swap.txt becomes, over and over, a link to /etc/passwd, a regular file, a FIFO.
    let target = served.appendingPathComponent("swap.txt").path
    let spare = served.appendingPathComponent(".swap-next").path
    // The regular file comes in as a hard link to one written beforehand (outside the served
    // folder), so each of the three takes as short a time to put in place: a file written
    // afresh each round left the link in place for most of the time, and under load no read
    // met the regular file at all.
    let regular = folder.file("swap-regular").path
    try Data("inside\n".utf8).write(to: URL(fileURLWithPath: regular))
    let stop = Box(false)
    let swapper = Thread {
      var round = 0
      while !stop.current {
        unlink(spare)
        switch round % 3 {
        case 0: _ = symlink("/etc/passwd", spare)
        case 1: _ = link(regular, spare)
        default: _ = mkfifo(spare, 0o600)
        }
        _ = rename(spare, target)
        round += 1
      }
    }
    swapper.start()
    defer { stop.set(true) }

    // 300 reads of the file and 300 previews, one after another on one connection.
    let curlProgram = try #require(Programs.find("curl"))
    let urls = (0..<300).flatMap { _ in ["\(server.origin)/files/0/swap.txt", "\(server.origin)/api/preview?doc=0/swap.txt"] }
    let reads = try await Programs.run(curlProgram, ["--silent", "--max-time", "120", "--cookie", jar.path] + urls, environment: home.environment)
    stop.set(true)
    #expect(reads.status == 0, "the reads did not all finish (curl \(reads.status)): the server waited on a FIFO")
    #expect(!reads.output.contains("root:x:0:0"), "a read followed the link to /etc/passwd")
    #expect(reads.output.contains("inside"), "no read found the regular file")

    let page = try await curl(["--cookie", jar.path, "\(server.origin)/api/documents"], maxTime: 30)
    #expect(page.status == 200, "after the race: \(page.status)")
    server.server.kill(SIGTERM)
    #expect(await server.server.waitForExit(within: .seconds(60)) != nil, "SIGTERM did not stop the server after the race")
  }

  /// The server's peak resident memory in KiB (`VmHWM`).
  static func peakMemory(of pid: Int32) -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
      let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
    else { return nil }
    return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
  }

  @Test func largeFilesAreStreamedAndRangesAnswered() async throws {
    // A 1 GiB file (sparse: it takes no disk) that ends in a known tail.
    let big = served.appendingPathComponent("big.bin")
    let handle = try FileHandle(
      forWritingTo: {
        FileManager.default.createFile(atPath: big.path, contents: nil)
        return big
      }())
    try handle.truncate(atOffset: 1 << 30)
    try handle.seek(toOffset: (1 << 30) - 4)
    try handle.write(contentsOf: Data("TAIL".utf8))
    try handle.close()
    let server = try await ServeProcess.start(serving: [served], home: home, in: folder.url)
    defer { server.stop() }
    let jar = folder.file("cookies")
    _ = try await server.signIn(jar: jar) { try await self.curl($0) }
    let before = try #require(Self.peakMemory(of: server.server.pid))

    let curlProgram = try #require(Programs.find("curl"))
    let whole = try await Programs.run(
      curlProgram,
      [
        "--silent", "--max-time", "600", "--cookie", jar.path, "--output", "/dev/null", "--write-out", "%{http_code} %{size_download}",
        "\(server.origin)/files/0/big.bin",
      ],
      environment: home.environment)
    #expect(whole.output == "200 \(1 << 30)")
    let after = try #require(Self.peakMemory(of: server.server.pid))
    // Read whole, the file would take 1 GiB at least; streamed, a few chunks.
    #expect(after - before < 256 << 10, "serving 1 GiB raised the peak memory by \((after - before) >> 10) MiB")

    let tail = try await curl(["--cookie", jar.path, "--header", "Range: bytes=-4", "\(server.origin)/files/0/big.bin"])
    #expect(tail.status == 206 && tail.body == "TAIL")
    let middle = try await curl(["--cookie", jar.path, "--header", "Range: bytes=2-4", "\(server.origin)/files/0/plan.md"])
    #expect(middle.status == 206 && middle.body == "Pla")
    let past = try await curl(["--cookie", jar.path, "--header", "Range: bytes=5000-", "\(server.origin)/files/0/plan.md"])
    #expect(past.status == 416)
  }
}
