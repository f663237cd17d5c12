import Foundation
import HTTPTypes
import QuireTestSupport
import QuireTypes
import Testing

@testable import QuireServer

@Suite("Served locations")
final class ServedLocationsTests: FolderSuite {
  var served: URL { folder.file("served") }

  init() throws {
    try super.init(prefix: "quire-served")
    try FileManager.default.createDirectory(at: served.appendingPathComponent("sub"), withIntermediateDirectories: true)
    try Data("a".utf8).write(to: served.appendingPathComponent("sub/a b.md"))
    try Data("secret".utf8).write(to: folder.file("outside.md"))
    try FileManager.default.createSymbolicLink(atPath: served.appendingPathComponent("out").path, withDestinationPath: folder.url.path)
    try FileManager.default.createSymbolicLink(atPath: served.appendingPathComponent("in.md").path, withDestinationPath: "sub/a b.md")
    guard mkfifo(served.appendingPathComponent("fifo").path, 0o600) == 0 else { throw TestFailure("mkfifo failed") }
  }

  @Test func referencesRoundTrip() throws {
    let locations = try ServedLocations(folders: [served])
    let url = try locations.url(forReference: "0/sub/a b.md")
    #expect(url.lastPathComponent == "a b.md")
    #expect(locations.reference(for: url) == "0/sub/a b.md")
    #expect(try locations.url(forPathSegments: ["0", "sub", "a%20b.md"]) == url)
    // No link is followed, not even one that stays inside the folder (one file, one name).
    let link = #expect(throws: QuireError.self) { try locations.url(forReference: "0/in.md") }
    #expect(link?.reason.contains("symbolic link") == true)
    #expect(locations.reference(for: folder.file("outside.md")) == nil)
  }

  @Test(arguments: [
    "0/../outside.md", "0/sub/../../outside.md", "0/./sub/a b.md", "0//sub/a b.md", "0/out/outside.md", "1/sub/a b.md", "-1/x",
    "x/sub/a b.md", "0/sub/a b.md\0.txt", "", "0", "/etc/passwd", "0/fifo", "0/missing.md",
  ])
  func referencesThatLeaveOrAreBadAreRefused(_ reference: String) throws {
    let locations = try ServedLocations(folders: [served])
    #expect(throws: QuireError.self) { try locations.url(forReference: reference) }
  }

  @Test(arguments: [
    ["0", "..", "outside.md"], ["0", "%2e%2e", "outside.md"], ["0", "sub%2F..%2F..%2Foutside.md"], ["0", "..%2Foutside.md"],
    ["0", "out", "outside.md"], ["0", "sub", "a%20b.md%00"], ["0", "%ZZ"],
  ])
  func rawPathsThatLeaveAreRefused(_ segments: [String]) throws {
    let locations = try ServedLocations(folders: [served])
    #expect(throws: QuireError.self) { try locations.url(forPathSegments: segments.map { Substring($0) }) }
  }

  @Test func openedFilesAreReadFromTheirDescriptorWhateverTheNameBecomes() throws {
    let locations = try ServedLocations(folders: [served])
    let file = try locations.open(reference: "0/sub/a b.md")
    // The name now leads to a link out, but the open file is the one that was checked.
    try FileManager.default.removeItem(at: served.appendingPathComponent("sub/a b.md"))
    try FileManager.default.createSymbolicLink(atPath: served.appendingPathComponent("sub/a b.md").path, withDestinationPath: folder.file("outside.md").path)
    #expect(try file.read(at: 0, count: 100) == Array("a".utf8))
    #expect(throws: QuireError.self) { try locations.open(reference: "0/sub/a b.md") }
    // A FIFO is refused at once (no writer: an open that waited would hang here), as is a folder.
    let fifo = #expect(throws: QuireError.self) { try locations.open(reference: "0/fifo") }
    #expect(fifo?.code == .unsupportedType)
    #expect(throws: QuireError.self) { try locations.open(reference: "0/sub") }
  }

  @Test func byteRangesAreParsedAsRFC9110Says() {
    #expect(Site.byteRange("bytes=0-3", size: 10)! == (0, 3))
    #expect(Site.byteRange("bytes=4-", size: 10)! == (4, 9))
    #expect(Site.byteRange("bytes=-3", size: 10)! == (7, 9))
    #expect(Site.byteRange("bytes=5-100", size: 10)! == (5, 9))
    for refused in ["bytes=10-", "bytes=3-2", "bytes=0-1,4-5", "items=0-1", "bytes=-0", "bytes=x-y"] {
      #expect(Site.byteRange(refused, size: 10) == nil, "\(refused)")
    }
  }

  @Test func missingFoldersAndFilesAreNamed() throws {
    let error = #expect(throws: QuireError.self) { try ServedLocations(folders: [self.folder.file("nowhere")]) }
    #expect(error?.reason.contains("nowhere") == true)
    let file = folder.file("outside.md")
    let notFolder = #expect(throws: QuireError.self) { try ServedLocations(folders: [file]) }
    #expect(notFolder?.reason.contains("not a folder") == true)
    #expect(throws: QuireError.self) { try ServedLocations(folders: []) }
  }

  @Test(arguments: [
    "", ".", "..", "a/b", "a\0b", String(repeating: "x", count: 256), "\t.md", "a\nb.md", "\u{7F}.md", "a\u{85}b", "cod\u{202E}dm.txt",
    "x\u{2066}y.md", " lead.md", "trail.md ",
  ])
  func badNamesAreRefused(_ name: String) {
    #expect(!ServedLocations.isAcceptableName(name))
  }

