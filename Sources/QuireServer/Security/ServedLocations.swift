public import Foundation
import QuireBrowser
import QuireSystem
public import QuireTypes
import SystemPackage

/// The folders a server shows, and the one way a request names a file in them.
///
/// A page names a document by a *reference*: the index of its folder, a slash, and its path
/// inside that folder (`0/notes/plan.md`). ``url(forReference:)`` is the only way back from a
/// reference to a file, and it refuses everything that could leave the folder: `.` and `..`
/// components, empty components, NUL bytes, a slash hidden in a component (`%2F` once
/// decoded), and any symbolic link on the way. Special files (FIFOs, devices, sockets) are
/// refused too, so no reader ever blocks on one.
///
/// A route that reads a file's bytes does not read by the URL: ``open(reference:)`` opens the
/// file beneath the served folder's descriptor through the one confined opener
/// (`InputFile.open(_:beneath:…)`: `openat2` with `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS`,
/// `O_NONBLOCK`, then `fstat` requiring a regular file), and the route reads that descriptor
/// only. A file swapped for a link or a FIFO after the check is then refused, not followed.
public struct ServedLocations: Sendable {
  /// The served folders, as given (standardized), in order.
  public let folders: [URL]
  /// The same folders with symbolic links resolved: what references are made against.
  let realFolders: [String]
  /// The served folders' descriptors (held for the server's life): what files are opened beneath.
  let roots: [FolderHandle]

  /// Serves `folders`.
  ///
  /// - Throws: ``QuireError`` naming the first folder that is missing or not a folder.
  public init(folders: [URL]) throws(QuireError) {
    var given: [URL] = []
    var real: [String] = []
    var roots: [FolderHandle] = []
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
      // The folder itself is the user's choice: its own path may pass through links.
      switch SystemCalls.open(PathText.path(standardized.path), O_RDONLY | O_DIRECTORY) {
      case .success(let fd): roots.append(FolderHandle(fd))
      case .failure(let failure):
        throw QuireError(
          QuireError.Code(failure.errno), "Cannot serve \(QuireError.name(standardized)): it cannot be opened (\(failure)).", url: standardized,
          cause: failure)
      }
    }
    guard !given.isEmpty else { throw QuireError(.invalidArgument, "Give at least one folder to serve.") }
    self.folders = given
    self.realFolders = real
    self.roots = roots
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
    let (index, components, shown) = try Self.decode(segments)
    return try url(location: index, components: components, shown: shown)
  }

  /// A raw URL path's folder index and decoded components.
  private static func decode(_ segments: [Substring]) throws(QuireError) -> (Int, [String], String) {
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
    return (index, components, shown)
  }

  /// The folder at `index`.
  public func folder(at index: Int) throws(QuireError) -> URL {
    guard folders.indices.contains(index) else {
      throw QuireError(.invalidArgument, "There is no served folder number \(index); this server has \(folders.count).")
    }
    return folders[index]
  }

  /// Whether `name` may be a single file name inside a folder (a rename's or a new file's):
  /// the browser's rule (`DocumentBrowser.problem(withName:)`), which says why not.
  public static func isAcceptableName(_ name: String) -> Bool {
    DocumentBrowser.problem(withName: name) == nil
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
    if components.isEmpty { return url }
    // Checked by opening it as readers will: beneath the folder, through no link, no special file.
    let fd = try InputFile.open(components.joined(separator: "/"), beneath: roots[index].fd, url: url, for: "serve", naming: true)
    SystemCalls.release(FileDescriptor(rawValue: fd))
    return url
  }

  /// A served file, opened for reading: read it through this object only (never by its URL,
  /// which may name another file by now). The descriptor closes when the object goes.
  public final class OpenedFile: Sendable {
    /// The URL it was opened by (for names and messages).
    public let url: URL
    /// The open descriptor (a regular file).
    let descriptor: FileDescriptor
    /// Its size in bytes when opened.
    public let size: Int64

    init(url: URL, descriptor: FileDescriptor, size: Int64) {
      (self.url, self.descriptor, self.size) = (url, descriptor, size)
    }

    deinit { SystemCalls.release(descriptor) }

    /// Up to `count` bytes from `offset` (`pread`); fewer at the end of the file.
    public func read(at offset: Int64, count: Int) throws(QuireError) -> [UInt8] {
      var bytes = [UInt8](repeating: 0, count: count)
      var filled = 0
      while filled < count {
        let result = bytes.withUnsafeMutableBytes {
          SystemCalls.read(descriptor, into: UnsafeMutableRawBufferPointer(rebasing: $0[filled...]), at: Int(offset) + filled)
        }
        switch result {
        case .success(0): return Array(bytes[..<filled])
        case .success(let got): filled += got
        case .failure(let failure):
          throw QuireError(QuireError.Code(failure.errno), "Cannot read \(QuireError.name(url)): \(failure).", url: url, cause: failure)
        }
      }
      return bytes
    }

    /// The path that reaches this very file while it is open (`/proc/self/fd/N`), for readers
    /// that take a path (poppler); it names the open file, not whatever is at its name now.
    public var pinnedPath: String { "/proc/self/fd/\(descriptor.rawValue)" }
  }

  /// Opens the regular file `reference` names for reading, beneath its served folder, through
  /// no symbolic link, without waiting on a FIFO.
  ///
  /// - Throws: ``QuireError`` as ``url(forReference:)`` does, and (`unsupportedType`) for a
  ///   folder or a special file, (`invalidArgument`) for a link.
  public func open(reference: String) throws(QuireError) -> OpenedFile {
    guard let slash = reference.firstIndex(of: "/"), let index = Int(reference[..<slash]) else {
      throw QuireError(.invalidArgument, "'\(Self.shown(reference))' is not a document reference (FOLDER-INDEX/PATH).")
    }
    let components = reference[reference.index(after: slash)...].split(separator: "/", omittingEmptySubsequences: false).map(String.init)
    return try open(location: index, components: components, shown: reference)
  }

  /// Opens the regular file a raw URL path names; see ``url(forPathSegments:)`` and ``open(reference:)``.
  public func open(pathSegments segments: [Substring]) throws(QuireError) -> OpenedFile {
    let (index, components, shown) = try Self.decode(segments)
    return try open(location: index, components: components, shown: shown)
  }

  private func open(location index: Int, components: [String], shown: String) throws(QuireError) -> OpenedFile {
    let url = try url(location: index, components: components, shown: shown)
    let fd = FileDescriptor(rawValue: try InputFile.open(components.joined(separator: "/"), beneath: roots[index].fd, url: url, for: "read"))
    guard case .success(let status) = SystemCalls.fstat(fd) else {
      SystemCalls.release(fd)
      throw QuireError(.systemCallFailed, "\(QuireError.name(url)) cannot be inspected.", url: url)
    }
    return OpenedFile(url: url, descriptor: fd, size: Int64(status.st_size))
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

/// A served folder's descriptor, closed when the last `ServedLocations` holding it goes.
final class FolderHandle: Sendable {
  let fd: FileDescriptor
  init(_ fd: FileDescriptor) { self.fd = fd }
  deinit { SystemCalls.release(fd) }
}
