public import Foundation
public import QuireTypes

/// A TextBundle document (textbundle.org): Markdown text with its `info.json` and `assets/`,
/// stored as a `.textbundle` package (a folder) or a zipped `.textpack`.
///
/// **A Markdown document in a package.** It extends ``MarkdownDocument``, so the text is a
/// ``TextStorage`` edited with the same undoable methods (``PlainTextDocument/replaceLines(in:with:)``,
/// ``PlainTextDocument/replaceCharacters(inUTF8Range:with:)``, …), with outline, word count
/// and merge; only reading and writing differ. The ``bundle`` (a ``TextBundle`` over a
/// ``FileWrapper`` tree) holds everything else: assets, `info.json` keys, unknown files,
/// all kept as they were.
///
/// **Saving.** A `.textbundle` is saved from ``fileWrapper(ofType:)`` through the document's
/// package save: the new folder is built beside and swapped in whole, and assets that did not
/// change are hard-linked from the last save, never copied. A `.textpack` is a regular file
/// (the zip archive) saved like any other.
///
/// **Assets.** ``addAsset(_:named:at:)`` copies a file into `assets/` and inserts its Markdown
/// reference into the text, as one undoable step.
open class TextBundleDocument: MarkdownDocument {
  /// The bundle: its text file is brought up to date with the document's text when saving.
  public private(set) var bundle = TextBundle()

  /// Makes a closed TextBundle document; declares the TextBundle types in the shared
  /// registry first (see ``declareTypes(in:)``), so a `.textbundle` is known as a package
  /// even without a ``DocumentController``.
  public required init(fileURL: URL, contentType: UTType? = nil) {
    Self.declareTypes()
    super.init(fileURL: fileURL, contentType: contentType)
  }

  /// A TextBundle package, for a folder without a known extension.
  open override var fallbackType: UTType? { TextBundle.packageType }

  /// Declares `org.textbundle.package` (conforming to `com.apple.package`, extension
  /// `textbundle`) and `org.textbundle.textpack` (extension `textpack`) in `registry`,
  /// unless they are declared already (then nothing changes).
  public static func declareTypes(in registry: TypeRegistry = .shared) {
    if registry.type(withIdentifier: TextBundle.packageTypeIdentifier) == nil {
      registry.add(
        TypeDeclaration(
          identifier: TextBundle.packageTypeIdentifier, conformsTo: [UTType.package.identifier, UTType.compositeContent.identifier],
          description: "TextBundle document", tags: [.filenameExtension: ["textbundle"]]))
    }
    if registry.type(withIdentifier: TextBundle.textpackTypeIdentifier) == nil {
      registry.add(
        TypeDeclaration(
          identifier: TextBundle.textpackTypeIdentifier, conformsTo: [UTType.data.identifier, UTType.compositeContent.identifier],
          description: "TextBundle archive", tags: [.filenameExtension: ["textpack"]]))
    }
  }

  // MARK: Reading and writing

  /// Reads a `.textbundle` folder.
  open override func read(from fileWrapper: FileWrapper, ofType type: UTType) throws {
    try load(TextBundle(fileWrapper: fileWrapper, url: fileURL))
  }

  /// Reads a `.textpack` (a zip archive holding the bundle).
  open override func read(from data: Data, ofType type: UTType) throws {
    guard !isPackageType(type) else {
      throw QuireError(.invalidContent, "it is a file, not a TextBundle folder. Open the .textbundle folder, or name a zipped bundle .textpack.", url: fileURL)
    }
    try load(TextBundle(fileWrapper: TextPackArchive.read(data: data, url: fileURL), url: fileURL))
  }

  private func load(_ newBundle: TextBundle) throws {
    try super.read(from: Data(newBundle.text.utf8), ofType: .markdown)
    bundle = newBundle
  }

  /// The bundle with the current text, for a `.textbundle`.
  open override func fileWrapper(ofType type: UTType) throws -> FileWrapper {
    try updateBundle()
    return bundle.fileWrapper
  }

  /// The zip archive of the bundle with the current text, for a `.textpack`.
  open override func contents(forType type: UTType) throws -> Data {
    try updateBundle()
    let name = fileURL.deletingPathExtension().lastPathComponent + ".textbundle"
    return try TextPackArchive.data(for: bundle.fileWrapper, folderName: name, url: fileURL)
  }

  /// Puts the text (UTF-8), `info.json` and an `assets/` folder into the bundle's tree; an
  /// unchanged text file stays the file it was (so it is reused, not rewritten).
  private func updateBundle() throws {
    // Through PlainTextDocument, so the text written becomes the merge base after the save.
    let data = try super.contents(forType: .markdown)
    let text = String(decoding: data, as: UTF8.self)
    if bundle.text != text { bundle.text = text }
    bundle.updateInfoFile()
    if bundle.fileWrapper.fileWrappers?["assets"] == nil {
      bundle.fileWrapper.addFileWrapper(Self.emptyFolder(named: "assets"))
    }
  }

  private static func emptyFolder(named name: String) -> FileWrapper {
    let folder = FileWrapper(directoryWithFileWrappers: [:])
    folder.preferredFilename = name
    return folder
  }

  // MARK: Autosave and merge

  /// The text alone (UTF-8): a TextBundle's recovery file keeps its unsaved text, for a
  /// package as for a textpack; its assets are in the bundle, saved or not.
  open override func recoveryContents(forType type: UTType) throws -> Data? {
    encoding.encode(storage)
  }

  /// Loads recovered text into the bundle open now (its assets stay).
  open override func readRecoveryContents(_ data: Data, ofType type: UTType) throws {
    try super.read(from: data, ofType: .markdown)
  }

