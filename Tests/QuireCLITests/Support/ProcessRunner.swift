import Foundation

/// The result of running a program with a script on standard input.
struct ProcessResult {
  var status: Int32
  var output: String
  var error: String
}

/// Runs programs for the tests: arguments as arrays, standard input from a pipe.
enum ProcessRunner {
  /// The `quire` executable built beside the test bundle, or `nil` when it is missing.
  static var quire: URL? {
    let folder = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
    let candidates = [folder.appendingPathComponent("quire"), folder.deletingLastPathComponent().appendingPathComponent("quire")]
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
  }

  /// GNU ed, when installed.
  static var ed: URL? {
    ["/usr/bin/ed", "/bin/ed"].map(URL.init(fileURLWithPath:)).first { FileManager.default.isExecutableFile(atPath: $0.path) }
  }

  /// Runs `program` with `arguments` in `folder`, feeding `input` on standard input.
  static func run(
    _ program: URL, _ arguments: [String], in folder: URL, input: String, environment extra: [String: String] = [:]
  ) throws -> ProcessResult {
    let process = Process()
    process.executableURL = program
    process.arguments = arguments
    process.currentDirectoryURL = folder
    var environment = ["PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8", "HOME": folder.path,
                       "XDG_STATE_HOME": folder.appendingPathComponent(".state").path,
                       "XDG_CACHE_HOME": folder.appendingPathComponent(".cache").path]
    environment.merge(extra) { $1 }
    process.environment = environment
    let stdin = Pipe()
    let stdout = Pipe()
    let stderr = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    process.standardError = stderr
    try process.run()
    stdin.fileHandleForWriting.write(Data(input.utf8))
    try stdin.fileHandleForWriting.close()
    // Read both pipes at once so that neither can fill and block the child.
    nonisolated(unsafe) var errorData = Data()
    let group = DispatchGroup()
    group.enter()
    DispatchQueue.global().async {
      errorData = stderr.fileHandleForReading.readDataToEndOfFile()
      group.leave()
    }
    let outputData = stdout.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    process.waitUntilExit()
    return ProcessResult(
      status: process.terminationStatus, output: String(decoding: outputData, as: UTF8.self),
      error: String(decoding: errorData, as: UTF8.self))
  }

  /// Every regular file under `folder` (relative path → contents), skipping dot-folders.
  static func snapshot(_ folder: URL) -> [String: Data] {
    var files: [String: Data] = [:]
    guard let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil, options: [.skipsHiddenFiles]) else { return files }
    for case let url as URL in enumerator {
      if let data = FileManager.default.contents(atPath: url.path), !DocumentsFolderProbe.isFolder(url) {
        files[String(url.path.dropFirst(folder.path.count + 1))] = data
      }
    }
    return files
  }
}

enum DocumentsFolderProbe {
  static func isFolder(_ url: URL) -> Bool {
    var isDirectory: ObjCBool = false
    return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue
  }
}
