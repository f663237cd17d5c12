public import Foundation
public import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// A fresh folder under the system's temporary folder, for one test.
///
/// Tests make one per test (a new instance of the suite per test does this) and call
/// ``remove()`` in `deinit`.
public final class TemporaryFolder: Sendable {
  /// The folder.
  public let url: URL

  public init(prefix: String = "quire-test") throws {
    var template = Array((NSTemporaryDirectory() + "/\(prefix)-XXXXXX").utf8CString)
    guard let path = mkdtemp(&template) else {
      throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: NSTemporaryDirectory()])
    }
    url = URL(fileURLWithPath: String(cString: path), isDirectory: true).resolvingSymlinksInPath()
  }

  /// A URL for `name` inside the folder.
  public func file(_ name: String) -> URL { url.appendingPathComponent(name) }

  /// Makes the folder `name` inside (mode 0700, as Quire wants its runtime and state folders)
  /// and returns its URL.
  @discardableResult
  public func privateFolder(_ name: String) throws -> URL {
    let target = file(name)
    try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    return target
  }

  /// Writes `text` as UTF-8 to `name` and returns its URL.
  @discardableResult
  public func write(_ text: String, to name: String) throws -> URL {
    let target = file(name)
    try Data(text.utf8).write(to: target)
    return target
  }

  /// Writes `text` to a file named by the bytes `name`, a path relative to the folder (any
  /// bytes but NUL: a name that is not UTF-8, which no `String` or `URL` holds; `/` separates
  /// folders that must exist) and returns the file's path as bytes (without the terminating NUL).
  @discardableResult
  public func write(_ text: String, toNameBytes name: [UInt8]) throws -> [UInt8] {
    let path = Array(url.path.utf8) + [UInt8(ascii: "/")] + name
    let fd = (path + [0]).withUnsafeBufferPointer {
      $0.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644) }
    }
    guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    defer { close(fd) }
    let bytes = Array(text.utf8)
    guard bytes.withUnsafeBytes({ Glibc.write(fd, $0.baseAddress, $0.count) }) == bytes.count else { throw POSIXError(.EIO) }
    return path
  }

  /// The path of `name` inside the folder, `name` given by its bytes: a relative path of any
  /// bytes but NUL, names that are not UTF-8 too.
  public func path(nameBytes name: [UInt8]) -> FilePath {
    let bytes = Array(url.path.utf8) + [UInt8(ascii: "/")] + name + [0]
    return bytes.withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { FilePath(platformString: $0.baseAddress!) } }
  }

  /// The bytes of the file at `path` (any name, read by its bytes), or `nil` when it cannot be
  /// opened.
  public func contents(of path: FilePath) -> [UInt8]? {
    guard let descriptor = try? FileDescriptor.open(path, .readOnly, options: .noFollow) else { return nil }
    return try? descriptor.closeAfter {
      var bytes: [UInt8] = []
      var buffer = [UInt8](repeating: 0, count: 65536)
      while case let count = try buffer.withUnsafeMutableBytes({ try descriptor.read(into: $0) }), count > 0 { bytes += buffer[..<count] }
      return bytes
    }
  }

  /// The bytes of the file named by the bytes `name` in the folder, or `nil`.
  public func contents(ofNameBytes name: [UInt8]) -> [UInt8]? { contents(of: path(nameBytes: name)) }

  /// Removes the folder and everything in it, names that are not UTF-8 too (Foundation's
  /// `removeItem` cannot name those, and would leave them and their folders behind).
  public func remove() {
    Self.removeTree(Array(url.path.utf8))
  }

  private static func removeTree(_ path: [UInt8]) {
    let cPath = (path + [0]).map { CChar(bitPattern: $0) }
    var info = stat()
    guard lstat(cPath, &info) == 0 else { return }
    if info.st_mode & S_IFMT == S_IFDIR {
      chmod(cPath, 0o700)
      if let directory = opendir(cPath) {
        var names: [[UInt8]] = []
        while let entry = readdir(directory) {
          let name = withUnsafeBytes(of: &entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
          if name != [0x2E] && name != [0x2E, 0x2E] { names.append(name) }
        }
        closedir(directory)
        for name in names { removeTree(path + [UInt8(ascii: "/")] + name) }
      }
      rmdir(cPath)
    } else {
      unlink(cPath)
    }
  }
}

/// The shared corpus beside the project (`../shared/corpus`), when this checkout has one.
///
/// Tests that use it call this and skip, printing why, when it returns `nil`.
public func sharedCorpus(_ folder: String, filePath: String = #filePath) -> URL? {
  var url = URL(fileURLWithPath: filePath)
  for _ in 0..<8 {
    url.deleteLastPathComponent()
    let candidate = url.appendingPathComponent("../shared/corpus/\(folder)").standardizedFileURL
    if FileManager.default.fileExists(atPath: candidate.path) { return candidate }
  }
  print("note: ../shared/corpus/\(folder) is absent; skipping the checks that use it")
  return nil
}

/// Whether the tests run as root, where `chmod 000` does not stop reads.
public var isRunningAsRoot: Bool { geteuid() == 0 }

/// The base of a test suite that works in a temporary folder of its own: Swift Testing makes
/// one instance of a suite per test, so each test gets a fresh folder, removed when the
/// instance goes.
open class FolderSuite {
  /// This test's temporary folder.
  public let folder: TemporaryFolder

  /// Makes the folder.
  /// - Parameter prefix: The start of the folder's name, which tells whose a leftover folder
  ///   is; by default `quire-` and the suite's type name.
  public init(prefix: String? = nil) throws { folder = try TemporaryFolder(prefix: prefix ?? "quire-\(Self.self)") }

  /// Takes `folder`, made by a subclass that needs it for a property of its own before this
  /// initializer runs (a store or pasteboard inside it).
  public init(folder: TemporaryFolder) { self.folder = folder }

  deinit { folder.remove() }
}

/// ``FolderSuite`` for a suite isolated to the main actor: a main-actor class that inherits
/// from a nonisolated one is not sendable, and Swift Testing needs its suites to be.
@MainActor
open class MainActorFolderSuite {
  /// This test's temporary folder.
  public let folder: TemporaryFolder

  /// Makes the folder.
  /// - Parameter prefix: The start of the folder's name, which tells whose a leftover folder
  ///   is; by default `quire-` and the suite's type name.
  public init(prefix: String? = nil) throws { folder = try TemporaryFolder(prefix: prefix ?? "quire-\(Self.self)") }

  /// Takes `folder`, made by a subclass that needs it for a property of its own before this
  /// initializer runs (a store or pasteboard inside it).
  public init(folder: TemporaryFolder) { self.folder = folder }

  deinit { folder.remove() }
}
