internal import CPoppler
public import Foundation

/// A SHA-256 digest of content, computed with GLib's `GChecksum` (GLib is already linked
/// through poppler-glib, so no other library is needed).
///
/// Used to store identical content once (versions) and to name cached items. Not
/// `Sendable`: one digest is fed by one task.
public final class ContentDigest {
  /// The only holder of the `GChecksum`.
  private let raw: OpaquePointer?

  /// Starts an empty SHA-256 digest.
  public init() { raw = g_checksum_new(G_CHECKSUM_SHA256) }
  deinit { if let raw { g_checksum_free(raw) } }

  /// The lowercase hexadecimal SHA-256 of `data`.
  public static func sha256(_ data: Data) -> String {
    let digest = ContentDigest()
    digest.update(data)
    return digest.finalize()
  }

  /// Adds `data` to what is hashed.
  public func update(_ data: Data) {
    guard let raw else { return }
    data.withUnsafeBytes { buffer in
      guard let base = buffer.baseAddress else { return }
      g_checksum_update(raw, base.assumingMemoryBound(to: UInt8.self), buffer.count)
    }
  }

  /// The lowercase hexadecimal digest of everything added; no more can be added after.
  public func finalize() -> String {
    guard let raw, let text = g_checksum_get_string(raw) else { return "" }
    return String(cString: text)
  }
}

@available(*, unavailable)
extension ContentDigest: Sendable {}
