import Foundation
import QuireTestSupport
import Testing

/// Acceptance 5: `quire serve` refuses every request without the token, every path outside
/// the served folder (`..`, encoded slashes, a symbolic link out, NUL), every request for
/// another host, and every change without the CSRF token or from another origin. Checked
/// with curl (`--path-as-is`, so curl sends `..` as written) against the real server process.
@Suite("quire serve access", .serialized, .enabled(if: Programs.find("curl") != nil, "curl is not installed (scripts/setup installs it)"))
final class AccessTests: ServedFolderTestCase {
  init() throws {
    try super.init(prefix: "quire-serve-access", files: ["plan.md": "# Plan\n\nsecret plan\n"])
    try FileManager.default.createSymbolicLink(atPath: served.appendingPathComponent("out").path, withDestinationPath: "/etc")
    try FileManager.default.createSymbolicLink(atPath: served.appendingPathComponent("passwd.md").path, withDestinationPath: "/etc/passwd")
  }

  @Test func everyRequestNeedsTheTokenAndStaysInTheFolder() async throws {
    let server = try await ServeProcess.start(serving: [served], home: home, in: folder.url)
    defer { server.stop() }
    let origin = server.origin

    // Without the token (no session cookie) everything is refused, page, assets and API alike.
    for path in ["/", "/app.js", "/api/documents", "/api/events", "/api/preview?doc=0/plan.md", "/files/0/plan.md", "/../../etc/passwd"] {
      let reply = try await curl([origin + path])
      #expect(reply.status == 403, "\(path) without the token answered \(reply.status)")
      #expect(!reply.body.contains("secret plan") && !reply.body.contains("root:"))
    }
    let wrongToken = try await curl(["\(origin)/?token=\(String(repeating: "0", count: 64))"])
    #expect(wrongToken.status == 403)

    // The printed address starts a session: a SameSite=Strict, HttpOnly cookie and a redirect.
    let jar = folder.file("cookies").path
    let headers = folder.file("headers").path
    let login = try await curl(["--cookie-jar", jar, "--dump-header", headers, server.address])
    #expect(login.status == 303)
    let setCookie = try String(contentsOfFile: headers, encoding: .utf8).lowercased()
    #expect(setCookie.contains("set-cookie: quire-\(server.port)="))
    #expect(setCookie.contains("samesite=strict") && setCookie.contains("httponly"))
    let page = try await curl(["--cookie", jar, "\(origin)/"])
    #expect(page.status == 200)
    let csrf = try #require(page.body.firstMatch(of: /name="quire-csrf" content="([0-9a-f]{64})"/)?.1).description
    let positive = try await curl(["--cookie", jar, "\(origin)/files/0/plan.md"])
    #expect(positive.status == 200 && positive.body.contains("secret plan"), "the session reads a served file")

    // With the session, nothing outside the folder: `..` as written, encoded, an encoded
    // slash, NUL, and symbolic links that lead out.
    let outside = [
      "/../../etc/passwd", "/files/0/../../../etc/passwd", "/files/0/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
      "/files/0/..%2F..%2F..%2Fetc%2Fpasswd", "/files/0/out/passwd", "/files/0/passwd.md", "/files/0/plan.md%00.txt",
      "/files/1/etc/passwd", "/files/-1/passwd", "/files//etc/passwd",
      "/api/preview?doc=0/../../etc/passwd", "/api/preview?doc=0/out/passwd", "/api/preview?doc=0/passwd.md",
      "/api/preview?doc=0%2F..%2F..%2Fetc%2Fpasswd", "/api/thumbnail?doc=0/out/passwd",
    ]
    for path in outside {
      let reply = try await curl(["--cookie", jar, origin + path])
      #expect([400, 403, 404].contains(reply.status), "\(path) answered \(reply.status)")
      #expect(!reply.body.contains("root:"), "\(path) leaked /etc/passwd")
    }

    // Another host name (DNS rebinding) is refused even with the session.
    let rebound = try await curl(["--cookie", jar, "--header", "Host: attacker.example:\(server.port)", "\(origin)/api/documents"])
    #expect(rebound.status == 421)
    // Two Host headers (the second would be another host): refused. Sent as raw bytes (curl
    // sends one Host header whatever it is given).
    let raw = HostileLoadTests.connect(
      1, port: server.port, sending: "GET /api/documents HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nHost: attacker.example\r\n\r\n")
    defer { HostileLoadTests.close(raw) }
    var reply = [UInt8](repeating: 0, count: 64)
    let received = await eventually(timeout: .seconds(60), every: .milliseconds(20)) { recv(raw[0], &reply, 64, Int32(MSG_DONTWAIT) | Int32(MSG_PEEK)) > 12 }
    #expect(received && String(decoding: reply, as: UTF8.self).hasPrefix("HTTP/1.1 400"), "two Host headers: \(String(decoding: reply, as: UTF8.self))")
    // A request another site's page would make is refused by its fetch metadata.
    let crossSite = try await curl(["--cookie", jar, "--header", "Sec-Fetch-Site: cross-site", "\(origin)/api/documents"])
    #expect(crossSite.status == 403)

    // Changes need the CSRF token, and from this origin.
    let rename = ["--cookie", jar, "--header", "Content-Type: application/json", "--data", #"{"doc":"0/plan.md","name":"renamed.md"}"#, "\(origin)/api/rename"]
    let noToken = try await curl(rename)
    #expect(noToken.status == 403)
    let badToken = try await curl(["--header", "X-Quire-CSRF: \(String(repeating: "a", count: 64))"] + rename)
    #expect(badToken.status == 403)
    let otherOrigin = try await curl(["--header", "X-Quire-CSRF: \(csrf)", "--header", "Origin: http://attacker.example"] + rename)
    #expect(otherOrigin.status == 403)
    #expect(FileManager.default.fileExists(atPath: served.appendingPathComponent("plan.md").path), "no refused change happened")
    #expect(!FileManager.default.fileExists(atPath: served.appendingPathComponent("renamed.md").path))

    // The same change with the token and this origin goes through (so the refusals above are
    // refusals, not a broken route).
    let allowed = try await curl(["--header", "X-Quire-CSRF: \(csrf)", "--header", "Origin: \(origin)"] + rename)
    #expect(allowed.status == 200, "\(allowed.body)")
    #expect(FileManager.default.fileExists(atPath: served.appendingPathComponent("renamed.md").path))
  }

  @Test func previewsLoadNoRemoteImageAndSaySo() async throws {
    try Data("# Tracked\n\n![pixel](https://tracker.example/p.png) and ![local](data:image/png;base64,iVBORw0KGgo=)\n".utf8)
      .write(to: served.appendingPathComponent("tracked.md"))
    let server = try await ServeProcess.start(serving: [served], home: home, in: folder.url)
    defer { server.stop() }
    let jar = folder.file("cookies")
    _ = try await server.signIn(jar: jar) { try await self.curl($0) }
    let headers = folder.file("preview-headers")
    let preview = try await curl(["--cookie", jar.path, "--dump-header", headers.path, "\(server.origin)/api/preview?doc=0/tracked.md"])
    #expect(preview.status == 200)
    let policy = try String(contentsOf: headers, encoding: .utf8).lowercased()
    #expect(policy.contains("img-src 'self' data:;") && !policy.contains("img-src *"), "\(policy)")
    #expect(!preview.body.contains("<img src=\"https://tracker.example"), "the remote image is still in the page")
    #expect(preview.body.contains("A remote image was held back"))
    #expect(preview.body.contains("<img src=\"data:image/png"), "a data: image stays")
  }

  @Test func templatesAreNotTakenFromTheFolderTheServerStartsIn() async throws {
    // Whoever can write the folder the server starts in planted templates: a link to
    // /etc/passwd among them.
    let planted = folder.file("Templates")
    try FileManager.default.createDirectory(at: planted, withIntermediateDirectories: true)
    try Data(#"{"passwd.md": "planted"}"#.utf8).write(to: planted.appendingPathComponent("templates.json"))
    try FileManager.default.createSymbolicLink(atPath: planted.appendingPathComponent("passwd.md").path, withDestinationPath: "/etc/passwd")
    let server = try await ServeProcess.start(serving: [served], home: home, in: folder.url)
    defer { server.stop() }
    let jar = folder.file("cookies")
    let csrf = try await server.signIn(jar: jar) { try await self.curl($0) }
    let listed = try await curl(["--cookie", jar.path, "\(server.origin)/api/templates"])
    #expect(listed.status == 200 && !listed.body.contains("passwd"), "\(listed.body)")
    let create = try await curl([
      "--cookie", jar.path, "--header", "X-Quire-CSRF: \(csrf)", "--header", "Origin: \(server.origin)", "--header", "Content-Type: application/json",
      "--data", #"{"name":"stolen.md","folder":"0","template":"passwd.md"}"#, "\(server.origin)/api/create",
    ])
    #expect(create.status != 200, "a planted template was used: \(create.body)")
    #expect(!FileManager.default.fileExists(atPath: served.appendingPathComponent("stolen.md").path))
  }

  @Test func badArgumentsAreUsageErrors() async throws {
    let quire = try #require(Programs.quire)
    let missing = try await Programs.run(quire, ["serve", folder.file("nowhere").path], environment: home.environment)
    #expect(missing.status == 1)
    #expect(missing.error.contains("nowhere") && missing.error.contains("does not exist"))
    let file = try folder.write("text", to: "file.txt")
    let notFolder = try await Programs.run(quire, ["serve", file.path], environment: home.environment)
    #expect(notFolder.status == 1)
    #expect(notFolder.error.contains("not a folder"))
    let badPort = try await Programs.run(quire, ["serve", served.path, "--port", "70000"], environment: home.environment)
    #expect(badPort.status == 2)
  }
}
