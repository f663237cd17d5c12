public import Foundation
import QuireCoordination
public import QuireTypes

/// A document template in the templates folder (`Templates/`), described by its
/// `templates.json`.
public struct DocumentTemplate: Sendable, Hashable {
  /// The template's file name, e.g. `meeting-notes.md`.
  public var name: String
  /// What it holds, from `templates.json`.
  public var summary: String
  /// The template file.
  public var url: URL

  /// The templates listed in `folder`'s `templates.json` that exist, by name.
  ///
  /// - Throws: ``QuireError`` when the list is missing or not a JSON object of names to descriptions.
  public static func templates(in folder: URL) throws -> [DocumentTemplate] {
    let listURL = folder.appendingPathComponent("templates.json")
    let list: [String: String]
    do {
      list = try JSONDecoder().decode([String: String].self, from: Data(contentsOf: listURL))
    } catch {
      throw QuireError(
        .invalidContent, "Cannot read the template list \(QuireError.name(listURL)): it is missing or not a JSON object of names to descriptions.", url: listURL
      )
    }
    return list.keys.sorted().compactMap { name in
      guard !name.contains("/"), name != "..", name != "." else { return nil }
      let url = folder.appendingPathComponent(name)
      guard FileManager.default.fileExists(atPath: url.path) else { return nil }
      return DocumentTemplate(name: name, summary: list[name] ?? "", url: url)
    }
  }
}

/// What ``DocumentController/closeAllDocuments()`` did.
@MainActor
public struct CloseAllReport {
  /// The files of the documents that were closed.
  public var closed: [URL]
  /// Documents left open because they have unsaved changes (or failed to close).
  public var unsaved: [Document]
}

/// Keeps the open documents of an app: which document class handles which type, new
/// documents from templates, recent documents — NSDocumentController for Linux.
///
/// **Classes by type.** ``register(_:for:)`` maps a type to a ``Document`` subclass;
/// ``documentClass(for:)`` picks, among the registered types the file's type conforms to,
/// the most specific one (a Markdown file gets ``MarkdownDocument`` over
/// ``PlainTextDocument``, which also matches). Embedding apps register their own classes and
/// types; a later registration of the same type replaces an earlier one.
///
/// **State.** Recent documents are kept in `recent-documents.json` and autosaves in
/// `recovery/`, both in ``stateFolder`` (`$XDG_STATE_HOME/quire` unless given), folders
/// `0700`, files `0600`.
@MainActor
public final class DocumentController {
  /// The types and their conformances.
  public let registry: TypeRegistry
  /// Where per-user state goes.
  public let stateFolder: URL
  /// The templates folder, holding the templates and `templates.json`.
  public var templatesFolder: URL?
  /// The autosave policy given to documents this controller opens.
  public var autosavePolicy: Document.AutosavePolicy? = .standard
  /// How documents this controller opens reach their files: by default a `FileCoordinator`,
  /// so their reads and saves take the cross-process locks that other Quire processes (and
  /// their presenters) respect, as NSDocumentController's documents coordinate.
  public var fileAccess: any DocumentFileAccess = FileCoordinator()
  /// The most recent documents kept.
  public var maximumRecentDocumentCount = 20
  /// The open documents, in the order they were opened.
  public private(set) var documents: [Document] = []

  private var registrations: [(type: UTType, documentClass: Document.Type)] = []

  /// Makes a controller with ``PlainTextDocument`` for `public.plain-text`,
  /// ``MarkdownDocument`` for `net.daringfireball.markdown`, ``TextBundleDocument`` for
  /// `org.textbundle.package` and `org.textbundle.textpack` (declared in `registry` when it
  /// does not declare them yet) and ``PDFFileDocument`` for `com.adobe.pdf`.
  ///
  /// - Parameters:
  ///   - registry: The type registry to judge files with.
  ///   - stateFolder: Where recent documents and recovery files go; `nil` for
  ///     `$XDG_STATE_HOME/quire`.
  ///   - templatesFolder: The templates folder for ``makeDocument(fromTemplate:at:)``.
  public init(registry: TypeRegistry = .shared, stateFolder: URL? = nil, templatesFolder: URL? = nil) {
    self.registry = registry
    self.stateFolder = stateFolder ?? StateFolder.standard
    self.templatesFolder = templatesFolder
    register(PlainTextDocument.self, for: .plainText)
    register(MarkdownDocument.self, for: .markdown)
    TextBundleDocument.declareTypes(in: registry)
    for identifier in [TextBundle.packageTypeIdentifier, TextBundle.textpackTypeIdentifier] {
      if let type = registry.type(withIdentifier: identifier) { register(TextBundleDocument.self, for: type) }
    }
    register(PDFFileDocument.self, for: .pdf)
  }

