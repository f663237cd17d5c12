import Foundation
import QuireDocuments
import QuireTestSupport
import Testing

/// What saves killed mid-way leave beside a document (hidden `.NAME.quire-…` items) is
/// removed by a later save once it has gone unmodified for an hour; nothing else is touched.
@Suite("Leftovers of interrupted saves")
final class LeftoverTests: FolderSuite {
  private func names() throws -> Set<String> { Set(try FileManager.default.contentsOfDirectory(atPath: folder.url.path)) }

  /// Makes `name` (a file, or a folder holding one) last modified `hours` ago.
  @discardableResult
  private func make(_ name: String, folder isFolder: Bool = false, hoursAgo hours: Double) throws -> URL {
    let url = folder.file(name)
    if isFolder {
      try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
      try Data("partial".utf8).write(to: url.appendingPathComponent("text.md"))
    } else {
      try Data("partial".utf8).write(to: url)
    }
    try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-hours * 3600)], ofItemAtPath: url.path)
    return url
  }

  @Test func aSaveRemovesOnlyItsOwnAbandonedTemporaries() throws {
    let document = try folder.write("old\n", to: "notes.md")
    try make(".notes.md.quire-1x9zq0k3.tmp", hoursAgo: 2)  // abandoned file save
    try make(".notes.md.quire-AbCd1234", folder: true, hoursAgo: 3)  // abandoned package save
    try make(".notes.md.quire-55aa.tmp", hoursAgo: 0)  // a save in progress right now
    try make(".notes.md.quire-7k2m.backup", hoursAgo: 5)  // may hold the only whole old copy
    try make(".other.md.quire-1x9zq0k3.tmp", hoursAgo: 5)  // another document's
    try make("notes.md.quire-1x9zq0k3.tmp", hoursAgo: 5)  // not hidden: not ours
    let link = folder.file(".notes.md.quire-Zz99Yy88")
    try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "/etc/hostname")
    _ = try FileSaver.write(Data("new\n".utf8), to: document)
    #expect(
      try names() == [
        "notes.md", ".notes.md.quire-55aa.tmp", ".notes.md.quire-7k2m.backup", ".other.md.quire-1x9zq0k3.tmp",
        "notes.md.quire-1x9zq0k3.tmp", ".notes.md.quire-Zz99Yy88",
      ])
    #expect(try String(contentsOf: document, encoding: .utf8) == "new\n")
  }

  @Test func aPackageSaveRemovesAnAbandonedPackageTree() throws {
    let package = folder.file("trip.textbundle")
    try TextBundle(text: "first\n").write(to: package)
    try make(".trip.textbundle.quire-Qw3rTy12", folder: true, hoursAgo: 2)
    try make(".trip.textbundle.quire-Fresh123", folder: true, hoursAgo: 0)
    let bundle = try TextBundle(url: package)
    bundle.text = "second\n"
    try bundle.write(to: package, originalContentsURL: package)
    #expect(try names() == ["trip.textbundle", ".trip.textbundle.quire-Fresh123"])
    #expect(try TextBundle(url: package).text == "second\n")
  }

  @Test func withoutAnAgeEveryLeftoverGoes() throws {
    let document = try folder.write("x\n", to: "a.txt")
    try make(".a.txt.quire-abc.tmp", hoursAgo: 0)
    try make(".a.txt.quire-Abcdefgh", folder: true, hoursAgo: 0)
    try make(".a.txt.quire-abc.backup", hoursAgo: 0)
    let removed = FileWrapper.removeLeftovers(besides: document)
    #expect(Set(removed) == [".a.txt.quire-abc.tmp", ".a.txt.quire-Abcdefgh"])
    #expect(try names() == ["a.txt", ".a.txt.quire-abc.backup"])
  }
}
