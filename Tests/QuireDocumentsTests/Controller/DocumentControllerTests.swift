import Foundation
import QuireDocuments
import QuireTestSupport
import QuireTypes
import Testing

/// An embedding app's own document class.
final class LogDocument: PlainTextDocument {}

@Suite("Document controller")
@MainActor
final class DocumentControllerTests: MainActorFolderSuite {

  func makeController(registry: TypeRegistry = .shared) -> DocumentController {
    let controller = DocumentController(
      registry: registry, stateFolder: folder.file("state/quire"), templatesFolder: Self.templates)
    controller.autosavePolicy = nil
    return controller
  }

  /// The repository's Templates/ folder.
  static let templates = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Templates")

  @Test func theMostSpecificRegistrationWins() {
    let controller = makeController()
    #expect(controller.documentClass(for: .markdown) == MarkdownDocument.self)
    #expect(controller.documentClass(for: .plainText) == PlainTextDocument.self)
    #expect(controller.documentClass(for: .utf8PlainText) == PlainTextDocument.self)
    #expect(controller.documentClass(for: .html) == nil)
    // Registering a class for the general type later does not take Markdown away.
    controller.register(LogDocument.self, for: .plainText)
    #expect(controller.documentClass(for: .plainText) == LogDocument.self)
    #expect(controller.documentClass(for: .markdown) == MarkdownDocument.self)
  }

  @Test func anEmbeddingAppRegistersItsOwnTypeAndClass() async throws {
    let registry = TypeRegistry(declarations: [
      TypeDeclaration(identifier: "public.text", conformsTo: []),
      TypeDeclaration(identifier: "public.plain-text", conformsTo: ["public.text"], tags: [.filenameExtension: ["txt"]]),
      TypeDeclaration(identifier: "com.example.log", conformsTo: ["public.plain-text"], tags: [.filenameExtension: ["log"]]),
    ])
    let controller = makeController(registry: registry)
    let logType = try #require(registry.type(withIdentifier: "com.example.log"))
    controller.register(LogDocument.self, for: logType)
    let url = try folder.write("started\n", to: "server.log")
    let document = try await controller.openDocument(at: url)
    #expect(document is LogDocument)
    #expect(document.contentType == logType)
  }

  @Test func openingTwiceGivesTheSameDocumentAndRecordsRecents() async throws {
    let controller = makeController()
    let a = try folder.write("a\n", to: "a.md")
    let b = try folder.write("b\n", to: "b.txt")
    let first = try await controller.openDocument(at: a)
    #expect(first is MarkdownDocument)
    try await controller.openDocument(at: b)
    #expect(try await controller.openDocument(at: a) === first)
    #expect(controller.documents.count == 2)
    #expect(controller.recentDocumentURLs.map(\.lastPathComponent) == ["b.txt", "a.md"])
    #expect(mode(folder.file("state/quire/recent-documents.json")).mode == 0o600)
    #expect(mode(folder.file("state/quire")).mode == 0o700)
    // Recents survive the controller.
    #expect(makeController().recentDocumentURLs.count == 2)
    controller.clearRecentDocuments()
    #expect(controller.recentDocumentURLs.isEmpty)
  }

  @Test func aNewDocumentFromATemplateIsACopy() async throws {
    let controller = makeController()
    let templates = try controller.templates()
    #expect(templates.map(\.name).contains("meeting-notes.md"))
    let template = Self.templates.appendingPathComponent("meeting-notes.md")
    let before = bytes(template)
    let url = folder.file("monday.md")
    let document = try #require(try await controller.makeDocument(fromTemplate: "meeting-notes.md", at: url) as? MarkdownDocument)
    #expect(bytes(url) == before)
    try document.insertLines(["edited"], at: 0)
    try await document.save()
    #expect(bytes(template) == before)
    await #expect(throws: QuireError.self) { try await controller.makeDocument(fromTemplate: "meeting-notes.md", at: url) }
    await #expect(throws: QuireError.self) { try await controller.makeDocument(fromTemplate: "../etc/passwd", at: self.folder.file("x.md")) }
  }

  @Test func closeAllReportsUnsavedDocumentsAndKeepsThemOpen() async throws {
    let controller = makeController()
    let clean = try await controller.openDocument(at: try folder.write("a\n", to: "clean.txt"))
    let dirty = try #require(try await controller.openDocument(at: try folder.write("b\n", to: "dirty.txt")) as? PlainTextDocument)
    try dirty.insertLines(["more"], at: 1)
    let report = await controller.closeAllDocuments()
    #expect(report.closed == [clean.fileURL])
    #expect(report.unsaved.map(\.fileURL) == [dirty.fileURL])
    #expect(controller.documents.count == 1)
    #expect(clean.documentState == .closed)
    #expect(dirty.documentState == .normal)
  }