  /// The version store given to documents this controller opens: `STATE/versions`.
  public var versionStore: VersionStore {
    VersionStore(root: stateFolder.appendingPathComponent("versions", isDirectory: true))
  }

  /// The recovery store given to documents this controller opens.
  public var recoveryStore: RecoveryStore {
    RecoveryStore(folder: stateFolder.appendingPathComponent("recovery", isDirectory: true))
  }

  // MARK: Document classes

  /// Makes `documentClass` the class for files of `type` (and types conforming to it, unless a
  /// more specific registration exists).
  public func register(_ documentClass: Document.Type, for type: UTType) {
    registrations.removeAll { $0.type == type }
    registrations.append((type, documentClass))
  }

  /// The class for `type`: the registration with the most specific type `type` conforms to.
  /// Among equally specific ones (unrelated parents), the latest registration wins.
  public func documentClass(for type: UTType) -> Document.Type? {
    let candidates = registrations.filter { type.conforms(to: $0.type) }
    let best = candidates.enumerated().filter { entry in
      !candidates.contains { $0.type != entry.element.type && $0.type.isSubtype(of: entry.element.type) }
    }
    return best.last?.element.documentClass
  }

  /// The type of the file at `url`.
  ///
  /// A type declared for the file's extension wins (the name is what the user chose, and a
  /// file that does not exist yet has nothing else); otherwise the registry identifies the
  /// file from its content; a file with no extension and no recognisable content is plain text.
  public func type(forFileAt url: URL) -> UTType? {
    let ext = url.pathExtension
    if !ext.isEmpty, let declared = registry.type(forTag: ext, tagClass: .filenameExtension), !declared.isDynamic {
      return declared
    }
    if let identified = registry.type(forFileAt: url), !identified.isDynamic, identified != .data { return identified }
    return ext.isEmpty ? registry.type(withIdentifier: UTType.plainText.identifier) : nil
  }

  // MARK: Opening

  /// The open document whose file is `url`.
  public func document(for url: URL) -> Document? {
    let key = FileSaver.resolvedTarget(of: url).path
    return documents.first { FileSaver.resolvedTarget(of: $0.fileURL).path == key }
  }

  /// Opens the document at `url`, or returns it when it is already open.
  ///
  /// Check the result's ``Document/recoveredVersion`` to offer what a crash left behind.
  ///
  /// - Parameters:
  ///   - url: The file.
  ///   - type: Its type; `nil` judges it from the file name.
  /// - Throws: ``QuireError`` when the type has no document class or the file cannot be read.
  @discardableResult
  public func openDocument(at url: URL, ofType type: UTType? = nil) async throws -> Document {
    if let open = document(for: url) { return open }
    guard let type = type ?? self.type(forFileAt: url) else {
      throw QuireError(.unsupportedType, "Cannot open \(QuireError.name(url)): its type is unknown. Give it an extension such as .txt or .md.", url: url)
    }
    guard let documentClass = documentClass(for: type) else {
      throw QuireError(
        .unsupportedType,
        "Cannot open \(QuireError.name(url)): no document class handles \(type.localizedDescription ?? type.identifier). Register one with DocumentController.register(_:for:).",
        url: url)
    }
    let document = documentClass.init(fileURL: url, fileType: type)
    configure(document)
    try await document.open()
    documents.append(document)
    noteNewRecentDocumentURL(document.fileURL)
    return document
  }

