import Foundation
import SystemPackage

/// The text of the file at `url` (UTF-8), or `nil` when it is missing or not UTF-8: what a
/// test expects a session or a command to have left in a file.
func contents(_ url: URL) -> String? { try? String(contentsOf: url, encoding: .utf8) }

/// Appends a line to the file at `path` (named by its bytes) every 30 ms, 2,000 times at most,
/// until the task is cancelled: changes for `quire watch` to report however late it starts
/// watching on a loaded machine.
func keepAppending(to path: FilePath) -> Task<Void, Never> {
  Task.detached {
    for _ in 0..<2000 where !Task.isCancelled {
      try? await Task.sleep(for: .milliseconds(30))
      let fd = path.withPlatformString { open($0, O_WRONLY | O_APPEND | O_CLOEXEC) }
      guard fd >= 0 else { continue }
      _ = write(fd, "more\n", 5)
      close(fd)
    }
  }
}
