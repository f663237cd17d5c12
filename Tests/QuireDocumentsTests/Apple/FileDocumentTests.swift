// Written from SwiftUI's documentation of FileDocument, ReferenceFileDocument and their read and
// write configurations (and Apple's "Building a document-based app with SwiftUI" sample),
// not from Quire's own API; the documents are opened and saved through Quire's document layer.
import Foundation
import QuireDocuments
import QuireTestSupport
import QuireTypes
import Testing

/// The text document of SwiftUI's `FileDocument` documentation.
struct TextFile: FileDocument {
  static let readableContentTypes = [UTType.plainText]

  var text = ""

  init(initialText: String = "") {
    text = initialText
  }

  init(configuration: ReadConfiguration) throws {
    if let data = configuration.file.regularFileContents {
      text = String(decoding: data, as: UTF8.self)
    } else {
      throw CocoaError(.fileReadCorruptFile)
    }
  }

  func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper {
    let data = Data(text.utf8)
    return FileWrapper(regularFileWithContents: data)
  }
}

/// A text document that refuses bytes that are not UTF-8, and remembers what SwiftUI told it.
struct StrictTextFile: FileDocument {
  static let readableContentTypes = [UTType.plainText]
  static let writableContentTypes = [UTType.plainText]

  var text = ""
  var readName: String?
  var readType: UTType?

  init(text: String) { self.text = text }

  init(configuration: ReadConfiguration) throws {
    guard let data = configuration.file.regularFileContents, let text = String(data: data, encoding: .utf8) else {
      throw CocoaError(.fileReadCorruptFile)
    }
    self.text = text
    readName = configuration.file.filename
    readType = configuration.contentType
  }

  func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper {
    FileWrapper(regularFileWithContents: Data(text.utf8))
  }
}

/// A document stored as a folder of files (a "package" of `public.folder`), which hands back
/// the existing file of each child that did not change, as SwiftUI's documentation suggests.
struct PackFolder: FileDocument {
  static let readableContentTypes = [UTType.folder]

  var files: [String: Data] = [:]
  var reusedChildren = 0

  init(files: [String: Data]) { self.files = files }

  init(configuration: ReadConfiguration) throws {
    guard configuration.file.isDirectory, let children = configuration.file.fileWrappers else {
      throw CocoaError(.fileReadCorruptFile)
    }
    files = children.compactMapValues(\.regularFileContents)
  }

  func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper {
    var children: [String: FileWrapper] = [:]
    for (name, data) in files {
      if let existing = configuration.existingFile?.fileWrappers?[name], existing.regularFileContents == data {
        children[name] = existing
      } else {
        children[name] = FileWrapper(regularFileWithContents: data)
      }
    }
    return FileWrapper(directoryWithFileWrappers: children)
  }
}

/// A document that wrongly writes a folder for a plain-text type.
struct FolderForText: FileDocument {
  static let readableContentTypes = [UTType.plainText]
  init() {}
  init(configuration: ReadConfiguration) throws {}
  func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper {
    FileWrapper(directoryWithFileWrappers: ["a.txt": FileWrapper(regularFileWithContents: Data("a".utf8))])
  }
}

/// A reference document of SwiftUI's `ReferenceFileDocument` documentation: a class whose
/// snapshot is saved.
final class Checklist: ReferenceFileDocument {
  static let readableContentTypes = [UTType.plainText]

  var items: [String] = []
  var snapshots = 0

  init(items: [String]) { self.items = items }

  init(configuration: ReadConfiguration) throws {
    guard let data = configuration.file.regularFileContents else { throw CocoaError(.fileReadCorruptFile) }
    items = String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
  }

  func snapshot(contentType: UTType) throws -> [String] {
    snapshots += 1
    return items
  }

  func fileWrapper(snapshot: [String], configuration: WriteConfiguration) throws -> FileWrapper {
    FileWrapper(regularFileWithContents: Data(snapshot.map { $0 + "\n" }.joined().utf8))
  }
}

@Suite("SwiftUI's FileDocument and ReferenceFileDocument, opened and saved by Quire's document layer")
@MainActor
final class FileDocumentTests: MainActorFolderSuite {
  private(set) lazy var controller = quietController(in: folder)

  private func text(_ url: URL) throws -> String { try String(contentsOf: url, encoding: .utf8) }

