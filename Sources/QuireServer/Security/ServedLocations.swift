public import Foundation
import QuireSystem
public import QuireTypes
import SystemPackage

/// The folders a server shows, and the one way a request names a file in them.
///
/// A page names a document by a *reference*: the index of its folder, a slash, and its path
/// inside that folder (`0/notes/plan.md`). ``url(forReference:)`` is the only way back from a
/// reference to a file, and it refuses everything that could leave the folder: `.` and `..`
/// components, empty components, NUL bytes, a slash hidden in a component (`%2F` once
/// decoded), and any path whose real location (symbolic links resolved) is not inside the
/// folder's own real location. Special files (FIFOs, devices, sockets) are refused too, so
/// no reader ever blocks on one.
public struct ServedLocations: Sendable {
  /// The served folders, as given (standardized), in order.
  public let folders: [URL]
  /// The same folders with symbolic links resolved: what containment is checked against.
  let realFolders: [String]

  /// Serves `folders`.
  ///
  /// - Throws: ``QuireError`` naming the first folder that is missing or not a folder.
  public init(folders: [URL]) throws(QuireError) {
    var given: [URL] = []
    var real: [String] = []
    for folder in folders {
      let standardized = folder.standardizedFileURL
      var isFolder: ObjCBool = false
      guard FileManager.default.fileExists(atPath: standardized.path, isDirectory: &isFolder) else {
        throw QuireError(.fileMissing, "Cannot serve \(QuireError.name(standardized)): it does not exist. Check the path.", url: standardized)
      }
      guard isFolder.boolValue else {
        throw QuireError(
          .invalidArgument, "Cannot serve \(QuireError.name(standardized)): it is not a folder. Give the folder that holds it.", url: standardized)
      }
      given.append(standardized)
      real.append(Self.realPath(standardized.path) ?? standardized.path)
    }
    guard !given.isEmpty else { throw QuireError(.invalidArgument, "Give at least one folder to serve.") }
    self.folders = given
    self.realFolders = real
  }

  /// The reference of `url`, or `nil` when it is not inside a served folder.
  public func reference(for url: URL) -> String? {
    let path = url.standardizedFileURL.path
    let real = Self.realPath(path) ?? path
    for (index, folder) in folders.enumerated() {
      for root in [folder.path, realFolders[index]] {
        let prefix = root.hasSuffix("/") ? root : root + "/"
        if path.hasPrefix(prefix) { return "\(index)/" + path.dropFirst(prefix.count) }
        if real.hasPrefix(prefix) { return "\(index)/" + real.dropFirst(prefix.count) }
      }
    }
    return nil
  }

  /// The file a reference names.
  ///
  /// - Parameter reference: `INDEX/PATH` (already percent-decoded once; see
  ///   ``url(forPathSegments:)`` for raw URL paths).
  /// - Throws: ``QuireError`` (`invalidArgument`) for a malformed reference or one that leaves
  ///   the folder, (`fileMissing`) for a file that does not exist, (`unsupportedType`) for a
  ///   special file.
  public func url(forReference reference: String) throws(QuireError) -> URL {
    guard let slash = reference.firstIndex(of: "/"), let index = Int(reference[..<slash]) else {
      throw QuireError(.invalidArgument, "'\(Self.shown(reference))' is not a document reference (FOLDER-INDEX/PATH).")
    }
    let components = reference[reference.index(after: slash)...].split(separator: "/", omittingEmptySubsequences: false).map(String.init)
    return try url(location: index, components: components, shown: reference)
  }

  /// The file a raw URL path names: `segments` are the path's segments after the route
  /// (`/files/0/a%20b.md` gives `["0", "a%20b.md"]`), each still percent-encoded. A segment
  /// that decodes to something holding a slash (`%2F`) is refused, never split.
  public func url(forPathSegments segments: [Substring]) throws(QuireError) -> URL {
    let shown = segments.joined(separator: "/")
    guard let first = segments.first, let index = Int(first) else {
      throw QuireError(.invalidArgument, "'\(Self.shown(shown))' is not a document path (FOLDER-INDEX/PATH).")
    }
    var components: [String] = []
    for segment in segments.dropFirst() {
      guard let decoded = String(segment).removingPercentEncoding else {
        throw QuireError(.invalidArgument, "'\(Self.shown(shown))' has a bad percent escape.")
      }
      if decoded.contains("/") {
        throw QuireError(.invalidArgument, "'\(Self.shown(shown))' hides a slash in a path component (%2F); refused.")
      }
      components.append(decoded)
    }
    return try url(location: index, components: components, shown: shown)
  }

  /// The folder at `index`.
  public func folder(at index: Int) throws(QuireError) -> URL {
    guard folders.indices.contains(index) else {
      throw QuireError(.invalidArgument, "There is no served folder number \(index); this server has \(folders.count).")
    }
    return folders[index]
  }

  /// Whether `name` may be a single file name inside a folder (a rename's or a new file's).
  public static func isAcceptableName(_ name: String) -> Bool {
    !name.isEmpty && name != "." && name != ".." && !name.contains("/") && !name.contains("\0") && name.utf8.count <= 255
  }

  private func url(location index: Int, components: [String], shown: String) throws(QuireError) -> URL {
    let folder = try folder(at: index)
    for component in components {
      if component.isEmpty || component == "." || component == ".." || component.contains("\0") || component.contains("/") {
        throw QuireError(.invalidArgument, "'\(Self.shown(shown))' leaves the served folder or is malformed; refused.")
      }
    }
    var url = folder
    for component in components { url.appendPathComponent(component) }
    // Containment is checked on the real path: a symbolic link that points out is refused.
    guard let real = Self.realPath(url.path) else {
      throw QuireError(.fileMissing, "\(QuireError.name(url)) does not exist in the served folder.", url: url)
    }
    let root = realFolders[index]
    let prefix = root.hasSuffix("/") ? root : root + "/"
    guard real == root || real.hasPrefix(prefix) else {
      throw QuireError(.invalidArgument, "'\(Self.shown(shown))' leads out of the served folder (through a symbolic link); refused.")
    }
    guard case .success(let status) = SystemCalls.lstat(FilePath(real)) else {
      throw QuireError(.fileMissing, "\(QuireError.name(url)) does not exist in the served folder.", url: url)
    }
    let kind = status.st_mode & S_IFMT
    guard kind == S_IFREG || kind == S_IFDIR else {
      throw QuireError(.unsupportedType, "\(QuireError.name(url)) is a special file (FIFO, device or socket); Quire does not open those.", url: url)
    }
    return url
  }

  /// `realpath(3)`: the path with every symbolic link and `..` resolved, or `nil` when some
  /// part is missing.
  static func realPath(_ path: String) -> String? {
    SystemCalls.resolvedPath(path)
  }

  /// A reference as it may appear in a message: at most 200 characters, no control characters.
  static func shown(_ text: String) -> String {
    String(text.unicodeScalars.prefix(200).map { $0.value < 0x20 || $0.value == 0x7F ? "?" : Character($0) })
  }
}
