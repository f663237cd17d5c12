import Foundation
import QuireTestSupport
import QuireTypes
import Testing

@Suite("shared-mime-info import")
final class SharedMIMETests: FolderSuite {

  /// A private XDG data folder with a tiny shared-mime-info database.
  func makeDatabase() throws -> TypeRegistry {
    let mime = folder.url.appendingPathComponent("data/mime", isDirectory: true)
    try FileManager.default.createDirectory(at: mime, withIntermediateDirectories: true)
    try Data("application/x-quire-test\ntext/x-quire-notes\nimage/x-quire-picture\ntext/plain\nimage/png\n".utf8).write(
      to: mime.appendingPathComponent("types"))
    try Data("application/x-quire-alias application/x-quire-test\n".utf8).write(to: mime.appendingPathComponent("aliases"))
    try Data("text/x-quire-notes text/plain\n".utf8).write(to: mime.appendingPathComponent("subclasses"))
    try Data(
      """
      # generated
      60:text/x-quire-notes:*.qnotes
      50:application/x-quire-test:*.qtest
      50:application/x-quire-test:QUIREFILE
      50:text/x-quire-notes:*.QN:cs
      50:image/x-quire-picture:*.qpic
      50:image/png:*.png

      """.utf8
    ).write(to: mime.appendingPathComponent("globs2"))
    var magic = Array("MIME-Magic\0\n".utf8)
    // Priority 60: "QUIRE" at offset 0, with a nested rule "!" somewhere in 4..9.
    magic += Array("[60:application/x-quire-test]\n>0=".utf8) + [0, 5] + Array("QUIRE".utf8) + Array("\n1>4=".utf8) + [0, 1] + Array("!+6\n".utf8)
    // Priority 40: a 16-bit big-endian word 0x1234 at offset 2 (word size 2, masked).
    magic += Array("[40:image/x-quire-picture]\n>2=".utf8) + [0, 2, 0x12, 0x34] + Array("&".utf8) + [0xFF, 0xFF] + Array("~2\n".utf8)
    magic += Array("[50:image/png]\n>0=".utf8) + [0, 4, 0x89, 0x50, 0x4E, 0x47] + Array("\n".utf8)
    try Data(magic).write(to: mime.appendingPathComponent("magic"))
    return TypeRegistry(configuration: .init(dataDirectories: [folder.url.appendingPathComponent("data")]))
  }

  @Test func mimeTypesBecomeTypesWithConformanceAndTags() throws {
    let registry = try makeDatabase()
    let notes = try #require(registry.type(forTag: "text/x-quire-notes", tagClass: .mimeType))
    #expect(notes.identifier == "org.freedesktop.mime.text.x-quire-notes")
    #expect(notes.conforms(to: .plainText))
    #expect(registry.type(forFilenameExtension: "qnotes") == notes)
    let test = try #require(registry.type(forTag: "application/x-quire-alias", tagClass: .mimeType))
    #expect(test.identifier == "org.freedesktop.mime.application.x-quire-test")
    #expect(test.tags[.mimeType] == ["application/x-quire-test", "application/x-quire-alias"])
    #expect(test.conforms(to: .data))
    let picture = try #require(registry.type(forFilenameExtension: "qpic"))
    #expect(picture.conforms(to: .image))
    // Apple's type keeps Apple's identifier.
    #expect(registry.type(forTag: "image/png", tagClass: .mimeType) == .png)
  }

  @Test func magicRulesReportWhichRuleDecided() throws {
    let registry = try makeDatabase()
    let hit = registry.identify(fileName: nil, contents: Data("QUIRE..!....".utf8))
    #expect(hit.type.identifier == "org.freedesktop.mime.application.x-quire-test")
    #expect(hit.source == .content)
    let magic = try #require(hit.evidence.first { $0.kind == .magic })
    #expect(magic.priority == 60)
    #expect(magic.rule?.contains("QUIRE") == true)
    // The nested rule must match too.
    #expect(registry.identify(fileName: nil, contents: Data("QUIRE.........".utf8)).type.identifier != hit.type.identifier)
    // Word size 2: the value 0x1234 is a host-order (here little-endian) 16-bit number.
    #expect(registry.identify(fileName: nil, contents: Data([0, 0, 0x34, 0x12, 0])).type.identifier == "org.freedesktop.mime.image.x-quire-picture")
    #expect(registry.identify(fileName: nil, contents: Data([0, 0, 0x12, 0x34, 0])).type.identifier == "public.data")
  }

