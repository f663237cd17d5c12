public import Foundation

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

  /// Removes the folder and everything in it.
  public func remove() {
    try? FileManager.default.removeItem(at: url)
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