  /// Writes `contents` (when given) to `name`, registers `Value` with `opener` (the suite's
  /// controller by default) and opens the file through it, as the host of a `Value`.
  private func open<Value: FileDocument>(
    _ name: String, as _: Value.Type, writing contents: Data? = nil, with opener: DocumentController? = nil
  ) async throws -> FileDocumentHost<Value> {
    let opener = opener ?? controller
    let url = folder.file(name)
    try contents?.write(to: url)
    opener.register(Value.self)
    return try #require(try await opener.openDocument(at: url) as? FileDocumentHost<Value>)
  }

  /// Writes `contents` to `name` and opens it as the host of a `Value` made directly, without
  /// a controller, and without autosave.
  private func openHost<Value: FileDocument>(_ name: String, as _: Value.Type, writing contents: String) async throws -> FileDocumentHost<Value> {
    let host = FileDocumentHost<Value>(fileURL: try folder.write(contents, to: name))
    host.autosavePolicy = nil
    try await host.open()
    return host
  }

  @Test func writableContentTypesDefaultToTheReadableOnes() {
    #expect(TextFile.writableContentTypes == [.plainText])
    #expect(PackFolder.writableContentTypes == [.folder])
    #expect(Checklist.writableContentTypes == [.plainText])
  }

  @Test func aFileDocumentOpensEditsUndoesAndSavesSafely() async throws {
    let host = try await open("note.txt", as: TextFile.self, writing: Data("first draft".utf8))
    let url = host.fileURL
    #expect(host.document?.text == "first draft")
    #expect(!host.hasUnsavedChanges)

    // Each change of the value is an undoable step, as SwiftUI registers one.
    host.document?.text = "second draft"
    #expect(host.hasUnsavedChanges)
    #expect(host.undoManager.undoMenuItemTitle == "Undo Edit")
    host.undoManager.undo()
    #expect(host.document?.text == "first draft")
    #expect(!host.hasUnsavedChanges)
    host.undoManager.redo()
    #expect(host.document?.text == "second draft")

    try await host.save()
    #expect(!host.hasUnsavedChanges)
    #expect(try text(url) == "second draft")
    // The save kept what the file held before, as every Quire save does.
    let versions = try host.versions()
    #expect(versions.count == 1)
    #expect(try host.versionStore?.contents(of: versions[0]) == Data("first draft".utf8))
    try await controller.close(host)

    let again = DocumentController(stateFolder: folder.file("state"))
    let reopened = try await open("note.txt", as: TextFile.self, with: again)
    #expect(reopened.document?.text == "second draft")
    try await again.close(reopened)
  }

  @Test func theReadConfigurationNamesTheFileAndItsType() async throws {
    let host = try await open("named.txt", as: StrictTextFile.self, writing: Data("ok".utf8))
    #expect(host.document?.readName == "named.txt")
    #expect(host.document?.readType == .plainText)
    try await controller.close(host)
  }

  @Test func aNewValueBecomesANewFile() async throws {
    controller.register(TextFile.self)
    let url = folder.file("new.txt")
    let host = try await controller.makeDocument(TextFile(initialText: "hello"), at: url)
    #expect(try text(url) == "hello")
    #expect(host.contentType == .plainText)
    #expect(!host.documentState.contains(.closed))
    #expect(controller.document(for: url) === host)
    // The file exists now: making another there is refused and the file is untouched.
    await #expect(throws: QuireError.self) { try await self.controller.makeDocument(TextFile(initialText: "other"), at: url) }
    #expect(try text(url) == "hello")
    try await controller.close(host)
  }

  @Test func aFolderDocumentIsSavedAsAFolderReusingUnchangedFiles() async throws {
    controller.register(PackFolder.self)
    let url = folder.file("pack")
    let host = try await controller.makeDocument(PackFolder(files: ["a.txt": Data("A".utf8), "b.txt": Data("B".utf8)]), at: url)
    var isFolder: ObjCBool = false
    #expect(FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) && isFolder.boolValue)
    #expect(try text(url.appendingPathComponent("a.txt")) == "A")
    let before = try FileManager.default.attributesOfItem(atPath: url.appendingPathComponent("a.txt").path)[.systemFileNumber] as? Int

    host.document?.files["b.txt"] = Data("B2".utf8)
    try await host.save()
    #expect(try text(url.appendingPathComponent("b.txt")) == "B2")
    #expect(try text(url.appendingPathComponent("a.txt")) == "A")
    // The unchanged child came back as the existing file, so the save linked it, not rewrote it.
    let after = try FileManager.default.attributesOfItem(atPath: url.appendingPathComponent("a.txt").path)[.systemFileNumber] as? Int
    #expect(before != nil && before == after)
    try await controller.close(host)

    let reopened = try #require(try await controller.openDocument(at: url, ofType: .folder) as? FileDocumentHost<PackFolder>)
    #expect(reopened.document?.files == ["a.txt": Data("A".utf8), "b.txt": Data("B2".utf8)])
    try await controller.close(reopened)
  }

