import ArgumentParser
import Foundation
import Quire

/// A word command of the REPL, run against the session.
protocol SessionCommand: ParsableCommand {
  /// Runs the command on the session's actor; it may wait (item loads, saves) without blocking it.
  @MainActor func run(in session: REPLSession) async throws
}

/// The REPL's word commands, parsed with argument-parser (`parseAsRoot`); each line whose first
/// word is one of ``names`` is a word command, every other line is an ed command.
struct REPLWordCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "",
    abstract: "Word commands of the quire REPL.",
    subcommands: [
      OpenWord.self, NewWord.self, DocsWord.self, SwitchWord.self, SaveWord.self, RevertWord.self,
      KeepWord.self, MergeWord.self, CloseWord.self, UndoWord.self, RedoWord.self, ForgetHistoryWord.self, StatusWord.self,
      OutlineWord.self,
      PreviewWord.self, ThumbnailWord.self, TypeWord.self, RecoverWord.self, TemplatesWord.self,
      CopyWord.self, CutWord.self, PasteWord.self, DragWord.self, DropWord.self,
      PDFWord.self, PagesWord.self, PageWord.self, DeletePageWord.self, MovePageWord.self, RotateWord.self,
      InsertPagesWord.self, AnnotationsWord.self, AnnotateWord.self, RemoveAnnotationWord.self, FieldsWord.self, FillWord.self,
      VersionsWord.self, RestoreWord.self, AssetsWord.self,
      BrowseWord.self, RecentWord.self, TagWord.self, TrashWord.self, SearchWord.self,
    ])

  /// The first words that make a line a word command.
  static let names: Set<String> = Set(configuration.subcommands.map { ($0.configuration.commandName ?? "") } + ["help"])

  static func subcommand(named name: String) -> (any ParsableCommand.Type)? {
    configuration.subcommands.first { ($0.configuration.commandName ?? "") == name }
  }
}

struct OpenWord: SessionCommand {
  static let configuration = CommandConfiguration(
    commandName: "open", abstract: "Open text files, TextBundles (.textbundle, .textpack) and PDFs (a missing file is created on first save).")
  @Argument(help: "Files to open.") var paths: [String]
  @MainActor func run(in session: REPLSession) async throws {
    guard !paths.isEmpty else { throw EdError("open what? give a file: open notes.md") }
    for path in paths { try await session.open(session.resolvingListedName(path)) }
  }
}

struct NewWord: SessionCommand {
  static let configuration = CommandConfiguration(commandName: "new", abstract: "Start a new document, empty or from a template.")
  @Option(help: "A template of Templates/ ('templates' lists them).") var template: String?
  @Argument(help: "Where the document will be saved.") var path: String?
  @MainActor func run(in session: REPLSession) async throws {
    if let template, let path { return try await BrowserWords.newDocument(at: path, template: template, in: session) }
    try await session.newDocument(path: path, template: template)
  }
}

struct TemplatesWord: SessionCommand {
  static let configuration = CommandConfiguration(commandName: "templates", abstract: "List the templates for 'new --template'.")
  @MainActor func run(in session: REPLSession) async throws {
    guard let folder = session.configuration.templatesFolder else { throw EdError("no Templates/ folder here") }
    for (name, description) in session.templateDescriptions(in: folder) { session.print("  \(name)  \(description)") }
  }
}

struct DocsWord: SessionCommand {
  static let configuration = CommandConfiguration(commandName: "docs", abstract: "List open documents with their state.")
  @MainActor func run(in session: REPLSession) async throws {
    let lines = session.documentLines()
    if lines.isEmpty { session.print("no documents open; 'open FILE' or 'new'") }
    for line in lines { session.print(line) }
  }
}

struct SwitchWord: SessionCommand {
  static let configuration = CommandConfiguration(commandName: "switch", abstract: "Make another open document current (by name or number).")
  @Argument(help: "A name or number from 'docs'.") var document: String
  @MainActor func run(in session: REPLSession) async throws { try session.switchTo(document) }
}

