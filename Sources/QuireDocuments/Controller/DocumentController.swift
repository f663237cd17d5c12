public import Foundation
import QuireCoordination
import QuireSystem
public import QuireTypes
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// A document template in the templates folder (`Templates/`), described by its
/// `templates.json`.
public struct DocumentTemplate: Sendable, Hashable {
  /// The template's file name, e.g. `meeting-notes.md`.
  public var name: String
  /// What it holds, from `templates.json`.
  public var summary: String
  /// The template file.
  public var url: URL

  /// The templates listed in `folder`'s `templates.json` that exist as regular files, by
  /// name. The list and the templates are read beneath the folder through no symbolic link
  /// (a template linked to `/etc/passwd` is not one); a link, a FIFO, a device or a folder
  /// under a listed name is left out.
  ///
  /// - Throws: ``QuireError`` when the list is missing or not a JSON object of names to descriptions.
  public static func templates(in folder: URL) throws -> [DocumentTemplate] {
    let listURL = folder.appendingPathComponent("templates.json")
    let list: [String: String]
    do {
      list = try JSONDecoder().decode([String: String].self, from: read("templates.json", in: folder, role: "read the template list"))
    } catch let error as QuireError where error.code != .invalidContent && error.code != .fileMissing {
      throw error
    } catch {
      throw QuireError(
        .invalidContent, "Cannot read the template list \(QuireError.name(listURL)): it is missing or not a JSON object of names to descriptions.", url: listURL
      )
    }
    return list.keys.sorted().compactMap { name in
      guard !name.contains("/"), name != "..", name != "." else { return nil }
      let url = folder.appendingPathComponent(name)
      guard case .success(let info) = SystemCalls.lstat(PathText.path(url.path)), info.st_mode & S_IFMT == S_IFREG else { return nil }
      return DocumentTemplate(name: name, summary: list[name] ?? "", url: url)
    }
  }

  /// The template's bytes, read beneath its folder through no symbolic link, from a regular
  /// file only (at most 64 MiB).
  ///
  /// - Throws: ``QuireError`` naming the template when it is now a link, a FIFO, a device or
  ///   a folder, or cannot be read.
  public func contents() throws(QuireError) -> Data {
    try Self.read(url.lastPathComponent, in: url.deletingLastPathComponent(), role: "use the template")
  }

