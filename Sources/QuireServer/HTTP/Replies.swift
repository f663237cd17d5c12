import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import QuireTypes

/// Building responses: JSON, pages, images, errors, each with the headers every response of
/// this server carries.
enum Reply {
  /// The policy of the server's own page: its script, style and images only, frames only from
  /// itself (the previews), connections only to itself.
  static let pagePolicy =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; frame-src 'self'; connect-src 'self'; "
    + "form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

  /// Headers every response carries: nothing cached, nothing sniffed, no referrer sent on.
  static func baseHeaders(contentType: String) -> HTTPFields {
    var headers = HTTPFields()
    headers[.contentType] = contentType
    headers[.cacheControl] = "no-store"
    headers[.xContentTypeOptions] = "nosniff"
    headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
    headers[HTTPField.Name("Cross-Origin-Resource-Policy")!] = "same-origin"
    headers[HTTPField.Name("Cross-Origin-Opener-Policy")!] = "same-origin"
    return headers
  }

  /// The replies' JSON: ISO 8601 dates, sorted keys, plain slashes.
  static var encoder: JSONEncoder {
    let encoder = JSONEncoder()
    encoder.dateEncodingStrategy = .iso8601
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return encoder
  }

  static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
    let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
    return bytes(data, status: status, contentType: "application/json; charset=utf-8")
  }

  static func bytes(_ data: some Sequence<UInt8>, status: HTTPResponse.Status = .ok, contentType: String, extra: HTTPFields = [:]) -> Response {
    var headers = baseHeaders(contentType: contentType)
    for field in extra { headers[field.name] = field.value }
    return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: Array(data))))
  }

  /// The error as JSON `{"error": "…"}` with a status that says what kind it is.
  static func error(_ error: any Error) -> Response {
    guard let quireError = error as? QuireError else {
      return json(["error": "The server failed: \(error)"], status: .internalServerError)
    }
    let status: HTTPResponse.Status =
      switch quireError.code {
      case .invalidArgument, .invalidContent: .badRequest
      case .fileMissing: .notFound
      case .permissionDenied: .forbidden
      case .unsupportedType: .unsupportedMediaType
      case .fileExists, .fileChangedOnDisk, .inUse, .unsavedChanges: .conflict
      case .limitExceeded: .contentTooLarge
      default: .internalServerError
      }
    return json(["error": quireError.reason], status: status)
  }

  static func refused(_ status: HTTPResponse.Status, reason: String) -> Response {
    bytes(Data("\(reason)\n".utf8), status: status, contentType: "text/plain; charset=utf-8")
  }
}

extension FlatDictionary where Key == Substring, Value == Substring {
  /// The query parameter `name`; a request without it is refused, naming it.
  func required(_ name: String) throws -> String {
    guard let value = self[name[...]] else { throw QuireError(.invalidArgument, "The request needs a '\(name)' parameter.") }
    return String(value)
  }
}