  /// Three-way merges the text of `theirs` (a `.textpack` archive changed on disk) with the
  /// document's; the document's assets stay. A `.textbundle` package is never merged (see
  /// ``Document/resolveConflict(_:)``).
  open override func merge(with theirs: Data, ofType type: UTType) throws -> MergeOutcome {
    try super.merge(with: try text(ofArchive: theirs), ofType: type)
  }

  override func overlappingEdits(with theirs: Data) throws -> Int? {
    try super.overlappingEdits(with: try text(ofArchive: theirs))
  }

  /// The text file's bytes of the bundle zipped in `archive`.
  private func text(ofArchive archive: Data) throws -> Data {
    Data(try TextBundle(fileWrapper: TextPackArchive.read(data: archive, url: fileURL), url: fileURL).text.utf8)
  }

  // MARK: Assets

  /// The files in `assets/`, sorted (files in subfolders as `sub/name`).
  public var assetNames: [String] { bundle.assetNames }

  /// The contents of asset `name`, or `nil`.
  public func asset(named name: String) -> Data? { bundle.asset(named: name) }

  /// Copies `data` into `assets/` as `name` (made unique, "image 2.png", when taken) and
  /// inserts its Markdown reference (`![image](assets/image.png)` for images, a link for
  /// other files) at UTF-8 offset `offset` of the text, by default on a line of its own at
  /// the end — one undoable step, "Add Asset".
  ///
  /// - Parameters:
  ///   - data: The file's contents.
  ///   - name: The file name wanted, e.g. `photo.png`; no `/`, not empty, `.` or `..`.
  ///   - offset: Where to insert the reference; `nil` appends it.
  /// - Returns: The reference inserted (with the name actually used).
  /// - Throws: ``QuireError`` when the document is not editable, `name` is not a file name,
  ///   or `offset` is outside the text or inside a character; nothing changes then.
  @discardableResult
  public func addAsset(_ data: Data, named name: String, at offset: Int? = nil) throws -> TextBundle.AssetReference {
    try checkEditable()
    if let offset, offset < 0 || offset > storage.utf8Count {
      try Self.requireAssetName(name, of: fileURL)
      throw QuireError(
        .invalidArgument, "Cannot add '\(name)' at offset \(offset) of \(QuireError.name(fileURL)): the text has \(storage.utf8Count) bytes.", url: fileURL)
    }
    return try insertAsset(data, named: name) { reference in
      let position = offset ?? storage.utf8Count
      let needsBreak = offset == nil && !storage.endsWithNewline
      return (position, (needsBreak ? "\n" : "") + reference.markdown + (offset == nil ? "\n" : ""))
    }
  }

  /// Copies `data` into `assets/` as `name` (see ``addAsset(_:named:at:)``) and inserts its
  /// Markdown reference as a line of its own before line `line` (from 0; ``PlainTextDocument/lineCount``
  /// appends it, ending the last line first when it has no newline): what a line editor
  /// does. One undoable step, "Add Asset".
  ///
  /// - Throws: ``QuireError`` when the document is not editable, `name` is not a file name or
  ///   `line` is outside the text; nothing changes then.
  @discardableResult
  public func addAsset(_ data: Data, named name: String, asLineAt line: Int) throws -> TextBundle.AssetReference {
    guard line >= 0, line <= storage.lineCount else {
      throw QuireError(
        .invalidArgument, "Cannot add '\(name)' at line \(line + 1) of \(QuireError.name(fileURL)): the text has \(storage.lineCount) lines.", url: fileURL)
    }
    return try insertAsset(data, named: name) { reference in
      guard line < storage.lineCount else {
        return (storage.utf8Count, (storage.endsWithNewline ? "" : "\n") + reference.markdown + "\n")
      }
      return (storage.utf8Offset(ofLine: line), reference.markdown + "\n")
    }
  }

  /// Adds the asset and inserts what `insertion` says (a UTF-8 offset and the text), as one
  /// undoable step; the asset goes again when the insertion fails.
  private func insertAsset(
    _ data: Data, named name: String, _ insertion: (TextBundle.AssetReference) -> (offset: Int, text: String)
  ) throws -> TextBundle.AssetReference {
    try checkEditable()
    try Self.requireAssetName(name, of: fileURL)
    let reference = bundle.addAsset(data, preferredFilename: name)
    do {
      try undoManager.groupUndo(named: "Add Asset") {
        undoManager.registerUndo(withTarget: self) { document in document.removeAssetUndoably(reference.name, data) }
        let (offset, text) = insertion(reference)
        try replaceCharacters(inUTF8Range: offset..<offset, with: text)
      }
    } catch {
      bundle.removeAsset(named: reference.name)
      throw error
    }
    return reference
  }

  /// Throws unless `name` is a plain file name for an asset.
  private static func requireAssetName(_ name: String, of url: URL) throws(QuireError) {
    guard !name.isEmpty, name != ".", name != "..", !name.contains("/"), !name.contains("\0"), name.utf8.count <= 255 else {
      throw QuireError(
        .invalidArgument, "Cannot add '\(name)' to \(QuireError.name(url)): an asset needs a plain file name such as photo.png (no '/', not empty).",
        url: url)
    }
  }

  private func removeAssetUndoably(_ name: String, _ data: Data) {
    bundle.removeAsset(named: name)
    undoManager.registerUndo(withTarget: self) { document in document.addAssetUndoably(name, data) }
  }

  private func addAssetUndoably(_ name: String, _ data: Data) {
    bundle.addAsset(data, preferredFilename: name)
    undoManager.registerUndo(withTarget: self) { document in document.removeAssetUndoably(name, data) }
  }
}