  @Test func closingKeepingUnsavedChangesLeavesThemInRecoveryForTheNextOpen() async throws {
    let controller = makeController()
    let file = try folder.write("saved\n", to: "draft.txt")
    let document = try #require(try await controller.openDocument(at: file) as? PlainTextDocument)
    try document.insertLines(["unsaved"], at: 1)
    try await controller.closeKeepingUnsavedChanges(document)
    #expect(document.documentState == .closed && controller.documents.isEmpty)
    #expect(try String(contentsOf: file, encoding: .utf8) == "saved\n", "nothing was saved to the file")
    let again = try #require(try await controller.openDocument(at: file) as? PlainTextDocument)
    let recovered = try #require(again.recoveredVersion, "the next open offers the kept changes")
    #expect(String(decoding: try recovered.contents(), as: UTF8.self) == "saved\nunsaved\n")
    // With that version still undecided, new edits cannot be kept too: the close refuses and
    // the document stays open with them.
    try again.insertLines(["other"], at: 0)
    await expectQuireError(.unsavedChanges, reasonContains: "waiting to be restored") { try await controller.closeKeepingUnsavedChanges(again) }
    #expect(again.documentState != .closed && controller.documents.count == 1)
    // A clean document closes as usual and leaves no recovery file; the undecided one stays.
    again.discardRecoveredVersion()
    try again.revert(toContents: Data("saved\n".utf8), fingerprint: again.fileFingerprint)
    try await controller.closeKeepingUnsavedChanges(again)
    #expect(controller.recoveryStore.recoveredVersion(for: file) == nil)
  }

  enum BadInput: String, CaseIterable { case missing, folder, unknownType, binary, symlinkLoop, huge }

  @Test(arguments: BadInput.allCases)
  func badInputFailsCleanly(_ input: BadInput) async throws {
    let controller = makeController()
    let url: URL
    let code: QuireError.Code
    switch input {
    case .missing:
      url = folder.file("missing.txt")
      code = .fileMissing
    case .folder:
      url = folder.file("dir.txt")
      code = .unsupportedType
      try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
    case .unknownType:
      url = try folder.write("x", to: "picture.png")
      code = .unsupportedType
    case .binary:
      url = folder.file("binary.txt")
      code = .invalidContent
      try Data([0x00, 0xFF, 0xFE, 0x00]).write(to: url)
    case .symlinkLoop:
      url = folder.file("loop.txt")
      code = .invalidArgument
      try FileManager.default.createSymbolicLink(atPath: url.path, withDestinationPath: url.path)
    case .huge:
      url = folder.file("huge.txt")
      code = .limitExceeded
      let handle = open(url.path, O_CREAT | O_WRONLY, 0o644)
      ftruncate(handle, 5 << 30)  // sparse: costs no disk
      close(handle)
    }
    await expectQuireError(code, reasonContains: url.lastPathComponent) { try await controller.openDocument(at: url) }
    #expect(controller.documents.isEmpty)
  }

  @Test(.enabled(if: !isRunningAsRoot, "root reads files whatever their mode (the syscall seam covers EACCES)")) func noPermissionIsAClearError() async throws {
    let url = try folder.write("secret\n", to: "secret.txt")
    chmod(url.path, 0)
    await #expect(throws: QuireError.self) { try await self.makeController().openDocument(at: url) }
  }

  @Test func anUntitledDocumentReadsAndWritesNothingAtItsSuggestedName() async throws {
    let controller = makeController()
    let document = try #require(try controller.makeUntitledDocument(ofType: UTType.plainText.identifier) as? PlainTextDocument)
    #expect(document.isUntitled)
    #expect(document.fileURL.lastPathComponent == "Untitled.txt")
    // A real file of that name may have a recovery file: it is neither offered nor removed.
    try controller.recoveryStore.write(Data("someone else's\n".utf8), for: document.fileURL)
    try document.openNew()
    #expect(document.recoveredVersion == nil)
    try document.insertLines(["draft"], at: 0)
    await expectQuireError(.invalidArgument, reasonContains: "untitled") { try await document.save() }
    try await document.autosave()
    #expect(try document.versions().isEmpty)
    #expect(try await document.checkForChangesOnDisk() == .unchanged)
    try await document.close(discardingChanges: true)
    #expect(controller.recoveryStore.recoveredVersion(for: document.fileURL) != nil)
    #expect(document.text == "draft\n")
  }

  @Test func anUntitledDocumentSavedAsAFileHasThatFile() async throws {
    let controller = makeController()
    let document = try #require(try controller.makeUntitledDocument(ofType: UTType.plainText.identifier) as? PlainTextDocument)
    try document.openNew()
    try document.insertLines(["draft"], at: 0)
    let target = folder.file("named.txt")
    try await document.save(to: target, for: .saveAsOperation)
    #expect(!document.isUntitled)
    #expect(document.fileURL == target.standardizedFileURL)
    #expect(try String(contentsOf: target, encoding: .utf8) == "draft\n")
    try document.insertLines(["more"], at: 1)
    try await document.save()
    #expect(try String(contentsOf: target, encoding: .utf8) == "draft\nmore\n")
    // Named without a save (ed's `f FILE`): titled, its first save creates the file.
    let other = try #require(try controller.makeUntitledDocument(ofType: UTType.plainText.identifier) as? PlainTextDocument)
    try other.openNew()
    try other.insertLines(["named"], at: 0)
    other.setFileURL(folder.file("other.txt"))
    #expect(!other.isUntitled)
    try await other.save()
    #expect(try String(contentsOf: folder.file("other.txt"), encoding: .utf8) == "named\n")
  }
}