  private func configure(_ document: Document) {
    document.typeRegistry = registry
    document.recoveryStore = recoveryStore
    document.versionStore = versionStore
    document.autosavePolicy = autosavePolicy
    // A coordinator of the controller's is remade for the document's own presenter, so the
    // document does not hear of its own saves.
    if let coordinator = fileAccess as? FileCoordinator, coordinator.filePresenter == nil {
      document.fileAccess = FileCoordinator(
        filePresenter: document.filePresenter, location: coordinator.location, presenterResponseTimeout: coordinator.presenterResponseTimeout)
    } else {
      document.fileAccess = fileAccess
    }
  }

  /// Creates an empty file of `type` at `url` and opens it. For a package type (a
  /// TextBundle), the document class writes its own empty package (text, `info.json`,
  /// `assets/`), as UIDocument's save "for creating".
  ///
  /// - Throws: ``QuireError/Code/fileExists`` when `url` exists; other errors of writing.
  @discardableResult
  public func makeDocument(ofType type: UTType, at url: URL) async throws -> Document {
    if type.conforms(to: .package), let documentClass = documentClass(for: type) {
      let document = documentClass.init(fileURL: url, fileType: type)
      configure(document)
      try await document.createNewPackage()
      documents.append(document)
      noteNewRecentDocumentURL(document.fileURL)
      return document
    }
    try FileSaver.write(Data(), to: url, options: SaveOptions(requiresNewFile: true))
    return try await openDocument(at: url, ofType: type)
  }

  // MARK: SwiftUI document models

  /// Makes ``FileDocumentHost`` of `model` the class for each of its
  /// ``FileDocument/readableContentTypes`` (SwiftUI's `DocumentGroup` for a `FileDocument`
  /// type): ``openDocument(at:ofType:)`` then opens such files as that host.
  public func register<Model: FileDocument>(_ model: Model.Type) {
    for type in Model.readableContentTypes { register(FileDocumentHost<Model>.self, for: type) }
  }

  /// Makes ``ReferenceFileDocumentHost`` of `model` the class for each of its
  /// ``ReferenceFileDocument/readableContentTypes``.
  public func register<Model: ReferenceFileDocument>(_ model: Model.Type) {
    for type in Model.readableContentTypes { register(ReferenceFileDocumentHost<Model>.self, for: type) }
  }

  /// Writes `document` as a new file (or folder) at `url`, which must not exist, and opens it
  /// (SwiftUI's `DocumentGroup(newDocument:)`).
  ///
  /// - Parameters:
  ///   - document: The new document's value.
  ///   - type: The type to write; `nil` for the first of ``FileDocument/writableContentTypes``.
  ///   - url: The new file.
  /// - Throws: ``QuireError/Code/fileExists`` when `url` exists; other errors of writing.
  @discardableResult
  public func makeDocument<Model: FileDocument>(_ document: Model, ofType type: UTType? = nil, at url: URL) async throws -> FileDocumentHost<Model> {
    let host = FileDocumentHost(fileURL: url, fileType: try newType(type, writable: Model.writableContentTypes, at: url), document: document)
    try await create(host)
    return host
  }

  /// Writes `document` as a new file (or folder) at `url`, which must not exist, and opens it;
  /// as `makeDocument(_:ofType:at:)` for a `FileDocument`.
  @discardableResult
  public func makeDocument<Model: ReferenceFileDocument>(
    _ document: Model, ofType type: UTType? = nil, at url: URL
  ) async throws -> ReferenceFileDocumentHost<Model> {
    let host = ReferenceFileDocumentHost(fileURL: url, fileType: try newType(type, writable: Model.writableContentTypes, at: url), document: document)
    try await create(host)
    return host
  }

  private func newType(_ type: UTType?, writable: [UTType], at url: URL) throws -> UTType {
    guard let chosen = type ?? writable.first else {
      throw QuireError(.unsupportedType, "Cannot create \(QuireError.name(url)): the document writes no type. Give it writableContentTypes.", url: url)
    }
    return chosen
  }

  /// Writes a closed document holding its contents as a new file and opens it.
  private func create(_ document: Document) async throws {
    configure(document)
    try await document.createNewPackage()
    documents.append(document)
    noteNewRecentDocumentURL(document.fileURL)
  }

