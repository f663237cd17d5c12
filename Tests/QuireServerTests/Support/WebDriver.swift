import Foundation
import QuireTestSupport
import Synchronization

/// A real Chromium, headless, driven through Debian's `chromedriver` with the W3C WebDriver
/// protocol (what Selenium speaks), from Swift: no Python, no PyPI.
///
/// One driver, one browser session: the tests start it once and run their checks in order.
final class WebDriver: @unchecked Sendable {
  // @unchecked: `session` is written once in `start` before the driver is shared.
  private let driver: RunningProcess
  let base: URL
  private(set) var session = ""
  let profile: URL

  /// Debian's Chromium and its driver, when installed.
  static var chromium: String? { ["/usr/bin/chromium"].first { FileManager.default.isExecutableFile(atPath: $0) } }
  static var chromedriver: String? { ["/usr/bin/chromedriver"].first { FileManager.default.isExecutableFile(atPath: $0) } }
  static var isAvailable: Bool { chromium != nil && chromedriver != nil }

  private init(driver: RunningProcess, base: URL, profile: URL) {
    self.driver = driver
    self.base = base
    self.profile = profile
  }

  /// Starts `chromedriver --port=0`, waits for the port it reports, and opens a headless
  /// Chromium session with its profile in `folder`.
  static func start(in folder: URL, width: Int = 1400, height: Int = 900) async throws -> WebDriver {
    guard let chromium, let chromedriver else { throw TestFailure("chromium and chromium-driver are not installed (scripts/setup)") }
    let process = try ChildProcess.start(URL(fileURLWithPath: chromedriver), ["--port=0"], discardingErrors: true)
    let line = try await process.output.firstLine(containing: "started successfully on port", within: .seconds(60))
    guard let port = line.split(separator: " ").last.map({ $0.trimmingCharacters(in: CharacterSet.decimalDigits.inverted) }), let number = Int(port) else {
      process.kill()
      throw TestFailure("chromedriver did not say its port: \(line)")
    }
    let profile = folder.appendingPathComponent("chromium-profile")
    let driver = WebDriver(driver: process, base: URL(string: "http://127.0.0.1:\(number)")!, profile: profile)
    let capabilities: [String: Any] = [
      "capabilities": [
        "alwaysMatch": [
          "browserName": "chrome",
          "goog:chromeOptions": [
            "binary": chromium,
            "args": [
              "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
              "--disable-extensions", "--disable-background-networking", "--lang=en-US",
              "--window-size=\(width),\(height)", "--user-data-dir=\(profile.path)",
            ],
          ],
        ]
      ]
    ]
    let reply = try await driver.command("POST", "session", capabilities)
    guard let value = reply as? [String: Any], let id = value["sessionId"] as? String else {
      process.kill()
      throw TestFailure("chromedriver made no session: \(String(describing: reply))")
    }
    driver.session = id
    return driver
  }

  /// Ends the browser session and the driver.
  func quit() async {
    _ = try? await command("DELETE", "session/\(session)", nil)
    // chromedriver does not always end on SIGTERM.
    driver.killAndWait()
  }

  // MARK: Commands

  func navigate(to url: String) async throws {
    _ = try await command("POST", "session/\(session)/url", ["url": url])
  }

  /// Runs `script` (a function body; `arguments[i]` are `args`) in the page and returns its value.
  @discardableResult
  func execute(_ script: String, _ args: [Any] = []) async throws -> Any? {
    try await command("POST", "session/\(session)/execute/sync", ["script": script, "args": args])
  }

  /// Runs an async script: it calls `arguments[arguments.length - 1](value)` when done.
  @discardableResult
  func executeAsync(_ script: String, _ args: [Any] = []) async throws -> Any? {
    try await command("POST", "session/\(session)/execute/async", ["script": script, "args": args])
  }

  /// The element matching a CSS selector (its WebDriver reference).
  func element(_ selector: String) async throws -> [String: Any] {
    let value = try await command("POST", "session/\(session)/element", ["using": "css selector", "value": selector])
    guard let element = value as? [String: Any] else { throw TestFailure("no element for \(selector)") }
    return element
  }

  private func elementID(_ element: [String: Any]) -> String {
    // The W3C web element identifier is the object's one value.
    element.values.first as? String ?? ""
  }

  /// Clicks like a person (the pointer goes to the element's centre).
  func click(_ selector: String) async throws {
    let element = try await element(selector)
    _ = try await command("POST", "session/\(session)/element/\(elementID(element))/click", [:])
  }

  /// Types `text` into the element as key presses.
  func type(_ text: String, into selector: String) async throws {
    let element = try await element(selector)
    _ = try await command("POST", "session/\(session)/element/\(elementID(element))/value", ["text": text])
  }

  /// Clears an input or textarea.
  func clear(_ selector: String) async throws {
    let element = try await element(selector)
    _ = try await command("POST", "session/\(session)/element/\(elementID(element))/clear", [:])
  }

  /// Presses keys on whatever has focus (WebDriver key codes, e.g. "\u{E007}" for Enter).
  func press(_ keys: String) async throws {
    let down = keys.unicodeScalars.map { ["type": "keyDown", "value": String($0)] }
    let up = keys.unicodeScalars.reversed().map { ["type": "keyUp", "value": String($0)] }
    let actions: [String: Any] = ["actions": [["type": "key", "id": "keyboard", "actions": down + up]]]
    _ = try await command("POST", "session/\(session)/actions", actions)
  }