struct SaveWord: SessionCommand {
  static let configuration = CommandConfiguration(commandName: "save", abstract: "Save the current document; 'save as PATH' saves it under a new name.")
  @Argument(help: "'as PATH' to save under a new name.") var words: [String] = []
  @MainActor func run(in session: REPLSession) async throws {
    switch words.count {
    case 0:
      try await session.runEd("w")
      session.say("saved '\(session.currentDocument?.displayName ?? "")'")
    case 2 where words[0] == "as":
      try await session.saveAs(words[1])
    default:
      throw EdError("write 'save' or 'save as PATH'")
    }
  }
}

struct RevertWord: SessionCommand {
  static let configuration = CommandConfiguration(commandName: "revert", abstract: "Load the disk version (undoable: u brings yours back).")
  @MainActor func run(in session: REPLSession) async throws { try await session.revert() }
}

struct KeepWord: SessionCommand {
  static let configuration = CommandConfiguration(commandName: "keep", abstract: "Keep your version after a change on disk; the next w replaces theirs.")
  @MainActor func run(in session: REPLSession) async throws { try await session.keepMine() }
}

struct MergeWord: SessionCommand {
  static let configuration = CommandConfiguration(
    commandName: "merge", abstract: "Merge the disk version with yours, three-way (undoable; overlaps get conflict markers).")
  @MainActor func run(in session: REPLSession) async throws { try await session.mergeWithDiskVersion() }
}

struct CloseWord: SessionCommand {
  static let configuration = CommandConfiguration(commandName: "close", abstract: "Close the current document (twice to discard unsaved changes).")
  @MainActor func run(in session: REPLSession) async throws { try await session.closeCurrent() }
}

/// `undo [N]` and `redo [N]`: N steps through the current document's history, one way or the other.
protocol HistoryWord: SessionCommand {
  /// Which way the word steps.
  static var step: HistoryStep { get }
  /// How many steps.
  var count: Int { get }
}

extension HistoryWord {
  func validate() throws {
    guard count >= 1 else { throw ValidationError("\(Self.step) N takes a count of 1 or more") }
  }
  @MainActor func run(in session: REPLSession) async throws { try session.take(Self.step, count: count) }
}

struct UndoWord: HistoryWord {
  static let configuration = CommandConfiguration(
    commandName: "undo", abstract: "Undo the last N changes (default 1); repeat to go further back (ed's u only toggles the last change).")
  static let step = HistoryStep.undo
  @Argument(help: "How many changes to undo.") var count: Int = 1
}

struct RedoWord: HistoryWord {
  static let configuration = CommandConfiguration(commandName: "redo", abstract: "Redo the last N undone changes (default 1).")
  static let step = HistoryStep.redo
  @Argument(help: "How many changes to redo.") var count: Int = 1
}

/// `forget-history`: the current document's undo history goes, in memory and stored.
struct ForgetHistoryWord: SessionCommand {
  static let configuration = CommandConfiguration(
    commandName: "forget-history", abstract: "Forget the current document's undo history, here and the one stored for later sessions.")
  @MainActor func run(in session: REPLSession) async throws { try session.forgetHistory() }
}

struct StatusWord: SessionCommand {
  static let configuration = CommandConfiguration(commandName: "status", abstract: "Show the current document's file, type, size and state.")
  @MainActor func run(in session: REPLSession) async throws {
    let document = try session.requireDocument()
    session.print("document: \(document.fileURL?.path ?? "untitled")")
    if let url = document.fileURL, let type = TypeRegistry.shared.type(forFileAt: url) ?? UTType(filenameExtension: url.pathExtension) {
      session.print("type: \(type.identifier)")
    }
    if let pdf = document.pdfDocument {
      session.print("pages: \(pdf.pageCount)\(pdf.pdf?.isEncrypted == true ? ", encrypted" : "")")
      session.print("state: \(session.state(of: document))")
      session.print(
        "page operations: \(pdf.operations.map(\.description).joined(separator: "; ").nonEmpty ?? "none")\(pdf.undoManager.canRedo ? " (redo available)" : "")")
      return
    }
    let bytes = document.textDocument?.storage.utf8Count ?? 0
    session.print("lines: \(document.buffer.lineCount), bytes: \(bytes), current line: \(document.currentLine)")
    if let bundle = document.textBundle {
      session.print("TextBundle: text in \(bundle.bundle.textFilename), \(bundle.assetNames.count) asset(s)")
    }
    session.print("state: \(session.state(of: document))")
    session.print("undo: \(document.buffer.undoCount) level(s), redo: \(document.buffer.redoCount)")
  }
}

