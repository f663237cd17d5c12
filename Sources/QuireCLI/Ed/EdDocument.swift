import Foundation
import Quire

/// One file open in the line editor: its lines, ed's per-buffer state (current line, marks,
/// file name) and what the file held on disk when it was last read or written.
///
/// When the document layer lands (issue 4), this wraps a `Document`: `buffer` becomes the
/// document's text storage with its undo manager, `w` becomes `save`, `diskFingerprint` the
/// document's file version. Until then the session autosaves snapshots of the lines to the
/// document layer's recovery files (``Autosaver``).
final class EdDocument {
  /// The lines and their undo history.
  let buffer: any LineBuffer
  /// ed's current file name (`f`): where `w` writes by default. `nil` for an untitled buffer.
  var fileURL: URL?
  /// The current line, 1-based; 0 when the buffer is empty.
  var currentLine: Int
  /// Marks set with `k`, by letter, as 1-based line numbers.
  var marks: [UInt8: Int] = [:]
  /// What the file held when last read or written; `nil` when it has never been read (a new file).
  var diskFingerprint: FileFingerprint?
  /// The lines the file held when last read or written here: the base of `merge`'s
  /// three-way merge; `nil` when unknown (a new file, or after `f`).
  var diskLines: [String]?
  /// The cheap identity of the file when last read, written or checked.
  var diskStamp: FileStamp?
  /// The fingerprint of a change on disk the person has already been told about.
  var announcedDiskChange: FileFingerprint?
  /// Set by `keep`: the next `w` may replace a version saved by someone else.
  var mayOverwriteDiskChange = false

  init(buffer: any LineBuffer, fileURL: URL?) {
    self.buffer = buffer
    self.fileURL = fileURL
    currentLine = buffer.lineCount
  }

  /// The name shown in prompts and lists.
  var displayName: String { fileURL?.lastPathComponent ?? "untitled" }

  /// Whether there are changes not yet written.
  var isEdited: Bool { buffer.isEdited }

  /// The document text, each line followed by a newline.
  var text: String {
    var text = ""
    for index in 0..<buffer.lineCount {
      text += buffer.line(at: index)
      text += "\n"
    }
    return text
  }

  /// Autosaved edits left by an earlier session that was killed, offered by `recover`.
  var recoveredVersion: RecoveredVersion?
  /// The lines of ``recoveredVersion``, read when the file was opened (autosave may replace the
  /// recovery file before the person decides).
  var recoveredLines: [String]?
  /// The buffer state last handed to autosave (from ``LineBuffer/changeToken`` and
  /// ``isEdited``) and for which file.
  var autosavedToken: Int?
  var autosavedURL: URL?
}
