import CGit2
import Foundation
public import QuireTypes

/// Three-way text merge through libgit2's `git_merge_file` (git's xdiff merge).
///
/// Edits that do not overlap are combined; overlapping ones are kept both, between
/// `<<<<<<< mine`, `=======` and `>>>>>>> theirs (on disk)` lines.
public enum TextMerge {
  /// The merged text and how many conflict regions it has.
  public struct Result: Sendable, Hashable {
    public var text: String
    public var conflicts: Int
  }

  private static let initialized: Bool = git_libgit2_init() >= 0

  /// Merges `mine` and `theirs`, both edited from `base`.
  ///
  /// - Throws: ``QuireError/Code/libraryFailure`` with libgit2's message when the merge fails.
  public static func merge(
    base: String, mine: String, theirs: String, mineLabel: String = "mine", theirsLabel: String = "theirs (on disk)"
  ) throws(QuireError) -> Result {
    guard initialized else { throw QuireError(.libraryFailure, "libgit2 did not initialize.") }
    var options = git_merge_file_options()
    git_merge_file_options_init(&options, UInt32(GIT_MERGE_FILE_OPTIONS_VERSION))
    var output = git_merge_file_result()
    let status: Int32 = base.withCString { basePtr in
      mine.withCString { minePtr in
        theirs.withCString { theirsPtr in
          mineLabel.withCString { ourLabel in
            theirsLabel.withCString { theirLabel in
              "base".withCString { baseLabel in
                var ancestor = input(basePtr, base.utf8.count)
                var ours = input(minePtr, mine.utf8.count)
                var their = input(theirsPtr, theirs.utf8.count)
                options.ancestor_label = baseLabel
                options.our_label = ourLabel
                options.their_label = theirLabel
                return git_merge_file(&output, &ancestor, &ours, &their, &options)
              }
            }
          }
        }
      }
    }
    defer { git_merge_file_result_free(&output) }
    guard status == 0 else {
      let message = git_error_last().flatMap { $0.pointee.message.map { String(cString: $0) } } ?? "error \(status)"
      throw QuireError(.libraryFailure, "The three-way merge failed: \(message).")
    }
    let text: String
    if let pointer = output.ptr, output.len > 0 {
      text = String(decoding: UnsafeRawBufferPointer(start: pointer, count: output.len), as: UTF8.self)
    } else {
      text = ""
    }
    let marker = "<<<<<<< \(mineLabel)"
    let conflicts =
      output.automergeable != 0
      ? 0
      : text.split(separator: "\n", omittingEmptySubsequences: false)
        .count { $0.hasPrefix(marker) }
    if output.automergeable == 0 && conflicts == 0 {
      // xdiff merges no text with a NUL byte (it takes it for binary) and gives back nothing:
      // keep both sides whole, as one conflict, rather than lose them.
      return Result(text: "\(marker)\n\(lines(mine))=======\n\(lines(theirs))>>>>>>> \(theirsLabel)\n", conflicts: 1)
    }
    return Result(text: text, conflicts: conflicts)
  }

  /// `text`, ending with a newline when it has any text.
  private static func lines(_ text: String) -> String {
    text.isEmpty || text.hasSuffix("\n") ? text : text + "\n"
  }

  private static func input(_ pointer: UnsafePointer<CChar>, _ count: Int) -> git_merge_file_input {
    var value = git_merge_file_input()
    git_merge_file_input_init(&value, UInt32(GIT_MERGE_FILE_INPUT_VERSION))
    value.ptr = pointer
    value.size = count
    return value
  }
}