  /// A PNG of the viewport.
  func screenshot() async throws -> Data {
    guard let base64 = try await command("GET", "session/\(session)/screenshot", nil) as? String, let data = Data(base64Encoded: base64) else {
      throw TestFailure("no screenshot")
    }
    return data
  }

  /// Waits until `script` returns true in the page (polled), or fails after `limit` (generous:
  /// it returns as soon as the page says so).
  func wait(for what: String, until script: String, _ args: [Any] = [], limit: Duration = patience) async throws {
    FileHandle.standardError.write(Data("page test: waiting for \(what)\n".utf8))
    var last: Any? = nil
    let done = await eventually(timeout: limit, every: .milliseconds(100)) {
      last = try? await execute(script, args)
      return last as? Bool == true
    }
    guard done else { throw TestFailure("waited \(limit) for \(what); the page last said \(String(describing: last))") }
  }

  // MARK: The wire

  private func command(_ method: String, _ path: String, _ body: Any?) async throws -> Any? {
    let payload = try body.map { try JSONSerialization.data(withJSONObject: $0) }
    let (status, data) = try await LoopbackHTTP.send(method, path: "/" + path, port: base.port ?? 0, body: payload)
    let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
    let value = (object as? [String: Any])?["value"]
    if status >= 400 {
      let message = ((value as? [String: Any])?["message"] as? String) ?? String(decoding: data.prefix(500), as: UTF8.self)
      throw TestFailure("WebDriver \(method) \(path) failed (\(status)): \(message)")
    }
    return value is NSNull ? nil : value
  }
}

/// HTTP/1.1 to a port on 127.0.0.1, one request per connection (`Connection: close`), on a
/// Dispatch thread: all chromedriver needs.
enum LoopbackHTTP {
  static func send(_ method: String, path: String, port: Int, body: Data?) async throws -> (status: Int, body: Data) {
    try await withCheckedThrowingContinuation { continuation in
      DispatchQueue.global().async {
        continuation.resume(with: Result { try sendBlocking(method, path: path, port: port, body: body) })
      }
    }
  }

  private static func sendBlocking(_ method: String, path: String, port: Int, body: Data?) throws -> (status: Int, body: Data) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw TestFailure("socket failed") }
    defer { close(fd) }
    // No command may hang the tests: a read waits at most two minutes.
    var limit = timeval(tv_sec: 120, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard connected == 0 else { throw TestFailure("cannot connect to 127.0.0.1:\(port)") }
    var request = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
    if let body {
      request += "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n"
    } else if method == "POST" {
      request += "Content-Length: 0\r\n"
    }
    var bytes = Data((request + "\r\n").utf8)
    if let body { bytes.append(body) }
    try bytes.withUnsafeBytes { raw in
      var offset = 0
      while offset < raw.count {
        let written = write(fd, raw.baseAddress! + offset, raw.count - offset)
        if written < 0 { if errno == EINTR { continue } else { throw TestFailure("write failed") } }
        offset += written
      }
    }
    // Read until the body is complete: Content-Length when given (chromedriver may keep the
    // connection open), else until the server closes it.
    var response = Data()
    var buffer = [UInt8](repeating: 0, count: 65536)
    var expected: Int? = nil
    while true {
      if let end = response.range(of: Data("\r\n\r\n".utf8)) {
        if expected == nil {
          let head = String(decoding: response[..<end.lowerBound], as: UTF8.self).lowercased()
          let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }.flatMap {
            Int($0.dropFirst(15).trimmingCharacters(in: .whitespaces))
          }
          expected = length.map { end.upperBound - response.startIndex + $0 } ?? Int.max
        }
        if let expected, response.count >= expected { break }
      }
      let count = read(fd, &buffer, buffer.count)
      if count < 0 { if errno == EINTR { continue } else { throw TestFailure("read failed") } }
      if count == 0 { break }
      response.append(contentsOf: buffer[0..<count])
    }
    guard let end = response.range(of: Data("\r\n\r\n".utf8)) else { throw TestFailure("no HTTP response from 127.0.0.1:\(port)") }
    let head = String(decoding: response[..<end.lowerBound], as: UTF8.self)
    let status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
    var payload = Data(response[end.upperBound...])
    if head.lowercased().contains("transfer-encoding: chunked") { payload = dechunk(payload) }
    return (status, payload)
  }

  private static func dechunk(_ data: Data) -> Data {
    var out = Data()
    var rest = data[...]
    while let lineEnd = rest.range(of: Data("\r\n".utf8)) {
      let size = Int(String(decoding: rest[..<lineEnd.lowerBound], as: UTF8.self).split(separator: ";").first ?? "", radix: 16) ?? 0
      if size == 0 { break }
      let start = lineEnd.upperBound
      guard rest.distance(from: start, to: rest.endIndex) >= size else { break }
      let stop = rest.index(start, offsetBy: size)
      out.append(rest[start..<stop])
      rest = rest[rest.index(stop, offsetBy: min(2, rest.distance(from: stop, to: rest.endIndex)))...]
    }
    return out
  }
}
