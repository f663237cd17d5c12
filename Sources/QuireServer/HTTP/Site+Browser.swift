import Foundation
import Hummingbird

extension Site {
  func browserRoute(_ request: inout Request, path: String) async throws -> Response? { nil }
  func noteRecent(_ url: URL) {}
}