  @Test func goodNamesAreAccepted() {
    #expect(ServedLocations.isAcceptableName("ノート.md"))
    #expect(ServedLocations.isAcceptableName(".hidden"))
  }
}

@Suite("Access control")
struct AccessControlTests {
  func control() -> AccessControl {
    let access = AccessControl(token: String(repeating: "7", count: 64))
    access.port = 8080
    return access
  }

  func headers(_ fields: [String: String]) -> HTTPFields {
    var headers = HTTPFields()
    for (name, value) in fields { headers[HTTPField.Name(name)!] = value }
    return headers
  }

  /// A session, started as the browser does with the token address.
  func session(_ access: AccessControl) throws -> (cookie: String, csrf: String) {
    guard case .startSession(let session, let cookie) = access.decide(method: .get, authority: "127.0.0.1:8080", path: "/", token: access.token, headers: [:])
    else { throw TestFailure("the token did not start a session") }
    #expect(cookie.contains("SameSite=Strict") && cookie.contains("HttpOnly"))
    return ("quire-8080=\(session.identifier)", session.csrfToken)
  }

  @Test func theTokenStartsASessionAndTheSessionIsChecked() throws {
    let access = control()
    let (cookie, _) = try session(access)
    guard case .allowed = access.decide(method: .get, authority: "localhost:8080", path: "/api/documents", token: nil, headers: headers(["Cookie": cookie]))
    else { throw TestFailure("the session was refused") }
    guard case .refused(.forbidden, _) = access.decide(method: .get, authority: "127.0.0.1:8080", path: "/api/documents", token: nil, headers: [:]) else {
      throw TestFailure("no cookie was allowed")
    }
    let forged = headers(["Cookie": "quire-8080=\(String(repeating: "0", count: 64))"])
    guard case .refused(.forbidden, _) = access.decide(method: .get, authority: "127.0.0.1:8080", path: "/", token: nil, headers: forged) else {
      throw TestFailure("a forged cookie was allowed")
    }
    guard case .refused(.forbidden, _) = access.decide(method: .get, authority: "127.0.0.1:8080", path: "/", token: "wrong", headers: [:]) else {
      throw TestFailure("a wrong token started a session")
    }
  }

  @Test func aSecondHostHeaderIsRefused() throws {
    let access = control()
    let (cookie, _) = try session(access)
    // The first Host is the authority; a second stays among the fields.
    var fields = headers(["Cookie": cookie])
    fields.append(HTTPField(name: HTTPField.Name("Host")!, value: "attacker.example"))
    guard case .refused(.badRequest, let reason) = access.decide(method: .get, authority: "127.0.0.1:8080", path: "/api/documents", token: nil, headers: fields)
    else { throw TestFailure("two Host headers were allowed") }
    #expect(reason.contains("more than one Host"))
  }

  @Test func otherHostsAndSitesAreRefused() throws {
    let access = control()
    let (cookie, _) = try session(access)
    for authority in ["evil.example:8080", "127.0.0.1:8081", "127.0.0.1", nil] as [String?] {
      guard
        case .refused(.misdirectedRequest, _) = access.decide(method: .get, authority: authority, path: "/", token: nil, headers: headers(["Cookie": cookie]))
      else { throw TestFailure("host \(String(describing: authority)) was allowed") }
    }
    for site in ["cross-site", "same-site"] {
      guard
        case .refused(.forbidden, _) = access.decide(
          method: .get, authority: "127.0.0.1:8080", path: "/api/documents", token: nil, headers: headers(["Cookie": cookie, "Sec-Fetch-Site": site]))
      else { throw TestFailure("Sec-Fetch-Site \(site) was allowed") }
    }
  }

  @Test func changesNeedTheCSRFTokenAndThisOrigin() throws {
    let access = control()
    let (cookie, csrf) = try session(access)
    func decide(_ extra: [String: String]) -> AccessControl.Decision {
      access.decide(method: .post, authority: "127.0.0.1:8080", path: "/api/rename", token: nil, headers: headers(["Cookie": cookie].merging(extra) { $1 }))
    }
    guard case .refused(.forbidden, _) = decide([:]) else { throw TestFailure("a change without the CSRF token was allowed") }
    guard case .refused(.forbidden, _) = decide(["X-Quire-CSRF": String(csrf.reversed())]) else { throw TestFailure("a wrong CSRF token was allowed") }
    guard case .refused(.forbidden, _) = decide(["X-Quire-CSRF": csrf, "Origin": "http://evil.example"]) else {
      throw TestFailure("another origin was allowed")
    }
    guard case .allowed = decide(["X-Quire-CSRF": csrf, "Origin": "http://127.0.0.1:8080", "Sec-Fetch-Site": "same-origin"]) else {
      throw TestFailure("the page's own change was refused")
    }
  }

  @Test func tokensAreRandomAndComparedWhole() {
    #expect(AccessControl.randomToken().count == 64)
    #expect(AccessControl.randomToken() != AccessControl.randomToken())
    #expect(AccessControl.constantTimeEquals("abc", "abc"))
    #expect(!AccessControl.constantTimeEquals("abc", "abd"))
    #expect(!AccessControl.constantTimeEquals("abc", "abcd"))
    #expect(!AccessControl.constantTimeEquals("", "a"))
  }
}
