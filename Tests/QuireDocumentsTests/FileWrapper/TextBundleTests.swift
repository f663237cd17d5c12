import Foundation
import QuireDocuments
import QuireTestSupport
import QuireTypes
import Testing

@Suite("TextBundle")
final class TextBundleTests: FolderSuite {
  let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3])

  func makeBundle() -> TextBundle {
    let bundle = TextBundle(text: "# Trip\n\nNotes about the trip. 旅行\n", creatorIdentifier: "org.quire.tests")
    let reference = bundle.addAsset(png, preferredFilename: "photo.png")
    bundle.text += "\n\(reference.markdown)\n"
    bundle.addAsset(Data("a,b\n".utf8), preferredFilename: "data.csv")
    return bundle
  }

  @Test func packageRoundTrip() throws {
    let url = folder.file("Trip.textbundle")
    let bundle = makeBundle()
    try bundle.write(to: url)
    let read = try TextBundle(url: url)
    #expect(read.hasSameContents(as: bundle))
    #expect(read.text.hasSuffix("![photo](assets/photo.png)\n"))
    #expect(read.assetNames == ["data.csv", "photo.png"])
    #expect(read.asset(named: "photo.png") == png)
    #expect(read.info.version == 2)
    #expect(read.info.type == "net.daringfireball.markdown")
    #expect(read.info.creatorIdentifier == "org.quire.tests")
    #expect(!read.info.isTransient)
    let info = try JSONSerialization.jsonObject(with: Data(contentsOf: url.appendingPathComponent("info.json"))) as? [String: Any]
    #expect(info?["version"] as? Int == 2)
    #expect(info?["transient"] as? Bool == false)
    #expect(FileWrapper(directoryWithFileWrappers: [:]).matchesContents(of: url) == false)
  }

  @Test func textpackRoundTrip() throws {
    let url = folder.file("Trip.textpack")
    let bundle = makeBundle()
    bundle.info.isTransient = true
    try bundle.write(to: url)
    var isFolder: ObjCBool = false
    #expect(FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) && !isFolder.boolValue)
    let read = try TextBundle(url: url)
    #expect(read.hasSameContents(as: bundle))
    #expect(read.info.isTransient)
    // The archive holds a Trip.textbundle folder, as other apps expect; unzip agrees.
    if let listing = try runTool("unzip", ["-Z1", url.path]) {
      #expect(listing.output.split(separator: "\n").contains("Trip.textbundle/text.md"))
      #expect(listing.output.split(separator: "\n").contains("Trip.textbundle/assets/photo.png"))
    }
    // And a package and a textpack of one bundle read back the same.
    let package = folder.file("Trip.textbundle")
    try read.write(to: package)
    #expect(try TextBundle(url: package).hasSameContents(as: bundle))
  }

  @Test func textpackWithFilesAtTheTopReads() throws {
    // Some apps zip the bundle's files without the folder.
    let zipped = folder.file("flat.textpack")
    let source = folder.file("src")
    try FileManager.default.createDirectory(at: source, withIntermediateDirectories: false)
    try Data("flat text".utf8).write(to: source.appendingPathComponent("text.markdown"))
    try Data(#"{"version":2,"type":"net.daringfireball.markdown","custom":"kept"}"#.utf8).write(to: source.appendingPathComponent("info.json"))
    guard let made = try runTool("zip", ["-q", "-r", zipped.path, "."], in: source) else { return }
    #expect(made.status == 0)
    let read = try TextBundle(url: zipped)
    #expect(read.text == "flat text")
    #expect(read.textFilename == "text.markdown")
    // Unknown info.json keys survive a save.
    let again = folder.file("again.textbundle")
    try read.write(to: again)
    let info = try JSONSerialization.jsonObject(with: Data(contentsOf: again.appendingPathComponent("info.json"))) as? [String: Any]
    #expect(info?["custom"] as? String == "kept")
  }

  @Test func addingAssetsGivesUniqueNamesAndEncodedReferences() {
    let bundle = TextBundle()
    #expect(bundle.addAsset(png, preferredFilename: "my photo.png").markdown == "![my photo](assets/my%20photo.png)")
    let second = bundle.addAsset(png, preferredFilename: "my photo.png")
    #expect(second.name == "my photo 2.png")
    #expect(second.markdown == "![my photo 2](assets/my%20photo%202.png)")
    #expect(bundle.addAsset(Data(), preferredFilename: "notes (draft).pdf").markdown == "[notes (draft)](assets/notes%20%28draft%29.pdf)")
    #expect(bundle.addAsset(Data(), preferredFilename: "../../etc/passwd").name == ".._.._etc_passwd")
    bundle.removeAsset(named: "my photo.png")
    #expect(bundle.assetNames == [".._.._etc_passwd", "my photo 2.png", "notes (draft).pdf"])
  }

  @Test func savingAgainReusesUnchangedAssets() throws {
    let url = folder.file("Trip.textbundle")
    try makeBundle().write(to: url)
    let bundle = try TextBundle(url: url)
    bundle.text += "More.\n"
    try bundle.write(to: url, originalContentsURL: url)
    #expect(bundle.fileWrapper.lastWriteReuse[.hardLink] == 3)  // two assets and info.json
    #expect(try TextBundle(url: url).text.hasSuffix("More.\n"))
  }

  enum BadInput: String, CaseIterable { case missing, emptyFolder, notUTF8, badInfo, emptyFile, notZip, truncatedZip, traversal }

  @Test(arguments: BadInput.allCases)
  func badInputFailsCleanly(_ input: BadInput) throws {
    var url = folder.file("bad.textbundle")
    switch input {
    case .missing: break
    case .emptyFolder:
      try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
    case .notUTF8:
      try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
      try Data([0xFF, 0xFE, 0x00, 0xC3]).write(to: url.appendingPathComponent("text.md"))
    case .badInfo:
      try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
      try Data("ok".utf8).write(to: url.appendingPathComponent("text.md"))
      try Data("[1, 2".utf8).write(to: url.appendingPathComponent("info.json"))
    case .emptyFile:
      url = folder.file("bad.textpack")
      try Data().write(to: url)
    case .notZip:
      url = folder.file("bad.textpack")
      try Data("# just markdown\n".utf8).write(to: url)
    case .truncatedZip:
      let whole = folder.file("whole.textpack")
      try makeBundle().write(to: whole)
      let data = try Data(contentsOf: whole)
      url = folder.file("bad.textpack")
      try data.prefix(data.count / 2).write(to: url)
    case .traversal:
      // An entry named "../evil.md" beside a valid text.md, written with Python's zipfile.
      url = folder.file("bad.textpack")
      let script = "import zipfile,sys\nz=zipfile.ZipFile(sys.argv[1],'w')\nz.writestr('text.md','ok')\nz.writestr('../evil.md','x')\nz.close()"
      guard let made = try runTool("python3", ["-c", script, url.path]) else { return }
      #expect(made.status == 0)
    }
    let error = #expect(throws: QuireError.self) { try TextBundle(url: url) }
    #expect(error?.reason.contains("bad.text") == true, "\(String(describing: error))")
    if input == .traversal { #expect(error?.reason.contains("outside the archive") == true) }
    #expect(!FileManager.default.fileExists(atPath: folder.file("evil.md").path))
  }

  @Test func typeIdentifiers() {
    #expect(TextBundle.packageTypeIdentifier == "org.textbundle.package")
    #expect(TextBundle.Format(url: URL(fileURLWithPath: "/a/B.TEXTPACK")) == .textpack)
    #expect(TextBundle.Format(url: URL(fileURLWithPath: "/a/B.textbundle")) == .package)
  }
}
