internal import CCrypto
public import Foundation

/// A SHA-256 digest of content, computed with OpenSSL's libcrypto (its EVP interface, which
/// uses the CPU's SHA instructions where there are any: about 2 GB/s here, ten times GLib's
/// `GChecksum`).
///
/// Used to store identical content once (versions) and to name cached items. Not
/// `Sendable`: one digest is fed by one task.
public final class ContentDigest {
  /// The only holder of the digest context; `nil` only when OpenSSL could not make one.
  private let context: OpaquePointer?
  /// The digest, once ``finalize()`` has been called.
  private var result: String?

  /// Starts an empty SHA-256 digest.
  public init() {
    let context = EVP_MD_CTX_new()
    if let context, EVP_DigestInit_ex(context, EVP_sha256(), nil) != 1 {
      EVP_MD_CTX_free(context)
      self.context = nil
    } else {
      self.context = context
    }
  }

  deinit { if let context { EVP_MD_CTX_free(context) } }

  /// The lowercase hexadecimal SHA-256 of `data`.
  public static func sha256(_ data: Data) -> String {
    let digest = ContentDigest()
    digest.update(data)
    return digest.finalize()
  }

  /// Adds `data` to what is hashed.
  public func update(_ data: Data) {
    data.withUnsafeBytes { update($0) }
  }

  /// Adds `bytes` to what is hashed (read during the call only).
  public func update(_ bytes: UnsafeRawBufferPointer) {
    guard let context, result == nil, let base = bytes.baseAddress, !bytes.isEmpty else { return }
    EVP_DigestUpdate(context, base, bytes.count)
  }

  /// The lowercase hexadecimal digest of everything added; no more can be added after (a
  /// second call returns the same digest). Empty when OpenSSL could not make a digest context
  /// (out of memory), which no stored content is ever named.
  public func finalize() -> String {
    if let result { return result }
    guard let context else { return "" }
    var bytes = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
    var length: UInt32 = 0
    guard EVP_DigestFinal_ex(context, &bytes, &length) == 1 else { return "" }
    let hex = Array("0123456789abcdef".utf8)
    var text = [UInt8]()
    text.reserveCapacity(Int(length) * 2)
    for byte in bytes.prefix(Int(length)) {
      text.append(hex[Int(byte >> 4)])
      text.append(hex[Int(byte & 0x0F)])
    }
    let digest = String(decoding: text, as: UTF8.self)
    result = digest
    return digest
  }
}

@available(*, unavailable)
extension ContentDigest: Sendable {}
