internal import CPoppler
import Foundation
import QuireTypes

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