struct OutlineWord: SessionCommand {
  static let configuration = CommandConfiguration(commandName: "outline", abstract: "List the Markdown headings with their line numbers.")
  @MainActor func run(in session: REPLSession) async throws {
    let document = try session.requireTextDocument(for: "outline")
    let outline: MarkdownOutline
    do {
      outline = try MarkdownOutline(markdown: document.text)
    } catch {
      throw EdError("cannot outline '\(document.displayName)': \(REPLSession.message(for: error))")
    }
    if outline.headings.isEmpty { session.print("no headings in '\(document.displayName)'") }
    for heading in outline.headings {
      session.print("\(String(format: "%5d", heading.line))  \(String(repeating: "  ", count: heading.level - 1))\(heading.title)")
    }
  }
}

struct PreviewWord: SessionCommand {
  static let configuration = CommandConfiguration(commandName: "preview", abstract: "Write an HTML preview of a Markdown document (with unsaved edits).")
  @Argument(help: "A file to preview instead of the current document.") var path: String?
  @Option(help: "Where to write the preview.") var output: String?
  @MainActor func run(in session: REPLSession) async throws {
    let text: String
    let name: String
    var path = path
    if path == nil, let document = session.currentDocument, document.pdf != nil, let url = document.fileURL {
      // A PDF document is previewed as saved.
      if document.isEdited { session.print("note: the preview shows the PDF as saved, not the unsaved page changes") }
      path = url.path
    }
    if let path {
      let url = URL(fileURLWithPath: path)
      if TypeRegistry.shared.type(forFileAt: url)?.conforms(to: .pdf) == true {
        // A PDF preview: metadata, outline, text and page images, as `quire preview` makes it.
        let html: String
        do {
          html = try PreviewGenerator().preview(of: url, format: .html)
        } catch {
          throw EdError("cannot preview '\(url.lastPathComponent)': \(REPLSession.message(for: error))")
        }
        let target = try output.map { URL(fileURLWithPath: $0) } ?? Self.defaultTarget(for: url.lastPathComponent, in: session)
        try EdDocument.writeOutput(Data(html.utf8), to: target)
        session.print("preview: \(target.path)")
        return
      }
      text = try EdDocument.readBytes(of: url, requiresText: true).lines.map { $0 + "\n" }.joined()
      name = url.lastPathComponent
    } else {
      let document = try session.requireDocument()
      text = document.text
      name = document.displayName
    }
    let page: String
    do {
      page = try MarkdownPreview.htmlPage(markdown: text, title: name)
    } catch {
      throw EdError("cannot preview '\(name)': \(REPLSession.message(for: error))")
    }
    let target = try output.map { URL(fileURLWithPath: $0) } ?? Self.defaultTarget(for: name, in: session)
    try EdDocument.writeOutput(Data(page.utf8), to: target)
    session.print("preview: \(target.path)")
  }

  /// `$XDG_CACHE_HOME/quire/previews/NAME.html`, the folder made private.
  @MainActor static func defaultTarget(for name: String, in session: REPLSession) throws -> URL {
    let folder = session.configuration.cacheHome.appendingPathComponent("quire/previews")
    try PrivateFolder.make(folder, below: session.configuration.cacheHome, role: "the preview folder", alternative: "pass --output")
    return folder.appendingPathComponent((name as NSString).deletingPathExtension + ".html")
  }
}