  // MARK: Templates

  /// The templates listed in the templates folder's `templates.json` that exist.
  ///
  /// - Throws: ``QuireError`` when no templates folder is set or its list cannot be read.
  public func templates() throws -> [DocumentTemplate] {
    guard let folder = templatesFolder else {
      throw QuireError(.invalidArgument, "No templates folder is set. Give DocumentController a templatesFolder.")
    }
    return try DocumentTemplate.templates(in: folder)
  }

  /// Makes a new document at `url` as a copy of template `name`, and opens it. The template
  /// itself is only read.
  ///
  /// - Parameters:
  ///   - name: A template's file name (see ``templates()``).
  ///   - url: The new file; it must not exist. Its extension picks the document class.
  /// - Throws: ``QuireError`` when the template is unknown, `url` exists, or writing fails.
  @discardableResult
  public func makeDocument(fromTemplate name: String, at url: URL) async throws -> Document {
    guard let template = try templates().first(where: { $0.name == name }) else {
      let names = (try? templates().map(\.name).joined(separator: ", ")) ?? ""
      throw QuireError(.invalidArgument, "There is no template named '\(name)'. Templates: \(names).")
    }
    let (_, contents) = try FileFingerprint.read(at: template.url)
    try FileSaver.write(contents, to: url, options: SaveOptions(requiresNewFile: true))
    let type = self.type(forFileAt: url) ?? registry.type(forFileAt: template.url)
    return try await openDocument(at: url, ofType: type)
  }

  // MARK: Closing

  /// Closes `document` and forgets it.
  ///
  /// - Throws: ``QuireError/Code/unsavedChanges`` unless `discardingChanges` (see
  ///   ``Document/close(discardingChanges:)``); the document then stays open.
  public func close(_ document: Document, discardingChanges: Bool = false) async throws {
    try await document.close(discardingChanges: discardingChanges)
    documents.removeAll { $0 === document }
  }

  /// Closes `document` and forgets it, keeping unsaved changes in its recovery file for the
  /// next open to offer (see ``Document/closeKeepingUnsavedChanges()``).
  ///
  /// - Throws: ``QuireError/Code/unsavedChanges`` when the changes cannot be kept, or the
  ///   write's error; the document then stays open.
  public func closeKeepingUnsavedChanges(_ document: Document) async throws {
    try await document.closeKeepingUnsavedChanges()
    documents.removeAll { $0 === document }
  }

  /// Closes every document without unsaved changes; the others stay open and are reported.
  public func closeAllDocuments() async -> CloseAllReport {
    var report = CloseAllReport(closed: [], unsaved: [])
    for document in documents {
      do {
        try await close(document)
        report.closed.append(document.fileURL)
      } catch {
        report.unsaved.append(document)
      }
    }
    return report
  }

  // MARK: Recent documents

  private var recentsURL: URL { stateFolder.appendingPathComponent("recent-documents.json") }

  /// Recently opened documents, newest first (files that no longer exist are left out).
  public var recentDocumentURLs: [URL] {
    guard let data = try? Data(contentsOf: recentsURL),
      let paths = try? JSONDecoder().decode([String].self, from: data)
    else { return [] }
    return paths.map { URL(fileURLWithPath: $0) }.filter { FileManager.default.fileExists(atPath: $0.path) }
  }

  /// Puts `url` first in the recent documents. Failures to record are ignored (recents are
  /// a convenience, never a reason to fail an open).
  public func noteNewRecentDocumentURL(_ url: URL) {
    var paths = recentDocumentURLs.map(\.path)
    let path = url.standardizedFileURL.path
    paths.removeAll { $0 == path }
    paths.insert(path, at: 0)
    writeRecents(Array(paths.prefix(maximumRecentDocumentCount)))
  }

  /// Forgets the recent documents.
  public func clearRecentDocuments() { writeRecents([]) }

  private func writeRecents(_ paths: [String]) {
    guard let data = try? JSONEncoder().encode(paths) else { return }
    do {
      try StateFolder.prepare(stateFolder)
      try FileSaver.write(data, to: recentsURL, options: .privateState)
    } catch {}
  }
}
