/// The `help` text: every command with one line.
enum REPLHelp {
  /// (name, one line) for every ed command and word command.
  static let entries: [(String, String)] = [
    ("(.)a", "append text after the line; end the text with a line holding only ."),
    ("(.)i", "insert text before the line"),
    ("(.,.)c", "change (replace) the lines with text"),
    ("(.,.)d", "delete the lines"),
    ("(.,.+1)j", "join the lines into one"),
    ("(.,.)m(.)", "move the lines after the destination line"),
    ("(.,.)t(.)", "copy (transfer) the lines after the destination line"),
    ("(.,.)p", "print the lines"),
    ("(.,.)n", "print the lines with their numbers"),
    ("(.,.)l", "print the lines unambiguously ($ at the end, escapes for tabs and bytes)"),
    ("($)=", "print the line number (of the last line by default)"),
    ("(.,.)s/re/rep/[g|N][I][pln]", "substitute: & is the match, \\1-\\9 groups, // the last re, % the last rep; s alone repeats"),
    ("(1,$)g/re/cmds", "run the commands on every line matching re (p by default; \\ continues the list; /re/I ignores case)"),
    ("(1,$)v/re/cmds", "run the commands on every line NOT matching re"),
    ("(1,$)G/re/", "for every matching line: print it and read a command for it (empty: none, &: the last)"),
    ("(1,$)V/re/", "as G for every line NOT matching re"),
    ("(.,.)y", "copy (yank) the lines to the cut buffer (d, c and j fill it too)"),
    ("(.)x", "put the cut buffer's lines after the line"),
    ("(.+1)z[N]", "print N lines (a screenful by default) from the line"),
    ("(.)kx", "mark the line with the letter x; 'x addresses it"),
    ("(1,$)w [file]", "write the lines to the file (the document's own by default, keeping a version); wq writes and quits"),
    ("(1,$)w !cmd", "write the lines to a shell command's standard input"),
    ("(1,$)W file", "append the lines to the file"),
    ("($)r file", "read the file in after the line; r !cmd reads a shell command's output"),
    ("e [file]", "edit the file instead (twice when there are unsaved changes); E does not ask; e !cmd edits a command's output"),
    ("!cmd", "run a shell command (/bin/sh): % is the file name, !! the last command"),
    ("f [file]", "print or set the document's file name"),
    ("u", "undo the last change; u again redoes it (as ed), but goes further back through an earlier session's history"),
    ("q", "quit (twice when there are unsaved changes, as in ed); Q quits without asking"),
    ("h", "print the last error again; H prints every error's message (ed mode)"),
    ("P", "show or hide the prompt (ed mode; quire -p PROMPT sets it)"),
    ("#", "a comment: the rest of the line is ignored"),
    ("open FILE…", "open text files, TextBundles (.textbundle, .textpack) and PDFs; a missing file is created on save"),
    ("new [--template NAME] [PATH]", "start a new document, empty or from a template"),
    ("templates", "list the templates for new --template"),
    ("docs", "list open documents and their state (unsaved, in conflict, autosave)"),
    ("switch NAME|N", "make another open document current"),
    ("save", "save the current document (refuses to overwrite a change made on disk by others)"),
    ("save as PATH", "save the current document under a new name, which becomes its file"),
    ("revert", "load the disk version; your version stays one u away"),
    ("keep", "after a change on disk: keep your version, so the next w replaces theirs"),
    ("merge", "after a change on disk: merge theirs into yours, three-way (conflicts get markers; undoable)"),
    ("close", "close the current document (twice when there are unsaved changes)"),
    ("undo [N]", "undo the last N changes (default 1), further back each time (ed's u only toggles the last)"),
    ("redo [N]", "redo the last N undone changes (ed has no redo)"),
    ("forget-history", "forget the current document's undo history (quire keeps it across sessions)"),
    ("status", "show the current document's file, type, size, undo levels and state"),
    ("outline", "list the Markdown headings with their line numbers"),
    ("preview [FILE] [--output F]", "write an HTML preview of a Markdown document (unsaved edits included)"),
    ("thumbnail [FILE…]", "make a PNG thumbnail of files or of the current document as saved"),
    ("type [FILE…]", "show the type (UTI) of files or of the current document"),
    ("recover", "restore autosaved edits left by a killed session; 'recover discard' drops them"),
    ("copy [RANGE]", "copy lines (ed range, default .) to the pasteboard, shared with other quire processes"),
    ("cut [RANGE]", "copy lines to the pasteboard and delete them (u brings them back)"),
    ("paste [ADDR] [--type ID]", "insert the pasteboard's text after the line (Markdown into plain text takes the plain text)"),
    ("drag RANGE", "start dragging lines; switch to another document and drop them"),
    ("drop [ADDR] [--move]", "insert the dragged lines after the line; --move deletes them from their source"),
    ("pdf FILE.pdf", "open a PDF (as open FILE.pdf); page commands change it, w saves, u and redo undo"),
    ("pages [FILE.pdf]", "list the PDF's pages with size and rotation"),
    ("page N", "print the text of page N of the PDF"),
    ("delete-page N[-M]", "delete pages of the PDF"),
    ("move-page N TO", "move page N of the PDF so that it becomes page TO"),
    ("rotate N[-M] DEGREES", "turn pages of the PDF clockwise (a multiple of 90)"),
    ("insert-pages FROM.pdf [AT]", "insert every page of another PDF after page AT (default: at the end)"),
    ("annotations [PAGE]", "list the PDF's annotations: page:number, kind, x,y,w,h, contents"),
    ("annotate PAGE KIND …", "highlight|underline|strikeout|squiggly TEXT, note X,Y TEXT, freetext X,Y,W,H TEXT, ink X,Y …, link X,Y,W,H URL|#PAGE"),
    ("remove-annotation PAGE N", "remove annotation N of the page (u brings it back)"),
    ("fields", "list the PDF's form fields: name, kind, value, choices"),
    ("fill NAME VALUE", "fill a form field: text, on/off for a check box, a choice"),
    ("versions", "list the saved versions of the current document's file, with dates"),
    ("restore N", "put version N into the buffer (u undoes it; w saves it); a PDF's file is restored"),
    ("assets [add FILE [NAME]]", "list a TextBundle's assets; add FILE to assets/, its reference after the line (u takes both back)"),
    ("browse [FOLDER…] [--sort K] [--tag T]", "list the documents of Documents/ (or the folders): kind, size, date, tags"),
    ("recent [N]", "list recent documents (GNOME's list too), moved files found again; recent N opens one"),
    ("tag [FILE] [+TAG|-TAG…]", "show or change the tags (user.xdg.tags) of the current document or FILE"),
    ("trash FILE…", "move files to the Trash (gio trash --list shows them)"),
    ("search WORDS | --open N", "search the text of Documents/ (words, \"phrases\", prefix*); --open N opens hit N at its line"),
    ("help [command]", "list the commands, or explain one"),
  ]