struct ThumbnailWord: SessionCommand {
  static let configuration = CommandConfiguration(commandName: "thumbnail", abstract: "Make a PNG thumbnail of files or of the current document as saved.")
  @Argument(help: "Files (default: the current document's file).") var paths: [String] = []
  @Option(help: "The longest side in pixels.") var size: Int = 256
  @Option(help: "The folder to write NAME.png into (default: $XDG_CACHE_HOME/quire/thumbnails-repl).") var output: String?
  @MainActor func run(in session: REPLSession) async throws {
    guard (16...2048).contains(size) else { throw EdError("thumbnail size must be 16 to 2048 pixels, not \(size)") }
    var urls = paths.map { URL(fileURLWithPath: $0) }
    if urls.isEmpty {
      let document = try session.requireDocument()
      guard let url = document.fileURL else { throw EdError("the document is untitled; save it first or give a file: thumbnail FILE") }
      if document.isEdited { session.print("note: the thumbnail shows the file as saved, not the unsaved edits") }
      urls = [url]
    }
    let folder: URL
    if let output {
      folder = URL(fileURLWithPath: output)
    } else {
      folder = session.configuration.cacheHome.appendingPathComponent("quire/thumbnails-repl")
      try PrivateFolder.make(folder, below: session.configuration.cacheHome, role: "the thumbnail folder", alternative: "pass --output")
    }
    let generator = ThumbnailGenerator()
    for url in urls {
      do {
        let type = try generator.contentType(of: url)
        let bitmap = try generator.generateBestRepresentation(for: ThumbnailRequest(fileURL: url, contentType: type, maximumSize: size))
        let target = folder.appendingPathComponent(url.deletingPathExtension().lastPathComponent + ".png")
        try EdDocument.writeOutput(try bitmap.pngData(), to: target)
        session.print("thumbnail: \(target.path) (\(bitmap.width)×\(bitmap.height))")
      } catch let error as EdError {
        throw error
      } catch {
        throw EdError("cannot make a thumbnail of '\(url.lastPathComponent)': \(REPLSession.message(for: error))")
      }
    }
  }
}

struct TypeWord: SessionCommand {
  static let configuration = CommandConfiguration(commandName: "type", abstract: "Show the type (UTI) of a file or the current document.")
  @Argument(help: "Files (default: the current document).") var paths: [String] = []
  @MainActor func run(in session: REPLSession) async throws {
    var urls = paths.map { URL(fileURLWithPath: $0) }
    if urls.isEmpty {
      guard let url = try session.requireDocument().fileURL else { throw EdError("the document is untitled; give a file: type FILE") }
      urls = [url]
    }
    for url in urls {
      if let type = TypeRegistry.shared.type(forFileAt: url) ?? UTType(filenameExtension: url.pathExtension) {
        let parents = type.supertypes.map(\.identifier).sorted().joined(separator: ", ")
        session.print("\(url.lastPathComponent): \(type.identifier)\(parents.isEmpty ? "" : " (conforms to \(parents))")")
      } else {
        session.print("\(url.lastPathComponent): unknown type")
      }
    }
  }
}

struct RecoverWord: SessionCommand {
  static let configuration = CommandConfiguration(
    commandName: "recover", abstract: "Restore the autosaved edits a killed session left ('recover discard' drops them).")
  @Argument(help: "'discard' to drop the autosaved edits instead.") var action: String?
  @MainActor func run(in session: REPLSession) async throws {
    switch action {
    case nil: try await session.recover(discarding: false)
    case "discard": try await session.recover(discarding: true)
    case let other?: throw EdError("write 'recover' or 'recover discard', not 'recover \(other)'")
    }
  }
}

extension String {
  /// The string, or `nil` when it is empty.
  var nonEmpty: String? { isEmpty ? nil : self }
}
