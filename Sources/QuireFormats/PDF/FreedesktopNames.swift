internal import CPoppler
import Foundation
import QuireTypes
public import SystemPackage

/// File URIs and MD5 names computed by GLib, exactly as GNOME's thumbnail factory does.
///
/// The Thumbnail Managing Standard names a cached thumbnail after the MD5 of the file's URI,
/// so Quire must escape the URI byte for byte as GLib's `g_filename_to_uri` does; using GLib
/// itself (already linked through poppler-glib) guarantees that.
public enum FreedesktopNames {
  /// The `file://` URI of the absolute `path` (`g_filename_to_uri`).
  /// - Throws: ``QuireError`` (`.invalidArgument`) when `path` is not absolute.
  public static func fileURI(forPath path: String) throws -> String {
    var error: UnsafeMutablePointer<GError>?
    guard let raw = g_filename_to_uri(path, nil, &error) else {
      let message = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
      if let error { cpoppler_error_release(error) }
      throw QuireError(.invalidArgument, "Cannot make a file URI of '\(path)': \(message). Give an absolute path.")
    }
    defer { cpoppler_free(raw) }
    return String(cString: raw)
  }

  /// The `file://` URI of the absolute `path`, whose name may be any bytes: a byte that is not
  /// UTF-8 is percent-escaped (`%FF`), as GLib does for the thumbnail cache.
  /// - Throws: ``QuireError`` (`.invalidArgument`) when `path` is not absolute.
  public static func fileURI(for path: FilePath) throws -> String {
    var error: UnsafeMutablePointer<GError>?
    guard let raw = path.withPlatformString({ g_filename_to_uri($0, nil, &error) }) else {
      let message = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
      if let error { cpoppler_error_release(error) }
      throw QuireError(.invalidArgument, "Cannot make a file URI of '\(DisplayName.escaping(path))': \(message). Give an absolute path.")
    }
    defer { cpoppler_free(raw) }
    return String(cString: raw)
  }

  /// The local path of a `file://` URI with the bytes its escapes stand for (`%FF` is the byte
  /// 0xFF), or nil for other URIs.
  public static func filePath(forFileURI uri: String) -> FilePath? {
    guard let raw = g_filename_from_uri(uri, nil, nil) else { return nil }
    defer { cpoppler_free(raw) }
    return FilePath(platformString: raw)
  }

  /// The local path of a `file://` URI (`g_filename_from_uri`), or nil for other URIs.
  public static func path(forFileURI uri: String) -> String? {
    guard let raw = g_filename_from_uri(uri, nil, nil) else { return nil }
    defer { cpoppler_free(raw) }
    return String(cString: raw)
  }

  /// The lowercase hex MD5 of `text`'s UTF-8 bytes (`g_compute_checksum_for_string`).
  public static func md5Hex(_ text: String) -> String {
    guard let raw = cpoppler_md5_hex(text) else { return "" }
    defer { cpoppler_free(raw) }
    return String(cString: raw)
  }
}