  /// `name` in `folder`, read through the one confined opener.
  static func read(_ name: String, in folder: URL, role: String) throws(QuireError) -> Data {
    let url = folder.appendingPathComponent(name)
    let root: FileDescriptor
    switch SystemCalls.open(PathText.path(folder.path), O_RDONLY | O_DIRECTORY) {
    case .success(let fd): root = fd
    case .failure(let failure):
      throw QuireError(.fileMissing, "Cannot \(role) \(QuireError.name(url)): its folder '\(folder.path)' cannot be opened.", url: url, cause: failure)
    }
    defer { SystemCalls.release(root) }
    let fd = FileDescriptor(rawValue: try InputFile.open(name, beneath: root, url: url, for: role))
    defer { SystemCalls.release(fd) }
    switch SystemCalls.readAll(fd) {
    case .success(let data) where data.count <= 64 << 20: return data
    case .success: throw QuireError(.limitExceeded, "Cannot \(role) \(QuireError.name(url)): it is larger than 64 MiB.", url: url)
    case .failure(let failure):
      throw QuireError(QuireError.Code(failure.errno), "Cannot \(role) \(QuireError.name(url)): reading it failed.", url: url, cause: failure)
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
@preconcurrency @MainActor
open class DocumentController {
  /// The types and their conformances.
  public let registry: TypeRegistry
  /// Where per-user state goes.
  public let stateFolder: URL
  /// The templates folder, holding the templates and `templates.json`.
  open var templatesFolder: URL?
  /// The autosave policy given to documents this controller opens.
  open var autosavePolicy: Document.AutosavePolicy? = .standard
  /// How documents this controller opens reach their files: by default a `FileCoordinator`,
  /// so their reads and saves take the cross-process locks that other Quire processes (and
  /// their presenters) respect, as NSDocumentController's documents coordinate.
  open var fileAccess: any DocumentFileAccess = FileCoordinator()
  /// The most recent documents kept.
  open var maximumRecentDocumentCount = 20
  /// The open documents, in the order they were opened.
  open private(set) var documents: [Document] = []

  private var registrations: [(type: UTType, documentClass: Document.Type)] = []

  /// Makes a controller with ``PlainTextDocument`` for `public.plain-text`,
  /// ``MarkdownDocument`` for `net.daringfireball.markdown`, ``TextBundleDocument`` for
  /// `org.textbundle.package` and `org.textbundle.textpack` (declared in `registry` when it
  /// does not declare them yet). PDF documents live in `QuirePDF`, as PDFKit is a framework of
  /// its own: `registerPDFDocuments()` (from `QuirePDF`) adds `PDFFileDocument` for `com.adobe.pdf`.
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
  }

  /// The version store given to documents this controller opens: `STATE/versions`.
  open var versionStore: VersionStore {
    VersionStore(root: stateFolder.appendingPathComponent("versions", isDirectory: true))
  }

  /// The recovery store given to documents this controller opens.
  open var recoveryStore: RecoveryStore {
    RecoveryStore(folder: stateFolder.appendingPathComponent("recovery", isDirectory: true))
  }

  // MARK: Document classes

  /// Makes `documentClass` the class for files of `type` (and types conforming to it, unless a
  /// more specific registration exists).
  open func register(_ documentClass: Document.Type, for type: UTType) {
    registrations.removeAll { $0.type == type }
    registrations.append((type, documentClass))
  }

  /// The class for `type`: the registration with the most specific type `type` conforms to.
  /// Among equally specific ones (unrelated parents), the latest registration wins.
  open func documentClass(for type: UTType) -> Document.Type? {
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
  open func type(forFileAt url: URL) -> UTType? {
    let ext = url.pathExtension
    if !ext.isEmpty, let declared = registry.type(forTag: ext, tagClass: .filenameExtension), !declared.isDynamic {
      return declared
    }
    if let identified = registry.type(forFileAt: url), !identified.isDynamic, identified != .data { return identified }
    return ext.isEmpty ? registry.type(withIdentifier: UTType.plainText.identifier) : nil
  }

  // MARK: Opening

  /// The open document whose file is `url`.
  open func document(for url: URL) -> Document? {
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
  open func openDocument(at url: URL, ofType type: UTType? = nil) async throws -> Document {
    try await openDocument(at: url, ofType: type, options: .standard)
  }

  /// Opens the document at `url` with `options` (exact bytes for an editor such as ed, UTF-8
  /// text only), or returns it when it is already open.
  ///
  /// - Throws: ``QuireError`` when the type has no document class or the file cannot be read;
  ///   ``QuireError/Code/fileMissing`` when nothing is at `url` (a caller may then make a
  ///   new document there with ``makeNewDocument(at:ofType:options:)``).
  @discardableResult
  open func openDocument(at url: URL, ofType type: UTType? = nil, options: DocumentOptions) async throws -> Document {
    if let open = document(for: url) { return open }
    let document = try makeClosedDocument(for: url, ofType: type, role: "open")
    configure(document, options: options)
    try await document.open()
    documents.append(document)
    noteNewRecentDocumentURL(document.fileURL)
    return document
  }

  /// A new, empty document for `url`, where nothing is yet: open at once, and written there by
  /// its first save (``Document/openNew()``), as an editor's "new file" that is created when
  /// saved. The class is the registry's for the type `url`'s name says (or `type`).
  ///
  /// - Throws: ``QuireError`` when the type has no document class.
  @discardableResult
  open func makeNewDocument(at url: URL, ofType type: UTType? = nil, options: DocumentOptions = .standard) throws -> Document {
    let document = try makeClosedDocument(for: url, ofType: type, role: "make")
    configure(document, options: options)
    try document.openNew()
    documents.append(document)
    return document
  }

  /// A closed document of the class the registry has for `type` (judged from `url` when `nil`),
  /// chosen by type conformance (``documentClass(for:)``).
  private func makeClosedDocument(for url: URL, ofType type: UTType?, role: String) throws -> Document {
    guard let type = type ?? self.type(forFileAt: url) else {
      throw QuireError(.unsupportedType, "Cannot \(role) \(QuireError.name(url)): its type is unknown. Give it an extension such as .txt or .md.", url: url)
    }
    guard let documentClass = documentClass(for: type) else {
      throw QuireError(
        .unsupportedType,
        "Cannot \(role) \(QuireError.name(url)): no document class handles \(type.localizedDescription ?? type.identifier). Register one with DocumentController.register(_:for:).",
        url: url)
    }
    return documentClass.init(fileURL: url, contentType: type)
  }

  /// Gives `document` what documents of this controller share, before it reads its file: the
  /// registry, the recovery and version stores, the autosave policy and the file access (a
  /// coordinator of the controller's is remade for the document's own presenter), then
  /// `options`.
  ///
  /// The one place where documents are configured; a subclass adds what is its own (a store
  /// of its own, say) after calling `super`.
  open func configure(_ document: Document, options: DocumentOptions) {
    configureShared(document)
    options.apply(to: document)
  }

  private func configureShared(_ document: Document) {
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
  open func makeDocument(ofType type: UTType, at url: URL) async throws -> Document {
    if type.conforms(to: .package), let documentClass = documentClass(for: type) {
      let document = documentClass.init(fileURL: url, contentType: type)
      configure(document, options: .standard)
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
  open func register<Model: FileDocument>(_ model: Model.Type) {
    for type in Model.readableContentTypes { register(FileDocumentHost<Model>.self, for: type) }
  }

  /// Makes ``ReferenceFileDocumentHost`` of `model` the class for each of its
  /// ``ReferenceFileDocument/readableContentTypes``.
  open func register<Model: ReferenceFileDocument>(_ model: Model.Type) {
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
  open func makeDocument<Model: FileDocument>(_ document: Model, ofType type: UTType? = nil, at url: URL) async throws -> FileDocumentHost<Model> {
    let host = FileDocumentHost(fileURL: url, contentType: try newType(type, writable: Model.writableContentTypes, at: url), document: document)
    try await create(host)
    return host
  }

  /// Writes `document` as a new file (or folder) at `url`, which must not exist, and opens it;
  /// as `makeDocument(_:ofType:at:)` for a `FileDocument`.
  @discardableResult
  open func makeDocument<Model: ReferenceFileDocument>(
    _ document: Model, ofType type: UTType? = nil, at url: URL
  ) async throws -> ReferenceFileDocumentHost<Model> {
    let host = ReferenceFileDocumentHost(fileURL: url, contentType: try newType(type, writable: Model.writableContentTypes, at: url), document: document)
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
    configure(document, options: .standard)
    try await document.createNewPackage()
    documents.append(document)
    noteNewRecentDocumentURL(document.fileURL)
  }

  // MARK: Templates

  /// The templates listed in the templates folder's `templates.json` that exist.
  ///
  /// - Throws: ``QuireError`` when no templates folder is set or its list cannot be read.
  open func templates() throws -> [DocumentTemplate] {
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
  open func makeDocument(fromTemplate name: String, at url: URL) async throws -> Document {
    guard let template = try templates().first(where: { $0.name == name }) else {
      let names = (try? templates().map(\.name).joined(separator: ", ")) ?? ""
      throw QuireError(.invalidArgument, "There is no template named '\(name)'. Templates: \(names).")
    }
    let (_, contents) = try FileFingerprint.read(at: template.url)
    try FileSaver.write(contents, to: url, options: SaveOptions(requiresNewFile: true))
    let type = self.type(forFileAt: url) ?? registry.type(forFileAt: template.url)
    return try await openDocument(at: url, ofType: type)
  }

  // MARK: AppKit's spellings (NSDocumentController)

  /// The app's shared controller (AppKit's `NSDocumentController.shared`), made on first use
  /// with the shared registry and the per-user state folder.
  public static var shared: DocumentController {
    if let sharedController { return sharedController }
    let made = DocumentController()
    sharedController = made
    return made
  }
  private static var sharedController: DocumentController?

  /// The document the user works on: the one opened last (AppKit's `currentDocument`, which
  /// follows the key window; Quire has no windows).
  open var currentDocument: Document? { documents.last }

  /// The type new untitled documents get (AppKit's `defaultType`): the first registered type.
  open var defaultType: String? { registrations.first?.type.identifier }

  /// The class for documents of `typeName` (AppKit's `documentClass(forType:)`).
  open func documentClass(forType typeName: String) -> AnyClass? {
    registry.type(withIdentifier: typeName).flatMap { documentClass(for: $0) }
  }

  /// The type identifier of the file at `url` (AppKit's `typeForContents(of:)`).
  ///
  /// - Throws: ``QuireError`` when the type is unknown.
  open func typeForContents(of url: URL) throws -> String {
    guard let type = type(forFileAt: url) else {
      throw QuireError(.unsupportedType, "Cannot tell the type of \(QuireError.name(url)). Give it an extension such as .txt or .md.", url: url)
    }
    return type.identifier
  }

  /// Opens the document at `url` (or finds it open) and calls `completionHandler` with it,
  /// whether it was already open, and the error (AppKit's
  /// `openDocument(withContentsOf:display:completionHandler:)`). Quire has no windows:
  /// `displayDocument` is not used.
  open func openDocument(
    withContentsOf url: URL, display displayDocument: Bool,
    completionHandler: @escaping @MainActor (Document?, Bool, (any Error)?) -> Void
  ) {
    let wasOpen = document(for: url) != nil
    Task {
      do {
        completionHandler(try await self.openDocument(at: url), wasOpen, nil)
      } catch {
        completionHandler(nil, false, error)
      }
    }
  }

  /// A closed document of `typeName` for `url`, not yet read or added (AppKit's
  /// `makeDocument(withContentsOf:ofType:)`, which reads at once; here the document is read
  /// by `open()`, as UIKit's are, so that reading is coordinated and asynchronous).
  ///
  /// - Throws: ``QuireError`` when no class handles the type.
  open func makeDocument(withContentsOf url: URL, ofType typeName: String) throws -> Document {
    let type = registry.type(withIdentifier: typeName) ?? UTType(importedAs: typeName)
    guard let documentClass = documentClass(for: type) else {
      throw QuireError(
        .unsupportedType, "Cannot make a document of type \(typeName): no document class handles it. Register one with register(_:for:).", url: url)
    }
    let document = documentClass.init(fileURL: url, contentType: type)
    configure(document, options: .standard)
    return document
  }

  /// An untitled document of `typeName` (AppKit's `makeUntitledDocument(ofType:)`): a closed
  /// document with no file (``Document/isUntitled``), whose ``Document/fileURL`` is only the
  /// name a first save would suggest (`Untitled` with the type's extension in the current
  /// folder): nothing is read or written there until the document is given a file. Open it
  /// with ``Document/openNew()`` or ``Document/open(contents:fingerprint:)``.
  open func makeUntitledDocument(ofType typeName: String) throws -> Document {
    let document = try makeDocument(withContentsOf: Self.untitledURL(for: registry.type(withIdentifier: typeName)), ofType: typeName)
    document.isUntitled = true
    return document
  }

  /// An untitled plain text document (``makeUntitledDocument(ofType:)``, of the class
  /// registered for plain text) configured with `options` and open, empty: the REPL's untitled
  /// buffer, and the empty lines of a PDF, which has none.
  package func makeUntitledTextDocument(options: DocumentOptions) -> PlainTextDocument {
    let made = try? makeUntitledDocument(ofType: UTType.plainText.identifier)
    let document = made as? PlainTextDocument ?? PlainTextDocument(fileURL: Self.untitledURL(for: .plainText), contentType: .plainText)
    document.isUntitled = true
    configure(document, options: options)
    // Its type is given and nothing is read: opening it empty cannot fail.
    try? document.openNew()
    return document
  }

  /// Where an untitled document of `type` would be saved first: `Untitled` with the type's
  /// extension in the current folder. Made without looking at the disk (a URL made without
  /// `isDirectory` would `stat` the name to find out).
  private static func untitledURL(for type: UTType?) -> URL {
    let name = "Untitled" + (type?.preferredFilenameExtension.map { "." + $0 } ?? "")
    return URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true).appendingPathComponent(name, isDirectory: false)
  }

  /// Adds `document` to ``documents`` (AppKit's `addDocument(_:)`).
  open func addDocument(_ document: Document) {
    guard !documents.contains(where: { $0 === document }) else { return }
    documents.append(document)
  }

  /// Removes `document` from ``documents`` without closing it (AppKit's `removeDocument(_:)`).
  open func removeDocument(_ document: Document) {
    documents.removeAll { $0 === document }
  }

  // MARK: Closing

  /// Closes `document` and forgets it.
  ///
  /// - Throws: ``QuireError/Code/unsavedChanges`` unless `discardingChanges` (see
  ///   ``Document/close(discardingChanges:)``); the document then stays open.
  open func close(_ document: Document, discardingChanges: Bool = false) async throws {
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
  open func closeAllDocuments() async -> CloseAllReport {
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
  open var recentDocumentURLs: [URL] {
    guard let data = try? Data(contentsOf: recentsURL),
      let paths = try? JSONDecoder().decode([String].self, from: data)
    else { return [] }
    return paths.map { URL(fileURLWithPath: $0) }.filter { FileManager.default.fileExists(atPath: $0.path) }
  }

  /// Puts `url` first in the recent documents. Failures to record are ignored (recents are
  /// a convenience, never a reason to fail an open).
  open func noteNewRecentDocumentURL(_ url: URL) {
    var paths = recentDocumentURLs.map(\.path)
    let path = url.standardizedFileURL.path
    paths.removeAll { $0 == path }
    paths.insert(path, at: 0)
    writeRecents(Array(paths.prefix(maximumRecentDocumentCount)))
  }

  /// Forgets the recent documents.
  open func clearRecentDocuments() { writeRecents([]) }

  private func writeRecents(_ paths: [String]) {
    guard let data = try? JSONEncoder().encode(paths) else { return }
    do {
      try StateFolder.prepare(stateFolder)
      try FileSaver.write(data, to: recentsURL, options: .privateState)
    } catch {}
  }
}

/// AppKit's name for ``DocumentController``.
public typealias NSDocumentController = DocumentController
