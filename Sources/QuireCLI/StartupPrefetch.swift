import QuireBrowser
import QuireFormats
import QuireMarkdown
import QuireSystem
import QuireTypes

/// Work a command will need, started on another core while its arguments are parsed (the
/// argument parser's reflection over the command tree takes several milliseconds): the type
/// registry's files (shared-mime-info's `types`, `aliases`, `subclasses`, `globs2` and `magic`)
/// for the commands that identify files (for `quire search`, the registry's built-in types
/// only), and, for `quire thumbnail`, the fonts (the cached font choice and the body face,
/// with HarfBuzz and cairo), then cmark-gfm and libpng, loaded while the file is identified.
/// Only `quire` itself does it (an embedder's ``QuireCommand/run(arguments:)`` does not).
/// Nothing waits for it: the command finds the registry read (or waits on its lock while it
/// is being read) and the libraries loaded or being loaded.
enum StartupPrefetch {
  /// The subcommands that identify files first thing, and so read the type registry. (A
  /// search does not: it identifies only files that changed since the index last saw them.)
  static let identifyingCommands: Set<String> = ["thumbnail", "type", "browse", "preview"]

  static func begin(for arguments: [String]) {
    guard let command = arguments.first else { return }
    if command == "search" {
      // A search identifies only changed files, but its browser is made with the shared
      // registry, whose built-in declarations take a millisecond to set up.
      BlockingExecutor.shared.submit {
        _ = TypeRegistry.shared
        DocumentBrowser.prepareForSearch()
      }
      return
    }
    guard identifyingCommands.contains(command) else { return }
    if command == "thumbnail" {
      BlockingExecutor.shared.submit {
        TextLayout.prepareFonts()
        CommonMark.prepare()
        _ = Bitmap.pngLibraryVersion
      }
    }
    BlockingExecutor.shared.submit { TypeRegistry.shared.prepareForIdentification() }
  }
}