  @Test func aReferenceDocumentIsSavedFromItsSnapshot() async throws {
    let url = folder.file("list.txt")
    try Data("milk\n".utf8).write(to: url)
    controller.register(Checklist.self)
    let host = try #require(try await controller.openDocument(at: url) as? ReferenceFileDocumentHost<Checklist>)
    let list = try #require(host.document)
    #expect(list.items == ["milk"])
    // As SwiftUI asks of a reference document: register undo for each change.
    let previous = list.items
    list.items.append("eggs")
    host.undoManager.registerUndo(withTarget: list) { $0.items = previous }
    #expect(host.hasUnsavedChanges)
    try await host.save()
    #expect(list.snapshots == 1)
    #expect(try text(url) == "milk\neggs\n")
    host.undoManager.undo()
    #expect(list.items == ["milk"])
    #expect(host.hasUnsavedChanges)
    try await host.save()
    #expect(try text(url) == "milk\n")
    try await controller.close(host)

    let made = try await controller.makeDocument(Checklist(items: ["a", "b"]), at: folder.file("made.txt"))
    #expect(try text(folder.file("made.txt")) == "a\nb\n")
    try await controller.close(made)
  }

  @Test func contentsTheDocumentRefusesLeaveItClosedWithTheFileNamed() async throws {
    controller.register(StrictTextFile.self)
    let url = folder.file("latin1.txt")
    try Data([0x63, 0x61, 0x66, 0xE9]).write(to: url)  // "café" in Latin-1: not UTF-8
    let error = await expectQuireError(.invalidContent) { try await self.controller.openDocument(at: url) }
    #expect(error?.url?.lastPathComponent == "latin1.txt")
    #expect(error.map { "\($0)" }?.contains("latin1.txt") == true)
    #expect(controller.documents.isEmpty)
    #expect(try Data(contentsOf: url) == Data([0x63, 0x61, 0x66, 0xE9]))

    // Missing and empty files.
    await expectQuireError(.fileMissing) { try await self.controller.openDocument(at: self.folder.file("missing.txt")) }
    let host = try await open("empty.txt", as: StrictTextFile.self, writing: Data())
    #expect(host.document?.text == "")
    try await controller.close(host)
  }

  @Test func aTypeTheDocumentDoesNotWriteIsRefusedAndNothingIsWritten() async throws {
    let host = try await openHost("strict.txt", as: StrictTextFile.self, writing: "keep")
    let url = host.fileURL
    host.document?.text = "changed"
    let target = folder.file("strict.pdf")
    await expectQuireError(.unsupportedType) { try await host.save(to: target, ofType: .pdf, for: .saveToOperation) }
    #expect(!FileManager.default.fileExists(atPath: target.path))
    #expect(try text(url) == "keep")
    try await host.close(discardingChanges: true)
  }

  @Test func aFolderForAFileTypeIsRefusedAndTheFileIsUntouched() async throws {
    let host = try await openHost("plain.txt", as: FolderForText.self, writing: "plain")
    let url = host.fileURL
    host.document = FolderForText()
    await expectQuireError(.unsupportedType) { try await host.save() }
    #expect(try text(url) == "plain")
    try await host.close(discardingChanges: true)
  }

  @Test func aNewFileOfATypeTheDocumentDoesNotWriteIsRefused() async throws {
    let url = folder.file("nothing.pdf")
    await expectQuireError(.unsupportedType) { try await self.controller.makeDocument(TextFile(), ofType: .pdf, at: url) }
    #expect(!FileManager.default.fileExists(atPath: url.path))
    #expect(controller.documents.isEmpty)
  }
}