  static var summary: [String] {
    [
      "Addresses: N . $ , ; +N -N /re/ ?re? 'x, offsets like /re/+2; (.,.) shows a command's default.",
      "Ed commands:",
    ]
      + entries.prefix { !$0.0.hasPrefix("open") }.map { "  \($0.0.padding(toLength: 28, withPad: " ", startingAt: 0)) \($0.1)" }
      + ["Word commands:"]
      + entries.drop { !$0.0.hasPrefix("open") }.map { "  \($0.0.padding(toLength: 28, withPad: " ", startingAt: 0)) \($0.1)" }
      + differencesFromEd
  }

  /// Where quire and GNU ed 1.19 differ. With ed's options (quire -s FILE) a script sees none.
  static let differencesFromEd: [String] = [
    "Differences from GNU ed 1.19:",
    "  Run with ed's options (quire -s FILE, -p PROMPT, -l, -r, -E, -G, -v, ...) quire behaves as ed in",
    "  all a script sees: output, '?' and H's messages, exit statuses (0, 1 a command failed, 2 a file",
    "  could not be read or input ended with unsaved changes), and GNU ed's own test suite passes.",
    "  Without them (quire FILE < script): errors are one line naming the problem on standard error, a",
    "  script stops at its first error (exit 1), and no byte counts are printed.",
    "  Always: words that are not ed commands (open, save, undo N, ...) are quire's; a w to the",
    "  document's own file refuses to overwrite a change someone else saved (keep, merge, revert);",
    "  a bad option exits 2 (ed: 1); a file name starting with '-' needs -- before it (as ed).",
    "  For now, files holding NUL bytes or bytes that are not UTF-8 are refused (ed edits them).",
  ]

  /// The help line of `name` ("s", "save", "g").
  static func line(for name: String) -> String? {
    let entry = entries.first { entry in
      let head = entry.0.split(separator: " ").first.map(String.init) ?? entry.0
      let bare = head.drop { "(.,$+1)".contains($0) }
      return head == name || bare == name || bare.hasPrefix(name) && name.count == 1 && bare.first == name.first
    }
    return entry.map { "\($0.0)  \($0.1)" }
  }
}
