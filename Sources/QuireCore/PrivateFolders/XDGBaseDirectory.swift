package import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The XDG base directories that hold per-user files, resolved as the XDG Base Directory
/// specification says: a variable counts only when it is set to an absolute path; otherwise
/// its fallback under `$HOME` is used.
///
/// `XDG_RUNTIME_DIR` has no fallback in the specification, which asks for "a replacement
/// directory with similar capabilities": Quire uses `/tmp/quire-runtime-<euid>`, made 0700
/// and refused when it is a symbolic link or another user's (see ``PrivateFolder``).
package enum XDGBaseDirectory: String, Sendable, CaseIterable {
  /// `$XDG_CACHE_HOME`, else `$HOME/.cache`.
  case cacheHome = "XDG_CACHE_HOME"
  /// `$XDG_STATE_HOME`, else `$HOME/.local/state`.
  case stateHome = "XDG_STATE_HOME"
  /// `$XDG_DATA_HOME`, else `$HOME/.local/share`.
  case dataHome = "XDG_DATA_HOME"
  /// `$XDG_RUNTIME_DIR`, else `/tmp/quire-runtime-<euid>`.
  case runtimeDirectory = "XDG_RUNTIME_DIR"

  /// The environment variable's name.
  package var variable: String { rawValue }

  /// A resolved base directory.
  package struct Location: Sendable, Hashable {
    /// The base directory.
    package var url: URL
    /// Whether the variable was unset, empty or relative, so the fallback is used.
    package var isFallback: Bool
    /// The folder a ``PrivateFolder`` under ``url`` may be made below: ``url`` itself (the
    /// user's or the session's choice, used as it is), except for the runtime fallback,
    /// where it is `/tmp`, so that the shared `/tmp/quire-runtime-<euid>` is checked too.
    package var trustedFolder: URL
  }

  /// Where this base directory is for `environment`; nothing is created.
  package func location(in environment: [String: String] = ProcessInfo.processInfo.environment) -> Location {
    if let value = environment[variable], value.hasPrefix("/") {
      let url = URL(fileURLWithPath: value, isDirectory: true).standardizedFileURL
      return Location(url: url, isFallback: false, trustedFolder: url)
    }
    let fallback: URL
    switch self {
    case .runtimeDirectory:
      fallback = URL(fileURLWithPath: "/tmp/quire-runtime-\(geteuid())", isDirectory: true)
      return Location(url: fallback, isFallback: true, trustedFolder: URL(fileURLWithPath: "/tmp", isDirectory: true))
    case .cacheHome: fallback = Self.home(in: environment).appendingPathComponent(".cache", isDirectory: true)
    case .stateHome: fallback = Self.home(in: environment).appendingPathComponent(".local/state", isDirectory: true)
    case .dataHome: fallback = Self.home(in: environment).appendingPathComponent(".local/share", isDirectory: true)
    }
    return Location(url: fallback, isFallback: true, trustedFolder: fallback)
  }

  /// The base directory's URL for `environment` (``location(in:)``'s `url`).
  package func url(in environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
    location(in: environment).url
  }

  /// `$HOME` when absolute, else the home folder of the user's password entry.
  package static func home(in environment: [String: String]) -> URL {
    if let home = environment["HOME"], home.hasPrefix("/") {
      return URL(fileURLWithPath: home, isDirectory: true).standardizedFileURL
    }
    if let entry = getpwuid(geteuid()), let directory = entry.pointee.pw_dir, String(cString: directory).hasPrefix("/") {
      return URL(fileURLWithPath: String(cString: directory), isDirectory: true)
    }
    return URL(fileURLWithPath: NSHomeDirectory(), isDirectory: true)
  }
}
