import Foundation

/// The text of the file at `url` (UTF-8), or `nil` when it is missing or not UTF-8: what a
/// test expects a session or a command to have left in a file.
func contents(_ url: URL) -> String? { try? String(contentsOf: url, encoding: .utf8) }
