import Foundation
import HTTPTypes
import Synchronization

/// Who may talk to the server, and which requests may change anything.
///
/// The rules, in the order ``decide(method:path:query:headers:)`` applies them:
/// 1. **Host.** The `Host` header must name this server (`127.0.0.1:PORT` or `localhost:PORT`):
///    a page on another site that rebinds its DNS name to 127.0.0.1 is refused.
/// 2. **Token.** The address the server prints carries a random 256-bit token
///    (`/?token=…`). Opening it starts a session: a random session cookie (`HttpOnly`,
///    `SameSite=Strict`, named after the port so two servers never share one) and a
///    redirect to `/`, which takes the token out of the address bar and the history. Every
///    other request must carry a known session cookie.
/// 3. **Fetch metadata.** A request whose `Sec-Fetch-Site` says it came from another site
///    (`cross-site`, `same-site`) is refused; `none` (the person typed or clicked the address)
///    is allowed for plain page loads only.
/// 4. **CSRF.** Every request that is not `GET` or `HEAD` must carry the session's CSRF token
///    in the `X-Quire-CSRF` header (the page reads it from a `<meta>` element of the page only
///    a session gets), and an `Origin` header, when the browser sends one, must be this
///    server's.
///
/// Tokens are compared in constant time.
public final class AccessControl: Sendable {
  /// The header that carries the CSRF token on changes.
  public static let csrfHeaderName = "X-Quire-CSRF"

  /// A browser session: one per opening of the token address.
  public struct Session: Sendable, Hashable {
    /// The session cookie's value.
    public let identifier: String
    /// The token changes must carry in ``AccessControl/csrfHeaderName``.
    public let csrfToken: String
  }

  /// What to do with a request.
  enum Decision: Sendable {
    /// Go on, for this session.
    case allowed(Session)
    /// Start a session: set `cookie` and redirect to `/`.
    case startSession(Session, cookie: String)
    /// Refuse with `status`, saying `reason`.
    case refused(HTTPResponse.Status, reason: String)
  }

  /// The token of the printed address.
  public let token: String
  private let state = Mutex(State())

  private struct State {
    var port: Int = 0
    var sessions: [String: Session] = [:]
  }

  /// Makes access control with a fresh random token (or `token`, for tests).
  public init(token: String? = nil) {
    self.token = token ?? Self.randomToken()
  }

  /// The port the server listens on; the `Host` and `Origin` checks and the cookie's name
  /// use it. Set once the socket is bound.
  public var port: Int {
    get { state.withLock { $0.port } }
    set { state.withLock { $0.port = newValue } }
  }

  /// The session cookie's name: `quire-PORT`.
  public var cookieName: String { "quire-\(port)" }

  /// The address to open: `http://127.0.0.1:PORT/?token=TOKEN`.
  public var address: String { "http://127.0.0.1:\(port)/?token=\(token)" }

  /// Decides what to do with a request.
  ///
  /// - Parameters:
  ///   - method: The request's method.
  ///   - authority: Its `Host` (HTTP/1.1) or `:authority` (HTTP/2).
  ///   - path: The raw path (no query).
  ///   - offered: The `token` query parameter, when there is one.
  ///   - headers: The request's header fields.
  func decide(method: HTTPRequest.Method, authority: String?, path: String, token offered: String?, headers: HTTPFields) -> Decision {
    let port = self.port
    // The authority is the first Host header; a second one left among the fields makes the
    // request ambiguous (a proxy may have read the other): refused.
    if headers.contains(Self.hostHeader) {
      return .refused(.badRequest, reason: "The request has more than one Host header; send one.")
    }
    guard let host = authority, Self.isOwnHost(host, port: port) else {
      return .refused(.misdirectedRequest, reason: "This server answers only to 127.0.0.1:\(port) or localhost:\(port).")
    }
    let site = headers[Self.secFetchSite]
    if let site, site != "same-origin", site != "none" {
      return .refused(.forbidden, reason: "Requests from other sites are refused.")
    }
    let isSafe = method == .get || method == .head
    if site == "none" && !(isSafe && (path == "/" || path == "/index.html")) {
      return .refused(.forbidden, reason: "Open the page first; its parts are not reachable directly.")
    }
    if let offered, isSafe, path == "/" {
      guard Self.constantTimeEquals(offered, token) else {
        return .refused(.forbidden, reason: "This token is not the one `quire serve` printed.")
      }
      let session = Session(identifier: Self.randomToken(), csrfToken: Self.randomToken())
      state.withLock { $0.sessions[session.identifier] = session }
      let cookie = "\(cookieName)=\(session.identifier); Path=/; HttpOnly; SameSite=Strict"
      return .startSession(session, cookie: cookie)
    }
    guard let identifier = Self.cookie(named: cookieName, in: headers),
      let session = state.withLock({ state in state.sessions.first { Self.constantTimeEquals($0.key, identifier) }?.value })
    else {
      return .refused(.forbidden, reason: "Open the address `quire serve` printed (it carries the access token).")
    }
    if !isSafe {
      if let origin = headers[.origin], !Self.isOwnOrigin(origin, port: port) {
        return .refused(.forbidden, reason: "Changes from another origin are refused.")
      }
      guard let csrf = headers[Self.csrfHeader], Self.constantTimeEquals(csrf, session.csrfToken) else {
        return .refused(.forbidden, reason: "A change needs the page's CSRF token (\(Self.csrfHeaderName)); reload the page.")
      }
    }
    return .allowed(session)
  }

  static let secFetchSite = HTTPField.Name("Sec-Fetch-Site")!
  static let hostHeader = HTTPField.Name("Host")!
  static let csrfHeader = HTTPField.Name(csrfHeaderName)!

  /// Whether `host` (a `Host` header) is this server.
  static func isOwnHost(_ host: String, port: Int) -> Bool {
    host == "127.0.0.1:\(port)" || host == "localhost:\(port)"
  }

  /// Whether `origin` (an `Origin` header) is this server.
  static func isOwnOrigin(_ origin: String, port: Int) -> Bool {
    origin == "http://127.0.0.1:\(port)" || origin == "http://localhost:\(port)"
  }

  /// The value of cookie `name` in the request's `Cookie` fields.
  static func cookie(named name: String, in headers: HTTPFields) -> String? {
    for field in headers[values: .cookie] {
      for pair in field.split(separator: ";") {
        let trimmed = pair.trimmingCharacters(in: .whitespaces)
        guard let equals = trimmed.firstIndex(of: "=") else { continue }
        if trimmed[..<equals] == name { return String(trimmed[trimmed.index(after: equals)...]) }
      }
    }
    return nil
  }

  /// 32 random bytes from the system's generator (`getrandom(2)`), as 64 hex digits.
  static func randomToken() -> String {
    var generator = SystemRandomNumberGenerator()
    return (0..<4).map { _ in
      let value = generator.next() as UInt64
      let hex = String(value, radix: 16)
      return String(repeating: "0", count: 16 - hex.count) + hex
    }.joined()
  }

  /// Compares without stopping at the first difference, so timing tells nothing.
  static func constantTimeEquals(_ a: String, _ b: String) -> Bool {
    let x = Array(a.utf8)
    let y = Array(b.utf8)
    var difference = UInt8(x.count == y.count ? 0 : 1)
    for index in 0..<max(x.count, y.count) {
      difference |= (index < x.count ? x[index] : 0) ^ (index < y.count ? y[index] : 0)
    }
    return difference == 0
  }
}
