import Foundation

/// GNU ed's command-line options, for `quire` run as a drop-in ed (`quire -s FILE < script`).
///
/// Any of them makes the session behave as GNU ed 1.19 in everything a script can see: `?` on
/// standard output for an error (and ed's message under `H` or `-v`), byte counts unless `-s`,
/// a piped script goes on after an error while a script read from a regular file stops, and
/// ed's exit statuses (see ``REPLSession``). Without them quire keeps its own script mode: no
/// byte counts, one line naming each failure on standard error.
struct EdOptions: Equatable, Sendable {
  /// `-s`, `--script`: no byte counts, no `!` after a shell command, no diagnostics.
  var isScripted = false
  /// `-q`, `--quiet`: no diagnostics on standard error.
  var isQuiet = false
  /// `-l`, `--loose-exit-status`: exit 0 even when a command failed.
  var isLoose = false
  /// `-p PROMPT`: the prompt, shown from the start (the `P` command toggles it; `*` when not given).
  var prompt: String?
  /// `-r`, `--restricted`: no shell commands, and only files in the current folder.
  var isRestricted = false
  /// `-E`, `--extended-regexp`: POSIX extended regular expressions.
  var usesExtendedRegex = false
  /// `-G`, `--traditional`: the behaviours ed had before POSIX where they differ.
  var isTraditional = false
  /// `-v`, `--verbose`: print each error's message after its `?` (as `H`).
  var isVerbose = false
  /// `--strip-trailing-cr`: drop a carriage return at the end of each line read from a file.
  var stripsTrailingCR = false
  /// `--unsafe-names`: accept file names with control characters (GNU ed 1.20).
  var allowsUnsafeNames = false
  /// `+LINE`, `+/RE`, `+?RE`: where the current line starts (GNU ed 1.20); `nil` is the last line.
  var initialLine: String?
  /// `-` among the files: ed reads it as `-s`.
  var dashMeansScripted = false
}