  @Test func globsFollowXdgRules() throws {
    let registry = try makeDatabase()
    #expect(registry.identify(fileName: "QUIREFILE", contents: Data()).type.identifier == "org.freedesktop.mime.application.x-quire-test")
    #expect(registry.identify(fileName: "a.qn", contents: Data("x".utf8)).type.identifier == "public.plain-text")
    #expect(registry.identify(fileName: "a.QN", contents: Data("x".utf8)).type.identifier == "org.freedesktop.mime.text.x-quire-notes")
    let named = registry.identify(fileName: "Shout.QNOTES", contents: Data("hello".utf8))
    let glob = try #require(named.evidence.first { $0.kind == .glob })
    #expect(glob.weight == 60)
    #expect(glob.rule == "*.qnotes")
  }

  @Test func nameAndContentDisagreementIsReported() throws {
    let registry = try makeDatabase()
    let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    let result = registry.identify(fileName: "photo.qnotes", contents: png)
    #expect(result.type.identifier == "org.freedesktop.mime.text.x-quire-notes")
    #expect(result.disagreement?.contentType == .png)
    #expect(result.confidence < 0.6)
    let agreeing = registry.identify(fileName: "photo.png", contents: png)
    #expect(agreeing.type == .png)
    #expect(agreeing.disagreement == nil)
    #expect(agreeing.confidence > 0.9)
  }

  @Test func brokenDatabaseFilesAreSkipped() throws {
    let mime = folder.url.appendingPathComponent("bad/mime", isDirectory: true)
    try FileManager.default.createDirectory(at: mime, withIntermediateDirectories: true)
    try Data("text/x-ok\n".utf8).write(to: mime.appendingPathComponent("types"))
    try Data([0xFF, 0xFE, 0x0A, 0x3A, 0x3A, 0x0A] + Array("50:text/x-ok:*.ok\nnot-a-number:x:y\n".utf8)).write(to: mime.appendingPathComponent("globs2"))
    // A magic file cut in the middle of a value, and one with a bad header.
    try Data(Array("MIME-Magic\0\n[50:text/x-ok]\n>0=".utf8) + [0, 200, 0x41]).write(to: mime.appendingPathComponent("magic"))
    let registry = TypeRegistry(configuration: .init(dataDirectories: [folder.url.appendingPathComponent("bad")]))
    #expect(registry.type(forFilenameExtension: "ok")?.identifier == "org.freedesktop.mime.text.x-ok")
    #expect(registry.identify(fileName: nil, contents: Data("A".utf8)).type == .plainText)
  }

  @Test(.enabled(if: FileManager.default.fileExists(atPath: "/usr/share/mime/globs2"), "/usr/share/mime is absent"))
  func systemDatabaseMapsOntoAppleIdentifiers() throws {
    let registry = TypeRegistry(configuration: .init(dataDirectories: [URL(fileURLWithPath: "/usr/share")]))
    #expect(registry.type(forTag: "text/markdown", tagClass: .mimeType) == .markdown)
    #expect(registry.type(forTag: "image/png", tagClass: .mimeType) == .png)
    #expect(registry.type(forTag: "application/gzip", tagClass: .mimeType) == .gzip)
    #expect(registry.type(forTag: "application/x-shellscript", tagClass: .mimeType) == .shellScript)
    let odt = try #require(registry.type(forTag: "application/vnd.oasis.opendocument.text", tagClass: .mimeType))
    #expect(odt.conforms(to: .zip))
    #expect(odt.localizedDescription?.isEmpty == false)
    #expect(registry.allTypes.count > 500)
  }
}
